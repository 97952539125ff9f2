"""Shared pytest set-up: the collection importable as ``ansible_collections.anxcloud.lbaas`` and a
local Engine (real HTTP on loopback) for every suite that needs one."""
import os
import shutil
import subprocess
import sys
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COLLECTIONS = subprocess.check_output([os.path.join(ROOT, "scripts", "collection-path.sh")], text=True).strip()
for path in (COLLECTIONS, os.path.join(ROOT, "tests", "engine")):
    if path not in sys.path:
        sys.path.insert(0, path)

from localengine.testing import LocalEngine  # noqa: E402  (needs the path above)

DEFAULT_SEED = os.path.join(ROOT, "tests", "engine", "seeds", "default.yml")
# ansible-playbook's controller polls its workers every ANSIBLE_INTERNAL_POLL_INTERVAL seconds (default 0.001)
# while a module runs; Ansible's configuration docs suggest a higher value where CPU matters more than UI
# responsiveness. The playbook runs of the tests mostly wait for modules: 0.01 took 3.6 % off the CPU time
# of the gc role and fault soak tests (measured), and adds at most 10 ms to a task.
os.environ.setdefault("ANSIBLE_INTERNAL_POLL_INTERVAL", "0.01")
# What a test's ansible-playbook run adds to its environment so that the runs of the session share the module
# payloads ansible-core builds (tests/integration/callback_plugins/shared_ansiballz.py): ansible-core keeps them
# per process and built each again in every run, 0.2-0.45 s of CPU per module and run. ANXLB_ANSIBALLZ_CACHE
# names a directory that lives only as long as the session (pytest_configure).
SHARED_PAYLOADS = {"ANSIBLE_CALLBACK_PLUGINS": os.path.join(ROOT, "tests", "integration", "callback_plugins"),
                   "ANSIBLE_CALLBACKS_ENABLED": "shared_ansiballz"}
_PAYLOADS = pytest.StashKey()


def pytest_configure(config):
    # made by the process that starts the xdist workers, which inherit it: one build per module and session
    if "ANXLB_ANSIBALLZ_CACHE" not in os.environ:
        config.stash[_PAYLOADS] = os.environ["ANXLB_ANSIBALLZ_CACHE"] = tempfile.mkdtemp(prefix="anxlb-ansiballz-")


def pytest_unconfigure(config):
    made = config.stash.get(_PAYLOADS, None)
    if made:
        shutil.rmtree(made, ignore_errors=True)
        del os.environ["ANXLB_ANSIBALLZ_CACHE"]


@pytest.fixture(scope="session")
def local_engine():
    """One local Engine for the whole session, seeded with tests/engine/seeds/default.yml."""
    with LocalEngine(seed=DEFAULT_SEED) as engine:
        yield engine


@pytest.fixture
def engine(local_engine):
    """The session's local Engine, wiped and reseeded (state, request log, faults) for this test."""
    local_engine.reset()
    yield local_engine


@pytest.fixture(scope="session")
def slow_local_engines():
    """Local Engines with deployment delays, one per set of delays, each started when first asked for."""
    started = {}
    yield started
    for engine in started.values():
        engine.stop()


@pytest.fixture
def engine_delays():
    """The delays (LocalEngine keyword arguments, seconds) of ``slow_engine``; a test module or directory
    that needs others overrides this fixture."""
    return {"deploy_delay": 0.3, "update_delay": 0.3, "delete_delay": 0.3}


@pytest.fixture
def slow_engine(slow_local_engines, engine_delays):
    """A local Engine whose deployments (and deletions) take ``engine_delays``, wiped and reseeded for this
    test; one per set of delays for the session."""
    key = tuple(sorted(engine_delays.items()))
    if key not in slow_local_engines:
        slow_local_engines[key] = LocalEngine(seed=DEFAULT_SEED, **engine_delays).start()
    engine = slow_local_engines[key]
    engine.reset()
    return engine


# Seconds the longest tests take on a 2-core machine under `make test` (1.5 times what each took in a pytest run
# alone, stop 37: every test over 8 s then); every other test is estimated by its suite, on the same scale (the
# suite's mean, times 1.5). Only the order of the run depends on these, but a long test missing here is dealt
# late, as a 2-second one, and the others' workers then idle while it ends the run (stop 37 measured 35 core-s of
# idle in the last minute of a fresh-clone make test).
EXPECTED = {
    "test_fault_soak.py::test_fault_soak": 140,
    "test_check_across_tasks.py::test_check_mode_predicts_across_tasks_what_the_real_play_does": 77,
    "test_role_playbook.py::test_the_playbook_previews_applies_reruns_shrinks_and_removes": 75,
    "test_traffic.py::test_a_service_carries_traffic_from_plan_to_removal": 72,
    "test_gc_roles.py::test_a_dropped_family_and_an_absent_service_without_its_pool_leave_no_address_and_prune_collects": 71,
    "test_user_guide.py::test_the_guide_runs_as_written": 71,
    "test_gc_roles.py::test_from_shop_and_api_to_shop_with_distinct_predicted_addresses_and_the_inventory": 66,
    "test_live_sets.py::test_a_renamed_service_is_named_with_its_address_and_prune_keeps_the_extra_live_owners": 64,
    "test_service_dns.py::test_the_role_names_its_pool_address_after_the_service_with_dns_rdns": 52,
    "test_acl_rule_modules.py::test_check_mode_predicts_across_a_plays_tasks_as_the_real_run_does": 51,
    "test_dns_check_across_tasks.py::test_dns_predictions_are_seen_by_later_tasks_and_nothing_is_written": 50,
    "test_traffic_by_name.py::test_a_service_is_reached_by_its_name": 45,
    "test_gc_safety.py::test_five_owners_preview_cap_typo_and_collection_as_ansible_playbook_prints_them": 39,
    "test_role_playbook.py::test_services_of_an_extra_vars_file_are_removed_one_at_a_time": 34,
    "test_live_sets.py::test_empty_unset_or_misspelt_live_sets_are_refused_before_any_write": 26,
    "test_service_output.py::test_the_roles_verbose_check_mode_output_of_the_guides_two_services_is_short": 24,
    "test_ip_address.py::test_owners_allocating_at_the_same_time_get_different_addresses": 23,
    "test_dns_record.py::test_the_user_guides_record_by_hand_runs_as_written": 21,
    "test_role_playbook.py::test_the_role_leaves_wait_timeout_to_module_defaults_unless_set": 20,
    "test_ip_address_rdns.py::test_rdns_name_predicted_across_tasks_of_a_check_mode_play": 20,
    "test_service_output.py::test_the_diff_of_a_three_by_three_by_two_service_is_a_short_tree_with_the_summary_on_top": 18,
    "test_plugins.py::test_servers_from_a_group_and_waiting_until_deployed": 17,
    "test_role_playbook.py::test_the_playbook_takes_a_relative_vars_file_from_the_working_directory": 17,
    "test_service_allow_sources.py::test_another_owners_accept_rule_lets_a_refused_source_in_and_the_run_says_so": 16,
    "test_dns_record.py::test_module_defaults_of_the_group_and_a_zone_being_deployed": 14,
    "test_input_errors.py::test_the_role_takes_structured_health_checks_and_a_boolean_check_as_the_module_does": 14,
    "test_info_modules.py::test_group_module_defaults_with_wait_reach_the_modules_through_the_controller": 13,
    "test_role_playbook.py::test_the_role_takes_auth_from_module_defaults": 13,
    "test_teardown_results.py::test_input_that_cannot_be_right_is_refused_before_any_request": 13,
    "test_wire.py::test_every_update_and_redeploy_is_a_whole_object_put_with_state_0": 13,
    "test_gc.py::test_an_owner_dropped_from_the_live_set_goes_and_nothing_else_is_written": 13,
    "test_input_errors.py::test_connection_errors_name_the_url_and_the_fix_and_plain_http_skips_proxies": 12,
}
SUITE_SECONDS = {"integration": 2.5, "e2e": 4.5, "contract": 0.25}


def expected_seconds(item):
    nodeid = item.nodeid
    for key, seconds in EXPECTED.items():
        if key in nodeid:
            return seconds
    parts = nodeid.split("/")
    return SUITE_SECONDS.get(parts[1] if len(parts) > 2 and parts[0] == "tests" else "", 0.05)


def blocks(count, workers):
    """The sizes of the blocks pytest-xdist's worksteal scheduler first hands to ``workers`` idle workers
    (xdist/scheduler/worksteal.py: each gets len(pending) // workers-left, from the front)."""
    sizes, left = [], count
    for i in range(workers):
        sizes.append(left // (workers - i))
        left -= sizes[-1]
    return sizes


def pytest_collection_modifyitems(config, items):
    """The longest tests first (the fault soak alone takes over a minute), so no worker ends with a long
    test while the others wait. Under ``--dist worksteal`` each worker first gets a contiguous block of the
    list and later work is stolen from the blocks' ends: the tests are dealt longest first to the block
    with the least expected time that still has room, each block in the order longest first."""
    estimate = dict((item.nodeid, expected_seconds(item)) for item in items)
    ranked = sorted(items, key=lambda item: -estimate[item.nodeid])   # stable: ties keep collection order
    worker = getattr(config, "workerinput", {})   # on an xdist worker: the controller's count and argv
    workers = worker.get("workercount", 1)
    argv = worker.get("mainargv", [])
    if workers <= 1 or not ("worksteal" in argv or "--dist=worksteal" in argv):
        items[:] = ranked
        return
    sizes = blocks(len(ranked), workers)
    dealt = [[] for _size in sizes]
    load = [0.0] * len(sizes)
    for item in ranked:
        room = [i for i in range(len(sizes)) if len(dealt[i]) < sizes[i]]
        target = min(room, key=lambda i: (load[i], i))
        dealt[target].append(item)
        load[target] += estimate[item.nodeid]
    items[:] = [item for block in dealt for item in block]


SUMMARIES = []


def pytest_runtest_logreport(report):
    """Collects what tests record as ``summary`` (record_property), from xdist workers too."""
    SUMMARIES.extend(value for key, value in report.user_properties if key == "summary" and report.when == "call")


def pytest_terminal_summary(terminalreporter):
    for text in SUMMARIES:
        terminalreporter.write_line(text)
