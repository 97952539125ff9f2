#!/usr/bin/python
# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

DOCUMENTATION = r"""
module: service
short_description: Reconcile every LBaaS object of a service on one or more Anexia Engine load balancers
version_added: 0.1.0
description:
  - Declare a service once (ports, external addresses, servers) and get, on every load balancer named,
    one backend and one frontend per port, a bind per address and port, and a server per server and port,
    all tagged with the owner tag C(<tag_prefix>-svc=<name>) and kept exactly in sync.
  - Names follow the Kubernetes cloud controller's scheme, with S = C(<name>[.<name_suffix>]);
    backends and frontends are named C(<port>.S), binds C(<v4|v6>.<port>.S), servers C(<server>.<port>.S).
  - Planning is per port; a change to one port never touches the objects of the others. Mutable fields
    are updated in place. An untagged object with exactly a desired name is adopted (tagged); duplicates
    of ours under the same parent are removed; objects of ours that the declaration no longer needs are deleted.
  - Everything of the service is its own by the owner tag (backends and frontends) or by containment (their binds,
    servers, ACLs and rules); nothing another owner holds is ever changed. The rules, the lease and the bookkeeping
    tags are in the notes, after the options.
author:
  - anxcloud.lbaas contributors (@anxcloud)
options:
  name:
    description:
      - The service's stable identifier, used as owner. Never change it for an existing service.
      - 1-63 letters, digits, V(-) or V(_), starting and ending with a letter or digit (it is part of every
        object name and of the owner tag).
    type: str
    required: true
  name_suffix:
    description:
      - Added to every object name after the service name, for example a namespace and cluster.
      - The way out when another owner (for example the same service name under another O(tag_prefix)) holds the
        names on a load balancer.
    type: str
  load_balancers:
    description:
      - The load balancers, by name or identifier, that serve the service.
    type: list
    elements: str
    required: true
  ports:
    description:
      - The ports of the service.
    type: list
    elements: dict
    default: []
    suboptions:
      name:
        description: Port name, used in object names; defaults to the port number.
        type: str
      port:
        description: External port the binds listen on.
        type: int
        required: true
      target_port:
        description: Port on the servers; defaults to O(ports[].port).
        type: int
      mode:
        description: Proxy mode.
        type: str
        choices: [tcp, http]
        default: tcp
      health_check:
        description:
          - 'The backend''s health check: V({type: http, method: GET, uri: /healthz}) (C(method) defaults to V(GET),
            C(uri) to V(/)) or V({type: tcp}).'
          - 'It is sent as the Engine''s fragment form, V("httpchk": { "method": "GET", "uri": "/healthz" }) and
            V("adv_check": "tcp-check"). A string in that form is also accepted and sent verbatim, for example
            V("adv_check": "ssl-hello-chk"); a HAProxy directive such as C(option httpchk GET /healthz) is refused.'
          - 'Defaults to the mode''s check: V({type: tcp}) for TCP ports, V({type: http}) (C(GET /)) for HTTP ports.'
        type: raw
      server_timeout:
        description:
          - Backend server timeout; unset when left out.
          - Milliseconds (V(30000)) or an HAProxy-style duration (V(30s), V(500ms), V(5m), V(1h)). A bare number
            below 1000 is accepted with a warning, as it is most likely meant as seconds.
          - At most 2147483647 milliseconds (about 24 days), the longest timeout HAProxy takes.
        type: raw
      client_timeout:
        description:
          - Frontend client timeout; unset when left out. The same forms as O(ports[].server_timeout).
        type: raw
      ssl:
        description: Whether the binds of this port terminate TLS.
        type: bool
        default: false
      ssl_certificate_path:
        description: Certificate path on the load balancer; required when O(ports[].ssl=true), refused otherwise.
        type: str
      allow_sources:
        description:
          - The source networks this port admits, instead of O(allow_sources); V([]) opens this port to all
            while the service has an allow-list. Unset, the port follows O(allow_sources). At most 100 networks.
        type: list
        elements: str
      enabled:
        description:
          - Whether this port is in service, instead of O(enabled); unset, the port follows O(enabled).
          - V(false) disables the port's frontend (maintenance) - HAProxy stops accepting connections on its binds -
            and changes nothing else; V(true) puts it back with one write.
        type: bool
  enabled:
    description:
      - Whether the service's ports are in service (maintenance). V(false) disables the frontend of every port that does
        not say otherwise (O(ports[].enabled)) - HAProxy stops accepting connections on its binds, so clients are
        refused at once - while its backend, binds, servers, ACLs and rules stay as they are; V(true) puts each
        frontend back with one write. A run that finds them as declared writes nothing.
      - 'Run with C(--check --diff) first - the summary counts what it would disable (C(lb1: 0 to add, 1 to change
        (1 frontend to disable), 0 to destroy)), the diff shows C(enabled: false) on each such frontend, and
        RV(status) leaves out their ports.'
      - Only the frontends' switch is the service's. A backend disabled another way (M(anxcloud.lbaas.backend) with
        O(anxcloud.lbaas.backend#module:enabled=false)) stays disabled, and new backends are created enabled.
      - Sent on every write of a frontend (as the Engine's C(enable), V(0) or V(1)), so that a change of another field
        never puts a disabled frontend back in service.
      - A single server cannot be taken out of service - the Engine has no per-server switch, drain or weight. Remove
        it from O(servers), run, and add it back (docs/user-guide.md, "Maintenance").
    type: bool
    default: true
  allow_sources:
    description:
      - The source networks (CIDRs, IPv4 and IPv6; a plain address is its /32 or /128) the service's frontends
        admit connections from; every other source is refused. Unset or V([]), the service is open to all, and
        going back to unset removes the ACLs and rules it made. Normalised (netaddr), deduplicated and sorted;
        a network with host bits set (V(10.0.0.1/8)) is refused, naming the network meant (V(10.0.0.0/8)).
      - At most 100 networks (after deduplication), as each is an ACL and a rule on every frontend of the service,
        one write each. Merge longer lists into wider networks, or filter in a firewall in front of the load balancer.
      - 'Per frontend, one C(src) ACL and one C(accept if) connection rule per network, named from the network
        (C(allow-10-0-0-0_8.<port>.S): C(.) and C(:) written C(-), C(/) written C(_)), so a changed list creates
        and deletes only the networks that changed; then ACLs C(deny-v4.<port>.S) (V(0.0.0.0/0)) and
        C(deny-v6.<port>.S) (V(::/0)) with C(reject) rules at a higher index. One network per ACL, accept rules
        and a final reject are what go-anxcloud''s own clients send; C(unless) is not used.'
      - Never open to all nor closed to all during a change, as far as the Engine deploys writes in the order
        they were made. A reject rule is created only after every accept rule of its frontend exists (and a new
        bind only after the rules), and when the list shrinks or goes, the reject rules are deleted before the
        accept rules, which go after any new accept rule exists.
      - The ACLs and rules are the service's by containment (under its frontends, no owner tag), like binds;
        another owner's tagged ACL or rule under them is never written. See docs/user-guide.md, "Who may connect".
      - Such a rule or ACL that lets in a source the list refuses is reported, see O(allow_sources_bypass).
    type: list
    elements: str
  allow_sources_bypass:
    description:
      - What the run does when a port's allow-list (O(allow_sources)) does not hold. That is when a rule under its
        frontend that the service did not make (another owner's; an untagged one is the service's and deleted)
        accepts a source the list refuses at an index up to the service's reject rules (unconditionally, C(if) an
        ACL or C(unless) an ACL; an ACL that tests more than the source address counts as any source), or when
        another owner's ACL carries the name of one of the service's accept ACLs (its lines join that ACL).
      - V(warn) warns once per finding, naming the rule or ACL, its index, frontend, load balancer and owner tag (or
        C(no owner tag)); V(fail) fails the run before any write, in check mode too. Either way the findings are
        in RV(allow_sources_bypasses). The service never writes another owner's rule or ACL.
      - Costs no request. A port with an allow-list lists its frontend's ACLs and rules on every run, so a rule
        added since the last run is seen.
    type: str
    choices: [warn, fail]
    default: warn
  addresses:
    description:
      - External addresses the service listens on; at most one IPv4 and one IPv6 address.
      - An empty entry is refused (a bind without an address would listen on every address), and so are the
        unspecified addresses (V(0.0.0.0), V(::)) and IPv4-mapped IPv6 addresses (V(::ffff:a.b.c.d); write the IPv4 address).
      - An address in no IPAM prefix of the account is taken with a warning (most likely a typo, as the Engine routes
        only its prefixes' addresses to a load balancer). The check lists the account's prefixes, one more request,
        only when the task creates a bind or moves one to another address.
    type: list
    elements: str
    default: []
  servers:
    description:
      - The servers (nodes) traffic goes to.
    type: list
    elements: dict
    default: []
    suboptions:
      name:
        description: Server name, used in object names.
        type: str
        required: true
      address:
        description: The server's IP address.
        type: str
        required: true
        aliases: [ip]
      check:
        description:
          - Whether health checks run against this server, V(enabled) or V(disabled); a boolean is taken too
            (V(true) is V(enabled), V(false) is V(disabled)).
        type: raw
        default: enabled
  dns:
    description:
      - A name for the service in Anexia CloudDNS - an A record per IPv4 and an AAAA record per IPv6 address of
        O(addresses), kept in step with them, deleted with the service (O(state=absent)).
      - The records carry the owner tag C(<tag_prefix>-svc=<name>) as their comment (records have no tags), then the
        note C(; dns name of the service); that mark is what makes them the service's, the note tells them from records
        M(anxcloud.lbaas.dns_record) writes for the same owner. An A, AAAA or CNAME record of the name without it (made by hand) or with
        another owner's is a conflict - the run fails before any write, in check mode too, returning RV(dns_conflicts);
        it is never changed or deleted.
      - Each record type that changes is one changeset of the zone (all or nothing); with O(wait) the run waits until
        the zone's new revision is live. A no-op costs one request more than without O(dns).
      - The service remembers the zone of its name in a placement tag C(<tag_prefix>-placed.<name>=dns:<zone>) beside its
        marker on its load balancers (written with the marker, by a run that writes). A new O(dns.name) or O(dns.zone),
        O(dns) removed while the service stays, and O(state=absent) with or without O(dns) delete the service's records
        it left (comment exactly its mark and note) in the same run, before the binds that carry their addresses go and
        before the records of a new name are created; check mode and C(--diff) show it. Records that are not the
        service's stay (a M(anxcloud.lbaas.dns_record) alias of the same owner with the mark alone included). Records a
        service wrote before it kept the placement tag are found in a new zone only by
        M(anxcloud.lbaas.gc) (its O(anxcloud.lbaas.gc#module:dns_zones)).
      - With O(wait) (the default) each zone is read whole, in one request (its current revision's records and its
        state), which is what a no-op costs; a zone whose newest revision failed to deploy gets the service's
        records written again (a new revision), one still deploying is waited for. Without O(wait), a no-op reads the
        name's records only.
      - When another service or a M(anxcloud.lbaas.dns_record) task writes a record of the name at the same moment, the
        writer whose changeset comes second finds the first's records in its answer, takes its own records back, and
        fails naming them. Every write of the name happens under the service's lease.
      - Needs the Python library C(dnspython) on the host that runs the module.
      - The reverse DNS name of the addresses is not set by this option; set it with M(anxcloud.lbaas.ip_address)
        (its O(anxcloud.lbaas.ip_address#module:rdns_name), the service's FQDN for example). The role
        C(anxcloud.lbaas.service_loadbalancer) does that for the addresses it allocates, with its own key C(dns.rdns).
    type: dict
    suboptions:
      zone:
        description: The zone, for example V(example.com); it must exist in the account.
        type: str
        required: true
      name:
        description: The name in the zone, relative (V(shop)) or absolute (V(shop.example.com.)); V(@) is the apex.
        type: str
        required: true
      ttl:
        description: TTL of the records in seconds. Unset, new records get the zone's default and the TTL is not compared.
        type: int
      wait:
        description:
          - V(served) - after the run (also one that changed nothing), ask the zone's authoritative servers (the zone's NS
            records, or O(dns.nameservers)) with dnspython, over UDP and TCP, until each answers the name's A and AAAA
            records as the run left them, within O(wait_timeout); RV(dns) then holds each server's answer (C(served)).
            A server that cannot be reached fails the task naming it. Check mode asks no server.
          - Unset, the run waits until the zone's new revision is live (with O(wait)), as the Engine reports it.
        type: str
        choices: [served]
      nameservers:
        description:
          - The servers O(dns.wait=served) asks instead of the zone's NS records, each V(host), V(host@port),
            V(host:port), V([v6]:port) or V(v6@port) (default port 53).
        type: list
        elements: str
  tag_prefix:
    description:
      - Prefix of the owner tag, the lease tag and the marker tag.
    type: str
    default: anxlb
  lease_timeout:
    description:
      - Seconds a lease taken by this run stays valid. A lease outlives a run that crashed by at most this long.
      - Must exceed the run's duration, which is bounded by a few times O(wait_timeout) when waiting.
      - Between V(1) and V(86400) (a day), because a lease left by a crashed run blocks every other run on its load
        balancers until it expires.
    type: int
    default: 1800
  lease_holder:
    description:
      - Who holds the lease, shown to a concurrent run that finds it.
      - Defaults to C(<name>@<controller host>:<process id>).
      - 1-80 letters, digits, V(-), V(_), V(.), V(:), V(@) or V(+).
    type: str
  state:
    description:
      - V(present) reconciles the service; V(absent) deletes every object carrying its owner tag.
      - With V(absent), a load balancer of O(load_balancers) that does not exist is skipped with a warning (nothing
        of the service can be left there); with V(present) it fails the run.
    type: str
    choices: [present, absent]
    default: present
notes:
  - Ownership. An object belongs to the load balancer it is on. A backend or frontend is ours when it carries
    the owner tag. A bind or server is ours when it carries the owner tag or sits under a frontend or backend of
    ours, tagged or not (a create whose tag write failed never leaks); a wanted untagged one is tagged, an
    unwanted one deleted. Nothing else is ever changed or deleted. Before a write that relies on the owner tag,
    the object's own tags are read to confirm it (the Engine's tag listing is not known to match exactly).
  - Other owners. Every owner tag C(<anything>-svc=<owner>), of any O(tag_prefix), is an owner's; an object carrying
    one other than this service's (a bind or server also when its parent does) is never adopted, changed, moved,
    tagged or deleted. A desired name taken by such an object on the same parent (the same service name under
    another O(tag_prefix), for example) fails the run before any write, in check mode too, naming the tag found;
    give the service a O(name_suffix) to tell its objects apart.
  - Load balancers. Every load balancer the owner tag is found on is observed, not only the ones named in
    O(load_balancers); on a load balancer no longer named, everything of ours is deleted (children first), and
    that shows in the plan and the diff like any other write.
  - 'The whole declared state is owned. An option left out stands for what a fresh create gives, and is reset to
    it on the Engine: O(ports[].server_timeout), O(ports[].client_timeout) and O(ports[].ssl_certificate_path)
    unset, O(ports[].ssl=false), O(servers[].check=enabled), and the health check of the port''s mode
    (see O(ports[].health_check)). A frontend is in service unless O(enabled) or O(ports[].enabled) says otherwise
    (a frontend disabled by hand is enabled again).'
  - A bind this run would create or move onto an address and port that another owner's (or an untagged)
    bind holds is a conflict; the module then fails without writing anything and returns RV(conflicts).
  - A run that is about to write takes an advisory lease on each of the service's load balancers, a tag
    C(<tag_prefix>-lease=<holder>@<expiry>), and removes it when done; while another run's lease is live the
    module fails naming its holder. A released lease tag is detached and its account-level tag entity deleted,
    so leases leave nothing behind. The lease is advisory (the Engine cannot swap tags atomically), so two runs
    that attach at the same moment both give way. Set the task keyword C(throttle) to 1 on loops
    that reconcile services sharing a load balancer. A run that only reads takes no lease.
  - After a run that changed something, a tag C(<tag_prefix>-reconciled.<name>=<scheme>,<version>,<hash>,<time>,<open|allow>)
    on each load balancer records the collection version, the hash of the declaration it applied and whether that
    declaration had an allow-list (O(allow_sources)); a port without one lists its frontend's ACLs and rules only
    until such a marker vouches that none of the service is left there. When that
    marker was written by a newer collection with an incompatible naming scheme, the module refuses to act.
    A replaced marker's tag entity is deleted once no load balancer carries it, so each service leaves at most
    one marker per load balancer.
  - A marker write that fails after the plan was applied does not undo the run, which reports C(changed=true) with a
    warning naming the tag (the next writing run writes the marker again). Only when a replaced marker could be
    neither replaced nor removed does the run fail, still C(changed=true), naming the tag to remove by hand.
  - The marker is written once the objects of its load balancer are written and tagged, while the run waits for their
    deployment; a run that then fails (an object that does not deploy, a timeout) takes its marker back.
  - After a rate limit answer (HTTP 429) from the Engine the module sends no further request and fails with
    a message saying so; the Engine expects clients to back off for a long time.
extends_documentation_fragment:
  - anxcloud.lbaas.engine
  - anxcloud.lbaas.wait
  - anxcloud.lbaas.attributes
  - anxcloud.lbaas.attributes.actiongroup
  - anxcloud.lbaas.predictions
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
"""

EXAMPLES = r"""
- name: A service reachable as shop.example.com (A/AAAA records of its addresses, owned by the service)
  anxcloud.lbaas.service:
    name: shop
    load_balancers: [lb1]
    ports:
      - {name: http, port: 80, target_port: 8080}
    addresses: [203.0.113.10]
    servers:
      - {name: web1, address: 10.0.0.11}
    dns:
      zone: example.com
      name: shop
      ttl: 300

- name: A web service on two load balancers
  anxcloud.lbaas.service:
    name: shop
    load_balancers: [lb1, lb2]
    ports:
      - {name: http, port: 80, target_port: 30080}
      - {name: https, port: 443, target_port: 30443}
    addresses: [198.51.100.10, "2001:db8::10"]
    servers:
      - {name: node1, address: 192.0.2.11}
      - {name: node2, address: 192.0.2.12}
  register: shop

- name: Health checks and timeouts - an HTTP check on one port, TCP with a TLS hello on the other
  anxcloud.lbaas.service:
    name: api
    load_balancers: [lb1]
    ports:
      - name: http
        port: 80
        mode: http
        health_check: {type: http, method: GET, uri: /healthz}
        server_timeout: 30s
        client_timeout: 1m
      - name: https
        port: 443
        health_check: '"adv_check": "ssl-hello-chk"'
        server_timeout: 500ms
    addresses: [198.51.100.11]
    servers:
      - {name: node1, address: 192.0.2.11}

- name: An IPv4 address from the pool of prefixes tagged anxlb-pool=public
  anxcloud.lbaas.ip_address:
    pool: [anxlb-pool=public]
    owner: admin
    family: v4
  register: admin_v4

- name: A service on that address, open to two networks only
  anxcloud.lbaas.service:
    name: admin
    load_balancers: [lb1]
    ports:
      - {name: https, port: 443, target_port: 30443}
    addresses: "{{ admin_v4.address_list }}"
    allow_sources: [10.0.0.0/8, "2001:db8::/32"]
    servers:
      - {name: node1, address: 192.0.2.11}
  register: admin

- name: Reading the registered result
  ansible.builtin.debug:
    msg: >-
      {{ admin.summary }}; listening: {{ admin.status.all }};
      servers on lb1: {{ admin.objects.lb1.backends | map(attribute='servers') | flatten | map(attribute='name') | list }}

# Maintenance: the https port out of service, its frontend disabled and nothing else written (run it with --check
# --diff first); without enabled (or with enabled true) the next run puts the port back.
- name: The https port of shop out of service
  anxcloud.lbaas.service:
    name: shop
    load_balancers: [lb1, lb2]
    ports:
      - {name: http, port: 80, target_port: 30080}
      - {name: https, port: 443, target_port: 30443, enabled: false}
    addresses: [198.51.100.10, "2001:db8::10"]
    servers:
      - {name: node1, address: 192.0.2.11}
      - {name: node2, address: 192.0.2.12}

- name: Remove it
  anxcloud.lbaas.service:
    name: shop
    load_balancers: [lb1, lb2]
    state: absent
"""

RETURN = r"""
summary:
  description:
    - One line per load balancer the task touches, Terraform's plan line; tag adoptions and redeploys count as changes.
    - "Then one per DNS name the task writes (O(dns)), with the counts that are not 0 (C(dns shop.example.com.: 1 to change))."
    - Check mode says what the run would do (C(3 to add, 1 to change, 0 to destroy)), a real run what it did
      (C(3 added, 1 changed, 0 destroyed)).
    - Frontends taken out of service or put back (O(enabled), O(ports[].enabled)) are said after the changes they are
      part of, C(1 to change (1 frontend to disable)) and C(1 changed (1 frontend enabled)).
    - In diff mode it is also the header of the diff's after side (C(+++ after) line), so C(--diff) shows it at the
      default verbosity, where Ansible prints only C(changed) or C(ok) for the task otherwise.
  returned: always
  type: str
  sample: "lb1: 3 to add, 1 to change, 0 to destroy; lb2: 0 to add, 0 to change, 6 to destroy; dns shop.example.com.: 1 to add"
diff:
  description:
    - In diff mode (C(--diff)), the service's objects before and after the task as YAML text, which Ansible prints
      as a unified diff. Both sides are one tree, load balancer then group, sorted by name; a group is a
      port's backend and frontend (one name, C(<port>.<name>)) with their C(servers) and C(binds) (and C(acls) and
      C(rules) with an allow-list), each object one line of its fields, keyed by its name.
    - Beside the load balancers, the key C(dns) holds the service's names (O(dns)) by FQDN, each with its A and AAAA
      records (C(value ttl=...)); a name or zone the service leaves shows on the before side.
    - What every object has in common is said once. The load balancer is the key the groups are under. The owner
      tag is named in the header of the before side (C(objects carry anxlb-svc=web unless they show an owner));
      an object shows C(owner) only when it is not the service's, V((untagged\)) for an object without an owner
      tag that the run adopts. C(deployment) shows a redeploy the run requests or a failed deployment.
    - A load balancer the service no longer names is on both sides, empty after. Fields that are not set are
      left out. A task that changes nothing has equal sides (Ansible then prints no diff).
    - C(after_header) is RV(summary).
  returned: when diff mode is on
  type: dict
  contains:
    before:
      description: The objects as observed, as YAML text.
      type: str
      sample: "lb1: {}\n"
    after:
      description: The objects as the task leaves them (predicted in check mode), as YAML text.
      type: str
      sample: "lb1:\n  http.shop:\n    backend: {mode: tcp}\n    servers:\n      node1.http.shop: {ip: 192.0.2.11, port: 80, check: enabled}\n"
    before_header:
      description: The service and the owner tag its objects carry unless they show another owner.
      type: str
      sample: "shop as observed (objects carry anxlb-svc=shop unless they show an owner)"
    after_header:
      description: RV(summary).
      type: str
      sample: "lb1: 3 to add, 0 to change, 0 to destroy"
status:
  description:
    - Per load balancer, the ports each address listens on; C(all) holds what every load balancer serves.
    - The ports of a disabled frontend (O(enabled), O(ports[].enabled)) are left out - its binds do not listen.
  returned: always
  type: dict
  sample: {load_balancers: {lb1: {198.51.100.10: [80, 443]}}, all: {198.51.100.10: [80, 443]}}
objects:
  description:
    - The service's objects per load balancer (the key), with identifiers and deployment states (predicted in check mode).
    - A frontend with an allow-list (O(allow_sources)) also lists its C(acls) and C(rules).
  returned: always
  type: dict
  contains:
    backends:
      description:
        - The service's backends on that load balancer, sorted by name, each with its C(servers).
        - Every object has C(load_balancer), C(id), its fields (links by name), C(owner) and C(state), the Engine's
          deployment state (V(NewlyCreated) for what check mode would create).
      type: list
      elements: dict
    frontends:
      description: The service's frontends on that load balancer, sorted by name, each with its C(binds) (and C(acls), C(rules)).
      type: list
      elements: dict
  sample:
    lb1:
      backends:
        - {load_balancer: lb1, id: 2f9c0d5e6b7a48c1a3d4e5f60718293a, name: http.shop, mode: tcp, health_check: null,
           server_timeout: null, owner: shop, state: Deployed,
           servers: [{load_balancer: lb1, id: 7c1d2e3f4a5b46c7d8e9f0a1b2c3d4e5, name: node1.http.shop, ip: 192.0.2.11,
                      port: 30080, check: enabled, owner: shop, state: Deployed}]}
      frontends:
        - {load_balancer: lb1, id: 9a8b7c6d5e4f43a2b1c0d9e8f7a6b5c4, name: http.shop, mode: tcp, default_backend: http.shop,
           client_timeout: null, owner: shop, state: Deployed,
           binds: [{load_balancer: lb1, id: 1a2b3c4d5e6f47a8b9c0d1e2f3a4b5c6, name: v4.http.shop, address: 198.51.100.10,
                    port: 80, ssl: false, ssl_certificate_path: null, owner: shop, state: Deployed}]}
plan:
  description:
    - The actions the task decided on, each naming its load balancer, with the fields that differ and why.
    - Every write of a real run is here, tag adoptions and redeploys included.
    - A plan that writes objects ends with one line per load balancer for the service's marker (C(type=marker),
      C(action=mark)), written once the objects are written and tagged, while the run waits for their deployment
      (a run that then fails takes it back); it is bookkeeping, not counted in RV(summary) nor shown in the diff.
  returned: always
  type: list
  elements: dict
  contains:
    load_balancer:
      description: The load balancer the object is on.
      type: str
    action:
      description: V(create), V(update), V(tag) (an adoption), V(redeploy) or V(delete); V(mark) for the marker.
      type: str
    type:
      description: The kind of object (V(backend), V(frontend), V(bind), V(server), V(acl), V(rule)); V(marker) for the marker.
      type: str
    name:
      description: The object's name.
      type: str
    id:
      description: Its identifier; a placeholder for an object the plan creates.
      type: str
    changes:
      description: Field -> C(before) and C(after), for the fields that differ.
      type: dict
    tags:
      description: The owner tags the action writes.
      type: list
      elements: str
    reason:
      description: Why, in words.
      type: str
  sample:
    - {load_balancer: lb1, action: update, type: server, name: node1.http.shop, id: 7c1d2e3f4a5b46c7d8e9f0a1b2c3d4e5,
       changes: {port: {before: 30080, after: 30081}}, tags: [], reason: differs in port}
conflicts:
  description: Binds of other owners (or untagged) holding an address and port this service needs.
  returned: always
  type: list
  elements: dict
  sample: [{load_balancer: lb1, address: 198.51.100.10, port: 80, holder: other, holder_bind: v4.http.other}]
allow_sources_bypasses:
  description:
    - Rules and ACLs under a frontend with an allow-list (O(allow_sources)) that the service did not make and that admit
      a source the list refuses (see O(allow_sources_bypass)), each with its C(msg).
    - C(sources) are the networks it matches; C(refused_sources) says, in words, which of them the list refuses (what
      it matches except what the list admits or an earlier rule refuses); C(named_by), for an ACL, the service's
      accept rule that names it; C(owner) the owner of this O(tag_prefix) and C(owner_tags) every owner tag it carries.
  returned: always
  type: list
  elements: dict
  sample: [{load_balancer: lb1, frontend: https.shop, type: rule, name: open-all, index: 0, owner: other,
            owner_tags: [anxlb-svc=other], sources: [0.0.0.0/0], refused_sources: "0.0.0.0/0 except 10.0.0.0/8",
            msg: "rule 'open-all' (...) accepts if ACL 'open-all' (0.0.0.0/0), before the service's reject rules; ..."}]
dns:
  description:
    - The service's name (with O(dns)) - the zone, the name, its FQDN and the records of the service (predicted in
      check mode) by type, each with its value, ttl (null - the zone's default) and comment.
    - The plan (RV(plan)) has an entry per record type that changes, with the records it creates and deletes.
  returned: when dns is given and the run did not fail
  type: dict
  sample: {zone: example.com, name: shop, fqdn: shop.example.com.,
           records: {A: [{value: 203.0.113.10, ttl: 300, comment: 'anxlb-svc=shop; dns name of the service'}]}}
dns_conflicts:
  description: Records of the name of O(dns) that the service does not own (no mark, or another owner's); with O(state=present) the run fails.
  returned: when dns is given
  type: list
  elements: dict
  sample: [{zone: example.com, name: shop, fqdn: shop.example.com., type: A, value: 203.0.113.9, comment: by hand, owner: null}]
declaration_hash:
  description: Hash of the normalized declaration, as the marker tag records it.
  returned: always
  type: str
  sample: 5f0c1e9a3b7d2c44
tagged_other:
  description:
    - Identifiers of the resources that carry the owner tag exactly and are no load balancer object (the service's IP
      address objects from M(anxcloud.lbaas.ip_address), for instance), as the run's first observation found them,
      before any write (in check mode with what earlier tasks predicted).
    - Observation reads them anyway, to tell them from objects on load balancers the service no longer names, so
      they cost no request of their own. The role C(anxcloud.lbaas.service_loadbalancer) compares them with
      the allocation's RV(anxcloud.lbaas.ip_address#module:tagged_elsewhere) to run its release of a family a
      service no longer declares only when the owner may hold an address there.
  returned: always
  type: list
  elements: str
  sample: [5b6e4f0d9a0c4c63b1a6a5c6f4e3d2c1]
"""

from ..module_utils._addresses._outside import OutsideCheck, OutsidePrefixes
from ..module_utils._dns._run import check_dnspython
from ..module_utils._module._base import AnxcloudModule
from ..module_utils._reconcile._predicting import Predicting
from ..module_utils._service._declaration import ServiceDeclaration
from ..module_utils._service._request import ServiceRequest
from ..module_utils._service._run import report, service_run

# Check mode's overlays are imported in ``predicted_families``, not here: only a run in check mode loads them.


def predicted_families():
    """What a service observes, as check mode across tasks shows it: LBaaS objects, addresses (pools) and DNS records."""
    from ..module_utils._addresses._predicted import AddressOverlay
    from ..module_utils._dns._predicted import DnsOverlay
    from ..module_utils._lbaas._predicted import LbaasOverlay
    return [LbaasOverlay, AddressOverlay, DnsOverlay]


class ServiceModule(AnxcloudModule):
    predicts = Predicting(predicted_families)
    wait_options = True
    argument_spec = ServiceRequest.spec

    def warn(self, text):
        """Every warning of a service names it. Ansible prints a warning once per text, so the same warning of two
        services of a run (a port's timeout, an address in no prefix) was printed once, naming neither."""
        name = self.params["name"]
        named = text.startswith(("service %s:" % name, "service %s " % name))
        self.module.warn(text if named else "service %s: %s" % (name, text))

    def run(self):
        declaration = ServiceDeclaration.from_params(self.params)
        if declaration.dns:
            check_dnspython("dns")
        # a bind on an address in no IPAM prefix of the account is a warning; a real run sends the listing alongside
        # its lease and writes: nothing waits for it but the warning
        outside = OutsideCheck(OutsidePrefixes(self.client, self.warn, "addresses", ahead=not self.check_mode))
        run = service_run(self.client, declaration, self.check_mode, self.warn, checks=[outside])
        self.result = run.result   # partly filled when it fails: conflicts, the hash
        report(run, diff=self.module._diff)


def main():
    ServiceModule.main()


if __name__ == "__main__":
    main()
