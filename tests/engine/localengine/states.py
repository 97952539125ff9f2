"""LBaaS deployment states (docs/engine-api-facts.md, Deployment states), computed lazily from timestamps: no background threads.

Each object stores the deployment it is in (phase ``create`` or ``update``), when it began, and the
outcome fault injection chose at that moment (``ok``, ``error`` or ``stuck``). Until the phase's delay
has passed the object is pending (NewlyCreated / Updating); then it shows the outcome. The admin API
can force a state; the next deployment ends that.
"""
import time

STATES = {
    "Updating": {"id": "0", "title": "Updating", "type": 1},   # type OK although not finished (CCM comment)
    "Updated": {"id": "1", "title": "Updated", "type": 1},
    "DeploymentError": {"id": "2", "title": "DeploymentError", "type": 0},
    "Deployed": {"id": "3", "title": "Deployed", "type": 1},
    "NewlyCreated": {"id": "4", "title": "NewlyCreated", "type": 2},
}
IDS = dict((state["id"], title) for title, state in STATES.items())
REDEPLOY = "0"   # a PUT with this state id asks for a new deployment (the way out of DeploymentError)
OUTCOMES = ("ok", "error", "stuck")


def state_object(title):
    state = dict(STATES[title])
    state["text"] = title   # clients before gac 32096c1 (and its LBaaS mock) read "text"
    return state


def begin(doc, phase, outcome, now=None):
    doc["_phase"] = {"phase": phase, "since": time.time() if now is None else now, "outcome": outcome}
    doc.pop("_forced", None)


def seeded(doc):
    """Seeded objects were deployed long ago."""
    begin(doc, "create", "ok", now=0)


def current(doc, delays, now=None):
    """The state title of a stored LBaaS object now; ``delays`` maps phase to seconds."""
    if doc.get("_forced"):
        return doc["_forced"]
    phase = doc["_phase"]
    now = time.time() if now is None else now
    if phase["outcome"] == "stuck" or now < phase["since"] + delays[phase["phase"]]:
        return "NewlyCreated" if phase["phase"] == "create" else "Updating"
    if phase["outcome"] == "error":
        return "DeploymentError"
    return "Deployed" if phase["phase"] == "create" else "Updated"
