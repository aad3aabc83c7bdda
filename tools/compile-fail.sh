#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Compile-fail tests of the kernel crate's safe APIs. Safe code must not be
# able to break a C rule; where an API keeps that rule through its types, the
# test is a program that must not compile. The kernel's doctests cannot hold
# one (rustdoc hands them to scripts/rustdoc_test_builder, which only saves
# them), so each tools/compile-fail/*.rs is a module built out of tree against
# the x86_64 kernel that tools/qemu-test.sh builds ($TAS_OUT/x86, so run
# after it), and its "//! expect:" line says what the build must do:
#
#   //! expect: ok                     it builds (the control of a negative case)
#   //! expect: error[E0597] WORD      it fails with that error code only, and
#                                      the error's source lines name WORD
#
# A negative case comes with a control that differs from it only in the
# offending line, so that it cannot pass by failing for another reason.
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
for src in "${cases[@]}"; do
	name=$(basename "$src" .rs)
	expect=$(sed -n 's|^//! expect: ||p' "$src" | head -n 1)
	[ -n "$expect" ] || tas_die "$src: no '//! expect:' line"
	dir=$work/$name
	mkdir -p "$dir"
	cp "$src" "$dir/"
	echo "obj-m := $name.o" >"$dir/Kbuild"
	log=$TAS_KOUT/compile-fail-$name.log
	rc=0
	tas_kmake M="$dir" modules >"$log" 2>&1 || rc=$?

	why=
	case $expect in
	ok)
		[ "$rc" -eq 0 ] && [ -f "$dir/$name.ko" ] || why="did not build (rc $rc)"
		;;
	error\[E[0-9][0-9][0-9][0-9]\]\ *)
		code=${expect%% *}
		word=${expect#* }
		codes=$({ grep -o '^error\[E[0-9]*\]' "$log" || true; } | sort -u | tr '\n' ' ')
		if [ "$rc" -eq 0 ]; then
			why="built, but must fail with $code"
		elif [ "$codes" != "$code " ]; then
			why="failed with '${codes:-no error code}', not only $code"
		elif ! grep -F -A 12 "$code" "$log" | grep -q -F -- "$word"; then
			why="$code, but not at '$word'"
		fi
		;;
	*)
		tas_die "$src: unknown expectation '$expect'"
		;;
	esac
	if [ -z "$why" ]; then
		echo "ok - $name ($expect)"
		passed=$((passed + 1))
	else
		echo "not ok - $name: $why; log in $log"
		tail -n 30 "$log" | sed 's/^/# /'
		failed=$((failed + 1))
	fi
done
echo "compile-fail: $passed passed, $failed failed, 0 skipped"
[ "$failed" -eq 0 ]
