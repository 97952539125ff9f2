# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The ``<type>_info`` modules: objects of one type inside a parent, by name, id or owner tag."""

from ansible_collections.anxcloud.lbaas.plugins.module_utils._module._base import AnxcloudModule
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._failure import Failure
from ansible_collections.anxcloud.lbaas.plugins.module_utils._module._group_options import with_ignored_wait
from ansible_collections.anxcloud.lbaas.plugins.module_utils._lbaas._views import details, owned_ids, render, tag_names
from ansible_collections.anxcloud.lbaas.plugins.module_utils._lbaas._lookup import find_one, get_by_id
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._names import check_owner, check_tag_prefix
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._ownership import owner_tag


def info_argument_spec(parents):
    spec = dict(
        id=dict(type="str"),
        name=dict(type="str"),
        owner=dict(type="str"),
        tag_prefix=dict(type="str", default="anxlb"),
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
        kind = self.kind.name
        tags = None
        if p["id"]:
            objs = [get_by_id(self.client, kind, p["id"], "id")]
        else:
            parent = self.parent()
            if parent is None and not p["owner"]:
                raise Failure("one of %s, id or owner is required" % self.kind.parent)
            if p["owner"]:
                tags = owned_ids(self.client, kind, p["owner"], p["tag_prefix"])
                ids = sorted(tags)
                if parent is not None:
                    listed = set(i["identifier"] for i in self.client.lbaas_list(kind, **{self.kind.parent: parent["id"]}))
                    ids = [i for i in ids if i in listed]
            else:
                ids = [i["identifier"] for i in self.client.lbaas_list(kind, **{self.kind.parent: parent["id"]})]
            objs = details(self.client, kind, ids)
        if p["name"] is not None:
            objs = [o for o in objs if o["name"] == p["name"]]
        if p["owner"] and tags is None:   # addressed by id: keep it only if the owner's tag is on it
            tags = dict((r["identifier"], tag_names(r)) for r in self.client.resource_get_listed([o["id"] for o in objs])
                        if r is not None)
            wanted = owner_tag(p["owner"], p["tag_prefix"])
            objs = [o for o in objs if wanted in tags.get(o["id"], [])]   # one gone since its read is left out
        objs.sort(key=lambda o: (o["name"] or "", o["id"]))
        self.result[kind + "s"] = [render(o, tags.get(o["id"]) if tags is not None else None, p["tag_prefix"]) for o in objs]
