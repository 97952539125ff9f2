"""Persistence: every object (LBaaS, IPAM, VLAN, location), the tags attached to it and the account's
tag entities in SQLite, behind one lock.

Objects are JSON documents keyed by identifier; keys starting with "_" are the emulator's own
bookkeeping (timestamps, deployment phase, deletion) and never reach a client. A restart with the
same file keeps everything, deployment states included (they are computed from stored timestamps).
An object whose ``_gone_at`` time has passed (finished deletion, expired reservation) is purged; tag
entities outlive the objects that carried them (they are deleted only through their own API).
"""
import json
import sqlite3
import threading
import uuid
from contextlib import contextmanager

SCHEMA_VERSION = 3
SCHEMA = """
CREATE TABLE objects (
    id TEXT PRIMARY KEY, kind TEXT NOT NULL, seq INTEGER NOT NULL, gone_at REAL, doc TEXT NOT NULL
);
CREATE TABLE tags (id TEXT NOT NULL, name TEXT NOT NULL, PRIMARY KEY (id, name));
CREATE TABLE tag_entities (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, seq INTEGER NOT NULL, doc TEXT NOT NULL);
CREATE INDEX objects_kind ON objects (kind, seq);
CREATE INDEX objects_gone ON objects (gone_at);
CREATE INDEX tags_name ON tags (name);
PRAGMA user_version = %d;
""" % SCHEMA_VERSION


class StoreError(Exception):
    pass


def new_id():
    return uuid.uuid4().hex


class Store:
    def __init__(self, path=None):
        self.lock = threading.RLock()
        self.depth = 0
        try:
            self.db = sqlite3.connect(path or ":memory:", check_same_thread=False, isolation_level=None)
            version = self.db.execute("PRAGMA user_version").fetchone()[0]
            if version == 0 and not self.db.execute("SELECT 1 FROM sqlite_master").fetchone():
                self.db.executescript(SCHEMA)
            elif version != SCHEMA_VERSION:
                raise StoreError("%s was written by another version of the local Engine (schema %d, expected %d); "
                                 "delete it" % (path, version, SCHEMA_VERSION))
        except sqlite3.DatabaseError as exc:
            raise StoreError("cannot use %s as state file: %s" % (path, exc))

    @contextmanager
    def transaction(self):
        """One lock and one SQLite transaction per Engine request: a request that fails changes nothing."""
        with self.lock:
            self.depth += 1
            if self.depth == 1:
                self.db.execute("BEGIN")
            try:
                yield self
            except BaseException:
                if self.depth == 1:
                    self.db.execute("ROLLBACK")
                raise
            else:
                if self.depth == 1:
                    self.db.execute("COMMIT")
            finally:
                self.depth -= 1

    def _query(self, sql, args=()):
        with self.lock:
            return self.db.execute(sql, args).fetchall()

    def get(self, ident, kind=None):
        rows = self._query("SELECT kind, doc FROM objects WHERE id = ?", (ident,))
        if not rows or (kind and rows[0][0] != kind):
            return None
        return json.loads(rows[0][1])

    def kind_of(self, ident):
        rows = self._query("SELECT kind FROM objects WHERE id = ?", (ident,))
        return rows[0][0] if rows else None

    def all(self, *kinds):
        marks = ",".join("?" * len(kinds))
        rows = self._query("SELECT doc FROM objects WHERE kind IN (%s) ORDER BY seq" % marks, kinds)
        return [json.loads(r[0]) for r in rows]

    def put(self, kind, doc):
        with self.lock:
            row = self.db.execute("SELECT seq FROM objects WHERE id = ?", (doc["identifier"],)).fetchone()
            seq = row[0] if row else self.db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM objects").fetchone()[0]
            self.db.execute("INSERT OR REPLACE INTO objects (id, kind, seq, gone_at, doc) VALUES (?, ?, ?, ?, ?)",
                            (doc["identifier"], kind, seq, doc.get("_gone_at"), json.dumps(doc)))
        return doc

    def remove(self, ident):
        with self.lock:
            self.db.execute("DELETE FROM objects WHERE id = ?", (ident,))
            self.db.execute("DELETE FROM tags WHERE id = ?", (ident,))

    def purge(self, now):
        """Drops objects whose time is up, and their tags."""
        with self.lock:
            if self.db.execute("SELECT 1 FROM objects WHERE gone_at <= ? LIMIT 1", (now,)).fetchone():
                self.db.execute("DELETE FROM objects WHERE gone_at <= ?", (now,))
                self.db.execute("DELETE FROM tags WHERE id NOT IN (SELECT id FROM objects)")

    def tags(self, ident):
        return [r[0] for r in self._query("SELECT name FROM tags WHERE id = ? ORDER BY name", (ident,))]

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

    def tagged(self, *names):
        """Identifiers of the objects carrying any of the tags, oldest first."""
        marks = ",".join("?" * len(names))
        return [r[0] for r in self._query("SELECT DISTINCT o.id, o.seq FROM tags t JOIN objects o ON o.id = t.id "
                                          "WHERE t.name IN (%s) ORDER BY o.seq" % marks, names)]

    def attached_names(self):
        """Every tag name some object carries."""
        return [r[0] for r in self._query("SELECT DISTINCT name FROM tags")]

    def untag_everywhere(self, name):
        with self.lock:
            return self.db.execute("DELETE FROM tags WHERE name = ?", (name,)).rowcount

    # ---- tag entities (account-level, docs/engine-api-facts.md) ------------------
    def tag_entity(self, name=None, ident=None):
        rows = self._query("SELECT doc FROM tag_entities WHERE %s = ?" % ("id" if ident else "name"), (ident or name,))
        return json.loads(rows[0][0]) if rows else None

    def tag_entities(self):
        return [json.loads(r[0]) for r in self._query("SELECT doc FROM tag_entities ORDER BY seq")]

    def put_tag_entity(self, doc):
        with self.lock:
            row = self.db.execute("SELECT seq FROM tag_entities WHERE id = ?", (doc["identifier"],)).fetchone()
            seq = row[0] if row else self.db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM tag_entities").fetchone()[0]
            self.db.execute("INSERT OR REPLACE INTO tag_entities (id, name, seq, doc) VALUES (?, ?, ?, ?)",
                            (doc["identifier"], doc["name"], seq, json.dumps(doc)))
        return doc

    def remove_tag_entity(self, ident):
        with self.lock:
            self.db.execute("DELETE FROM tag_entities WHERE id = ?", (ident,))

    def dump(self):
        rows = self._query("SELECT id, kind, doc FROM objects ORDER BY seq")
        return [dict(json.loads(doc), _kind=kind, _tags=self.tags(ident)) for ident, kind, doc in rows]

    def wipe(self):
        with self.lock:
            self.db.execute("DELETE FROM objects")
            self.db.execute("DELETE FROM tags")
            self.db.execute("DELETE FROM tag_entities")

    def close(self):
        with self.lock:
            self.db.close()
