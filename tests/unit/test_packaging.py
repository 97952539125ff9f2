"""Packaging facts that must not drift: the version is written once (galaxy.yml) and the module_utils copy
(sent as User-Agent and recorded in the last-reconciled marker) matches it; every plugin and role says
since when it exists, which the changelog's "New Modules/Plugins/Roles" lists are built from."""
import glob
import os

import yaml

from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._version import COLLECTION_NAME, COLLECTION_VERSION

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load(path):
    with open(os.path.join(ROOT, path)) as handle:
        return yaml.safe_load(handle)


def test_version_is_the_one_in_galaxy_yml():
    galaxy = load("galaxy.yml")
    assert COLLECTION_NAME == "%s.%s" % (galaxy["namespace"], galaxy["name"])
    assert COLLECTION_VERSION == galaxy["version"], (
        "plugins/module_utils/_engine/_version.py says %s, galaxy.yml says %s: set COLLECTION_VERSION to galaxy.yml's version"
        % (COLLECTION_VERSION, galaxy["version"]))


def plugin_docs():
    for path in sorted(glob.glob(os.path.join(ROOT, "plugins", "*", "*.py"))
                       + glob.glob(os.path.join(ROOT, "plugins", "*", "*.yml"))):
        kind = os.path.basename(os.path.dirname(path))
        if kind in ("module_utils", "doc_fragments"):
            continue
        with open(path) as handle:
            text = handle.read()
        if path.endswith(".yml"):
            yield path, yaml.safe_load(text)["DOCUMENTATION"]
        elif "DOCUMENTATION = r" in text:
            yield path, yaml.safe_load(text.split('DOCUMENTATION = r"""', 1)[1].split('"""', 1)[0])


def test_every_plugin_and_role_has_version_added():
    galaxy = load("galaxy.yml")
    seen = 0
    for path, doc in plugin_docs():
        seen += 1
        assert doc.get("version_added"), "%s: DOCUMENTATION has no version_added" % path
        assert tuple(map(int, str(doc["version_added"]).split("."))) <= tuple(map(int, galaxy["version"].split("."))), path
    assert seen >= 12
    for spec in glob.glob(os.path.join(ROOT, "roles", "*", "meta", "argument_specs.yml")):
        for entry, doc in load(spec)["argument_specs"].items():
            assert doc.get("version_added"), "%s: entry point %s has no version_added" % (spec, entry)


def test_role_has_readme_and_galaxy_metadata_is_complete():
    galaxy = load("galaxy.yml")
    for key in ("repository", "documentation", "homepage", "issues", "tags", "license", "description"):
        assert galaxy.get(key), "galaxy.yml: %s is empty" % key
    assert galaxy["dependencies"] == {}
    for role in glob.glob(os.path.join(ROOT, "roles", "*")):
        assert os.path.isfile(os.path.join(role, "README.md")), "%s has no README.md (Galaxy refuses the import)" % role


def test_the_readme_module_table_lists_every_module_once():
    """A module missing from README.md's table is one a reader of the front page never learns of (acl, acl_info,
    rule and rule_info were missing: issue 43)."""
    with open(os.path.join(ROOT, "README.md")) as handle:
        rows = [line for line in handle if line.startswith("| `")]
    named = [name for row in rows for name in row.split("|")[1].replace("`", "").replace(",", " ").split()]
    modules = sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(ROOT, "plugins", "modules", "*.py")))
    assert sorted(named) == modules


# What users read to run the collection's playbooks (docs/benchmarks.md is the developers': it runs the checkout's).
USER_DOCS = ["README.md", "docs/user-guide.md", "docs/fleet.md", "docs/garbage-collection.md"] + sorted(
    os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "roles", "*", "README.md"))
    + glob.glob(os.path.join(ROOT, "playbooks", "*.yml")))


def test_the_user_docs_run_playbooks_by_their_installed_name_not_a_checkout_path():
    """Issue 43: the fleet docs and the role README said playbooks/service_fleet.yml, a path only a checkout has; an
    installed collection's playbook runs as anxcloud.lbaas.<name> (and a project imports it by that name)."""
    import re
    playbooks = set(os.path.basename(p)[:-4] for p in glob.glob(os.path.join(ROOT, "playbooks", "*.yml")))
    named = 0
    for path in USER_DOCS:
        with open(os.path.join(ROOT, path)) as handle:
            text = handle.read()
        assert not re.findall(r"playbooks/[a-z_]+\.yml|playbook `[a-z_]+\.yml`", text), (
            "%s names a playbook by its checkout path" % path)
        for name in re.findall(r"(?:ansible-playbook|import_playbook:)[^\n`]*?\banxcloud\.lbaas\.(\w+)", text):
            assert name in playbooks, "%s runs anxcloud.lbaas.%s, which is no playbook of the collection" % (path, name)
            named += 1
    assert named >= 10
