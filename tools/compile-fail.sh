#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Compile-fail tests of the kernel crate's safe APIs. Safe code must not be
# able to break a C rule; where an API keeps that rule through its types, the
# test is a program that must not compile. The kernel's doctests cannot hold
# one (rustdoc hands them to scripts/rustdoc_test_builder, which only saves
# them), so each tools/compile-fail/*.rs is a module built out of tree against
# the x86_64 kernel that tools/qemu-test.sh builds ($TAS_OUT/x86, so run
# after it), twice:
#
# - as it is, the control, which must build;
# - with --cfg tas_fail, which swaps in the offending lines (#[cfg(tas_fail)]),
#   and must fail as its "//! expect: error[EXXXX] WORD" line says: with that
#   error code only, at source lines that name WORD.
#
# The two builds differ only in the lines under the cfg, so the negative one
# cannot pass by failing for another reason.
#
#   tools/compile-fail.sh [CASE.rs...]   (default: all of them)
set -euo pipefail

# shellcheck source=tools/qemu/lib.sh
. "$(dirname "$0")/qemu/lib.sh"

[ -f "$TAS_KOUT/Module.symvers" ] || tas_die "no kernel in $TAS_KOUT: run tools/qemu-test.sh first"
grep -q '^CONFIG_RUST=y' "$TAS_KOUT/.config" || tas_die "$TAS_KOUT: not a Rust kernel"

cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=("$TAS_ROOT"/tools/compile-fail/*.rs)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

passed=0
failed=0
# Builds case $1 (a source file) in its own directory, with $2 as the module's
# extra rustc flags; the log goes to $3. Returns make's exit status.
build() {
	local src=$1 flags=$2 log=$3 name dir
	name=$(basename "$src" .rs)
	dir=$work/$name${flags:+-fail}
	mkdir -p "$dir"
	cp "$src" "$dir/"
	printf 'obj-m := %s.o\nrustflags-y := %s\n' "$name" "$flags" >"$dir/Kbuild"
	tas_kmake M="$dir" modules >"$log" 2>&1
}
report() { # name why log
	if [ -z "$2" ]; then
		echo "ok - $1"
		passed=$((passed + 1))
	else
		echo "not ok - $1: $2; log in $3"
		tail -n 30 "$3" | sed 's/^/# /'
		failed=$((failed + 1))
	fi
}
for src in "${cases[@]}"; do
	name=$(basename "$src" .rs)
	expect=$(sed -n 's|^//! expect: ||p' "$src" | head -n 1)
	case $expect in
	error\[E[0-9][0-9][0-9][0-9]\]\ ?*) ;;
	*) tas_die "$src: no '//! expect: error[EXXXX] WORD' line" ;;
	esac
	grep -q '#\[cfg(tas_fail)\]' "$src" || tas_die "$src: no #[cfg(tas_fail)] lines"
	code=${expect%% *}
	word=${expect#* }

	log=$TAS_KOUT/compile-fail-$name.log
	rc=0
	build "$src" "" "$log" || rc=$?
	why=
	[ "$rc" -eq 0 ] && [ -f "$work/$name/$name.ko" ] || why="the control did not build (rc $rc)"
	report "$name (control builds)" "$why" "$log"

	log=$TAS_KOUT/compile-fail-$name-fail.log
	rc=0
	build "$src" "--cfg tas_fail" "$log" || rc=$?
	codes=$({ grep -o '^error\[E[0-9]*\]' "$log" || true; } | sort -u | tr '\n' ' ')
	why=
	if [ "$rc" -eq 0 ]; then
		why="built, but must fail with $code"
	elif [ "$codes" != "$code " ]; then
		why="failed with '${codes:-no error code}', not only $code"
	elif ! grep -F -A 12 "$code" "$log" | grep -q -F -- "$word"; then
		why="$code, but not at '$word'"
	fi
	report "$name (tas_fail: $expect)" "$why" "$log"
done
echo "compile-fail: $passed passed, $failed failed, 0 skipped"
[ "$failed" -eq 0 ]
