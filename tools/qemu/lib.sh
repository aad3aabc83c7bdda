# SPDX-License-Identifier: GPL-2.0
# Shared steps of tools/qemu-test.sh and tools/demo.sh: configure and build the
# x86_64 kernel from $TAS_TREE, build the kselftests and static userspace
# programs against its uAPI headers, pack a busybox initramfs, boot it in QEMU
# (TCG) and check the console log. Sourced, never run.
# shellcheck shell=bash

# shellcheck source=tools/env.sh
. "$(dirname "${BASH_SOURCE[0]}")/../env.sh"

TAS_QEMU_DIR=$TAS_ROOT/tools/qemu
# Kernel build directory; tools/bench.sh builds its own kernel (x86-bench).
TAS_KOUT=$TAS_OUT/${TAS_KOUT_NAME:-x86}
# Configuration fragments (paths separated by spaces) applied after
# tools/qemu/tas.config, in order, if any.
TAS_KCONFIG_EXTRA=${TAS_KCONFIG_EXTRA:-}
TAS_BZIMAGE=$TAS_KOUT/arch/x86/boot/bzImage
TAS_KHDR=$TAS_KOUT/usr/include			# from `make headers_install`
TAS_JOBS=${TAS_JOBS:-2}
# Bound on one boot; a guest that is still running after it is hung.
TAS_BOOT_TIMEOUT=${TAS_BOOT_TIMEOUT:-300}
# Extra kernel command line, e.g. TAS_APPEND=tas.num_rings=16.
TAS_APPEND=${TAS_APPEND:-}

tas_log() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }
tas_die() { tas_log "error: $*"; exit 1; }

tas_kmake() {
	make -C "$TAS_TREE" O="$TAS_KOUT" ARCH=x86_64 "${TAS_KMAKE[@]}" "$@"
}

# Run "$@" with its output in $1 (a log file); show the tail if it fails.
tas_logged() {
	local log=$1 start rc=0

	shift
	start=$(date +%s)
	"$@" >"$log" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ]; then
		tail -n 40 "$log" >&2
		tas_die "'$*' failed (rc $rc), full log in $log"
	fi
	tas_log "done in $(($(date +%s) - start)) s, log in $log"
}

# The options requested by the configuration fragments "$@", the last request
# of each symbol, one per line.
tas_config_requests() {
	cat "$@" | tac | awk '
		/^CONFIG_[A-Za-z0-9_]+=/ { s = $0; sub(/=.*/, "", s) }
		/^# CONFIG_[A-Za-z0-9_]+ is not set$/ { s = $2 }
		s != "" && !(s in seen) { seen[s] = 1; print }
		{ s = "" }'
}

# tinyconfig + tools/qemu/tas.config (+ $TAS_KCONFIG_EXTRA), checked against
# the result of olddefconfig. The result replaces .config only when it
# differs, so that an unchanged configuration keeps the build incremental.
tas_configure() {
	local new=$TAS_KOUT/.config.tas line sym want got bad=0
	local frags=("$TAS_QEMU_DIR/tas.config") extra

	read -ra extra <<<"$TAS_KCONFIG_EXTRA"
	frags+=("${extra[@]}")

	[ -d "$TAS_TREE/.git" ] || tas_die "no kernel tree in $TAS_TREE (run tools/series.py assemble)"
	mkdir -p "$TAS_KOUT"
	tas_log "configuring the kernel in $TAS_KOUT"
	rm -f "$new"
	KCONFIG_CONFIG=.config.tas tas_kmake -s tinyconfig >/dev/null ||
		tas_die "make tinyconfig failed"
	(cd "$TAS_KOUT" && KCONFIG_CONFIG=.config.tas \
		"$TAS_TREE/scripts/kconfig/merge_config.sh" -m -O "$TAS_KOUT" \
		"$new" "${frags[@]}" >/dev/null) ||
		tas_die "merge_config.sh failed"
	KCONFIG_CONFIG=.config.tas tas_kmake -s olddefconfig >/dev/null ||
		tas_die "make olddefconfig failed"

	while IFS= read -r line; do
		case $line in
		CONFIG_*=n)
			sym=${line%%=*}
			want="# $sym is not set"
			;;
		CONFIG_*=*)
			sym=${line%%=*}
			want=$line
			;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }
			sym=${sym%% *}
			want=$line
			;;
		*)
			continue
			;;
		esac
		got=$(grep -E "^($sym=|# $sym is not set)" "$new" || true)
		# An option whose dependencies are off is left out: not set.
		[ -n "$got" ] || [ "$want" != "# $sym is not set" ] || got=$want
		if [ "$got" != "$want" ]; then
			[ -n "$got" ] || got="(absent)"
			tas_log "requested '$want', got '$got'"
			bad=1
		fi
	done < <(tas_config_requests "${frags[@]}")
	[ "$bad" -eq 0 ] || tas_die "options of ${frags[*]} did not survive olddefconfig"

	if ! cmp -s "$new" "$TAS_KOUT/.config"; then
		mv "$new" "$TAS_KOUT/.config"
	else
		rm -f "$new"
	fi
}

tas_build_kernel() {
	local logs=("$TAS_KOUT/build.log")

	tas_configure
	tas_log "building bzImage (-j$TAS_JOBS)"
	tas_logged "$TAS_KOUT/build.log" tas_kmake -j"$TAS_JOBS" bzImage
	if grep -q '^CONFIG_DRM_TAS=m' "$TAS_KOUT/.config"; then
		tas_log "building modules (-j$TAS_JOBS)"
		tas_logged "$TAS_KOUT/modules.log" tas_kmake -j"$TAS_JOBS" modules
		logs+=("$TAS_KOUT/modules.log")
	else
		rm -f "$TAS_KOUT/drivers/gpu/drm/tas/tas.ko"
	fi
	# objtool's warnings do not fail the build, but each is a bug (code
	# that falls through a call objtool does not know as no-return, say).
	# Only this build's logs: a modules.log of an earlier configuration
	# does not count.
	if grep -hE 'warning: objtool: ' "${logs[@]}"; then
		tas_die "objtool warned (above)"
	fi
	tas_log "installing the uAPI headers"
	tas_logged "$TAS_KOUT/headers.log" tas_kmake headers_install
}

# Build and install kselftest targets ("$@") statically linked, through the
# kernel's selftests Makefile, into $TAS_KOUT/kselftest_install.
tas_build_kselftests() {
	local install=$TAS_KOUT/kselftest_install

	rm -rf "$install"
	tas_log "building kselftests: $*"
	tas_logged "$TAS_KOUT/kselftest.log" env LDFLAGS=-static \
		make -C "$TAS_TREE/tools/testing/selftests" O="$TAS_KOUT" \
		TARGETS="$*" KSFT_INSTALL_PATH="$install" install
	TAS_KSFT_INSTALL=$install
}

# Build a static program from userspace/ against the kernel's uAPI headers.
tas_build_user() {
	local name=$1 libs=()

	# tas-demo reads the trace events with libtracefs and libtraceevent.
	# shellcheck disable=SC2207 # pkg-config prints one word per option
	[ "$name" != tas-demo ] ||
		libs=($(pkg-config --static --cflags --libs libtracefs)) ||
		tas_die "no libtracefs (libtracefs-dev installed?)"
	mkdir -p "$TAS_KOUT/userspace"
	tas_log "building userspace/$name"
	${CC:-cc} -static -O2 -Wall -Wextra -Werror -isystem "$TAS_KHDR" \
		-o "$TAS_KOUT/userspace/$name" "$TAS_ROOT/userspace/$name.c" "${libs[@]}" ||
		tas_die "building userspace/$name failed"
}

# tas_build_rust: the userspace library's example (userspace/tas-rs,
# examples/smoke.rs), static like the C tools, as
# $TAS_KOUT/userspace/tas-rs-smoke for the guest. The crate's build directory
# is shared by the kernels ($TAS_OUT/tas-rs).
tas_build_rust() {
	mkdir -p "$TAS_KOUT/userspace"
	tas_log "building userspace/tas-rs (examples/smoke.rs)"
	# With an explicit --target, the static flag is not applied to the
	# proc-macros that run in cargo.
	CARGO_TARGET_DIR=$TAS_OUT/tas-rs RUSTFLAGS="-C target-feature=+crt-static" \
		cargo build --locked -q --release --example smoke --target x86_64-unknown-linux-gnu \
		--manifest-path "$TAS_ROOT/userspace/tas-rs/Cargo.toml" ||
		tas_die "building userspace/tas-rs failed"
	cp "$TAS_OUT/tas-rs/x86_64-unknown-linux-gnu/release/examples/smoke" \
		"$TAS_KOUT/userspace/tas-rs-smoke"
}

# tas_test_rust LOG: the userspace library's tests on the host: its unit
# tests, doctests and the check of its uAPI structures and constants
# against the header this kernel installed (tests/layout.rs), then rustfmt
# and clippy (warnings are errors).
tas_test_rust() {
	local manifest=$TAS_ROOT/userspace/tas-rs/Cargo.toml

	{
		CARGO_TARGET_DIR=$TAS_OUT/tas-rs TAS_UAPI_HEADER=$TAS_KHDR/drm/tas_drm.h \
			TAS_UAPI_INCLUDE=$TAS_KHDR cargo test --locked --manifest-path "$manifest" &&
			cargo fmt --manifest-path "$manifest" --check &&
			CARGO_TARGET_DIR=$TAS_OUT/tas-rs cargo clippy --locked -q \
				--manifest-path "$manifest" --all-targets -- -D warnings
	} >"$1" 2>&1
}

# tas_build_python: the tas Python module (userspace/tas-py), built as a
# wheel with maturin and installed into the project's venv, whose Python the
# guest runs from the host's root file system. The build directory is shared
# by the kernels ($TAS_OUT/tas-py); the wheel does not depend on the kernel.
tas_build_python() {
	local venv=$TAS_TOOLS/venv wheels=$TAS_OUT/tas-py/wheels

	tas_log "building userspace/tas-py (the tas Python module) into $venv"
	rm -rf "$wheels"
	mkdir -p "$TAS_OUT/tas-py"
	CARGO_TARGET_DIR=$TAS_OUT/tas-py "$venv/bin/maturin" build --quiet --release --locked \
		-i "$venv/bin/python" -o "$wheels" \
		--manifest-path "$TAS_ROOT/userspace/tas-py/Cargo.toml" >"$TAS_OUT/tas-py/build.log" 2>&1 ||
		{ tail -n 30 "$TAS_OUT/tas-py/build.log" >&2; tas_die "building userspace/tas-py failed"; }
	# The distribution was called tas before it became drm-tas.
	"$venv/bin/pip" uninstall -q -y tas 2>/dev/null || true
	"$venv/bin/pip" install -q --force-reinstall --no-deps --no-index "$wheels"/drm_tas-*.whl ||
		tas_die "installing the tas Python module failed"
}

# tas_torch_module PYTHON: checks that PYTHON, a venv's with PyTorch
# ($TAS_TORCH_VENV), imports PyTorch and torchvision, and installs into it the
# tas module that tas_build_python built, so that it runs the module under
# test as the project's venv does.
tas_torch_module() {
	"$1" -c 'import torch, torchvision' ||
		tas_die "$1 has no PyTorch and torchvision (tools/export-graphs.sh installs them)"
	"$1" -m pip uninstall -q -y tas 2>/dev/null || true
	"$1" -m pip install -q --force-reinstall --no-deps --no-index "$TAS_OUT"/tas-py/wheels/drm_tas-*.whl ||
		tas_die "installing the tas module into $1 failed"
}

# tas_test_python LOG: the Python module's tests that need no device, on the
# host; its stubs checked against the installed module (mypy.stubtest) and
# the README's example type-checked with them (mypy); then rustfmt and
# clippy of its crate (warnings are errors).
tas_test_python() {
	local dir=$TAS_ROOT/userspace/tas-py

	{
		TAS_PY_NO_DEVICE=1 PYTHONDONTWRITEBYTECODE=1 "$TAS_TOOLS/venv/bin/python" \
			-m unittest -v "$dir/tests/test_tas.py" &&
			(cd "$TAS_OUT" && "$TAS_TOOLS/venv/bin/python" -m mypy.stubtest \
				--mypy-config-file "$dir/pyproject.toml" \
				--allowlist "$dir/tests/stubtest-allowlist.txt" tas) &&
			"$TAS_TOOLS/venv/bin/python" -m mypy --config-file "$dir/pyproject.toml" \
				--cache-dir "$TAS_OUT/tas-py/mypy" "$dir/examples/quickstart.py" &&
			cargo fmt --manifest-path "$dir/Cargo.toml" --check &&
			CARGO_TARGET_DIR=$TAS_OUT/tas-py cargo clippy --locked -q \
				--manifest-path "$dir/Cargo.toml" --all-targets -- -D warnings
	} >"$1" 2>&1
}

# tas_build_tracedat: userspace/tas-tracedat, for the host (it reads the
# guest's trace-cmd recordings with the host's libtracecmd).
tas_build_tracedat() {
	mkdir -p "$TAS_KOUT/userspace"
	# shellcheck disable=SC2046 # pkg-config prints one word per option
	${CC:-cc} -O2 -Wall -Wextra -Werror -o "$TAS_KOUT/userspace/tas-tracedat" \
		"$TAS_ROOT/userspace/tas-tracedat.c" $(pkg-config --cflags --libs libtracecmd) ||
		tas_die "building userspace/tas-tracedat failed (libtracecmd-dev installed?)"
}

# tas_initramfs NAME INIT [SRC:DST]...: pack busybox, the init script INIT,
# the tas module when the kernel has it as one (lib/modules/tas.ko, loaded by
# the guest's setup) and the given files or directories (copied to DST in the
# image) into $TAS_KOUT/NAME.cpio.gz.
tas_initramfs() {
	local name=$1 init=$2 root=$TAS_KOUT/initramfs-$1 bb spec

	shift 2
	bb=$(command -v busybox) || tas_die "busybox (busybox-static) is not installed"
	if command -v file >/dev/null; then
		file -L "$bb" | grep -q 'statically linked' ||
			tas_die "$bb is not statically linked (install busybox-static)"
	fi
	rm -rf "$root"
	mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,root,usr/bin,usr/sbin}
	cp "$bb" "$root/bin/busybox"
	ln -s busybox "$root/bin/sh"
	install -m 755 "$init" "$root/init"
	if [ -f "$TAS_KOUT/drivers/gpu/drm/tas/tas.ko" ]; then
		mkdir -p "$root/lib/modules"
		cp "$TAS_KOUT/drivers/gpu/drm/tas/tas.ko" "$root/lib/modules/tas.ko"
	fi
	for spec in "$@"; do
		mkdir -p "$root/$(dirname "${spec#*:}")"
		cp -a "${spec%%:*}" "$root/${spec#*:}"
	done
	(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) |
		gzip -9 >"$TAS_KOUT/$name.cpio.gz" || tas_die "packing the initramfs failed"
	TAS_INITRAMFS=$TAS_KOUT/$name.cpio.gz
}

# tas_boot LOG APPEND: boot bzImage with $TAS_INITRAMFS under TCG, the console
# going to LOG. Returns 0, or 124 when the guest was killed as hung.
tas_boot() {
	local log=$1 append=$2 rc=0

	tas_log "booting in QEMU (TCG, timeout ${TAS_BOOT_TIMEOUT} s), console log in $log"
	local share=()
	# The host's root file system, read only, for host programs in the
	# guest (tas_hostroot in guest.sh: bpftrace, trace-cmd and the Python
	# of the project's venv run in the guest), and a directory it writes files to the host in,
	# $TAS_KOUT/guest-out (emptied first).
	if [ "${TAS_HOSTROOT:-0}" -eq 1 ] || [ -n "${TAS_PY:-}" ]; then
		rm -rf "$TAS_KOUT/guest-out"
		mkdir -p "$TAS_KOUT/guest-out"
		share=(-virtfs "local,path=/,mount_tag=tas-host,security_model=none,readonly=on,multidevs=remap"
			-virtfs "local,path=$TAS_KOUT/guest-out,mount_tag=tas-out,security_model=none")
	fi
	# 1 GiB: under KASAN, kmemleak's and debugobjects' own objects take
	# over 100 MiB, and the template-limit selftest holds 4 templates of
	# 16384 nodes with their prepared instances; 512 MiB ran out (OOM).
	# TAS_QEMU_CPU: a CPU model other than QEMU's default (qemu64, x86-64
	# without SSE4 or AVX), e.g. "max" for host programs built for newer
	# CPUs, such as PyTorch in the demo.
	local cpu=()
	[ -z "${TAS_QEMU_CPU:-}" ] || cpu=(-cpu "$TAS_QEMU_CPU")
	timeout -k 10 "$TAS_BOOT_TIMEOUT" qemu-system-x86_64 -accel tcg "${cpu[@]}" \
		-m 1024 -smp 2 -nographic -no-reboot \
		-device virtio-gpu-pci "${share[@]}" \
		-kernel "$TAS_BZIMAGE" -initrd "$TAS_INITRAMFS" \
		-append "console=ttyS0 panic=-1 oops=panic $append $TAS_APPEND" \
		</dev/null >"$log.raw" 2>&1 || rc=$?
	tr -d '\r' <"$log.raw" >"$log"
	rm -f "$log.raw"
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		tas_log "the guest hung: killed after ${TAS_BOOT_TIMEOUT} s"
		return 124
	fi
	[ "$rc" -eq 0 ] || tas_log "qemu exited with rc $rc"
	return "$rc"
}

# Fail on kernel warnings, bugs, oopses, sanitizer and lockdep reports, OOM
# kills and allocation failure reports in LOG.
tas_check_kernel_log() {
	local log=$1 hits

	local re='WARNING:|BUG:|Oops|KASAN|UBSAN|possible circular locking|Call Trace|Kernel panic|kernel BUG|unreferenced object|suspected memory leak|invoked oom-killer|page allocation failure|vmalloc error'

	hits=$(grep -nE "$re" "$log" || true)
	if [ -n "$hits" ]; then
		tas_log "kernel problems in $log ($(wc -l <<<"$hits") lines; the first with what follows them):"
		# The line before each report (often what the guest was running)
		# and the start of its backtrace, numbered as in the log.
		grep -nE -B1 -A8 "$re" "$log" | head -n 60 >&2
		return 1
	fi
	return 0
}

# tas_guest_times LOG TIMEOUT: one line with the time each part of the guest's
# run took (from the TAS-TIME lines of tas_mark), and where it was when it
# ended or when QEMU was killed after TIMEOUT seconds. The times are the
# guest's uptime, which kept to the host's clock within a few percent in
# make check's runs (437 s of it in a 456 s qemu-test step).
tas_guest_times() {
	awk -v timeout="$2" '
		/^TAS-TIME [0-9.]+ TAS-[A-Z]+-START$/ {
			part = tolower(substr($3, 5, length($3) - 10)); start[part] = $2; last = $2
			order[++n] = part
		}
		/^TAS-TIME [0-9.]+ TAS-[A-Z]+-END$/ {
			part = tolower(substr($3, 5, length($3) - 8)); took[part] = $2 - start[part]
			last = $2
		}
		/^TAS-TIME [0-9.]+ TAS-GUEST-DONE / { done = $2 }
		END {
			line = "guest uptime per part:"
			for (i = 1; i <= n; i++) {
				p = order[i]
				if (p in took)
					line = line sprintf(" %s %.0f s,", p, took[p])
				else
					line = line sprintf(" %s from %.0f s (unfinished),", p, start[p])
			}
			if (done != "")
				line = line sprintf(" done at %.0f s (QEMU timeout: %d s of host time)", done, timeout)
			else
				line = line sprintf(" not done; last mark at %.0f s (QEMU timeout: %d s of host time)", last, timeout)
			print line
		}' "$1"
}

# tas_tap_totals LOG START END: count the kselftest results printed by
# run_kselftest.sh between the lines START and END of LOG. Prints a
# "# Totals:" line and sets TAS_PASS, TAS_FAIL, TAS_SKIP and TAS_MISSING.
# Leaf results count: the harness's subtests ("# ok N ..."), or a top-level
# result for a test without subtests; a test that reports fewer results
# than its plan has missing ones.
tas_tap_totals() {
	local counts

	counts=$(awk -v start="$2" -v end="$3" '
		function close_group() {
			if (!in_group)
				return
			if (group_plan > group_seen)
				missing += group_plan - group_seen
			in_group = 0
		}
		function leaf(line) {
			if (line ~ /^(# )?not ok /)
				fail++
			else if (line ~ /# [Ss][Kk][Ii][Pp]/)
				skip++
			else
				pass++
		}
		$0 == start { on = 1; next }
		$0 == end { on = 0 }
		!on { next }
		/^1\.\.[0-9]+/ { top_plan = substr($1, 4) + 0; next }
		/^# 1\.\.[0-9]+/ {
			in_group = 1; group_plan = substr($2, 4) + 0; group_seen = 0
			next
		}
		/^# (not )?ok [0-9]+ / { group_seen++; leaf($0); next }
		/^(not )?ok [0-9]+ / {
			top_seen++
			if (!in_group) {
				leaf($0)
			} else if ($0 ~ /^not ok / && group_seen == group_plan && group_plan) {
				fail++	# the test failed after all its subtests
			}
			close_group()
			next
		}
		END {
			close_group()
			if (top_plan > top_seen)
				missing += top_plan - top_seen
			if (!top_plan && !top_seen)
				missing++	# the runner printed nothing
			printf "%d %d %d %d\n", pass, fail, skip, missing
		}' "$1")
	read -r TAS_PASS TAS_FAIL TAS_SKIP TAS_MISSING <<<"$counts"
	echo "# Totals: pass:$TAS_PASS fail:$TAS_FAIL xfail:0 xpass:0 skip:$TAS_SKIP error:$TAS_MISSING"
}
