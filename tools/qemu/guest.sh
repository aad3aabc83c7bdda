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
	ls -l /dev/dri/ 2>&1 | sed 's/^/TAS-GUEST: /'
}

# Print the result marker the host looks for and power off; QEMU runs with
# -no-reboot, so the reboot ends it.
tas_guest_done() {
	echo "TAS-GUEST-DONE rc=$1"
	sync
	reboot -f
	sleep 10
}
