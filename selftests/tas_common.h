/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the TAS selftests: finding DRM nodes by driver name,
 * ioctls that retry like libdrm's drmIoctl(), and the monotonic clock that
 * the driver's timestamps use.
 */

#ifndef __TAS_COMMON_H__
#define __TAS_COMMON_H__

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <drm/drm.h>

#include "kselftest.h"

#define TAS_DRIVER_NAME		"tas"

#define TAS_NSEC_PER_USEC	1000ULL
#define TAS_NSEC_PER_MSEC	1000000ULL
#define TAS_NSEC_PER_SEC	1000000000ULL

/* CLOCK_MONOTONIC in nanoseconds, the clock of the driver's timestamps. */
static inline __u64 tas_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * TAS_NSEC_PER_SEC + ts.tv_nsec;
}

/* Returns 0, or -errno; retries on EINTR and EAGAIN as drmIoctl() does. */
static inline int tas_ioctl(int fd, unsigned long request, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, request, arg);
	} while (ret == -1 && (errno == EINTR || errno == EAGAIN));

	return ret ? -errno : 0;
}

/* Whether the DRM node @fd belongs to driver @driver. */
static inline int tas_driver_is(int fd, const char *driver)
{
	char name[64] = { 0 };
	struct drm_version v = {
		.name_len = sizeof(name) - 1,
		.name = name,
	};

	if (ioctl(fd, DRM_IOCTL_VERSION, &v))
		return 0;
	return v.name_len == strlen(driver) && !strcmp(name, driver);
}

/*
 * Returns an open fd of the first /dev/dri/<prefix>* node of driver
 * @driver, or -1 if there is none. Other DRM drivers (vkms, virtio-gpu) may
 * own lower minors, so every node is asked for its driver name.
 */
static inline int tas_open_node(const char *prefix, const char *driver)
{
	struct dirent *de;
	DIR *dir;
	int fd = -1;

	dir = opendir("/dev/dri");
	if (!dir)
		return -1;

	while ((de = readdir(dir))) {
		char path[PATH_MAX];

		if (strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		snprintf(path, sizeof(path), "/dev/dri/%s", de->d_name);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (tas_driver_is(fd, driver)) {
			ksft_print_msg("%s: using %s\n", driver, path);
			break;
		}
		close(fd);
		fd = -1;
	}

	closedir(dir);
	return fd;
}

/* Returns an open fd of the tas render node, or -1 if there is none. */
static inline int tas_open_render_node(void)
{
	return tas_open_node("renderD", TAS_DRIVER_NAME);
}

#endif /* __TAS_COMMON_H__ */
