# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function
__metaclass__ = type


class ModuleDocFragment(object):
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
  validate_certs:
    description:
      - Whether to verify the Engine's TLS certificate.
    type: bool
    default: true
  api_timeout:
    description:
      - Timeout in seconds for a single request to the Engine.
    type: int
    default: 30
  api_retries:
    description:
      - How many times a failed request is retried (connection errors, HTTP 502/503/504, and HTTP 500 on reads).
      - Rate limiting (HTTP 429) is never retried unless the Engine says when to (C(Retry-After)).
    type: int
    default: 3
requirements:
  - requests >= 2.28 (on the host that runs the module, usually the controller)
  - netaddr >= 0.10
notes:
  - All modules of this collection are in the action group C(anxcloud.lbaas.lbaas), so the connection options
    can be set once with C(module_defaults) for C(group/anxcloud.lbaas.lbaas).
"""
