# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""One planner for LBaaS objects: what to do with one object, for the per-object modules and the service.

Both the per-object modules (``_lbaas._object_module``) and the service (``_service._plan``) decide through
these functions, so they cannot disagree:

* ``create`` - the create action of a desired object under its parent (a placeholder id until it exists);
* ``converge`` - an existing object: update what differs, else add a missing owner tag, else redeploy it
  when it is in DeploymentError, else wait for it while it still deploys (the ladder);
* ``owner_tags_for`` - ownership by containment (``_containment``): a backend or frontend carries the owner
  tag; a bind or server never gets one, it is its parent's owner's;
* ``refused_delete`` (with ``_containment.frontends_using``) - the Engine refuses (409) to delete a backend a frontend
  still uses as its default backend, or a parent with children: the run fails before any write, in check
  mode too, naming what is in the way.
"""

from ._lookup import describe, noun
from .._model._failure import Failure
from ._containment import is_child
from .._model._kinds import state_class
from .._reconcile._plan import (
    CREATE, REDEPLOY, TAG, UPDATE, Action, Plan, placeholder)


def owner_tags_for(kind, tags):
    """The owner tags a write of ``kind`` adds: none on a child (its parent carries them, _containment)."""
    return [] if is_child(kind) else list(tags)


# ---- actions -------------------------------------------------------------------------------------
def diff(obj, fields, skip=("name",)):
    """Every given field that differs from the object; ``None`` is a value too (unset)."""
    return dict((f, (obj.get(f), v)) for f, v in fields.items() if f not in skip and obj.get(f) != v)


def create(kind, name, parent_id, fields, reason, tags=(), lb=None, where=None):
    """The create of a desired object: every field of its kind (unset ones None, or the kind's default, which the
    create sends: a backend the service makes is on, as the Engine would make it anyway, and check mode predicts it
    so), its parent, a placeholder id (``where``, a load balancer's name, keeps one name on two load balancers apart);
    ``changes`` lists what is set."""
    new = {"kind": kind.name, "id": placeholder(kind.name, name, where), "name": name}
    if kind.parent:   # a load balancer has none
        new[kind.parent] = parent_id
    for field in kind.fields:
        new[field] = fields[field] if fields.get(field) is not None else kind.defaults.get(field)
    changes = dict((f, (None, v)) for f, v in new.items() if f not in ("kind", "id") and v is not None)
    return Action(CREATE, kind, new, changes, reason=reason, tags=owner_tags_for(kind, tags), lb=lb)


def converge(kind, obj, changes, missing_tags=(), lb=None, adopting=None):
    """The ladder for an existing object: update what differs (adding missing owner tags with it), else add
    the missing owner tags, else redeploy an object in DeploymentError, else wait for one still deploying.
    ``adopting`` says why the tags are missing (the service adopts an untagged object it matched by name)."""
    tags = owner_tags_for(kind, missing_tags)
    if changes:
        reason = "differs in %s" % ", ".join(sorted(changes))
        return Plan([Action(UPDATE, kind, obj, changes, tags=tags, lb=lb,
                            reason=reason + ("; " + adopting if tags and adopting else ""))])
    if tags:
        return Plan([Action(TAG, kind, obj, tags=tags, reason=adopting or "owner tag missing", lb=lb)])
    cls = state_class(obj["state"])
    if cls == "error":
        return Plan([Action(REDEPLOY, kind, obj, reason="the object is in %s" % obj["state"]["title"], lb=lb)])
    if cls == "pending":
        return Plan(waits=[(kind.name, obj["id"], obj["name"])])
    return Plan()


# ---- deletes the Engine would refuse -------------------------------------------------------------
def refused_delete(kind, obj, blockers):
    """The failure for a delete the Engine would answer 409: ``blockers`` ((kind, {identifier, name}) still on
    the object). Raised before any write, in check mode too."""
    one = len(blockers) == 1
    return Failure("%s (%s) cannot be deleted: %s still use%s it; delete %s first" % (
        describe(kind, obj), obj["id"],
        ", ".join("%s '%s' (%s)" % (noun(k), i.get("name"), i.get("identifier")) for k, i in blockers),
        "s" if one else "", "it" if one else "those"),
        blockers=[dict(type=k, id=i.get("identifier"), name=i.get("name")) for k, i in blockers])


def refused_backend_deletes(blocked, tag):
    """The service's failure for backends of ours that a frontend not ours uses (``blocked``: dicts of
    load_balancer, backend, backend_id, frontend, frontend_id)."""
    why = "; ".join("backend '%s' (%s) on load balancer %s cannot be deleted: frontend '%s' (%s), which is not "
                    "this service's, uses it as its default backend"
                    % (b["backend"], b["backend_id"], b["load_balancer"], b["frontend"], b["frontend_id"])
                    for b in blocked)
    those, it = ("that frontend", "it") if len(blocked) == 1 else ("those frontends", "them")
    return Failure("%s; point %s elsewhere or delete %s (or tag %s with %s to make %s this service's), then "
                   "run again" % (why, those, it, it, tag, it), blockers=blocked)
