# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The ``<type>_info`` modules: objects of one type inside a parent, by name, id or owner tag."""

from .._module._base import AnxcloudModule
from .._model._failure import Failure
from .._model._group_options import with_ignored_wait
from ._views import details, owned_ids, render
from .._model._ownership import tag_names
from ._lookup import find_one, get_by_id
from .._model._names import check_owner, check_tag_prefix
from .._model._ownership import foreign_tags, owner_tag
from ._containment import child_is_ours, is_child
from .._model._request import TAG_PREFIX


def info_argument_spec(parents):
    spec = dict(
        id=dict(type="str"),
        name=dict(type="str"),
        owner=dict(type="str"),
        tag_prefix=dict(TAG_PREFIX),
    )
    spec.update(parents)
    return with_ignored_wait(spec)


class LbaasInfoModule(AnxcloudModule):
    kind = None
    scope_option = None

    def parent(self):
        option = self.kind.parent
        ref = self.params.get(option)
        if ref is None:
            return None
        scope = None
        if self.scope_option and self.params.get(self.scope_option):
            scope = find_one(self.client, "loadbalancer", self.params[self.scope_option], option=self.scope_option)
        return find_one(self.client, self.kind.parent_kind, ref, parent=scope, option=option)

    def run(self):
        p = self.params
        check_tag_prefix(p["tag_prefix"])
        if p["owner"] is not None:
            check_owner(p["owner"])
        objs, tags = self.select()
        if p["owner"] and tags is None:   # addressed by id: keep it only if it is the owner's
            tags = self.owners_of(objs)
            objs = [o for o in objs if o["id"] in tags]   # one gone since its read is left out
        objs.sort(key=lambda o: (o["name"] or "", o["id"]))
        self.result[self.kind.name + "s"] = [render(o, tags.get(o["id"]) if tags is not None else None, p["tag_prefix"],
                                                    owner=p["owner"]) for o in objs]

    def select(self):
        """(objects, {id: tags} or None): by id, by owner (inside the parent when given) or by parent; by name."""
        p = self.params
        kind = self.kind.name
        tags = None   # id -> tag names, when the owner filter read them
        self.entries = {}   # id -> its entry in a listing read (the whole object where listings are full)
        if p["id"]:
            objs = [get_by_id(self.client, kind, p["id"], "id")]
        else:
            parent = self.parent()
            if parent is None and not p["owner"]:
                raise Failure("one of %s, id or owner is required" % self.kind.parent)
            ids, tags = self.owned(parent) if p["owner"] else (self.listed(parent), None)
            objs = details(self.client, kind, [self.entries.get(i, i) for i in ids])
        if p["name"] is not None:
            objs = [o for o in objs if o["name"] == p["name"]]
        return objs, tags

    def listed(self, parent):
        """The identifiers of the objects under ``parent``; their entries are kept (``entries``) for ``details``."""
        found = self.client.lbaas_list(self.kind.name, **{self.kind.parent: parent["id"]})
        self.entries.update((i["identifier"], i) for i in found)
        return [i["identifier"] for i in found]

    def owned(self, parent):
        """(ids, {id: tags}) of the owner's objects (inside ``parent`` when given): those carrying the owner tag,
        and, for binds and servers, those inside a parent carrying it (containment, _containment)."""
        p = self.params
        kind = self.kind
        kinds = [kind.name, kind.parent_kind] if is_child(kind) else [kind.name]
        found = owned_ids(self.client, kinds, p["owner"], p["tag_prefix"])
        tags = found[kind.name]
        if is_child(kind):
            wanted = owner_tag(p["owner"], p["tag_prefix"])
            tags = dict((i, t) for i, t in tags.items() if not foreign_tags(t, wanted))   # another owner's too: not ours
            tags.update(self.contained(found[kind.parent_kind], parent, found[kind.name]))
        ids = sorted(tags)
        if parent is not None:
            listed = set(self.listed(parent))
            ids = [i for i in ids if i in listed]
        return ids, tags

    def contained(self, parents, parent, known):
        """{id: tags} of the children of the owner's ``parents`` (only ``parent``'s, when given) that carry no
        other owner's tag; ``known``: tags already read."""
        wanted = owner_tag(self.params["owner"], self.params["tag_prefix"])
        ids = sorted(parents) if parent is None else [i for i in parents if i == parent["id"]]
        below = [i for listing in self.client.map(lambda ident: self.listed({"id": ident}), ids) for i in listing]
        tags = self._tags([i for i in below if i not in known])
        return dict((i, t) for i, t in tags.items() if not foreign_tags(t, wanted))

    def _tags(self, ids):
        """{id: tag names} of ``ids``; one deleted since its listing is left out."""
        return dict((r["identifier"], tag_names(r)) for r in self.client.resource_get_listed(ids) if r is not None)

    def owners_of(self, objs):
        """{id: tags} of the objects among ``objs`` that are the owner's: carrying its tag, or (a bind or server)
        inside a parent carrying it and carrying no other owner's tag."""
        p = self.params
        wanted = owner_tag(p["owner"], p["tag_prefix"])
        tags = self._tags([o["id"] for o in objs])
        if is_child(self.kind):
            parents = self._tags(sorted(set(o[self.kind.parent] for o in objs if o["id"] in tags)))
            return dict((o["id"], tags[o["id"]]) for o in objs if o["id"] in tags and
                        child_is_ours(dict(o, tags=tags[o["id"]]), {"tags": parents.get(o[self.kind.parent], [])}, wanted))
        return dict((i, t) for i, t in tags.items() if wanted in t)
