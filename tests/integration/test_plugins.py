"""The filter and test plugins in a real playbook against a local Engine that takes a second to deploy:
servers built from an inventory group (group_servers) go into the service module, and `until: ... is
anxcloud.lbaas.deployed` waits for objects created with wait=false."""
import pytest

from .conftest import Ansible

DELAY = 5   # seconds objects stay NewlyCreated: far longer than the two tasks between create and wait


@pytest.fixture
def engine_delays():
    return {"deploy_delay": DELAY}


@pytest.mark.smoke
def test_servers_from_a_group_and_waiting_until_deployed(slow_engine, tmp_path):
    ansible = Ansible(slow_engine, tmp_path)
    tasks = [
        {"name": "web hosts", "ansible.builtin.add_host": {"name": "{{ item.0 }}", "groups": ["web"],
                                                           "ansible_host": "{{ item.1 }}"},
         "loop": [["web1.example.com", "127.0.0.21"], ["web2.example.com", "127.0.0.22"]]},
        {"name": "servers", "ansible.builtin.set_fact": {
            "web_servers": "{{ groups['web'] | anxcloud.lbaas.group_servers(hostvars) }}"}},
        {"name": "service", "anxcloud.lbaas.service": {
            "name": "grp", "load_balancers": ["lb1"], "addresses": ["127.0.10.40"], "wait": False,
            "ports": [{"name": "http", "port": 8095, "target_port": 18095}], "servers": "{{ web_servers }}"},
         "register": "svc"},
        {"name": "not yet", "ansible.builtin.assert": {"that": ["svc is not anxcloud.lbaas.deployed",
                                                                "svc is not anxcloud.lbaas.deployment_failed"]}},
        {"name": "wait", "anxcloud.lbaas.loadbalancer_info": {"name": "lb1", "tree": True}, "register": "lb",
         "until": "lb is anxcloud.lbaas.deployed or lb is anxcloud.lbaas.deployment_failed",
         "retries": 20, "delay": 1},
        {"name": "misuse", "ansible.builtin.debug": {"msg": "{{ web_servers is anxcloud.lbaas.deployed }}"},
         "ignore_errors": True},
    ]
    run = ansible.run(tasks)
    assert run.task("servers")["result"]["ansible_facts"]["web_servers"] == [
        {"name": "web1", "address": "127.0.0.21"}, {"name": "web2", "address": "127.0.0.22"}], run
    assert sorted(a["name"] for a in run.task("service")["result"]["plan"] if a["type"] == "server") == [
        "web1.http.grp", "web2.http.grp"]
    assert run.task("not yet")["status"] == "ok", run
    waited = run.task("wait")
    assert waited["status"] == "ok", waited   # it ended deployed
    # It did wait: one attempt can only have seen the objects deployed if the deploy delay had passed
    # by then (a heavily loaded machine can take that long between the two tasks).
    created_after = run.task("service")["start"]
    assert waited["result"]["attempts"] >= 2 or waited["end"] >= created_after + DELAY, waited
    assert {s["ip"] for s in waited["result"]["load_balancers"][0]["backends"][0]["servers"]} == {
        "127.0.0.21", "127.0.0.22"}
    misuse = run.task("misuse")
    assert misuse["status"] == "failed" and "deployed: found no Engine deployment state" in misuse["result"]["msg"]
