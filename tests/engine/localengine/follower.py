"""A daemon that follows what the Engine has deployed (HAProxy for load balancers, knot for zones): started
with the Engine, brought up to date once, then ticked from a background thread until the Engine stops."""

import shutil
import sys
import threading


class Follower:
    """The life cycle both modes share. A subclass sets ``label``, ``process`` (``start()``, ``stop()``, ``dir``),
    ``interval`` (seconds between ticks), ``own_dir`` (the work dir is ours to remove) and ``stopping`` (an Event),
    ``thread`` (None), ``lock`` and ``errors`` (the recent rejections its admin view shows, guarded by ``lock``), and
    defines ``tick()``: one pass of bringing the daemon up to date."""

    label = "follower"

    def start(self):
        """Starts the daemon, brings it up to date now, then follows changes in the background."""
        self.process.start()
        self.tick()
        self.thread = threading.Thread(target=self._loop, name=self.label, daemon=True)
        self.thread.start()
        return self

    def stop(self):
        self.stopping.set()
        if self.thread is not None:
            self.thread.join(15)
        self.process.stop()
        if self.own_dir:
            shutil.rmtree(self.process.dir, ignore_errors=True)

    def forget_errors(self):
        """The admin reset: the rejections belong to the objects it wipes (a later test would read them as its own)."""
        with self.lock:
            self.errors = []

    def _loop(self):
        while not self.stopping.wait(self.interval):
            try:
                self.tick()
            except Exception as exc:   # never let the thread die: the next tick tries again
                print("local engine: %s: %s: %s" % (self.label, type(exc).__name__, exc), file=sys.stderr, flush=True)

    def tick(self):
        raise NotImplementedError
