# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from ..plugin_utils._check_predictions import PredictingAction


class ActionModule(PredictingAction):
    """Runs the dns_record_sets module; in check mode with the play's predictions so far (plugin_utils/_check_predictions.py)."""
