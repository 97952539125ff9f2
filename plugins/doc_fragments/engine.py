# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later


class ModuleDocFragment:
    # How every module reaches the Anexia Engine.
    DOCUMENTATION = r"""
options:
  api_token:
    description:
      - Anexia Engine API token.
      - If not set, the value of the E(ANEXIA_TOKEN) environment variable is used.
      - Never printed, logged or returned.
    type: str
    required: true
  api_url:
    description:
      - Base URL of the Anexia Engine API, without the C(/api) path.
      - If not set, the value of the E(ANEXIA_API_URL) environment variable is used, else the public Engine.
    type: str
    default: https://engine.anexia-it.com
  allow_insecure_http:
    description:
      - Allow a plain C(http://) O(api_url) to a host that is not loopback.
      - By default such a URL is refused, because the API token would travel unencrypted. Loopback hosts
        (C(127.0.0.0/8), C(::1), C(localhost)), where a local Engine or a tunnel listens, are always allowed;
        other names under C(.localhost) are not, as they need not resolve to this machine.
      - Plain C(http://) requests never go through a proxy (E(HTTP_PROXY), E(ALL_PROXY) are ignored for them),
        so the token is not handed to a proxy in clear text.
    type: bool
    default: false
  validate_certs:
    description:
      - Whether to verify the Engine's TLS certificate.
    type: bool
    default: true
  api_timeout:
    description:
      - Timeout in seconds for a single request to the Engine, for the connection and again for the answer.
      - At least V(1). There is no "no timeout", so V(0) is refused, because a task would then hang for good on
        an Engine that accepts the connection and never answers.
    type: int
    default: 30
  api_retries:
    description:
      - How many times a failed request is retried. Reads are retried on HTTP 500/502/503/504, dropped
        connections and timeouts; every request is retried when it could not be sent at all (connection
        refused, name resolution, connect timeout).
      - A write (create, update, delete, tag change) that may have reached the Engine (HTTP 5xx, a dropped
        connection or a timeout after sending) is never sent again, as no official Engine client does; the
        module fails, or resolves it by reading what is there (an address it created is adopted by its
        address and description), and the next run finds and adopts what the write created.
      - Rate limiting (HTTP 429) is never retried unless the Engine says when to (C(Retry-After)).
    type: int
    default: 3
  api_concurrency:
    description:
      - How many requests to the Engine one task sends at the same time, at most (1-64). Reads of one
        observation, the writes of one plan and the wait's polls share this bound; tag writes go one
        at a time whatever this says (concurrent tag writes conflict on the Engine), beside the others
        and within the bound.
      - The default 16 keeps a whole service's no-op run to about ten round trips to the Engine, also for
        services on two load balancers or with hundreds of servers; it changes how fast the requests go out, not
        how many there are.
      - Each HTTP 429 (rate limited) answer halves it for the rest of the task, down to 1, so a throttled task
        sends less at once from then on, and warns with the value it ended at. If the Engine still answers 429,
        lower it, or run fewer forks.
    type: int
    default: 16
  api_full_listings:
    description:
      - Whether listings of load balancer objects ask the Engine for whole objects (the query parameter
        C(attributes=all)), so that an object needs no read of its own.
      - Anexia's newer Go SDK (go-anxsdk) lists load balancer objects that way, on the Engine's C(v2) paths, and
        decodes each entry as the object's own read answers it. Whether the C(v1) listings this collection
        reads honour it is not documented, so the modules find out per run, at no cost. Where every entry of a
        listing carries all that the module reads of the object (its name, parent, compared fields and state),
        the entries are used; where one lacks any of it, that object is read by itself as without this option,
        and listings of its type stop asking for the rest of the task. An Engine that refuses the parameter
        (HTTP 400 naming it) costs one request per task, the listing sent again without it.
      - Where whole objects are listed, a load balancer's binds and servers (and ACLs and rules) are listed once
        for the account, not once per frontend or backend, when that listing takes no more pages than there are
        frontends or backends to list them for; a longer one is stopped after its first page (one request more per
        object type and task, at most) and listed per frontend or backend as without this option.
      - Either way the same objects are compared and the same requests written; only how many reads a task
        sends changes (a no-op of a service reads its listings instead of one request per object).
      - V(false) never asks and reads every object by itself, as the collection did before.
    type: bool
    default: true
requirements:
  - requests >= 2.28 (on the host that runs the module, usually the controller)
  - netaddr >= 0.10
notes:
  - All modules of this collection are in the action group C(anxcloud.lbaas.lbaas), so the connection options
    can be set once with C(module_defaults) for C(group/anxcloud.lbaas.lbaas).
"""
