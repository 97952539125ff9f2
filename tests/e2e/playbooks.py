"""The collection's playbooks (playbooks/) as a user runs them against a local Engine: ansible-playbook with a vars
file that declares lbaas_services, run by the integration harness (tests/integration/conftest.py: its environment,
its record callback, the session's shared module payloads).

``run`` is one ansible-playbook run: what needs a run of its own, as the ``--check --diff`` preview does (the roles
word their check mode from ``ansible_check_mode``, which only --check sets; a play's ``check_mode`` does not).
``session`` is several runs of the playbooks as the plays of ONE ansible-playbook run, played one at a time
(the harness's ``Session``): the test acts on the Engine, the backends and HAProxy between two plays as it would
between two runs, and the plays pay one start-up of ansible-playbook instead of one each. Each play is the
playbook itself (``import_playbook``), its lbaas_vars_file a play variable instead of ``-e``."""
import os

import yaml
from localengine.testing import MUTATING

from ..conftest import ROOT
from ..integration.conftest import Ansible, Session

SERVICES = os.path.join(ROOT, "playbooks", "service_loadbalancer.yml")
GC = os.path.join(ROOT, "playbooks", "garbage_collection.yml")


def writes(engine):
    """How many mutating requests the Engine got since its request log was last reset."""
    return sum(n for method, n in engine.requests()["by_method"].items() if method in MUTATING)


class Playbooks:
    def __init__(self, engine, tmp_path):
        self.engine = engine
        self.ansible = Ansible(engine, tmp_path)
        self.sessions = []

    def vars_file(self, declared):
        """A vars file declaring ``declared`` (a service, or a list of them: the live set); its path."""
        self.ansible.count += 1
        path = self.ansible.tmp_path / ("vars%d.yml" % self.ansible.count)
        path.write_text(yaml.safe_dump({"lbaas_services": declared if isinstance(declared, list) else [declared]}))
        return str(path)

    def run(self, declared, *args, path=SERVICES, output=False):
        """One run of playbook ``path`` (service_loadbalancer.yml unless given) for a vars file declaring ``declared``,
        with ansible-playbook's ``args``; the Engine's writes during the run (and, with ``output``, the run's ``Run``
        first: its output, stdout then stderr where the controller prints warnings, and its tasks' results)."""
        self.engine.reset_requests()
        done = self.ansible.playbook(path, extra_args=["-e", "lbaas_vars_file=%s" % self.vars_file(declared)] + list(args))
        assert done.rc == 0, done
        return (done, writes(self.engine)) if output else writes(self.engine)

    def session(self, *plays):
        """One ansible-playbook run whose plays are ``plays``, (declared, playbook path, extra play variables) each;
        ``Plays.play()`` plays the next one."""
        session = Plays(self, plays)
        self.sessions.append(session)
        return session

    # what Session asks of its harness: a playbook of the plays, a record file and environment, the command
    def write(self, plays):
        """A playbook importing each play's playbook with its vars file (and extra variables) as play variables."""
        self.ansible.count += 1
        path = self.ansible.tmp_path / ("plays%d.yml" % self.ansible.count)
        path.write_text(yaml.safe_dump([{"import_playbook": playbook, "vars": dict(extra, lbaas_vars_file=self.vars_file(declared))}
                                        for declared, playbook, extra in plays], sort_keys=False))
        return str(path)

    def recorded(self):
        return self.ansible.recorded()

    def command(self, *paths):
        return self.ansible.command(*paths)

    def close(self):
        for session in self.sessions:
            session.close()


class Plays(Session):
    """A ``Session`` of the playbooks of playbooks/ (``Playbooks.session``)."""

    def __init__(self, playbooks, plays):
        self.engine = playbooks.engine
        super().__init__(playbooks, [playbooks.write(plays)], len(plays))

    def play(self):
        """Plays the next play; the Engine's writes during it. The play must have run every task it reached without
        a failure, and the run must have ended well after its last play."""
        self.engine.reset_requests()
        played = self.next()
        assert played.records and not any(r["status"] == "failed" for r in played.records), played
        assert self.played < self.plays or played.rc == 0, played
        return writes(self.engine)
