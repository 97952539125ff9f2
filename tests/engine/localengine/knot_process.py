"""One knotd (Knot DNS, Debian's package) for the local Engine's --dns mode: its configuration, the zone
files, start, reload, stop. Everything lives in the work dir, so it runs as the current user (root in
CI, anyone else on a laptop) without /var/lib/knot or /run/knot, and listens on one loopback address only.

Work dir layout: ``knot.conf`` (server, one zone entry per zone), ``zones/<zone>.zone``, ``db/`` (knot's
timer/journal databases), ``knot.sock`` (control socket for knotc), ``knot.log`` (knotd's stderr).
"""
import ctypes
import os
import re
import signal
import subprocess
import time

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
PR_SET_PDEATHSIG = 1


class KnotError(Exception):
    pass


def _die_with_parent():
    """In the child before exec: knotd gets SIGTERM when the local Engine dies, even by SIGKILL, so no
    knotd outlives it holding the loopback port."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


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


class KnotProcess:
    def __init__(self, knotd, knotc, work_dir, host, port):
        self.knotd, self.knotc = knotd, knotc
        self.dir = os.path.abspath(work_dir)
        self.host, self.port = host, port
        self.conf = os.path.join(self.dir, "knot.conf")
        self.sock = os.path.join(self.dir, "knot.sock")
        self.zones_dir = os.path.join(self.dir, "zones")
        self.log_path = os.path.join(self.dir, "knot.log")
        self.zones = ()   # the zone names knot.conf lists
        self.proc = None
        self.reloads = 0

    def start(self, timeout=10.0):
        for binary in (self.knotd, self.knotc):
            if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
                raise KnotError("--knot-bin: %s is not an executable; install knot (scripts/apt-deps.sh knot)" % binary)
        for sub in ("zones", "db"):
            os.makedirs(os.path.join(self.dir, sub), exist_ok=True)
        for name in os.listdir(self.zones_dir):   # a reused work dir: start empty, the Engine writes again
            os.remove(os.path.join(self.zones_dir, name))
        self.write_conf(())
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen([self.knotd, "-c", self.conf], stdin=subprocess.DEVNULL, stdout=log,
                                         stderr=subprocess.STDOUT, preexec_fn=_die_with_parent)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise KnotError("knotd exited with %s: %s" % (self.proc.returncode, self.log_tail()))
            if self.control("status")[0]:
                return self
            time.sleep(0.05)
        self.stop()
        raise KnotError("knotd did not start within %gs: %s" % (timeout, self.log_tail()))

    def stop(self, timeout=5.0):
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout)

    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def log_tail(self, size=2000):
        try:
            with open(self.log_path, "rb") as handle:
                handle.seek(0, os.SEEK_END)
                handle.seek(max(0, handle.tell() - size))
                return handle.read().decode("utf-8", "replace").strip()
        except OSError:
            return ""

    def write_conf(self, zones):
        text = CONFIG.format(dir=self.dir, host=self.host, port=self.port)
        if zones:
            text += "zone:\n" + "".join("  - domain: %s\n" % name for name in sorted(zones))
        with open(self.conf + ".tmp", "w") as handle:
            handle.write(text)
        os.replace(self.conf + ".tmp", self.conf)
        self.zones = tuple(sorted(zones))

    def write_zone(self, name, text):
        path = os.path.join(self.zones_dir, name + ".zone")
        with open(path + ".tmp", "w") as handle:
            handle.write(text)
        os.replace(path + ".tmp", path)

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
