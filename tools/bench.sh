#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmarks of the graph dispatcher: build the x86_64 kernel from $TAS_TREE
# (tools/qemu/tas.config without its debugging options, tools/qemu/bench.config)
# and userspace/tas-bench, boot in QEMU (TCG) with 8 rings, print the table
# and write bench/results.json. Every figure is a ratio of two measurements
# taken in the same guest. Not part of `make check`.
#
# With --with-trace, tools/bench-trace.sh then measures the cost of the trace
# events compiled in but disabled, against the patch before them: in
# instructions (QEMU -icount, trace_disabled_overhead_pct, with its 95 %
# interval) and in time (UML, alternating boots,
# trace_disabled_overhead_time_pct).
#
# After the benchmarks the guest runs the concurrent clients soak
# (userspace/tas-fuzz -S: 8 processes x $TAS_SOAK_GRAPHS graphs, default
# 10000, waiting for each other's syncobjs and killed at random); its counts
# go to the "soak" entry of bench/results.json, and any violation fails.
#
# The graphs exported from real models (bench/graphs, tools/export-graphs.py)
# run under both dispatches; their figures are the models_* keys.
#
# The samples behind latency_class_p99_gain become a picture,
# bench/latency-classes.png and .svg (tools/tas_viz.py --bench).
#
# With --no-bpf the same benchmarks run on a kernel without the options that
# tas.config adds for bpftrace and trace-cmd in the guest (BPF, kprobes, 9p,
# networking: tools/qemu/bench-nobpf.config). The results go to
# bench/results-nobpf.json and are printed beside those of bench/results.json
# (from the last run without --no-bpf), each figure with its ratio.
#
# With TAS_BENCH set to a comma-separated list of tas-bench's benchmarks
# (e.g. TAS_BENCH=clock,template), only those run, without the soak, the
# pictures and the trace part, and the results are printed but not written to
# bench/: for a quick look while working on one of them.
#
# Usage: tools/bench.sh [--no-build] [--with-trace | --no-bpf]

set -eu

build=1
trace=0
nobpf=0
for arg; do
	case $arg in
	--no-build) build=0 ;;
	--with-trace) trace=1 ;;
	--no-bpf) nobpf=1 ;;
	*)
		echo "${0##*/}: unknown argument '$arg' (see the header of $0)" >&2
		exit 1
		;;
	esac
done

# A kernel of its own, without the debugging options of the test kernel.
TAS_KOUT_NAME=x86-bench
TAS_KCONFIG_EXTRA=$(realpath "$(dirname "$0")")/qemu/bench.config
results=results.json
if [ "$nobpf" -eq 1 ]; then
	TAS_KOUT_NAME=x86-bench-nobpf
	TAS_KCONFIG_EXTRA="$TAS_KCONFIG_EXTRA ${TAS_KCONFIG_EXTRA%/*}/bench-nobpf.config"
	results=results-nobpf.json
	trace=0
fi
# The benchmarks take about 3 minutes, the soak a few more.
: "${TAS_BOOT_TIMEOUT:=1800}"
# shellcheck source=tools/qemu/lib.sh
. "$(dirname "$0")/qemu/lib.sh"

if [ "$build" -eq 1 ]; then
	tas_build_kernel
fi
[ -f "$TAS_BZIMAGE" ] || tas_die "no kernel in $TAS_BZIMAGE: run without --no-build"
tas_build_user tas-bench
tas_build_user tas-fuzz

# The graphs exported from real models (tools/export-graphs.py).
graphs=()
for f in "$TAS_ROOT"/bench/graphs/*.tasg; do
	graphs+=("$f:etc/tas/graphs/${f##*/}")
done
tas_initramfs bench "$TAS_QEMU_DIR/init-bench" \
	"$TAS_QEMU_DIR/guest.sh:etc/tas/guest.sh" \
	"$TAS_ROOT/docs/uapi-errors.md:etc/tas/uapi-errors.md" \
	"$TAS_KOUT/userspace/tas-bench:bin/tas-bench" \
	"$TAS_KOUT/userspace/tas-fuzz:bin/tas-fuzz" \
	"${graphs[@]}"

only=${TAS_BENCH:-}
# A partial run's log does not replace the whole run's.
log=$TAS_KOUT/bench${only:+-partial}.log
rc=0
# The host timeout bounds the host node that holds 1000 graphs waiting while
# tas-bench measures with them in flight (their submission takes seconds).
tas_boot "$log" "tas.num_rings=8 tas.host_timeout_ms=60000 kunit.enable=0 TAS_SOAK_GRAPHS=${TAS_SOAK_GRAPHS:-10000}${only:+ TAS_BENCH=$only}" || rc=$?

sed -n '/^TAS-BENCH-START$/,/^TAS-BENCH-END$/p' "$log" | sed '1d;$d' | grep -v -E '^TAS-BENCH-(JSON|DATA) '
json=$(sed -n 's/^TAS-BENCH-JSON //p' "$log" | tail -n 1)
if [ -n "$only" ]; then
	if [ "$rc" -ne 0 ] || ! grep -q '^TAS-GUEST-DONE rc=0' "$log" || [ -z "$json" ]; then
		tas_log "the benchmarks '$only' did not complete (qemu rc $rc), see $log"
		exit 1
	fi
	tas_check_kernel_log "$log"
	exit
fi
sed -n '/^TAS-SOAK-START$/,/^TAS-SOAK-END$/p' "$log" | grep -E '^tas-fuzz'
soak=$(sed -n '/^TAS-SOAK-START$/,/^TAS-SOAK-END$/s/^TAS-FUZZ-JSON //p' "$log" | tail -n 1)
bad=0
if [ -n "$json" ] && [ -n "$soak" ]; then
	mkdir -p "$TAS_ROOT/bench"
	python3 -c 'import json, sys
res = json.loads(sys.argv[1])
res["soak"] = json.loads(sys.argv[2])
print(json.dumps(res, indent=4))' "$json" "$soak" >"$TAS_ROOT/bench/$results"
	tas_log "wrote bench/$results"
else
	tas_log "no results (or no soak results) in $log"
	bad=1
fi
if [ "$rc" -ne 0 ] || ! grep -q '^TAS-GUEST-DONE rc=0' "$log"; then
	tas_log "the benchmark did not complete (qemu rc $rc), see $log"
	bad=1
fi
tas_check_kernel_log "$log" || bad=1

if [ "$bad" -eq 0 ]; then
	pics=$TAS_ROOT/bench
	[ "$nobpf" -eq 0 ] || pics=$TAS_KOUT/pictures
	"$TAS_TOOLS/venv/bin/python" "$TAS_ROOT/tools/tas_viz.py" --bench "$log" "$pics" || bad=1
fi

if [ "$nobpf" -eq 1 ] && [ "$bad" -eq 0 ] && [ -f "$TAS_ROOT/bench/results.json" ]; then
	python3 - "$TAS_ROOT/bench/results.json" "$TAS_ROOT/bench/$results" <<'EOP'
import json, sys
with_bpf = json.load(open(sys.argv[1]))
without = json.load(open(sys.argv[2]))
print("  the cost of tas.config's bpftrace options: the same figures on a kernel without them")
print(f"  {'key':36} {'with':>10} {'without':>10} {'with/without':>13}")
for key, w in with_bpf.items():
    wo = without.get(key)
    if not isinstance(w, (int, float)) or not isinstance(wo, (int, float)):
        continue
    ratio = f"{w / wo:13.3f}" if wo else f"{'-':>13}"
    print(f"  {key:36} {w:10.3f} {wo:10.3f} {ratio}")
EOP
fi

if [ "$trace" -eq 1 ] && [ "$bad" -eq 0 ]; then
	ROUNDS=${ROUNDS:-8} "$TAS_ROOT/tools/bench-trace.sh" || bad=1
	python3 - "$TAS_CACHE/bench-trace/results.json" "$TAS_ROOT/bench/results.json" <<'EOP' || bad=1
import json, sys
trace = json.load(open(sys.argv[1]))
res = json.load(open(sys.argv[2]))
res.pop("trace_disabled_overhead_median_pct", None)
res["trace_disabled_overhead_pct"] = trace["disabled_overhead_insns_pct"]
res["trace_disabled_overhead_pct_range"] = trace["disabled_overhead_insns_pct_range"]
res["trace_always_on_insns_per_job"] = trace["always_on_insns_per_job"]
res["trace_disabled_overhead_time_pct"] = trace["disabled_overhead_time_pct"]
res["trace_disabled_overhead_time_pct_ci95"] = trace["disabled_overhead_time_pct_ci95"]
json.dump(res, open(sys.argv[2], "w"), indent=4)
print(f"  trace_disabled_overhead_pct {trace['disabled_overhead_insns_pct']:>21}   <= 1     "
      f"drm_sched push-to-run instructions per job, events compiled in but off / the patch "
      f"before (QEMU -icount, {trace['icount_boots_per_kernel']} boots each, range over them "
      f"{trace['disabled_overhead_insns_pct_range']})")
print(f"  trace_always_on_insns_per_job {trace['always_on_insns_per_job']:>19}   -        "
      f"instructions per job that the patch adds with its events off "
      f"({trace['base_insns_per_job']} -> {trace['series_events_off_insns_per_job']})")
print(f"  trace_disabled_overhead_time_pct {trace['disabled_overhead_time_pct']:>16}   -        "
      f"the same in time (UML, {trace['uml_boots_per_kernel']} alternating boot pairs, "
      f"95 % interval {trace['disabled_overhead_time_pct_ci95']})")
EOP
fi
exit "$bad"
