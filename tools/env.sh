# SPDX-License-Identifier: GPL-2.0
# Shared settings for the TAS tools; sourced, never run.
# shellcheck shell=bash

TAS_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
: "${TAS_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/tas}"
TAS_TOOLS=$TAS_CACHE/tools
TAS_BASE=$TAS_CACHE/base		# git tree of the unmodified base kernel
: "${TAS_TREE:=$TAS_CACHE/tree}"	# base + series, where builds happen
: "${TAS_OUT:=$TAS_CACHE/out}"		# build output directories
export TAS_ROOT TAS_CACHE TAS_TOOLS TAS_BASE TAS_TREE TAS_OUT
# The venv with PyTorch that traces models (tools/export-graphs.sh).
TAS_TORCH_VENV=$TAS_TOOLS/export-venv

export PATH=$TAS_TOOLS/bin:$TAS_TOOLS/venv/bin:$PATH
export LIBCLANG_PATH=/usr/lib/llvm-19/lib

# The kernel's make arguments for a Rust build with Debian's toolchain. Every
# build lints its Rust code with clippy, so the lint build is the test build.
TAS_KMAKE=(LLVM=-19 RUSTC=/usr/bin/rustc RUSTFMT=/usr/bin/rustfmt
	BINDGEN="$TAS_TOOLS/bin/bindgen" HOSTRUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc
	CLIPPY=1 CLIPPY_DRIVER=/usr/bin/clippy-driver)
TAS_KMAKE_STR="${TAS_KMAKE[*]}"
export TAS_KMAKE_STR
mkdir -p "$TAS_CACHE" "$TAS_TOOLS"

# Bring $TAS_TREE to the series as series/ has it now, without touching
# the repository's patches/ (the generated patches go to the cache); a change
# in the source folders not folded into a patch yet is built on top of it.
tas_assemble() {
	"$TAS_TOOLS/venv/bin/python" "$TAS_ROOT/tools/series.py" assemble --wip \
		--out "$TAS_OUT/assembled-patches" >/dev/null
}
