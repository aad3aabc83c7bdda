// SPDX-License-Identifier: GPL-2.0
/*
 * Interop of the out-fences of TAS graphs (drivers/gpu/drm/tas) with KMS
 * atomic commits.
 *
 * A graph of three chained 100 ms NOP nodes signals a binary syncobj at the
 * graph level. The syncobj is exported as a sync_file, which becomes the
 * IN_FENCE_FD of a nonblocking page flip on a vkms or virtio-gpu CRTC. The
 * flip, and so the out-fence returned through the CRTC's OUT_FENCE_PTR, must
 * complete only after the whole graph has finished.
 *
 * The KMS card of each driver and the tas render node are found by asking
 * every /dev/dri node for its driver name. Every wait has a timeout, and
 * every failure names the step that failed.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <drm/drm.h>
#include <drm/drm_fourcc.h>
#include <drm/drm_mode.h>
#include <drm/tas_drm.h>
#include <linux/sync_file.h>

#include "kselftest_harness.h"
#include "tas_common.h"

/* The graph: TAS_KMS_NUM_NODES chained NOPs of TAS_KMS_NODE_NS each. */
#define TAS_KMS_NUM_NODES	3
#define TAS_KMS_NODE_NS		(100 * TAS_NSEC_PER_MSEC)
#define TAS_KMS_GRAPH_NS	(TAS_KMS_NUM_NODES * TAS_KMS_NODE_NS)

/* How long the test waits for the out-fence of the flip. */
#define TAS_KMS_POLL_MS		5000
/* How long the teardown waits for the graph before it removes the fbs. */
#define TAS_KMS_WAIT_NS		(10 * TAS_NSEC_PER_SEC)

/* Array sizes for the KMS object lists. */
#define TAS_KMS_MAX_OBJS	64
#define TAS_KMS_REQ_MAX_OBJS	4
#define TAS_KMS_REQ_MAX_PROPS	16
#define TAS_KMS_MAX_FENCES	4

/*
 * Values of enum drm_connector_status and enum drm_plane_type: the
 * connector's "connection" and the plane's "type" property are uAPI, but
 * their values are only defined in kernel headers.
 */
#define TAS_KMS_CONNECTED	1
#define TAS_KMS_PLANE_PRIMARY	1

/* The KMS properties that the test sets, and the objects they belong to. */
enum tas_kms_prop {
	TAS_KMS_CONN_CRTC_ID,
	TAS_KMS_CRTC_MODE_ID,
	TAS_KMS_CRTC_ACTIVE,
	TAS_KMS_CRTC_OUT_FENCE_PTR,
	TAS_KMS_PLANE_FB_ID,
	TAS_KMS_PLANE_CRTC_ID,
	TAS_KMS_PLANE_SRC_X,
	TAS_KMS_PLANE_SRC_Y,
	TAS_KMS_PLANE_SRC_W,
	TAS_KMS_PLANE_SRC_H,
	TAS_KMS_PLANE_CRTC_X,
	TAS_KMS_PLANE_CRTC_Y,
	TAS_KMS_PLANE_CRTC_W,
	TAS_KMS_PLANE_CRTC_H,
	TAS_KMS_PLANE_IN_FENCE_FD,
	TAS_KMS_NUM_PROPS,
};

static const struct {
	__u32 obj_type;
	const char *name;
} tas_kms_props[TAS_KMS_NUM_PROPS] = {
	[TAS_KMS_CONN_CRTC_ID] = { DRM_MODE_OBJECT_CONNECTOR, "CRTC_ID" },
	[TAS_KMS_CRTC_MODE_ID] = { DRM_MODE_OBJECT_CRTC, "MODE_ID" },
	[TAS_KMS_CRTC_ACTIVE] = { DRM_MODE_OBJECT_CRTC, "ACTIVE" },
	[TAS_KMS_CRTC_OUT_FENCE_PTR] = { DRM_MODE_OBJECT_CRTC, "OUT_FENCE_PTR" },
	[TAS_KMS_PLANE_FB_ID] = { DRM_MODE_OBJECT_PLANE, "FB_ID" },
	[TAS_KMS_PLANE_CRTC_ID] = { DRM_MODE_OBJECT_PLANE, "CRTC_ID" },
	[TAS_KMS_PLANE_SRC_X] = { DRM_MODE_OBJECT_PLANE, "SRC_X" },
	[TAS_KMS_PLANE_SRC_Y] = { DRM_MODE_OBJECT_PLANE, "SRC_Y" },
	[TAS_KMS_PLANE_SRC_W] = { DRM_MODE_OBJECT_PLANE, "SRC_W" },
	[TAS_KMS_PLANE_SRC_H] = { DRM_MODE_OBJECT_PLANE, "SRC_H" },
	[TAS_KMS_PLANE_CRTC_X] = { DRM_MODE_OBJECT_PLANE, "CRTC_X" },
	[TAS_KMS_PLANE_CRTC_Y] = { DRM_MODE_OBJECT_PLANE, "CRTC_Y" },
	[TAS_KMS_PLANE_CRTC_W] = { DRM_MODE_OBJECT_PLANE, "CRTC_W" },
	[TAS_KMS_PLANE_CRTC_H] = { DRM_MODE_OBJECT_PLANE, "CRTC_H" },
	[TAS_KMS_PLANE_IN_FENCE_FD] = { DRM_MODE_OBJECT_PLANE, "IN_FENCE_FD" },
};

/* The output the test drives: connector -> CRTC -> primary plane. */
struct tas_kms_output {
	__u32 connector_id;
	__u32 crtc_id;
	__u32 crtc_index;
	__u32 plane_id;
	struct drm_mode_modeinfo mode;
	__u32 prop[TAS_KMS_NUM_PROPS];
};

/* The arrays of an atomic commit, properties grouped by object. */
struct tas_kms_req {
	__u32 objs[TAS_KMS_REQ_MAX_OBJS];
	__u32 count_props[TAS_KMS_REQ_MAX_OBJS];
	__u32 props[TAS_KMS_REQ_MAX_PROPS];
	__u64 values[TAS_KMS_REQ_MAX_PROPS];
	__u32 num_objs;
	__u32 num_props;
	int error;
};

/* Milliseconds from @base to @t, negative if @t is earlier. */
static long long tas_rel_ms(__u64 t, __u64 base)
{
	return ((long long)t - (long long)base) / (long long)TAS_NSEC_PER_MSEC;
}

/*
 * Waits until @fd is readable, at most @timeout_ms. Returns 1 when it is,
 * 0 on timeout, or -errno.
 */
static int tas_poll_in(int fd, int timeout_ms)
{
	__u64 end = tas_now_ns() + (__u64)timeout_ms * TAS_NSEC_PER_MSEC;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int ret;

	for (;;) {
		ret = poll(&pfd, 1, timeout_ms);
		if (ret >= 0)
			break;
		if (errno != EINTR)
			return -errno;
		timeout_ms = tas_now_ns() >= end ? 0 :
			     (int)((end - tas_now_ns()) / TAS_NSEC_PER_MSEC);
	}

	if (ret && !(pfd.revents & POLLIN))
		return -EIO;
	return ret;
}

/* Gets the id and current value of the property @name of a KMS object. */
static int tas_kms_get_prop(int fd, __u32 obj_id, __u32 obj_type,
			    const char *name, __u32 *prop_id, __u64 *value)
{
	struct drm_mode_obj_get_properties args;
	__u64 *values = NULL;
	__u32 *ids = NULL;
	__u32 count, i;
	int ret;

	memset(&args, 0, sizeof(args));
	args.obj_id = obj_id;
	args.obj_type = obj_type;
	ret = tas_ioctl(fd, DRM_IOCTL_MODE_OBJ_GETPROPERTIES, &args);
	if (ret)
		return ret;

	count = args.count_props;
	ids = calloc(count + 1, sizeof(*ids));
	values = calloc(count + 1, sizeof(*values));
	if (!ids || !values) {
		ret = -ENOMEM;
		goto out;
	}

	args.props_ptr = (__u64)(uintptr_t)ids;
	args.prop_values_ptr = (__u64)(uintptr_t)values;
	args.count_props = count;
	ret = tas_ioctl(fd, DRM_IOCTL_MODE_OBJ_GETPROPERTIES, &args);
	if (ret)
		goto out;

	ret = -ENOENT;
	for (i = 0; i < count && i < args.count_props; i++) {
		struct drm_mode_get_property prop;

		memset(&prop, 0, sizeof(prop));
		prop.prop_id = ids[i];
		if (tas_ioctl(fd, DRM_IOCTL_MODE_GETPROPERTY, &prop))
			continue;
		if (strncmp(prop.name, name, DRM_PROP_NAME_LEN))
			continue;
		*prop_id = ids[i];
		if (value)
			*value = values[i];
		ret = 0;
		break;
	}

out:
	free(values);
	free(ids);
	return ret;
}

/*
 * Gets a connector with its modes and encoders, which the caller frees.
 * The first call, with count_modes 0, makes the kernel probe the connector.
 */
static int tas_kms_get_connector(int fd, __u32 id,
				 struct drm_mode_get_connector *conn,
				 struct drm_mode_modeinfo **modes,
				 __u32 **encoders)
{
	int tries, ret;

	for (tries = 0; tries < 4; tries++) {
		__u32 count_modes, count_encoders;

		memset(conn, 0, sizeof(*conn));
		conn->connector_id = id;
		ret = tas_ioctl(fd, DRM_IOCTL_MODE_GETCONNECTOR, conn);
		if (ret)
			return ret;

		count_modes = conn->count_modes;
		count_encoders = conn->count_encoders;
		free(*modes);
		free(*encoders);
		*modes = calloc(count_modes + 1, sizeof(**modes));
		*encoders = calloc(count_encoders + 1, sizeof(**encoders));
		if (!*modes || !*encoders)
			return -ENOMEM;

		memset(conn, 0, sizeof(*conn));
		conn->connector_id = id;
		conn->count_modes = count_modes;
		conn->modes_ptr = (__u64)(uintptr_t)*modes;
		conn->count_encoders = count_encoders;
		conn->encoders_ptr = (__u64)(uintptr_t)*encoders;
		ret = tas_ioctl(fd, DRM_IOCTL_MODE_GETCONNECTOR, conn);
		if (ret)
			return ret;

		/* The lists are only copied if they fit: retry if they grew. */
		if (conn->count_modes <= count_modes &&
		    conn->count_encoders <= count_encoders)
			return 0;
	}

	return -EAGAIN;
}

static int tas_kms_crtc_index(const __u32 *crtcs, __u32 count, __u32 crtc_id)
{
	__u32 i;

	for (i = 0; i < count; i++) {
		if (crtcs[i] == crtc_id)
			return i;
	}
	return -1;
}

/*
 * Picks the CRTC of connector @conn: the one its current encoder drives,
 * else the first one that one of its encoders can drive.
 */
static int tas_kms_pick_crtc(int fd, const struct drm_mode_get_connector *conn,
			     const __u32 *encoders, const __u32 *crtcs,
			     __u32 count_crtcs, struct tas_kms_output *out)
{
	struct drm_mode_get_encoder enc;
	__u32 i, j;
	int index;

	if (conn->encoder_id) {
		memset(&enc, 0, sizeof(enc));
		enc.encoder_id = conn->encoder_id;
		if (!tas_ioctl(fd, DRM_IOCTL_MODE_GETENCODER, &enc) &&
		    enc.crtc_id) {
			index = tas_kms_crtc_index(crtcs, count_crtcs,
						   enc.crtc_id);
			if (index >= 0) {
				out->crtc_id = enc.crtc_id;
				out->crtc_index = index;
				return 0;
			}
		}
	}

	for (i = 0; i < conn->count_encoders; i++) {
		memset(&enc, 0, sizeof(enc));
		enc.encoder_id = encoders[i];
		if (tas_ioctl(fd, DRM_IOCTL_MODE_GETENCODER, &enc))
			continue;
		for (j = 0; j < count_crtcs && j < 32; j++) {
			if (enc.possible_crtcs & (1U << j)) {
				out->crtc_id = crtcs[j];
				out->crtc_index = j;
				return 0;
			}
		}
	}

	return -ENOENT;
}

/*
 * Step 1a: finds a connected connector with modes, its mode (the preferred
 * one, else the first) and a CRTC it can use.
 */
static int tas_kms_pick_connector(int fd, struct tas_kms_output *out)
{
	__u32 crtcs[TAS_KMS_MAX_OBJS], connectors[TAS_KMS_MAX_OBJS];
	__u32 count_crtcs, count_connectors, i, m;
	struct drm_mode_card_res res;
	int ret;

	memset(&res, 0, sizeof(res));
	res.crtc_id_ptr = (__u64)(uintptr_t)crtcs;
	res.count_crtcs = TAS_KMS_MAX_OBJS;
	res.connector_id_ptr = (__u64)(uintptr_t)connectors;
	res.count_connectors = TAS_KMS_MAX_OBJS;
	ret = tas_ioctl(fd, DRM_IOCTL_MODE_GETRESOURCES, &res);
	if (ret) {
		ksft_print_msg("step 1: GETRESOURCES failed: %s\n",
			       strerror(-ret));
		return ret;
	}
	count_crtcs = res.count_crtcs < TAS_KMS_MAX_OBJS ?
		      res.count_crtcs : TAS_KMS_MAX_OBJS;
	count_connectors = res.count_connectors < TAS_KMS_MAX_OBJS ?
			   res.count_connectors : TAS_KMS_MAX_OBJS;
	ksft_print_msg("step 1: %u CRTCs, %u connectors\n", count_crtcs,
		       count_connectors);

	for (i = 0; i < count_connectors; i++) {
		struct drm_mode_modeinfo *modes = NULL;
		struct drm_mode_get_connector conn;
		__u32 *encoders = NULL;

		ret = tas_kms_get_connector(fd, connectors[i], &conn, &modes,
					    &encoders);
		if (ret) {
			ksft_print_msg("step 1: GETCONNECTOR %u failed: %s\n",
				       connectors[i], strerror(-ret));
			goto next;
		}
		ksft_print_msg("step 1: connector %u: connection %u, %u modes, %u encoders\n",
			       connectors[i], conn.connection, conn.count_modes,
			       conn.count_encoders);
		if (conn.connection != TAS_KMS_CONNECTED || !conn.count_modes)
			goto next;

		ret = tas_kms_pick_crtc(fd, &conn, encoders, crtcs,
					count_crtcs, out);
		if (ret) {
			ksft_print_msg("step 1: connector %u has no usable CRTC\n",
				       connectors[i]);
			goto next;
		}

		out->connector_id = connectors[i];
		out->mode = modes[0];
		for (m = 0; m < conn.count_modes; m++) {
			if (modes[m].type & DRM_MODE_TYPE_PREFERRED) {
				out->mode = modes[m];
				break;
			}
		}
		free(encoders);
		free(modes);
		return 0;
next:
		free(encoders);
		free(modes);
	}

	ksft_print_msg("step 1: no connected connector with a mode and a CRTC\n");
	return -ENODEV;
}

/* Returns 1 if plane @plane_id supports @format, 0 if not, or -errno. */
static int tas_kms_plane_has_format(int fd, __u32 plane_id, __u32 format)
{
	struct drm_mode_get_plane plane;
	__u32 *formats, count, i;
	int ret;

	memset(&plane, 0, sizeof(plane));
	plane.plane_id = plane_id;
	ret = tas_ioctl(fd, DRM_IOCTL_MODE_GETPLANE, &plane);
	if (ret)
		return ret;

	count = plane.count_format_types;
	formats = calloc(count + 1, sizeof(*formats));
	if (!formats)
		return -ENOMEM;
	plane.format_type_ptr = (__u64)(uintptr_t)formats;
	plane.count_format_types = count;
	ret = tas_ioctl(fd, DRM_IOCTL_MODE_GETPLANE, &plane);
	if (!ret) {
		for (i = 0; i < count && i < plane.count_format_types; i++) {
			if (formats[i] == format) {
				ret = 1;
				break;
			}
		}
	}

	free(formats);
	return ret;
}

/* Step 1b: finds the primary plane of the chosen CRTC. */
static int tas_kms_pick_plane(int fd, struct tas_kms_output *out)
{
	__u32 planes[TAS_KMS_MAX_OBJS], count, i;
	struct drm_mode_get_plane_res res;
	int ret;

	memset(&res, 0, sizeof(res));
	res.plane_id_ptr = (__u64)(uintptr_t)planes;
	res.count_planes = TAS_KMS_MAX_OBJS;
	ret = tas_ioctl(fd, DRM_IOCTL_MODE_GETPLANERESOURCES, &res);
	if (ret) {
		ksft_print_msg("step 1: GETPLANERESOURCES failed: %s\n",
			       strerror(-ret));
		return ret;
	}
	count = res.count_planes < TAS_KMS_MAX_OBJS ?
		res.count_planes : TAS_KMS_MAX_OBJS;

	for (i = 0; i < count; i++) {
		struct drm_mode_get_plane plane;
		__u64 type = 0;
		__u32 type_id;

		memset(&plane, 0, sizeof(plane));
		plane.plane_id = planes[i];
		if (tas_ioctl(fd, DRM_IOCTL_MODE_GETPLANE, &plane))
			continue;
		if (out->crtc_index >= 32 ||
		    !(plane.possible_crtcs & (1U << out->crtc_index)))
			continue;
		if (tas_kms_get_prop(fd, planes[i], DRM_MODE_OBJECT_PLANE,
				     "type", &type_id, &type))
			continue;
		if (type != TAS_KMS_PLANE_PRIMARY)
			continue;

		ret = tas_kms_plane_has_format(fd, planes[i],
					       DRM_FORMAT_XRGB8888);
		if (ret != 1) {
			ksft_print_msg("step 1: primary plane %u does not support XRGB8888 (%d)\n",
				       planes[i], ret);
			return -EOPNOTSUPP;
		}
		out->plane_id = planes[i];
		return 0;
	}

	ksft_print_msg("step 1: no primary plane for CRTC %u (index %u) among %u planes\n",
		       out->crtc_id, out->crtc_index, count);
	return -ENOENT;
}

static __u32 tas_kms_obj_id(const struct tas_kms_output *out, __u32 obj_type)
{
	switch (obj_type) {
	case DRM_MODE_OBJECT_CONNECTOR:
		return out->connector_id;
	case DRM_MODE_OBJECT_CRTC:
		return out->crtc_id;
	default:
		return out->plane_id;
	}
}

/* Step 1c: looks up the ids of every property the test sets. */
static int tas_kms_get_props(int fd, struct tas_kms_output *out)
{
	int i, ret;

	for (i = 0; i < TAS_KMS_NUM_PROPS; i++) {
		__u32 type = tas_kms_props[i].obj_type;

		ret = tas_kms_get_prop(fd, tas_kms_obj_id(out, type), type,
				       tas_kms_props[i].name, &out->prop[i],
				       NULL);
		if (ret) {
			ksft_print_msg("step 1: property %s of object %u: %s\n",
				       tas_kms_props[i].name,
				       tas_kms_obj_id(out, type), strerror(-ret));
			return ret;
		}
	}
	return 0;
}

static void tas_kms_req_init(struct tas_kms_req *req)
{
	memset(req, 0, sizeof(*req));
}

/* Adds property @prop of its object; consecutive ones of an object group. */
static void tas_kms_req_add(struct tas_kms_req *req,
			    const struct tas_kms_output *out,
			    enum tas_kms_prop prop, __u64 value)
{
	__u32 obj_id = tas_kms_obj_id(out, tas_kms_props[prop].obj_type);

	if (req->num_props >= TAS_KMS_REQ_MAX_PROPS) {
		req->error = -E2BIG;
		return;
	}
	if (!req->num_objs || req->objs[req->num_objs - 1] != obj_id) {
		if (req->num_objs >= TAS_KMS_REQ_MAX_OBJS) {
			req->error = -E2BIG;
			return;
		}
		req->objs[req->num_objs] = obj_id;
		req->count_props[req->num_objs] = 0;
		req->num_objs++;
	}
	req->count_props[req->num_objs - 1]++;
	req->props[req->num_props] = out->prop[prop];
	req->values[req->num_props] = value;
	req->num_props++;
}

static int tas_kms_commit(int fd, const struct tas_kms_req *req, __u32 flags)
{
	struct drm_mode_atomic args;

	if (req->error)
		return req->error;

	memset(&args, 0, sizeof(args));
	args.flags = flags;
	args.count_objs = req->num_objs;
	args.objs_ptr = (__u64)(uintptr_t)req->objs;
	args.count_props_ptr = (__u64)(uintptr_t)req->count_props;
	args.props_ptr = (__u64)(uintptr_t)req->props;
	args.prop_values_ptr = (__u64)(uintptr_t)req->values;

	return tas_ioctl(fd, DRM_IOCTL_MODE_ATOMIC, &args);
}

/* Step 2: creates a dumb buffer of @width x @height and an XRGB8888 fb. */
static int tas_kms_create_fb(int fd, __u32 width, __u32 height,
			     __u32 *handle, __u32 *fb_id)
{
	struct drm_mode_create_dumb dumb;
	struct drm_mode_fb_cmd2 fb;
	int ret;

	memset(&dumb, 0, sizeof(dumb));
	dumb.width = width;
	dumb.height = height;
	dumb.bpp = 32;
	ret = tas_ioctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &dumb);
	if (ret) {
		ksft_print_msg("step 2: CREATE_DUMB %ux%u failed: %s\n",
			       width, height, strerror(-ret));
		return ret;
	}
	*handle = dumb.handle;

	memset(&fb, 0, sizeof(fb));
	fb.width = width;
	fb.height = height;
	fb.pixel_format = DRM_FORMAT_XRGB8888;
	fb.handles[0] = dumb.handle;
	fb.pitches[0] = dumb.pitch;
	ret = tas_ioctl(fd, DRM_IOCTL_MODE_ADDFB2, &fb);
	if (ret) {
		ksft_print_msg("step 2: ADDFB2 %ux%u pitch %u failed: %s\n",
			       width, height, dumb.pitch, strerror(-ret));
		return ret;
	}
	*fb_id = fb.fb_id;
	return 0;
}

/*
 * Step 2: waits for the flip-complete event of the modeset, at most
 * TAS_KMS_POLL_MS: a nonblocking commit fails with -EBUSY until the
 * previous commit on the CRTC has flipped.
 */
static int tas_kms_wait_flip_event(int fd)
{
	char buf[1024];
	ssize_t len;
	int ret;

	for (;;) {
		struct drm_event *ev = (struct drm_event *)buf;
		ssize_t pos;

		ret = tas_poll_in(fd, TAS_KMS_POLL_MS);
		if (ret <= 0)
			return ret ? ret : -ETIME;
		len = read(fd, buf, sizeof(buf));
		if (len < 0)
			return -errno;
		for (pos = 0; pos + (ssize_t)sizeof(*ev) <= len; pos += ev->length) {
			ev = (struct drm_event *)(buf + pos);
			if (ev->length < sizeof(*ev))
				return -EPROTO;
			if (ev->type == DRM_EVENT_FLIP_COMPLETE)
				return 0;
		}
	}
}

/*
 * Gets the status and the latest signal timestamp of the fences of a
 * sync_file.
 */
static int tas_sync_file_info(int fd, int *status, __u64 *timestamp_ns)
{
	struct sync_fence_info fences[TAS_KMS_MAX_FENCES];
	struct sync_file_info info;
	__u32 i;
	int ret;

	memset(&info, 0, sizeof(info));
	ret = tas_ioctl(fd, SYNC_IOC_FILE_INFO, &info);
	if (ret)
		return ret;
	if (!info.num_fences || info.num_fences > TAS_KMS_MAX_FENCES)
		return -ERANGE;

	memset(fences, 0, sizeof(fences));
	memset(&info, 0, sizeof(info));
	info.num_fences = TAS_KMS_MAX_FENCES;
	info.sync_fence_info = (__u64)(uintptr_t)fences;
	ret = tas_ioctl(fd, SYNC_IOC_FILE_INFO, &info);
	if (ret)
		return ret;

	*status = info.status;
	*timestamp_ns = 0;
	for (i = 0; i < info.num_fences && i < TAS_KMS_MAX_FENCES; i++) {
		ksft_print_msg("out-fence %u: %s/%s status %d\n", i,
			       fences[i].driver_name, fences[i].obj_name,
			       fences[i].status);
		if (fences[i].timestamp_ns > *timestamp_ns)
			*timestamp_ns = fences[i].timestamp_ns;
	}
	return 0;
}

/* The duration of one frame of @mode, the period of the vblank timer. */
static __u64 tas_kms_frame_ns(const struct drm_mode_modeinfo *mode)
{
	if (!mode->clock)
		return 100 * TAS_NSEC_PER_MSEC;
	return (__u64)mode->htotal * mode->vtotal * TAS_NSEC_PER_MSEC /
	       mode->clock;
}

FIXTURE(tas_kms) {
	int tas_fd;
	int card_fd;
	__u64 num_rings;
	struct tas_kms_output out;
	__u32 mode_blob;
	__u32 dumb[2];
	__u32 fb[2];
	__u32 syncobj;
	int in_fence_fd;
	int out_fence_fd;
};

FIXTURE_VARIANT(tas_kms) {
	/* DRM_IOCTL_VERSION name of the KMS driver. */
	const char *driver;
};

FIXTURE_VARIANT_ADD(tas_kms, vkms) {
	.driver = "vkms",
};

FIXTURE_VARIANT_ADD(tas_kms, virtio_gpu) {
	.driver = "virtio_gpu",
};

FIXTURE_SETUP(tas_kms)
{
	struct drm_tas_get_param param = {
		.param = DRM_TAS_PARAM_NUM_RINGS,
	};
	struct drm_set_client_cap cap;
	int ret;

	memset(&self->out, 0, sizeof(self->out));
	self->mode_blob = 0;
	self->dumb[0] = 0;
	self->dumb[1] = 0;
	self->fb[0] = 0;
	self->fb[1] = 0;
	self->syncobj = 0;
	self->in_fence_fd = -1;
	self->out_fence_fd = -1;

	self->tas_fd = tas_open_render_node();
	if (self->tas_fd < 0)
		SKIP(return, "no tas render node (CONFIG_DRM_TAS not enabled?)");
	self->card_fd = tas_open_node("card", variant->driver);
	if (self->card_fd < 0)
		SKIP(return, "no KMS card of driver %s", variant->driver);

	ret = tas_ioctl(self->tas_fd, DRM_IOCTL_TAS_GET_PARAM, &param);
	ASSERT_EQ(0, ret) TH_LOG("setup: TAS GET_PARAM NUM_RINGS: %s",
				 strerror(-ret));
	ASSERT_NE(0ULL, param.value) TH_LOG("setup: tas has no ring");
	self->num_rings = param.value;

	/* The first opener is master; another master would hold the card. */
	ret = tas_ioctl(self->card_fd, DRM_IOCTL_SET_MASTER, NULL);
	if (ret)
		SKIP(return, "cannot be DRM master of the %s card: %s",
		     variant->driver, strerror(-ret));

	memset(&cap, 0, sizeof(cap));
	cap.capability = DRM_CLIENT_CAP_UNIVERSAL_PLANES;
	cap.value = 1;
	ret = tas_ioctl(self->card_fd, DRM_IOCTL_SET_CLIENT_CAP, &cap);
	ASSERT_EQ(0, ret) TH_LOG("step 1: %s: CLIENT_CAP_UNIVERSAL_PLANES: %s",
				 variant->driver, strerror(-ret));

	cap.capability = DRM_CLIENT_CAP_ATOMIC;
	cap.value = 1;
	ret = tas_ioctl(self->card_fd, DRM_IOCTL_SET_CLIENT_CAP, &cap);
	ASSERT_EQ(0, ret) TH_LOG("step 1: %s: CLIENT_CAP_ATOMIC: %s",
				 variant->driver, strerror(-ret));
}

FIXTURE_TEARDOWN(tas_kms)
{
	int ret, i;

	if (self->out_fence_fd >= 0)
		close(self->out_fence_fd);
	if (self->in_fence_fd >= 0)
		close(self->in_fence_fd);

	if (self->syncobj) {
		struct drm_syncobj_destroy destroy = {
			.handle = self->syncobj,
		};
		struct drm_syncobj_wait wait = {
			.handles = (__u64)(uintptr_t)&self->syncobj,
			.timeout_nsec = tas_now_ns() + TAS_KMS_WAIT_NS,
			.count_handles = 1,
		};

		/*
		 * A pending flip waits for the graph: let it finish first.
		 * -EINVAL: the syncobj is empty, no graph was submitted.
		 */
		ret = tas_ioctl(self->tas_fd, DRM_IOCTL_SYNCOBJ_WAIT, &wait);
		if (ret && ret != -EINVAL)
			ksft_print_msg("step 6: waiting for the graph: %s\n",
				       strerror(-ret));
		ret = tas_ioctl(self->tas_fd, DRM_IOCTL_SYNCOBJ_DESTROY,
				&destroy);
		if (ret)
			ksft_print_msg("step 6: SYNCOBJ_DESTROY: %s\n",
				       strerror(-ret));
	}

	/* Removing the fb on screen also turns the CRTC off. */
	for (i = 1; i >= 0; i--) {
		if (!self->fb[i])
			continue;
		ret = tas_ioctl(self->card_fd, DRM_IOCTL_MODE_RMFB,
				&self->fb[i]);
		if (ret)
			ksft_print_msg("step 6: RMFB %u: %s\n", self->fb[i],
				       strerror(-ret));
	}
	for (i = 0; i < 2; i++) {
		struct drm_mode_destroy_dumb destroy = {
			.handle = self->dumb[i],
		};

		if (!self->dumb[i])
			continue;
		ret = tas_ioctl(self->card_fd, DRM_IOCTL_MODE_DESTROY_DUMB,
				&destroy);
		if (ret)
			ksft_print_msg("step 6: DESTROY_DUMB %u: %s\n",
				       self->dumb[i], strerror(-ret));
	}
	if (self->mode_blob) {
		struct drm_mode_destroy_blob destroy = {
			.blob_id = self->mode_blob,
		};

		ret = tas_ioctl(self->card_fd, DRM_IOCTL_MODE_DESTROYPROPBLOB,
				&destroy);
		if (ret)
			ksft_print_msg("step 6: DESTROYPROPBLOB %u: %s\n",
				       self->mode_blob, strerror(-ret));
	}

	if (self->card_fd >= 0)
		close(self->card_fd);
	if (self->tas_fd >= 0)
		close(self->tas_fd);
}

/*
 * A nonblocking page flip whose IN_FENCE_FD is the sync_file of a TAS graph
 * completes, and signals its OUT_FENCE_PTR fence, only after the graph.
 */
TEST_F_TIMEOUT(tas_kms, flip_waits_for_graph, 60)
{
	struct drm_tas_node_info info[TAS_KMS_NUM_NODES];
	struct drm_tas_node nodes[TAS_KMS_NUM_NODES];
	struct drm_tas_edge edges[TAS_KMS_NUM_NODES - 1];
	__u64 t_submit, t_commit, t_check, t_done, fence_ns, last_ns;
	struct tas_kms_output *out = &self->out;
	struct drm_syncobj_create syncobj;
	struct drm_tas_graph_info graph;
	struct drm_tas_submit_graph sub;
	struct drm_mode_create_blob blob;
	struct drm_syncobj_handle export;
	struct drm_tas_sync signal;
	struct tas_kms_req req;
	__u32 width, height, i;
	__s32 out_fence = -1;
	int ret, status;

	/* Step 1: connector, CRTC, primary plane, mode and property ids. */
	ASSERT_EQ(0, tas_kms_pick_connector(self->card_fd, out))
		TH_LOG("step 1: %s: no usable connector", variant->driver);
	ASSERT_EQ(0, tas_kms_pick_plane(self->card_fd, out))
		TH_LOG("step 1: %s: no usable primary plane", variant->driver);
	ASSERT_EQ(0, tas_kms_get_props(self->card_fd, out))
		TH_LOG("step 1: %s: missing KMS property", variant->driver);
	width = out->mode.hdisplay;
	height = out->mode.vdisplay;
	ksft_print_msg("step 1: %s: connector %u, CRTC %u (index %u), plane %u, %.*s %ux%u@%u\n",
		       variant->driver, out->connector_id, out->crtc_id,
		       out->crtc_index, out->plane_id, DRM_DISPLAY_MODE_LEN,
		       out->mode.name, width, height, out->mode.vrefresh);
	ASSERT_NE(0U, width) TH_LOG("step 1: mode has no width");
	ASSERT_NE(0U, height) TH_LOG("step 1: mode has no height");

	/* Step 2: two framebuffers and a blocking modeset on the first. */
	for (i = 0; i < 2; i++) {
		ret = tas_kms_create_fb(self->card_fd, width, height,
					&self->dumb[i], &self->fb[i]);
		ASSERT_EQ(0, ret) TH_LOG("step 2: framebuffer %u: %s", i,
					 strerror(-ret));
	}

	memset(&blob, 0, sizeof(blob));
	blob.data = (__u64)(uintptr_t)&out->mode;
	blob.length = sizeof(out->mode);
	ret = tas_ioctl(self->card_fd, DRM_IOCTL_MODE_CREATEPROPBLOB, &blob);
	ASSERT_EQ(0, ret) TH_LOG("step 2: CREATEPROPBLOB of the mode: %s",
				 strerror(-ret));
	self->mode_blob = blob.blob_id;

	tas_kms_req_init(&req);
	tas_kms_req_add(&req, out, TAS_KMS_CRTC_MODE_ID, self->mode_blob);
	tas_kms_req_add(&req, out, TAS_KMS_CRTC_ACTIVE, 1);
	tas_kms_req_add(&req, out, TAS_KMS_CONN_CRTC_ID, out->crtc_id);
	tas_kms_req_add(&req, out, TAS_KMS_PLANE_FB_ID, self->fb[0]);
	tas_kms_req_add(&req, out, TAS_KMS_PLANE_CRTC_ID, out->crtc_id);
	tas_kms_req_add(&req, out, TAS_KMS_PLANE_SRC_X, 0);
	tas_kms_req_add(&req, out, TAS_KMS_PLANE_SRC_Y, 0);
	tas_kms_req_add(&req, out, TAS_KMS_PLANE_SRC_W, (__u64)width << 16);
	tas_kms_req_add(&req, out, TAS_KMS_PLANE_SRC_H, (__u64)height << 16);
	tas_kms_req_add(&req, out, TAS_KMS_PLANE_CRTC_X, 0);
	tas_kms_req_add(&req, out, TAS_KMS_PLANE_CRTC_Y, 0);
	tas_kms_req_add(&req, out, TAS_KMS_PLANE_CRTC_W, width);
	tas_kms_req_add(&req, out, TAS_KMS_PLANE_CRTC_H, height);
	ret = tas_kms_commit(self->card_fd, &req,
			     DRM_MODE_ATOMIC_ALLOW_MODESET |
			     DRM_MODE_PAGE_FLIP_EVENT);
	ASSERT_EQ(0, ret) TH_LOG("step 2: modeset commit: %s", strerror(-ret));
	ret = tas_kms_wait_flip_event(self->card_fd);
	ASSERT_EQ(0, ret) TH_LOG("step 2: flip event of the modeset: %s",
				 strerror(-ret));

	/* Step 3: a graph of three chained NOPs that signals a syncobj. */
	memset(&syncobj, 0, sizeof(syncobj));
	ret = tas_ioctl(self->tas_fd, DRM_IOCTL_SYNCOBJ_CREATE, &syncobj);
	ASSERT_EQ(0, ret) TH_LOG("step 3: SYNCOBJ_CREATE: %s", strerror(-ret));
	self->syncobj = syncobj.handle;

	memset(nodes, 0, sizeof(nodes));
	for (i = 0; i < TAS_KMS_NUM_NODES; i++) {
		/* Rings 0, 1, 0, or all 0 on a one-ring device. */
		nodes[i].ring = (i % 2) % self->num_rings;
		nodes[i].op = DRM_TAS_OP_NOP;
		nodes[i].duration_ns = TAS_KMS_NODE_NS;
	}
	for (i = 0; i < TAS_KMS_NUM_NODES - 1; i++) {
		edges[i].from = i;
		edges[i].to = i + 1;
	}
	memset(&signal, 0, sizeof(signal));
	signal.handle = self->syncobj;
	signal.node = DRM_TAS_NODE_GRAPH;
	signal.point = 0;

	memset(&sub, 0, sizeof(sub));
	sub.nodes.ptr = (__u64)(uintptr_t)nodes;
	sub.nodes.count = TAS_KMS_NUM_NODES;
	sub.nodes.stride = sizeof(nodes[0]);
	sub.edges.ptr = (__u64)(uintptr_t)edges;
	sub.edges.count = TAS_KMS_NUM_NODES - 1;
	sub.edges.stride = sizeof(edges[0]);
	sub.signals.ptr = (__u64)(uintptr_t)&signal;
	sub.signals.count = 1;
	sub.signals.stride = sizeof(signal);

	t_submit = tas_now_ns();
	ret = tas_ioctl(self->tas_fd, DRM_IOCTL_TAS_SUBMIT_GRAPH, &sub);
	ASSERT_EQ(0, ret) TH_LOG("step 3: SUBMIT_GRAPH: %s", strerror(-ret));

	memset(&export, 0, sizeof(export));
	export.handle = self->syncobj;
	export.flags = DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE;
	export.fd = -1;
	ret = tas_ioctl(self->tas_fd, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &export);
	ASSERT_EQ(0, ret) TH_LOG("step 3: export of the syncobj as sync_file: %s",
				 strerror(-ret));
	self->in_fence_fd = export.fd;

	/* Step 4: a nonblocking flip to the second fb, fenced by the graph. */
	tas_kms_req_init(&req);
	tas_kms_req_add(&req, out, TAS_KMS_CRTC_OUT_FENCE_PTR,
			(__u64)(uintptr_t)&out_fence);
	tas_kms_req_add(&req, out, TAS_KMS_PLANE_FB_ID, self->fb[1]);
	tas_kms_req_add(&req, out, TAS_KMS_PLANE_IN_FENCE_FD,
			(__u64)self->in_fence_fd);
	t_commit = tas_now_ns();
	ret = tas_kms_commit(self->card_fd, &req, DRM_MODE_ATOMIC_NONBLOCK);
	ASSERT_EQ(0, ret) TH_LOG("step 4: nonblocking flip commit: %s",
				 strerror(-ret));
	ASSERT_LE(0, out_fence) TH_LOG("step 4: no out-fence fd returned");
	self->out_fence_fd = out_fence;

	ret = tas_poll_in(self->out_fence_fd, 0);
	t_check = tas_now_ns();
	ASSERT_LE(0, ret) TH_LOG("step 4: poll of the out-fence: %s",
				 strerror(-ret));
	if (t_check - t_submit < TAS_KMS_GRAPH_NS) {
		/* The graph cannot have finished yet, nor the flip. */
		ASSERT_EQ(0, ret)
			TH_LOG("step 4: out-fence signalled at +%lld ms, before the %llu ms graph",
			       tas_rel_ms(t_check, t_submit),
			       TAS_KMS_GRAPH_NS / TAS_NSEC_PER_MSEC);
	} else {
		ksft_print_msg("step 4: checked at +%lld ms, too late for an unsignalled fence\n",
			       tas_rel_ms(t_check, t_submit));
	}

	/* Step 5: the flip completes, after the graph. */
	ret = tas_poll_in(self->out_fence_fd, TAS_KMS_POLL_MS);
	t_done = tas_now_ns();
	ASSERT_EQ(1, ret) TH_LOG("step 5: out-fence not signalled within %d ms (%d: %s)",
				 TAS_KMS_POLL_MS, ret,
				 ret < 0 ? strerror(-ret) : "timeout");

	memset(&graph, 0, sizeof(graph));
	memset(info, 0, sizeof(info));
	graph.graph_id = sub.graph_id;
	graph.nodes.ptr = (__u64)(uintptr_t)info;
	graph.nodes.count = TAS_KMS_NUM_NODES;
	graph.nodes.stride = sizeof(info[0]);
	ret = tas_ioctl(self->tas_fd, DRM_IOCTL_TAS_GRAPH_INFO, &graph);
	ASSERT_EQ(0, ret) TH_LOG("step 5: GRAPH_INFO: %s", strerror(-ret));
	ASSERT_EQ(1U, graph.done)
		TH_LOG("step 5: out-fence signalled at +%lld ms but the graph is not done",
		       tas_rel_ms(t_done, t_submit));

	last_ns = 0;
	for (i = 0; i < TAS_KMS_NUM_NODES; i++) {
		ksft_print_msg("step 5: node %u ring %u: start +%lld ms, end +%lld ms, err %d\n",
			       i, info[i].ring,
			       tas_rel_ms(info[i].started_ns, t_submit),
			       tas_rel_ms(info[i].finished_ns, t_submit),
			       info[i].error);
		ASSERT_EQ(0, info[i].error)
			TH_LOG("step 5: node %u failed: %s", i,
			       strerror(-info[i].error));
		ASSERT_NE(0ULL, info[i].finished_ns)
			TH_LOG("step 5: node %u has no finish time", i);
		if (info[i].finished_ns > last_ns)
			last_ns = info[i].finished_ns;
	}

	ret = tas_sync_file_info(self->out_fence_fd, &status, &fence_ns);
	ASSERT_EQ(0, ret) TH_LOG("step 5: SYNC_IOC_FILE_INFO of the out-fence: %s",
				 strerror(-ret));
	ksft_print_msg("step 5: %s: commit +%lld, graph +%lld, out-fence +%lld, poll +%lld ms\n",
		       variant->driver, tas_rel_ms(t_commit, t_submit),
		       tas_rel_ms(last_ns, t_submit),
		       tas_rel_ms(fence_ns, t_submit),
		       tas_rel_ms(t_done, t_submit));
	ASSERT_EQ(1, status)
		TH_LOG("step 5: out-fence status %d, not signalled", status);
	ASSERT_NE(0ULL, fence_ns) TH_LOG("step 5: out-fence has no timestamp");

	ASSERT_LE(t_submit + TAS_KMS_GRAPH_NS, t_done)
		TH_LOG("step 5: flip completed %lld ms after the submission of a %llu ms graph",
		       tas_rel_ms(t_done, t_submit),
		       TAS_KMS_GRAPH_NS / TAS_NSEC_PER_MSEC);
	ASSERT_LE(last_ns, t_done)
		TH_LOG("step 5: out-fence signalled %lld ms before the graph finished",
		       tas_rel_ms(last_ns, t_done));
	/*
	 * The out-fence carries the timestamp of the vblank that completed
	 * the flip. With the vblank timer of vkms and virtio-gpu, that is the
	 * latest timer period boundary when the vblank was handled, which can
	 * be up to one frame before the flip was armed: allow two frames.
	 */
	ASSERT_LE(last_ns, fence_ns + 2 * tas_kms_frame_ns(&out->mode))
		TH_LOG("step 5: out-fence timestamp %lld ms before the graph end (frame %llu us)",
		       tas_rel_ms(last_ns, fence_ns),
		       tas_kms_frame_ns(&out->mode) / 1000);
}

/*
 * Buffers tas did not create are refused: a dumb buffer of the KMS driver,
 * exported as a dma-buf, cannot be imported into tas (-EINVAL, before tas
 * attaches to it: no DMA mapping on the faux device, no warning), and tas's
 * primary node creates no dumb buffers. Either used to create a
 * GEM object that the driver then read as one of its own. A tas buffer,
 * exported and imported again, is the same object.
 */
TEST_F(tas_kms, foreign_buffers_are_refused)
{
	struct drm_mode_create_dumb dumb;
	struct drm_tas_bo_create bo;
	struct drm_prime_handle prime;
	int dmabuf, tas_card;

	memset(&dumb, 0, sizeof(dumb));
	dumb.width = 64;
	dumb.height = 64;
	dumb.bpp = 32;
	ASSERT_EQ(0, tas_ioctl(self->card_fd, DRM_IOCTL_MODE_CREATE_DUMB,
			       &dumb));
	self->dumb[0] = dumb.handle;
	memset(&prime, 0, sizeof(prime));
	prime.handle = dumb.handle;
	prime.flags = DRM_CLOEXEC | DRM_RDWR;
	ASSERT_EQ(0, tas_ioctl(self->card_fd, DRM_IOCTL_PRIME_HANDLE_TO_FD,
			       &prime));
	dmabuf = prime.fd;
	memset(&prime, 0, sizeof(prime));
	prime.fd = dmabuf;
	EXPECT_EQ(-EINVAL, tas_ioctl(self->tas_fd,
				     DRM_IOCTL_PRIME_FD_TO_HANDLE, &prime));
	close(dmabuf);

	memset(&bo, 0, sizeof(bo));
	bo.size = 4096;
	ASSERT_EQ(0, tas_ioctl(self->tas_fd, DRM_IOCTL_TAS_BO_CREATE, &bo));
	memset(&prime, 0, sizeof(prime));
	prime.handle = bo.handle;
	prime.flags = DRM_CLOEXEC | DRM_RDWR;
	ASSERT_EQ(0, tas_ioctl(self->tas_fd, DRM_IOCTL_PRIME_HANDLE_TO_FD,
			       &prime));
	dmabuf = prime.fd;
	memset(&prime, 0, sizeof(prime));
	prime.fd = dmabuf;
	EXPECT_EQ(0, tas_ioctl(self->tas_fd, DRM_IOCTL_PRIME_FD_TO_HANDLE,
			       &prime));
	EXPECT_EQ(bo.handle, prime.handle);
	close(dmabuf);

	tas_card = tas_open_node("card", "tas");
	ASSERT_LE(0, tas_card);
	memset(&dumb, 0, sizeof(dumb));
	dumb.width = 64;
	dumb.height = 64;
	dumb.bpp = 32;
	/* The DRM core's answer for a driver without dumb buffers. */
	EXPECT_NE(0, tas_ioctl(tas_card, DRM_IOCTL_MODE_CREATE_DUMB, &dumb));
	EXPECT_EQ(0U, dumb.handle);
	close(tas_card);
}

TEST_HARNESS_MAIN
