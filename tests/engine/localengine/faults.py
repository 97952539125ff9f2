"""Fault injection, set at start (--faults) or at run time (PUT /_local/faults); format in README.md.

Probabilistic faults draw from one random generator (``seed`` makes runs reproducible); scripted
faults, tag conflicts and deploy rules have counts that are used up and shown by GET /_local/faults.
"""
import fnmatch
import random
import threading

from .states import OUTCOMES

KEYS = ("latency", "errors", "retry_after", "script", "tag_conflicts", "deploy", "listing_omits", "seed")
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "*")
DROP = "drop"


class FaultError(ValueError):
    pass


def _number(value, where, upper=None):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 or (upper and value > upper):
        raise FaultError("%s must be a number >= 0%s, got %r" % (where, " and <= %s" % upper if upper else "", value))
    return value


def _count(value, where, allow_none=False):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise FaultError("%s must be an integer >= 0, got %r" % (where, value))
    return value


def _status(value, where):
    """An HTTP error status (int) or "drop" (close the connection without an answer)."""
    if value == DROP:
        return DROP
    try:
        status = int(value)
    except (TypeError, ValueError):
        status = 0
    if isinstance(value, bool) or not 400 <= status <= 599:
        raise FaultError("%s must be an HTTP status 400-599 or %r, got %r" % (where, DROP, value))
    return status


def _method(value, where):
    if value not in METHODS:
        raise FaultError("%s must be one of %s, got %r" % (where, ", ".join(METHODS), value))
    return value


def _typed(value, kind, where):
    if not isinstance(value, kind):
        raise FaultError("%s must be a %s" % (where, "mapping" if kind is dict else "list"))
    return value


def _keys(rule, allowed, where):
    _typed(rule, dict, where)
    unknown = sorted(set(rule) - set(allowed))
    if unknown:
        raise FaultError("%s: unknown keys %s (known: %s)" % (where, ", ".join(unknown), ", ".join(allowed)))


def normalise(config):
    """The validated configuration with every key present; FaultError names the first problem."""
    _keys(config, KEYS, "faults")
    latency = config.get("latency") or 0
    if isinstance(latency, dict):
        latency = dict((_method(m, "latency method"), _number(s, "latency.%s" % m)) for m, s in latency.items())
    else:
        latency = _number(latency, "latency")
    errors = {}
    for method, rates in _typed(config.get("errors") or {}, dict, "errors").items():
        _method(method, "errors method")
        _typed(rates, dict, "errors.%s" % method)
        errors[method] = dict((str(_status(s, "errors.%s status" % method)), _number(p, "errors.%s.%s" % (method, s), 1))
                              for s, p in rates.items())
    script = []
    for i, rule in enumerate(_typed(config.get("script") or [], list, "script")):
        where = "script[%d]" % i
        _keys(rule, ("method", "path", "status", "commit_then", "count"), where)
        if ("status" in rule) == ("commit_then" in rule):
            raise FaultError("%s needs either status (answer instead of handling) or commit_then (handle and "
                             "commit, then answer this instead)" % where)
        outcome = "status" if "status" in rule else "commit_then"
        script.append({"method": _method(rule.get("method", "*"), where + ".method"), "path": str(rule.get("path", "")),
                       outcome: _status(rule[outcome], "%s.%s" % (where, outcome)),
                       "count": _count(rule.get("count", 1), where + ".count")})
    deploy = []
    for i, rule in enumerate(_typed(config.get("deploy") or [], list, "deploy")):
        where = "deploy[%d]" % i
        _keys(rule, ("match", "outcome", "count"), where)
        if rule.get("outcome") not in OUTCOMES[1:] or not isinstance(rule.get("match"), str):
            raise FaultError("%s needs match (a name glob or identifier) and outcome error or stuck" % where)
        deploy.append({"match": rule["match"], "outcome": rule["outcome"],
                       "count": _count(rule.get("count"), where + ".count", allow_none=True)})
    omits = []
    for i, rule in enumerate(_typed(config.get("listing_omits") or [], list, "listing_omits")):
        where = "listing_omits[%d]" % i
        _keys(rule, ("match", "field"), where)
        if not isinstance(rule.get("match"), str) or not isinstance(rule.get("field"), str) or not rule["field"]:
            raise FaultError("%s needs match (a name glob or identifier) and field (a key of the object)" % where)
        omits.append({"match": rule["match"], "field": rule["field"]})
    retry_after = config.get("retry_after")
    seed = config.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise FaultError("seed must be an integer, got %r" % seed)
    return {"latency": latency, "errors": errors,
            "retry_after": None if retry_after is None else _number(retry_after, "retry_after"),
            "script": script, "tag_conflicts": _count(config.get("tag_conflicts") or 0, "tag_conflicts"),
            "deploy": deploy, "listing_omits": omits, "seed": seed}


def path_matches(pattern, path):
    """A glob (``/api/LBaaS/v1/*``) when the pattern has one of ``*?[``, else a substring."""
    if any(c in pattern for c in "*?["):
        return fnmatch.fnmatchcase(path, pattern)
    return pattern in path


class Faults:
    def __init__(self, config=None):
        self.lock = threading.Lock()
        self.set(config or {})

    def set(self, config):
        normalised = normalise(config)
        with self.lock:
            self.config = normalised
            self.random = random.Random(normalised["seed"])

    def view(self):
        with self.lock:
            return dict(self.config)

    def latency(self, method):
        value = self.config["latency"]
        if isinstance(value, dict):
            return float(value.get(method, value.get("*", 0)))
        return float(value)

    def _scripted(self, key, method, path):
        """The first matching script rule of this kind (status or commit_then) with count left, used up."""
        for rule in self.config["script"]:
            if key in rule and rule["count"] > 0 and rule["method"] in ("*", method) and path_matches(rule["path"], path):
                rule["count"] -= 1
                return rule[key]
        return None

    def committed(self, method, path):
        """For a request that succeeded (its change is committed): a status to answer instead of the
        success ("drop" for no answer), or None."""
        with self.lock:
            return self._scripted("commit_then", method, path)

    def injected(self, method, path):
        """A status to answer instead of handling the request ("drop" for no answer), or None."""
        with self.lock:
            status = self._scripted("status", method, path)
            if status is not None:
                return status
            errors = self.config["errors"]
            rates = errors.get(method, errors.get("*", {}))   # a method's own entry replaces "*"
            for status, probability in sorted(rates.items()):
                if self.random.random() < probability:
                    return DROP if status == DROP else int(status)
        return None

    def retry_after(self):
        return self.config["retry_after"]

    def tag_conflict(self):
        """True while injected tag-write conflicts (409) are left."""
        with self.lock:
            if self.config["tag_conflicts"] > 0:
                self.config["tag_conflicts"] -= 1
                return True
        return False

    def deploy_outcome(self, ident, name):
        """'ok', 'error' or 'stuck' for a deployment starting now; uses up one of a rule's count."""
        with self.lock:
            for rule in self.config["deploy"]:
                if rule["match"] != ident and not fnmatch.fnmatchcase(name or "", rule["match"]):
                    continue
                if rule["count"] is None:
                    return rule["outcome"]
                if rule["count"] > 0:
                    rule["count"] -= 1
                    return rule["outcome"]
        return "ok"

    def listing_omits(self, ident, name):
        """The fields a full listing leaves out of the entry of the object ``ident`` called ``name``."""
        with self.lock:
            return [rule["field"] for rule in self.config["listing_omits"]
                    if rule["match"] == ident or fnmatch.fnmatchcase(name or "", rule["match"])]

    def choice(self, population, count):
        """``count`` random items (the same generator, so ``seed`` also fixes IP reservations)."""
        with self.lock:
            return self.random.sample(population, count)

    def randrange(self, size):
        with self.lock:
            return self.random.randrange(size)
