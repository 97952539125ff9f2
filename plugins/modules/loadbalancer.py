#!/usr/bin/python
# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

DOCUMENTATION = r"""
module: loadbalancer
short_description: Register an existing HAProxy host as an Anexia Engine load balancer, update or deregister it
version_added: 0.1.0
description:
  - Registers an HAProxy host that exists already as an LBaaS load balancer of the Engine, updates its name or
    address, or deregisters it. Registering provisions nothing (the Engine's C(POST loadbalancer.json) with
    C(name) and C(ip_address), as terraform-provider-anxcloud's C(anxcloud_lbaas_loadbalancer) sends it); deregistering
    removes the load balancer from the Engine, not the host.
  - The load balancer is identified by its name among all load balancers of the account (a name that several carry
    fails, naming their identifiers), or by O(id).
  - Only the options you set are compared and changed; the others keep whatever the Engine has.
  - Deregistering (O(state=absent)) is refused, before any write and in check mode too, while frontends or backends
    exist on the load balancer, naming them; remove them first (M(anxcloud.lbaas.service) with V(absent), or the
    object modules). It is also refused for a load balancer that does not carry this task's owner tag, that is one
    the collection did not register for this O(owner), unless O(deregister_unowned=true).
author:
  - anxcloud.lbaas contributors (@anxcloud)
options:
  name:
    description:
      - Name of the load balancer.
      - With O(id), a different name renames the load balancer.
      - Required unless O(id) is given.
    type: str
  id:
    description:
      - Identifier of the load balancer, to address it directly instead of by name.
    type: str
  ip_address:
    description:
      - The IPv4 or IPv6 address of the host's Engine management API (the Engine's field C(ip_address)).
      - Required to register a load balancer. Compared in canonical form, so C(2001:DB8::0:1) equals C(2001:db8::1).
      - Checked before any request; a host name, the unspecified addresses (V(0.0.0.0), V(::)) and IPv4-mapped IPv6
        addresses are refused.
    type: str
  state:
    description:
      - V(present) registers the load balancer, or updates the one registered under O(name) (or O(id)).
      - V(absent) deregisters it; ok and unchanged when no such load balancer exists (the Engine's 404 on the delete
        counts as done too), so a teardown can run twice.
    type: str
    choices: [present, absent]
    default: present
  owner:
    description:
      - Owner whose tag C(<tag_prefix>-svc=<owner>) the load balancer carries, as the collection's other objects carry
        theirs (a core resource tag). A load balancer registered with O(owner) gets the tag; an existing one carrying no
        owner tag gets it on its first change (it is adopted).
      - A load balancer carrying another owner tag, of any O(tag_prefix), is never changed or deregistered; the task
        fails naming the tag and the O(owner) and O(tag_prefix) that address it.
      - With O(state=absent), only a load balancer carrying this owner's tag is deregistered, unless
        O(deregister_unowned=true).
    type: str
  deregister_unowned:
    description:
      - Deregister the load balancer even though it does not carry this task's owner tag (it was registered outside
        the collection, by hand or by another tool, or by a task without O(owner)).
      - A load balancer carrying another owner's tag is refused all the same, and so is one holding frontends or
        backends.
    type: bool
    default: false
extends_documentation_fragment:
  - anxcloud.lbaas.engine
  - anxcloud.lbaas.owner_tag
  - anxcloud.lbaas.wait
  - anxcloud.lbaas.attributes
  - anxcloud.lbaas.attributes.actiongroup
  - anxcloud.lbaas.predictions
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
notes:
  - The load balancer's own state on the Engine is read back as for the other objects; O(wait) waits for it to be
    deployed after a registration or a change, and for it to be gone after a deregistration.
seealso:
  - module: anxcloud.lbaas.loadbalancer_info
  - module: anxcloud.lbaas.service
"""

EXAMPLES = r"""
- name: Register the HAProxy host whose management API listens on 192.0.2.10
  anxcloud.lbaas.loadbalancer:
    name: lb3
    ip_address: 192.0.2.10
    owner: infra

- name: Rename it (by its identifier)
  anxcloud.lbaas.loadbalancer:
    id: "{{ lb3.loadbalancer.id }}"
    name: lb3-ams

- name: Deregister it (refused while frontends or backends are on it)
  anxcloud.lbaas.loadbalancer:
    name: lb3-ams
    owner: infra
    state: absent

- name: Deregister a load balancer someone registered by hand
  anxcloud.lbaas.loadbalancer:
    name: old-lb
    state: absent
    deregister_unowned: true
"""

RETURN = r"""
loadbalancer:
  description: The load balancer after the task (predicted in check mode); empty when absent.
  returned: always
  type: dict
  contains:
    id:
      description: Identifier; a placeholder C((new loadbalancer NAME)) for one check mode would register.
      type: str
      sample: 0f4b5d2e8a9c4f6b8e1d2c3b4a596877
    name:
      description: Name.
      type: str
      sample: lb3
    ip_address:
      description: Address of the host's management API, in canonical form (as stored when it is no address).
      type: str
      sample: 192.0.2.10
    owner:
      description: The owner named by the owner tag, when O(owner) is set.
      type: str
      returned: when O(owner) is set
    state:
      description: Engine deployment state (C(Deployed), C(NewlyCreated), C(Updating), C(Updated), C(DeploymentError)).
      type: str
      sample: Deployed
plan:
  description:
    - The actions the task decided on, with the fields that differ and why (C(create) registers, C(delete)
      deregisters).
  returned: always
  type: list
  elements: dict
"""

from ..module_utils._lbaas._object_module import (
    LbaasObjectModule, field_options, object_argument_spec)
from ..module_utils._model._failure import Failure
from ..module_utils._model._kinds import LOADBALANCER, normalize_ip, one_host_ip


class LoadBalancerModule(LbaasObjectModule):
    kind = LOADBALANCER
    argument_spec = object_argument_spec(
        parents={},
        fields=field_options(LOADBALANCER),   # the declaration's fields (_model._kinds)
        kind=LOADBALANCER,                    # and its option to deregister what the collection did not register
    )

    def validate(self):
        address = self.params["ip_address"]
        if address is not None and not str(address).strip():
            raise Failure("ip_address must not be empty; give the IPv4 or IPv6 address of the host's management API")
        one_host_ip(normalize_ip(address, "ip_address"), "ip_address")


def main():
    LoadBalancerModule.main()


if __name__ == "__main__":
    main()
