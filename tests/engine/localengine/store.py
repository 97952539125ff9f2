"""Persistence: every object (LBaaS, IPAM, VLAN) and its tags in SQLite, behind one lock.

Objects are JSON documents keyed by identifier, so a restart with the same file keeps everything,
deployment states included (they are computed from stored timestamps, see states.py).
"""
import json
import sqlite3
import threading
import uuid

SCHEMA = """
CREATE TABLE IF NOT EXISTS objects (
    id TEXT PRIMARY KEY, kind TEXT NOT NULL, seq INTEGER NOT NULL, doc TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tags (
    id TEXT NOT NULL, name TEXT NOT NULL, PRIMARY KEY (id, name)
);
CREATE INDEX IF NOT EXISTS objects_kind ON objects (kind, seq);
CREATE INDEX IF NOT EXISTS tags_name ON tags (name);
"""


def new_id():
    return uuid.uuid4().hex


class Store(object):
    def __init__(self, path=None):
        self.lock = threading.RLock()
        self.db = sqlite3.connect(path or ":memory:", check_same_thread=False, isolation_level=None)
        self.db.executescript(SCHEMA)

    def get(self, ident, kind=None):
        with self.lock:
            row = self.db.execute("SELECT kind, doc FROM objects WHERE id = ?", (ident,)).fetchone()
        if row is None or (kind and row[0] != kind):
            return None
        return json.loads(row[1])

    def kind_of(self, ident):
        with self.lock:
            row = self.db.execute("SELECT kind FROM objects WHERE id = ?", (ident,)).fetchone()
        return row[0] if row else None

    def all(self, kind):
        with self.lock:
            rows = self.db.execute("SELECT doc FROM objects WHERE kind = ? ORDER BY seq", (kind,)).fetchall()
        return [json.loads(r[0]) for r in rows]

    def put(self, kind, doc):
        with self.lock:
            row = self.db.execute("SELECT seq FROM objects WHERE id = ?", (doc["identifier"],)).fetchone()
            seq = row[0] if row else (self.db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM objects").fetchone()[0])
            self.db.execute("INSERT OR REPLACE INTO objects (id, kind, seq, doc) VALUES (?, ?, ?, ?)",
                            (doc["identifier"], kind, seq, json.dumps(doc)))
        return doc

    def remove(self, ident):
        with self.lock:
            self.db.execute("DELETE FROM objects WHERE id = ?", (ident,))
            self.db.execute("DELETE FROM tags WHERE id = ?", (ident,))

    def tags(self, ident):
        with self.lock:
            return [r[0] for r in self.db.execute("SELECT name FROM tags WHERE id = ? ORDER BY name", (ident,))]

    def tag(self, ident, name):
        """False if the object already carries the tag."""
        with self.lock:
            if self.db.execute("SELECT 1 FROM tags WHERE id = ? AND name = ?", (ident, name)).fetchone():
                return False
            self.db.execute("INSERT INTO tags (id, name) VALUES (?, ?)", (ident, name))
            return True

    def untag(self, ident, name):
        with self.lock:
            return self.db.execute("DELETE FROM tags WHERE id = ? AND name = ?", (ident, name)).rowcount > 0

    def tagged(self, name):
        with self.lock:
            rows = self.db.execute("SELECT o.id FROM tags t JOIN objects o ON o.id = t.id WHERE t.name = ? "
                                   "ORDER BY o.seq", (name,)).fetchall()
        return [r[0] for r in rows]

    def ids(self):
        with self.lock:
            return [r[0] for r in self.db.execute("SELECT id FROM objects ORDER BY seq")]

    def wipe(self):
        with self.lock:
            self.db.execute("DELETE FROM objects")
            self.db.execute("DELETE FROM tags")
