# SPDX-License-Identifier: GPL-2.0
# Guest side of the TAS QEMU runs, sourced by the init scripts in the
# initramfs (/etc/tas/guest.sh). Busybox sh only.
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

# Load the tas module, where the kernel has it as one, with the tas.* options
# of the kernel command line (busybox insmod does not read them itself).
tas_load_module() {
	[ -f /lib/modules/tas.ko ] || return 0
	# shellcheck disable=SC2046 # one word per option
	insmod /lib/modules/tas.ko $(tr ' ' '\n' </proc/cmdline | sed -n 's/^tas\.//p')
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

# tas_fuzz SECONDS SEED: userspace/tas-fuzz for SECONDS with SEED, as one
# TAP test. The errno table is docs/uapi-errors.md of the project.
tas_fuzz() {
	echo "1..1"
	if /bin/tas-fuzz -t "$1" -s "$2" -e /etc/tas/uapi-errors.md; then
		echo "ok 1 tas-fuzz seed $2, $1 s"
	else
		echo "not ok 1 tas-fuzz seed $2, $1 s"
		return 1
	fi
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

# Print the result marker the host looks for and power off; QEMU runs with
# -no-reboot, so the reboot ends it.
tas_guest_done() {
	echo "TAS-GUEST-DONE rc=$1"
	sync
	reboot -f
	sleep 10
}
