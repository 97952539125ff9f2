"""The deployed and deployment_failed tests on module results, objects, lists and states."""
import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.anxcloud.lbaas.plugins.test.engine_states import deployed, deployment_failed


def lb_info(*states):
    """A loadbalancer_info result with a tree whose servers are in ``states``."""
    servers = [{"name": "n%d" % i, "state": s} for i, s in enumerate(states)]
    return {"changed": False, "invocation": {"module_args": {"name": "lb1", "state": "Deployed"}},
            "load_balancers": [{"name": "lb1", "state": "Deployed",
                                "backends": [{"name": "80.web", "state": "Deployed", "servers": servers}],
                                "frontends": []}]}


def test_every_state_must_be_ok():
    assert deployed(lb_info("Deployed", "Updated"))
    assert not deployed(lb_info("Deployed", "NewlyCreated"))
    assert not deployed(lb_info("Updating"))
    assert not deployed(lb_info("DeploymentError"))


def test_deployment_failed_when_any_state_is_an_error():
    assert deployment_failed(lb_info("Deployed", "DeploymentError"))
    assert not deployment_failed(lb_info("NewlyCreated", "Deployed"))


def test_single_objects_states_and_engine_state_dicts():
    assert deployed({"backend": {"id": "x", "state": "Deployed"}, "plan": [{"state": "NewlyCreated"}]})
    assert deployed("Updated") and not deployed("NewlyCreated") and deployment_failed("DeploymentError")
    assert deployed([{"state": {"id": "3", "text": "Deployed", "type": 1}}])
    assert not deployed([{"state": {"id": "4", "text": "NewlyCreated", "type": 2}}])


def test_task_arguments_are_not_engine_states():
    # state: present in the echoed arguments, the diff and the plan are the task's, not the Engine's
    result = {"invocation": {"module_args": {"state": "present"}}, "diff": {"after": {"state": "NewlyCreated"}},
              "server": {"state": "Deployed"}}
    assert deployed(result)


@pytest.mark.parametrize("value", [{"changed": False}, [], "present", {"results": [{"state": "present"}]}])
def test_a_value_without_states_is_an_error_not_false(value):
    with pytest.raises(AnsibleFilterError) as caught:
        deployed(value)
    assert "deployed:" in str(caught.value)
    assert "deployment state" in str(caught.value)
