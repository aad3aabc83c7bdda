#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Test the series pipeline, check that patches/ is what series.yaml and
# series/ generate (byte for byte) and that the series ends in the source
# folders' files, then apply patches/series.mbox with `b4 am` and `git am`
# onto a fresh copy of the base.
set -euo pipefail
. "$(dirname "$0")/env.sh"

tmp=$(mktemp -d)
trap 'git -C "$TAS_BASE" worktree remove --force "$tmp/tree" 2>/dev/null || true; rm -rf "$tmp"' EXIT

# The pipeline (build, fold, import) does what series.py says.
if ! "$TAS_TOOLS/venv/bin/python" "$TAS_ROOT/tools/test_series.py" -q >"$tmp/pipeline" 2>&1; then
	cat "$tmp/pipeline"
	echo "series-check: FAIL: tools/test_series.py" >&2
	exit 1
fi
echo "series-check: pipeline: $(grep -o 'Ran [0-9]* tests' "$tmp/pipeline")"

# Every version of every C, header and Rust file the series adds is laid out
# as if written by hand: no two blank lines in a row, a blank line after '}'.
if ! "$TAS_TOOLS/venv/bin/python" "$TAS_ROOT/tools/series.py" check-layout >"$tmp/layout"; then
	head -n 20 "$tmp/layout"
	echo "series-check: FAIL: blank lines in a version of a file the series adds" >&2
	exit 1
fi
echo "series-check: every version of the C, header and Rust files the series adds laid out cleanly"

# Without --wip: fails when the source folders hold a change no patch has.
out=$("$TAS_TOOLS/venv/bin/python" "$TAS_ROOT/tools/series.py" assemble --no-checkout --out "$tmp/patches")
tree=${out##* tree }
if ! diff -r "$TAS_ROOT/patches" "$tmp/patches" >"$tmp/diff"; then
	head -n 40 "$tmp/diff"
	echo "series-check: FAIL: patches/ is stale; run 'make series' and commit" >&2
	exit 1
fi
echo "series-check: patches/ matches series.yaml and series/ ($(ls "$TAS_ROOT"/patches/*.patch | wc -l) files), which end in the source folders' files"

. "$TAS_CACHE/base.info"
want=$(sed -n 's/^  tested: *//p' "$TAS_ROOT/series.yaml")
if [ "$want" != "$base_debian_version" ]; then
	echo "series-check: note: the base here is $base_debian_version, the series was tested on $want"
fi

git -C "$TAS_BASE" worktree prune
git -C "$TAS_BASE" worktree add -q --detach "$tmp/tree" base
cover_id=$(sed -n 's/^Message-ID: <\(.*\)>$/\1/p' "$TAS_ROOT"/patches/*0000-cover-letter.patch)
if ! (cd "$tmp" && b4 --offline-mode am -m "$TAS_ROOT/patches/series.mbox" -o "$tmp" -n series "$cover_id") >"$tmp/b4.log" 2>&1; then
	cat "$tmp/b4.log"
	echo "series-check: FAIL: b4 am" >&2
	exit 1
fi
n=$(grep -c '^Subject: \[.*PATCH' "$tmp/series.mbx" || true)
git -C "$tmp/tree" -c user.name=tas -c user.email=tas@localhost am -q --whitespace=error-all "$tmp/series.mbx"
got=$(git -C "$tmp/tree" rev-list --count base..HEAD)
want_n=$(( $(ls "$TAS_ROOT"/patches/*.patch | wc -l) - 1 ))
if [ "$got" -ne "$want_n" ]; then
	echo "series-check: FAIL: git am applied $got of $want_n patches (b4 found $n)" >&2
	exit 1
fi
# The applied tree must equal the assembled one.
if [ "$(git -C "$tmp/tree" rev-parse 'HEAD^{tree}')" != "$tree" ]; then
	echo "series-check: FAIL: the tree after git am differs from the assembled series" >&2
	exit 1
fi
echo "series-check: b4 am + git am applied $got patches cleanly onto $base_kernel ($base_debian_version)"
