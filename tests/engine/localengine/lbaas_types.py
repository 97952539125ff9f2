"""LBaaS v1 object types: their fields, links and the checks on single values (ENGINE_API.md 4.3-4.8).
Checks that need other objects (links exist, same load balancer) live in lbaas.py."""
from .validation import is_bool, is_count, is_int, is_port, is_text, parse_ip

# kind -> collection name in the path (case matters: ACL.json)
PATHS = {"loadbalancer": "loadbalancer", "frontend": "frontend", "backend": "backend", "bind": "bind",
         "server": "server", "acl": "ACL", "rule": "rule"}
KINDS = tuple(PATHS)

# (check, message when the check fails); None values are "not set" and never checked
TEXT = (is_text, "Must be a string.")
LINK = (is_text, "Must be an identifier string.")
MODE = (lambda v: v in ("tcp", "http"), "Must be one of: tcp, http.")
PORT = (is_port, "Must be an integer from 1 to 65535.")
COUNT = (is_count, "Must be an integer >= 0.")
BOOL = (is_bool, "Must be true or false.")
IP = (lambda v: parse_ip(v) is not None, "Must be a valid IPv4 or IPv6 address.")
IP_OR_EMPTY = (lambda v: v == "" or parse_ip(v) is not None, "Must be a valid IPv4 or IPv6 address, or empty.")
CHECK = (lambda v: v in ("enabled", "disabled"), "Must be one of: enabled, disabled.")
ENABLE = (lambda v: is_int(v) and v in (0, 1), "Must be 0 or 1.")
PARENT_TYPE = (lambda v: v in ("frontend", "backend"), "Must be one of: frontend, backend.")

_RULE_TEXTS = ("condition", "condition_test", "type", "action", "redirection_type", "redirection_value",
               "redirection_code", "rule_type")
# Field order is the order in answers (after identifier and name).
FIELDS = {
    "loadbalancer": {"ip_address": TEXT},
    "backend": {"load_balancer": LINK, "mode": MODE, "health_check": TEXT, "server_timeout": COUNT},
    "frontend": {"load_balancer": LINK, "default_backend": LINK, "mode": MODE, "client_timeout": TEXT,
                 "enable": ENABLE},
    "bind": {"frontend": LINK, "address": IP_OR_EMPTY, "port": PORT, "ssl": BOOL, "ssl_certificate_path": TEXT},
    "server": {"backend": LINK, "ip": IP, "port": PORT, "check": CHECK},
    "acl": {"parent_type": PARENT_TYPE, "frontend": LINK, "backend": LINK, "criterion": TEXT, "value": TEXT,
            "index": COUNT},
    "rule": dict([("parent_type", PARENT_TYPE), ("frontend", LINK), ("backend", LINK), ("index", COUNT)] +
                 [(name, TEXT) for name in _RULE_TEXTS]),
}
# Link fields: field -> kind it points to
LINKS = {
    "loadbalancer": {},
    "backend": {"load_balancer": "loadbalancer"},
    "frontend": {"load_balancer": "loadbalancer", "default_backend": "backend"},
    "bind": {"frontend": "frontend"},
    "server": {"backend": "backend"},
    "acl": {"frontend": "frontend", "backend": "backend"},
    "rule": {"frontend": "frontend", "backend": "backend"},
}
REQUIRED = {
    "loadbalancer": ("name",),
    "backend": ("name", "load_balancer"),
    "frontend": ("name", "load_balancer"),
    "bind": ("name", "frontend", "port"),
    "server": ("name", "backend", "ip", "port"),
    "acl": ("name", "parent_type"),
    "rule": ("name", "parent_type"),
}


def check_values(kind, doc):
    """{field: message} for missing required fields and values of the wrong type or range."""
    errors = {}
    for field in REQUIRED[kind]:
        if doc.get(field) in (None, ""):
            errors[field] = "This field is required."
    if doc.get("name") is not None and not is_text(doc["name"]):
        errors["name"] = TEXT[1]
    for field, (check, message) in FIELDS[kind].items():
        if field not in errors and doc.get(field) is not None and not check(doc[field]):
            errors[field] = message
    parent_type = doc.get("parent_type")
    if kind in ("acl", "rule") and parent_type in ("frontend", "backend"):
        other = "backend" if parent_type == "frontend" else "frontend"
        if doc.get(parent_type) is None:
            errors.setdefault(parent_type, "Required when parent_type is %s." % parent_type)
        if doc.get(other) is not None:
            errors.setdefault(other, "Must be empty when parent_type is %s." % parent_type)
    return errors
