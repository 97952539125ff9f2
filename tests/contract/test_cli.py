"""Contract: the command line of tests/engine/run (README.md)."""
import json
import re
import signal
import subprocess
import sys
import time

import pytest
import requests

from localengine.testing import RUN, LocalEngine, SilentStartWarning

from .helpers import LB1, SEED, error_of, lbaas


def run(*args, timeout=20):
    return subprocess.run([sys.executable, RUN] + list(args), capture_output=True, text=True, timeout=timeout,
                          check=False)


def started(*args):
    """(process, url) of an Engine started with these arguments, after its ready line."""
    proc = subprocess.Popen([sys.executable, RUN] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    line = proc.stdout.readline()
    assert line, proc.stderr.read()
    return proc, line.split()[-1]


def stopped(proc, sig=signal.SIGTERM):
    proc.send_signal(sig)
    rc = proc.wait(10)
    err = proc.stderr.read()
    proc.stdout.close()
    proc.stderr.close()
    return rc, err


@pytest.mark.parametrize("listen", ["0.0.0.0:0", "10.1.2.3:80", "example.com:80", "[::]:0", "[fe80::1]:0"])
def test_listening_off_loopback_is_refused(listen):
    proc = run("--listen", listen, "--token", "t")
    assert proc.returncode == 2 and "loopback addresses only" in proc.stderr


@pytest.mark.parametrize("listen", ["127.0.0.1", "127.0.0.1:http", "127.0.0.1:70000"])
def test_listen_wants_host_and_port(listen):
    proc = run("--listen", listen, "--token", "t")
    assert proc.returncode == 2 and "HOST:PORT" in proc.stderr


def test_ready_line_names_the_real_port_and_sigterm_stops_it():
    proc, url = started("--listen", "127.0.0.2:0", "--token", "t")
    assert re.match(r"^http://127\.0\.0\.2:[1-9][0-9]*$", url)
    assert requests.get(url + "/_local/requests", timeout=5).status_code == 200
    assert stopped(proc)[0] == 0


def test_sigint_stops_it_cleanly():
    proc = started("--listen", "127.0.0.1:0", "--token", "t")[0]
    rc, err = stopped(proc, signal.SIGINT)
    assert rc == 0 and "Traceback" not in err


def test_ipv6_loopback():
    proc = subprocess.Popen([sys.executable, RUN, "--listen", "[::1]:0", "--token", "t"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    if not line:
        stopped(proc)
        pytest.skip("no IPv6 loopback on this machine")
    assert line.startswith("local engine listening on http://[::1]:")
    assert requests.get(line.split()[-1] + "/_local/requests", timeout=5).json()["total"] == 0
    stopped(proc)


def test_requests_are_logged_to_stderr_unless_quiet():
    for args, logged in (((), True), (("--quiet",), False)):
        proc, url = started("--listen", "127.0.0.1:0", "--token", "t", *args)
        requests.get(url + lbaas("loadbalancer"), timeout=5)
        rc, err = stopped(proc)
        assert rc == 0 and ('"GET /api/LBaaS/v1/loadbalancer.json HTTP/1.1" 401' in err) is logged


@pytest.mark.parametrize("args, message", [
    (("--deploy-delay", "-1"), "must be >= 0"),
    (("--token", ""), "--token must not be empty"),
    (("--seed", "/nonexistent/seed.yml"), "cannot read seed"),
    (("--faults", "/nonexistent/faults.yml"), "No such file"),
])
def test_bad_options_exit_2_with_a_message(args, message):
    proc = run("--listen", "127.0.0.1:0", "--token", "t", *args)
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr


def test_bad_seed_and_fault_files_exit_2(tmp_path):
    (tmp_path / "seed.yml").write_text("loadbalancers:\n  - name: x\n    ports: 3\n")
    (tmp_path / "faults.yml").write_text("latency: -1\n")
    (tmp_path / "state.db").write_text("not a database, just text " * 100)
    for option, name, message in (("--seed", "seed.yml", "loadbalancers[0]: unknown keys ports"),
                                  ("--faults", "faults.yml", "latency must be a number >= 0"),
                                  ("--state", "state.db", "cannot use")):
        proc = run("--listen", "127.0.0.1:0", "--token", "t", option, str(tmp_path / name))
        assert proc.returncode == 2 and message in proc.stderr, proc.stderr


@pytest.mark.parametrize("name, text", [
    ("faults.yml", "script:\n  - {method: GET, status: 503}\nretry_after: 2\n"),
    ("faults.json", json.dumps({"script": [{"method": "GET", "status": 503}], "retry_after": 2})),
])
def test_initial_faults_from_a_yaml_or_json_file(tmp_path, name, text):
    (tmp_path / name).write_text(text)
    with LocalEngine(seed=SEED, extra_args=("--faults", str(tmp_path / name))) as engine:
        assert engine.admin("GET", "faults")["retry_after"] == 2
        error_of(engine.api("GET", lbaas("loadbalancer", LB1)), 503)
        assert engine.api("GET", lbaas("loadbalancer", LB1)).status_code == 200


def test_local_engine_reports_a_failed_start():
    with pytest.raises(RuntimeError, match="(?s)did not start .exit 2.*loopback addresses only"):
        LocalEngine(extra_args=("--listen", "10.0.0.1:0")).start()


def test_local_engine_start_is_bounded_and_a_silent_one_says_where_it_hung(tmp_path):
    """A start silent until its deadline is tried once more (a SilentStartWarning), then fails; each hung process
    dumps its stacks (faulthandler on SIGABRT), which the warning and the failure quote: here the sleep."""
    sleeper = tmp_path / "sleeper.py"
    sleeper.write_text("import time\ntime.sleep(30)\n")
    engine = LocalEngine()
    engine.args = [sys.executable, str(sleeper)]
    began = time.monotonic()
    with pytest.warns(SilentStartWarning, match="printed nothing within 0.5s") as warned:
        with pytest.raises(RuntimeError, match="timeout") as failed:
            engine.start(timeout=0.5)
    assert time.monotonic() - began < 10
    where = 'File "%s", line 2 in <module>' % sleeper
    assert where in str(warned[0].message)
    assert str(failed.value).count(where) == 2   # both starts' stacks: the retry's and the first one's


LENIENT = {"put": "merge", "deploy_on": "change", "tag_match": "substring", "tag_names": "any", "tag_delete": "refuse",
           "full_listings": "honour", "put_enable": "keep"}


def test_behaviour_options_on_the_command_line_survive_a_reset():
    flags = sum((["--" + name.replace("_", "-"), value] for name, value in LENIENT.items()), [])
    with LocalEngine(seed=SEED, extra_args=flags) as engine:
        assert engine.options() == LENIENT
        engine.set_options(tag_match="prefix")
        engine.reset()
        assert engine.options() == LENIENT   # reset restores the command line, not the defaults


def test_behaviour_options_as_keyword_arguments():
    with LocalEngine(tag_match="casefold", put=None) as engine:
        assert engine.options() == {"put": "replace", "deploy_on": "state0", "tag_match": "casefold",
                                    "tag_names": "strict", "tag_delete": "detach", "full_listings": "ignore",
                                    "put_enable": "reset"}
    with pytest.raises(TypeError, match="unknown option 'colour'"):
        LocalEngine(colour="blue")


@pytest.mark.parametrize("args", [("--tag-match", "fuzzy"), ("--put", "patch"), ("--deploy-on", "always"),
                                  ("--full-listings", "always")])
def test_unknown_option_values_exit_2_naming_the_option(args):
    proc = run("--listen", "127.0.0.1:0", "--token", "t", *args)
    assert proc.returncode == 2 and "argument %s: invalid choice" % args[0] in proc.stderr
