# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Writes plugins/doc_fragments/lbaas_object.py: the options every per-object module and info module shares.

ansible-test (yamllint, validate-modules) reads a doc fragment's class attributes as string literals, so
the fragment is generated with its texts written out; the texts are written once here and name the object type
and its parent, so each module's page reads as if written for it. `make docs` runs this; `scripts/docs.sh
--check` (make test) fails when the committed fragment is not what this writes. Edit here, not the fragment.
"""
import os
import sys


_PARENT = r"""
  {parent_option}:
    description:
      - The {parent} the {kind} belongs to, by name or identifier.
      - Required unless O(id) is given.
    type: str
"""

_LOOKUP = r"""
  load_balancer:
    description:
      - The load balancer to look the {parent} up in, by name or identifier.
      - Needed only when a {parent} of that name exists on several load balancers.
    type: str
"""

_NAME = r"""
  name:
    description:
      - Name of the {kind}, unique within its {parent}.
      - With O(id), a different name renames the {kind}.
    type: str
"""

_ID = r"""
  id:
    description:
      - Identifier of the {kind}, to address it directly instead of by name.
    type: str
  recreate:
    description:
      - Allow moving the {kind} to another {parent} by deleting and creating it again,
        which the Engine cannot do in place.
    type: bool
    default: false
"""

_STATE = r"""
  state:
    description:
      - Whether the {kind} should exist.
      - V(absent) is ok and unchanged when the {kind}, its parent or its load balancer does not exist, so a teardown
        can run twice.
{blocked}    type: str
    choices: [present, absent]
    default: present
"""

_MANAGED = _NAME + _ID + _STATE

# What a disabled frontend or backend does (HAProxy's ``disabled``; how the real Engine renders it is not known:
# docs/engine-api-facts.md, "Maintenance switch").
_SWITCHED_OFF = {
    "backend": """A disabled backend takes no traffic; the frontends that use it as their default backend close the
        TCP connections they accept and answer HTTP requests with 503.""",
    "frontend": """A disabled frontend does not listen on its binds, so connections to them are refused; its default
        backend, binds and servers stay as they are.""",
}

# What a delete of a parent waits for (_lbaas/_blockers.py derives it from the declaration; the Engine answers 409).
_BLOCKED = {
    "backend": """      - V(absent) on a backend that still holds servers, ACLs or rules, or that a frontend uses as its default
        backend, fails before any write, in check mode too, naming them (the Engine refuses such a delete); delete
        them first, in earlier tasks.
""",
    "frontend": """      - V(absent) on a frontend that still holds binds, ACLs or rules fails before any write, in check mode too,
        naming them (the Engine refuses such a delete); delete them first, in earlier tasks.
""",
}

_OWNED = r"""
  mode:
    description:
      - Proxy mode.
    type: str
    choices: [tcp, http]
  enabled:
    description:
      - Whether the {kind} is in service (the Engine's C(enable)). V(false) takes it out of service (HAProxy's
        C(disabled)) and keeps it and everything in it; V(true) puts it back. Either is one write of the {kind}.
      - {switched_off}
      - Left out, the {kind} keeps what the Engine holds; a new {kind} is created enabled.
      - Sent on every write of the {kind}, as the Engine's legacy client writes it (C(enable) V(0) or V(1)), so that a
        change of another option never turns it back on.
    type: bool
  owner:
    description:
      - Owner (service id) whose tag C(<tag_prefix>-svc=<owner>) the {kind} carries.
      - The tag is added when missing. A {kind} owned by another owner is never changed or deleted.
      - With O(state=absent), only a {kind} carrying this owner's tag is deleted.
      - Every owner tag C(<anything>-svc=<owner>), of any O(tag_prefix), is an owner's. Without O(owner) the module
        changes or deletes only a {kind} that carries no owner tag at all; a {kind} carrying one is refused, naming the tag and
        the O(owner) and O(tag_prefix) that address it as its owner.
    type: str
"""

# ACLs and rules have a frontend or a backend as their parent (the Engine's parent_type), given as one of two options.
_TYPED_FRONTEND = r"""
  frontend:
    description:
      - The frontend the {kind} belongs to, by name or identifier. Its C(parent_type) is then V(frontend).
      - One of O(frontend) or O(backend) is required unless O(id) is given.
    type: str
"""

_TYPED_BACKEND = r"""
  backend:
    description:
      - The backend the {kind} belongs to, by name or identifier. Its C(parent_type) is then V(backend).
    type: str
"""

_CONTAINED = r"""
  owner:
    description:
      - Owner (service id) of the {kind}. {A_kind} belongs to its frontend's or backend's owner (ownership by
        containment, see C(docs/how-reconciliation-works.md)). The parent carries the owner tag
        C(<tag_prefix>-svc=<owner>), the {kind} none. With O(owner) the parent must carry that tag (give the frontend or
        backend the same O(owner) first), else the task fails naming the parent.
      - {A_kind} that carries this owner's tag itself stays this owner's; {a_kind} carrying another owner tag is never
        changed or deleted, also inside a parent of this owner.
      - With O(state=absent), the {kind} is deleted when its parent carries this owner's tag (or the {kind} itself
        does).
      - Every owner tag C(<anything>-svc=<owner>), of any O(tag_prefix), is an owner's. Without O(owner) the module
        changes or deletes only {a_kind} that carries no owner tag at all; {a_kind} carrying one is refused, naming the
        tag and the O(owner) and O(tag_prefix) that address it as its owner.
      - {A_kind} belongs to its frontend's or backend's owner, so none is created, changed or deleted in a frontend or
        backend carrying an owner tag other than this task's.
    type: str
"""

_TYPED_INFO_PARENT = r"""
  frontend:
    description:
      - The frontend whose {kind}s to return, by name or identifier.
      - One of O(frontend), O(backend), O(id) or O(owner) is required.
    type: str
  backend:
    description:
      - The backend whose {kind}s to return, by name or identifier.
    type: str
"""

_INFO_PARENT = r"""
  {parent_option}:
    description:
      - The {parent} whose {kind}s to return, by name or identifier.
      - One of O({parent_option}), O(id) or O(owner) is required.
    type: str
"""

_INFO_LOOKUP = r"""
  load_balancer:
    description:
      - The load balancer to look the {parent} up in, by name or identifier, when its name is not unique.
    type: str
"""

_INFO = r"""
  id:
    description:
      - Identifier of one {kind}.
    type: str
  name:
    description:
      - Return only {kind}s with this name.
    type: str
  owner:
    description:
      - Return only {kind}s carrying this owner's tag C(<tag_prefix>-svc=<owner>); also returns their tags.
    type: str
"""


_TYPED = "frontend or backend"  # the parent, as the texts name it


def _options(kind, parent, *parts, article="a"):
    """One fragment: the parts' options for an object type `kind` inside `parent` ("load balancer" or a type)."""
    words = {
        "kind": kind,
        "parent": parent,
        "parent_option": parent.replace(" ", "_"),
        "a_kind": f"{article} {kind}",
        "A_kind": f"{article.capitalize()} {kind}",
        "blocked": _BLOCKED.get(kind, ""),
        "switched_off": _SWITCHED_OFF.get(kind, ""),
    }
    return "\noptions:" + "".join(part.format(**words) for part in parts)


FRAGMENTS = {
    # anxcloud.lbaas.lbaas_object.<type>: the managing module of a type
    'BACKEND': lambda: _options("backend", "load balancer", _PARENT, _MANAGED, _OWNED),
    'FRONTEND': lambda: _options("frontend", "load balancer", _PARENT, _MANAGED, _OWNED),
    'BIND': lambda: _options("bind", "frontend", _PARENT, _LOOKUP, _MANAGED),
    'SERVER': lambda: _options("server", "backend", _PARENT, _LOOKUP, _MANAGED),
    # anxcloud.lbaas.lbaas_object.<type>_info: the info module of a type
    'BACKEND_INFO': lambda: _options("backend", "load balancer", _INFO_PARENT, _INFO),
    'FRONTEND_INFO': lambda: _options("frontend", "load balancer", _INFO_PARENT, _INFO),
    'BIND_INFO': lambda: _options("bind", "frontend", _INFO_PARENT, _INFO_LOOKUP, _INFO),
    'SERVER_INFO': lambda: _options("server", "backend", _INFO_PARENT, _INFO_LOOKUP, _INFO),
    # ACLs and rules (parent a frontend or a backend). The ACL documents its own name and state (rules name it),
    # the rule its own backend (connection rules belong to frontends).
    'ACL': lambda: _options("ACL", _TYPED, _TYPED_FRONTEND, _TYPED_BACKEND, _LOOKUP, _ID, _CONTAINED, article="an"),
    'RULE': lambda: _options("rule", _TYPED, _TYPED_FRONTEND, _LOOKUP, _MANAGED, _CONTAINED),
    'ACL_INFO': lambda: _options("ACL", _TYPED, _TYPED_INFO_PARENT, _INFO_LOOKUP, _INFO),
    'RULE_INFO': lambda: _options("rule", _TYPED, _TYPED_INFO_PARENT, _INFO_LOOKUP, _INFO),
}

FRAGMENT_DOC = """The options every per-object module (backend, frontend, bind, server, acl, rule) and every per-object info module
shares.

How the object is found (its parent, name, id) and, for the managing modules, recreate and state. The text is
written once and names the object type and its parent, so each module's page reads as if written for it
(``extends_documentation_fragment: anxcloud.lbaas.lbaas_object.backend``). The owner tag's prefix is in the
owner_tag fragment. Frontends and backends (the objects on a load balancer) also share their proxy mode and what
``owner`` means for them; binds and servers document ``owner`` themselves. ACLs and rules have a frontend or a
backend as their parent (options ``frontend`` and ``backend``) and share what ``owner`` means for such a child.
"""


def render():
    out = [HEADER, '"""%s"""' % FRAGMENT_DOC, "", "", "class ModuleDocFragment:"]
    for name, make in FRAGMENTS.items():
        out.append("    %s = r\"\"\"%s\"\"\"" % (name, make()))
        out.append("")
    return "\n".join(out).rstrip() + "\n"


HEADER = """# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
# Generated by scripts/lbaas_object_fragment.py (make docs): edit the texts there.
"""


if __name__ == "__main__":
    target = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "plugins", "doc_fragments", "lbaas_object.py")
    with open(target, "w") as out:
        out.write(render())
