#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build every prefix of the series for UML (incrementally, in one build
# directory) with the options of kunit/.kunitconfig and the series' own
# options on, then the full series with the series' options off. Fails on the
# first build that breaks. The series' own options are the CONFIG_ symbols
# that its Kconfig files add (read from series.yaml's files and edits).
set -euo pipefail
. "$(dirname "$0")/env.sh"

py=$TAS_TOOLS/venv/bin/python
tas_assemble
n=$("$py" "$TAS_ROOT/tools/series.py" list | wc -l)
build=$TAS_OUT/bisect
mkdir -p "$build"

# Symbols the series introduces that a user can set: "config FOO" lines added
# by the series whose type has a prompt. Promptless symbols (e.g. the Rust
# abstraction switches that drivers select) follow the options selecting them.
new_syms=$(git -C "$TAS_TREE" diff "$("$py" "$TAS_ROOT/tools/series.py" commit 0)" series -- '*Kconfig*' |
	awk '/^\+(menu)?config [A-Z0-9_]+/ { sym = $2; next }
	     sym != "" && /^\+[ \t]+(bool|tristate)[ \t]+"/ { print sym; sym = ""; next }
	     /^\+[ \t]+(bool|tristate)/ { sym = "" }' | sort -u)

configure() { # $1: on|off
	local sym opts=()
	make -s -C "$TAS_TREE" O="$build" ARCH=um "${TAS_KMAKE[@]}" defconfig >/dev/null
	# What kunit.py builds for UML: its UML options plus our .kunitconfig.
	while read -r line; do
		case "$line" in CONFIG_*=y) opts+=(-e "${line%%=*}");; esac
	done < <(cat "$TAS_TREE/tools/testing/kunit/configs/arch_uml.config" \
		"$TAS_ROOT/kunit/.kunitconfig")
	for sym in $new_syms; do
		if [ "$1" = on ]; then opts+=(-e "$sym"); else opts+=(-d "$sym"); fi
	done
	"$TAS_TREE/scripts/config" --file "$build/.config" "${opts[@]/#CONFIG_/}"
	make -s -C "$TAS_TREE" O="$build" ARCH=um "${TAS_KMAKE[@]}" olddefconfig >/dev/null
	# Every option asked for that this prefix has must have survived
	# olddefconfig (a series option, before the patch adding it, has not).
	for sym in "${opts[@]}"; do
		case "$sym" in -e|-d) continue;; esac
		sym=${sym#CONFIG_}
		if [ "$1" = off ] && grep -qx "$sym" <<<"$new_syms"; then
			! grep -q "^CONFIG_$sym=y" "$build/.config" || {
				echo "bisect: FAIL: CONFIG_$sym is still on"; exit 1; }
			continue
		fi
		grep -q "^CONFIG_$sym=y" "$build/.config" && continue
		if grep -rqs --include='Kconfig*' "^\(menu\)\?config $sym\$" "$TAS_TREE" ; then
			echo "bisect: FAIL: CONFIG_$sym=y did not survive olddefconfig"
			exit 1
		fi
	done
}

build_one() { # $1: label
	local t0=$SECONDS
	if ! make -C "$TAS_TREE" O="$build" ARCH=um "${TAS_KMAKE[@]}" -j"$(nproc)" all \
		>"$build/build.log" 2>&1; then
		grep -E 'error|Error' "$build/build.log" | head -n 30
		echo "bisect: FAIL: $1 does not build (log: $build/build.log)"
		git -C "$TAS_TREE" checkout -q -f series
		exit 1
	fi
	# Warnings in what the series adds or edits (clippy and rustc report the
	# file on the line after the message).
	if grep -A2 -E '^(warning|error)(\[\S+\])?: |: warning: ' "$build/build.log" |
		grep -F -f <("$py" "$TAS_ROOT/tools/series.py" files) >"$build/warnings.log"; then
		cat "$build/warnings.log"
		echo "bisect: FAIL: $1 builds with warnings"
		git -C "$TAS_TREE" checkout -q -f series
		exit 1
	fi
	echo "bisect: $1 builds ($((SECONDS - t0)) s)"
}

for k in $(seq 1 "$n"); do
	git -C "$TAS_TREE" checkout -q -f "$("$py" "$TAS_ROOT/tools/series.py" commit "$k")"
	configure on
	build_one "patch $k/$n (options on: $(echo $new_syms))"
done
configure off
build_one "patch $n/$n (options off: $(echo $new_syms))"
git -C "$TAS_TREE" checkout -q -f series
echo "bisect: all $n prefixes build"
