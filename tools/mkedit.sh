#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Write an edit diff (a change to existing kernel files, kept beside its
# component) from a scratch directory holding a/ (files as the previous
# patches leave them) and b/ (the edited copies), kernel paths below both.
#
#   tools/mkedit.sh SCRATCH OUT.diff
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 SCRATCH OUT.diff" >&2; exit 2; }
cd "$1"
rc=0
diff -ruN a b >"$2.tmp" || rc=$?
[ "$rc" -le 1 ] || exit "$rc"
# git-style headers without timestamps, so the file is stable.
sed -e 's|^diff -ruN a/\(.*\) b/.*|diff --git a/\1 b/\1|' \
    -e 's|^\(--- a/[^\t]*\)\t.*|\1|' -e 's|^\(+++ b/[^\t]*\)\t.*|\1|' \
    "$2.tmp" >"$2"
rm -f "$2.tmp"
