"""Seeding load balancers, VLANs and IPAM prefixes from YAML; idempotent on an existing state file.

loadbalancers:
  - name: lb1                  # matched by identifier when given, else by name
    identifier: <32 hex>       # optional
    ip_address: lb1.local.test # optional
    tags: [some-tag]           # optional
prefixes:
  - cidr: 127.0.10.0/24        # matched by CIDR
    identifier: <32 hex>       # optional
    vlan: demo                 # VLAN name, created when new (default "local")
    create_empty: true         # network, gateway and (IPv4) broadcast only; false: every address
    description: ...
    tags: [anxlb-pool=demo]
"""
import ipaddress

import yaml

from .lbaas import CUSTOMER, RESELLER
from .store import new_id


def load(engine, path):
    with open(path) as handle:
        data = yaml.safe_load(handle) or {}
    apply(engine, data)


def apply(engine, data):
    store = engine.store
    with store.lock:
        lbs = store.all("loadbalancer")
        for spec in data.get("loadbalancers") or []:
            found = [lb for lb in lbs if lb["identifier"] == spec.get("identifier")] or \
                [lb for lb in lbs if not spec.get("identifier") and lb["name"] == spec["name"]]
            doc = found[0] if found else {"identifier": spec.get("identifier") or new_id()}
            doc.update(name=spec["name"], ip_address=spec.get("ip_address", "%s.local.test" % spec["name"]),
                       customer_identifier=CUSTOMER, reseller_identifier=RESELLER)
            store.put("loadbalancer", doc)
            for tag in spec.get("tags") or []:
                store.tag(doc["identifier"], tag)
        vlans = dict((v["name"], v) for v in store.all("vlan"))
        prefixes = dict((p["name"], p) for p in store.all("prefix"))
        for spec in data.get("prefixes") or []:
            vlan_name = spec.get("vlan", "local")
            vlan = vlans.get(vlan_name) or engine.ipam.add_vlan(vlan_name)
            vlans[vlan_name] = vlan
            cidr = str(ipaddress.ip_network(spec["cidr"], strict=False))
            doc = prefixes.get(cidr) or engine.ipam.add_prefix(cidr, vlan, identifier=spec.get("identifier"),
                                                               create_empty=spec.get("create_empty", True),
                                                               description=spec.get("description", ""))
            for tag in spec.get("tags") or []:
                store.tag(doc["identifier"], tag)
