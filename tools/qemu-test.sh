#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the x86_64 kernel from $TAS_TREE (base + series, see
# tools/series.py assemble) and the TAS kselftests, boot them in QEMU (TCG)
# with vkms and virtio-gpu present, and check the results. drm/tas is a module
# (tools/qemu/tas.config): after the kselftests the guest unloads and reloads
# it $TAS_UNLOAD_ROUNDS times (default 20) under load from
# userspace/tas-stress: processes submitting graphs of 4096 nodes
# ($TAS_STRESS_NODES) or launching
# a template, killed or closing their files while nodes run. On a kernel with kmemleak
# (tools/qemu/kasan.config) it then scans for leaks; any report fails the run.
#
# Usage: tools/qemu-test.sh [--no-build|--build-only|--built] [--kunit[=GLOB]]
#   --no-build     reuse the kernel and kselftests built last time
#   --build-only   build the kernel, the kselftests and the guest's programs,
#                  and boot nothing (make check builds the two x86_64
#                  kernels this way in the background, beside other steps)
#   --built        as --no-build, but build the tas Python module as a run
#                  with the build does (the module does not depend on the
#                  kernel, and its build directory is shared)
#   --kunit[=GLOB] also run the built-in KUnit suites (matching GLOB) at boot;
#                  by default the kernel boots with kunit.enable=0
#
# Prints the kselftest and unload totals and a last line "N passed, N failed"
# (kselftests and unload rounds); exits
# non-zero on a failed, skipped or missing test, a hung guest, or a kernel
# warning, BUG, oops, sanitizer, kmemleak or lockdep report. The console log is
# kept in $TAS_OUT/x86/qemu-test.log ($TAS_KOUT_NAME instead of x86 if set).
#
# Environment: TAS_UNLOAD_ROUNDS (default 20); TAS_STRESS_NODES (default
# 4096) the nodes of each tas-stress graph; TAS_FUZZ_SECONDS (default 0)
# runs userspace/tas-fuzz for that long after the kselftests, with seed
# TAS_FUZZ_SEED (default 1), as one more test (TAS_FUZZ_MODE=load: its
# saturating load, tas-fuzz -L); TAS_KSELFTESTS=0 skips the
# kselftests (make fuzz); TAS_DEMO (default: as TAS_KSELFTESTS) runs tas-demo's
# graph in the guest and checks tools/tas_viz.py's pictures and Perfetto trace
# of it (two more tests), kept in qemu-test-viz/ beside the log.
# TAS_TIMEOUT_ROUNDS (default 0) reloads the module with a job timeout of
# 10 ms after the kselftests and runs the kselftest error_timeout_propagates
# that many times, as one more test: each round races the job timeout
# handler against the ring that executes the node.
# TAS_KSELFTEST_EXCLUDE names tas_test cases (without their fixture, as
# kselftest_harness's -T takes them) that this run leaves out;
# TAS_KSELFTEST_ONLY, without TAS_KSELFTEST_EXCLUDE, the only ones it runs
# (to run one test while working on it; a run with it is not a full check).
# TAS_USERSPACE=0 neither builds nor boots with the userspace tools (for a
# prefix of the series whose uAPI header they do not build against, see
# tools/prefix-kselftests.sh); it needs TAS_UNLOAD_ROUNDS=0, TAS_DEMO=0 and
# no TAS_FUZZ_SECONDS.
# TAS_CAPTURE_PY, a Python with PyTorch and the tas module (the venv of
# tools/export-graphs.sh), traces a ResNet-18 in the guest with
# userspace/tas-py/examples/model_template.py --capture and launches it as a
# template, as one more test (QEMU's CPU model is then "max").

set -eu

# The unload rounds come on top of the kselftests' time. The same run took
# from 437 to 1075 s of guest time (capture included) on one machine in one
# afternoon: the timeout, there for a hung guest, leaves room for that.
: "${TAS_BOOT_TIMEOUT:=900}"
# PyTorch's import and trace take about 5 minutes under TCG, and need more
# than QEMU's default CPU model (numpy stops on SSE4 instructions).
if [ -n "${TAS_CAPTURE_PY:-}" ]; then
	TAS_BOOT_TIMEOUT=$((TAS_BOOT_TIMEOUT + 900))
	export TAS_QEMU_CPU=${TAS_QEMU_CPU:-max}
fi

# shellcheck source=tools/qemu/lib.sh
. "$(dirname "$0")/qemu/lib.sh"

TARGETS="drivers/gpu/tas"
build=1 run=1 python=1
kunit=""
for arg; do
	case $arg in
	--no-build) build=0 python=0 ;;
	--build-only) run=0 python=0 ;;
	--built) build=0 ;;
	--kunit) kunit="*" ;;
	--kunit=*) kunit=${arg#--kunit=} ;;
	*) tas_die "unknown argument '$arg' (see the header of $0)" ;;
	esac
done

unload_rounds=${TAS_UNLOAD_ROUNDS:-20}
fuzz_seconds=${TAS_FUZZ_SECONDS:-0}
fuzz_seed=${TAS_FUZZ_SEED:-1}
timeout_rounds=${TAS_TIMEOUT_ROUNDS:-0}
kselftests=${TAS_KSELFTESTS:-1}
demo=${TAS_DEMO:-$kselftests}
userspace=${TAS_USERSPACE:-1}
exclude=$(echo ${TAS_KSELFTEST_EXCLUDE:-})
case $exclude in *[!a-z0-9_\ ]*) tas_die "TAS_KSELFTEST_EXCLUDE: test names only" ;; esac
[ -z "$exclude" ] || tas_log "not run on this kernel: $exclude"
only=$(echo ${TAS_KSELFTEST_ONLY:-})
case $only in *[!a-z0-9_\ ]*) tas_die "TAS_KSELFTEST_ONLY: test names only" ;; esac
[ -z "$only" ] || [ -z "$exclude" ] || tas_die "TAS_KSELFTEST_ONLY and TAS_KSELFTEST_EXCLUDE together"
[ -z "$only" ] || tas_log "only these tas_test cases: $only"
tools=(tas-stress tas-fuzz tas-demo tas-rs-smoke)
if [ "$userspace" -eq 0 ]; then
	[ "$unload_rounds" -eq 0 ] && [ "$fuzz_seconds" -eq 0 ] && [ "$demo" -eq 0 ] &&
		[ -z "${TAS_CAPTURE_PY:-}" ] ||
		tas_die "TAS_USERSPACE=0 needs TAS_UNLOAD_ROUNDS=0, TAS_DEMO=0, no TAS_FUZZ_SECONDS and no TAS_CAPTURE_PY"
	tools=()
fi

if [ "$build" -eq 1 ]; then
	tas_build_kernel
	tas_build_kselftests $TARGETS
	for tool in "${tools[@]}"; do
		if [ "$tool" = tas-rs-smoke ]; then
			tas_build_rust
		else
			tas_build_user "$tool"
		fi
	done
fi
[ "$run" -eq 1 ] || exit 0
[ "$python" -eq 0 ] || [ "$userspace" -eq 0 ] || tas_build_python
[ -z "${TAS_CAPTURE_PY:-}" ] || tas_torch_module "$TAS_CAPTURE_PY"
[ -f "$TAS_BZIMAGE" ] || tas_die "no kernel in $TAS_BZIMAGE: run without --no-build"
ksft=$TAS_KOUT/kselftest_install
[ -x "$ksft/run_kselftest.sh" ] || tas_die "no kselftests in $ksft: run without --no-build"

binaries=()
for tool in "${tools[@]}"; do
	[ -x "$TAS_KOUT/userspace/$tool" ] || tas_die "no $tool: run without --no-build"
	binaries+=("$TAS_KOUT/userspace/$tool:bin/$tool")
done
# bpftrace in the guest needs the host's: where it is installed, the demo
# runs the project's bpftrace scripts too (TAS_HOSTROOT=0 skips them).
if [ -z "${TAS_HOSTROOT:-}" ]; then
	TAS_HOSTROOT=0
	[ "$demo" -eq 0 ] || ! command -v bpftrace >/dev/null || TAS_HOSTROOT=1
fi
export TAS_HOSTROOT
# The tests of the tas Python module run in the guest on the venv's Python,
# where the module is installed, from the host's root file system.
TAS_PY=
[ "$userspace" -eq 0 ] || TAS_PY=$TAS_TOOLS/venv/bin/python
export TAS_PY
tas_initramfs kselftest "$TAS_QEMU_DIR/init-kselftest" \
	"$TAS_QEMU_DIR/guest.sh:etc/tas/guest.sh" "$ksft:kselftest" \
	"$TAS_ROOT/docs/uapi-errors.md:etc/tas/uapi-errors.md" \
	"${binaries[@]}" "$TAS_ROOT/bpftrace:etc/tas/bpftrace" \
	"$TAS_ROOT/userspace/tas-py/tests/test_tas.py:etc/tas/test_tas.py" \
	"$TAS_ROOT/userspace/tas-py/examples/quickstart.py:etc/tas/quickstart.py" \
	"$TAS_ROOT/userspace/tas-py/README.md:etc/tas/README.md" \
	"$TAS_ROOT/userspace/tas-py/examples/model_template.py:etc/tas/model_template.py" \
	"$TAS_ROOT/bench/graphs/resnet18-dp-train.tasg:etc/tas/resnet18-dp-train.tasg"


append="kunit.enable=0"
[ -z "$kunit" ] || append="kunit.filter_glob=$kunit"
# Unknown key=value words of the command line end up in init's environment.
append="$append TAS_UNLOAD_ROUNDS=$unload_rounds TAS_KSELFTESTS=$kselftests"
append="$append TAS_STRESS_NODES=${TAS_STRESS_NODES:-4096}"
append="$append TAS_FUZZ_SECONDS=$fuzz_seconds TAS_FUZZ_SEED=$fuzz_seed TAS_FUZZ_MODE=${TAS_FUZZ_MODE:-fuzz}"
append="$append TAS_TIMEOUT_ROUNDS=$timeout_rounds"
append="$append TAS_DEMO=$demo TAS_HOSTROOT=$TAS_HOSTROOT${TAS_PY:+ TAS_PY=$TAS_PY}"
append="$append${TAS_CAPTURE_PY:+ TAS_CAPTURE_PY=$TAS_CAPTURE_PY}"
[ -z "$exclude" ] || append="$append TAS_KSELFTEST_EXCLUDE=$(echo "$exclude" | tr ' ' ,)"
[ -z "$only" ] || append="$append TAS_KSELFTEST_ONLY=$(echo "$only" | tr ' ' ,)"
log=$TAS_KOUT/qemu-test.log
rc=0
tas_boot "$log" "$append" || rc=$?
tas_log "$(tas_guest_times "$log" "$TAS_BOOT_TIMEOUT")"

sed -n '/^TAS-KSELFTEST-START$/,/^TAS-KSELFTEST-END$/p' "$log"
bad=0
if [ "$rc" -eq 124 ]; then
	bad=1
elif ! grep -q '^TAS-GUEST-DONE' "$log"; then
	tas_log "the guest did not finish the tests (rc $rc); last lines of $log:"
	tail -n 30 "$log" >&2
	bad=1
fi
tas_check_kernel_log "$log" || bad=1

if [ -n "$kunit" ]; then
	kfail=$(grep -cE '^not ok [0-9]+ ' <(sed '/^TAS-GUEST:/,$d' "$log") || true)
	kpass=$(grep -cE '^ok [0-9]+ ' <(sed '/^TAS-GUEST:/,$d' "$log") || true)
	tas_log "KUnit suites: $kpass ok, $kfail not ok"
	[ "$kfail" -eq 0 ] && [ "$kpass" -gt 0 ] || bad=1
fi

passed=0 failed=0
if [ "$kselftests" -eq 1 ]; then
	tas_tap_totals "$log" TAS-KSELFTEST-START TAS-KSELFTEST-END
	failed=$((TAS_FAIL + TAS_SKIP + TAS_MISSING))
	[ "$TAS_SKIP" -eq 0 ] || tas_log "$TAS_SKIP skipped tests count as failed: the kernel is configured for them"
	[ "$TAS_MISSING" -eq 0 ] || tas_log "$TAS_MISSING tests did not report a result"
	[ "$failed" -eq 0 ] && [ "$TAS_PASS" -gt 0 ] || bad=1
	passed=$TAS_PASS
fi

if [ "$fuzz_seconds" -gt 0 ]; then
	sed -n '/^TAS-FUZZ-START$/,/^TAS-FUZZ-END$/p' "$log" | grep -E '^(not )?ok |^tas-fuzz'
	tas_tap_totals "$log" TAS-FUZZ-START TAS-FUZZ-END >/dev/null
	tas_log "tas-fuzz, seed $fuzz_seed, $fuzz_seconds s: $([ "$TAS_PASS" -eq 1 ] && echo ok || echo FAILED)"
	failed=$((failed + TAS_FAIL + TAS_SKIP + TAS_MISSING))
	[ "$TAS_PASS" -eq 1 ] || bad=1
	passed=$((passed + TAS_PASS))
fi

# host_test NAME LOG CMD: runs CMD LOG on the host as one test; prints
# "ok - NAME: " and the counts of cargo's or unittest's summary in LOG, or
# the end of LOG.
host_test() {
	local name=$1 log=$2

	if "$3" "$log"; then
		echo "ok - $name: $(awk '/^test result: ok/ { n += $4 }
			/^Ran [0-9]+ tests/ { r = $2 } /^OK/ { ok = $0 }
			END { if (n) printf "%d passed", n; if (r) printf "%d run, %s", r, ok }' "$log")"
		passed=$((passed + 1))
	else
		tail -n 30 "$log" >&2
		echo "not ok - $name: failed (log in $log)"
		failed=$((failed + 1))
		bad=1
	fi
}

# guest_tests START END COUNT: the COUNT tests the guest printed between
# START and END; each must pass.
guest_tests() {
	sed -n "/^$1\$/,/^$2\$/p" "$log" | grep -E '^(not )?ok |^tas-(rs|py): .*(not ok|ERROR|FAIL)' || true
	tas_tap_totals "$log" "$1" "$2" >/dev/null
	failed=$((failed + TAS_FAIL + TAS_SKIP + TAS_MISSING))
	[ "$TAS_PASS" -eq "$3" ] || bad=1
	passed=$((passed + TAS_PASS))
}

# The userspace library and the Python module on top of it: their tests on
# the host (those of the module that need no device, with rustfmt and
# clippy), then the library's example and all of the module's tests and its
# two examples in the guest.
if [ "$userspace" -eq 1 ]; then
	host_test "tas-rs: cargo test (unit tests, doctests, uAPI layout against the installed header)" \
		"$TAS_KOUT/tas-rs-test.log" tas_test_rust
	host_test "tas-py: the tests without a device" "$TAS_KOUT/tas-py-test.log" tas_test_python
	guest_tests TAS-RS-START TAS-RS-END 1
	guest_tests TAS-PY-START TAS-PY-END 3
fi
# A PyTorch model traced in the guest and launched as a template.
[ -z "${TAS_CAPTURE_PY:-}" ] || guest_tests TAS-CAPTURE-START TAS-CAPTURE-END 1

# The demo's graph as pictures and a Perfetto trace: tas_viz.py's own tests,
# then the guest's run converted and read back with Perfetto's schema.
if [ "$demo" -eq 1 ]; then
	py=$TAS_TOOLS/venv/bin/python
	viz=$TAS_KOUT/qemu-test-viz
	# The measures the demo and the bench print (bound, zero-cost
	# schedule), on graphs worked out by hand, and the loader of the graphs
	# exported from real models (bench/graphs), each checked against its
	# bounds: on the host.
	tas_build_user tas-graphs-test
	if "$TAS_KOUT/userspace/tas-graphs-test" "$TAS_ROOT/bench/graphs" \
		>"$viz.graphs.log" 2>&1; then
		echo "ok - $(tail -n 1 "$viz.graphs.log")"
		passed=$((passed + 1))
	else
		grep '^not ok' "$viz.graphs.log" >&2
		echo "not ok - tas-graphs-test: $(tail -n 1 "$viz.graphs.log")"
		failed=$((failed + 1))
		bad=1
	fi
	if "$py" "$TAS_ROOT/tools/test_viz.py" >"$viz.test.log" 2>&1; then
		echo "ok - tas_viz: $(grep -o 'Ran [0-9]* tests' "$viz.test.log")"
		passed=$((passed + 1))
	else
		cat "$viz.test.log" >&2
		echo "not ok - tas_viz: its tests failed"
		failed=$((failed + 1))
		bad=1
	fi
	vopts=()
	if [ "$TAS_HOSTROOT" -eq 1 ]; then
		# The guest's trace-cmd recording, read back with libtracecmd.
		sed -n '/^TAS-BPFTRACE-START /,/^TAS-TRACECMD-END$/p' "$log"
		tas_build_tracedat
		"$TAS_KOUT/userspace/tas-tracedat" "$TAS_KOUT/guest-out/trace.dat" >"$viz.tracedat" ||
			tas_log "tas-tracedat could not read the guest's trace.dat"
		vopts=(--bpftrace --tracedat "$viz.tracedat")
	else
		tas_log "bpftrace is not installed: the demo runs without bpftrace and trace-cmd"
	fi
	if "$py" "$TAS_ROOT/tools/tas_viz.py" --check "${vopts[@]}" "$log" "$viz"; then
		echo "ok - tas_viz: the guest's demo run as pictures and a Perfetto trace${vopts:+, bpftrace and trace-cmd}"
		passed=$((passed + 1))
	else
		echo "not ok - tas_viz: the guest's demo run"
		failed=$((failed + 1))
		bad=1
	fi
fi

if grep -q '^CONFIG_DRM_TAS=m' "$TAS_KOUT/.config" && [ "$timeout_rounds" -gt 0 ]; then
	# What a failed round printed, then its one TAP line.
	sed -n '/^TAS-TIMEOUT-START$/,/^TAS-TIMEOUT-END$/p' "$log" |
		grep -E '^# .*(Expected|ran )' || true
	guest_tests TAS-TIMEOUT-START TAS-TIMEOUT-END 1
fi

if grep -q '^CONFIG_DRM_TAS=m' "$TAS_KOUT/.config" && [ "$unload_rounds" -gt 0 ]; then
	sed -n '/^TAS-UNLOAD-START$/,/^TAS-UNLOAD-END$/p' "$log" | grep -E '^(not )?ok |^tas-stress'
	tas_tap_totals "$log" TAS-UNLOAD-START TAS-UNLOAD-END
	tas_log "module unload under load: $TAS_PASS of $unload_rounds rounds"
	failed=$((failed + TAS_FAIL + TAS_SKIP + TAS_MISSING))
	[ "$TAS_FAIL" -eq 0 ] && [ "$TAS_MISSING" -eq 0 ] && [ "$TAS_PASS" -eq "$unload_rounds" ] || bad=1
	passed=$((passed + TAS_PASS))
fi
tas_log "console log in $log"
echo "$passed passed, $failed failed"
exit "$bad"
