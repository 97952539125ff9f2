"""dnspython is loaded only by the runs that compare DNS records (issue 28, point 5): the service without ``dns``,
service_info and gc without ``dns_zones``, and the LBaaS modules run without ever importing it. The module
processes find a ``dns`` first on their PYTHONPATH that notes its import in a file (and then refuses, as a missing
dnspython would); the runs must succeed and leave the note unwritten. A service with ``dns`` proves the trap works."""
import pytest

SERVICE = {"name": "web", "load_balancers": ["lb1"], "ports": [{"name": "http", "port": 8080}],
           "addresses": ["127.0.10.5"], "servers": [{"name": "n1", "address": "10.0.0.1"}]}


@pytest.fixture
def trap(tmp_path):
    hidden = tmp_path / "trap"
    hidden.mkdir()
    note = tmp_path / "dns-imported"
    (hidden / "dns.py").write_text("open(%r, 'a').write('imported\\n')\nraise ImportError('dnspython is a trap here')\n" % str(note))
    return hidden, note


def test_runs_without_dns_never_import_dnspython(fresh_module, trap):
    hidden, note = trap
    runs = [("service", SERVICE, False), ("service", SERVICE, False), ("service_info", {"names": ["web"]}, False),
            ("gc", {"keep": ["web"]}, True), ("frontend_info", {"load_balancer": "lb1"}, False),
            ("backend", {"load_balancer": "lb1", "name": "own", "mode": "tcp"}, False)]
    for name, args, check in runs:
        run = fresh_module(name, args, check=check, pythonpath=hidden)
        assert not run.failed, (name, run)
        assert not note.exists(), (name, run)
    assert fresh_module.engine.mutating_requests() > 0   # real runs that wrote, not refusals


def test_the_trap_catches_a_run_that_needs_dnspython(fresh_module, trap):
    # and those runs report the missing library by Ansible's message, before any request
    hidden, note = trap
    for name, args in [("service", dict(SERVICE, dns={"zone": "local.test", "name": "web"})),
                       ("service_info", {"dns_zones": ["local.test"]}), ("gc", {"keep": ["web"], "dns_zones": ["local.test"]})]:
        run = fresh_module(name, args, check=True, pythonpath=hidden)
        assert run.failed and run.result["msg"].startswith("Failed to import the required Python library (dnspython)"), run
        assert run.requests(fresh_module.engine) == [], run
    assert note.exists()
