# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The module base class: connection options, one Engine client per run, every error as ``fail_json``."""

import copy
import importlib
import traceback

from ansible.module_utils.basic import env_fallback, missing_required_lib

from ._arguments import ArgumentsModule
from .._model._diff_text import readable_diff
from .._model._durations import to_seconds
from .._model._failure import Failure
from .._model._request import WAIT_OPTIONS

from .._engine._client import DEFAULT_MAX_WORKERS, EngineClient, normalize_api_url
from .._engine._errors import EngineError

# The libraries every run needs. The files that use them import them at file level, each in ``try`` (a module
# still loads without them, as ansible-test's import sanity test wants); ``main`` checks them once the arguments
# are valid. requests talks to the Engine; netaddr compares and validates addresses (_kinds.normalize_ip, the
# pools), and a missing one must be reported before any request, not later as an AttributeError on None.
REQUIRED_LIBRARIES = ("requests", "netaddr")

DEFAULT_API_URL = "https://engine.anexia-it.com"


def engine_argument_spec():
    """Connection options shared by every module (doc fragment anxcloud.lbaas.engine)."""
    return dict(
        api_token=dict(type="str", required=True, no_log=True, fallback=(env_fallback, ["ANEXIA_TOKEN"])),
        api_url=dict(type="str", default=DEFAULT_API_URL, fallback=(env_fallback, ["ANEXIA_API_URL"])),
        validate_certs=dict(type="bool", default=True),
        api_timeout=dict(type="int", default=30),
        api_retries=dict(type="int", default=3),
        api_concurrency=dict(type="int", default=DEFAULT_MAX_WORKERS),
        allow_insecure_http=dict(type="bool", default=False),
        api_full_listings=dict(type="bool", default=True),
    )


def predictions_argument_spec():
    """The internal option of doc fragment anxcloud.lbaas.predictions (set by the collection's action plugin)."""
    return dict(check_mode_predictions=dict(type="list", elements="dict"))


def wait_argument_spec():
    """Options of doc fragment anxcloud.lbaas.wait."""
    return copy.deepcopy(WAIT_OPTIONS)


class AnxcloudModule:
    """Base of every module of the collection.

    Subclasses declare ``argument_spec`` (without the connection options) and implement ``run()``,
    which fills ``self.result`` (and may raise ``Failure``). ``main()`` builds the AnsibleModule,
    one Engine client per run, and turns every error into ``fail_json`` without a traceback.
    """

    argument_spec = {}
    module_kwargs = {}
    wait_options = False
    # A module that takes and returns check mode predictions across tasks sets this to
    # _reconcile._predicting.Predicting(<the overlays of what it reads>): this class sits below _reconcile.
    predicts = None

    def __init__(self, module):
        self.module = module
        self.params = module.params
        self.check_mode = module.check_mode
        self.result = {"changed": False}
        self.client = EngineClient(
            api_url=self.params["api_url"],
            token=self.params["api_token"],
            timeout=self.params["api_timeout"],
            validate_certs=self.params["validate_certs"],
            retries=self.params["api_retries"],
            max_workers=self.params["api_concurrency"],
            allow_insecure_http=self.params["allow_insecure_http"],
            full_listings=self.params["api_full_listings"],
        )
        self.predictions = None
        if self.predicts and self.check_mode and self.params.get("check_mode_predictions") is not None:
            # Check mode only: observe the Engine as the play's earlier check-mode tasks predicted it.
            self.predictions, self.client = self.predicts(self.client, self.params["check_mode_predictions"], self.params["api_url"])

    @classmethod
    def full_argument_spec(cls):
        spec = engine_argument_spec()
        if cls.wait_options:
            spec.update(wait_argument_spec())
        if cls.predicts:
            spec.update(predictions_argument_spec())
        spec.update(cls.argument_spec)
        return spec

    @classmethod
    def main(cls):
        module = ArgumentsModule(argument_spec=cls.full_argument_spec(), supports_check_mode=True, **cls.module_kwargs)
        bad = _out_of_bounds(module.params)
        if bad:
            module.fail_json(msg=bad)
        insecure = None
        try:
            normalize_api_url(module.params["api_url"], module.params["allow_insecure_http"])
        except EngineError as exc:
            insecure = exc.message
        if insecure:
            module.fail_json(msg=insecure)
        missing = _missing_library()
        if missing:
            module.fail_json(msg=missing_required_lib(missing[0]), exception=missing[1])
        failure = None
        instance = None
        try:
            instance = cls(module)
            instance.run()
        except Failure as exc:
            failure = _with_partial(exc, dict(exc.details, msg=exc.msg))
        except EngineError as exc:
            failure = _with_partial(exc, dict(msg=str(exc), error=exc.to_dict()))
        _warn_if_throttled(module, instance)
        if failure is not None:
            # Outside the except block: a user error is a message, not a traceback.
            result = dict(instance.result) if instance is not None else {}
            result.update(failure)
            module.fail_json(**readable_diff(result))
        if instance.predictions is not None:
            instance.result["check_mode_predictions"] = instance.predictions.dump()   # the action plugin keeps them
        module.exit_json(**readable_diff(instance.result))

    def run(self):  # pragma: no cover - abstract
        raise NotImplementedError


# Bounds of the numeric options every module (or several) shares: name -> (lowest, highest or None, the unit
# as the message reads after the bound, why or ""). An option a module does not have is skipped.
LEASE_TIMEOUT_MAX = 86400
OPTION_BOUNDS = {
    # 0 used to hand requests no timeout at all, silently: refused rather than documented, as no one means it.
    "api_timeout": (1, None, "second", "there is no 'no timeout': a task would hang for good on an Engine that "
                                       "accepts the connection and never answers"),
    "api_retries": (0, None, "retries", ""),
    "api_concurrency": (1, 64, "requests at once", ""),
    "wait_timeout": (0, None, "seconds", ""),
    # A lease outlives a crashed run by this long and blocks every other run on its load balancers meanwhile;
    # a day is far more than any run takes (a few times wait_timeout) and keeps the expiry a real date.
    "lease_timeout": (1, LEASE_TIMEOUT_MAX, "seconds", "a lease left by a crashed run blocks other runs on its load "
                                                       "balancers until it expires"),
}


def _missing_library():
    """(name, traceback) of the first of REQUIRED_LIBRARIES that cannot be imported, else None; imports them."""
    for name in REQUIRED_LIBRARIES:
        try:
            importlib.import_module(name)
        except ImportError:
            return name, traceback.format_exc()
    return None


def _out_of_bounds(params):
    """The message for the first shared numeric option out of its bounds, or None. wait_timeout, written
    as seconds or a duration (``10m``), is turned into seconds in ``params`` first."""
    if params.get("wait_timeout") is not None:
        try:
            params["wait_timeout"] = to_seconds(params["wait_timeout"], "wait_timeout")
        except Failure as exc:
            return exc.msg
    for name, (low, high, unit, why) in OPTION_BOUNDS.items():
        value = params.get(name)
        if value is None or (low <= value and (high is None or value <= high)):
            continue
        bound = "at least %d" % low if high is None else "between %d and %d" % (low, high)
        return "%s must be %s %s, got %d%s" % (name, bound, unit, value, "; " + why if why else "")
    return None


def _warn_if_throttled(module, instance):
    """A task the Engine rate-limited (HTTP 429) ends at a lower bound on requests in flight than it began with
    (_engine/_in_flight.py): say so, with the setting that would have spared it. ``instance``: None when the
    module failed before it had a client (check mode's view of the client passes both values through)."""
    if instance is None:
        return
    limit, started = instance.client.in_flight_limit, instance.client.max_workers
    if limit < started:
        module.warn("the Engine rate-limited this task (HTTP 429), so it sent at most %d requests at once from then on "
                    "instead of %d; set api_concurrency to %d or run fewer forks" % (limit, started, limit))


def _with_partial(exc, failure):
    """A failure after writes (the Reconciler marks it) reports changed=true and the plan it was executing;
    a plan the failure names itself (the one still planned) wins."""
    for key, value in (getattr(exc, "partial_result", None) or {}).items():
        failure.setdefault(key, value)
    return failure
