#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the drm/tas kselftests of a prefix of the series on that prefix's
# kernel in QEMU, to show that each step of the driver works with the tests
# that come with it:
#
#   tools/prefix-kselftests.sh N...
#
# For each N, checks out the commit of patch N in $TAS_TREE and runs
# tools/qemu-test.sh there in a build directory of its own
# ($TAS_OUT/x86-prefix, log prefix-N.log beside it), without the userspace
# tools (they build against the final uAPI header), the demo, the fuzzer
# and the unload rounds; then goes back to the whole series. `make
# bisect-full` runs it for every patch that adds selftests.
set -euo pipefail
. "$(dirname "$0")/env.sh"

[ $# -gt 0 ] || { echo "usage: $0 N..." >&2; exit 2; }
py=$TAS_TOOLS/venv/bin/python
tas_assemble
trap 'git -C "$TAS_TREE" checkout -q -f series' EXIT
out=$TAS_OUT/x86-prefix
mkdir -p "$out"
for k in "$@"; do
	t0=$SECONDS
	git -C "$TAS_TREE" checkout -q -f "$("$py" "$TAS_ROOT/tools/series.py" commit "$k")"
	log=$out/prefix-$k.log
	if ! TAS_KOUT_NAME=x86-prefix TAS_USERSPACE=0 TAS_UNLOAD_ROUNDS=0 TAS_DEMO=0 \
		TAS_FUZZ_SECONDS=0 "$TAS_ROOT/tools/qemu-test.sh" >"$log" 2>&1; then
		tail -n 30 "$log"
		echo "prefix-kselftests: FAIL: patch $k (log: $log)"
		exit 1
	fi
	echo "prefix-kselftests: patch $k: $(tail -n 1 "$log") ($((SECONDS - t0)) s)"
done
