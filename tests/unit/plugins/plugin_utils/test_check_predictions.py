"""The action side of check mode across tasks (plugin_utils/_check_predictions.py): where a host's record is
kept between tasks. The whole round trip through ansible-playbook is tests/integration/test_check_across_tasks.py."""
import os

from ansible_collections.anxcloud.lbaas.plugins.plugin_utils._check_predictions import PredictionStore, plain, quiet

RECORDS = [{"api_url": "http://127.0.0.1:1", "allocated": [{"owner": "one"}]}]


def test_no_record_yet(tmp_path):
    assert PredictionStore("localhost", root=str(tmp_path / "none")).load() == []


def test_a_record_round_trips_per_host(tmp_path):
    one, two = PredictionStore("localhost", root=str(tmp_path)), PredictionStore("web-1", root=str(tmp_path))
    one.save(RECORDS)
    assert one.load() == RECORDS and two.load() == []
    one.save(RECORDS + RECORDS)   # replaced whole, no partial file left beside it
    assert one.load() == RECORDS + RECORDS
    assert [p for p in os.listdir(str(tmp_path)) if p.endswith(".part")] == []
    one.clear()
    one.clear()   # clearing what is not there is no error
    assert one.load() == []


def test_any_host_name_is_one_file_in_the_store(tmp_path):
    store = PredictionStore("../../etc/passwd host:22/x", root=str(tmp_path))
    assert os.path.dirname(store.path) == str(tmp_path)


def test_a_damaged_record_counts_as_none(tmp_path):
    store = PredictionStore("localhost", root=str(tmp_path))
    store.save(RECORDS)
    with open(store.path, "w") as handle:
        handle.write("{not json")
    assert store.load() == []


def test_the_store_is_in_the_controllers_temporary_directory():
    """Made once per ansible-playbook process before the workers fork, removed when it ends."""
    from ansible import constants as C   # pylint: disable=import-outside-toplevel
    assert PredictionStore("localhost").path.startswith(os.path.join(C.DEFAULT_LOCAL_TMP, ""))


def test_plain_data():
    class Text(str):
        pass
    assert plain({Text("a"): [Text("b"), 1, 2.5, True, None, (3,)]}) == {"a": ["b", 1, 2.5, True, None, [3]]}
    assert type(plain([Text("b")])[0]) is str  # pylint: disable=unidiomatic-typecheck  # exactly str, not a subclass


def test_a_result_is_left_out_below_the_verbosity_its_task_names():
    assert quiet(3, 0) and quiet(3, 2) and quiet("3", 1)
    assert not quiet(3, 3) and not quiet(None, 0) and not quiet("loud", 0)
