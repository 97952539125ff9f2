"""The action side of check mode across tasks (plugin_utils/_check_predictions.py): which record a task
starts from. The whole round trip through ansible-playbook is tests/integration/test_check_across_tasks.py."""
from ansible_collections.anxcloud.lbaas.plugins.plugin_utils._check_predictions import FACT, latest, plain, run_id


class Task:
    def __init__(self, uuid):
        self._uuid = uuid


def record(run, seq, owner):
    return {"run": run, "seq": seq, "records": [{"api_url": "http://127.0.0.1:1", "allocated": [{"owner": owner}]}]}


def test_every_task_of_a_run_shares_the_run_id_and_the_next_run_differs():
    assert run_id(Task("02fc0000-0001-5741-bdcf-000000000012")) == run_id(Task("02fc0000-0001-5741-bdcf-0000000000a0"))
    assert run_id(Task("02fc0000-0001-5741-bdcf-000000000012")) != run_id(Task("02fc0000-0001-9e1c-0b2a-000000000012"))


def test_no_record_yet():
    assert latest({}, "run") == {}
    assert latest({"ansible_facts": {}}, "run") == {}


def test_a_record_of_another_run_is_ignored():
    """A persistent fact cache hands the last run's record to the next one: it must not count."""
    assert latest({"ansible_facts": {FACT: record("old", 7, "one")}}, "new") == {}


def test_the_newest_of_the_places_a_record_can_be_in():
    """Host fact (earlier tasks), the executor's nested ansible_facts and the injected variable (earlier
    items of a loop): the highest seq of this run wins."""
    host = record("run", 1, "one")
    item = record("run", 2, "two")
    task_vars = {"ansible_facts": {FACT: host, "ansible_facts": {FACT: item}}, FACT: item}
    assert latest(task_vars, "run") == item
    assert latest({"ansible_facts": {FACT: host}, FACT: record("old", 9, "x")}, "run") == host


def test_plain_data():
    class Text(str):
        pass
    assert plain({Text("a"): [Text("b"), 1, 2.5, True, None, (3,)]}) == {"a": ["b", 1, 2.5, True, None, [3]]}
    assert type(plain([Text("b")])[0]) is str  # pylint: disable=unidiomatic-typecheck  # exactly str, not a subclass
