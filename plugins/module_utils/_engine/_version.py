# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The collection's name and version, as the user agent and the markers state them (galaxy.yml says the same)."""

COLLECTION_NAME = "anxcloud.lbaas"
COLLECTION_VERSION = "0.1.0"
