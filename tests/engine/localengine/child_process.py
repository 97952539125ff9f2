"""A daemon the local Engine starts and owns (HAProxy, knotd): its life cycle, the same for each.

It runs from a work dir of its own, its output goes to one log file there (read back for the messages of a
failed start or reload), it dies with the local Engine (no orphan holds a loopback port), and it is ready when
the subclass's ``ready()`` says so. ``label`` names it in those messages, ``error`` is the exception raised.
"""
import ctypes
import os
import signal
import subprocess
import time

PR_SET_PDEATHSIG = 1
# loaded here, not in the child: a dlopen between fork and exec can wait forever on a loader lock that another
# thread of the Engine (a Follower) held at the fork, and Popen with it
_LIBC = ctypes.CDLL(None, use_errno=True)


def _die_with_parent():
    """In the child before exec: the daemon gets SIGTERM when the local Engine dies, even by SIGKILL, so none
    outlives it holding loopback ports."""
    _LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def write_atomically(path, text):
    """``text`` into ``path`` through a temporary file, so the daemon never reads half a file."""
    with open(path + ".tmp", "w") as handle:
        handle.write(text)
    os.replace(path + ".tmp", path)


class ChildProcess:
    label = "the process"   # how messages name it
    error = Exception       # what a failed start raises

    def __init__(self, work_dir, log_name):
        self.dir = os.path.abspath(work_dir)
        self.log_path = os.path.join(self.dir, log_name)
        self.proc = None
        self.reloads = 0

    def require_executable(self, option, binary, product, package):
        """Fail naming ``option`` and the Debian package to install when ``binary`` cannot be run."""
        if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
            raise self.error("%s: %s is not an executable; install %s (scripts/apt-deps.sh %s)"
                             % (option, binary, product, package))

    def ready(self):
        """Whether the started daemon answers; polled every 50 ms until the start's deadline."""
        raise NotImplementedError

    def launch(self, cmd, timeout):
        """Starts ``cmd`` with its output in the log, and waits until it is ready; a daemon that exits or is not
        ready within ``timeout`` seconds fails the start with the log's tail (and is stopped)."""
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                         preexec_fn=_die_with_parent)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise self.error("%s exited with %s: %s" % (self.label, self.proc.returncode, self.log_tail()))
            if self.ready():
                return self
            time.sleep(0.05)
        self.stop()
        raise self.error("%s did not start within %gs: %s" % (self.label, timeout, self.log_tail()))

    def stop(self, timeout=5.0):
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()   # HAProxy's master stops its workers
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
