#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Write an edit diff (a change to existing kernel files, kept beside its
# component) from a scratch directory holding a/ (files as the previous
# patches leave them) and b/ (the edited copies), kernel paths below both.
# New kernel files belong in the component's folder, not in an edit.
#
#   tools/mkedit.sh SCRATCH OUT.diff
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 SCRATCH OUT.diff" >&2; exit 2; }
out=$(realpath -m "$2")
cd "$1"
rc=0
# --no-prefix keeps the a/ and b/ of the scratch directories as the prefixes.
git diff --no-index --no-prefix --no-color a b >"$out" || rc=$?
[ "$rc" -le 1 ] || exit "$rc"
