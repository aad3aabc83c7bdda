#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Demo of the TAS slice: build the x86_64 kernel from $TAS_TREE and the
# userspace/tas-demo program, boot in QEMU (TCG) with the gpu_scheduler trace
# events enabled from boot and the drm_sched trace-event KUnit suite run by
# the kernel, then let tas-demo print what the tas render node reports and
# the scheduler events recorded in tracefs (read with libtracefs) with a
# per-job latency summary. The transformer runs also become pictures (Gantt
# charts, wait histograms) and a Perfetto trace in $TAS_OUT/x86/demo/
# (tools/tas_viz.py). Last, the tas Python module's model example
# (userspace/tas-py/examples/model_template.py) launches two captured models
# (bench/graphs) as templates, against the stock dispatch, and, with
# TAS_DEMO_TORCH=1, traces ResNet-18 with PyTorch in the guest too.
#
# Usage: tools/demo.sh [--no-build] [KUNIT_GLOB]
#   KUNIT_GLOB  KUnit suites to run at boot (default drm_sched_trace*)
#
# The console log is kept in $TAS_OUT/x86/demo.log.

set -eu

# shellcheck source=tools/qemu/lib.sh
. "$(dirname "$0")/qemu/lib.sh"

build=1
glob="drm_sched_trace*"
for arg; do
	case $arg in
	--no-build) build=0 ;;
	-*) tas_die "unknown option '$arg' (see the header of $0)" ;;
	*) glob=$arg ;;
	esac
done

if [ "$build" -eq 1 ]; then
	tas_build_kernel
fi
[ -f "$TAS_BZIMAGE" ] || tas_die "no kernel in $TAS_BZIMAGE: run without --no-build"
tas_build_user tas-demo
tas_build_python

tas_initramfs demo "$TAS_QEMU_DIR/init-demo" \
	"$TAS_QEMU_DIR/guest.sh:etc/tas/guest.sh" \
	"$TAS_KOUT/userspace/tas-demo:bin/tas-demo" \
	"$TAS_ROOT/bpftrace:etc/tas/bpftrace" \
	"$TAS_ROOT/userspace/tas-py/examples/model_template.py:etc/tas/model_template.py" \
	"$TAS_ROOT/bench/graphs:etc/tas/graphs"

# The bpftrace scripts run on the host's bpftrace (tools/setup.sh installs
# it), in the host's root file system shared with the guest.
TAS_HOSTROOT=0
command -v bpftrace >/dev/null && TAS_HOSTROOT=1
export TAS_HOSTROOT

log=$TAS_KOUT/demo.log
rc=0
# The default trace clock falls back to jiffies resolution under TCG (unstable
# TSC); the monotonic clock keeps event timestamps fine-grained.
# The Python example runs on the venv's Python, where tas_build_python
# installed the module, from the host's root file system. With
# TAS_DEMO_TORCH=1, and the venv of make export-graphs (PyTorch,
# torchvision), the example also traces ResNet-18 in the guest itself:
# importing PyTorch over 9p under TCG takes minutes.
TAS_PY=$TAS_TOOLS/venv/bin/python
torch_py=
if [ "${TAS_DEMO_TORCH:-0}" -eq 1 ]; then
	torch_py=$TAS_TORCH_VENV/bin/python
	tas_torch_module "$torch_py"
	torch_py="TAS_TORCH_PY=$torch_py"
	# PyTorch needs more than QEMU's default CPU model (SSE4, AVX).
	export TAS_QEMU_CPU=${TAS_QEMU_CPU:-max}
	TAS_BOOT_TIMEOUT=$((TAS_BOOT_TIMEOUT + 1200))
fi
tas_boot "$log" "trace_event=gpu_scheduler:* trace_clock=mono kunit.filter_glob=$glob TAS_HOSTROOT=$TAS_HOSTROOT TAS_PY=$TAS_PY${torch_py:+ $torch_py}" || rc=$?

echo "== KUnit ($glob) at boot"
sed '/^TAS-GUEST:/,$d' "$log" | grep -E '^ *(# Subtest:|(not )?ok [0-9]+ |# Totals:|# [a-z_]+: pass:)' ||
	echo "no KUnit results in the log (suite '$glob' not built in?)"
echo
sed -n '/^TAS-DEMO-START$/,/^TAS-DEMO-END$/p' "$log" | sed '1d;$d' | grep -v '^TAS-DATA '
vopts=()
if [ "$TAS_HOSTROOT" -eq 1 ]; then
	echo
	echo "== bpftrace scripts of the project (bpftrace/), around one more run of the graph"
	sed -n '/^TAS-BPFTRACE-START /,/^TAS-BPFTRACE-END$/p' "$log" |
		sed -e 's/^TAS-BPFTRACE-START \(.*\)/-- bpftrace \1 -c tas-demo/' -e '/^TAS-BPFTRACE-END$/d'
	echo
	echo "== trace-cmd record of one more run of the graph: the start of trace-cmd report"
	sed -n '/^TAS-TRACECMD-START$/,/^TAS-TRACECMD-END$/p' "$log" | sed '1d;$d'
	echo
	echo "== the same figures read back from its trace.dat with libtracecmd (userspace/tas-tracedat)"
	tas_build_tracedat
	mkdir -p "$TAS_KOUT/demo"
	"$TAS_KOUT/userspace/tas-tracedat" "$TAS_KOUT/guest-out/trace.dat" | tee "$TAS_KOUT/demo/tracedat.txt"
	cp "$TAS_KOUT/guest-out/trace.dat" "$TAS_KOUT/demo/trace.dat"
	vopts=(--bpftrace --tracedat "$TAS_KOUT/demo/tracedat.txt")
fi
echo
echo "== Pictures and a Perfetto trace of the transformer runs (tools/tas_viz.py)"
viz=0
"$TAS_TOOLS/venv/bin/python" "$TAS_ROOT/tools/tas_viz.py" --check "${vopts[@]}" "$log" "$TAS_KOUT/demo" || viz=1
echo "(open the .pftrace file with \"Open trace file\" in the Perfetto UI)"
echo
echo "== A framework's loop: captured models launched as templates (userspace/tas-py/examples/model_template.py)"
sed -n 's/^TAS-MODEL //p' "$log"

bad=0
if [ "$rc" -ne 0 ] || ! grep -q '^TAS-GUEST-DONE rc=0' "$log"; then
	tas_log "the demo did not complete (qemu rc $rc), see $log"
	bad=1
fi
tas_check_kernel_log "$log" || bad=1
[ "$viz" -eq 0 ] || bad=1
tas_log "console log in $log"
exit "$bad"
