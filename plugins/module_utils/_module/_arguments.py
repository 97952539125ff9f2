# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Argument errors that name the fix: the closest known option for an unknown one, where the token comes from.

AnsibleModule validates its arguments inside its constructor and fails there through ``fail_json``, so
the hint is added in that one place, after Ansible's own message, which stays as it is.
"""

import difflib
from urllib.parse import urlsplit

from ansible.module_utils.basic import AnsibleModule

TOKEN_HINT = ("api_token: set the api_token option (for example under module_defaults for "
              "group/anxcloud.lbaas.lbaas) or the ANEXIA_TOKEN environment variable")


def options_at(spec, path):
    """Option names (aliases included) of ``spec`` under the suboption ``path`` (a tuple of names)."""
    for name in path:
        found = None
        for key, option in spec.items():
            if name == key or name in (option.get("aliases") or ()):
                found = option
        spec = (found or {}).get("options") or {}
    names = []
    for key, option in spec.items():
        names.append(key)
        names.extend(option.get("aliases") or ())
    return names


def closest(name, candidates):
    """The known name ``name`` most likely misspells, or None."""
    found = difflib.get_close_matches(str(name), candidates, n=1, cutoff=0.6)
    return found[0] if found else None


def unknown_hints(unsupported, spec):
    """``["load_balancer -> load_balancers", "ports.helth_check -> ports.health_check"]`` for the unknown
    options (names, or tuples of the parent options and the name, as Ansible reports them)."""
    hints = []
    for item in sorted(unsupported, key=str):
        path = tuple(item) if isinstance(item, (tuple, list)) else (item,)
        match = closest(path[-1], options_at(spec, path[:-1]))
        if match:
            hints.append("%s -> %s" % (_dotted(path), _dotted(path[:-1] + (match,))))
    return hints


def with_hints(msg, unsupported, spec):
    """Ansible's argument error ``msg`` followed by what fixes it. Ansible reports only its first error,
    so unknown options behind another error (a required option missing because it is misspelt) are named too."""
    text = str(msg).rstrip(".")
    unsupported = sorted(unsupported or (), key=str)
    if text.startswith("missing required arguments:"):
        if "api_token" in [m.strip() for m in text.split(":", 1)[1].split(",")]:
            text += ". " + TOKEN_HINT
        if unsupported:
            text += ". Unsupported parameters: %s" % ", ".join(_dotted(u) for u in unsupported)
    hints = unknown_hints(unsupported, spec)
    if hints:
        text += ". Did you mean: %s?" % ", ".join(hints)
    elif text != str(msg).rstrip("."):
        text += "."
    return text if text != str(msg).rstrip(".") else str(msg)


def _like(option):
    """A dict of a list option's elements as a user writes it: its required suboptions (else its first)."""
    suboptions = option.get("options") or {}
    keys = [k for k, o in suboptions.items() if o.get("required")] or list(suboptions)[:1]
    return "{%s}" % ", ".join("%s: ..." % k for k in keys)


def _not_dicts(name, option, value):
    """The message for a list of dicts given a string or other items (``servers: "a,b"``, ``ports: [80]``), or None."""
    items = value if isinstance(value, list) else [value]
    wrong = [(i, v) for i, v in enumerate(items) if not isinstance(v, dict)]
    if not wrong:
        return None
    got = "got the string %r" % value if isinstance(value, str) else "%s[%d] is %r" % ((name,) + wrong[0])
    return "%s must be a list of dicts, each like %s; %s" % (name, _like(option), got)


def _split_badly(name, value):
    """The message for a list of strings given one string that Ansible's split at commas turns into names with
    blanks or empty ones (``"lb1, lb2"`` -> ``'lb1', ' lb2'``), or None."""
    parts = value.split(",") if isinstance(value, str) and "," in value else []
    if not any(not p or p != p.strip() for p in parts):
        return None
    return ("%s must be a list, like [%s]; got the one string %r, which Ansible would split at its commas into %s"
            % (name, ", ".join(p.strip() for p in parts if p.strip()), value, ", ".join(repr(p) for p in parts)))


def shape_error(raw, spec, refused):
    """The message for a top-level list option written in a shape it cannot have, or None. ``refused``: whether
    Ansible refused the arguments. A list of dicts given a string or other items is named with the shape
    expected (Ansible's own message does not name it) when Ansible refused it; a list of strings given one
    string that Ansible would split into names with blanks is named with the list form always."""
    for name, option in spec.items():
        value = (raw or {}).get(name)
        if option.get("type") != "list" or value is None:
            continue
        if option.get("elements") == "dict":
            message = _not_dicts(name, option, value) if refused else None
        else:
            message = _split_badly(name, value)
        if message:
            return message
    return None


def _dotted(item):
    return ".".join(item) if isinstance(item, (tuple, list)) else str(item)


class ArgumentsModule(AnsibleModule):
    """AnsibleModule whose argument errors name the fix (see the module docstring)."""

    def __init__(self, *args, **kwargs):
        self._constructed = False
        self._raw_params = None
        super().__init__(*args, **kwargs)
        self._constructed = True
        self._mask_url_password()
        shape = shape_error(self._raw_params, self.argument_spec, refused=False)
        if shape:
            self.fail_json(msg=shape)
        token = self.params.get("api_token")
        if token is not None and not str(token).strip():
            self.fail_json(msg="api_token is empty. " + TOKEN_HINT)

    def _load_params(self):
        """The arguments as the task gave them, kept before Ansible converts them (a string into a list)."""
        super()._load_params()
        self._raw_params = dict(self.params)

    def _mask_url_password(self):
        """The password of an api_url like http://user:password@host is masked wherever Ansible shows
        text (the echoed module arguments included), as the token is."""
        url = (getattr(self, "params", None) or {}).get("api_url")
        try:
            password = urlsplit(url).password if isinstance(url, str) else None
        except ValueError:
            password = None
        if password:
            self.no_log_values.add(password)

    def fail_json(self, msg, **kwargs):  # pylint: disable=arguments-differ
        if not self._constructed:
            self._mask_url_password()
            result = getattr(self, "validation_result", None)
            msg = (shape_error(self._raw_params, self.argument_spec, refused=True) or
                   with_hints(msg, getattr(result, "_unsupported_parameters", None), self.argument_spec))
        super().fail_json(msg, **kwargs)
