"""--dns: the local Engine's CloudDNS zones are served by a real authoritative DNS server (knot) on loopback.

Revisions move by the clock (clouddns_revisions.py), so a background thread looks every ``interval``
seconds at each zone's newest revision that is deployed by the clock; when knot does not serve that
serial yet, the zone file is written and knot reloads it (knotc over the control socket); a zone
added or deleted rewrites knot.conf and reloads the configuration. The Engine's answers follow what
knot serves: a revision done by the clock reads ``deployment_level`` 99 and ``is_editable`` false until
knot serves its serial (``outcome``, the hook in clouddns.levels), so a client that waited for 100 finds
its records in DNS. A zone file knot refuses (its semantic checks) is logged on stderr and in
``GET /_local/dns`` ``errors``; the revision reads ``failed`` (the zone is editable again) and knot keeps
serving the last revision it accepted.
"""
import socket
import sys
import tempfile
import threading
import time

from .follower import Follower
from . import clouddns_revisions as revisions
from .knot_process import KnotError, KnotProcess, zone_file

MAX_ERRORS = 50

__all__ = ["DnsMode", "KnotError", "free_port"]


def free_port(host):
    """A port free for both UDP and TCP on ``host`` now (knot binds both)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    for _attempt in range(50):
        tcp = socket.socket(family, socket.SOCK_STREAM)
        udp = socket.socket(family, socket.SOCK_DGRAM)
        try:
            tcp.bind((host, 0))
            port = tcp.getsockname()[1]
            udp.bind((host, port))
            return port
        except OSError:
            continue
        finally:
            tcp.close()
            udp.close()
    raise KnotError("no port free for both UDP and TCP on %s" % host)


class DnsMode(Follower):
    label = "knot"

    def __init__(self, engine, host, port, knotd, knotc, work_dir=None, interval=0.1):
        self.engine = engine
        self.own_dir = work_dir is None
        self.port = port or free_port(host)
        self.host = host
        self.process = KnotProcess(knotd, knotc, work_dir or tempfile.mkdtemp(prefix="localengine-knot-"), host,
                                   self.port)
        self.interval = interval
        self.lock = threading.Lock()   # guards served, errors
        self.served = {}      # zone name -> (serial, revision identifier) knot serves
        self.refused = {}     # zone name -> revision identifier knot refused (not tried again)
        self.errors = []
        self.seen_version, self.deploying = None, False   # what wanted() saw last
        self.stopping = threading.Event()
        self.thread = None

    # ---- the hook in clouddns.levels -----------------------------------------------------------------
    def outcome(self, zone, revision):
        """"served" once knot serves this revision (by identifier: a zone deleted and made again may reuse a
        serial), "refused" when knot would not load it, else "pending"."""
        with self.lock:
            if self.served.get(zone, (None, None))[1] == revision:
                return "served"
            return "refused" if self.refused.get(zone) == revision else "pending"

    # ---- one round ----------------------------------------------------------------------------------
    def wanted(self):
        """{zone name: the revision knot should serve}: each zone's newest revision deployed by the clock;
        None when nothing can have changed since the last look (no zone write, no revision deploying):
        zones of a thousand records are not parsed ten times a second for nothing."""
        version = self.engine.clouddns.version
        if version == self.seen_version and not self.deploying:
            return None
        now, delay = time.time(), self.engine.dns_deploy_delay
        with self.engine.store.transaction():
            zones = self.engine.store.all("dnszone")
        self.deploying = any(not revisions.ready(z["_revisions"][-1], delay, now) and
                             z["_revisions"][-1].get("_outcome") == "ok" for z in zones)
        lives = [(zone["name"], revisions.live(zone, delay, now)) for zone in zones]
        return dict((name, live) for name, live in lives if live is not None)

    def tick(self):
        if self.stopping.is_set() or not self.process.running():
            return
        version = self.engine.clouddns.version
        wanted = self.wanted()
        if wanted is None:
            return
        self._apply(wanted)
        self.seen_version = version   # only once applied: a round that failed is tried again

    def _apply(self, wanted):
        with self.lock:
            served, refused = dict(self.served), dict(self.refused)
        changed = [name for name, rev in wanted.items()
                   if served.get(name, (None, None))[1] != rev["identifier"] and refused.get(name) != rev["identifier"]]
        names = [name for name in wanted if name in served or name in changed]
        if set(names) == set(served) and not changed:
            return
        for name in changed:
            self.process.write_zone(name, zone_file(name, wanted[name]["records"]))
        for name in set(served) - set(names):
            self.process.remove_zone(name)
        ok, problem = self.process.apply(names, changed)
        serials = self._await(dict((name, wanted[name]["serial"]) for name in changed))
        with self.lock:
            # a zone knot refused a revision of keeps serving the one before, if any
            self.served = dict((name, served[name]) for name in names if name in served)
            for name in changed:
                self._settle(name, wanted[name], serials, problem if not ok else self.process.log_tail(600))

    def _settle(self, name, revision, serials, problem):
        if serials.get(name) == revision["serial"]:
            self.served[name] = (revision["serial"], revision["identifier"])
        else:
            self._refuse(name, revision, problem)

    def _await(self, serials, timeout=3.0):
        """What knot serves, once it serves ``serials`` ({zone: serial}) or after ``timeout`` seconds (a
        configuration reload loads new zones in the background)."""
        deadline = time.monotonic() + timeout
        while True:
            now_served = self.process.serials()
            if all(now_served.get(n) == s for n, s in serials.items()) or time.monotonic() > deadline:
                return now_served
            time.sleep(0.05)

    def _refuse(self, name, revision, reason):
        """Knot did not take this revision: noted (not tried again), and it keeps the last one it served."""
        self.refused[name] = revision["identifier"]
        self.errors.append({"zone": name, "serial": revision["serial"], "reason": reason, "at": time.time()})
        del self.errors[:-MAX_ERRORS]
        print("local engine: knot refused zone %s serial %d: %s" % (name, revision["serial"], reason),
              file=sys.stderr, flush=True)

    # ---- the admin view (GET /_local/dns) -------------------------------------------------------------
    def status(self):
        with self.lock:
            return {"host": self.host, "port": self.port, "work_dir": self.process.dir,
                    "running": self.process.running(), "reloads": self.process.reloads,
                    "zones": dict((name, serial) for name, (serial, _rev) in self.served.items()), "errors": list(self.errors)}
