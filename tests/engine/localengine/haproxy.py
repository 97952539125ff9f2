"""--haproxy: the local Engine's load balancers carry real traffic through HAProxy.

Deployment states are computed lazily from timestamps (states.py), so a background thread looks
every ``interval`` seconds at what each load balancer has deployed and, when that changed, renders
it (haproxy_config.py), validates it with ``haproxy -c`` and reloads HAProxy seamlessly
(haproxy_process.py). What is rendered is the deployed view: an object whose deployment finished
(Deployed/Updated) in its current version; an object still pending, failed or changed without a
redeploy (``_undeployed``) in the last version HAProxy accepted, if any; nothing being deleted.

The Engine's answers follow the real outcome:
- an object whose deployment finished by the clock shows NewlyCreated/Updating until HAProxy runs it
  (``shown_state``, the hook in lbaas.render), so a client that waited for Deployed finds it serving;
- a version HAProxy rejects (``haproxy -c`` alert, failed reload) or the renderer refuses is put
  into DeploymentError (the ``_forced`` state of states.py; a redeploy ends it), the alert naming
  ``file:line`` or an identifier picks the objects; HAProxy keeps their last accepted version.
Binds on addresses that are not loopback (and empty addresses, "all interfaces") are data only: they
deploy without being rendered, since the emulator must not listen beyond loopback.
"""
import ipaddress
import os
import re
import sys
import tempfile
import threading
import time

from .follower import Follower
from . import states
from .haproxy_config import render
from .haproxy_process import HAProxyError, HAProxyProcess

RENDERED = ("backend", "frontend", "bind", "server", "acl", "rule")
FINISHED = ("Deployed", "Updated")
FILE_LINE = re.compile(r"([^\s\[\]()'\"]+)\.cfg:(\d+)")
IDENT = re.compile(r"(?:fe|be|srv|acl)_([0-9a-f]{32})")
ALERT_PREFIX = re.compile(r"^\[ALERT\]\s*\(\d+\)\s*:\s*(?:config\s*:\s*)?")
DIRS = re.compile(r"[^\s\[\]()'\"]*/(?=[^/\s]+\.cfg)")
MAX_ERRORS = 50

__all__ = ["HAProxyMode", "HAProxyError"]


def version(doc):
    """Which deployment of an object this is (a redeploy of the same content is a new one)."""
    phase = doc.get("_phase") or {}
    return "%s@%r" % (phase.get("phase"), phase.get("since"))


def clean(alert):
    """An alert line without its prefix and directories: 'parsing [<lb id>.cfg:14] : ...'."""
    return DIRS.sub("", ALERT_PREFIX.sub("", alert))


def on_loopback(address):
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


class HAProxyMode(Follower):
    label = "haproxy"

    def __init__(self, engine, binary="haproxy", work_dir=None, interval=0.15):
        self.engine = engine
        self.own_dir = work_dir is None
        self.process = HAProxyProcess(binary, work_dir or tempfile.mkdtemp(prefix="localengine-haproxy-"))
        self.interval = interval
        self.lock = threading.Lock()   # guards applied, names, errors
        self.applied = {}     # identifier -> version HAProxy runs (or, for data-only binds, took note of)
        self.accepted = {}    # identifier -> (kind, doc) last version HAProxy accepted
        self.texts = {}       # load balancer identifier -> configuration text HAProxy runs
        self.names = {}       # identifier -> (kind, name, load balancer name), for the stats view
        self.errors = []      # recent rejections, newest last
        self.stopping = threading.Event()
        self.thread = None

    # ---- the hook in lbaas.render ------------------------------------------------------------------
    def shown_state(self, kind, doc, title):
        """A finished deployment HAProxy does not run yet still shows as pending."""
        if kind not in RENDERED or title not in FINISHED or doc.get("_forced") or self.engine.deleting(doc):
            return title
        with self.lock:
            if self.applied.get(doc["identifier"]) == version(doc):
                return title
        return "NewlyCreated" if (doc.get("_phase") or {}).get("phase") == "create" else "Updating"

    # ---- one round ------------------------------------------------------------------------------
    def tick(self):
        if self.stopping.is_set() or not self.process.running():
            return
        now = time.time()
        with self.engine.store.transaction():
            lbs = [lb for lb in self.engine.store.all("loadbalancer") if not self.engine.deleting(lb)]
            docs = dict((kind, self.engine.store.all(kind)) for kind in RENDERED)
        chosen, fresh = self._deployed_view(docs, now)
        refused = self._duplicate_binds(chosen, fresh)
        plans = {}
        for lb in lbs:
            plan = self._plan(lb, chosen, fresh, refused)
            if plan is not None:
                plans[lb["identifier"]] = plan
        rejected = dict((i, reason) for i, reason in refused.items() if i in fresh)
        changed = {}
        for ident, (rendered, members) in plans.items():
            if rendered.text == self.texts.get(ident):
                continue
            valid, problems = self.process.check_text(ident, rendered.text)
            if valid:
                changed[ident] = (rendered, members)
            else:
                rejected.update(self._blame(ident, problems, rendered, members, fresh))
        gone = [ident for ident in self.texts if ident not in plans]
        if changed or gone:
            for ident, plan in changed.items():
                self.process.write(ident, plan[0].text)
            for ident in gone:
                self.process.write(ident, None)
            loaded, problems = self.process.reload()
            if not loaded:   # the old worker still serves; the next round renders without the blamed
                blamed = {}
                for fallback in (False, True):
                    for ident, (rendered, members) in changed.items():
                        blamed.update(self._blame(ident, problems, rendered, members, fresh, fallback))
                    if blamed:
                        break
                rejected.update(blamed)
                for ident in changed:
                    self.process.write(ident, self.texts.get(ident))
                for ident in gone:
                    self.process.write(ident, self.texts[ident])
                changed, gone = {}, []
        unchanged = dict((i, p) for i, p in plans.items() if p[0].text == self.texts.get(i))
        with self.lock:
            for ident in gone:
                del self.texts[ident]
            for ident, plan in changed.items():
                self.texts[ident] = plan[0].text
        self._note_applied(list(changed.values()) + list(unchanged.values()), chosen)
        self._reject(rejected, docs)

    def _deployed_view(self, docs, now):
        """identifier -> (kind, doc version to run); and which of them are versions HAProxy has not run yet."""
        chosen, fresh = {}, set()
        for kind in RENDERED:
            for doc in docs[kind]:
                ident = doc["identifier"]
                if self.engine.deleting(doc):
                    continue
                title = states.current(doc, self.engine.delays, now)
                if title in FINISHED and not doc.get("_undeployed"):
                    chosen[ident] = (kind, doc)
                    with self.lock:
                        if self.applied.get(ident) != version(doc):
                            fresh.add(ident)
                elif ident in self.accepted:
                    chosen[ident] = self.accepted[ident]
        return chosen, fresh

    def _duplicate_binds(self, chosen, fresh):
        """A new bind on an address:port another bind already listens on is refused (one VIP, one listener)."""
        refused, holders = {}, {}
        binds = [(ident, doc) for ident, (kind, doc) in chosen.items() if kind == "bind" and on_loopback(doc["address"])]
        for ident, doc in sorted(binds, key=lambda item: item[0] in fresh):   # running ones first
            key = (ipaddress.ip_address(doc["address"]), doc["port"])
            if key in holders and ident in fresh:
                refused[ident] = "%s:%s is already bound by bind %s" % (doc["address"], doc["port"], holders[key])
            else:
                holders.setdefault(key, ident)
        return refused

    def _plan(self, lb, chosen, fresh, refused):
        """(Rendered, {identifier: (kind, doc)} of the objects it covers) for one load balancer."""
        def pick(kind, link, parents):
            return [doc for ident, (k, doc) in sorted(chosen.items(), key=lambda item: item[1][1].get("_created", 0))
                    if k == kind and doc.get(link) in parents and ident not in refused]
        lb_id = lb["identifier"]
        with self.lock:
            self.names[lb_id] = ("loadbalancer", lb.get("name"), lb.get("name"))
        backends = pick("backend", "load_balancer", {lb_id})
        frontends = pick("frontend", "load_balancer", {lb_id})
        binds = pick("bind", "frontend", set(d["identifier"] for d in frontends))
        servers = pick("server", "backend", set(d["identifier"] for d in backends))
        fe_ids, be_ids = set(d["identifier"] for d in frontends), set(d["identifier"] for d in backends)
        acls = pick("acl", "frontend", fe_ids) + pick("acl", "backend", be_ids)
        rules = pick("rule", "frontend", fe_ids)   # connection rules belong to frontends (lbaas_types)
        served = [b for b in binds if on_loopback(b["address"])]
        rendered = render(lb, backends, frontends, served, servers, acls, rules)
        included = rendered.included
        included |= set(b["identifier"] for b in binds if not on_loopback(b["address"]) and b["frontend"] in included)
        members = dict((ident, chosen[ident]) for ident in included)
        with self.lock:
            for kind, docs in (("backend", backends), ("frontend", frontends), ("bind", binds), ("server", servers),
                               ("acl", acls), ("rule", rules)):
                for doc in docs:
                    self.names[doc["identifier"]] = (kind, doc.get("name"), lb.get("name"))
        for ident, reason in rendered.refused.items():
            refused[ident] = reason
        return rendered, members

    def _blame(self, lb_id, problems, rendered, members, fresh, fallback=True):
        """{identifier: reason} for the new versions an alert points at (by file:line of this load
        balancer's file, or by proxy/server name); every new version of it if they name none."""
        pointed = {}
        for line in problems:
            found = set(rendered.owner.get(int(n)) for path, n in FILE_LINE.findall(line)
                        if os.path.basename(path) == lb_id) | set(IDENT.findall(line))
            for ident in found:
                if ident in members:
                    pointed.setdefault(ident, "HAProxy: " + clean(line))
        reason = "HAProxy: " + ("; ".join(clean(line) for line in problems) or "refused the configuration")
        blamed = dict((i, r) for i, r in pointed.items() if i in fresh)
        if blamed or not fallback:
            return blamed
        return dict((i, reason) for i in members if i in fresh)

    def _note_applied(self, plans, chosen):
        with self.lock:
            for members in (plan[1] for plan in plans):
                for ident, (kind, doc) in members.items():
                    self.applied[ident] = version(doc)
                    self.accepted[ident] = (kind, doc)
            for ident in [i for i in self.accepted if i not in chosen]:
                del self.accepted[ident]   # deleted, or failed with no version to fall back on
                self.applied.pop(ident, None)

    def _reject(self, rejected, docs):
        """DeploymentError for the versions HAProxy (or the renderer) refused, unless a new deployment began."""
        if not rejected:
            return
        seen = dict((doc["identifier"], (kind, version(doc))) for kind in RENDERED for doc in docs[kind])
        with self.engine.store.transaction():
            for ident, reason in rejected.items():
                doc = self.engine.store.get(ident)
                if doc is None or ident not in seen or version(doc) != seen[ident][1] or doc.get("_forced"):
                    continue
                doc["_forced"] = "DeploymentError"
                self.engine.store.put(seen[ident][0], doc)
                with self.lock:
                    self.errors.append({"identifier": ident, "kind": seen[ident][0], "name": doc.get("name"),
                                        "reason": reason, "at": time.time()})
                    del self.errors[:-MAX_ERRORS]
                print("local engine: haproxy: %s %s (%s) -> DeploymentError: %s"
                      % (seen[ident][0], ident, doc.get("name"), reason), file=sys.stderr, flush=True)

    # ---- the admin view (GET /_local/haproxy) -------------------------------------------------------
    def status(self):
        servers, problem = [], None
        try:
            rows = self.process.stats()
        except OSError as exc:
            rows, problem = [], "stats socket: %s" % exc
        with self.lock:
            for row in rows:
                if not (row.get("pxname", "").startswith("be_") and row.get("svname", "").startswith("srv_")):
                    continue
                backend, server = row["pxname"][3:], row["svname"][4:]
                name, lb_name = self.names.get(server, (None, None, None))[1:]
                servers.append({"identifier": server, "name": name, "backend": backend,
                                "backend_name": self.names.get(backend, (None, None, None))[1],
                                "load_balancer": lb_name, "address": row.get("addr"), "status": row.get("status"),
                                "check": row.get("check_status") or None})
            config = dict((self.names.get(i, (None, i, None))[1], text) for i, text in self.texts.items())
            view = {"work_dir": self.process.dir, "stats_socket": self.process.stats_sock,
                    "master_socket": self.process.master_sock, "reloads": self.process.reloads,
                    "running": self.process.running(), "config": config, "servers": servers,
                    "errors": list(self.errors)}
        if problem:
            view["stats_error"] = problem
        return view
