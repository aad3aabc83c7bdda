/* SPDX-License-Identifier: MIT */
/*
 * Copyright (C) 2026 The TAS Developers
 */

#ifndef __TAS_DRM_H__
#define __TAS_DRM_H__

#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

/**
 * DOC: TAS uAPI
 *
 * TAS is a virtual DRM driver that executes whole dependency graphs of GPU
 * work on a set of simulated rings through the DRM GPU scheduler. It exposes
 * a render node only.
 *
 * Userspace discovers the driver with DRM_IOCTL_VERSION (driver name "tas")
 * and queries its properties with &DRM_IOCTL_TAS_GET_PARAM.
 *
 * All structures are padded to a multiple of 64 bits. Fields marked as
 * padding or reserved must be zero; the kernel rejects non-zero values with
 * -EINVAL, so that they can be given a meaning later.
 */

/**
 * enum drm_tas_param - Parameters that can be queried with
 * &DRM_IOCTL_TAS_GET_PARAM.
 *
 * New parameters are only ever appended. Querying a parameter the kernel does
 * not know fails with -EINVAL, which userspace can use to detect older
 * kernels.
 */
enum drm_tas_param {
	/**
	 * @DRM_TAS_PARAM_VERSION: Version of the TAS uAPI. It is incremented
	 * whenever an ioctl, a parameter or a flag is added. Currently 1.
	 */
	DRM_TAS_PARAM_VERSION = 0,

	/**
	 * @DRM_TAS_PARAM_NUM_RINGS: Number of rings (hardware queues) of the
	 * virtual engine, between 1 and 16.
	 */
	DRM_TAS_PARAM_NUM_RINGS = 1,

	/**
	 * @DRM_TAS_PARAM_MAX_NODES: Maximum number of nodes (jobs) in one
	 * submitted graph. Currently 4096.
	 */
	DRM_TAS_PARAM_MAX_NODES = 2,

	/**
	 * @DRM_TAS_PARAM_MAX_EDGES: Maximum number of dependency edges in one
	 * submitted graph. Currently 16384.
	 */
	DRM_TAS_PARAM_MAX_EDGES = 3,

	/**
	 * @DRM_TAS_PARAM_MAX_WAITS: Maximum number of syncobj wait entries in
	 * one graph submission. Currently 64.
	 */
	DRM_TAS_PARAM_MAX_WAITS = 4,

	/**
	 * @DRM_TAS_PARAM_MAX_SIGNALS: Maximum number of syncobj signal entries
	 * in one graph submission. Currently 64.
	 */
	DRM_TAS_PARAM_MAX_SIGNALS = 5,
};

/**
 * struct drm_tas_get_param - Argument of &DRM_IOCTL_TAS_GET_PARAM.
 */
struct drm_tas_get_param {
	/**
	 * @param: [in] The parameter to query, one of &enum drm_tas_param.
	 */
	__u32 param;

	/**
	 * @pad: [in] Padding, must be zero.
	 */
	__u32 pad;

	/**
	 * @value: [out] The value of the parameter.
	 */
	__u64 value;
};

#define DRM_TAS_GET_PARAM		0x00

/**
 * DOC: TAS ioctls
 *
 * .. c:macro:: DRM_IOCTL_TAS_GET_PARAM
 *
 *    Query a parameter of the driver or the virtual device, see
 *    &struct drm_tas_get_param. Allowed on the render node. Fails with
 *    -EINVAL if &drm_tas_get_param.param is unknown or
 *    &drm_tas_get_param.pad is not zero.
 */

/* Note: this is an enum so that it can be resolved by Rust bindgen. */
enum {
	DRM_IOCTL_TAS_GET_PARAM		= DRM_IOWR(DRM_COMMAND_BASE + DRM_TAS_GET_PARAM,
						   struct drm_tas_get_param),
};

#if defined(__cplusplus)
}
#endif

#endif /* __TAS_DRM_H__ */
