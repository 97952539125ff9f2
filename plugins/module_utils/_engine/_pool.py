# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""One bounded thread pool shared by every ``map`` of a client, at any nesting depth.

A map inside a mapped function (an observation reading the load balancers, each reading its
listings, each reading details) runs concurrently too, without more threads and without deadlock:

* the pool has ``workers`` threads; the caller of a map is one more (the module's main thread, or a
  pool thread running an outer item), so at most ``workers + 1`` items run at once;
* a caller never only waits: it runs the items of its own map that no pool thread has taken yet
  (in input order), and waits only for items another thread is already running;
* an item runs in one thread from start to end, and what it waits for is its own nested map, which
  is started inside it: the waits form a tree whose leaves run, so every wait ends (no deadlock).

Pool threads take the newest item first (deepest nesting first), so an outer item that waits for
its nested items gets them done before the pool turns to other outer items; callers take their own
items from the front, so the two rarely meet.

``start`` hands items to the pool and returns at once (reads whose answer is needed later: the service's
lookups of the tag entities it deletes at its end, its IPAM prefix listing); ``Started.results`` then works
as the end of a ``map``: the caller runs what no pool thread has taken yet and waits for the rest. A started
item waits for nothing but its own nested maps, so waiting for it cannot deadlock either.
"""

import collections
import threading

PENDING, RUNNING, DONE = 0, 1, 2


class _Batch:
    """The items of one ``map`` call."""

    def __init__(self):
        self.failed = False


class _Task:
    __slots__ = ("fn", "item", "batch", "state", "result", "error", "done")

    def __init__(self, fn, item, batch):
        self.fn = fn
        self.item = item
        self.batch = batch
        self.state = PENDING
        self.result = None
        self.error = None
        self.done = threading.Event()


class SharedPool:
    def __init__(self, workers, name="anxcloud-engine"):
        self.workers = max(0, int(workers))
        self.name = name
        self._cond = threading.Condition()
        self._claim = threading.Lock()
        self._queue = collections.deque()
        self._threads = []
        self._closed = False

    # ---- items ---------------------------------------------------------------------------------
    def _take(self, task, cancel=False):
        """Claims a pending item for running (or cancelling); False if another thread has it."""
        with self._claim:
            if task.state != PENDING:
                return False
            task.state = DONE if cancel else RUNNING
        if cancel:
            task.done.set()
        return True

    def _run(self, task):
        if task.batch.failed:
            self._take(task, cancel=True)
            return
        if not self._take(task):
            return
        try:
            task.result = task.fn(task.item)
        except BaseException as exc:   # handed to the caller of map, which raises it
            task.error = exc
            task.batch.failed = True
        finally:
            task.state = DONE
            task.done.set()

    # ---- threads -------------------------------------------------------------------------------
    def _submit(self, tasks):
        with self._cond:
            self._queue.extend(tasks)
            while len(self._threads) < self.workers and len(self._threads) < len(self._queue) + 1:
                thread = threading.Thread(target=self._work, name="%s-%d" % (self.name, len(self._threads)))
                thread.daemon = True   # a module exits without joining them
                self._threads.append(thread)
                thread.start()
            self._cond.notify(len(tasks))

    def _work(self):
        while True:
            with self._cond:
                while not self._queue and not self._closed:
                    self._cond.wait()
                if self._closed:
                    return
                task = self._queue.pop()   # newest first: nested items before other outer ones
            self._run(task)

    def close(self):
        with self._cond:
            self._closed = True
            for task in self._queue:
                self._take(task, cancel=True)
            self._queue.clear()
            self._cond.notify_all()

    # ---- map -----------------------------------------------------------------------------------
    def map(self, fn, items):
        """``[fn(item) for item in items]``, results in input order. The first exception (in input
        order) is raised once the items already running have ended; items not started are dropped."""
        items = list(items)
        if len(items) <= 1 or self.workers == 0 or self._closed:
            return [fn(item) for item in items]
        batch = _Batch()
        tasks = [_Task(fn, item, batch) for item in items]
        self._submit(tasks[1:])   # the caller starts on the first one at once
        return self._collect(tasks)

    def start(self, fn, items):
        """Queues ``fn(item)`` for each of ``items`` on the pool's threads and returns at once (``Started``).
        Without pool threads (a bound of 1, or closed) nothing runs before ``Started.results``."""
        batch = _Batch()
        tasks = [_Task(fn, item, batch) for item in items]
        if self.workers and not self._closed:
            self._submit(tasks)
        return Started(self, tasks)

    def _collect(self, tasks):
        """Runs the ``tasks`` no thread has taken (in order), waits for the others; their results in order,
        or the first exception once the running ones have ended (those not started are dropped)."""
        batch = tasks[0].batch if tasks else None
        for task in tasks:
            if batch.failed:
                break
            self._run(task)
        if batch is not None and batch.failed:
            for task in tasks:
                self._take(task, cancel=True)
        for task in tasks:
            task.done.wait()
        for task in tasks:
            if task.error is not None:
                raise task.error
        return [task.result for task in tasks]


class Started:
    """Items handed to the pool by ``SharedPool.start``."""

    def __init__(self, pool, tasks):
        self._pool = pool
        self._tasks = tasks

    def results(self):
        """What ``map`` would have returned for the items: the caller runs those no pool thread has taken
        yet and waits for the others. It may be asked again (by any thread): the same answer."""
        return self._pool._collect(self._tasks)
