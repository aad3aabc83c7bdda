#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the KUnit suites of the assembled series on UML with kunit.py.
#
#   tools/kunit.sh [--build-only|--exec] [KUNITCONFIG] [BUILD_SUBDIR]
#
# --build-only builds the kernel and runs nothing; --exec runs the tests of
# the kernel already built in BUILD_SUBDIR (tools/bisect.sh --full does, for
# each prefix of the series) without configuring or building it.
#
# Fails on any failed test except the two upstream drm_sched timing tests that
# fail on the unmodified base on 2-core machines; those are reported as known.
set -euo pipefail
. "$(dirname "$0")/env.sh"

action=run
case "${1:-}" in
--build-only) action=build; shift ;;
--exec) action=exec; shift ;;
esac
kconfig=$(realpath "${1:-$TAS_ROOT/kunit/.kunitconfig}")
build=$TAS_OUT/${2:-kunit}
known_fail="drm_sched_scheduler_queue_overhead drm_sched_scheduler_ping_pong"
# A configuration may add known upstream failures of its own, one test case
# name per line, in <name>.known-failures next to <name>.kunitconfig.
extra_known=${kconfig%.kunitconfig}.known-failures
[ -f "$extra_known" ] || extra_known=/dev/null

mkdir -p "$build"
log=$build/kunit.log
json=$build/kunit.json

[ -d "$TAS_TREE/.git" ] || tas_assemble

mopts=()
for o in "${TAS_KMAKE[@]}"; do
	mopts+=(--make_options "$o")
done

cd "$TAS_TREE"
if [ "$action" = build ]; then
	python3 tools/testing/kunit/kunit.py build --arch=um --kunitconfig "$kconfig" \
		--build_dir "$build" --jobs "$(nproc)" "${mopts[@]}" >"$log" 2>&1 ||
		{ tail -n 60 "$log"; exit 1; }
	exit 0
fi

kunit_run() { # run|exec
	rm -f "$json"
	rc=0
	if [ "$1" = run ]; then
		python3 tools/testing/kunit/kunit.py run --arch=um --kunitconfig "$kconfig" \
			--build_dir "$build" --jobs "$(nproc)" --timeout 900 --json="$json" \
			"${mopts[@]}" >"$log" 2>&1 || rc=$?
	else
		python3 tools/testing/kunit/kunit.py exec --arch=um \
			--build_dir "$build" --timeout 900 --json="$json" \
			>"$log" 2>&1 || rc=$?
	fi
	# The summary kunit.py printed.
	grep -E '^\[..:..:..\] (Testing complete|=+ \[(PASSED|FAILED|SKIPPED)\]|Elapsed time)' "$log" | tail -n 3 || true
}

# The suite kunit.py marked as crashed first, if any.
crashed_suite() {
	sed -nE 's/^\[..:..:..\] =+ \[CRASHED\] ([A-Za-z0-9_]+) =+$/\1/p' "$log" | head -n 1
}

kunit_run "$action"
suite=$(crashed_suite)
if [ -n "$suite" ]; then
	echo "kunit: FAIL: the kernel crashed in $suite:"
	grep -B5 -A25 -m1 -E 'Kernel panic|Segfault with no mm|Kernel mode fault' "$log" || true
fi

python3 - "$json" "$rc" "$log" "$extra_known" $known_fail <<'EOP'
import json, sys

path, rc, log, extra = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
known = set(sys.argv[5:])
with open(extra) as f:
    known |= {l.strip() for l in f if l.strip() and not l.startswith("#")}
try:
    with open(path) as f:
        data = json.load(f)
except (OSError, ValueError):
    print(f"kunit: FAIL: kunit.py produced no results (exit {rc}); see {log}")
    print(open(log).read()[-4000:])
    sys.exit(1)

counts = {"PASS": 0, "FAIL": 0, "SKIP": 0, "ERROR": 0}
failed = []

def walk(node, path):
    for sub in node.get("sub_groups", []) or []:
        walk(sub, path + [sub["name"]])
    for case in node.get("test_cases", []) or []:
        status = case.get("status", "ERROR")
        counts[status if status in counts else "ERROR"] += 1
        if status not in ("PASS", "SKIP"):
            failed.append((".".join(path + [case["name"]]), case["name"], status))

for t in data.get("sub_groups") or []:
    walk(t, [t["name"]])
for case in data.get("test_cases") or []:
    walk({"test_cases": [case]}, [])

known_hit = [f for f in failed if f[1] in known]
real = [f for f in failed if f[1] not in known]
total = sum(counts.values())
for name, _, status in known_hit:
    print(f"kunit: known upstream failure on the unmodified base too, "
          f"not counted: {name} {status}")
for name, _, status in real:
    print(f"kunit: FAILED: {name} {status}")
print(f"kunit: {total} test cases run, {len(known_hit)} known failures not counted")
if total == 0:
    print("kunit: FAIL: no test ran")
    sys.exit(1)
print(f"kunit: {counts['PASS']} passed, {len(real)} failed, {counts['SKIP']} skipped")
if real:
    print(f"kunit: FAIL; full log in {log}")
    sys.exit(1)
EOP
# Kernel reports (KASAN, UBSAN, lockdep, debugobjects, WARN, BUG) fail the run
# even when every test passed, except the known upstream ones listed in
# kunit/known-reports (each with its reason).
python3 "$TAS_ROOT/tools/kreports.py" "$build/test.log" "$TAS_ROOT/kunit/known-reports"
