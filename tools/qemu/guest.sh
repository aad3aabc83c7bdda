# SPDX-License-Identifier: GPL-2.0
# Guest side of the TAS QEMU runs, sourced by the init scripts in the
# initramfs (/etc/tas/guest.sh). Busybox sh only. Variables are global: the
# init scripts add up their result in rc, so no function here sets rc.
# shellcheck shell=sh

tas_guest_setup() {
	/bin/busybox --install -s /bin
	export PATH=/bin
	mount -t devtmpfs devtmpfs /dev 2>/dev/null
	mount -t proc proc /proc
	# What udev would create; the kselftest runner writes to /dev/stdout.
	ln -sf /proc/self/fd /dev/fd
	ln -sf /proc/self/fd/0 /dev/stdin
	ln -sf /proc/self/fd/1 /dev/stdout
	ln -sf /proc/self/fd/2 /dev/stderr
	mount -t sysfs sysfs /sys
	mount -t debugfs debugfs /sys/kernel/debug
	mount -t tracefs tracefs /sys/kernel/tracing
	echo "TAS-GUEST: $(uname -r), cmdline: $(cat /proc/cmdline)"
	tas_load_module || echo "TAS-GUEST: loading tas.ko failed"
	ls -l /dev/dri/ 2>&1 | sed 's/^/TAS-GUEST: /'
}

# tas_load_module [OPTION...]: load the tas module, where the kernel has it as
# one, with the tas.* options of the kernel command line (busybox insmod does
# not read them itself), then OPTIONS: the last value of a module parameter
# wins.
tas_load_module() {
	[ -f /lib/modules/tas.ko ] || return 0
	# shellcheck disable=SC2046 # one word per option
	insmod /lib/modules/tas.ko $(tr ' ' '\n' </proc/cmdline | sed -n 's/^tas\.//p') "$@"
}

# Unload the tas module; a file of a process that just exited may still be
# being released (its last fput() is deferred), so retry for a while.
tas_unload_module() {
	i=0
	until rmmod tas 2>/dev/null; do
		i=$((i + 1))
		[ "$i" -lt 100 ] || { rmmod tas; return 1; }
		sleep 0.1
	done
}

# tas_timeout_rounds ROUNDS: reload the module with a job timeout of 10 ms
# and run the kselftest error_timeout_propagates ROUNDS times, a process
# each, until one fails: each round races the timeout handler against the
# ring that executes the node. Then reload it with the options of the kernel
# command line. One TAP line, after the output of a failed round.
tas_timeout_rounds() {
	echo "1..1"
	tas_unload_module || { echo "not ok 1 timeout rounds: unload"; return 1; }
	if ! tas_load_module job_timeout_ms=10; then
		echo "not ok 1 timeout rounds: insmod"
		return 1
	fi
	n=0
	r=0
	while [ "$n" -lt "$1" ]; do
		n=$((n + 1))
		if ! out=$(/kselftest/drivers/gpu/tas/tas_test -t error_timeout_propagates 2>&1); then
			echo "$out" | sed 's/^/# /'
			r=1
			break
		fi
	done
	tas_unload_module && tas_load_module || r=1
	if [ "$r" -eq 0 ]; then
		echo "ok 1 timeout rounds: $n of $1 with a 10 ms job timeout"
	else
		echo "not ok 1 timeout rounds: failed in round $n of $1"
	fi
	return $r
}

# tas_unload_rounds ROUNDS PROCS NODES MSEC: unload the module, then ROUNDS
# times: load it, put it under load with tas-stress (PROCS processes
# submitting graphs of NODES nodes, killed or closing their files after MSEC
# ms, with nodes running) and unload it. One TAP line per round.
tas_unload_rounds() {
	echo "1..$1"
	tas_unload_module || { echo "not ok 1 first unload"; return 1; }
	n=0
	while [ "$n" -lt "$1" ]; do
		n=$((n + 1))
		if ! tas_load_module; then
			echo "not ok $n unload round $n: insmod"
			return 1
		fi
		if ! /bin/tas-stress "$2" "$3" "$4"; then
			echo "not ok $n unload round $n: tas-stress"
			return 1
		fi
		if ! tas_unload_module; then
			echo "not ok $n unload round $n: rmmod"
			return 1
		fi
		echo "ok $n unload round $n"
	done
}

# Mount the host's root file system, which tas_boot shares read-only over
# virtio 9p with TAS_HOSTROOT=1 or TAS_PY (as virtme-ng does), on /host,
# with this guest's /proc, /sys, /dev, tracefs and a tmpfs /tmp inside, so
# that host programs (bpftrace, trace-cmd, Python) run in it with chroot.
# Fails without the share.
tas_hostroot() {
	[ -d /host/usr ] && return 0
	mkdir -p /host
	mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose tas-host /host ||
		return 1
	mount -o bind /proc /host/proc &&
		mount -o bind /sys /host/sys &&
		mount -t tracefs tracefs /host/sys/kernel/tracing &&
		mount -o bind /dev /host/dev &&
		mount -t tmpfs tmpfs /host/tmp &&
		mkdir /host/tmp/out &&
		mount -t 9p -o trans=virtio,version=9p2000.L tas-out /host/tmp/out
}

# tas_demo_script: /tmp/run-demo in the host's root file system, one run of
# tas-demo's graph with its output in /tmp/tas-demo.out.
tas_demo_script() {
	[ -x /host/tmp/run-demo ] && return 0
	cp /bin/tas-demo /host/tmp/tas-demo
	printf '#!/bin/sh\nexec /tmp/tas-demo --no-trace >/tmp/tas-demo.out\n' >/host/tmp/run-demo
	chmod +x /host/tmp/run-demo
}

# tas_bpftrace SCRIPT...: run each bpftrace script of the project
# (/etc/tas/bpftrace) on the host's bpftrace, in the host's root file system,
# around one run of tas-demo's graph; its maps go to the console between
# TAS-BPFTRACE-START NAME and TAS-BPFTRACE-END lines.
tas_bpftrace() {
	tas_hostroot || { echo "TAS-GUEST: no host root file system (TAS_HOSTROOT=1)"; return 1; }
	tas_demo_script
	# The test kernels have no BTF (CONFIG_DEBUG_INFO_BTF), from which
	# bpftrace takes the kernel types of the trace events' fields elsewhere.
	printf 'typedef %s;\n' 'unsigned char u8' 'unsigned short u16' \
		'unsigned int u32' 'unsigned long long u64' 'signed char s8' \
		'short s16' 'int s32' 'long long s64' '_Bool bool' >/host/tmp/kernel-types.h
	ret=0
	for script; do
		cp "/etc/tas/bpftrace/$script" "/host/tmp/$script"
		echo "TAS-BPFTRACE-START $script"
		# -c takes an ELF binary (bpftrace resolves it as a uprobe
		# target), and splits its argument at spaces.
		chroot /host /usr/bin/bpftrace --include /tmp/kernel-types.h \
			"/tmp/$script" -c "/bin/sh /tmp/run-demo" || ret=1
		echo "TAS-BPFTRACE-END"
	done
	return "$ret"
}

# tas_tracecmd: the host's trace-cmd records the drm_sched latency events and
# drm/tas's tas_node_start of one more run of tas-demo's graph into
# trace.dat, which goes to the host
# (the tas-out share, $TAS_KOUT/guest-out) for userspace/tas-tracedat; the
# start of trace-cmd's own report goes to the console between
# TAS-TRACECMD-START and TAS-TRACECMD-END.
tas_tracecmd() {
	tas_hostroot || { echo "TAS-GUEST: no host root file system (TAS_HOSTROOT=1)"; return 1; }
	tas_demo_script
	ret=0
	echo "TAS-TRACECMD-START"
	chroot /host /bin/sh -c 'cd /tmp &&
		trace-cmd record -e gpu_scheduler:drm_sched_job_dispatch \
			-e gpu_scheduler:drm_sched_job_deps_resolved \
			-e tas:tas_node_start \
			-o /tmp/trace.dat /tmp/run-demo >/tmp/record.out 2>&1 &&
		cp /tmp/trace.dat /tmp/out/trace.dat &&
		trace-cmd report -i /tmp/trace.dat >/tmp/report.out' || ret=1
	[ "$ret" -eq 0 ] || cat /host/tmp/record.out
	head -n 12 /host/tmp/report.out
	echo "TAS-TRACECMD-END"
	return "$ret"
}

# tas_fuzz SECONDS SEED [MODE]: userspace/tas-fuzz for SECONDS with SEED, as
# one TAP test. The errno table is docs/uapi-errors.md of the project. MODE
# load is its saturating load (-L), with the hung task detector at 30 s.
tas_fuzz() {
	mode=
	if [ "${3:-fuzz}" = load ]; then
		mode=-L
		echo 30 > /proc/sys/kernel/hung_task_timeout_secs
	fi
	echo "1..1"
	if /bin/tas-fuzz $mode -t "$1" -s "$2" -e /etc/tas/uapi-errors.md; then
		echo "ok 1 tas-fuzz ${3:-fuzz} seed $2, $1 s"
	else
		echo "not ok 1 tas-fuzz ${3:-fuzz} seed $2, $1 s"
		return 1
	fi
}

# The userspace library's example (userspace/tas-rs), as one test; its own
# lines are prefixed, so that only the summary counts.
tas_rs_smoke() {
	st=0
	echo "1..1"
	/bin/tas-rs-smoke >/tas-rs.log 2>&1 || st=$?
	sed 's/^/tas-rs: /' /tas-rs.log
	if [ "$st" -eq 0 ]; then
		echo "ok 1 tas-rs smoke: $(tail -n 1 /tas-rs.log)"
	else
		echo "not ok 1 tas-rs smoke: $(tail -n 1 /tas-rs.log) (exit $st)"
		return 1
	fi
}

# tas_py_test PYTHON: the tests of the tas Python module
# (userspace/tas-py/tests/test_tas.py), the example of its README
# (examples/quickstart.py) and the model example (examples/model_template.py
# on a captured ResNet-18 training step) on PYTHON, the host's venv, where
# the module is installed, in the host's root file system, as three tests:
# every unit test must pass, none may be skipped. Their own lines are
# prefixed.
tas_py_test() {
	tas_hostroot || { echo "TAS-GUEST: no host root file system (TAS_PY)"; return 1; }
	ret=0
	echo "1..3"
	cp /etc/tas/test_tas.py /etc/tas/quickstart.py /etc/tas/README.md \
		/etc/tas/model_template.py /etc/tas/resnet18-dp-train.tasg /host/tmp/
	st=0
	chroot /host /usr/bin/env PYTHONDONTWRITEBYTECODE=1 "$1" -m unittest -v \
		/tmp/test_tas.py >/tas-py.log 2>&1 || st=$?
	sed 's/^/tas-py: /' /tas-py.log
	summary="$(grep -E '^Ran [0-9]+ tests' /tas-py.log), $(tail -n 1 /tas-py.log)"
	if [ "$st" -eq 0 ] && ! grep -q 'skipped' /tas-py.log; then
		echo "ok 1 tas-py: $summary"
	else
		echo "not ok 1 tas-py: $summary (exit $st)"
		ret=1
	fi
	n=1
	for example in quickstart.py "model_template.py /tmp/resnet18-dp-train.tasg"; do
		n=$((n + 1))
		st=0
		# shellcheck disable=SC2086 # the example and its arguments
		chroot /host /usr/bin/env PYTHONDONTWRITEBYTECODE=1 "$1" /tmp/$example \
			>/tas-py.log 2>&1 || st=$?
		sed 's/^/tas-py: /' /tas-py.log
		if [ "$st" -eq 0 ]; then
			echo "ok $n tas-py: examples/$example"
		else
			echo "not ok $n tas-py: examples/$example (exit $st)"
			ret=1
		fi
	done
	return "$ret"
}

# tas_capture_test PYTHON: examples/model_template.py --capture resnet18 on
# PYTHON, a venv with PyTorch and the tas module (tools/export-graphs.sh's):
# the model traced in the guest, then launched as a template, as one test.
tas_capture_test() {
	echo "1..1"
	t0=$(date +%s)
	if tas_model_run "$1" --capture resnet18 --launches 5; then
		echo "ok 1 tas-capture: ResNet-18 traced and launched in $(($(date +%s) - t0)) s"
	else
		echo "not ok 1 tas-capture: ResNet-18 traced and launched"
		return 1
	fi
}

# tas_model_run PYTHON ARGS...: examples/model_template.py with ARGS on
# PYTHON in the host's root file system, as for tas_py_test; its lines are
# prefixed with TAS-MODEL.
tas_model_run() {
	py=$1
	shift
	tas_hostroot || { echo "TAS-GUEST: no host root file system (TAS_PY)"; return 1; }
	cp /etc/tas/model_template.py /host/tmp/
	st=0
	chroot /host /usr/bin/env PYTHONDONTWRITEBYTECODE=1 "$py" /tmp/model_template.py \
		"$@" >/tas-model.log 2>&1 || st=$?
	# Prefixed, apart from the kernel's messages on the same console.
	sed 's/^/TAS-MODEL /' /tas-model.log
	[ "$st" -eq 0 ] || { echo "TAS-MODEL model_template.py $*: exit $st"; return 1; }
}

# tas_models PYTHON GRAPH...: tas_model_run on each captured model graph
# (/etc/tas/graphs/GRAPH.tasg).
tas_models() {
	py=$1
	shift
	tas_hostroot || { echo "TAS-GUEST: no host root file system (TAS_PY)"; return 1; }
	mkdir -p /host/tmp/tas-graphs
	ret=0
	for graph; do
		cp "/etc/tas/graphs/$graph.tasg" /host/tmp/tas-graphs/
		tas_model_run "$py" "/tmp/tas-graphs/$graph.tasg" || ret=1
	done
	return "$ret"
}

# Where the kernel has kmemleak: scan for leaks (those of the KUnit suites run
# at boot included) and print what it found between TAS-KMEMLEAK-START and
# TAS-KMEMLEAK-END. An object is reported only once it is a few seconds old
# and unreferenced in two scans, hence the wait and the second scan.
tas_kmemleak_report() {
	k=/sys/kernel/debug/kmemleak
	[ -w "$k" ] || return 0
	echo scan >"$k"
	sleep 6
	echo scan >"$k"
	echo "TAS-KMEMLEAK-START"
	cat "$k"
	echo "TAS-KMEMLEAK-END"
}

# tas_mark MARKER: print the line MARKER (a TAS-<PART>-START or -END line that
# the host looks for, or TAS-GUEST-DONE), after a line "TAS-TIME <uptime>
# MARKER" from which the host tells how long each part of the run took.
tas_mark() {
	echo "TAS-TIME $(cut -d' ' -f1 /proc/uptime) $1"
	echo "$1"
}

# Print the result marker the host looks for and power off; QEMU runs with
# -no-reboot, so the reboot ends it.
tas_guest_done() {
	tas_mark "TAS-GUEST-DONE rc=$1"
	sync
	reboot -f
	sleep 10
}
