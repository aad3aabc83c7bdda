#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Cost of the drm_sched latency trace events, with the mock scheduler on UML.
# Builds bench/drm_sched_trace_bench.c into the unmodified base and into the
# series (work trees of their own, build directories of their own), then boots
# the two kernels alternately ROUNDS times. Within one boot of the series the
# events are measured off and on; base vs series-off compares two kernels, so
# it is given as the median over the alternating boots.
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
val = {}
for r in rows:
    kernel, mode = r[0], r[2].split("=")[1]
    m = re.search(r"ns_per_job_median=(\d+)", " ".join(r))
    if m:
        val.setdefault((kernel, mode), []).append(int(m.group(1)))
need = [("base", "off"), ("series", "off"), ("series", "on")]
if any(k not in val for k in need):
    sys.exit(f"bench-trace: missing results: {val}")
med = {k: statistics.median(v) for k, v in val.items()}
# The on/off ratio from each boot of the series (same kernel, same run).
on_off = statistics.median(on / off for on, off in zip(val[("series", "on")], val[("series", "off")]))
res = {
    "boots_per_kernel": int(sys.argv[2]),
    "base_ns_per_job": med[("base", "off")],
    "series_events_off_ns_per_job": med[("series", "off")],
    "series_events_on_ns_per_job": med[("series", "on")],
    "disabled_overhead_pct": round(100 * (med[("series", "off")] / med[("base", "off")] - 1), 2),
    "enabled_over_disabled_ratio": round(on_off, 3),
    "per_boot": {f"{k}/{m}": v for (k, m), v in val.items()},
}
print(json.dumps(res, indent=1))
json.dump(res, open(sys.argv[1].replace("results.txt", "results.json"), "w"), indent=1)
EOP
