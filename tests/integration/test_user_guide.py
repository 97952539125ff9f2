"""The user guide's examples, run as written against the local Engine with real ansible-playbook.

Every fenced yaml and bash block of docs/user-guide.md carries a marker comment on the line before it:

- ``<!-- test: engine -->``: the command that starts the local Engine; its options are checked against the
  Engine's own parser (the test runs the session's Engine, started from the same seed);
- ``<!-- test: file NAME -->``: written to NAME in the directory the commands run in;
- ``<!-- test: commands NAME -->``: each ``ansible-playbook`` line run as written (no shell), in that directory;
- ``<!-- test: run NAME -->``: a playbook, run with ``ansible-playbook`` as a user would;
- ``<!-- test: output NAME -->``: sample output; each of its lines is in the output of example NAME;
- ``<!-- test: skip NAME: why -->``: not runnable here (Galaxy, an account, a fragment): reported as skipped.

Examples run in the guide's order, on one Engine, each followed by what it must have done, read back from
the Engine. A ``--check`` run, and a run the guide says changes nothing (``# changed=0``), write nothing.
"""
import collections
import os
import re
import shlex
import subprocess
import sys

import pytest
from localengine.cli import parser

from . import engine_state as es
from ..conftest import DEFAULT_SEED
from .conftest import ROOT
from .test_gc_roles import pool

GUIDE = os.path.join(ROOT, "docs", "user-guide.md")
MARKER = re.compile(r"^<!-- test: (?P<kind>\w+)(?: (?P<name>[^:]+?))?(?:: (?P<why>.+?))? -->$")
FENCE = re.compile(r"^(?P<indent>\s*)```(?P<lang>\w*)\s*$")
Block = collections.namedtuple("Block", "line kind name why lang text")


def blocks():
    """The guide's fenced blocks in order, each with the marker of the line before it (or None)."""
    lines = open(GUIDE).read().splitlines()
    out, marker, index = [], None, 0
    while index < len(lines):
        line = lines[index]
        found = MARKER.match(line.strip())
        fence = FENCE.match(line)
        if found:
            marker = found
        elif fence:
            indent, start = fence.group("indent"), index
            index += 1
            body = []
            while lines[index].strip() != "```":
                body.append(lines[index][len(indent):])
                index += 1
            kind, name, why = (marker.group("kind"), marker.group("name"), marker.group("why")) if marker else (None,) * 3
            out.append(Block(start + 1, kind, name, why, fence.group("lang"), "\n".join(body) + "\n"))
            marker = None
        elif line.strip():
            marker = None   # a marker belongs to the block right after it
        index += 1
    return out


BLOCKS = blocks()


def test_every_yaml_and_bash_example_is_marked():
    """No example is left out silently: each is run, or skipped by name with a reason."""
    unmarked = [b.line for b in BLOCKS if b.lang in ("yaml", "bash") and b.kind is None]
    assert unmarked == [], "docs/user-guide.md: fenced blocks without a <!-- test: ... --> marker at lines %s" % unmarked
    assert all(b.kind in ("engine", "file", "commands", "run", "output", "skip") for b in BLOCKS if b.kind)
    assert all(b.why for b in BLOCKS if b.kind == "skip")
    names = [b.name for b in BLOCKS if b.kind in ("commands", "run", "skip")]
    assert len(names) == len(set(names))
    assert set(EFFECTS) == set(b.name for b in BLOCKS if b.kind in ("commands", "run"))


@pytest.mark.parametrize("name,why", [(b.name, b.why) for b in BLOCKS if b.kind == "skip"])
def test_examples_not_run_here(name, why):
    pytest.skip("user guide example %s: %s" % (name, why))


# ---- what each example must have done, read back from the Engine ------------------------------------------
def objects_of(engine, owner):
    """(kind, name) -> identifier of every LBaaS object of the owner: a backend or frontend carrying its owner tag,
    and the binds and servers inside those (ownership by containment: they carry no tag)."""
    out = {}
    parents = set()
    for kind in ("backend", "frontend"):
        for obj in es.objects(engine, kind):
            if "anxlb-svc=%s" % owner in es.tags(engine, obj["identifier"]):
                out[(kind, obj["name"])] = obj["identifier"]
                parents.add(obj["identifier"])
    for kind, link in (("bind", "frontend"), ("server", "backend")):
        for obj in es.objects(engine, kind):
            parent = obj[link]["identifier"] if isinstance(obj[link], dict) else obj[link]
            if parent in parents:
                out[(kind, obj["name"])] = obj["identifier"]
    return out


def first_service(engine, seen):
    web = objects_of(engine, "web")
    assert sorted(web) == [("backend", "http.web"), ("bind", "v4.http.web"), ("frontend", "http.web"),
                           ("server", "n1.http.web"), ("server", "n2.http.web")]
    bind = es.by_name(engine, "bind")["v4.http.web"]
    assert (bind["address"], bind["port"]) == ("127.0.10.2", 8080)
    assert sorted((s["name"], s["ip"], s["port"]) for s in es.objects(engine, "server")) == [
        ("n1.http.web", "127.0.0.1", 18080), ("n2.http.web", "127.0.0.2", 18080)]
    assert "127.0.10.2" in pool(engine)
    seen["web"] = web


def maintenance(engine, seen):
    """The port out and back: the same objects (no delete, no create), the frontend enabled again."""
    assert objects_of(engine, "web") == seen["web"]
    assert es.by_name(engine, "frontend")["http.web"]["enable"] is True


def gc(engine, seen):
    assert objects_of(engine, "api") == {}   # applied, then collected
    assert not [n for kind in ("backend", "frontend", "bind", "server") for n in es.by_name(engine, kind)
                if n.endswith(".api")]
    assert objects_of(engine, "web") == seen["web"]   # the live set's objects, the same identifiers
    assert "127.0.10.3" not in pool(engine) and "127.0.10.2" in pool(engine)


def gc_module(engine, seen):
    assert objects_of(engine, "web") == seen["web"]


EFFECTS = {"first-service": first_service, "maintenance": maintenance, "gc": gc, "gc-module": gc_module}
READ_ONLY = {"gc-module"}   # check mode inside the playbook


# ---- running them ------------------------------------------------------------------------------------------
def check_engine_command(block, engine):
    """The guide's way to start the local Engine parses with the Engine's own options, and the exported
    variables point at it."""
    start = [line for line in block.text.splitlines() if "tests/engine/run" in line]
    assert len(start) == 1, block.text
    argv = shlex.split(start[0].replace("$C", ROOT).rstrip("& "))
    assert argv[0] == "python3" and argv[1] == os.path.join(ROOT, "tests", "engine", "run")
    args = parser().parse_args(argv[2:])
    assert args.quiet and os.path.realpath(args.seed) == os.path.realpath(DEFAULT_SEED)
    exported = dict(w.split("=", 1) for line in block.text.splitlines() if line.startswith("export ")
                    for w in shlex.split(line)[1:])
    assert exported == {"ANEXIA_API_URL": "http://%s:%d" % args.listen, "ANEXIA_TOKEN": args.token}


def playbook(ansible, engine, argv, cwd):
    """One ansible-playbook run as a user types it, in ``cwd``; returns (rc, output, writes)."""
    assert argv[0] == "ansible-playbook", argv
    engine.reset_requests()
    proc = subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-playbook")] + argv[1:], cwd=cwd,
                          env=ansible.env(), capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL,
                          check=False)
    return proc.returncode, proc.stdout + proc.stderr, engine.mutating_requests()


def test_the_guide_runs_as_written(engine, ansible, tmp_path):
    outputs = collections.defaultdict(str)
    seen = {}
    for block in BLOCKS:
        where = "docs/user-guide.md:%d (%s %s)" % (block.line, block.kind, block.name)
        if block.kind == "engine":
            check_engine_command(block, engine)
        elif block.kind == "file":
            (tmp_path / block.name).write_text(block.text)
        elif block.kind in ("commands", "run"):
            if block.kind == "run":
                (tmp_path / (block.name + ".yml")).write_text(block.text)
                lines = ["ansible-playbook %s.yml" % block.name]
            else:
                lines = [line for line in block.text.splitlines() if line.strip()]
            for line in lines:
                rc, output, writes = playbook(ansible, engine, shlex.split(line, comments=True), str(tmp_path))
                assert rc == 0, "%s: %s\n%s" % (where, line, output[-3000:])
                outputs[block.name] += output
                if "--check" in line or "changed=0" in line or block.name in READ_ONLY:
                    assert writes == 0, "%s: %s sent %d writes" % (where, line, writes)
                if "changed=0" in line:
                    assert re.search(r"localhost\s*:.*\bchanged=0\b", output), (where, output[-1500:])
            EFFECTS[block.name](engine, seen)
        elif block.kind == "output":
            shown = set(line.strip() for line in outputs[block.name].splitlines())
            missing = [line for line in block.text.splitlines() if line.strip() not in shown and line.strip() != "..."]
            assert missing == [], "%s: sample lines not in the real output: %s" % (where, missing)
    assert sorted(outputs) == sorted(EFFECTS)   # every runnable example ran
