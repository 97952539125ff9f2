"""What a person reads (issue 30, points 5 and 6), measured on the output of real ansible-playbook runs:

- the diff of a service is a tree per load balancer and port, a line per object, with the per-load-balancer
  summary in its header: the 3 ports x 3 servers x 2 load balancers create is at most 80 lines as printed;
- the diff still shows what a real run writes: a tag adoption, a redeploy, the deletes on a load balancer
  the service no longer names;
- ``-v`` prints no internals: the role's check-mode output of the user guide's two services is under 10 KB
  and carries nothing of check mode's cross-task predictions.
"""
import os

import yaml

from . import engine_state as es
from .conftest import ROOT, side
from .test_role_playbook import INCLUDE_ROLE
from .test_user_guide import BLOCKS

PLAYBOOK = os.path.join(ROOT, "playbooks", "service_loadbalancer.yml")
INTERNAL = ("anxcloud_lbaas_predictions", "check_mode_predictions")
WEB = {"name": "web", "load_balancers": ["lb1", "lb2"], "addresses": ["127.0.10.5"],
       "ports": [{"name": "http", "port": 8080, "target_port": 18080}, {"name": "https", "port": 8443, "target_port": 18443},
                 {"name": "admin", "port": 9000}],
       "servers": [{"name": "n%d" % n, "address": "127.0.0.%d" % n} for n in (1, 2, 3)]}


def task(name, service, **keywords):
    return dict({"name": name, "anxcloud.lbaas.service": service}, **keywords)


def printed(output, name):
    """What the default callback printed for the task called ``name``: its lines up to the next banner."""
    lines = output.splitlines()
    start = [i for i, line in enumerate(lines) if line.startswith("TASK [%s]" % name)][0]
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith(("TASK [", "PLAY "))), len(lines))
    return lines[start + 1:end]


def diff_section(lines):
    """The unified diff Ansible printed: from ``--- before`` to the blank line after it (none: [])."""
    if not any(line.startswith("--- before") for line in lines):
        return []
    start = [i for i, line in enumerate(lines) if line.startswith("--- before")][0]
    end = lines.index("", start)
    return lines[start:end]


def test_the_diff_of_a_three_by_three_by_two_service_is_a_short_tree_with_the_summary_on_top(engine, ansible, module):
    """Then the diff shows an adoption, a redeploy and a load balancer left: the plays of one ansible-playbook run
    (check mode with --diff, then for real; then the second scene's check mode with --diff, the play's keywords
    doing what --check --diff do), a module process setting the second scene between them."""
    small = dict(WEB, ports=WEB["ports"][:1], servers=WEB["servers"][:1])
    moved = dict(small, load_balancers=["lb1"], ports=small["ports"] + [{"name": "metrics", "port": 9100}])
    plays = ansible.session([([task("Reconcile web", WEB)], {"check_mode": True, "diff": True}),
                             ([task("Apply web", WEB, diff=True), task("Again web", WEB, diff=True)], {}),
                             ([task("Preview web", moved)], {"check_mode": True, "diff": True})])
    before = es.snapshot(engine)
    engine.reset_requests()
    check = plays.next()
    assert len(check.records) == 1 and not check.failed(), check
    assert engine.mutating_requests() == 0 and es.snapshot(engine) == before
    real = plays.next()
    assert len(real.records) == 2 and not real.failed(0) and not real.failed(1), real
    preview = the_diff_shows_an_adoption_a_redeploy_and_a_load_balancer_left(engine, module, plays, small)
    output = preview.proc.stdout   # the whole run's, read once it has ended
    shown = diff_section(printed(output, "Reconcile web"))
    assert 36 <= len(shown) <= 80, "\n".join(shown)   # 36 objects, a line each
    summary = "lb1: 18 to add, 0 to change, 0 to destroy; lb2: 18 to add, 0 to change, 0 to destroy"
    assert shown[1] == "+++ after: " + summary and check[0]["summary"] == summary
    assert shown[0] == "--- before: web as observed (objects carry anxlb-svc=web unless they show an owner)"
    assert "+      n3.admin.web: {ip: 127.0.0.3, port: 9000, check: enabled}" in shown
    assert not [line for line in shown if "load_balancer" in line or "owner:" in line]

    # for real: the same sides, the header says what was done; then in sync: no diff at all
    applied = diff_section(printed(output, "Apply web"))
    assert applied[1] == "+++ after: lb1: 18 added, 0 changed, 0 destroyed; lb2: 18 added, 0 changed, 0 destroyed"
    assert applied[2:] == shown[2:]
    assert (real[0]["diff"]["before"], real[0]["diff"]["after"]) == (check[0]["diff"]["before"], check[0]["diff"]["after"])
    assert diff_section(printed(output, "Again web")) == [] and real[1]["changed"] is False
    assert real[1]["diff"]["before"] == real[1]["diff"]["after"] == check[0]["diff"]["after"]

    shown = diff_section(printed(output, "Preview web"))
    assert "-    backend: {mode: tcp, owner: (untagged)}" in shown   # adopted: tagged anxlb-svc=web (and its check set)
    assert side(preview[0], "after")["lb1"]["metrics.web"]["backend"] == {"mode": "tcp", "health_check": '"adv_check": "tcp-check"'}
    assert "-    backend: {mode: tcp, health_check: '\"adv_check\": \"tcp-check\"', deployment: DeploymentError}" in shown
    assert "+    backend: {mode: tcp, health_check: '\"adv_check\": \"tcp-check\"', deployment: redeploy requested}" in shown
    assert "-lb2:" in shown and "+lb2: {}" in shown   # everything of ours on lb2 goes
    assert "-      v4.http.web: {address: 127.0.10.5, port: 8080, ssl: false}" in shown
    assert side(preview[0], "after")["lb2"] == {} and list(side(preview[0], "before")["lb2"]) == ["http.web"]
    summary = "lb1: 3 to add, 2 to change, 0 to destroy; lb2: 0 to add, 0 to change, 4 to destroy"
    assert preview[0]["summary"] == summary and shown[1] == "+++ after: " + summary


def the_diff_shows_an_adoption_a_redeploy_and_a_load_balancer_left(engine, module, plays, small):
    """The second scene, set by a module process (web shrunk to ``small``: one port, one node, on lb1 and lb2), then
    the session's next play previews ``moved`` in check mode with --diff: nothing written. Its ``Run``."""
    set_up = module("service", small)   # sets the scene: the module as its own process, no playbook needed
    assert not set_up.failed, set_up
    lb1 = es.lb_id(engine, "lb1")
    # a backend made by hand (no owner tag) with the name a new port wants, and one of ours failed to deploy
    es.create(engine, "backend", name="metrics.web", mode="tcp", load_balancer=lb1)
    (failed,) = [o["identifier"] for o in es.objects(engine, "backend")
                 if o["name"] == "http.web" and o["load_balancer"]["identifier"] == lb1]
    engine.set_state(failed, "DeploymentError")
    before = es.snapshot(engine)
    engine.reset_requests()
    check = plays.next()
    assert check.rc == 0 and len(check.records) == 1 and not check.failed(), check
    assert engine.mutating_requests() == 0 and es.snapshot(engine) == before
    return check


def guide_services(tmp_path):
    """The user guide's two services (services.yml and api.yml) in one vars file."""
    files = dict((b.name, b.text) for b in BLOCKS if b.kind == "file")
    services = [s for name in ("services.yml", "api.yml") for s in yaml.safe_load(files[name])["lbaas_services"]]
    assert [s["name"] for s in services] == ["web", "api"]
    path = tmp_path / "both.yml"
    path.write_text(yaml.safe_dump({"lbaas_services": services}))
    return str(path)


def test_the_roles_verbose_check_mode_output_of_the_guides_two_services_is_short(engine, ansible, tmp_path):
    before = es.snapshot(engine)
    engine.reset_requests()
    out = ansible.playbook(PLAYBOOK, check=True, extra_args=["-v", "-e", "lbaas_vars_file=%s" % guide_services(tmp_path)])
    assert out.rc == 0, out
    assert engine.mutating_requests() == 0 and es.snapshot(engine) == before
    size = len(out.proc.stdout.encode("utf-8"))
    assert size < 10 * 1024, "%d bytes:\n%s" % (size, out.proc.stdout)
    assert not [word for word in INTERNAL if word in out.proc.stdout]
    # what it says instead: each service's summary, from the registered results the role prints nothing else of
    assert '        "summary: lb1: 5 to add, 0 to change, 0 to destroy; pool 127.0.10.0/24: 1 to add",' in \
        out.proc.stdout.splitlines()
    assert '        "summary: lb1: 4 to add, 0 to change, 0 to destroy; pool 127.0.10.0/24: 1 to add",' in \
        out.proc.stdout.splitlines()
    assert printed(out.proc.stdout, "anxcloud.lbaas.service_loadbalancer : Reconcile web") == ["changed: [localhost]", ""]


def play_output(output, name):
    """What the run printed for the play called ``name``: from its banner to the next play's (or the recap)."""
    start = output.index("PLAY [%s]" % name)
    ends = [i for i in (output.find("PLAY [", start + 1), output.find("PLAY RECAP", start + 1)) if i != -1]
    return output[start:min(ends)]


def slow(index, group):
    """A service of group ``group`` (one letter) whose port's client_timeout of 30 (milliseconds: most likely meant as
    seconds) gets a warning of the port's, the same text for every service but for its name."""
    return {"name": "%s%02d" % (group, index), "load_balancers": ["lb1"],
            "addresses": ["127.0.10.%d" % ({"a": 10, "b": 20, "c": 30, "d": 60}[group] + index)],
            "ports": [{"name": "http", "port": 8080, "target_port": 18080, "client_timeout": 30}],
            "servers": [{"name": "n1", "address": "127.0.0.1"}]}


def test_the_roles_verbose_check_output_grows_linearly_and_says_each_thing_once(engine, ansible, module):
    """Issue 43, a new user's points, measured on one ansible-playbook run with -v --check of four plays (the role
    for 1, 2 and 20 services, then 1 with --diff's play keyword): each service recorded its result in one fact that
    grew, printed whole at -v for every service (output with the square of the services): now the 20 services'
    output is at most 20 times the one's, and each service beyond the second adds what the second added. A port's
    warning names its service (Ansible prints a warning once per text: two services' were one). With --diff the
    summary leaves the plan lines out, which the diff shows. A service no play declares (old00) is named in a warning;
    service_info's whole answer, which the role reports from, is not printed at -v."""
    assert not module("service", dict(slow(0, "d"), name="old00", addresses=["127.0.10.90"])).failed
    plays = [("linear-%s" % group, [slow(i, group) for i in range(count)], {})
             for group, count in (("a", 1), ("b", 2), ("c", 20))] + [("linear-d", [slow(0, "d")], {"diff": True})]
    path = ansible.write([([INCLUDE_ROLE], dict({"name": name, "vars": {"lbaas_services": services}}, **keywords))
                          for name, services, keywords in plays])
    before = es.snapshot(engine)
    engine.reset_requests()
    out = ansible.playbook(path, check=True, extra_args=["-v"])
    assert out.rc == 0, out
    assert engine.mutating_requests() == 0 and es.snapshot(engine) == before
    one, two, twenty, diffed = (len(play_output(out.proc.stdout, name).encode("utf-8")) for name, _s, _k in plays)
    print("-v --check output of the role: 1 service %d bytes, 2 services %d, 20 services %d" % (one, two, twenty))
    assert twenty <= 20 * one, (one, two, twenty)
    assert twenty - two <= 18 * (two - one) * 1.02, (one, two, twenty)   # linear: the 2% for numbers' widths
    for index in range(20):
        assert "[WARNING]: service c%02d: ports[0].client_timeout: 30 is 30 milliseconds; write 30s if you meant " \
               "seconds" % index in out.proc.stderr.splitlines()
    undeclared = printed(out.proc.stdout, "anxcloud.lbaas.service_loadbalancer : Services on these load balancers that "
                                          "lbaas_services does not declare")
    assert undeclared == ["ok: [localhost]", ""], undeclared
    assert "[WARNING]: service old00 of tag prefix 'anxlb' is not declared but still on lb1 with 127.0.10.90:8080; " \
           "collect it" in out.proc.stderr
    # plan lines without --diff, none with it (the diff shows the same actions, a line each)
    assert '        "plan: lb1: create frontend http.a00",' in out.proc.stdout.splitlines()
    shown = play_output(out.proc.stdout, "linear-d")
    assert '"plan: ' not in shown and "+    frontend: {mode: tcp" in shown and '"summary: lb1: 4 to add' in shown
