#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make checkpatch: checkpatch --strict, rustfmt, kernel-doc, clippy, the
# Documentation/gpu build (make htmldocs) and the errno table
# (docs/uapi-errors.md) against the uAPI header.
# TAS_LINT_SKIP="clippy ..." leaves out the checks it names (make check
# leaves out clippy: its bisect step compiles every Rust file of the series
# with CLIPPY=1 at each patch that changes it or what it depends on, and
# fails on a warning in a file of the series).
set -uo pipefail
rc=0
for c in checkpatch rustfmt kernel-doc clippy htmldocs errnos; do
	case " ${TAS_LINT_SKIP:-} " in
	*" $c "*)
		echo "$c: left out (TAS_LINT_SKIP)"
		continue
		;;
	esac
	"$(dirname "$0")/lint.sh" "$c" || rc=1
done
exit $rc
