"""Timeouts as users write them become the Engine's milliseconds; what looks like seconds is told."""
import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._durations import to_ms
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._failure import Failure
from ansible_collections.anxcloud.lbaas.plugins.module_utils._service._declaration import build, warnings


@pytest.mark.parametrize("value, ms", [(30000, 30000), ("30000", 30000), ("30s", 30000), ("500ms", 500),
                                       ("5m", 300000), ("1h", 3600000), (" 2s ", 2000), (0, 0), (None, None)])
def test_forms(value, ms):
    assert to_ms(value, "server_timeout")[0] == ms


@pytest.mark.parametrize("value", ["30 seconds", "1.5s", "-1", "s", True, 1.5, [30]])
def test_refused_forms_name_the_option(value):
    with pytest.raises(Failure) as err:
        to_ms(value, "ports[0].server_timeout")
    assert err.value.msg.startswith("ports[0].server_timeout must be milliseconds or a duration like 30s or 500ms")


def test_a_bare_number_below_a_second_is_warned_about():
    assert to_ms(30, "server_timeout") == (30, "server_timeout: 30 is 30 milliseconds; write 30s if you meant seconds")
    assert to_ms("30s", "server_timeout")[1] is None and to_ms(1000, "server_timeout")[1] is None


def test_service_ports_take_durations():
    service = {"name": "web", "ports": [{"name": "a", "port": 80, "server_timeout": "30s", "client_timeout": "1m"},
                                        {"name": "b", "port": 81, "server_timeout": 30}]}
    d = build(service)
    assert d.by_kind["backend"]["a"]["server_timeout"] == 30000 and d.by_kind["frontend"]["a"]["client_timeout"] == "60000"
    assert warnings(service) == ["ports[1].server_timeout: 30 is 30 milliseconds; write 30s if you meant seconds"]
