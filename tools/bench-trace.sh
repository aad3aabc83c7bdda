#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Cost of the drm_sched latency trace events with their events off, with the
# mock scheduler: bench/drm_sched_trace_bench.c pushes 2000 dependency-free
# jobs through it per round, 15 rounds per boot, and reports the cost per job
# of push -> last job scheduled (where the series records its timestamps and
# emits its events) with the events off and, in the same boot, on.
#
# Two kernels, each in a work tree and build directory of its own: the series
# up to the patch before the trace events ("base"), and up to the trace event
# patch ("series"). Both are measured two ways:
#
# - Instructions (the figure that can resolve 1 %): x86_64 kernels in QEMU
#   with -icount shift=0,sleep=off, where the guest's clock advances one
#   nanosecond per instruction it executes, so "ns per job" is instructions
#   per job, whatever the host is doing. ICOUNT_BOOTS boots per kernel.
# - Time: UML kernels (native code), ROUNDS boots per kernel, base and series
#   alternating so that each pair of boots shares the host's state; the
#   overhead is the median over the pairs of series/base (each boot's median
#   round), with a 95 % bootstrap interval over the pairs.
#
# The instruction difference per job is the always-on part of the patch (the
# timestamp bookkeeping outside the events, plus one NOP per tracepoint).
# Results: $TAS_CACHE/bench-trace/results.json.
set -euo pipefail
. "$(dirname "$0")/env.sh"

rounds=${ROUNDS:-8}
icount_boots=${ICOUNT_BOOTS:-5}
py=$TAS_TOOLS/venv/bin/python
tas_assemble
bdir=$TAS_CACHE/bench-trace
mkdir -p "$bdir"
mopts=()
for o in "${TAS_KMAKE[@]}"; do
	case "$o" in CLIPPY*) ;; *) mopts+=(--make_options "$o");; esac
done

# One work tree for both kernels, so that the series' build directories
# start as copies of the base's and build only what the patch changes.
wt=$bdir/src
checkout() { # commit
	if [ ! -d "$wt" ]; then
		git -C "$TAS_TREE" worktree prune
		git -C "$TAS_TREE" worktree add -q --detach "$wt" "$1"
	else
		git -C "$wt" checkout -q -f --detach "$1"
	fi
	cp "$TAS_ROOT/bench/drm_sched_trace_bench.c" "$wt/drivers/gpu/drm/scheduler/tests/"
	echo 'drm-sched-tests-y += drm_sched_trace_bench.o' >>"$wt/drivers/gpu/drm/scheduler/tests/Makefile"
}

build() { # name
	local arch
	for arch in um x86_64; do
		(cd "$wt" && python3 tools/testing/kunit/kunit.py build --arch=$arch \
			--kunitconfig "$TAS_ROOT/kunit/bench.kunitconfig" \
			--build_dir "$TAS_OUT/bench-$arch-$1" --jobs "$(nproc)" "${mopts[@]}" \
			>"$bdir/$1-$arch-build.log" 2>&1) ||
			{ tail -n 40 "$bdir/$1-$arch-build.log"; exit 1; }
	done
	echo "bench-trace: built $1 (um, x86_64)"
}

# Boot NAME for ARCH's round ROUND: UML through kunit.py; x86_64 in QEMU
# with -icount, started here because kunit.py asks for KVM first, and QEMU
# refuses -icount with it. Each boot must print its results.
run() { # name arch round
	local k=$1 arch=$2 r=$3 log=$bdir/$1-$2-$3.log

	if [ "$arch" = um ]; then
		(cd "$wt" && python3 tools/testing/kunit/kunit.py exec --arch=um \
			--build_dir "$TAS_OUT/bench-um-$k" --timeout 900 --raw_output=kunit \
			'drm_sched_trace_bench') >"$log" 2>&1 || true
	else
		timeout 900 qemu-system-x86_64 -nodefaults -m 1024 -no-reboot -nographic \
			-accel tcg -icount shift=0,sleep=off -serial stdio -bios qboot.rom \
			-kernel "$TAS_OUT/bench-x86_64-$k/arch/x86/boot/bzImage" \
			-append "kunit.filter_glob=drm_sched_trace_bench console=ttyS0 kunit_shutdown=reboot" \
			</dev/null >"$log" 2>&1 || true
	fi
	if ! grep -q 'tas-bench: events=off' "$log"; then
		echo "bench-trace: $k ($arch, round $r) printed no results (log: $log)"
		exit 1
	fi
	grep -o 'tas-bench: .*' "$log" | sed "s/^/$arch $k $r /" >>"$bdir/results.txt"
}

# The patch that adds the trace events, and the series before it.
# (The list is read whole first: awk leaving early would break the pipe.)
list=$("$py" "$TAS_ROOT/tools/series.py" list)
trace_patch=$(awk -F '\t' '/latency trace events/ { print $1; exit }' <<<"$list")
[ -n "$trace_patch" ] || { echo "bench-trace: no trace event patch in series.yaml"; exit 1; }
checkout "$("$py" "$TAS_ROOT/tools/series.py" commit $((trace_patch - 1)))"
build base
for arch in um x86_64; do
	# A copy is built incrementally from the same sources; its own earlier
	# build is kept (make sees the files the checkout changes).
	[ -d "$TAS_OUT/bench-$arch-series" ] ||
		cp -a "$TAS_OUT/bench-$arch-base" "$TAS_OUT/bench-$arch-series"
done
checkout "$("$py" "$TAS_ROOT/tools/series.py" commit "$trace_patch")"
build series

: >"$bdir/results.txt"
for r in $(seq 1 "$icount_boots"); do
	for k in base series; do
		run "$k" x86_64 "$r"
	done
done
for r in $(seq 1 "$rounds"); do
	# Alternate which kernel boots first, so that neither always follows.
	order="base series"
	[ $((r % 2)) -eq 1 ] || order="series base"
	for k in $order; do
		run "$k" um "$r"
	done
done

python3 - "$bdir/results.txt" "$rounds" "$icount_boots" <<'EOP'
import json, random, re, statistics, sys

rounds, icount_boots = int(sys.argv[2]), int(sys.argv[3])
val = {}             # (arch, kernel, mode) -> {round: that boot's median}
for r in (line.split() for line in open(sys.argv[1])):
    arch, kernel, rnd, mode = r[0], r[1], int(r[2]), r[4].split("=")[1]
    m = re.search(r"ns_per_job_median=(\d+)", " ".join(r))
    if m:
        val.setdefault((arch, kernel, mode), {})[rnd] = int(m.group(1))
need = [(a, k, m) for a in ("x86_64", "um")
        for k, m in (("base", "off"), ("series", "off"), ("series", "on"))]
missing = [k for k in need if k not in val]
if missing:
    sys.exit(f"bench-trace: no results for {missing} in {sys.argv[1]}")


def pct(x):
    return round(100 * (x - 1), 2)


def paired(num, den):
    """The ratios num/den of the rounds both have (the same boot for a
    mode pair of one kernel, adjacent boots for two kernels)."""
    return [num[r] / den[r] for r in sorted(num.keys() & den.keys())]


def median_ci(ratios, n=4000):
    """The median of the ratios, in percent over 1, with a 95 % percentile
    bootstrap interval over them (resampled with a fixed seed)."""
    rnd = random.Random(1)
    boot = sorted(statistics.median(rnd.choices(ratios, k=len(ratios)))
                  for _ in range(n))
    return (pct(statistics.median(ratios)),
            [pct(boot[int(0.025 * n)]), pct(boot[int(0.975 * n) - 1])])


x86, um = {}, {}
for (arch, kernel, mode), v in val.items():
    (x86 if arch == "x86_64" else um)[kernel, mode] = v
# Instruction counts: deterministic up to a few instructions per job, so
# the spread over the boots (min to max of the ratios) is the interval.
insn = paired(x86["series", "off"], x86["base", "off"])
time_off, time_ci = median_ci(paired(um["series", "off"], um["base", "off"]))
med = {k: statistics.median(v.values()) for k, v in val.items()}
res = {
    "icount_boots_per_kernel": icount_boots,
    "uml_boots_per_kernel": rounds,
    # Instructions per job (QEMU -icount shift=0: one ns per instruction).
    "base_insns_per_job": med["x86_64", "base", "off"],
    "series_events_off_insns_per_job": med["x86_64", "series", "off"],
    "series_events_on_insns_per_job": med["x86_64", "series", "on"],
    "always_on_insns_per_job": med["x86_64", "series", "off"] - med["x86_64", "base", "off"],
    "disabled_overhead_insns_pct": pct(statistics.median(insn)),
    "disabled_overhead_insns_pct_range": [pct(min(insn)), pct(max(insn))],
    "enabled_over_disabled_insns_pct": pct(statistics.median(
        paired(x86["series", "on"], x86["series", "off"]))),
    # Time per job on UML, base and series boots paired by round.
    "base_ns_per_job": med["um", "base", "off"],
    "series_events_off_ns_per_job": med["um", "series", "off"],
    "series_events_on_ns_per_job": med["um", "series", "on"],
    "disabled_overhead_time_pct": time_off,
    "disabled_overhead_time_pct_ci95": time_ci,
    "enabled_over_disabled_time_pct": pct(statistics.median(
        paired(um["series", "on"], um["series", "off"]))),
    "per_boot": {"/".join(k): [v[r] for r in sorted(v)] for k, v in val.items()},
}
print(json.dumps(res, indent=1))
json.dump(res, open(sys.argv[1].replace("results.txt", "results.json"), "w"), indent=1)
EOP
