"""One knotd (Knot DNS, Debian's package) for the local Engine's --dns mode: its configuration, the zone
files, start, reload, stop. Everything lives in the work dir, so it runs as the current user (root in
CI, anyone else on a laptop) without /var/lib/knot or /run/knot, and listens on one loopback address only.

Work dir layout: ``knot.conf`` (server, one zone entry per zone), ``zones/<zone>.zone``, ``db/`` (knot's
timer/journal databases), ``knot.sock`` (control socket for knotc), ``knot.log`` (knotd's stderr).
"""
import os
import re
import subprocess

from .child_process import ChildProcess, write_atomically

CONFIG = """# the local Engine's knotd (tests/engine/localengine/knot_process.py)
server:
    rundir: "{dir}"
    pidfile: "{dir}/knot.pid"
    listen: {host}@{port}
    udp-workers: 1
    tcp-workers: 1
    background-workers: 1
database:
    storage: "{dir}/db"
    journal-db-max-size: 64M
    kasp-db-max-size: 16M
    timer-db-max-size: 16M
    catalog-db-max-size: 16M
control:
    listen: "{dir}/knot.sock"
log:
  - target: stderr
    any: notice
template:
  - id: default
    storage: "{dir}/zones"
    file: "%s.zone"
    zonefile-sync: -1
    zonefile-load: whole
    journal-content: none
    semantic-checks: on
"""
SERIAL = re.compile(r"^\[([^\]]+)\.\]\s.*\bserial:\s*(\d+)", re.M)


class KnotError(Exception):
    pass


def zone_file(name, records):
    """A zone file of ``records`` (stored forms, clouddns_rdata.py; only region ``default``: GeoDNS is not
    emulated). A record's ttl null is the zone's default ($TTL, the SOA's last value); the records of one
    name and type are one RRset in DNS, served with the smallest ttl among them."""
    soa = [r for r in records if r["type"] == "SOA"][0]
    default_ttl = int(soa["rdata"].split()[-1])
    rrset_ttl = {}
    for r in records:
        key = (r["name"], r["type"])
        ttl = r["ttl"] if r["ttl"] is not None else default_ttl
        rrset_ttl[key] = min(ttl, rrset_ttl.get(key, ttl))
    lines = ["$ORIGIN %s." % name, "$TTL %d" % default_ttl]
    for r in sorted(records, key=lambda r: r["type"] != "SOA"):
        if r["region"] != "default":
            continue
        lines.append("%s %d IN %s %s" % (r["name"], rrset_ttl[(r["name"], r["type"])], r["type"], presented(r)))
    return "\n".join(lines) + "\n"


def presented(record):
    """Zone-file text of the rdata: bytes beyond ASCII in TXT strings as \\DDD (the stored form keeps UTF-8)."""
    if record["type"] != "TXT":
        return record["rdata"]
    return "".join(c if ord(c) < 127 else "".join("\\%03d" % b for b in c.encode("utf-8")) for c in record["rdata"])


class KnotProcess(ChildProcess):
    label = "knotd"
    error = KnotError

    def __init__(self, knotd, knotc, work_dir, host, port):
        super().__init__(work_dir, "knot.log")
        self.knotd, self.knotc = knotd, knotc
        self.host, self.port = host, port
        self.conf = os.path.join(self.dir, "knot.conf")
        self.sock = os.path.join(self.dir, "knot.sock")
        self.zones_dir = os.path.join(self.dir, "zones")
        self.zones = ()   # the zone names knot.conf lists

    def start(self, timeout=10.0):
        for binary in (self.knotd, self.knotc):
            self.require_executable("--knot-bin", binary, "knot", "knot")
        for sub in ("zones", "db"):
            os.makedirs(os.path.join(self.dir, sub), exist_ok=True)
        for name in os.listdir(self.zones_dir):   # a reused work dir: start empty, the Engine writes again
            os.remove(os.path.join(self.zones_dir, name))
        self.write_conf(())
        return self.launch([self.knotd, "-c", self.conf], timeout)

    def ready(self):
        return self.control("status")[0]

    def write_conf(self, zones):
        text = CONFIG.format(dir=self.dir, host=self.host, port=self.port)
        if zones:
            text += "zone:\n" + "".join("  - domain: %s\n" % name for name in sorted(zones))
        write_atomically(self.conf, text)
        self.zones = tuple(sorted(zones))

    def write_zone(self, name, text):
        write_atomically(os.path.join(self.zones_dir, name + ".zone"), text)

    def remove_zone(self, name):
        path = os.path.join(self.zones_dir, name + ".zone")
        if os.path.exists(path):
            os.remove(path)

    def control(self, *args, timeout=15):
        """(ok, output) of one knotc command on the control socket."""
        try:
            done = subprocess.run([self.knotc, "-c", self.conf, "-s", self.sock, "-t", "10"] + list(args),
                                  stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return False, str(exc)
        return done.returncode == 0, (done.stdout + done.stderr).strip()

    def apply(self, zones, changed):
        """Makes knot serve exactly ``zones`` (names), reloading the ``changed`` ones from their files.
        (ok, problem text)."""
        if tuple(sorted(zones)) != self.zones:
            self.write_conf(zones)
            ok, out = self.control("reload")   # configuration and modified zone files
        elif changed:
            ok, out = self.control("-b", "zone-reload", *sorted(changed))
        else:
            return True, ""
        self.reloads += 1
        return ok, out

    def serials(self):
        """{zone name: serial knot serves} (zones not loaded are missing)."""
        ok, out = self.control("zone-status")
        return dict((name, int(serial)) for name, serial in SERIAL.findall(out)) if ok else {}
