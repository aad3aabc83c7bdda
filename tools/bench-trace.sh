#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Cost of the drm_sched latency trace events, with the mock scheduler on UML.
# Builds bench/drm_sched_trace_bench.c into the unmodified base and into the
# series (work trees of their own, build directories of their own), then boots
# the two kernels alternately ROUNDS times. Within one boot of the series the
# events are measured off and on; base vs series-off compares two kernels, so
# it is given over the alternating boots: from the median over the boots of
# each boot's fastest round (disabled_overhead_pct; noise from the host only
# ever adds time, so a boot's fastest of 15 rounds is its least disturbed
# cost, and the median over boots drops a boot that was slow throughout), and
# from the median of the boots' median rounds as well
# (disabled_overhead_median_pct), which a few disturbed boots move by tens of
# percent.
set -euo pipefail
. "$(dirname "$0")/env.sh"

rounds=${ROUNDS:-3}
py=$TAS_TOOLS/venv/bin/python
tas_assemble
bdir=$TAS_CACHE/bench-trace
mkdir -p "$bdir"
mopts=()
for o in "${TAS_KMAKE[@]}"; do
	case "$o" in CLIPPY*) ;; *) mopts+=(--make_options "$o");; esac
done

prepare() { # name commit
	local wt=$bdir/$1
	if [ ! -d "$wt" ]; then
		git -C "$TAS_TREE" worktree prune
		git -C "$TAS_TREE" worktree add -q --detach "$wt" "$2"
	else
		git -C "$wt" checkout -q -f --detach "$2"
	fi
	cp "$TAS_ROOT/bench/drm_sched_trace_bench.c" "$wt/drivers/gpu/drm/scheduler/tests/"
	echo 'drm-sched-tests-y += drm_sched_trace_bench.o' >>"$wt/drivers/gpu/drm/scheduler/tests/Makefile"
	(cd "$wt" && python3 tools/testing/kunit/kunit.py build --arch=um \
		--kunitconfig "$TAS_ROOT/kunit/bench.kunitconfig" \
		--build_dir "$TAS_OUT/bench-$1" --jobs "$(nproc)" "${mopts[@]}" \
		>"$bdir/$1-build.log" 2>&1) || { tail -n 40 "$bdir/$1-build.log"; exit 1; }
	echo "bench-trace: built $1"
}

# The series up to and including the patch that adds the trace events.
trace_patch=$("$py" "$TAS_ROOT/tools/series.py" list |
	awk -F '\t' '/latency trace events/ { print $1; exit }')
[ -n "$trace_patch" ] || { echo "bench-trace: no trace event patch in series.yaml"; exit 1; }
prepare base "$("$py" "$TAS_ROOT/tools/series.py" commit 0)"
prepare series "$("$py" "$TAS_ROOT/tools/series.py" commit "$trace_patch")"

: >"$bdir/results.txt"
for r in $(seq 1 "$rounds"); do
	for k in base series; do
		(cd "$bdir/$k" && python3 tools/testing/kunit/kunit.py exec --arch=um \
			--build_dir "$TAS_OUT/bench-$k" --timeout 900 --raw_output=kunit \
			'drm_sched_trace_bench') >"$bdir/$k-run$r.log" 2>&1 || true
		grep -o 'tas-bench: .*' "$bdir/$k-run$r.log" | sed "s/^/$k /" >>"$bdir/results.txt"
	done
done

python3 - "$bdir/results.txt" "$rounds" <<'EOP'
import json, re, statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
val, fastest = {}, {}
for r in rows:
    kernel, mode = r[0], r[2].split("=")[1]
    m = re.search(r"ns_per_job_median=(\d+) min=(\d+)", " ".join(r))
    if m:
        val.setdefault((kernel, mode), []).append(int(m.group(1)))
        fastest.setdefault((kernel, mode), []).append(int(m.group(2)))
need = [("base", "off"), ("series", "off"), ("series", "on")]
if any(k not in val for k in need):
    sys.exit(f"bench-trace: missing results: {val}")
med = {k: statistics.median(v) for k, v in val.items()}
low = {k: statistics.median(v) for k, v in fastest.items()}
# The on/off ratio from each boot of the series (same kernel, same run).
on_off = statistics.median(on / off for on, off in zip(val[("series", "on")], val[("series", "off")]))
res = {
    "boots_per_kernel": int(sys.argv[2]),
    "base_ns_per_job": med[("base", "off")],
    "series_events_off_ns_per_job": med[("series", "off")],
    "series_events_on_ns_per_job": med[("series", "on")],
    "base_fastest_ns_per_job": low[("base", "off")],
    "series_events_off_fastest_ns_per_job": low[("series", "off")],
    "disabled_overhead_pct": round(100 * (low[("series", "off")] / low[("base", "off")] - 1), 2),
    "disabled_overhead_median_pct": round(100 * (med[("series", "off")] / med[("base", "off")] - 1), 2),
    "enabled_over_disabled_ratio": round(on_off, 3),
    "per_boot": {f"{k}/{m}": v for (k, m), v in val.items()},
    "per_boot_fastest": {f"{k}/{m}": v for (k, m), v in fastest.items()},
}
print(json.dumps(res, indent=1))
json.dump(res, open(sys.argv[1].replace("results.txt", "results.json"), "w"), indent=1)
EOP
