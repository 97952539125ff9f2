"""Every module's documentation renders with ansible-doc, and every module is in the action group."""
import os
import subprocess
import sys

import pytest
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODULES = sorted(f[:-3] for f in os.listdir(os.path.join(ROOT, "plugins", "modules")) if f.endswith(".py"))


def test_every_module_is_in_the_action_group():
    with open(os.path.join(ROOT, "meta", "runtime.yml")) as handle:
        assert sorted(yaml.safe_load(handle)["action_groups"]["lbaas"]) == MODULES


@pytest.mark.parametrize("module", MODULES)
def test_docs_render(module, ansible):
    proc = subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-doc"), "anxcloud.lbaas." + module],
                          env=ansible.env(), capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "api_token" in proc.stdout and "EXAMPLES" in proc.stdout and "RETURN VALUES" in proc.stdout
