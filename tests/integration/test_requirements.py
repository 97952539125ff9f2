"""Every module, run for real by ansible-playbook on a Python where ``netaddr`` cannot be imported, fails with
Ansible's standard "missing required library" message instead of a traceback. The library is hidden only from
the modules: the play's ``environment`` puts a ``netaddr`` that refuses to import first on their PYTHONPATH."""
import os

import pytest

from .conftest import ROOT

MODULES = sorted(f[:-3] for f in os.listdir(os.path.join(ROOT, "plugins", "modules")) if f.endswith(".py"))
# Just enough valid options for each module's argument parsing to pass (that runs before the check).
OPTIONS = {
    "backend": {"load_balancer": "lb1", "name": "80.web"},
    "frontend": {"load_balancer": "lb1", "name": "80.web"},
    "bind": {"load_balancer": "lb1", "frontend": "80.web", "name": "v4.80.web"},
    "server": {"load_balancer": "lb1", "backend": "80.web", "name": "n1.80.web"},
    "acl": {"load_balancer": "lb1", "frontend": "80.web", "name": "office"},
    "rule": {"load_balancer": "lb1", "frontend": "80.web", "name": "accept-office"},
    "ip_address": {"pool": ["127.0.10.0/24"], "owner": "web"},
    "ip_pool_info": {"pool": ["127.0.10.0/24"]},
    "service": {"name": "web", "load_balancers": ["lb1"]},
}


@pytest.mark.smoke
def test_every_module_reports_a_missing_netaddr(ansible, tmp_path):
    hidden = tmp_path / "no-netaddr"
    hidden.mkdir()
    (hidden / "netaddr.py").write_text("raise ImportError('netaddr is hidden by this test')\n")
    tasks = [{"name": module, "anxcloud.lbaas.%s" % module: OPTIONS.get(module, {}), "ignore_errors": True}
             for module in MODULES]
    # check mode: should the check ever be lost, the modules still write nothing
    run = ansible.run(tasks, check=True, play={"environment": {"PYTHONPATH": str(hidden)}})
    assert [r["task"] for r in run.records] == MODULES, run
    for module in MODULES:
        result = run.task(module)["result"]
        assert run.task(module)["status"] == "failed", (module, result)
        assert result["msg"].startswith("Failed to import the required Python library (netaddr)"), (module, result)
        assert "module_stderr" not in result and "Traceback" not in result["msg"], (module, result)
    assert ansible.engine.mutating_requests() == 0
