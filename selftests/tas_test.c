// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the uAPI of the TAS virtual DRM driver (drivers/gpu/drm/tas).
 *
 * The driver's render node is found by asking every /dev/dri/renderD* node
 * for its driver name, since other DRM drivers may own lower minors.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <drm/drm.h>
#include <drm/tas_drm.h>

#include "kselftest_harness.h"

#define TAS_DRIVER_NAME		"tas"
#define TAS_UAPI_VERSION	1
#define TAS_MAX_RINGS		16

static int tas_is_tas_node(int fd)
{
	char name[32] = { 0 };
	struct drm_version v = {
		.name_len = sizeof(name) - 1,
		.name = name,
	};

	if (ioctl(fd, DRM_IOCTL_VERSION, &v))
		return 0;
	return v.name_len == strlen(TAS_DRIVER_NAME) &&
	       !strcmp(name, TAS_DRIVER_NAME);
}

/* Returns an open fd of the tas render node, or -1 if there is none. */
static int tas_open_render_node(void)
{
	struct dirent *de;
	DIR *dir;
	int fd = -1;

	dir = opendir("/dev/dri");
	if (!dir)
		return -1;

	while ((de = readdir(dir))) {
		char path[PATH_MAX];

		if (strncmp(de->d_name, "renderD", strlen("renderD")))
			continue;
		snprintf(path, sizeof(path), "/dev/dri/%s", de->d_name);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (tas_is_tas_node(fd))
			break;
		close(fd);
		fd = -1;
	}

	closedir(dir);
	return fd;
}

/* Returns 0 and the value, or -errno. */
static int tas_get_param(int fd, __u32 param, __u32 pad, __u64 *value)
{
	struct drm_tas_get_param args = {
		.param = param,
		.pad = pad,
		.value = 0,
	};

	if (ioctl(fd, DRM_IOCTL_TAS_GET_PARAM, &args))
		return -errno;
	*value = args.value;
	return 0;
}

FIXTURE(tas) {
	int fd;
};

FIXTURE_SETUP(tas)
{
	self->fd = tas_open_render_node();
	if (self->fd < 0)
		SKIP(return, "no tas render node (CONFIG_DRM_TAS not enabled?)");
}

FIXTURE_TEARDOWN(tas)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(tas, struct_layout)
{
	/* The layout is uAPI: two __u32 and one naturally aligned __u64. */
	ASSERT_EQ(16, sizeof(struct drm_tas_get_param));
	ASSERT_EQ(DRM_COMMAND_BASE + DRM_TAS_GET_PARAM,
		  _IOC_NR(DRM_IOCTL_TAS_GET_PARAM));
	ASSERT_EQ(sizeof(struct drm_tas_get_param),
		  _IOC_SIZE(DRM_IOCTL_TAS_GET_PARAM));
}

TEST_F(tas, param_version)
{
	__u64 value = 0;

	ASSERT_EQ(0, tas_get_param(self->fd, DRM_TAS_PARAM_VERSION, 0, &value));
	ASSERT_EQ(TAS_UAPI_VERSION, value);
}

TEST_F(tas, param_num_rings)
{
	__u64 value = 0;

	ASSERT_EQ(0, tas_get_param(self->fd, DRM_TAS_PARAM_NUM_RINGS, 0,
				   &value));
	ASSERT_GE(value, 1);
	ASSERT_LE(value, TAS_MAX_RINGS);
	TH_LOG("rings: %llu", (unsigned long long)value);
}

TEST_F(tas, param_limits)
{
	static const struct {
		__u32 param;
		__u64 value;
	} limits[] = {
		{ DRM_TAS_PARAM_MAX_NODES, 4096 },
		{ DRM_TAS_PARAM_MAX_EDGES, 16384 },
		{ DRM_TAS_PARAM_MAX_WAITS, 64 },
		{ DRM_TAS_PARAM_MAX_SIGNALS, 64 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(limits); i++) {
		__u64 value = 0;

		ASSERT_EQ(0, tas_get_param(self->fd, limits[i].param, 0,
					   &value));
		EXPECT_EQ(limits[i].value, value);
	}
}

TEST_F(tas, param_unknown)
{
	static const __u32 unknown[] = {
		DRM_TAS_PARAM_MAX_SIGNALS + 1, 0x100, 0x80000000, 0xffffffff,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(unknown); i++) {
		__u64 value = 0;

		EXPECT_EQ(-EINVAL, tas_get_param(self->fd, unknown[i], 0,
						 &value));
	}
}

TEST_F(tas, pad_nonzero)
{
	static const __u32 pads[] = { 1, 0x80000000, 0xffffffff };
	unsigned int i;
	__u32 param;

	for (param = DRM_TAS_PARAM_VERSION; param <= DRM_TAS_PARAM_MAX_SIGNALS;
	     param++) {
		for (i = 0; i < ARRAY_SIZE(pads); i++) {
			__u64 value = 0;

			EXPECT_EQ(-EINVAL, tas_get_param(self->fd, param,
							 pads[i], &value));
		}
	}
}

TEST_F(tas, bad_pointer)
{
	/* A bad argument pointer is caught by the DRM core. */
	ASSERT_EQ(-1, ioctl(self->fd, DRM_IOCTL_TAS_GET_PARAM, NULL));
	ASSERT_EQ(EFAULT, errno);
}

TEST_HARNESS_MAIN
