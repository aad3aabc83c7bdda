#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: everything that tests the series, from a bare Debian machine.
#   setup, series-check, bisect and kunit-debug (UML with KASAN, UBSAN and
#   debugobjects, one build directory: the last build of bisect is the
#   kernel kunit-debug runs), checkpatch (+ rustfmt, kernel-doc, clippy),
#   capture (PyTorch models traced again, tools/export-graphs.sh --check),
#   qemu-test (x86_64 under TCG, lockdep; a model traced in the guest too),
#   qemu-kasan (KASAN, kmemleak)
# Every step runs even when an earlier one failed; the summary names each
# step's result and time, and the last line totals the test cases.
#
# Three pieces of work run in the background, beside the steps, at the
# lowest CPU and I/O priority (SCHED_IDLE, ionice idle): they take mostly
# what the steps leave of the two cores and the disk, not the steps' CPU
# time (caches and memory bandwidth they still share). From the
# start: the PyTorch venv of `capture` (a download of 5.6 GB); once bisect
# has left the tree on the whole series: the x86_64 kernels of `qemu-test`
# and `qemu-kasan`, one after the other, with their kselftests and guest
# programs. The step that needs one waits for it; the summary gives each
# background job's time too.
set -uo pipefail
. "$(dirname "$0")/env.sh"
cd "$TAS_ROOT"

t_all=$SECONDS
steps=()
failed_steps=0
step_names=()
declare -A step_rc=()
passed=0 failed=0 skipped=0
logdir=$TAS_OUT/check
mkdir -p "$logdir"
# One make check at a time per cache: its background jobs hold the lock too,
# so a run whose jobs outlived it (killed) is not raced by the next one.
exec 9>"$TAS_OUT/check.lock"
if ! flock -n 9; then
	echo "check: another make check (or its background jobs) runs on $TAS_OUT"
	exit 1
fi

step() { # name command...
	local name=$1 t0=$SECONDS rc=0
	shift
	echo "=== $name"
	"$@" 2>&1 | tee "$logdir/$name.log" || rc=${PIPESTATUS[0]}
	step_names+=("$name")
	if [ "$rc" -eq 0 ]; then
		steps+=("$(printf '%-12s ok    %5ss' "$name" $((SECONDS - t0)))")
	else
		steps+=("$(printf '%-12s FAIL  %5ss (exit %s)' "$name" $((SECONDS - t0)) "$rc")")
		failed_steps=$((failed_steps + 1))
		step_rc[$name]=$rc
	fi
	return 0
}

# Adds the "P passed, F failed, S skipped" line a step printed last.
count() { # name
	local line
	line=$(grep -E '^([a-z-]+: )?[0-9]+ passed, [0-9]+ failed' "$logdir/$1.log" | tail -n 1)
	[ -n "$line" ] || return 0
	line=${line#*: }
	passed=$((passed + $(sed -E 's/^([0-9]+) passed.*/\1/' <<<"$line")))
	failed=$((failed + $(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")))
	if grep -q skipped <<<"$line"; then
		skipped=$((skipped + $(sed -E 's/.* ([0-9]+) skipped.*/\1/' <<<"$line")))
	fi
}

# bg NAME [after JOB] COMMAND...: runs COMMAND in the background under
# SCHED_IDLE (at nice 19 where the machine refuses that policy) and idle I/O
# priority, once the background job JOB has ended if one is named, its
# output in $logdir/NAME.log; wait_bg NAME waits for it and returns its exit
# status. Each job is a process group of its own (set -m), which the EXIT
# trap ends if make check stops before it.
bg_pids=()
idle=(chrt --idle 0)
"${idle[@]}" true 2>/dev/null || idle=(nice -n 19)
! ionice -c 3 true 2>/dev/null || idle=(ionice -c 3 "${idle[@]}")
declare -A bg_pid=()
bg() { # name command...
	local name=$1 first=

	shift
	if [ "$1" = after ]; then
		first=$2
		shift 2
	fi
	rm -f "$logdir/$name.rc"
	set -m
	(
		[ -z "$first" ] || bg_done "$first" || true
		t0=$SECONDS
		rc=0
		"${idle[@]}" "$@" >"$logdir/$name.log" 2>&1 || rc=$?
		echo "$rc $((SECONDS - t0))" >"$logdir/$name.rc.tmp"
		mv "$logdir/$name.rc.tmp" "$logdir/$name.rc"
	) &
	bg_pids+=($!)
	bg_pid[$name]=$!
	set +m
	bg_names+=("$name")
}
bg_names=()
trap 'for p in "${bg_pids[@]}"; do kill -- -"$p" 2>/dev/null; done' EXIT

# bg_done NAME: waits until the job NAME has ended; fails if it ended
# without its exit status (killed).
bg_done() { # name
	while [ ! -f "$logdir/$1.rc" ]; do
		if ! kill -0 "${bg_pid[$1]}" 2>/dev/null; then
			[ -f "$logdir/$1.rc" ] || return 1
		fi
		sleep 2
	done
}

wait_bg() { # name
	local rc t

	if ! bg_done "$1"; then
		echo "check: the background job $1 ended without an exit status (log: $logdir/$1.log)"
		return 1
	fi
	read -r rc t <"$logdir/$1.rc"
	if [ "$rc" -ne 0 ]; then
		tail -n 40 "$logdir/$1.log"
		echo "check: the background job $1 failed (exit $rc; log: $logdir/$1.log)"
	fi
	return "$rc"
}

# after NAME COMMAND...: COMMAND once the background job NAME has passed.
after() { # name command...
	wait_bg "$1" || return 1
	shift
	"$@"
}

step setup tools/setup.sh
# PyTorch's wheels come over the network: their download goes on beside the
# builds.
bg torch-venv tools/export-graphs.sh --install
step series-check tools/series-check.sh
# The tree the builds use: the series as series.yaml has it.
tas_assemble
# Every prefix compiles (UML, with the options of the KUnit run): those that
# docs/bisect.tsv records as compiled, by their tree and the same options and
# tools, are not compiled again (tools/bisect.sh says which); the last
# build is the whole series with kunit/debug.kunitconfig (KASAN, UBSAN,
# debugobjects), which kunit-debug then runs without building it again. The
# same suites without the debug options (`make kunit`, kunit/.kunitconfig)
# are not run here: they would need a UML build of their own, and the debug
# kernel runs every one of their tests.
step bisect env TAS_BISECT_CONFIG=debug tools/bisect.sh
# The tree stays on the series from here: the x86_64 kernels build beside the
# next steps (qemu-test's, then qemu-kasan's, -j2 each).
bg build-x86 tools/qemu-test.sh --build-only
bg build-x86-kasan after build-x86 make -s qemu-kasan QEMU_TEST_ARGS=--build-only

step kunit-debug tools/kunit.sh kunit/debug.kunitconfig kunit-debug
count kunit-debug
# clippy is left out of checkpatch here: bisect built every patch with
# CLIPPY=1 (the kernel's make options, tools/env.sh, part of the ledger's
# key) and failed on any warning in a file of the series, so a CLIPPY=1
# rebuild of the same tree would only repeat it.
step checkpatch env TAS_LINT_SKIP=clippy tools/checkpatch.sh
# The Rust KUnit suites run at boot, under lockdep, before the selftests.
# Then 60 s of random ioctls (userspace/tas-fuzz, seed 1), 200 rounds of
# error_timeout_propagates with a 10 ms job timeout (about 35 s), and 20
# rounds of module load / tas-stress / unload.
# PyTorch in a venv of its own; the five models of bench/graphs traced again
# on the host, then ResNet-18 traced and launched in the qemu-test guest.
step capture after torch-venv tools/export-graphs.sh --check
count capture
# The guest traces a model with that step's venv only if the step passed: a
# failed capture is counted once, there.
capture_py=
[ -n "${step_rc[capture]:-}" ] || capture_py=$TAS_TORCH_VENV/bin/python
step qemu-test after build-x86 env TAS_CAPTURE_PY="$capture_py" TAS_UNLOAD_ROUNDS=20 \
	TAS_FUZZ_SECONDS=60 TAS_FUZZ_SEED=1 TAS_TIMEOUT_ROUNDS=200 tools/qemu-test.sh --built --kunit='rust_*'
count qemu-test
# Safe kernel-crate APIs that keep a C rule through their types: programs that
# must not compile, each beside a control that must, built out of tree against
# the qemu-test kernel.
step compile-fail tools/compile-fail.sh
count compile-fail
# The same on a kernel with KASAN, kmemleak and UBSAN instead of lockdep,
# with 45 s of random ioctls (seed 2), 10 unload rounds (graphs of 1024
# nodes, see the Makefile) and a kmemleak scan, less the four limit
# kselftests that the lockdep kernel runs (the Makefile's KASAN_EXCLUDE says
# why).
# The Rust KUnit suites are left out here: kunit-debug has run them under
# KASAN and UBSAN (UML) and qemu-test under lockdep (x86_64).
# (The Makefile's target holds its build directory, fragment and timeout.)
step qemu-kasan after build-x86-kasan make -s qemu-kasan ROUNDS=10 FUZZ=45 SEED=2 KASAN_KUNIT= \
	QEMU_TEST_ARGS=--built
count qemu-kasan

echo
echo "=== summary (total $((SECONDS - t_all)) s)"
printf '%s\n' "${steps[@]}"
for name in "${bg_names[@]}"; do
	read -r rc t <"$logdir/$name.rc" 2>/dev/null || rc=- t=-
	printf '%-16s %s %5ss (in the background)\n' "$name" "$([ "$rc" = 0 ] && echo 'ok  ' || echo FAIL)" "$t"
done
grep -h '^kunit: known upstream failure' "$logdir/kunit-debug.log" || true
# Why a failed step failed, here at the end where a truncated log still
# shows it: the scripts' own messages ("name.sh: ...", "name: ..."), the
# kselftests' failed assertions and "not ok" lines, and the numbered kernel
# log lines that tas_check_kernel_log reports.
for name in "${step_names[@]}"; do
	[ -n "${step_rc[$name]:-}" ] || continue
	echo "--- $name failed; its messages (all in $logdir/$name.log):"
	grep -E '^[a-z0-9_.-]+: |^not ok |^# +not ok |^# +# [a-z_]+\.c:[0-9]+:[A-Za-z0-9_]+:Expected ' "$logdir/$name.log" |
		grep -v ': known upstream failure' | tail -n 30
	grep -E '^[0-9]+[:-]' "$logdir/$name.log" | head -n 60
done
failed=$((failed + failed_steps))
echo "check: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
