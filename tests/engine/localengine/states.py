"""LBaaS deployment states (ENGINE_API.md 4.2), computed lazily from timestamps: no background threads.

Each object stores the phase it is in (``create`` or ``update``), when it began, and the outcome
fault injection decided at that moment (``ok``, ``error`` or ``stuck``). Until the phase's delay has
passed it is pending (NewlyCreated / Updating), then it shows the outcome.
"""
import time

STATES = {
    "Updating": {"id": "0", "title": "Updating", "type": 1},
    "Updated": {"id": "1", "title": "Updated", "type": 1},
    "DeploymentError": {"id": "2", "title": "DeploymentError", "type": 0},
    "Deployed": {"id": "3", "title": "Deployed", "type": 1},
    "NewlyCreated": {"id": "4", "title": "NewlyCreated", "type": 2},
}


def state_object(title):
    state = dict(STATES[title])
    state["text"] = title   # older clients read "text", newer ones "title" (gac 32096c1)
    return state


def begin(doc, phase, outcome, now=None):
    doc["_phase"] = {"phase": phase, "since": now if now is not None else time.time(), "outcome": outcome}
    doc.pop("_forced", None)


def current(doc, delays, now=None):
    """The state title of a stored LBaaS object now."""
    if doc.get("_forced"):
        return doc["_forced"]
    phase = doc.get("_phase") or {"phase": "create", "since": 0, "outcome": "ok"}
    now = now if now is not None else time.time()
    pending = "NewlyCreated" if phase["phase"] == "create" else "Updating"
    if phase["outcome"] == "stuck" or now < phase["since"] + delays[phase["phase"]]:
        return pending
    if phase["outcome"] == "error":
        return "DeploymentError"
    return "Deployed" if phase["phase"] == "create" else "Updated"
