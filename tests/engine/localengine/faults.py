"""Fault injection, set at start (--faults) or at run time (PUT /_local/faults).

{
  "latency": 0.05,                      # seconds added to every Engine request, or {"GET": 0.05, "*": 0.01}
  "errors": {"POST": {"503": 0.2, "drop": 0.1}, "*": {"429": 0.01}},   # probabilities per method
  "retry_after": null,                  # seconds to send as Retry-After on injected 429s (none by default)
  "script": [{"method": "POST", "path": "/api/LBaaS", "status": 503, "count": 2}],
                                        # deterministic: the next matching requests get this status
                                        # ("drop" closes the connection without an answer)
  "tag_conflicts": 2,                   # the next N tag writes answer 409
  "deploy": [{"match": "*.web", "outcome": "error", "count": 1}],
                                        # objects (name glob or identifier) whose next deployments
                                        # fail ("error") or never finish ("stuck"); count null = always
  "seed": 42                            # makes the probabilities reproducible
}
"""
import fnmatch
import random
import threading

KEYS = ("latency", "errors", "retry_after", "script", "tag_conflicts", "deploy", "seed")


class FaultError(ValueError):
    pass


class Faults(object):
    def __init__(self, config=None):
        self.lock = threading.Lock()
        self.set(config or {})

    def set(self, config):
        unknown = sorted(set(config) - set(KEYS))
        if unknown:
            raise FaultError("unknown fault keys: %s (known: %s)" % (", ".join(unknown), ", ".join(KEYS)))
        with self.lock:
            self.config = {
                "latency": config.get("latency") or 0,
                "errors": config.get("errors") or {},
                "retry_after": config.get("retry_after"),
                "script": [dict(s) for s in config.get("script") or []],
                "tag_conflicts": int(config.get("tag_conflicts") or 0),
                "deploy": [dict(d) for d in config.get("deploy") or []],
                "seed": config.get("seed"),
            }
            self.random = random.Random(self.config["seed"])
            for rule in self.config["deploy"]:
                if rule.get("outcome") not in ("error", "stuck"):
                    raise FaultError("deploy outcome must be error or stuck, got %r" % rule.get("outcome"))

    def view(self):
        with self.lock:
            return dict(self.config)

    def latency(self, method):
        value = self.config["latency"]
        if isinstance(value, dict):
            return float(value.get(method, value.get("*", 0)))
        return float(value)

    def injected(self, method, path):
        """A status to answer instead of handling the request ("drop" for no answer), or None."""
        with self.lock:
            for rule in self.config["script"]:
                if rule.get("method", "*") in ("*", method) and rule.get("path", "") in path and rule.get("count", 1) > 0:
                    rule["count"] = rule.get("count", 1) - 1
                    return rule["status"]
            rates = self.config["errors"].get(method) or self.config["errors"].get("*") or {}
            for status, probability in sorted(rates.items()):
                if self.random.random() < float(probability):
                    return status if status == "drop" else int(status)
        return None

    def tag_conflict(self):
        with self.lock:
            if self.config["tag_conflicts"] > 0:
                self.config["tag_conflicts"] -= 1
                return True
        return False

    def deploy_outcome(self, ident, name):
        """'ok', 'error' or 'stuck' for a deployment starting now; consumes a rule's count."""
        with self.lock:
            for rule in self.config["deploy"]:
                match = rule.get("match", "")
                if match == ident or fnmatch.fnmatchcase(name or "", match):
                    count = rule.get("count")
                    if count is None:
                        return rule["outcome"]
                    if count > 0:
                        rule["count"] = count - 1
                        return rule["outcome"]
        return "ok"
