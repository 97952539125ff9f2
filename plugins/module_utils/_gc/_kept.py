# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""How many objects each owner gc keeps has: counted on the objects' own tags, not on the tag listing.

The Engine's ``tag_name`` listing is not documented to match exactly (a lenient one lists ``xanxlb-svc=web``
or ``anxlb-svc=web2`` for ``anxlb-svc=web``), so a listed resource counts only if its own tags carry the
owner tag exactly. Tags already read in the run (load balancers, the collected owners' objects) are used as
they are; every other listed resource is read once (one GET, however many owners' listings return it, on
the client's bounded pool). The cost is one listing per kept owner plus at most one GET per distinct
resource those listings return whose tags the run has not read.
"""

from .._engine._errors import gone_as_none
from .._model._ownership import tag_names
from .._model._ownership import owner_tag


def kept_counts(client, owners, prefix, known):
    """``{owner: number of resources carrying <prefix>-svc=<owner>}``; ``known``: ``{id: tag names}`` already read."""
    listed = client.map(lambda o: [r["identifier"] for r in client.resources_by_tag(owner_tag(o, prefix))], owners)
    tags = dict(known)
    unread = sorted(set(i for ids in listed for i in ids) - set(tags))
    # a resource deleted since the listing carries nothing
    tags.update(zip(unread, [tag_names(r) if r is not None else [] for r in client.map(gone_as_none(client.resource_get), unread)]))
    return dict((owner, len(set(i for i in ids if owner_tag(owner, prefix) in tags[i])))
                for owner, ids in zip(owners, listed))
