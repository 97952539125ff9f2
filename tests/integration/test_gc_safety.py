"""gc with five owners to collect and one alive (web), as ansible-playbook prints it (issue 30, points 1, 5 and 9):

- a misspelt keep name (``keep: [web, shpo]``) fails before any write, in check mode and for real, naming the
  option, the name, the closest owner and the fix (strict_keep is on by default);
- ``--check --diff`` prints at most one line per object plus one per owner (a play with the keywords check_mode and
  diff: what --check and --diff do for a run, printed by the same callback);
- over max_delete, check mode shows the whole preview and says the real run would stop there; the real run
  fails in one sentence, without its plan on the ``fatal:`` line, and writes nothing;
- every removal's reason names the owner's absence from the live set; the real run's summary says "destroyed";
- the user guide's gc example runs as written in this account (more than its max_delete to collect).

Every step reads the Engine back: the refused and check-mode runs send no write and change nothing."""
import json
import re

import yaml

from . import engine_state as es
from .test_gc import ids_of, writes
from .test_user_guide import BLOCKS

OWNERS = ("cart", "mail", "pg", "shop", "api")
PER_OWNER = 5   # frontend, bind, backend, two servers


def service(name, index):
    return {"name": "Create %s" % name, "anxcloud.lbaas.service": {
        "name": name, "load_balancers": ["lb1"], "addresses": ["127.0.10.%d" % (50 + index)],
        "ports": [{"name": "http", "port": 8080 + index, "target_port": 18080}],
        "servers": [{"name": "n1", "address": "127.0.0.1"}, {"name": "n2", "address": "127.0.0.2"}]}}


def gc(name, ignore=False, **options):
    task = {"name": name, "anxcloud.lbaas.gc": options}
    return dict(task, ignore_errors=True) if ignore else task


def section(out, task):
    """The lines ansible-playbook printed for ``task``: after its banner, up to the next banner or the recap."""
    lines = out.splitlines()
    (start,) = [i for i, line in enumerate(lines) if line.startswith("TASK [%s]" % task)]
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith(("TASK [", "PLAY [", "PLAY RECAP")))
    return [line for line in lines[start + 1:end] if line.strip()]


def playbook(tmp_path, name, tasks, **keywords):
    path = tmp_path / name
    path.write_text(yaml.safe_dump([dict({"hosts": "localhost", "gather_facts": False, "tasks": tasks}, **keywords)],
                                   sort_keys=False))
    return str(path)


def guide_example(tmp_path):
    """The user guide's gc module example and the vars file it reads, written as the guide has them."""
    (services,) = [b for b in BLOCKS if b.kind == "file" and b.name == "services.yml"]
    (example,) = [b for b in BLOCKS if b.kind == "run" and b.name == "gc-module"]
    (tmp_path / "services.yml").write_text(services.text)
    (tmp_path / "gc-module.yml").write_text(example.text)
    return str(tmp_path / "gc-module.yml")


def test_five_owners_preview_cap_typo_and_collection_as_ansible_playbook_prints_them(engine, ansible, module, tmp_path):
    # the set-up by module processes (gc as ansible-playbook prints it is what this test is about)
    for index, name in enumerate(("web",) + OWNERS):
        made = module("service", service(name, index)["anxcloud.lbaas.service"])
        assert not made.failed, made
    web = ids_of(engine, owner="web")
    doomed = dict((name, ids_of(engine, owner=name)) for name in OWNERS)
    assert len(web) == PER_OWNER and all(len(ids) == PER_OWNER for ids in doomed.values())
    before = es.snapshot(engine)

    # One ansible-playbook process plays, one at a time: check mode with diff (the play's keywords, what --check --diff
    # do for a run): the typo, the preview, the preview over the cap; the guide's example as written; then (below) the
    # real run, whose play has diff: true, what --diff does for it (the guide's example runs without).
    engine.reset_requests()
    then_real = ansible.playbooks([playbook(tmp_path, "check.yml", [
        gc("Typo", ignore=True, keep=["web", "shpo"]),
        gc("Preview", keep=["web"]),
        gc("Capped preview", keep=["web"], max_delete=20),
    ], check_mode=True, diff=True), guide_example(tmp_path), playbook(tmp_path, "real.yml", [
        gc("Typo for real", ignore=True, keep=["web", "shpo"]),
        gc("Capped", ignore=True, keep=["web"], max_delete=20),
        gc("Collect", keep=["web"]),
    ], diff=True)], cwd=str(tmp_path))
    check = then_real.next()
    guide = then_real.next()
    assert writes(engine) == [] and es.snapshot(engine) == before
    assert check.rc is None and len(check.records) == 3, check
    assert guide.rc is None and guide.records and not guide.failed(), guide
    # the real run (its results are read below); the output of all three plays is read once the run has ended:
    # ansible-playbook leaves its stdout to the system's buffering, a play's lines may reach the file later
    engine.reset_requests()
    real = then_real.next()
    assert real.rc == 0, real
    output = real.proc.stdout

    typo = check.task("Typo")
    assert typo["status"] == "failed" and typo["result"]["keep_unmatched"] == ["shpo"]
    assert typo["result"]["msg"] == (
        "keep names owner(s) that tag prefix 'anxlb' does not have: shpo (did you mean shop?); if a name is misspelt, "
        "the owner it meant is collected. Nothing was deleted (strict_keep: true, the default). Correct the name in "
        "keep (an owner that is alive but not created yet goes in keep_new), or set strict_keep: false to only warn")

    # The preview: five owner lines and one line per object (markers on the owner's line); nothing else printed.
    preview = check.task("Preview")["result"]
    objects = [r for r in preview["removed"] if r["type"] != "marker"]
    assert sorted(r["id"] for r in objects) == sorted(i for ids in doomed.values() for i in ids)
    printed = section(output, "Preview")
    assert printed[-1] == "changed: [localhost]"
    assert len(printed) - 1 <= len(objects) + len(OWNERS), "\n".join(printed)
    assert printed[0] == "owner 'api' is not in the live set: 5 to remove (and its marker on lb1)"
    assert "  - lb1: server n1.http.shop" in printed and "  - lb1: frontend http.cart" in printed
    assert set(r["reason"].split(";")[0] for r in preview["removed"]) == set(
        "owner '%s' is not in the live set" % name for name in OWNERS)
    assert preview["summary"] == ("lb1: 25 to destroy | owners collected: api, cart, mail, pg, shop | kept: 1 owner(s) "
                                  "| skipped: nothing")

    # Over the cap, check mode shows the same preview and says that the real run would stop there.
    capped = check.task("Capped preview")
    assert capped["status"] == "ok" and capped["result"]["changed"] is True and capped["result"]["over_max_delete"] is True
    assert capped["result"]["removed"] == preview["removed"] and capped["result"]["diff"] == preview["diff"]
    assert capped["result"]["summary"].startswith("over max_delete (25 > 20), the real run would stop there and delete "
                                                  "nothing | lb1: 25 to destroy")
    assert capped["result"]["warnings"] == [
        "gc would remove 25 objects and addresses of 5 owner(s) (api, cart, mail, pg, shop), more than max_delete (20): "
        "the real run would stop there and delete nothing. The preview shows what would go; check the live set (keep), "
        "then raise max_delete to at least 25 to go ahead"]
    assert section(output, "Capped preview")[:len(printed) - 1] == printed[:-1]

    # For real: the typo and the cap write nothing; the cap's fatal: line is one sentence and the counts per
    # owner, not the plan. Then the collection, whose reasons and summary say what was done.
    # what the guide's example printed
    (summary_line,) = [line for line in section(output, "Show it") if '"msg"' in line]
    assert "over max_delete (25 > 20), the real run would stop there and delete nothing | lb1: 25 to destroy" in summary_line
    assert real.task("Typo for real")["status"] == "failed" and real.writes(engine, 0) == real.writes(engine, 1) == 0
    capped = real.task("Capped")["result"]
    assert capped["msg"] == (
        "gc would remove 25 objects and addresses of 5 owner(s) (api, cart, mail, pg, shop), more than max_delete (20), "
        "so nothing was deleted; preview them with --check --diff, check the live set (keep), then raise max_delete "
        "to at least 25 to go ahead")
    (fatal,) = [line for line in output.splitlines() if line.startswith("fatal:") and "more than max_delete" in line]
    shown = json.loads(fatal.split("=> ", 1)[1])
    assert shown["would_remove_by_owner"] == dict((name, PER_OWNER) for name in OWNERS)
    assert "plan" not in shown and shown["removed"] == [] and len(fatal) < 1200, fatal

    done = real.task("Collect")["result"]
    assert done["summary"] == ("lb1: 25 destroyed | owners collected: api, cart, mail, pg, shop | kept: 1 owner(s) "
                               "| skipped: nothing")
    assert done["removed"] == preview["removed"]
    assert done["diff"]["prepared"] == re.sub("to remove", "removed", preview["diff"]["prepared"])
    assert all(ids_of(engine, owner=name) == set() for name in OWNERS)
    assert ids_of(engine, owner="web") == web
    assert not [w for w in writes(engine) if any(i in w[1] for i in web)]


def test_a_misspelt_keep_is_refused_before_any_write_unless_strict_keep_is_false(engine, module):
    """Module processes (no controller): the typo in check mode and for real, a live set of typos only, keep_new
    for a service not created yet, and the opt-out; none writes, the Engine reads back as it was."""
    for index, name in enumerate(("web", "shop")):
        made = module("service", service(name, index)["anxcloud.lbaas.service"])
        assert not made.failed, made
    before = es.snapshot(engine)
    engine.reset_requests()
    for check in (True, False):
        refused = module("gc", {"keep": ["web", "shpo"]}, check=check)
        assert refused.message().startswith(
            "keep names owner(s) that tag prefix 'anxlb' does not have: shpo (did you mean shop?)"), refused
        assert "set strict_keep: false" in refused.message() and refused["keep_unmatched"] == ["shpo"]
    only_typos = module("gc", {"keep": ["shpo", "wbe"]}, check=True)
    assert "shpo (did you mean shop?), wbe (did you mean web?)" in only_typos.message()
    new = module("gc", {"keep": ["web", "shop"], "keep_new": ["cart"]}, check=True)
    assert not new.failed and new["removed"] == [] and new["changed"] is False, new
    lenient = module("gc", {"keep": ["web", "shpo"], "strict_keep": False}, check=True)
    assert not lenient.failed and set(r["owner"] for r in lenient["removed"]) == {"shop"}, lenient
    assert "shpo (did you mean shop?)" in str(lenient["warnings"])   # a module process returns warnings as events
    assert writes(engine) == [] and es.snapshot(engine) == before
