#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make checkpatch: checkpatch --strict, rustfmt, kernel-doc and clippy.
set -uo pipefail
rc=0
for c in checkpatch rustfmt kernel-doc clippy; do
	"$(dirname "$0")/lint.sh" "$c" || rc=1
done
exit $rc
