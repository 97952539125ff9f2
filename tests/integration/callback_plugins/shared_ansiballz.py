# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Test-only callback: lets the tests' ansible-playbook runs share ansible-core's own cache of built module
payloads (AnsiballZ), which ansible-core keeps in a directory of each process's temporary directory and so
builds again in every run. With $ANXLB_ANSIBALLZ_CACHE set, that directory becomes a link to a directory
under it, one per ansible-core version. ansible-core builds each payload once under a file lock and writes
it whole (its own code, made for the worker processes of one run); a later run reads it back as a worker
would. The cache key is the module's name, so the directory must live no longer than a test session, in
which the collection's code does not change (tests/conftest.py makes a new one per session), and a run on
another collections path gets a directory of its own.

What it relies on and why that is not patching a tool: a documented extension point (a callback plugin, loaded
by ansible-core's own configuration) and a documented setting (DEFAULT_LOCAL_TMP, ANSIBLE_LOCAL_TEMP); no
function of ansible-core or of Python is replaced, and the modules run are the payloads ansible-core builds,
byte for byte what it builds in a user's run. The name of the cache directory inside DEFAULT_LOCAL_TMP is
ansible-core's own choice: should a version name it otherwise, the link is never read and every run builds its
own payloads again, slower and no less right (tests/integration/test_harness.py then fails, saying so)."""

import hashlib
import os

from ansible import constants as C
from ansible.plugins.callback import CallbackBase
from ansible.release import __version__

DOCUMENTATION = r"""
name: shared_ansiballz
type: aggregate
short_description: shares built module payloads between the integration tests' playbook runs
description: Links the run's AnsiballZ cache directory to a directory under ANXLB_ANSIBALLZ_CACHE.
"""


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "shared_ansiballz"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self):
        super().__init__()
        root = os.environ.get("ANXLB_ANSIBALLZ_CACHE")
        if root:
            where = hashlib.sha256(os.pathsep.join(C.COLLECTIONS_PATHS).encode()).hexdigest()[:12]
            shared = os.path.join(root, "ansible-core-%s-%s" % (__version__, where))
            os.makedirs(shared, exist_ok=True)
            # before any task: callbacks load when the run starts, payloads are built by its tasks
            link = os.path.join(C.DEFAULT_LOCAL_TMP, "ansiballz_cache")
            if not os.path.lexists(link):
                os.symlink(shared, link)
