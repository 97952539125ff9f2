# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from ..plugin_utils._check_predictions import ReportingAction


class ActionModule(ReportingAction):
    """Runs the service_info module; a task that sets anxcloud_lbaas_result_verbosity (the role service_loadbalancer's
    report of undeclared services, which it names in warnings and a fact) shows its whole answer only from that -v
    count on (plugin_utils/_check_predictions.py)."""
