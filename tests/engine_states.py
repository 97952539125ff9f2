"""The Engine's LBaaS deployment states, as docs/engine-api-facts.md lists them: the one table the unit
tests' fake client and the contract tests share (the local Engine keeps its own, which the contract
tests hold against this one)."""

STATES = {
    "Updating": {"id": "0", "title": "Updating", "type": 1},   # type OK although not finished
    "Updated": {"id": "1", "title": "Updated", "type": 1},
    "DeploymentError": {"id": "2", "title": "DeploymentError", "type": 0},
    "Deployed": {"id": "3", "title": "Deployed", "type": 1},
    "NewlyCreated": {"id": "4", "title": "NewlyCreated", "type": 2},
}


def state(title, text=False):
    """A fresh copy of a state object; ``text=True`` adds the title as ``text`` too, as older answers name it."""
    out = dict(STATES[title])
    if text:
        out["text"] = title
    return out
