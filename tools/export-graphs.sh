#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The graphs of real model work (bench/graphs/*.tasg), traced from PyTorch
# models by tools/export-graphs.py with the tas module's tas.capture, in a
# virtual environment of their own ($TAS_TORCH_VENV) with the versions
# they were exported with. The tas module in it is the wheel that
# tools/qemu/lib.sh's tas_build_python builds for the project's venv.
#
# Usage: tools/export-graphs.sh [--check|--install]
#   (none)    write bench/graphs again (make export-graphs)
#   --install only install PyTorch, torchvision and transformers into the
#             venv (make check does this in the background while it builds)
#   --check   write them to $TAS_OUT/graphs and compare them with
#             bench/graphs, one test per graph: the capture of each model
#             must give the stored bytes (make check). Prints
#             "capture: N passed, N failed" last.
#
# PyPI has no CPU-only build of PyTorch for x86_64 Linux: the venv holds the
# CUDA build (5.6 GB), which traces on the CPU (the models are built on the
# meta device). Cold, the install and the export take about 3 minutes.

set -eu

# shellcheck source=tools/qemu/lib.sh
. "$(dirname "$0")/qemu/lib.sh"

check=0
case ${1:-} in
"") ;;
--check) check=1 ;;
--install) check=2 ;;
*) tas_die "unknown argument '$1' (see the header of $0)" ;;
esac

venv=$TAS_TORCH_VENV
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
tas_log "installing PyTorch, torchvision and transformers into $venv"
"$venv/bin/pip" install -q torch==2.15.0 torchvision==0.29.2 transformers==5.24.0 ||
	tas_die "installing PyTorch failed"
[ "$check" -ne 2 ] || exit 0
tas_build_python
tas_torch_module "$venv/bin/python"

if [ "$check" -eq 0 ]; then
	exec "$venv/bin/python" "$TAS_ROOT/tools/export-graphs.py" "$TAS_ROOT/bench/graphs"
fi

out=$TAS_OUT/graphs
rm -rf "$out"
mkdir -p "$out"
"$venv/bin/python" "$TAS_ROOT/tools/export-graphs.py" "$out" || tas_die "tools/export-graphs.py failed"
passed=0 failed=0
for stored in "$TAS_ROOT"/bench/graphs/*.tasg; do
	name=${stored##*/}
	if cmp -s "$stored" "$out/$name"; then
		echo "ok - capture: $name traced again gives the stored bytes"
		passed=$((passed + 1))
	else
		echo "not ok - capture: $name traced again differs from bench/graphs (see $out/$name)"
		failed=$((failed + 1))
	fi
done
[ "$passed" -gt 0 ] || failed=$((failed + 1))
echo "capture: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
