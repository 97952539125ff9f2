# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What a module that predicts across the tasks of a play installs in check mode (``AnxcloudModule.predicts``).

The module base class sits below ``_reconcile`` and cannot import the predictions; the modules that predict
hand it ``Predicting(overlays)``. ``overlays`` is a function that imports and returns the ``Overlay`` classes of
the endpoint families the module's observation reads (``_lbaas._predicted``, ``_addresses._predicted``,
``_dns._predicted``): it runs only in check mode with predictions, so a real run neither loads (compiles) the
predictions nor the overlays, while Ansible's packager, which follows import statements inside functions too,
ships them. Read-only modules import none of this.
"""


class Predicting:
    """``Predicting(overlays)(client, recorded, api_url)`` -> ``(predictions, client)``: the play's predictions so
    far (``recorded``, option ``check_mode_predictions`` as the action plugin set it) and ``client`` observing the
    Engine with them laid over every answer. An object, not a function: as a
    class attribute it stays unbound."""

    def __init__(self, overlays):
        self.overlays = overlays

    def __call__(self, client, recorded, api_url):
        # imported here: a real run does not load (compile) the predictions
        from ._predictions import PredictedEngine, Predictions
        predictions = Predictions(recorded, api_url, self.overlays())
        return predictions, PredictedEngine(client, predictions)
