"""Every module, run for real by ansible-playbook on a Python where ``netaddr`` cannot be imported, fails with
Ansible's standard "missing required library" message instead of a traceback. The library is hidden only from
the modules: the play's ``environment`` puts a ``netaddr`` that refuses to import first on their PYTHONPATH.
The modules not run by ansible-playbook run as processes forked from a server started with the same PYTHONPATH:
the hidden library is missing from its imports and so from every child's, as from a fresh process's."""
import os

import pytest

from .conftest import ROOT, ForkedModule

MODULES = sorted(f[:-3] for f in os.listdir(os.path.join(ROOT, "plugins", "modules")) if f.endswith(".py"))
# Just enough valid options for each module's argument parsing to pass (that runs before the check).
OPTIONS = {
    "loadbalancer": {"name": "lb1"},
    "backend": {"load_balancer": "lb1", "name": "80.web"},
    "frontend": {"load_balancer": "lb1", "name": "80.web"},
    "bind": {"load_balancer": "lb1", "frontend": "80.web", "name": "v4.80.web"},
    "server": {"load_balancer": "lb1", "backend": "80.web", "name": "n1.80.web"},
    "acl": {"load_balancer": "lb1", "frontend": "80.web", "name": "office"},
    "rule": {"load_balancer": "lb1", "frontend": "80.web", "name": "accept-office"},
    "ip_address": {"pool": ["127.0.10.0/24"], "owner": "web"},
    "ip_pool_info": {"pool": ["127.0.10.0/24"]},
    "service": {"name": "web", "load_balancers": ["lb1"]},
    "dns_record": {"zone": "local.test", "type": "A", "values": ["127.0.0.1"]},
    "dns_record_info": {"zone": "local.test"},
    "dns_record_sets": {"zone": "local.test", "record_sets": [{"name": "www", "type": "A", "values": ["127.0.0.1"]}]},
}


# Through ansible-playbook (AnsiballZ, the controller's result handling): a writing module with an action plugin
# and a read-only one; the others run as their own processes, as the controller starts them (the same import).
ON_PLAYBOOK = ("service", "frontend_info")


def hiding(engine, tmp_path, library):
    """A ``ForkedModule`` whose processes cannot import ``library`` (a module of that name that refuses to import,
    first on the fork server's PYTHONPATH), and that directory."""
    hidden = tmp_path / ("no-" + library)
    hidden.mkdir()
    (hidden / (library + ".py")).write_text("raise ImportError('%s is hidden by this test')\n" % library)
    return ForkedModule(engine, pythonpath=hidden), hidden


@pytest.mark.smoke
def test_every_module_reports_a_missing_netaddr(ansible, engine, tmp_path):
    module, hidden = hiding(engine, tmp_path, "netaddr")
    tasks = [{"name": name, "anxcloud.lbaas.%s" % name: OPTIONS.get(name, {}), "ignore_errors": True}
             for name in ON_PLAYBOOK]
    # check mode: should the check ever be lost, the modules still write nothing
    run = ansible.run(tasks, check=True, play={"environment": {"PYTHONPATH": str(hidden)}})
    assert [r["task"] for r in run.records] == list(ON_PLAYBOOK), run
    results = dict((name, run.task(name)["result"]) for name in ON_PLAYBOOK)
    for name in ON_PLAYBOOK:
        assert run.task(name)["status"] == "failed", (name, results[name])
        assert "module_stderr" not in results[name], (name, results[name])
    with module:
        for name in MODULES:
            if name not in ON_PLAYBOOK:
                found = module(name, OPTIONS.get(name, {}), check=True)
                assert found.failed, found   # a JSON answer, not a crash (fail_json may add the import's traceback
                results[name] = found.result  # as "exception", which the controller shows only with -vvv)
    assert sorted(results) == MODULES
    for name, result in results.items():
        assert result["msg"].startswith("Failed to import the required Python library (netaddr)"), (name, result)
        assert "Traceback" not in result["msg"], (name, result)
    assert ansible.engine.mutating_requests() == 0


# The modules that compare DNS values with dnspython (dns_zone_info reads zones and needs none).
NEEDS_DNSPYTHON = ("dns_record", "dns_record_info", "dns_record_sets")


def test_the_dns_modules_report_a_missing_dnspython(engine, tmp_path):
    module, _hidden = hiding(engine, tmp_path, "dns")
    with module:
        for name in NEEDS_DNSPYTHON:
            found = module(name, OPTIONS[name], check=True)
            assert found.failed, found
            assert found.result["msg"].startswith("Failed to import the required Python library (dnspython)"), found
            assert found.requests(engine) == []
    assert engine.mutating_requests() == 0
