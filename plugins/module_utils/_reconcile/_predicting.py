# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What a module that predicts across the tasks of a play installs in check mode (``AnxcloudModule.predicts``).

The module base class sits below ``_reconcile`` and cannot import the predictions; the modules that predict
hand it this function. Read-only modules import neither, so Ansible does not ship the predictions with them.
"""


def predicting_client(client, recorded, api_url):
    """``(predictions, client)``: the play's predictions so far (``recorded``, option ``check_mode_predictions``
    as the action plugin set it) and ``client`` observing the Engine with them laid over every answer."""
    # imported here: a real run does not load (compile) the predictions
    from ._predictions import PredictedEngine, Predictions
    predictions = Predictions(recorded, api_url)
    return predictions, PredictedEngine(client, predictions)
