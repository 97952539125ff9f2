"""One HAProxy in master-worker mode for the local Engine's --haproxy mode: start, validate a file
(``haproxy -c``), seamless reload (SIGUSR2: the master starts a new worker with the listening sockets
passed on, old workers finish their established connections), stats, stop.

Work dir layout: ``haproxy.cfg`` (global and defaults), ``lbs/<lb id>.cfg`` (one per load balancer,
the master loads the directory), ``check/`` (files being validated), ``master.sock`` (master CLI),
``stats.sock`` (worker CLI, ``show stat``), ``haproxy.log`` (the master's output, read back for the
alerts of a failed reload).
"""
import csv
import io
import os
import re
import signal
import socket
import subprocess
import time

from .child_process import ChildProcess, write_atomically

GLOBAL = """# global settings of the local Engine's HAProxy (tests/engine/localengine/haproxy_process.py)
global
    maxconn 512
    nbthread 1
    stats socket {dir}/stats.sock mode 600 level admin expose-fd listeners
    hard-stop-after 30s

defaults
    mode tcp
    timeout connect 2s
    timeout client 30s
    timeout server 30s
    timeout check 1s
    default-server inter 300ms fall 2 rise 2
"""
PROC_MASTER = re.compile(r"^\d+\s+master\s+(\d+)\s+\[failed:\s*(\d+)\]", re.M)


class HAProxyError(Exception):
    pass


def unix_command(path, command, timeout=3.0):
    """Sends one CLI command to an HAProxy UNIX socket; its whole answer."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(path)
        sock.sendall(command.encode() + b"\n")
        sock.shutdown(socket.SHUT_WR)
        chunks = []
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return b"".join(chunks).decode("utf-8", "replace")
            chunks.append(chunk)
    finally:
        sock.close()


def alerts(text):
    return [line.strip() for line in text.splitlines() if "[ALERT]" in line]


class HAProxyProcess(ChildProcess):
    label = "HAProxy"
    error = HAProxyError

    def __init__(self, binary, work_dir):
        super().__init__(work_dir, "haproxy.log")
        self.binary = binary
        self.global_cfg = os.path.join(self.dir, "haproxy.cfg")
        self.lbs = os.path.join(self.dir, "lbs")
        self.master_sock = os.path.join(self.dir, "master.sock")
        self.stats_sock = os.path.join(self.dir, "stats.sock")

    # ---- life cycle ----------------------------------------------------------------------------
    def start(self, timeout=10.0):
        for sub in ("lbs", "check"):
            os.makedirs(os.path.join(self.dir, sub), exist_ok=True)
        for name in os.listdir(self.lbs):   # a reused work dir: start empty, the Engine renders again
            os.remove(os.path.join(self.lbs, name))
        with open(self.global_cfg, "w") as handle:
            handle.write(GLOBAL.format(dir=self.dir))
        self.require_executable("--haproxy-bin", self.binary, "HAProxy", "haproxy")
        ok, problems = self.check(self.global_cfg)
        if not ok:
            raise HAProxyError("%s refuses the base configuration: %s" % (self.binary, "; ".join(problems)))
        return self.launch([self.binary, "-W", "-f", self.global_cfg, "-f", self.lbs,
                            "-p", os.path.join(self.dir, "haproxy.pid"), "-S", self.master_sock], timeout)

    def ready(self):
        """The master answers and has started a worker."""
        return self._proc_counts() is not None and "worker" in self._master("show proc")

    # ---- configuration -------------------------------------------------------------------------
    def check(self, *files):
        """``haproxy -c`` on the global file plus ``files``: (valid, alert lines)."""
        args = [self.binary, "-c", "-f", self.global_cfg]
        for path in files:
            if path != self.global_cfg:
                args += ["-f", path]
        try:
            done = subprocess.run(args, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=15,
                                  check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return False, ["haproxy -c: %s" % exc]
        output = done.stdout + done.stderr
        problems = alerts(output) or ([output.strip().splitlines()[-1] if output.strip() else "exit status %d"
                                       % done.returncode] if done.returncode else [])
        return done.returncode == 0, problems

    def check_text(self, name, text):
        path = os.path.join(self.dir, "check", name + ".cfg")
        with open(path, "w") as handle:
            handle.write(text)
        return self.check(path)

    def lb_path(self, name):
        return os.path.join(self.lbs, name + ".cfg")

    def write(self, name, text):
        """Writes (text) or removes (None) one load balancer's file; the next reload applies it."""
        path = self.lb_path(name)
        if text is None:
            if os.path.exists(path):
                os.remove(path)
            return
        write_atomically(path, text)

    def reload(self, timeout=10.0):
        """Seamless reload; (loaded, alert lines from the master's output)."""
        before = self._wait_counts(timeout)
        if before is None:
            return False, ["the HAProxy master does not answer: %s" % self.log_tail(500)]
        offset = os.path.getsize(self.log_path)
        self.proc.send_signal(signal.SIGUSR2)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            time.sleep(0.05)
            counts = self._proc_counts()
            if counts is not None and counts[0] > before[0]:
                self.reloads += 1
                with open(self.log_path, "rb") as handle:
                    handle.seek(offset)
                    problems = alerts(handle.read().decode("utf-8", "replace"))
                return counts[1] == 0, problems
        return False, ["HAProxy did not finish reloading within %gs" % timeout]

    # ---- CLI -------------------------------------------------------------------------------------
    def _master(self, command):
        try:
            return unix_command(self.master_sock, command)
        except OSError:
            return ""   # refused or reset while the master re-executes itself

    def _proc_counts(self):
        """(reloads, failed reloads) from the master's ``show proc``, None while it is unreachable."""
        match = PROC_MASTER.search(self._master("show proc"))
        return (int(match.group(1)), int(match.group(2))) if match else None

    def _wait_counts(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            counts = self._proc_counts()
            if counts is not None:
                return counts
            time.sleep(0.05)
        return None

    def stats(self):
        """Rows of ``show stat`` as dicts (pxname, svname, status, check_status, addr, ...)."""
        text = unix_command(self.stats_sock, "show stat")
        return list(csv.DictReader(io.StringIO(text.lstrip("# "))))
