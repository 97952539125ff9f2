# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The kinds a service manages, read from their declaration (``_model._kinds``), never listed here.

* ``MANAGED``: every kind the service observes, plans and removes (``Kind.service_managed``), in declaration
  order - the keys of ``Desired.by_kind`` and ``Observed.by_kind``;
* ``PARENTS``: those directly inside a load balancer (backends, frontends): ours by the owner tag;
* ``CHILDREN``: parent name -> the kinds the service manages inside it, each as the variant it is there
  (``_lbaas._relations.child_kinds``): ours by containment;
* ``SHOWN``: kind name -> the fields its tree and diff show (``_tree``): name, own fields, then links
  (``SHOWN_LINKS``, shown by name).

A kind declared with a parent and ``service_managed`` is observed, planned and removed with no edit here.
"""

from .._lbaas._relations import child_kinds
from .._model._kinds import KINDS

TOP = [k.name for k in KINDS.values() if k.parent_kind is None]   # the load balancer: the service's scope
PARENTS = [k for top in TOP for k in child_kinds(top) if k.service_managed]
CHILDREN = dict((p.name, [c for c in child_kinds(p.name) if c.service_managed]) for p in PARENTS)
_NAMES = set(k.name for k in PARENTS) | set(c.name for kinds in CHILDREN.values() for c in kinds)
MANAGED = [k for k in KINDS.values() if k.name in _NAMES]
PARENT_NAMES = [k.name for k in PARENTS]


def shown(kind):
    """The fields the service's tree shows of an object of ``kind`` (the variant the service manages): its name,
    its own fields, then its links (shown by name); not those that say which variant it is (``parent_type``, the
    parent links) nor those the service always writes unset (``service_omits``)."""
    hidden = set(kind.variant_fields()) | set(kind.service_omits)
    own = [f for f in kind.fields if f not in kind.links and f not in hidden]
    return tuple(["name"] + own + [f for f in kind.links if f not in hidden])


_VARIANTS = dict((k.name, k) for k in PARENTS + [c for kinds in CHILDREN.values() for c in kinds])
SHOWN = dict((k.name, shown(_VARIANTS[k.name])) for k in MANAGED)
SHOWN_LINKS = dict((name, [f for f in fields if f in _VARIANTS[name].links]) for name, fields in SHOWN.items())
