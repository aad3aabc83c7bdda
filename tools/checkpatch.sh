#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make checkpatch: checkpatch --strict, rustfmt, kernel-doc, clippy, the
# Documentation/gpu build (make htmldocs) and the errno table
# (docs/uapi-errors.md) against the uAPI header.
set -uo pipefail
rc=0
for c in checkpatch rustfmt kernel-doc clippy htmldocs errnos; do
	"$(dirname "$0")/lint.sh" "$c" || rc=1
done
exit $rc
