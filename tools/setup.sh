#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Idempotent set-up of everything TAS needs on Debian 12 (bookworm) or 13 (trixie):
# the Rust-for-Linux toolchain from Debian's packages, bindgen-cli from crates.io,
# QEMU, b4 and the base kernel (Debian's newest linux-source-7.3).
set -euo pipefail

. "$(dirname "$0")/env.sh"

log() { printf 'setup: %s\n' "$*"; }

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo

codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")

need_pkgs=(
	build-essential flex bison bc cpio kmod libelf-dev libssl-dev python3 python3-pip
	rsync git xz-utils busybox-static perl
	rustc-web rust-web-src rust-web-clippy rustfmt-web
	libclang-19-dev clang-19 llvm-19 lld-19
	qemu-system-x86
	bpftrace trace-cmd libtracecmd-dev libtracefs-dev libtraceevent-dev pkg-config
)

missing=()
for p in "${need_pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
	log "installing: ${missing[*]}"
	if [ "$codename" = bookworm ]; then
		# QEMU must come from bookworm-backports: the image carries
		# qemu-utils from there and apt refuses to mix.
		if ! grep -rqs bookworm-backports /etc/apt/sources.list /etc/apt/sources.list.d/; then
			echo 'deb http://deb.debian.org/debian bookworm-backports main' |
				$SUDO tee /etc/apt/sources.list.d/tas-backports.list >/dev/null
		fi
	fi
	$SUDO apt-get update -qq
	export DEBIAN_FRONTEND=noninteractive
	base=()
	for p in "${missing[@]}"; do
		[ "$p" = qemu-system-x86 ] || base+=("$p")
	done
	[ ${#base[@]} -eq 0 ] || $SUDO apt-get install -y -qq --no-install-recommends "${base[@]}"
	if printf '%s\n' "${missing[@]}" | grep -qx qemu-system-x86; then
		if [ "$codename" = bookworm ]; then
			$SUDO apt-get install -y -qq --no-install-recommends -t bookworm-backports qemu-system-x86
		else
			$SUDO apt-get install -y -qq --no-install-recommends qemu-system-x86
		fi
	fi
fi

# bindgen-cli (Debian 12's bindgen is too old for v7.3).
if ! "$TAS_TOOLS/bin/bindgen" --version 2>/dev/null | grep -q "0.71.1"; then
	log "installing bindgen-cli 0.71.1 into $TAS_TOOLS"
	cargo install bindgen-cli --version 0.71.1 --locked --root "$TAS_TOOLS" -q
fi

# b4, PyYAML (tools/series.py), ply (checkpatch's spdxcheck), Sphinx with
# the theme the kernel's docs build uses (make htmldocs), matplotlib and
# Perfetto's Python package (tools/tas_viz.py: pictures and Perfetto traces,
# written with Perfetto's own protobuf schema) and maturin (it builds the
# wheel of the tas Python module, userspace/tas-py; mypy checks its stubs)
# from PyPI, in their own virtual environment.
if ! "$TAS_TOOLS/venv/bin/b4" --version >/dev/null 2>&1 ||
	! "$TAS_TOOLS/venv/bin/maturin" --version >/dev/null 2>&1 ||
	! "$TAS_TOOLS/venv/bin/python" -c 'import yaml, ply, sphinx, alabaster, matplotlib, perfetto.trace_builder, mypy' 2>/dev/null; then
	log "installing b4, PyYAML, ply, Sphinx, matplotlib, perfetto, maturin and mypy into $TAS_TOOLS/venv"
	python3 -m venv "$TAS_TOOLS/venv"
	"$TAS_TOOLS/venv/bin/pip" install -q 'b4==0.16.*' 'PyYAML>=6' 'ply>=3.11' \
		'Sphinx==9.0.*' 'alabaster>=1' 'matplotlib>=3.8' 'perfetto==0.59.*' \
		'maturin==1.16.*' 'mypy==2.4.*'
fi

"$(dirname "$0")/fetch-base.sh"
