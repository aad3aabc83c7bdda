#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run one of the style checks of tools/lint.py in the assembled tree.
set -euo pipefail
. "$(dirname "$0")/env.sh"
[ -d "$TAS_TREE/.git" ] || tas_assemble
exec "$TAS_TOOLS/venv/bin/python" "$TAS_ROOT/tools/lint.py" "$@"
