# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Filter group_servers: the servers of a service from inventory hosts (docs: group_servers.yml)."""

import ipaddress
import traceback

from ansible.errors import AnsibleFilterError
from ansible.module_utils.common.text.converters import to_text

from ..module_utils._model._names import PART, PART_RULE

try:
    import jmespath
    JMESPATH_IMPORT_ERROR = None
except ImportError:
    JMESPATH_IMPORT_ERROR = traceback.format_exc()

# Server names end up in object names (<name>.<port>.<service>): the service module's rule and wording.
NAME_RE = PART


def _compile(expression, option):
    try:
        return jmespath.compile(expression)
    except jmespath.exceptions.JMESPathError as exc:
        raise AnsibleFilterError("group_servers: %s is not a valid JMESPath expression: %s (%s)"
                                 % (option, expression, to_text(exc)))


def _search(compiled, host_vars):
    # host_vars is Ansible's lazy mapping: jmespath reads fields with .get(), so only the variables the
    # expression names are templated (not every variable of the host, some of which may not template here).
    return compiled.search(host_vars)


def _server(host, hostvars, address, address_expr, name_expr, check):
    """The server of one inventory host."""
    host = to_text(host)
    try:
        host_vars = hostvars[host]
    except KeyError:
        raise AnsibleFilterError("group_servers: %s is not a host of the inventory" % host)
    found = _search(address_expr, host_vars)
    if found in (None, "", []):
        raise AnsibleFilterError("group_servers: host %s has no address: the expression %s found nothing in its "
                                 "variables" % (host, address))
    try:
        found = str(ipaddress.ip_address(to_text(found).strip()))
    except ValueError:
        raise AnsibleFilterError("group_servers: host %s: the expression %s gives %r, not an IP address"
                                 % (host, address, found))
    server_name = to_text(_search(name_expr, host_vars) if name_expr else host.split(".")[0])
    if not NAME_RE.match(server_name):
        raise AnsibleFilterError("group_servers: host %s: the server name must be %s, got %r; choose one with the "
                                 "name option" % (host, PART_RULE, server_name))
    server = {"name": server_name, "address": found}
    if check:
        server["check"] = check
    return server


def group_servers(hosts, hostvars, address="ansible_host", name=None, check=None):
    """One ``{name, address[, check]}`` per host of ``hosts``, as the servers option of the service module takes."""
    if JMESPATH_IMPORT_ERROR:
        raise AnsibleFilterError("group_servers needs the Python library jmespath on the controller: pip install jmespath")
    if isinstance(hosts, str) or not isinstance(hosts, (list, tuple)):
        raise AnsibleFilterError("group_servers: the input must be a list of inventory host names, such as "
                                 "groups['web'], got %s" % type(hosts).__name__)
    if check not in (None, "enabled", "disabled"):
        raise AnsibleFilterError("group_servers: check must be enabled or disabled, got %s" % check)
    address_expr = _compile(address, "address")
    name_expr = _compile(name, "name") if name else None
    servers = [_server(host, hostvars, address, address_expr, name_expr, check) for host in hosts]
    names = [s["name"] for s in servers]
    twice = sorted(set(n for n in names if names.count(n) > 1))
    if twice:
        raise AnsibleFilterError("group_servers: the server name(s) %s would be used twice; choose unique names with "
                                 "the name option" % ", ".join(twice))
    return servers


class FilterModule:
    def filters(self):
        return {"group_servers": group_servers}
