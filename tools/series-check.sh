#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Test the series pipeline, check that patches/ is what series.yaml and
# series/ generate (byte for byte) and that the series ends in the source
# folders' files, then apply each set's series.mbox with `b4 am` and
# `git am`, in order, onto a fresh copy of the base.
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

# Each set applies onto the base with only the sets it names in deps.
if ! "$TAS_TOOLS/venv/bin/python" "$TAS_ROOT/tools/series.py" check-sets >"$tmp/sets"; then
	cat "$tmp/sets"
	echo "series-check: FAIL: a set does not apply with only the sets it depends on" >&2
	exit 1
fi
echo "series-check: $(grep -c 'applies on the base' "$tmp/sets") sets each apply on the base with only the sets they depend on"

# Without --wip: fails when the source folders hold a change no patch has.
out=$("$TAS_TOOLS/venv/bin/python" "$TAS_ROOT/tools/series.py" assemble --no-checkout --out "$tmp/patches")
tree=${out##* tree }
if ! diff -r "$TAS_ROOT/patches" "$tmp/patches" >"$tmp/diff"; then
	head -n 40 "$tmp/diff"
	echo "series-check: FAIL: patches/ is stale; run 'make series' and commit" >&2
	exit 1
fi
echo "series-check: patches/ matches series.yaml and series/ ($(find "$TAS_ROOT"/patches -name '*.patch' | wc -l) files), which end in the source folders' files"

. "$TAS_CACHE/base.info"
want=$(sed -n 's/^  tested: *//p' "$TAS_ROOT/series.yaml")
if [ "$want" != "$base_debian_version" ]; then
	echo "series-check: note: the base here is $base_debian_version, the series was tested on $want"
fi

git -C "$TAS_BASE" worktree prune
git -C "$TAS_BASE" worktree add -q --detach "$tmp/tree" base
# Each set is applied as its users apply it: `b4 am` of its mbox by its cover
# letter's Message-ID, then `git am`, onto the base and the sets before it.
got=0 want_n=0 sets=0
for dir in $(find "$TAS_ROOT/patches" -name series.mbox -printf '%h\n' | sort -V); do
	cover_id=$(sed -n 's/^Message-ID: <\(.*\)>$/\1/p' "$dir"/*0000-cover-letter.patch)
	rm -f "$tmp"/*.mbx
	if ! (cd "$tmp" && b4 --offline-mode am -m "$dir/series.mbox" -o "$tmp" -n series "$cover_id") >"$tmp/b4.log" 2>&1; then
		cat "$tmp/b4.log"
		echo "series-check: FAIL: b4 am of ${dir#"$TAS_ROOT"/}" >&2
		exit 1
	fi
	before=$(git -C "$tmp/tree" rev-list --count base..HEAD)
	git -C "$tmp/tree" -c user.name=tas -c user.email=tas@localhost am -q --whitespace=error-all "$tmp/series.mbx"
	n=$(( $(git -C "$tmp/tree" rev-list --count base..HEAD) - before ))
	want=$(( $(ls "$dir"/*.patch | wc -l) - 1 ))
	if [ "$n" -ne "$want" ]; then
		echo "series-check: FAIL: git am applied $n of $want patches of ${dir#"$TAS_ROOT"/}" >&2
		exit 1
	fi
	got=$((got + n)) want_n=$((want_n + want)) sets=$((sets + 1))
done
# The applied tree must equal the assembled one.
if [ "$(git -C "$tmp/tree" rev-parse 'HEAD^{tree}')" != "$tree" ]; then
	echo "series-check: FAIL: the tree after git am differs from the assembled series" >&2
	exit 1
fi
echo "series-check: b4 am + git am applied $got patches of $sets sets cleanly onto $base_kernel ($base_debian_version)"
