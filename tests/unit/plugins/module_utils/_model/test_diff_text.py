import json

import yaml

from ansible_collections.anxcloud.lbaas.plugins.module_utils._model import _diff_text
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._diff_text import as_text, drop_unset, readable_diff

TREE = {"lb1": {"backends": [{"name": "http.web", "server_timeout": None, "owner": "web",
                              "servers": [{"name": "n1.http.web", "ssl": None, "port": 80}]}], "frontends": []}}


def test_unset_keys_go_at_every_depth_and_empty_lists_stay():
    assert drop_unset(TREE) == {"lb1": {"backends": [{"name": "http.web", "owner": "web",
                                                      "servers": [{"name": "n1.http.web", "port": 80}]}], "frontends": []}}


def test_a_side_is_yaml_text_in_the_modules_key_order():
    text = as_text(TREE)
    assert yaml.safe_load(text) == drop_unset(TREE)
    assert text.splitlines()[:4] == ["lb1:", "  backends:", "  - name: http.web", "    owner: web"]
    assert "null" not in text and "server_timeout" not in text


def test_without_pyyaml_a_side_is_json_text(monkeypatch):
    monkeypatch.setattr(_diff_text, "HAS_YAML", False)
    assert json.loads(as_text(TREE)) == drop_unset(TREE)


def test_readable_diff_renders_both_sides_once_and_leaves_other_keys():
    result = {"changed": True, "objects": TREE, "diff": {"before": {}, "after": TREE}}
    readable_diff(result)
    assert result["diff"] == {"before": "{}\n", "after": as_text(TREE)}
    assert result["objects"] is TREE   # the structured data stays
    assert readable_diff(dict(result))["diff"] == result["diff"]   # already text: unchanged
    assert readable_diff({"changed": False}) == {"changed": False}
