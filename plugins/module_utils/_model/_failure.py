# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The one exception that reaches the user as a task failure (pure code raises it, the module base reports it)."""


class Failure(Exception):
    """A user-facing failure: the base class turns it into ``fail_json(msg=..., **details)``.

    Raised by pure code (planning, validation) that must not know about AnsibleModule.
    """

    def __init__(self, msg, **details):
        super().__init__(msg)
        self.msg = msg
        self.details = details
