"""LBaaS v1 object types: their fields, links and the checks on single values (docs/engine-api-facts.md, LBaaS objects).
Checks that need other objects (links exist, same load balancer, a rule's ACL) live in lbaas.py.

ACL and Rule (gac:pkg/apis/lbaas/v1/acl_types.go, rule_types.go, e2e_test.go): only the values the
Engine's own clients are known to send are accepted (README.md, "ACL and Rule"); what no client shows
a value for (the redirection fields, rule_type) must stay empty.
"""
from .validation import is_bool, is_count, is_port, is_port_text, is_src, is_switch, is_text, parse_ip

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
# enable: read as a bool (go-anxsdk v1/lbaas frontend.go, backend.go: Enable bool), written 0/1 by go-anxcloud's legacy
# client (pkg/lbaas/frontend/definition.go, pkg/lbaas/common/common.go EnableState); both forms are taken.
ENABLE = (is_switch, "Must be 0, 1, true or false.")
PARENT_TYPE = (lambda v: v in ("frontend", "backend"), "Must be one of: frontend, backend.")
CRITERION = (lambda v: is_text(v) and v in ACL_VALUES,
             "Must be one of: src, dst_port (the criteria the Engine's clients are known to send).")
CONDITION = (lambda v: v == "if", "Must be: if (the only condition the Engine's clients are known to send; "
                                  "HAProxy's unless is not accepted here).")
RULE_TYPE = (lambda v: v == "connection", "Must be: connection (the only rule type the Engine's clients are known "
                                          "to send).")
ACTION = (lambda v: v in ("accept", "reject"), "Must be one of: accept, reject.")
UNKNOWN = (lambda v: v == "", "Must be empty: no value is known from the Engine's clients.")
# ACL criterion -> (check of its value, message)
ACL_VALUES = {
    "src": (is_src, "Must be one IPv4 or IPv6 address or network without host bits (10.0.0.0/8) for criterion src."),
    "dst_port": (is_port_text, "Must be one port from 1 to 65535 as a decimal string (\"8080\") for criterion "
                               "dst_port."),
}

# Field order is the order in answers (after identifier and name).
FIELDS = {
    "loadbalancer": {"ip_address": TEXT},
    "backend": {"load_balancer": LINK, "mode": MODE, "health_check": TEXT, "server_timeout": COUNT, "enable": ENABLE},
    "frontend": {"load_balancer": LINK, "default_backend": LINK, "mode": MODE, "client_timeout": TEXT,
                 "enable": ENABLE},
    "bind": {"frontend": LINK, "address": IP_OR_EMPTY, "port": PORT, "ssl": BOOL, "ssl_certificate_path": TEXT},
    "server": {"backend": LINK, "ip": IP, "port": PORT, "check": CHECK},
    "acl": {"parent_type": PARENT_TYPE, "frontend": LINK, "backend": LINK, "criterion": CRITERION, "value": TEXT,
            "index": COUNT},
    "rule": {"parent_type": PARENT_TYPE, "frontend": LINK, "backend": LINK, "index": COUNT, "condition": CONDITION,
             "condition_test": TEXT, "type": RULE_TYPE, "action": ACTION, "redirection_type": UNKNOWN,
             "redirection_value": UNKNOWN, "redirection_code": UNKNOWN, "rule_type": UNKNOWN},
}
# The maintenance switch: kind -> its field, stored and answered as a bool, on (true) when never set
# (README.md, "Maintenance switch").
SWITCHES = {"backend": "enable", "frontend": "enable"}
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
    "acl": ("name", "parent_type", "criterion", "value", "index"),
    "rule": ("name", "parent_type", "index", "condition", "condition_test", "type", "action"),
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
    if kind == "acl" and "criterion" not in errors and doc.get("criterion") is not None and "value" not in errors:
        check, message = ACL_VALUES[doc["criterion"]]
        if not check(doc["value"]):
            errors["value"] = message
    if kind == "rule" and parent_type == "backend" and doc.get("type") == "connection":
        errors.setdefault("parent_type", "A connection rule belongs to a frontend (HAProxy's tcp-request connection "
                                         "is frontend-only).")
    return errors
