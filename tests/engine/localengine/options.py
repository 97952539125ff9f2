"""Behaviour options: where the real Engine's behaviour is unknown, the local Engine does the strictest
plausible thing by default and offers the lenient one as an option (README.md, "Strict by default").

Set on the command line (``--put merge``), through ``LocalEngine(put="merge")``, or at run time with
``PUT /_local/options``; ``POST /_local/reset`` restores the command-line values.
"""

# name -> (choices, the first is the strict default; one line of help)
OPTIONS = {
    "put": (("replace", "merge"),
            "replace: a PUT body is the whole LBaaS object (missing required fields: 422, left-out optional "
            "fields reset); merge: left-out keys keep their value"),
    "deploy_on": (("state0", "change"),
                  "state0: only a PUT carrying \"state\": \"0\" deploys; change: any change deploys too"),
    "tag_match": (("exact", "substring", "prefix", "casefold"),
                  "how GET /api/core/v1/resource.json?tag_name=... matches tag names"),
    "tag_names": (("strict", "any"),
                  "strict: tag names are 1-128 characters of A-Z a-z 0-9 - _ . : = @ , +; any: any non-empty name"),
    "tag_delete": (("detach", "refuse"),
                   "deleting a tag entity: detach it from every resource, or refuse (409) while one carries it"),
    # Not known for the v1 listings (README.md, "Full listings"); ignore is what the emulator always did.
    "full_listings": (("ignore", "honour", "refuse"),
                      "an LBaaS listing's attributes=all: ignore it (entries stay {identifier, name}), honour it "
                      "(entries are the whole objects, as a GET answers them), or refuse it (400 naming it)"),
    "put_enable": (("reset", "keep"),
                   "a PUT of a frontend or backend without enable: reset turns it on again (disabled: enabled), "
                   "keep leaves it as it was (also with --put replace)"),
}
DEFAULTS = dict((name, choices[0]) for name, (choices, _help) in OPTIONS.items())


class OptionError(ValueError):
    pass


def flag(name):
    return "--" + name.replace("_", "-")


def validated(values, base=None):
    """``base`` (default: the defaults) updated with ``values``; OptionError names the first unknown
    option or value."""
    if not isinstance(values, dict):
        raise OptionError("options must be a mapping of %s" % ", ".join(sorted(OPTIONS)))
    out = dict(base or DEFAULTS)
    for name, value in values.items():
        if name not in OPTIONS:
            raise OptionError("unknown option %r (known: %s)" % (name, ", ".join(sorted(OPTIONS))))
        if value not in OPTIONS[name][0]:
            raise OptionError("%s must be one of %s, got %r" % (name, ", ".join(OPTIONS[name][0]), value))
        out[name] = value
    return out
