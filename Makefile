# SPDX-License-Identifier: GPL-2.0
#
# TAS: drm/sched Rust extensions for whole-graph GPU submission.
# Every target runs a script in tools/; sources and build outputs of the kernel
# live in the cache ($(TAS_CACHE), default ~/.cache/tas), never in this tree.

SHELL := /bin/bash
PY := $${TAS_CACHE:-$${XDG_CACHE_HOME:-$$HOME/.cache}/tas}/tools/venv/bin/python

.PHONY: all setup series series-check checkpatch rustfmtcheck clippy kernel-doc \
	htmldocs bisect bisect-full kunit kunit-debug qemu-test compile-fail qemu-kasan qemu-unload fuzz check demo bench bench-trace \
	export-graphs

all: check

setup:
	tools/setup.sh

series:
	$(PY) tools/series.py assemble

series-check:
	tools/series-check.sh

checkpatch:
	tools/checkpatch.sh

rustfmtcheck:
	tools/lint.sh rustfmt

clippy:
	tools/lint.sh clippy

kernel-doc:
	tools/lint.sh kernel-doc

htmldocs:
	tools/lint.sh htmldocs

# The compile-only bisect that make check runs, with kunit/debug.kunitconfig
# (TAS_BISECT_CONFIG= takes kunit/.kunitconfig). A run that passes records its
# checks in docs/bisect.tsv; commit it, and make check compiles only the
# prefixes it does not cover, and the last one (the kernel kunit-debug runs).
bisect:
	env TAS_BISECT_CONFIG="$${TAS_BISECT_CONFIG-debug}" tools/bisect.sh

# Each prefix also runs its KUnit suites and builds for x86_64 (slow: run it
# before calling a version of the series done). Passed prefixes are kept in
# docs/bisect-full.tsv and not run again; `tools/bisect.sh --ledger` lists them.
bisect-full:
	tools/setup.sh
	tools/bisect.sh --full

kunit:
	tools/kunit.sh

# The same suites with KASAN, lockdep, debugobjects and UBSAN (UML).
kunit-debug:
	tools/kunit.sh kunit/debug.kunitconfig kunit-debug

qemu-test:
	tools/qemu-test.sh

# Programs that must not compile against the kernel crate's safe APIs, and
# their controls, built out of tree against qemu-test's kernel.
compile-fail:
	tools/compile-fail.sh

# The Rust KUnit suites, the kselftests, $(FUZZ) seconds of random ioctls
# (tas-fuzz, seed $(SEED)) and $(ROUNDS) rounds of module load / tas-stress /
# unload on x86_64 with KASAN, kmemleak and UBSAN (own build directory,
# x86-kasan); qemu-test does the same under lockdep, and runs the bpftrace
# scripts and trace-cmd around the demo's graph, which this one leaves out.
ROUNDS ?= 20
FUZZ ?= 0
SEED ?= 1
# The kselftests that fill a per-file limit (nodes in flight, kept nodes,
# template nodes), launch a template 10000 times or execute 82,000 nodes to
# fill the graph history run the same paths thousands of times: 8 of the
# KASAN run's 12 minutes under TCG, and history_evicts_large_graphs took 85 s
# on the lockdep kernel alone. They run on the lockdep kernel (qemu-test);
# KASAN_EXCLUDE= runs them here too.
KASAN_EXCLUDE ?= submit_waits_for_node_budget keep_limit_nodes template_node_limit \
	template_launched_10000_times history_evicts_large_graphs
# The Rust KUnit suites at boot (KASAN_KUNIT= leaves them out: make check
# does, since kunit-debug runs them under KASAN and UBSAN on UML and
# qemu-test under lockdep on x86_64).
KASAN_KUNIT ?= rust_*
# QEMU_TEST_ARGS=--build-only builds the kernel and programs and boots
# nothing; --built then boots what it built (make check does both).
QEMU_TEST_ARGS ?=
# The unload rounds' graphs have 1024 nodes here, not 4096: a submission of
# 4096 nodes took 6-7 s on this kernel under TCG alone and 23-35 s beside
# tas-stress's template clients, and a round lasts two of them (the first
# graph, then the one a client is submitting when told to stop), about 60 s;
# ten of them no longer fitted the boot's time on a slower CI machine. The
# lockdep kernel keeps 4096. The timeout is there for a hung guest, with room
# for a machine slower than this one: the guest took 474 s here, 210 of them
# the ten rounds, and CI's run of the 4096-node rounds was killed at 1200 s.
qemu-kasan:
	TAS_KOUT_NAME=x86-kasan TAS_BOOT_TIMEOUT=1800 TAS_KCONFIG_EXTRA=$(CURDIR)/tools/qemu/kasan.config \
		TAS_UNLOAD_ROUNDS=$(ROUNDS) TAS_STRESS_NODES=1024 TAS_FUZZ_SECONDS=$(FUZZ) TAS_FUZZ_SEED=$(SEED) \
		TAS_KSELFTEST_EXCLUDE="$(KASAN_EXCLUDE)" \
		TAS_HOSTROOT=0 tools/qemu-test.sh $(QEMU_TEST_ARGS) $(if $(KASAN_KUNIT),--kunit='$(KASAN_KUNIT)')

# qemu-test with another number of module unload rounds: make qemu-unload ROUNDS=100.
qemu-unload:
	TAS_UNLOAD_ROUNDS=$(ROUNDS) tools/qemu-test.sh

# The random-ioctl run (userspace/tas-fuzz) on its own, for longer than the
# bounded runs in qemu-test and qemu-kasan: make fuzz SECONDS=600 SEED=7.
# MODE=load runs its saturating load instead (tas-fuzz -L, docs/design.md,
# "How long a graph waits"), with the guest's hung task detector at 30 s.
# KASAN=1 takes the KASAN + kmemleak kernel instead of the lockdep one.
FUZZ_SECONDS = $(or $(SECONDS),600)
fuzz:
	tools/setup.sh
	. tools/env.sh && tas_assemble
	TAS_FUZZ_SECONDS=$(FUZZ_SECONDS) TAS_FUZZ_SEED=$(SEED) TAS_FUZZ_MODE=$(or $(MODE),fuzz) TAS_KSELFTESTS=0 \
		TAS_UNLOAD_ROUNDS=1 TAS_BOOT_TIMEOUT=$$(($(FUZZ_SECONDS) + 1500)) \
		$(if $(KASAN),TAS_KOUT_NAME=x86-kasan TAS_KCONFIG_EXTRA=$(CURDIR)/tools/qemu/kasan.config) \
		tools/qemu-test.sh

# Benchmarks of the graph dispatcher in QEMU, writing bench/results.json.
bench:
	tools/setup.sh
	. tools/env.sh && tas_assemble
	tools/bench.sh --with-trace

# The graphs of real model work in bench/graphs, exported again from PyTorch
# models (tools/export-graphs.py, with the tas module's tas.capture), in a
# virtual environment of their own with the versions they were exported
# with. Not needed by bench; check traces them again and compares.
export-graphs:
	tools/setup.sh
	tools/export-graphs.sh

# Cost of the drm_sched trace events: base vs series vs events on (UML).
bench-trace:
	tools/bench-trace.sh

# The README's test command, run by .ci/run.
check:
	tools/check.sh

# The README's main command: set up, apply the series, build, boot it in QEMU
# and run the demo.
demo:
	tools/setup.sh
	. tools/env.sh && tas_assemble
	tools/demo.sh
