#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Check that every prefix of the series builds, with the series' own options
# on, after the whole series with them off. Fails on the first build that
# breaks or warns in a file of the series.
#
#   tools/bisect.sh [--full | --ledger [quick]]
#
# Without --full (`make bisect`, part of `make check`) each prefix gets the
# check that its patch needs, in the build directory of tools/kunit.sh:
# - a patch that changes what the kernel builds (anything outside tools/,
#   Documentation/ and MAINTAINERS): a UML compile of the prefix with the
#   options of the kunitconfig, less the Rust doctests, up to vmlinux.a
#   (every built-in object, no link; each object that depends on a file the
#   patch changes must have been compiled again);
# - a patch that changes the kselftests: they are built against the uAPI
#   headers of the prefix, without a warning;
# - a patch that changes neither (documentation): nothing; htmldocs checks
#   the whole series.
# The whole series is then built exactly the way kunit.py builds it (with the
# doctests, linked), and tools/kunit.sh after it (as `make check` runs them)
# runs that kernel instead of building it a second time. The
# doctests and the link are what a prefix build leaves out, and they cost
# half of it: the doctests only use the items of their own file, and the
# link of prefix K only adds symbols that prefix K's objects already
# declare; --full covers both for every prefix.
#
# --full (`make bisect-full`, not part of `make check`) builds every prefix
# the way kunit.py builds it, with the doctests, links it and runs its KUnit
# suites (tools/kunit.sh, with its known upstream failures), builds each
# prefix for x86_64 with the QEMU test configuration (tools/qemu/tas.config),
# in the build directory of tools/prefix-kselftests.sh, and, for a patch that
# adds selftests, runs the drm/tas kselftests of that prefix on that kernel in
# QEMU (tools/prefix-kselftests.sh).
#
# --full records each prefix that passes in docs/bisect-full.tsv, by the hash
# of its tree and of the configurations it ran with, and skips a prefix
# recorded there: a change to patch
# K sends only prefixes K and later through again, and a run that stops goes
# on where it stopped; a prefix whose series changed while it ran fails
# instead. The configurations are the kunitconfig, tools/qemu/tas.config, the
# series' options, the known failures and reports under kunit/, the scripts
# that run the checks, $TAS_KCONFIG_EXTRA and the compilers' versions.
# TAS_BISECT_AGAIN=1 runs every prefix (either mode). `tools/bisect.sh --ledger` lists,
# without building or checking anything out, which prefixes of the series as
# last assembled (by `make series` or a bisect) the ledger covers; it fails if
# one is missing.
#
# Without --full, a run that passes records each check it did in
# docs/bisect.tsv, the compile-only ledger, by the tree of the prefix and the
# hash of what the compile depends on besides the tree: the kunitconfig, the
# series' options, the kernel's make arguments, the versions of rustc,
# clippy, bindgen and LLVM 19, and the functions of this script that check a
# prefix (as bash prints them, without comments). A later run skips every check
# the ledger records under the same key, the options-off build included,
# and compiles only the prefixes it does not cover (a changed patch and the
# ones after it, since their trees change too): the same compile of the same
# tree with the same tools and options, whose result the ledger holds. The
# last prefix is always built, since it is the kernel tools/kunit.sh runs.
# Entries are written only when the whole run passed. `--ledger quick` lists
# what the compile-only ledger covers, as --ledger does for --full's.
#
# The kernel does not build anything under tools/testing/selftests/, so a
# change to the kselftests alone leaves the compile of the kernel as it was:
# a prefix (or the options-off build) whose tree the ledger lacks, but whose
# tree less tools/testing/selftests/ ("kernel tree") it records as compiled
# under the same key, is not compiled again. If its patch changes the
# kselftests, they are built, from a worktree of its own
# ($TAS_OUT/bisect-selftests), so that the build directory's tree is not
# rewritten; the ledger then records the prefix's tree. Each entry comes
# with one for its kernel tree, under the key's "kernel-" configurations;
# for entries of earlier runs the kernel tree is computed from the tree
# (when the repository still holds it) and cached in
# $TAS_OUT/bisect-kernel-trees.
#
# The series' own options are the CONFIG_ symbols that its Kconfig files add
# (the Kconfig lines the series adds) and that have a prompt.
#
# The kunitconfig is kunit/.kunitconfig in the build directory of `make
# kunit`; TAS_BISECT_CONFIG=debug takes kunit/debug.kunitconfig (the same
# options with KASAN, UBSAN and debugobjects) in the build directory of `make
# kunit-debug` instead, which is what `make check` does: its only UML kernel
# is then the debug one, built once.
set -euo pipefail
. "$(dirname "$0")/env.sh"

# TAS_BISECT_FROM=K starts the prefixes at patch K (after the build with
# the options off), e.g. to go on from a prefix that failed; TAS_BISECT_TO=K
# stops after patch K (e.g. to check new patches in the middle with --full).
from=${TAS_BISECT_FROM:-1}
full=0 ledger_only=0
case "${1:-}" in
--full) full=1 ;;
--ledger)
	ledger_only=1
	[ "${2:-}" = quick ] || full=1
	;;
esac
if [ "$full" -eq 1 ]; then
	ledger=$TAS_ROOT/docs/bisect-full.tsv
else
	ledger=$TAS_ROOT/docs/bisect.tsv
fi

py=$TAS_TOOLS/venv/bin/python
[ "$ledger_only" -eq 1 ] || tas_assemble
# Read whole: a reader that stops early (grep -q) would break the pipe to
# series.py, which pipefail then reports as a failed test.
list=$("$py" "$TAS_ROOT/tools/series.py" list)
n=$(wc -l <<<"$list")
case "${TAS_BISECT_CONFIG:-}" in
"") kunitconfig=$TAS_ROOT/kunit/.kunitconfig build_name=kunit ;;
debug) kunitconfig=$TAS_ROOT/kunit/debug.kunitconfig build_name=kunit-debug ;;
*) echo "bisect: TAS_BISECT_CONFIG is empty or debug" >&2; exit 2 ;;
esac
build=$TAS_OUT/$build_name
# The build directory of tools/prefix-kselftests.sh: its QEMU configuration
# (tools/qemu/lib.sh, tas_configure) comes out the same as that of x86_one, so
# the kselftests of a prefix boot the kernel built here without building again.
x86=$TAS_OUT/x86-prefix
kconfig=$build/bisect.kunitconfig
log=$build/bisect-build.log
mkdir -p "$build"
t_all=$SECONDS
# The kernel's make arguments, as kunit.py takes them.
mopts=()
for o in "${TAS_KMAKE[@]}"; do
	mopts+=(--make_options "$o")
done

# Symbols the series introduces that a user can set: "config FOO" lines added
# by the series whose type has a prompt. Promptless symbols (e.g. the Rust
# abstraction switches that drivers select) follow the options selecting them.
new_syms=$(git -C "$TAS_TREE" diff "$("$py" "$TAS_ROOT/tools/series.py" commit 0)" series -- '*Kconfig*' |
	awk '/^\+(menu)?config [A-Z0-9_]+/ { sym = $2; next }
	     sym != "" && /^\+[ \t]+(bool|tristate)[ \t]+"/ { print sym; sym = ""; next }
	     /^\+[ \t]+(bool|tristate)/ { sym = "" }' | sort -u)

# Whether the checked-out prefix defines CONFIG_$1.
defined() {
	grep -rqs --include='Kconfig*' "^\(menu\)\?config $1\$" "$TAS_TREE"
}

is_new() {
	grep -qx "$1" <<<"$new_syms"
}

# Print the kunitconfig of the checked-out prefix: $kunitconfig less
# the options this prefix does not define yet, with the series' options on
# (on) or off (off). kunit.py checks that every option survives olddefconfig.
# For the whole series with its options on this is $kunitconfig itself.
prefix_kunitconfig() { # on|off
	local line sym

	while IFS= read -r line; do
		case "$line" in CONFIG_*=*) ;; *) continue ;; esac
		sym=${line%%=*}
		sym=${sym#CONFIG_}
		if is_new "$sym" && [ "$1" = off ]; then
			echo "# CONFIG_$sym is not set"
		elif defined "$sym"; then
			echo "$line"
		fi
	done <"$kunitconfig"
	for sym in $new_syms; do
		grep -q "^CONFIG_$sym=" "$kunitconfig" && continue
		if [ "$1" = off ]; then
			echo "# CONFIG_$sym is not set"
		elif defined "$sym"; then
			echo "CONFIG_$sym=y"
		fi
	done
}

fail() { # message
	echo "bisect: FAIL: $*"
	git -C "$TAS_TREE" checkout -q -f series
	exit 1
}

# Fails with the message $2 on a warning in a file the series adds or edits
# in the build log $1 (clippy and rustc name the file on the line after the
# message). A C warning names its file on its own line; the "In file
# included from" lines after a warning belong to the next one and name the
# files that include its header, which can be ours for a warning in an
# upstream header (asm-generic/io.h on UML with clang).
no_warnings() { # log message
	if grep -A2 -E '^(warning|error)(\[\S+\])?: |: warning: ' "$1" |
		grep -v '^In file included from ' |
		grep -F -f <("$py" "$TAS_ROOT/tools/series.py" files) >"$1.warnings"; then
		cat "$1.warnings"
		fail "$2"
	fi
}

build_one() { # label on|off [k]
	local t0=$SECONDS

	prefix_kunitconfig "$2" >"$kconfig"
	if ! (cd "$TAS_TREE" && python3 tools/testing/kunit/kunit.py build --arch=um \
		--kunitconfig "$kconfig" --build_dir "$build" --jobs "$(nproc)" \
		"${mopts[@]}") >"$log" 2>&1; then
		grep -E 'error|Error|not set|did not' "$log" | head -n 30
		fail "$1 does not build (log: $log)"
	fi
	no_warnings "$log" "$1 builds with warnings"
	compiled_note=
	[ -z "${3:-}" ] || compiled "$3" "$1"
	echo "bisect: $1 builds ($((SECONDS - t0)) s${compiled_note:+; $compiled_note})"
}

# A prefix's compile check without --full: its kunitconfig less the Rust
# doctests, configured by kunit.py (which checks that every option survives
# olddefconfig), and every built-in object up to vmlinux.a, without the link.
# The goal is the top Makefile's vmlinux_a: "make vmlinux.a" names a file
# that ends in .a, which Kbuild takes for a single-target build of the
# directory it is in and answers with only the prepare stage (the Rust
# kernel crate, but no driver and no C file of the series).
quick_one() { # label on|off [k]
	local t0=$SECONDS

	prefix_kunitconfig "$2" |
		sed 's/^CONFIG_RUST_KERNEL_DOCTESTS=y$/# CONFIG_RUST_KERNEL_DOCTESTS is not set/' >"$kconfig"
	if ! { (cd "$TAS_TREE" && python3 tools/testing/kunit/kunit.py config --arch=um \
		--kunitconfig "$kconfig" --build_dir "$build" "${mopts[@]}") &&
		make -C "$TAS_TREE" O="$build" ARCH=um "${TAS_KMAKE[@]}" -j"$(nproc)" vmlinux_a; } \
		>"$log" 2>&1; then
		grep -E 'error|Error|not set|did not' "$log" | head -n 30
		fail "$1 does not build (log: $log)"
	fi
	no_warnings "$log" "$1 builds with warnings"
	compiled_note=
	[ -z "${3:-}" ] || compiled "$3" "$1"
	echo "bisect: $1 compiles ($((SECONDS - t0)) s${compiled_note:+; $compiled_note})"
}

# Checks that the build just done compiled patch $1's changes: every object
# of vmlinux.a whose dependencies (its .cmd file: a C file's headers, a Rust
# crate's source files) name a file the patch changes was written after
# bisect.stamp, touched before the checkout, if the checkout rewrote the file
# (the first prefix of a run comes from another tree, which can hold the file
# as the patch leaves it), and every C and Rust file the patch adds or
# changes is a dependency of at least one object. A build target that stops
# short of the objects (as "make vmlinux.a" does) fails here.
#
# A file that no object of the prefix depends on is compiled out by an option
# that nothing selects yet (patch 17 changes the Rust GEM shmem helpers,
# which only drivers select: drm/tas from patch 18 on). It is then pending
# until a later prefix's build compiles it; the run fails if one is left at
# its end. Sets compiled_note to what it counted. Not seen by this check: objects outside
# vmlinux.a (lib.a, host programs and the Rust proc-macro crates) and
# headers that reach the build only through generated files
# (bindings_helper.h, uapi_helper.h), which the series' builds compile
# anyway.
pending=() compiled_note=
compiled() { # k label
	local f o e ok stale=() n_src=0 later=() left=() changed members
	local pats=$build/bisect.files hits=$build/bisect.hits

	changed=$(patch_files "$1" --diff-filter=d) || fail "$2: git diff of the patch failed"
	changed=$(grep -vE '^(tools/|Documentation/|MAINTAINERS$)|/(Kconfig[^/]*|Makefile|Kbuild)$' <<<"$changed" |
		sed "s|^|$TAS_TREE/|" || true)
	members=$(cd "$build" && llvm-ar-19 t vmlinux.a) && [ -n "$members" ] ||
		fail "$2: no members in $build/vmlinux.a"
	# A pending file that a later patch removed has nothing left to compile.
	for e in "${pending[@]}"; do
		[ -e "${e%% *}" ] && left+=("$e")
	done
	pending=(${left[@]+"${left[@]}"})
	left=()
	{
		[ -z "$changed" ] || echo "$changed"
		for e in "${pending[@]}"; do echo "${e%% *}"; done
	} | sort -u >"$pats"
	compiled_note="no C or Rust file"
	[ -s "$pats" ] || return 0
	# "cmd-file:path" for each such file that a member's .cmd names (the
	# .cmd files hold absolute paths of the sources in $TAS_TREE).
	(cd "$build" && sed -E 's|(.*/)?([^/]+)$|\1.\2.cmd|' <<<"$members" |
		xargs -r grep -oHF -f "$pats" 2>/dev/null | sort -u) >"$hits" || true
	# The objects that depend on $1, one per line.
	dependents() { # path
		awk -F: -v f="$1" '$2 == f { print $1 }' "$hits" |
			sed -E 's|(.*/)?\.([^/]+)\.cmd$|\1\2|'
	}
	# A pending file is compiled now if objects depend on it and none is
	# older than it (an object kept from an earlier build counts).
	for e in "${pending[@]}"; do
		f=${e%% *}
		ok=0
		while IFS= read -r o; do
			if [ "$f" -nt "$build/$o" ]; then ok=0 && break; fi
			ok=1
		done < <(dependents "$f")
		if [ "$ok" -eq 1 ]; then
			later+=("${f#"$TAS_TREE"/} (changed by ${e#* })")
		else
			left+=("$e")
		fi
	done
	pending=(${left[@]+"${left[@]}"})
	while IFS= read -r f; do
		[ -n "$f" ] || continue
		case "$f" in
		*.c | *.rs)
			if [ -z "$(dependents "$f")" ]; then
				for e in "${pending[@]}"; do [ "${e%% *}" != "$f" ] || continue 2; done
				pending+=("$f patch $1")
				continue
			fi
			n_src=$((n_src + 1))
			;;
		esac
		[ "$f" -nt "$build/bisect.stamp" ] || continue
		while IFS= read -r o; do
			[ "$build/$o" -nt "$build/bisect.stamp" ] || stale+=("$o")
		done < <(dependents "$f")
	done <<<"$changed"
	[ "${#stale[@]}" -eq 0 ] ||
		fail "$2: objects that depend on the patch's files were not compiled again: ${stale[*]}"
	compiled_note="$n_src changed C and Rust files compiled, every object that depends on them again"
	[ "${#later[@]}" -eq 0 ] || compiled_note+="; first compiled here: ${later[*]}"
	for e in "${pending[@]}"; do
		[ "${e#* }" = "patch $1" ] || continue
		f=${e%% *}
		compiled_note+="; ${f#"$TAS_TREE"/} is compiled out (no option selects it yet)"
	done
}

# The kselftests of the checked-out prefix, built against its uAPI headers
# (installed for x86_64, which needs no configuration). Only our target
# builds, so any compiler warning is one of ours.
selftests_one() { # label
	local t0=$SECONDS hdr=$TAS_OUT/bisect-hdr

	mkdir -p "$hdr"
	rm -rf "$hdr/kselftest"
	{
		make -C "$TAS_TREE" O="$hdr" ARCH=x86_64 "${TAS_KMAKE[@]}" -s headers_install &&
		make -C "$TAS_TREE/tools/testing/selftests" O="$hdr" TARGETS=drivers/gpu/tas
	} >"$hdr/build.log" 2>&1 || {
		grep -E 'error|Error' "$hdr/build.log" | head -n 30
		fail "$1: its kselftests do not build (log: $hdr/build.log)"
	}
	if grep -E -A2 'warning:' "$hdr/build.log"; then
		fail "$1: its kselftests build with warnings (log: $hdr/build.log)"
	fi
	echo "bisect: $1 kselftests build ($((SECONDS - t0)) s)"
}

# The files patch $1 changes, as kernel paths.
patch_files() { # k [git diff options]
	git -C "$TAS_TREE" diff --name-only "${@:2}" \
		"$("$py" "$TAS_ROOT/tools/series.py" commit $(($1 - 1)))" \
		"$("$py" "$TAS_ROOT/tools/series.py" commit "$1")"
}

# The compile check of prefix $1 of $n without --full, checked out: the
# kernel compiled (the last prefix built as kunit.py builds it), the
# kselftests built if the patch changes them. Sets result to what it did.
quick_prefix() { # k
	local files kernel=0 did=()

	files=$(patch_files "$1")
	! grep -qvE '^(tools/|Documentation/|MAINTAINERS$)' <<<"$files" || kernel=1
	if [ "$1" -eq "$n" ]; then
		build_one "patch $1/$n ($on, as kunit.py builds it)" on "$1"
		did+=("built as kunit.py builds it")
	elif [ "$kernel" -eq 1 ]; then
		quick_one "patch $1/$n ($on)" on "$1"
		did+=("compiled")
	fi
	if grep -q '^tools/testing/selftests/' <<<"$files"; then
		selftests_one "patch $1/$n"
		did+=("kselftests built")
	elif [ "$1" -ne "$n" ] && [ "$kernel" -eq 0 ]; then
		echo "bisect: patch $1/$n changes neither the kernel nor its kselftests"
		did+=("nothing to compile")
	fi
	result=$(IFS=';' && echo "${did[*]}" | sed 's/;/; /g')
}

# --full: the prefix's KUnit suites on the kernel just built.
kunit_one() { # label
	local t0=$SECONDS

	"$TAS_ROOT/tools/kunit.sh" --exec "$kunitconfig" "$build_name" >"$build/bisect-kunit.log" 2>&1 || {
		tail -n 30 "$build/bisect-kunit.log"
		fail "$1: KUnit (log: $build/bisect-kunit.log)"
	}
	echo "bisect: $1 KUnit: $(grep -E '^kunit: [0-9]+ passed' "$build/bisect-kunit.log") ($((SECONDS - t0)) s)"
}

# --full: the prefix built for x86_64 with the QEMU test configuration, less
# the options the prefix does not define yet.
x86_one() { # label
	local t0=$SECONDS line sym frag=$x86/prefix.config

	mkdir -p "$x86"
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*) sym=${line%%=*} ;;
		"# CONFIG_"*" is not set") sym=${line#\# } sym=${sym%% *} ;;
		*) continue ;;
		esac
		if defined "${sym#CONFIG_}"; then echo "$line"; fi
	done <"$TAS_ROOT/tools/qemu/tas.config" >"$frag"
	{
		make -C "$TAS_TREE" O="$x86" ARCH=x86_64 "${TAS_KMAKE[@]}" -s tinyconfig &&
		(cd "$x86" && "$TAS_TREE/scripts/kconfig/merge_config.sh" -m -O "$x86" \
			"$x86/.config" "$frag") &&
		make -C "$TAS_TREE" O="$x86" ARCH=x86_64 "${TAS_KMAKE[@]}" -s olddefconfig &&
		make -C "$TAS_TREE" O="$x86" ARCH=x86_64 "${TAS_KMAKE[@]}" -j"$(nproc)" bzImage modules
	} >"$x86/build.log" 2>&1 || {
		grep -E 'error|Error' "$x86/build.log" | head -n 30
		fail "$1 does not build for x86_64 (log: $x86/build.log)"
	}
	no_warnings "$x86/build.log" "$1 builds with warnings for x86_64"
	# objtool names the object, not a source of the series.
	if grep -E 'warning: objtool: ' "$x86/build.log"; then
		fail "$1: objtool warned for x86_64 (log: $x86/build.log)"
	fi
	echo "bisect: $1 builds for x86_64 ($((SECONDS - t0)) s)"
}

# The ledgers. The key of a prefix: its tree and the configurations that
# the checks take. --full's: the kunitconfig, the QEMU configuration and the
# scripts that run its checks. The compile-only ledger's: the kunitconfig,
# the series' options, the kernel's make arguments and the tools they name
# (the Rust compiler, clippy and bindgen that the build runs, LLVM 19), and
# the code of the check itself, the functions above as bash prints them
# (without comments): a change to how a prefix is checked checks every
# prefix again.
if [ "$full" -eq 1 ]; then
	opts_hash=$(
		{
			cat "$kunitconfig" "$TAS_ROOT/tools/qemu/tas.config" "$TAS_ROOT"/kunit/*known* \
				"$TAS_ROOT"/tools/{kunit,qemu-test,prefix-kselftests}.sh \
				"$TAS_ROOT"/tools/qemu/{lib.sh,guest.sh,init-kselftest}
			echo "$new_syms ${TAS_KCONFIG_EXTRA:-} ${TAS_KMAKE[*]}"
			rustc --version 2>&1 || true
			gcc --version 2>&1 | head -n 1 || true
			clang --version 2>&1 | head -n 1 || true
		} | sha256sum | cut -c1-12
	)
else
	opts_hash=$(
		{
			cat "$kunitconfig"
			declare -f defined is_new prefix_kunitconfig no_warnings build_one \
				quick_one compiled selftests_one patch_files quick_prefix
			echo "$new_syms ${TAS_KMAKE[*]}"
			/usr/bin/rustc --version 2>&1 || true
			/usr/bin/clippy-driver --version 2>&1 || true
			"$TAS_TOOLS/bin/bindgen" --version 2>&1 || true
			clang-19 --version 2>&1 | head -n 1 || true
			ld.lld-19 --version 2>&1 | head -n 1 || true
		} | sha256sum | cut -c1-12
	)
	opts_hash=quick-$opts_hash
fi
ledger_key() { # tree on|off
	printf '%s\t%s-%s\n' "$1" "$opts_hash" "$2"
}

# Prints the ledger's line for a tree; fails if there is none.
ledger_find() { # tree on|off
	local key

	key=$(ledger_key "$1" "$2")
	[ -f "$ledger" ] && [ -z "${TAS_BISECT_AGAIN:-}" ] || return 1
	grep -F "$key	" "$ledger" | tail -n 1 | grep .
}

# The kernel tree of a tree: a hash of its listing less
# tools/testing/selftests/.
kernel_tree() { # tree
	local listing

	listing=$(git -C "$TAS_TREE" ls-tree -r --full-tree "$1") && [ -n "$listing" ] || return 1
	grep -v $'\ttools/testing/selftests/' <<<"$listing" | sha1sum | cut -c1-40
}

# Whether ledger result $1 is that of a check that compiled the kernel (not
# only the kselftests, or nothing): only those vouch for a kernel tree.
compiled_result() { # result
	case "$1" in
	compiled* | built* | "options off: compiled"* | "options off: built"*) return 0 ;;
	*) return 1 ;;
	esac
}

# Prints the line of an entry under the same key whose kernel tree is that
# of tree $1; fails if there is none. Entries carry it in a "kernel-" line
# of their own, or, from runs before those lines, through their tree.
kernel_cache=$TAS_OUT/bisect-kernel-trees
ledger_find_kernel() { # tree on|off
	local ktree t cfg rest kt

	[ -f "$ledger" ] && [ -z "${TAS_BISECT_AGAIN:-}" ] || return 1
	ktree=$(kernel_tree "$1") || return 1
	if grep -F "$ktree	$opts_hash-kernel-$2	" "$ledger" | tail -n 1 | grep .; then
		return 0
	fi
	touch "$kernel_cache"
	while IFS=$'\t' read -r t cfg rest; do
		[ "$cfg" = "$opts_hash-$2" ] || continue
		compiled_result "${rest##*$'\t'}" || continue
		kt=$(awk -v t="$t" '$1"" == t"" { print $2; exit }' "$kernel_cache")
		if [ -z "$kt" ]; then
			git -C "$TAS_TREE" cat-file -e "$t^{tree}" 2>/dev/null || continue
			kt=$(kernel_tree "$t") || continue
			printf '%s %s\n' "$t" "$kt" >>"$kernel_cache"
		fi
		if [ "$kt" = "$ktree" ]; then
			printf '%s\t%s\t%s\n' "$t" "$cfg" "$rest"
			return 0
		fi
	done < <(grep -v '^#' "$ledger")
	return 1
}

# The kselftests of patch $1 built from a worktree at the patch, for a
# prefix whose kernel the ledger covers: the checkout of $TAS_TREE stays as
# it is (selftests_one, with the worktree as its tree).
selftests_wt() { # k label
	local wt=$TAS_OUT/bisect-selftests commit=${commits[$1]}

	# A worktree of $TAS_TREE's repository, or made again.
	if [ "$(git -C "$wt" rev-parse --path-format=absolute --git-common-dir 2>/dev/null)" != \
		"$(git -C "$TAS_TREE" rev-parse --path-format=absolute --git-common-dir)" ]; then
		git -C "$TAS_TREE" worktree remove -f -f "$wt" 2>/dev/null || true
		rm -rf "$wt"
		git -C "$TAS_TREE" worktree prune
		git -C "$TAS_TREE" worktree add -q -f -f --detach "$wt" "$commit" ||
			fail "$2: git worktree add $wt"
	fi
	git -C "$wt" checkout -q -f --detach "$commit" || fail "$2: checkout in $wt"
	[ "$(git -C "$wt" rev-parse HEAD)" = "$(git -C "$TAS_TREE" rev-parse "$commit")" ] &&
		[ -z "$(git -C "$wt" status --porcelain --untracked-files=no)" ] ||
		fail "$2: $wt is not at the patch"
	# fail() checks out the series in $TAS_TREE, which is the worktree here.
	(
		fail() { echo "bisect: FAIL: $*"; exit 1; }
		TAS_TREE=$wt TAS_OUT=$TAS_OUT/bisect-selftests-out
		mkdir -p "$TAS_OUT"
		selftests_one "$2"
	) || fail "$2: its kselftests (worktree $wt)"
}

# Records a tree as passed: the one checked out, which must still be the tree
# of patch $k of the series (prefix-kselftests.sh assembles the series again).
# Without --full the line waits in $ledger_new until the whole run passed.
ledger_new=()
ledger_add() { # tree on|off k label result
	local now line kt

	now=$(git -C "$TAS_TREE" rev-parse 'HEAD^{tree}')
	[ "$now" = "$1" ] || fail "$4: $TAS_TREE was checked out elsewhere during the checks"
	[ "$(git -C "$TAS_TREE" rev-parse "$(tree_of "$3")")" = "$1" ] ||
		fail "$4: the series changed during the checks; run again"
	line=$(printf '%s\t%s\t%s\t%s' "$(ledger_key "$1" "$2")" "$(date -u +%F)" "$4" "$5")
	if [ "$full" -eq 1 ]; then
		ledger_write "$line"
	elif ! ledger_find "$1" "$2" >/dev/null; then
		# The last prefix, built every time, is recorded once.
		ledger_new+=("$line")
		if compiled_result "$5"; then
			kt=$(kernel_tree "$1") || fail "$4: git ls-tree $1"
			ledger_new+=("$(printf '%s\t%s\t%s\t%s\t%s' "$kt" \
				"$opts_hash-kernel-$2" "$(date -u +%F)" "$4" "$5")")
		fi
	fi
}

# Records tree $1 (patch $3, not checked out) as passed without --full: its
# kernel as ledger line $4 recorded it, its kselftests as result $6 says.
ledger_add_kernel() { # tree on|off k matched-line label result
	[ "$(git -C "$TAS_TREE" rev-parse "$(tree_of "$3")")" = "$1" ] ||
		fail "$5: the series changed during the checks; run again"
	ledger_new+=("$(printf '%s\t%s\t%s\t%s' "$(ledger_key "$1" "$2")" "$(date -u +%F)" "$5" "$6")")
}

ledger_write() { # line...
	local what="make bisect-full: the prefixes that passed"

	[ "$full" -eq 1 ] || what="make bisect: the compile checks that passed"
	[ -f "$ledger" ] || printf '# %s\n' \
		"$what, by tree and configurations (tools/bisect.sh)" \
		"tree	configurations	date	patch	result" >"$ledger"
	printf '%s\n' "$@" >>"$ledger"
}

# The commits of the series' patches, commits[k] for patch k: the first
# parents of the last one, which series.py builds (one call instead of one
# per prefix, as each call builds the prefix again).
commits=()
series_commits() {
	local last chain

	last=$("$py" "$TAS_ROOT/tools/series.py" commit "$n")
	mapfile -t chain < <(git -C "$TAS_TREE" rev-list --reverse --first-parent -n "$n" "$last")
	# series.py builds the series on origin/base.
	[ "${#chain[@]}" -eq "$n" ] &&
		[ "$(git -C "$TAS_TREE" rev-parse "${chain[0]}^")" = \
			"$(git -C "$TAS_TREE" rev-parse origin/base)" ] ||
		fail "the series' commits are not a chain of $n on the base"
	commits=("" "${chain[@]}")
}

# The tree of patch $1 of the series, or of the whole series for "off".
tree_of() { # k|off
	if [ "$1" = off ]; then
		echo 'series^{tree}'
	elif [ "$full" -eq 1 ]; then
		# Built again: --full's prefix-kselftests.sh assembles the series
		# anew, and an entry must name the series as it is then.
		echo "$("$py" "$TAS_ROOT/tools/series.py" commit "$1")^{tree}"
	else
		echo "${commits[$1]}^{tree}"
	fi
}
series_commits

if [ "$ledger_only" -eq 1 ]; then
	missing=0
	for k in $(seq 1 "$n") off; do
		if [ "$k" = off ]; then
			label="patch $n/$n, options off" mode=off
		else
			label="patch $k/$n" mode=on
		fi
		tree=$(git -C "$TAS_TREE" rev-parse "$(tree_of "$k")")
		if line=$(ledger_find "$tree" "$mode"); then
			echo "bisect: $label: $(cut -f3,5 <<<"$line" | tr '\t' ' ')"
		else
			echo "bisect: $label: not in the ledger"
			missing=$((missing + 1))
		fi
	done
	echo "bisect: the ledger covers $((n + 1 - missing)) of $((n + 1)) checks of the series as last assembled (configurations $opts_hash)"
	[ "$missing" -eq 0 ]
	exit
fi

# A compile-only ledger entry ends with the files its patch changes that no
# option selected yet (compiled()): a run that skips the prefix still owes
# their compile to a later one.
later_note="compiled out, left for a later prefix: "

# A prefix taken from ledger line $1 still owes what that check left for a
# later prefix to compile.
owe_pending() { # line k
	local f

	for f in $(cut -f5 <<<"$1" | sed -n "s/.*$later_note//p"); do
		pending+=("$TAS_TREE/$f patch $2")
	done
}

# Appends to result the files patch $1 leaves for a later prefix.
note_pending() { # k
	local e left=()

	for e in "${pending[@]}"; do
		[ "${e#* }" != "patch $1" ] || left+=("${e%% *}")
	done
	[ "${#left[@]}" -eq 0 ] || result+="; $later_note${left[*]#"$TAS_TREE"/}"
}

# The whole series with its options off first, so that the last build is the
# one tools/kunit.sh runs.
git -C "$TAS_TREE" checkout -q -f series
on="options on: $(echo $new_syms)"
skipped=0
# Interrupted, it leaves the tree on the series, as fail() does.
trap 'git -C "$TAS_TREE" checkout -q -f series' EXIT
tree=$(git -C "$TAS_TREE" rev-parse 'series^{tree}')
if line=$(ledger_find "$tree" off); then
	echo "bisect: patch $n/$n with the options off passed on $(cut -f3 <<<"$line"), skipped"
	skipped=$((skipped + 1))
elif [ "$full" -eq 0 ] && line=$(ledger_find_kernel "$tree" off); then
	echo "bisect: patch $n/$n with the options off: its kernel tree compiled on $(cut -f3 <<<"$line"), skipped"
	skipped=$((skipped + 1))
	ledger_add_kernel "$tree" off off "$line" "$n/$n" "options off: kernel tree compiled on $(cut -f3 <<<"$line")"
elif [ "$full" -eq 1 ]; then
	build_one "patch $n/$n (options off: $(echo $new_syms))" off
	ledger_add "$tree" off off "$n/$n" "options off: built"
else
	quick_one "patch $n/$n (options off: $(echo $new_syms))" off
	ledger_add "$tree" off off "$n/$n" "options off: compiled"
fi
for k in $(seq "$from" "${TAS_BISECT_TO:-$n}"); do
	commit=${commits[$k]}
	tree=$(git -C "$TAS_TREE" rev-parse "$commit^{tree}")
	label="$k/$n $(sed -n "${k}p" <<<"$list" | cut -f2)"
	# A prefix the ledger covers is not checked out: the files a checkout
	# rewrites would be compiled again by the next build. The last prefix
	# of the quick check is the kernel tools/kunit.sh runs: always built.
	if { [ "$full" -eq 1 ] || [ "$k" -ne "$n" ]; } && line=$(ledger_find "$tree" on); then
		echo "bisect: patch $k/$n passed on $(cut -f3 <<<"$line"), skipped: $(cut -f5 <<<"$line")"
		skipped=$((skipped + 1))
		# What it left for a later prefix to compile is still owed.
		owe_pending "$line" "$k"
		continue
	fi
	# Only its kselftests changed since a run the ledger records.
	if [ "$full" -eq 0 ] && [ "$k" -ne "$n" ] && line=$(ledger_find_kernel "$tree" on); then
		result="kernel tree compiled as patch $(cut -f4 <<<"$line" | cut -d' ' -f1) on $(cut -f3 <<<"$line")"
		owe_pending "$line" "$k"
		files=$(git -C "$TAS_TREE" diff --name-only "$commit^" "$commit") ||
			fail "patch $k/$n: git diff"
		if grep -q '^tools/testing/selftests/' <<<"$files"; then
			selftests_wt "$k" "patch $k/$n"
			result+="; kselftests built"
		fi
		echo "bisect: patch $k/$n: its kernel tree compiled on $(cut -f3 <<<"$line"), skipped; $result"
		skipped=$((skipped + 1))
		note_pending "$k"
		ledger_add_kernel "$tree" on "$k" "$line" "$label" "$result"
		continue
	fi
	# What the checkout rewrites is newer than this (compiled()).
	touch "$build/bisect.stamp"
	git -C "$TAS_TREE" checkout -q -f "$commit"
	if [ "$full" -eq 1 ]; then
		build_one "patch $k/$n ($on)" on
		kunit_one "patch $k/$n"
		result="KUnit $(grep -E '^kunit: [0-9]+ passed' "$build/bisect-kunit.log" | sed 's/^kunit: //' || true)"
		x86_one "patch $k/$n"
		result+="; built for x86_64"
		if grep -q "^$k	selftests: " <<<"$list"; then
			out=$("$TAS_ROOT/tools/prefix-kselftests.sh" "$k") || {
				echo "$out"
				fail "patch $k/$n: its kselftests"
			}
			echo "$out"
			result+="; kselftests $(sed -nE 's/^prefix-kselftests: patch [0-9]+: ([0-9]+ passed, [0-9]+ failed).*/\1/p' <<<"$out")"
			git -C "$TAS_TREE" checkout -q -f "$commit"
		fi
		ledger_add "$tree" on "$k" "$label" "$result"
		continue
	fi
	quick_prefix "$k"
	note_pending "$k"
	ledger_add "$tree" on "$k" "$label" "$result"
done
git -C "$TAS_TREE" checkout -q -f series
if [ "${#pending[@]}" -gt 0 ]; then
	[ "${TAS_BISECT_TO:-$n}" -lt "$n" ] ||
		fail "no prefix compiled these files that patches change: ${pending[*]#"$TAS_TREE"/}"
	echo "bisect: not compiled up to patch $TAS_BISECT_TO: ${pending[*]#"$TAS_TREE"/}"
fi
[ ! -f "$kconfig" ] || grep '^CONFIG_' "$kunitconfig" | cmp -s - "$kconfig" ||
	echo "bisect: note: the last build's options differ from ${kunitconfig#"$TAS_ROOT"/}; make $build_name will reconfigure"
to=${TAS_BISECT_TO:-$n}
# The compile-only ledger takes the checks of a run that reached the last
# prefix: only then did every file a patch left pending get compiled.
if [ "$full" -eq 0 ] && [ "$to" -eq "$n" ] && [ "${#ledger_new[@]}" -gt 0 ]; then
	# The entries name the trees of the series as the run began.
	[ "$("$py" "$TAS_ROOT/tools/series.py" commit "$n")" = "${commits[$n]}" ] ||
		fail "the series changed during the checks; run again"
	ledger_write "${ledger_new[@]}"
	echo "bisect: ${#ledger_new[@]} checks recorded in ${ledger#"$TAS_ROOT"/}"
fi
echo "bisect: $([ "$from" -eq 1 ] && [ "$to" -eq "$n" ] && echo "all $n prefixes" || echo "prefixes $from-$to of $n") build$([ "$full" -eq 0 ] || echo ", pass their KUnit suites and build for x86_64")$([ "$skipped" -eq 0 ] || echo " ($skipped checks passed before, in the ledger)") ($((SECONDS - t_all)) s)"
