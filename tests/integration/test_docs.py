"""Every module, filter, test and role documents itself for ansible-doc (rendered as text, one ansible-doc run per
plugin type), lists its Python requirements, and every module is in the action group."""
import os
import re
import subprocess
import sys

import pytest
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def names(kind):
    folder = os.path.join(ROOT, "plugins", kind)
    return sorted(f[:-4] for f in os.listdir(folder) if f.endswith(".yml")) if kind in ("filter", "test") else \
        sorted(f[:-3] for f in os.listdir(folder) if f.endswith(".py"))


MODULES = names("modules")
KINDS = {"module": MODULES, "filter": names("filter"), "test": names("test"),
         "role": sorted(os.listdir(os.path.join(ROOT, "roles")))}


def test_every_module_is_in_the_action_group():
    with open(os.path.join(ROOT, "meta", "runtime.yml")) as handle:
        assert sorted(yaml.safe_load(handle)["action_groups"]["lbaas"]) == MODULES


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_docs_render(kind, ansible):
    plugins = ["anxcloud.lbaas." + name for name in KINDS[kind]]
    assert plugins
    proc = subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-doc"), "-t", kind] + plugins,
                          env=ansible.env(), capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0 and "WARNING" not in proc.stderr and "ERROR" not in proc.stderr, proc.stderr
    # the page layout differs between ansible-core versions (bold, *name*, upper case): compare loosely
    text = re.sub(r"\x1b\[[0-9;]*m", "", proc.stdout)
    for plugin in plugins:
        assert plugin in text.lower(), plugin
    if kind == "module":   # one page per module, each with examples, return values and its requirements
        for marker in ("EXAMPLES", "RETURN VALUES", "api_token", "netaddr", "requests"):
            assert text.count(marker) >= len(plugins), marker
    # markup escapes that leak into the page (a C(...) holding a parenthesis renders as "shop\')")
    assert not re.findall(r"\\['\")]", text), re.findall(r".{30}\\['\")].{10}", text)
    if kind == "role":
        assert re.search(r"ENTRY POINT: \*?main\b", text) and re.search(r"ENTRY POINT: \*?service_declaration\b", text)
