// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the uAPI of the TAS virtual DRM driver (drivers/gpu/drm/tas).
 *
 * The driver's render node is found by asking every /dev/dri/renderD* node
 * for its driver name, since other DRM drivers may own lower minors.
 *
 * Every wait has a timeout (TAS_WAIT_NS), so that a hung device fails the
 * test instead of hanging it.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <drm/drm.h>
#include <drm/tas_drm.h>
#include <linux/capability.h>
#include <linux/sync_file.h>

#include "kselftest_harness.h"
#include "tas_common.h"

#define TAS_UAPI_VERSION	7
#define TAS_MAX_RINGS		16
#define TAS_NUM_OPS		(DRM_TAS_OP_HOST + 1)
#define TAS_NUM_CLASSES		(DRM_TAS_CLASS_BATCH + 1)
#define TAS_MATMUL_MAX_DIM	256

/* The last parameter this version of the uAPI knows. */
#define TAS_LAST_PARAM		DRM_TAS_PARAM_HOST_TIMEOUT_NS

/* How long a test waits for a graph before it declares the device hung. */
#define TAS_WAIT_NS		(10 * TAS_NSEC_PER_SEC)

/*
 * sw_sync is a debugfs interface, not uAPI: its definitions are copied from
 * drivers/dma-buf/sw_sync.c, as tools/testing/selftests/sync does.
 */
#define SW_SYNC_PATH		"/sys/kernel/debug/sync/sw_sync"

struct sw_sync_create_fence_data {
	__u32 value;
	char name[32];
	__s32 fence;
};

#define SW_SYNC_IOC_MAGIC	'W'
#define SW_SYNC_IOC_CREATE_FENCE \
	_IOWR(SW_SYNC_IOC_MAGIC, 0, struct sw_sync_create_fence_data)
#define SW_SYNC_IOC_INC		_IOW(SW_SYNC_IOC_MAGIC, 1, __u32)

static __u64 tas_page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

static __u64 tas_round_up(__u64 value, __u64 align)
{
	return (value + align - 1) / align * align;
}

/* A small deterministic generator, so that every run tests the same cases. */
static __u32 tas_rand(__u32 *state)
{
	__u32 x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
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

static int tas_bo_create(int fd, __u64 size, __u32 flags, __u32 *handle)
{
	struct drm_tas_bo_create args = {
		.size = size,
		.flags = flags,
	};
	int ret;

	ret = tas_ioctl(fd, DRM_IOCTL_TAS_BO_CREATE, &args);
	if (!ret)
		*handle = args.handle;
	return ret;
}

static int tas_bo_close(int fd, __u32 handle)
{
	struct drm_gem_close args = { .handle = handle };

	return tas_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &args);
}

static int tas_bo_mmap_offset(int fd, __u32 handle, __u32 pad, __u64 *offset)
{
	struct drm_tas_bo_mmap_offset args = {
		.handle = handle,
		.pad = pad,
	};
	int ret;

	ret = tas_ioctl(fd, DRM_IOCTL_TAS_BO_MMAP_OFFSET, &args);
	if (!ret)
		*offset = args.offset;
	return ret;
}

/* Maps the first @size bytes of a buffer read-write. */
static int tas_bo_map(int fd, __u32 handle, size_t size, void **map)
{
	__u64 offset;
	void *ptr;
	int ret;

	ret = tas_bo_mmap_offset(fd, handle, 0, &offset);
	if (ret)
		return ret;
	ptr = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   (off_t)offset);
	if (ptr == MAP_FAILED)
		return -errno;
	*map = ptr;
	return 0;
}

/* Creates a buffer of @size bytes and maps it. */
static int tas_bo_create_map(int fd, __u64 size, __u32 *handle, void **map)
{
	int ret;

	ret = tas_bo_create(fd, size, 0, handle);
	if (ret)
		return ret;
	ret = tas_bo_map(fd, *handle, size, map);
	if (ret)
		tas_bo_close(fd, *handle);
	return ret;
}

static int tas_syncobj_create(int fd, __u32 flags, __u32 *handle)
{
	struct drm_syncobj_create args = { .flags = flags };
	int ret;

	ret = tas_ioctl(fd, DRM_IOCTL_SYNCOBJ_CREATE, &args);
	if (!ret)
		*handle = args.handle;
	return ret;
}

static int tas_syncobj_destroy(int fd, __u32 handle)
{
	struct drm_syncobj_destroy args = { .handle = handle };

	return tas_ioctl(fd, DRM_IOCTL_SYNCOBJ_DESTROY, &args);
}

/*
 * Waits for the fence of a binary syncobj, at most @timeout_ns from now:
 * -ETIME when it does not signal in time.
 */
static int tas_syncobj_wait(int fd, __u32 handle, __u32 flags,
			    __u64 timeout_ns)
{
	struct drm_syncobj_wait args = {
		.handles = (__u64)(uintptr_t)&handle,
		.timeout_nsec = tas_now_ns() + timeout_ns,
		.count_handles = 1,
		.flags = flags,
	};

	return tas_ioctl(fd, DRM_IOCTL_SYNCOBJ_WAIT, &args);
}

/*
 * Waits for the completion of the graph that signals binary syncobj
 * @handle. WAIT_FOR_SUBMIT makes the wait independent of whether the
 * kernel attaches the fence at submission or later.
 */
static int tas_syncobj_wait_graph(int fd, __u32 handle)
{
	return tas_syncobj_wait(fd, handle,
				DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
				TAS_WAIT_NS);
}

/* Returns 1 if a binary syncobj holds a fence, 0 if it is empty. */
static int tas_syncobj_has_fence(int fd, __u32 handle)
{
	int ret;

	/* Without WAIT_FOR_SUBMIT, waiting on an empty syncobj is -EINVAL. */
	ret = tas_syncobj_wait(fd, handle, 0, 0);
	if (ret == -EINVAL)
		return 0;
	if (!ret || ret == -ETIME)
		return 1;
	return ret;
}

static int tas_syncobj_timeline_wait(int fd, __u32 handle, __u64 point,
				     __u64 timeout_ns)
{
	struct drm_syncobj_timeline_wait args = {
		.handles = (__u64)(uintptr_t)&handle,
		.points = (__u64)(uintptr_t)&point,
		.timeout_nsec = tas_now_ns() + timeout_ns,
		.count_handles = 1,
		.flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
	};

	return tas_ioctl(fd, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &args);
}

/* Signals timeline point @point of a syncobj from userspace. */
static int tas_syncobj_timeline_signal(int fd, __u32 handle, __u64 point)
{
	struct drm_syncobj_timeline_array args = {
		.handles = (__u64)(uintptr_t)&handle,
		.points = (__u64)(uintptr_t)&point,
		.count_handles = 1,
	};

	return tas_ioctl(fd, DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL, &args);
}

/*
 * Creates a syncobj with @flags; with a non-zero @point, it is then given
 * a signalled timeline up to @point.
 */
static int tas_syncobj_new(int fd, __u32 flags, __u64 point, __u32 *handle)
{
	int ret;

	ret = tas_syncobj_create(fd, flags, handle);
	if (ret || !point)
		return ret;
	ret = tas_syncobj_timeline_signal(fd, *handle, point);
	if (ret)
		tas_syncobj_destroy(fd, *handle);
	return ret;
}

static int tas_syncobj_export_sync_file(int fd, __u32 handle, int *sync_fd)
{
	struct drm_syncobj_handle args = {
		.handle = handle,
		.flags = DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE,
		.fd = -1,
	};
	int ret;

	ret = tas_ioctl(fd, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &args);
	if (!ret)
		*sync_fd = args.fd;
	return ret;
}

/* Replaces the fence of binary syncobj @handle with the one of @sync_fd. */
static int tas_syncobj_import_sync_file(int fd, __u32 handle, int sync_fd)
{
	struct drm_syncobj_handle args = {
		.handle = handle,
		.flags = DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE,
		.fd = sync_fd,
	};

	return tas_ioctl(fd, DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &args);
}

/* Status of the fence of a binary syncobj: 1 signalled, 0 active, -errno. */
static int tas_syncobj_fence_status(int fd, __u32 handle, int *status)
{
	struct sync_file_info info;
	int sync_fd, ret;

	ret = tas_syncobj_export_sync_file(fd, handle, &sync_fd);
	if (ret)
		return ret;
	memset(&info, 0, sizeof(info));
	ret = tas_ioctl(sync_fd, SYNC_IOC_FILE_INFO, &info);
	close(sync_fd);
	if (!ret)
		*status = info.status;
	return ret;
}

static void tas_node_init(struct drm_tas_node *node, __u32 ring, __u32 op,
			  __u64 duration_ns)
{
	memset(node, 0, sizeof(*node));
	node->ring = ring;
	node->op = op;
	node->duration_ns = duration_ns;
}

/* @n NOP nodes of no duration spread over @rings rings, for free(). */
static struct drm_tas_node *tas_nop_nodes(__u32 n, __u32 rings)
{
	struct drm_tas_node *nodes = calloc(n, sizeof(*nodes));
	__u32 i;

	for (i = 0; nodes && i < n; i++)
		tas_node_init(&nodes[i], i % rings, DRM_TAS_OP_NOP, 0);
	return nodes;
}

static void tas_buf_init(struct drm_tas_buf *buf, __u32 handle, __u64 offset,
			 __u64 size)
{
	memset(buf, 0, sizeof(*buf));
	buf->handle = handle;
	buf->offset = offset;
	buf->size = size;
}

static void tas_edge_init(struct drm_tas_edge *edge, __u32 from, __u32 to)
{
	edge->from = from;
	edge->to = to;
}

static void tas_sync_init(struct drm_tas_sync *sync, __u32 handle, __u32 node,
			  __u64 point)
{
	memset(sync, 0, sizeof(*sync));
	sync->handle = handle;
	sync->node = node;
	sync->point = point;
}

/* An empty array has ptr and stride 0, as the uAPI requires. */
static void tas_array_init(struct drm_tas_array *array, const void *ptr,
			   __u32 count, __u32 stride)
{
	array->ptr = count ? (__u64)(uintptr_t)ptr : 0;
	array->count = count;
	array->stride = count ? stride : 0;
}

/* The immediate operand of a MATMUL node: dst (M x N) = src0 x src1. */
static __u64 tas_matmul_imm(__u64 m, __u64 n, __u64 k)
{
	return m | n << 16 | k << 32;
}

static int tas_submit_flags(int fd, __u32 flags,
			    const struct drm_tas_node *nodes, __u32 num_nodes,
			    const struct drm_tas_edge *edges, __u32 num_edges,
			    const struct drm_tas_sync *waits, __u32 num_waits,
			    const struct drm_tas_sync *signals,
			    __u32 num_signals, __u64 *graph_id)
{
	struct drm_tas_submit_graph args;
	int ret;

	memset(&args, 0, sizeof(args));
	args.flags = flags;
	tas_array_init(&args.nodes, nodes, num_nodes, sizeof(*nodes));
	tas_array_init(&args.edges, edges, num_edges, sizeof(*edges));
	tas_array_init(&args.waits, waits, num_waits, sizeof(*waits));
	tas_array_init(&args.signals, signals, num_signals, sizeof(*signals));

	ret = tas_ioctl(fd, DRM_IOCTL_TAS_SUBMIT_GRAPH, &args);
	if (!ret && graph_id)
		*graph_id = args.graph_id;
	return ret;
}

static int tas_submit(int fd, const struct drm_tas_node *nodes,
		      __u32 num_nodes, const struct drm_tas_edge *edges,
		      __u32 num_edges, const struct drm_tas_sync *waits,
		      __u32 num_waits, const struct drm_tas_sync *signals,
		      __u32 num_signals, __u64 *graph_id)
{
	return tas_submit_flags(fd, 0, nodes, num_nodes, edges, num_edges,
				waits, num_waits, signals, num_signals,
				graph_id);
}

static int tas_graph_info_flags(int fd, __u64 graph_id, __u32 flags,
				struct drm_tas_node_info *info, __u32 count,
				__u32 *done)
{
	struct drm_tas_graph_info args;
	int ret;

	memset(&args, 0, sizeof(args));
	memset(info, 0, count * sizeof(*info));
	args.graph_id = graph_id;
	args.flags = flags;
	tas_array_init(&args.nodes, info, count, sizeof(*info));

	ret = tas_ioctl(fd, DRM_IOCTL_TAS_GRAPH_INFO, &args);
	if (!ret && done)
		*done = args.done;
	return ret;
}

static int tas_graph_info(int fd, __u64 graph_id,
			  struct drm_tas_node_info *info, __u32 count,
			  __u32 *done)
{
	return tas_graph_info_flags(fd, graph_id, 0, info, count, done);
}

/*
 * Runs a one-node graph to completion, to prove that the device still
 * accepts and executes work. Returns 0, the -errno of the step that failed,
 * the error of the node, or -EBUSY if the graph is not done once its
 * syncobj signalled.
 */
static int tas_run_nop(int fd)
{
	struct drm_tas_node_info info;
	struct drm_tas_sync signal;
	struct drm_tas_node node;
	__u32 syncobj, done = 0;
	__u64 graph_id;
	int ret;

	ret = tas_syncobj_create(fd, 0, &syncobj);
	if (ret)
		return ret;

	tas_node_init(&node, 0, DRM_TAS_OP_NOP, 10 * TAS_NSEC_PER_USEC);
	tas_sync_init(&signal, syncobj, DRM_TAS_NODE_GRAPH, 0);
	ret = tas_submit(fd, &node, 1, NULL, 0, NULL, 0, &signal, 1, &graph_id);
	if (!ret)
		ret = tas_syncobj_wait_graph(fd, syncobj);
	if (!ret)
		ret = tas_graph_info(fd, graph_id, &info, 1, &done);
	if (!ret)
		ret = done ? info.error : -EBUSY;

	tas_syncobj_destroy(fd, syncobj);
	return ret;
}

FIXTURE(tas) {
	int fd;
	__u64 num_rings;
};

FIXTURE_SETUP(tas)
{
	self->fd = tas_open_render_node();
	if (self->fd < 0)
		SKIP(return, "no tas render node (CONFIG_DRM_TAS not enabled?)");
	ASSERT_EQ(0, tas_get_param(self->fd, DRM_TAS_PARAM_NUM_RINGS, 0,
				   &self->num_rings));
	ASSERT_NE(0ULL, self->num_rings);
}

FIXTURE_TEARDOWN(tas)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(tas, struct_layout)
{
	static const struct {
		unsigned long request;
		__u32 nr;
		size_t size;
	} ioctls[] = {
		{ DRM_IOCTL_TAS_GET_PARAM, DRM_TAS_GET_PARAM,
		  sizeof(struct drm_tas_get_param) },
		{ DRM_IOCTL_TAS_BO_CREATE, DRM_TAS_BO_CREATE,
		  sizeof(struct drm_tas_bo_create) },
		{ DRM_IOCTL_TAS_BO_MMAP_OFFSET, DRM_TAS_BO_MMAP_OFFSET,
		  sizeof(struct drm_tas_bo_mmap_offset) },
		{ DRM_IOCTL_TAS_SUBMIT_GRAPH, DRM_TAS_SUBMIT_GRAPH,
		  sizeof(struct drm_tas_submit_graph) },
		{ DRM_IOCTL_TAS_GRAPH_INFO, DRM_TAS_GRAPH_INFO,
		  sizeof(struct drm_tas_graph_info) },
	};
	static const size_t sizes[] = {
		sizeof(struct drm_tas_get_param),
		sizeof(struct drm_tas_bo_create),
		sizeof(struct drm_tas_bo_mmap_offset),
		sizeof(struct drm_tas_buf),
		sizeof(struct drm_tas_node),
		sizeof(struct drm_tas_edge),
		sizeof(struct drm_tas_sync),
		sizeof(struct drm_tas_array),
		sizeof(struct drm_tas_submit_graph),
		sizeof(struct drm_tas_node_info),
		sizeof(struct drm_tas_graph_info),
	};
	unsigned int i;

	/* The layout is uAPI: two __u32 and one naturally aligned __u64. */
	ASSERT_EQ((size_t)16, sizeof(struct drm_tas_get_param));

	for (i = 0; i < ARRAY_SIZE(ioctls); i++) {
		EXPECT_EQ(DRM_COMMAND_BASE + ioctls[i].nr,
			  _IOC_NR(ioctls[i].request));
		EXPECT_EQ(ioctls[i].size, (size_t)_IOC_SIZE(ioctls[i].request));
		EXPECT_EQ((unsigned int)(_IOC_READ | _IOC_WRITE),
			  _IOC_DIR(ioctls[i].request));
	}

	/* Every structure is padded to a multiple of 64 bits. */
	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		EXPECT_EQ((size_t)0, sizes[i] % sizeof(__u64));

	/* HOST_DONE writes nothing back. */
	EXPECT_EQ(DRM_COMMAND_BASE + DRM_TAS_HOST_DONE,
		  _IOC_NR(DRM_IOCTL_TAS_HOST_DONE));
	EXPECT_EQ(sizeof(struct drm_tas_host_done),
		  (size_t)_IOC_SIZE(DRM_IOCTL_TAS_HOST_DONE));
	EXPECT_EQ((unsigned int)_IOC_WRITE, _IOC_DIR(DRM_IOCTL_TAS_HOST_DONE));
	EXPECT_EQ((size_t)24, sizeof(struct drm_tas_host_done));
}

TEST_F(tas, param_version)
{
	__u64 value = 0;

	ASSERT_EQ(0, tas_get_param(self->fd, DRM_TAS_PARAM_VERSION, 0, &value));
	ASSERT_EQ((__u64)TAS_UAPI_VERSION, value);
}

TEST_F(tas, param_num_rings)
{
	__u64 value = 0;

	ASSERT_EQ(0, tas_get_param(self->fd, DRM_TAS_PARAM_NUM_RINGS, 0,
				   &value));
	ASSERT_GE(value, 1ULL);
	ASSERT_LE(value, (__u64)TAS_MAX_RINGS);
	TH_LOG("rings: %llu", (unsigned long long)value);
}

TEST_F(tas, param_limits)
{
	static const struct {
		__u32 param;
		__u64 value;
	} limits[] = {
		{ DRM_TAS_PARAM_MAX_BO_SIZE, 64ULL << 20 },
		{ DRM_TAS_PARAM_MAX_NODES, 16384 },
		{ DRM_TAS_PARAM_MAX_EDGES, 65536 },
		{ DRM_TAS_PARAM_MAX_WAITS, 64 },
		{ DRM_TAS_PARAM_MAX_SIGNALS, 64 },
		{ DRM_TAS_PARAM_MAX_DURATION_NS, 10 * TAS_NSEC_PER_SEC },
		{ DRM_TAS_PARAM_MAX_STRIDE, 4096 },
		{ DRM_TAS_PARAM_MAX_NODES_IN_FLIGHT, 65536 },
		{ DRM_TAS_PARAM_MAX_TEMPLATE_NODES, 65536 },
		{ DRM_TAS_PARAM_MAX_KEPT_NODES, 65536 },
		{ DRM_TAS_PARAM_MAX_KEPT_GRAPHS, 1024 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(limits); i++) {
		__u64 value = 0;

		ASSERT_EQ(0, tas_get_param(self->fd, limits[i].param, 0,
					   &value));
		EXPECT_EQ(limits[i].value, value);
	}
}

TEST_F(tas, param_ops)
{
	__u64 ops = 0;
	__u32 op;

	ASSERT_EQ(0, tas_get_param(self->fd, DRM_TAS_PARAM_OPS, 0, &ops));
	for (op = DRM_TAS_OP_NOP; op < TAS_NUM_OPS; op++)
		EXPECT_EQ(1ULL << op, ops & (1ULL << op));
	TH_LOG("ops: %#llx", (unsigned long long)ops);
}

TEST_F(tas, param_job_timeout)
{
	__u64 value = 0;

	ASSERT_EQ(0, tas_get_param(self->fd, DRM_TAS_PARAM_JOB_TIMEOUT_NS, 0,
				   &value));
	ASSERT_GT(value, 0ULL);
	TH_LOG("job timeout: %llu ns", (unsigned long long)value);
}

TEST_F(tas, param_ring_depth)
{
	__u64 value = 0;

	ASSERT_EQ(0, tas_get_param(self->fd, DRM_TAS_PARAM_RING_DEPTH, 0,
				   &value));
	ASSERT_GE(value, 1ULL);
	TH_LOG("ring depth: %llu", (unsigned long long)value);
}

TEST_F(tas, param_unknown)
{
	static const __u32 unknown[] = {
		TAS_LAST_PARAM + 1, 0x100, 0x80000000, 0xffffffff,
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

	for (param = DRM_TAS_PARAM_VERSION; param <= TAS_LAST_PARAM; param++) {
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

TEST_F(tas, bo_create_sizes)
{
	__u64 page = tas_page_size();
	__u64 max_size = 0;
	__u64 sizes[] = { 1, 4096, page - 1, page, page + 1, 3 * page + 5, 0 };
	__u32 handles[ARRAY_SIZE(sizes)];
	unsigned int i, j;

	ASSERT_EQ(0, tas_get_param(self->fd, DRM_TAS_PARAM_MAX_BO_SIZE, 0,
				   &max_size));
	/* The largest buffer is valid too; shmem pages are allocated lazily. */
	sizes[ARRAY_SIZE(sizes) - 1] = max_size;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		handles[i] = 0;
		ASSERT_EQ(0, tas_bo_create(self->fd, sizes[i], 0, &handles[i]))
			TH_LOG("size %llu", (unsigned long long)sizes[i]);
		ASSERT_NE(0U, handles[i]);
		for (j = 0; j < i; j++)
			ASSERT_NE(handles[j], handles[i]);
	}

	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		EXPECT_EQ(0, tas_bo_close(self->fd, handles[i]));
}

TEST_F(tas, bo_create_invalid_size)
{
	__u64 page = tas_page_size();
	/* The last one overflows when rounded up to pages. */
	__u64 sizes[] = { 0, 0, 0, 1ULL << 63, ~0ULL, ~0ULL - page + 2 };
	__u64 max_size = 0;
	unsigned int i;

	ASSERT_EQ(0, tas_get_param(self->fd, DRM_TAS_PARAM_MAX_BO_SIZE, 0,
				   &max_size));
	sizes[1] = max_size + 1;
	sizes[2] = max_size + page;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		__u32 handle = 0;

		EXPECT_EQ(-EINVAL, tas_bo_create(self->fd, sizes[i], 0,
						 &handle))
			TH_LOG("size %#llx", (unsigned long long)sizes[i]);
	}
}

TEST_F(tas, bo_create_flags)
{
	static const __u32 flags[] = { 1, 2, 0x80000000, 0xffffffff };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(flags); i++) {
		__u32 handle = 0;

		EXPECT_EQ(-EINVAL, tas_bo_create(self->fd, 4096, flags[i],
						 &handle))
			TH_LOG("flags %#x", flags[i]);
	}
}

TEST_F(tas, bo_mmap_offset_errors)
{
	__u32 handle, closed;
	__u64 offset = 0;

	/* A handle that was valid and is not any more. */
	ASSERT_EQ(0, tas_bo_create(self->fd, 4096, 0, &closed));
	ASSERT_EQ(0, tas_bo_close(self->fd, closed));
	EXPECT_EQ(-ENOENT, tas_bo_mmap_offset(self->fd, closed, 0, &offset));
	EXPECT_EQ(-ENOENT, tas_bo_mmap_offset(self->fd, 0, 0, &offset));

	ASSERT_EQ(0, tas_bo_create(self->fd, 4096, 0, &handle));
	EXPECT_EQ(-EINVAL, tas_bo_mmap_offset(self->fd, handle, 1, &offset));
	EXPECT_EQ(-EINVAL, tas_bo_mmap_offset(self->fd, handle, 0x80000000,
					      &offset));

	ASSERT_EQ(0, tas_bo_mmap_offset(self->fd, handle, 0, &offset));
	EXPECT_EQ(0ULL, offset % tas_page_size());
	EXPECT_EQ(0, tas_bo_close(self->fd, handle));
}

TEST_F(tas, bo_mmap_zeroed_writable)
{
	__u64 page = tas_page_size();
	/* Not a multiple of the page size: the mapping covers the rounding. */
	__u64 size = 3 * page + 5;
	__u64 mapped = tas_round_up(size, page);
	__u8 *map, *map2;
	__u32 handle;
	__u64 i;

	ASSERT_EQ(0, tas_bo_create(self->fd, size, 0, &handle));
	ASSERT_EQ(0, tas_bo_map(self->fd, handle, mapped, (void **)&map));

	for (i = 0; i < mapped; i++)
		ASSERT_EQ(0, map[i]) TH_LOG("byte %llu", (unsigned long long)i);
	for (i = 0; i < mapped; i++)
		map[i] = (__u8)(i * 7 + 1);

	/* A second mapping sees the same pages. */
	ASSERT_EQ(0, tas_bo_map(self->fd, handle, mapped, (void **)&map2));
	for (i = 0; i < mapped; i++)
		ASSERT_EQ((__u8)(i * 7 + 1), map2[i])
			TH_LOG("byte %llu", (unsigned long long)i);

	munmap(map2, mapped);
	munmap(map, mapped);
	EXPECT_EQ(0, tas_bo_close(self->fd, handle));
}

/* The bounds checks of nodes use the size rounded up to whole pages. */
TEST_F(tas, bo_size_rounded_to_pages)
{
	__u64 page = tas_page_size();
	const __u32 value = 0x600df00d;
	struct drm_tas_node node;
	struct drm_tas_sync signal;
	__u32 handle, syncobj;
	__u32 *map;
	__u64 i;

	ASSERT_EQ(0, tas_bo_create(self->fd, 1, 0, &handle));
	ASSERT_EQ(0, tas_bo_map(self->fd, handle, page, (void **)&map));
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &syncobj));
	tas_sync_init(&signal, syncobj, DRM_TAS_NODE_GRAPH, 0);

	tas_node_init(&node, 0, DRM_TAS_OP_FILL, 10 * TAS_NSEC_PER_USEC);
	node.imm = value;
	tas_buf_init(&node.dst, handle, 0, page + sizeof(__u32));
	EXPECT_EQ(-EINVAL, tas_submit(self->fd, &node, 1, NULL, 0, NULL, 0,
				      &signal, 1, NULL));

	tas_buf_init(&node.dst, handle, 0, page);
	ASSERT_EQ(0, tas_submit(self->fd, &node, 1, NULL, 0, NULL, 0,
				&signal, 1, NULL));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, syncobj));
	for (i = 0; i < page / sizeof(*map); i++)
		ASSERT_EQ(value, map[i]) TH_LOG("word %llu",
						(unsigned long long)i);

	munmap(map, page);
	tas_syncobj_destroy(self->fd, syncobj);
	EXPECT_EQ(0, tas_bo_close(self->fd, handle));
}

/*
 * The validation table: every variant of the tas_submit fixture changes one
 * thing of a valid submission and checks the result of SUBMIT_GRAPH. After a
 * rejected submission, the syncobj the graph would have signalled is still
 * untouched and the device still runs a graph; an accepted one runs to
 * completion without error.
 */
#define TAS_SUB_NODES		4
#define TAS_SUB_EDGES		3
#define TAS_SUB_SYNCS		3
#define TAS_SUB_BO_SIZE		(64 * 1024)
#define TAS_SUB_RANGE		4096
/* A 32 x 32 matrix of 32-bit integers fills TAS_SUB_RANGE bytes. */
#define TAS_SUB_DIM		32
#define TAS_SUB_DURATION_NS	(10 * TAS_NSEC_PER_USEC)

enum tas_array_id {
	TAS_NODES,
	TAS_EDGES,
	TAS_WAITS,
	TAS_SIGNALS,
};

struct tas_sub {
	int fd;
	/* The array a variant that is about arrays applies to. */
	enum tas_array_id which;
	__u64 num_rings;
	__u64 max_nodes;
	__u64 max_edges;
	__u64 max_waits;
	__u64 max_signals;
	__u64 max_duration_ns;
	__u64 max_stride;
	__u64 page_size;
	__u64 bo_size;
	__u32 bo;
	/* Signalled by the whole graph. */
	__u32 sig;
	struct drm_tas_node nodes[TAS_SUB_NODES];
	struct drm_tas_edge edges[TAS_SUB_EDGES + 1];
	struct drm_tas_sync waits[TAS_SUB_SYNCS];
	struct drm_tas_sync signals[TAS_SUB_SYNCS];
	struct drm_tas_submit_graph args;
	/* Released by the teardown. */
	void *mem;
	void *map;
	size_t map_size;
};

/*
 * The valid submission: FILL, COPY, MATMUL and NOP nodes on one buffer,
 * chained by edges, on rings 0 to 3 (modulo the number of rings):
 *
 *   0: FILL   dst [0, 4K)
 *   1: COPY   [0, 4K) -> [4K, 8K)
 *   2: MATMUL [0, 4K) x [4K, 8K) -> [8K, 12K), 32 x 32 x 32
 *   3: NOP
 *
 * with edges 0->1, 1->2, 2->3, no wait and one signal of the whole graph.
 */
static int tas_sub_init(struct tas_sub *s)
{
	const struct {
		__u32 param;
		__u64 *value;
	} params[] = {
		{ DRM_TAS_PARAM_NUM_RINGS, &s->num_rings },
		{ DRM_TAS_PARAM_MAX_NODES, &s->max_nodes },
		{ DRM_TAS_PARAM_MAX_EDGES, &s->max_edges },
		{ DRM_TAS_PARAM_MAX_WAITS, &s->max_waits },
		{ DRM_TAS_PARAM_MAX_SIGNALS, &s->max_signals },
		{ DRM_TAS_PARAM_MAX_DURATION_NS, &s->max_duration_ns },
		{ DRM_TAS_PARAM_MAX_STRIDE, &s->max_stride },
	};
	struct drm_tas_node *n = s->nodes;
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(params); i++) {
		ret = tas_get_param(s->fd, params[i].param, 0,
				    params[i].value);
		if (ret)
			return ret;
	}
	if (!s->num_rings)
		return -ENODEV;

	s->page_size = tas_page_size();
	s->bo_size = tas_round_up(TAS_SUB_BO_SIZE, s->page_size);
	ret = tas_bo_create(s->fd, TAS_SUB_BO_SIZE, 0, &s->bo);
	if (ret)
		return ret;
	ret = tas_syncobj_create(s->fd, 0, &s->sig);
	if (ret)
		return ret;

	for (i = 0; i < TAS_SUB_NODES; i++)
		tas_node_init(&n[i], i % s->num_rings, DRM_TAS_OP_NOP,
			      TAS_SUB_DURATION_NS);

	n[0].op = DRM_TAS_OP_FILL;
	n[0].imm = 0x01020304;
	tas_buf_init(&n[0].dst, s->bo, 0, TAS_SUB_RANGE);

	n[1].op = DRM_TAS_OP_COPY;
	tas_buf_init(&n[1].src[0], s->bo, 0, TAS_SUB_RANGE);
	tas_buf_init(&n[1].dst, s->bo, TAS_SUB_RANGE, TAS_SUB_RANGE);

	n[2].op = DRM_TAS_OP_MATMUL;
	n[2].imm = tas_matmul_imm(TAS_SUB_DIM, TAS_SUB_DIM, TAS_SUB_DIM);
	tas_buf_init(&n[2].src[0], s->bo, 0, TAS_SUB_RANGE);
	tas_buf_init(&n[2].src[1], s->bo, TAS_SUB_RANGE, TAS_SUB_RANGE);
	tas_buf_init(&n[2].dst, s->bo, 2 * TAS_SUB_RANGE, TAS_SUB_RANGE);

	for (i = 0; i < TAS_SUB_EDGES; i++)
		tas_edge_init(&s->edges[i], i, i + 1);

	tas_sync_init(&s->signals[0], s->sig, DRM_TAS_NODE_GRAPH, 0);

	memset(&s->args, 0, sizeof(s->args));
	tas_array_init(&s->args.nodes, s->nodes, TAS_SUB_NODES,
		       sizeof(s->nodes[0]));
	tas_array_init(&s->args.edges, s->edges, TAS_SUB_EDGES,
		       sizeof(s->edges[0]));
	tas_array_init(&s->args.signals, s->signals, 1, sizeof(s->signals[0]));
	return 0;
}

static void tas_sub_add_edge(struct tas_sub *s, __u32 from, __u32 to)
{
	tas_edge_init(&s->edges[s->args.edges.count], from, to);
	tas_array_init(&s->args.edges, s->edges, s->args.edges.count + 1,
		       sizeof(s->edges[0]));
}

static struct drm_tas_sync *tas_sub_add_wait(struct tas_sub *s, __u32 handle,
					     __u32 node, __u64 point)
{
	struct drm_tas_sync *wait = &s->waits[s->args.waits.count];

	tas_sync_init(wait, handle, node, point);
	tas_array_init(&s->args.waits, s->waits, s->args.waits.count + 1,
		       sizeof(s->waits[0]));
	return wait;
}

static struct drm_tas_sync *tas_sub_add_signal(struct tas_sub *s,
					       __u32 handle, __u32 node,
					       __u64 point)
{
	struct drm_tas_sync *signal = &s->signals[s->args.signals.count];

	tas_sync_init(signal, handle, node, point);
	tas_array_init(&s->args.signals, s->signals, s->args.signals.count + 1,
		       sizeof(s->signals[0]));
	return signal;
}

/* Adds a wait on a new syncobj created with @flags, then signalled to @point. */
static int tas_sub_new_wait(struct tas_sub *s, __u32 flags, __u64 point,
			    __u32 node, __u64 wait_point,
			    struct drm_tas_sync **wait)
{
	struct drm_tas_sync *w;
	__u32 handle;
	int ret;

	ret = tas_syncobj_new(s->fd, flags, point, &handle);
	if (ret)
		return ret;
	w = tas_sub_add_wait(s, handle, node, wait_point);
	if (wait)
		*wait = w;
	return 0;
}

/* Adds a signal of a new syncobj, given a signalled timeline to @point. */
static int tas_sub_new_signal(struct tas_sub *s, __u32 flags, __u64 point,
			      __u32 node, __u64 signal_point,
			      struct drm_tas_sync **signal)
{
	struct drm_tas_sync *sig;
	__u32 handle;
	int ret;

	ret = tas_syncobj_new(s->fd, flags, point, &handle);
	if (ret)
		return ret;
	sig = tas_sub_add_signal(s, handle, node, signal_point);
	if (signal)
		*signal = sig;
	return 0;
}

/* A syncobj handle that was valid and is not any more. */
static int tas_sub_stale_syncobj(struct tas_sub *s, __u32 *handle)
{
	int ret;

	ret = tas_syncobj_create(s->fd, 0, handle);
	if (ret)
		return ret;
	return tas_syncobj_destroy(s->fd, *handle);
}

/* Gives every array of the submission at least one valid entry. */
static int tas_sub_fill_arrays(struct tas_sub *s)
{
	if (s->args.waits.count)
		return 0;
	return tas_sub_new_wait(s, DRM_SYNCOBJ_CREATE_SIGNALED, 0,
				DRM_TAS_NODE_GRAPH, 0, NULL);
}

static struct drm_tas_array *tas_sub_array(struct tas_sub *s, size_t *size)
{
	switch (s->which) {
	case TAS_NODES:
		*size = sizeof(struct drm_tas_node);
		return &s->args.nodes;
	case TAS_EDGES:
		*size = sizeof(struct drm_tas_edge);
		return &s->args.edges;
	case TAS_WAITS:
		*size = sizeof(struct drm_tas_sync);
		return &s->args.waits;
	case TAS_SIGNALS:
	default:
		*size = sizeof(struct drm_tas_sync);
		return &s->args.signals;
	}
}

/*
 * Copies the array s->which to memory with the given stride, the bytes
 * beyond the structures zeroed, except the very last byte of the array with
 * @dirty_tail.
 */
static int tas_sub_restride(struct tas_sub *s, __u32 stride, bool dirty_tail)
{
	struct drm_tas_array *array;
	size_t size;
	char *mem;
	__u32 i;
	int ret;

	ret = tas_sub_fill_arrays(s);
	if (ret)
		return ret;
	array = tas_sub_array(s, &size);
	if (stride < size || !array->count)
		return -EINVAL;

	mem = calloc(array->count, stride);
	if (!mem)
		return -ENOMEM;
	for (i = 0; i < array->count; i++)
		memcpy(mem + (size_t)i * stride,
		       (char *)(uintptr_t)array->ptr + (size_t)i * array->stride,
		       size);
	if (dirty_tail)
		mem[(size_t)array->count * stride - 1] = 1;

	free(s->mem);
	s->mem = mem;
	array->ptr = (__u64)(uintptr_t)mem;
	array->stride = stride;
	return 0;
}

/* Maps two pages, the second one PROT_NONE, and returns the second one. */
static int tas_sub_guard_page(struct tas_sub *s, char **guard)
{
	char *map;

	map = mmap(NULL, 2 * s->page_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		return -errno;
	s->map = map;
	s->map_size = 2 * s->page_size;
	if (mprotect(map + s->page_size, s->page_size, PROT_NONE))
		return -errno;
	*guard = map + s->page_size;
	return 0;
}

static int tas_mut_none(struct tas_sub *s __maybe_unused)
{
	return 0;
}

static int tas_mut_zero_nodes(struct tas_sub *s)
{
	tas_array_init(&s->args.nodes, NULL, 0, 0);
	/* Without nodes, the edges would be out of range too. */
	tas_array_init(&s->args.edges, NULL, 0, 0);
	return 0;
}

static int tas_mut_too_many_nodes(struct tas_sub *s)
{
	__u64 count = s->max_nodes + 1;
	struct drm_tas_node *nodes;
	__u64 i;

	nodes = calloc(count, sizeof(*nodes));
	if (!nodes)
		return -ENOMEM;
	for (i = 0; i < count; i++)
		tas_node_init(&nodes[i], i % s->num_rings, DRM_TAS_OP_NOP,
			      TAS_NSEC_PER_USEC);
	s->mem = nodes;
	tas_array_init(&s->args.nodes, nodes, count, sizeof(*nodes));
	return 0;
}

/* One edge too many, all distinct and acyclic: i -> j for i < j. */
static int tas_mut_too_many_edges(struct tas_sub *s)
{
	__u64 count = s->max_edges + 1;
	struct drm_tas_node *nodes;
	struct drm_tas_edge *edges;
	__u32 num_nodes = 2, from, to;
	__u64 i = 0;

	while ((__u64)num_nodes * (num_nodes - 1) / 2 < count)
		num_nodes++;
	if (num_nodes > s->max_nodes)
		return -E2BIG;

	s->mem = calloc(1, num_nodes * sizeof(*nodes) + count * sizeof(*edges));
	if (!s->mem)
		return -ENOMEM;
	nodes = s->mem;
	edges = (struct drm_tas_edge *)(nodes + num_nodes);

	for (to = 0; to < num_nodes; to++)
		tas_node_init(&nodes[to], to % s->num_rings, DRM_TAS_OP_NOP,
			      TAS_NSEC_PER_USEC);
	for (to = 1; to < num_nodes && i < count; to++)
		for (from = 0; from < to && i < count; from++)
			tas_edge_init(&edges[i++], from, to);

	tas_array_init(&s->args.nodes, nodes, num_nodes, sizeof(*nodes));
	tas_array_init(&s->args.edges, edges, count, sizeof(*edges));
	return 0;
}

/* One entry too many, each on a distinct syncobj. */
static int tas_mut_too_many_syncs(struct tas_sub *s, bool waits)
{
	__u64 count = (waits ? s->max_waits : s->max_signals) + 1;
	struct drm_tas_sync *syncs;
	__u32 handle;
	__u64 i;
	int ret;

	syncs = calloc(count, sizeof(*syncs));
	if (!syncs)
		return -ENOMEM;
	s->mem = syncs;
	for (i = 0; i < count; i++) {
		ret = tas_syncobj_create(s->fd, waits ?
					 DRM_SYNCOBJ_CREATE_SIGNALED : 0,
					 &handle);
		if (ret)
			return ret;
		tas_sync_init(&syncs[i], handle, DRM_TAS_NODE_GRAPH, 0);
	}
	tas_array_init(waits ? &s->args.waits : &s->args.signals, syncs, count,
		       sizeof(*syncs));
	return 0;
}

static int tas_mut_too_many_waits(struct tas_sub *s)
{
	return tas_mut_too_many_syncs(s, true);
}

static int tas_mut_too_many_signals(struct tas_sub *s)
{
	return tas_mut_too_many_syncs(s, false);
}

static int tas_mut_flags(struct tas_sub *s)
{
	s->args.flags = DRM_TAS_SUBMIT_KEEP << 1;
	return 0;
}

static int tas_mut_fifo(struct tas_sub *s)
{
	s->args.flags = DRM_TAS_SUBMIT_FIFO;
	return 0;
}

static int tas_mut_flags_high(struct tas_sub *s)
{
	s->args.flags = 0x80000000;
	return 0;
}

static int tas_mut_pad(struct tas_sub *s)
{
	s->args.pad = 1;
	return 0;
}

static int tas_mut_extensions(struct tas_sub *s)
{
	/* A readable, zeroed block: no extension is defined at all. */
	s->mem = calloc(1, 256);
	if (!s->mem)
		return -ENOMEM;
	s->args.extensions = (__u64)(uintptr_t)s->mem;
	return 0;
}

/* graph_id is [out]: what userspace leaves in it does not matter. */
static int tas_mut_graph_id_garbage(struct tas_sub *s)
{
	s->args.graph_id = ~0ULL;
	return 0;
}

static int tas_mut_stride_small(struct tas_sub *s)
{
	struct drm_tas_array *array;
	size_t size;
	int ret;

	ret = tas_sub_fill_arrays(s);
	if (ret)
		return ret;
	array = tas_sub_array(s, &size);
	array->stride = size - sizeof(__u32);
	return 0;
}

static int tas_mut_stride_zero(struct tas_sub *s)
{
	struct drm_tas_array *array;
	size_t size;
	int ret;

	ret = tas_sub_fill_arrays(s);
	if (ret)
		return ret;
	array = tas_sub_array(s, &size);
	array->stride = 0;
	return 0;
}

static int tas_mut_stride_above_max(struct tas_sub *s)
{
	return tas_sub_restride(s, s->max_stride + sizeof(__u64), false);
}

static int tas_mut_stride_max(struct tas_sub *s)
{
	return tas_sub_restride(s, s->max_stride, false);
}

static int tas_mut_stride_larger(struct tas_sub *s)
{
	size_t size;

	tas_sub_array(s, &size);
	return tas_sub_restride(s, size + sizeof(__u64), false);
}

static int tas_mut_stride_dirty_tail(struct tas_sub *s)
{
	size_t size;

	tas_sub_array(s, &size);
	return tas_sub_restride(s, size + sizeof(__u64), true);
}

static int tas_mut_empty_with_ptr(struct tas_sub *s)
{
	struct drm_tas_array *array;
	size_t size;
	int ret;

	ret = tas_sub_fill_arrays(s);
	if (ret)
		return ret;
	array = tas_sub_array(s, &size);
	array->count = 0;
	array->stride = 0;
	return 0;
}

static int tas_mut_empty_with_stride(struct tas_sub *s)
{
	struct drm_tas_array *array;
	size_t size;
	int ret;

	ret = tas_sub_fill_arrays(s);
	if (ret)
		return ret;
	array = tas_sub_array(s, &size);
	array->count = 0;
	array->ptr = 0;
	return 0;
}

static int tas_mut_ptr_unmapped(struct tas_sub *s)
{
	struct drm_tas_array *array;
	size_t size;
	char *guard;
	int ret;

	ret = tas_sub_fill_arrays(s);
	if (ret)
		return ret;
	ret = tas_sub_guard_page(s, &guard);
	if (ret)
		return ret;
	array = tas_sub_array(s, &size);
	array->ptr = (__u64)(uintptr_t)guard;
	return 0;
}

static int tas_mut_ptr_low(struct tas_sub *s)
{
	struct drm_tas_array *array;
	size_t size;
	int ret;

	ret = tas_sub_fill_arrays(s);
	if (ret)
		return ret;
	array = tas_sub_array(s, &size);
	array->ptr = 8;
	return 0;
}

/* The array ends in the middle of its last entry, at a PROT_NONE page. */
static int tas_mut_ptr_partly_unmapped(struct tas_sub *s)
{
	struct drm_tas_array *array;
	size_t size, readable;
	char *guard;
	int ret;

	ret = tas_sub_fill_arrays(s);
	if (ret)
		return ret;
	ret = tas_sub_guard_page(s, &guard);
	if (ret)
		return ret;
	array = tas_sub_array(s, &size);
	readable = (size_t)array->count * array->stride - size / 2;
	if (readable > s->page_size)
		return -E2BIG;
	memcpy(guard - readable, (void *)(uintptr_t)array->ptr, readable);
	array->ptr = (__u64)(uintptr_t)(guard - readable);
	return 0;
}

static int tas_mut_ring_num_rings(struct tas_sub *s)
{
	s->nodes[3].ring = s->num_rings;
	return 0;
}

static int tas_mut_ring_max(struct tas_sub *s)
{
	s->nodes[3].ring = 0xffffffff;
	return 0;
}

static int tas_mut_ring_last(struct tas_sub *s)
{
	s->nodes[3].ring = s->num_rings - 1;
	return 0;
}

static int tas_mut_op_unknown(struct tas_sub *s)
{
	s->nodes[3].op = TAS_NUM_OPS;
	return 0;
}

static int tas_mut_op_max(struct tas_sub *s)
{
	s->nodes[3].op = 0xffffffff;
	return 0;
}

static int tas_mut_class_unknown(struct tas_sub *s)
{
	s->nodes[3].class = TAS_NUM_CLASSES;
	return 0;
}

static int tas_mut_class_max(struct tas_sub *s)
{
	s->nodes[3].class = 0xffffffff;
	return 0;
}

static int tas_mut_classes(struct tas_sub *s)
{
	unsigned int i;

	for (i = 0; i < TAS_SUB_NODES; i++)
		s->nodes[i].class = i % TAS_NUM_CLASSES;
	return 0;
}

/* Gangs of one node each. */
static int tas_mut_gang(struct tas_sub *s)
{
	s->nodes[0].gang = 1;
	s->nodes[3].gang = 0xffffffff;
	return 0;
}

/* A gang of two nodes on different rings, one waiting for the other. */
static int tas_mut_gang_dependent(struct tas_sub *s)
{
	if (s->num_rings < 2)
		return -ENODEV;
	s->nodes[1].gang = 7;
	s->nodes[2].gang = 7;
	return 0;
}

/* A gang of two nodes on one ring. */
static int tas_mut_gang_same_ring(struct tas_sub *s)
{
	s->nodes[1].ring = 0;
	s->nodes[2].ring = 0;
	s->nodes[1].gang = 7;
	s->nodes[2].gang = 7;
	return 0;
}

static int tas_mut_node_flags(struct tas_sub *s)
{
	s->nodes[3].flags = 1;
	return 0;
}

static int tas_mut_node_flags_high(struct tas_sub *s)
{
	s->nodes[3].flags = 0x80000000;
	return 0;
}

static int tas_mut_node_pad(struct tas_sub *s)
{
	s->nodes[3].pad = 1;
	return 0;
}

static int tas_mut_duration_above_max(struct tas_sub *s)
{
	s->nodes[3].duration_ns = s->max_duration_ns + 1;
	return 0;
}

static int tas_mut_duration_u64_max(struct tas_sub *s)
{
	s->nodes[3].duration_ns = ~0ULL;
	return 0;
}

static int tas_mut_nop_imm(struct tas_sub *s)
{
	s->nodes[3].imm = 1;
	return 0;
}

static int tas_mut_nop_dst(struct tas_sub *s)
{
	tas_buf_init(&s->nodes[3].dst, s->bo, 0, TAS_SUB_RANGE);
	return 0;
}

static int tas_mut_nop_src(struct tas_sub *s)
{
	tas_buf_init(&s->nodes[3].src[1], s->bo, 0, TAS_SUB_RANGE);
	return 0;
}

static int tas_mut_fill_src(struct tas_sub *s)
{
	tas_buf_init(&s->nodes[0].src[0], s->bo, 3 * TAS_SUB_RANGE,
		     TAS_SUB_RANGE);
	return 0;
}

/* An unused range with only its offset set is not "all zero". */
static int tas_mut_copy_src1_offset(struct tas_sub *s)
{
	s->nodes[1].src[1].offset = sizeof(__u32);
	return 0;
}

static int tas_mut_buf_pad(struct tas_sub *s)
{
	s->nodes[0].dst.pad = 1;
	return 0;
}

static int tas_mut_buf_empty(struct tas_sub *s)
{
	s->nodes[0].dst.size = 0;
	return 0;
}

static int tas_mut_buf_out_of_bounds(struct tas_sub *s)
{
	s->nodes[0].dst.offset = s->bo_size - TAS_SUB_RANGE / 2;
	return 0;
}

static int tas_mut_buf_offset_at_end(struct tas_sub *s)
{
	s->nodes[0].dst.offset = s->bo_size;
	s->nodes[0].dst.size = sizeof(__u32);
	return 0;
}

static int tas_mut_buf_at_end(struct tas_sub *s)
{
	s->nodes[0].dst.offset = s->bo_size - TAS_SUB_RANGE;
	return 0;
}

/* offset + size is 2^64, 0 once truncated to 64 bits. */
static int tas_mut_buf_offset_overflow(struct tas_sub *s)
{
	s->nodes[0].dst.offset = 0ULL - TAS_SUB_RANGE;
	return 0;
}

static int tas_mut_buf_size_overflow(struct tas_sub *s)
{
	s->nodes[0].dst.offset = TAS_SUB_RANGE;
	s->nodes[0].dst.size = 0ULL - TAS_SUB_RANGE;
	return 0;
}

static int tas_mut_dst_unknown_handle(struct tas_sub *s)
{
	__u32 handle;
	int ret;

	ret = tas_bo_create(s->fd, TAS_SUB_BO_SIZE, 0, &handle);
	if (ret)
		return ret;
	ret = tas_bo_close(s->fd, handle);
	s->nodes[0].dst.handle = handle;
	return ret;
}

static int tas_mut_src_unknown_handle(struct tas_sub *s)
{
	__u32 handle;
	int ret;

	ret = tas_bo_create(s->fd, TAS_SUB_BO_SIZE, 0, &handle);
	if (ret)
		return ret;
	ret = tas_bo_close(s->fd, handle);
	s->nodes[2].src[1].handle = handle;
	return ret;
}

static int tas_mut_fill_size_unaligned(struct tas_sub *s)
{
	s->nodes[0].dst.size = TAS_SUB_RANGE - 2;
	return 0;
}

static int tas_mut_copy_size_mismatch(struct tas_sub *s)
{
	s->nodes[1].dst.size = TAS_SUB_RANGE / 2;
	return 0;
}

static int tas_mut_copy_overlap(struct tas_sub *s)
{
	s->nodes[1].dst.offset = TAS_SUB_RANGE / 2;
	return 0;
}

/* Node 2 becomes an ADD of the same three ranges. */
static int tas_mut_add(struct tas_sub *s)
{
	s->nodes[2].op = DRM_TAS_OP_ADD;
	s->nodes[2].imm = 0;
	return 0;
}

static int tas_mut_add_size_mismatch(struct tas_sub *s)
{
	tas_mut_add(s);
	s->nodes[2].src[1].size = TAS_SUB_RANGE / 2;
	return 0;
}

static int tas_mut_add_size_unaligned(struct tas_sub *s)
{
	tas_mut_add(s);
	s->nodes[2].src[0].size = TAS_SUB_RANGE - 2;
	s->nodes[2].src[1].size = TAS_SUB_RANGE - 2;
	s->nodes[2].dst.size = TAS_SUB_RANGE - 2;
	return 0;
}

static int tas_mut_add_missing_src(struct tas_sub *s)
{
	tas_mut_add(s);
	memset(&s->nodes[2].src[1], 0, sizeof(s->nodes[2].src[1]));
	return 0;
}

/* Sets the dimensions of MATMUL node 2 and its ranges to match them. */
static void tas_sub_matmul(struct tas_sub *s, __u64 m, __u64 n, __u64 k)
{
	struct drm_tas_node *node = &s->nodes[2];

	node->imm = tas_matmul_imm(m, n, k);
	node->src[0].size = sizeof(__u32) * m * k;
	node->src[1].size = sizeof(__u32) * k * n;
	node->dst.size = sizeof(__u32) * m * n;
}

static int tas_mut_matmul_dim_max(struct tas_sub *s)
{
	tas_sub_matmul(s, TAS_MATMUL_MAX_DIM, 1, 1);
	return 0;
}

static int tas_mut_matmul_m_zero(struct tas_sub *s)
{
	/* The ranges that match are empty. */
	s->nodes[2].imm = tas_matmul_imm(0, TAS_SUB_DIM, TAS_SUB_DIM);
	return 0;
}

static int tas_mut_matmul_m_above_max(struct tas_sub *s)
{
	tas_sub_matmul(s, TAS_MATMUL_MAX_DIM + 1, 1, 1);
	return 0;
}

static int tas_mut_matmul_n_above_max(struct tas_sub *s)
{
	tas_sub_matmul(s, 1, TAS_MATMUL_MAX_DIM + 1, 1);
	return 0;
}

static int tas_mut_matmul_k_above_max(struct tas_sub *s)
{
	tas_sub_matmul(s, 1, 1, TAS_MATMUL_MAX_DIM + 1);
	return 0;
}

/* K 16 with ranges sized for K 32. */
static int tas_mut_matmul_size_mismatch(struct tas_sub *s)
{
	s->nodes[2].imm = tas_matmul_imm(TAS_SUB_DIM, TAS_SUB_DIM,
					 TAS_SUB_DIM / 2);
	return 0;
}

static int tas_mut_matmul_missing_src(struct tas_sub *s)
{
	memset(&s->nodes[2].src[1], 0, sizeof(s->nodes[2].src[1]));
	return 0;
}

static int tas_mut_edge_from_out_of_range(struct tas_sub *s)
{
	s->edges[2].from = TAS_SUB_NODES;
	return 0;
}

static int tas_mut_edge_to_out_of_range(struct tas_sub *s)
{
	s->edges[2].to = TAS_SUB_NODES;
	return 0;
}

static int tas_mut_edge_to_graph(struct tas_sub *s)
{
	s->edges[2].to = DRM_TAS_NODE_GRAPH;
	return 0;
}

static int tas_mut_self_loop(struct tas_sub *s)
{
	tas_sub_add_edge(s, 1, 1);
	return 0;
}

static int tas_mut_duplicate_edge(struct tas_sub *s)
{
	tas_sub_add_edge(s, 0, 1);
	return 0;
}

/* 0 -> 1 -> 2 -> 0 */
static int tas_mut_cycle(struct tas_sub *s)
{
	tas_sub_add_edge(s, 2, 0);
	return 0;
}

/* 0 -> 1 -> 0 */
static int tas_mut_cycle_two(struct tas_sub *s)
{
	tas_sub_add_edge(s, 1, 0);
	return 0;
}

static int tas_mut_transitive_edge(struct tas_sub *s)
{
	tas_sub_add_edge(s, 0, 2);
	return 0;
}

/* 3 -> 0 -> 1 -> 2: edges need not go from lower to higher indices. */
static int tas_mut_edge_backwards(struct tas_sub *s)
{
	tas_edge_init(&s->edges[2], 3, 0);
	return 0;
}

static int tas_mut_wait_unknown_syncobj(struct tas_sub *s)
{
	__u32 handle;
	int ret;

	ret = tas_sub_stale_syncobj(s, &handle);
	if (!ret)
		tas_sub_add_wait(s, handle, DRM_TAS_NODE_GRAPH, 0);
	return ret;
}

static int tas_mut_wait_flags(struct tas_sub *s)
{
	struct drm_tas_sync *wait;
	int ret;

	ret = tas_sub_new_wait(s, DRM_SYNCOBJ_CREATE_SIGNALED, 0,
			       DRM_TAS_NODE_GRAPH, 0, &wait);
	if (!ret)
		wait->flags = 1;
	return ret;
}

static int tas_mut_wait_pad(struct tas_sub *s)
{
	struct drm_tas_sync *wait;
	int ret;

	ret = tas_sub_new_wait(s, DRM_SYNCOBJ_CREATE_SIGNALED, 0,
			       DRM_TAS_NODE_GRAPH, 0, &wait);
	if (!ret)
		wait->pad = 1;
	return ret;
}

static int tas_mut_wait_node_out_of_range(struct tas_sub *s)
{
	return tas_sub_new_wait(s, DRM_SYNCOBJ_CREATE_SIGNALED, 0,
				TAS_SUB_NODES, 0, NULL);
}

static int tas_mut_wait_node_max(struct tas_sub *s)
{
	return tas_sub_new_wait(s, DRM_SYNCOBJ_CREATE_SIGNALED, 0,
				DRM_TAS_NODE_GRAPH - 1, 0, NULL);
}

static int tas_mut_wait_timeline_point_zero(struct tas_sub *s)
{
	return tas_sub_new_wait(s, 0, 1, DRM_TAS_NODE_GRAPH, 0, NULL);
}

static int tas_mut_wait_binary_point(struct tas_sub *s)
{
	return tas_sub_new_wait(s, DRM_SYNCOBJ_CREATE_SIGNALED, 0,
				DRM_TAS_NODE_GRAPH, 1, NULL);
}

static int tas_mut_wait_empty_binary(struct tas_sub *s)
{
	return tas_sub_new_wait(s, 0, 0, DRM_TAS_NODE_GRAPH, 0, NULL);
}

static int tas_mut_wait_empty_timeline(struct tas_sub *s)
{
	return tas_sub_new_wait(s, 0, 0, DRM_TAS_NODE_GRAPH, 1, NULL);
}

static int tas_mut_wait_unsubmitted_point(struct tas_sub *s)
{
	return tas_sub_new_wait(s, 0, 1, DRM_TAS_NODE_GRAPH, 2, NULL);
}

static int tas_mut_wait_binary(struct tas_sub *s)
{
	return tas_sub_new_wait(s, DRM_SYNCOBJ_CREATE_SIGNALED, 0,
				DRM_TAS_NODE_GRAPH, 0, NULL);
}

static int tas_mut_wait_binary_node(struct tas_sub *s)
{
	return tas_sub_new_wait(s, DRM_SYNCOBJ_CREATE_SIGNALED, 0, 2, 0,
				NULL);
}

static int tas_mut_wait_timeline(struct tas_sub *s)
{
	return tas_sub_new_wait(s, 0, 1, 1, 1, NULL);
}

/* Point 2 of a timeline signalled up to 3 is submitted (and signalled). */
static int tas_mut_wait_timeline_older_point(struct tas_sub *s)
{
	return tas_sub_new_wait(s, 0, 3, DRM_TAS_NODE_GRAPH, 2, NULL);
}

static int tas_mut_signal_unknown_syncobj(struct tas_sub *s)
{
	__u32 handle;
	int ret;

	ret = tas_sub_stale_syncobj(s, &handle);
	if (!ret)
		tas_sub_add_signal(s, handle, DRM_TAS_NODE_GRAPH, 0);
	return ret;
}

static int tas_mut_signal_flags(struct tas_sub *s)
{
	s->signals[0].flags = 1;
	return 0;
}

static int tas_mut_signal_pad(struct tas_sub *s)
{
	s->signals[0].pad = 1;
	return 0;
}

static int tas_mut_signal_node_out_of_range(struct tas_sub *s)
{
	return tas_sub_new_signal(s, 0, 0, TAS_SUB_NODES, 0, NULL);
}

static int tas_mut_signal_node_max(struct tas_sub *s)
{
	return tas_sub_new_signal(s, 0, 0, DRM_TAS_NODE_GRAPH - 1, 0, NULL);
}

static int tas_mut_signal_point_not_above(struct tas_sub *s)
{
	return tas_sub_new_signal(s, 0, 5, DRM_TAS_NODE_GRAPH, 5, NULL);
}

static int tas_mut_signal_point_below(struct tas_sub *s)
{
	return tas_sub_new_signal(s, 0, 5, DRM_TAS_NODE_GRAPH, 3, NULL);
}

static int tas_mut_signal_point_twice(struct tas_sub *s)
{
	struct drm_tas_sync *signal;
	int ret;

	ret = tas_sub_new_signal(s, 0, 0, 1, 2, &signal);
	if (!ret)
		tas_sub_add_signal(s, signal->handle, 3, 2);
	return ret;
}

static int tas_mut_signal_timeline_node(struct tas_sub *s)
{
	return tas_sub_new_signal(s, 0, 0, 1, 1, NULL);
}

static int tas_mut_signal_timeline_above(struct tas_sub *s)
{
	return tas_sub_new_signal(s, 0, 5, DRM_TAS_NODE_GRAPH, 6, NULL);
}

/* A binary signal replaces the fence the syncobj holds. */
static int tas_mut_signal_binary_replace(struct tas_sub *s)
{
	return tas_sub_new_signal(s, DRM_SYNCOBJ_CREATE_SIGNALED, 0,
				  DRM_TAS_NODE_GRAPH, 0, NULL);
}

static int tas_mut_signal_binary_node(struct tas_sub *s)
{
	return tas_sub_new_signal(s, 0, 0, 0, 0, NULL);
}

FIXTURE(tas_submit) {
	struct tas_sub sub;
};

FIXTURE_VARIANT(tas_submit) {
	int (*mutate)(struct tas_sub *s);
	/* The array that tas_mut_stride_*() and co. change, nodes if unset. */
	enum tas_array_id array;
	/* 0 or the -errno of SUBMIT_GRAPH. */
	int expected;
};

/* The unchanged submission, and changes that keep it valid. */
FIXTURE_VARIANT_ADD(tas_submit, valid) {
	.mutate = tas_mut_none,
	.expected = 0,
};

FIXTURE_VARIANT_ADD(tas_submit, graph_id_garbage) {
	.mutate = tas_mut_graph_id_garbage,
	.expected = 0,
};

FIXTURE_VARIANT_ADD(tas_submit, nodes_stride_larger) {
	.mutate = tas_mut_stride_larger,
	.expected = 0,
};

FIXTURE_VARIANT_ADD(tas_submit, edges_stride_larger) {
	.mutate = tas_mut_stride_larger,
	.array = TAS_EDGES,
	.expected = 0,
};

FIXTURE_VARIANT_ADD(tas_submit, waits_stride_larger) {
	.mutate = tas_mut_stride_larger,
	.array = TAS_WAITS,
	.expected = 0,
};

FIXTURE_VARIANT_ADD(tas_submit, signals_stride_larger) {
	.mutate = tas_mut_stride_larger,
	.array = TAS_SIGNALS,
	.expected = 0,
};

FIXTURE_VARIANT_ADD(tas_submit, nodes_stride_max) {
	.mutate = tas_mut_stride_max,
	.expected = 0,
};

FIXTURE_VARIANT_ADD(tas_submit, signals_stride_max) {
	.mutate = tas_mut_stride_max,
	.array = TAS_SIGNALS,
	.expected = 0,
};

FIXTURE_VARIANT_ADD(tas_submit, ring_last) {
	.mutate = tas_mut_ring_last,
	.expected = 0,
};

FIXTURE_VARIANT_ADD(tas_submit, classes) {
	.mutate = tas_mut_classes,
	.expected = 0,
};

FIXTURE_VARIANT_ADD(tas_submit, gang) {
	.mutate = tas_mut_gang,
	.expected = 0,
};

FIXTURE_VARIANT_ADD(tas_submit, fifo) {
	.mutate = tas_mut_fifo,
	.expected = 0,
};

FIXTURE_VARIANT_ADD(tas_submit, gang_dependent) {
	.mutate = tas_mut_gang_dependent,
	.expected = -EDEADLK,
};

FIXTURE_VARIANT_ADD(tas_submit, gang_same_ring) {
	.mutate = tas_mut_gang_same_ring,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, buf_at_end) {
	.mutate = tas_mut_buf_at_end,
	.expected = 0,
};

FIXTURE_VARIANT_ADD(tas_submit, add) {
	.mutate = tas_mut_add,
	.expected = 0,
};

FIXTURE_VARIANT_ADD(tas_submit, matmul_dim_max) {
	.mutate = tas_mut_matmul_dim_max,
	.expected = 0,
};

FIXTURE_VARIANT_ADD(tas_submit, transitive_edge) {
	.mutate = tas_mut_transitive_edge,
	.expected = 0,
};

FIXTURE_VARIANT_ADD(tas_submit, edge_backwards) {
	.mutate = tas_mut_edge_backwards,
	.expected = 0,
};

FIXTURE_VARIANT_ADD(tas_submit, wait_binary) {
	.mutate = tas_mut_wait_binary,
	.expected = 0,
};

FIXTURE_VARIANT_ADD(tas_submit, wait_binary_node) {
	.mutate = tas_mut_wait_binary_node,
	.expected = 0,
};

FIXTURE_VARIANT_ADD(tas_submit, wait_timeline) {
	.mutate = tas_mut_wait_timeline,
	.expected = 0,
};

FIXTURE_VARIANT_ADD(tas_submit, wait_timeline_older_point) {
	.mutate = tas_mut_wait_timeline_older_point,
	.expected = 0,
};

FIXTURE_VARIANT_ADD(tas_submit, signal_timeline_node) {
	.mutate = tas_mut_signal_timeline_node,
	.expected = 0,
};

FIXTURE_VARIANT_ADD(tas_submit, signal_timeline_above) {
	.mutate = tas_mut_signal_timeline_above,
	.expected = 0,
};

FIXTURE_VARIANT_ADD(tas_submit, signal_binary_replace) {
	.mutate = tas_mut_signal_binary_replace,
	.expected = 0,
};

FIXTURE_VARIANT_ADD(tas_submit, signal_binary_node) {
	.mutate = tas_mut_signal_binary_node,
	.expected = 0,
};

/* The submission and its arrays. */
FIXTURE_VARIANT_ADD(tas_submit, zero_nodes) {
	.mutate = tas_mut_zero_nodes,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, too_many_nodes) {
	.mutate = tas_mut_too_many_nodes,
	.expected = -E2BIG,
};

FIXTURE_VARIANT_ADD(tas_submit, too_many_edges) {
	.mutate = tas_mut_too_many_edges,
	.expected = -E2BIG,
};

FIXTURE_VARIANT_ADD(tas_submit, too_many_waits) {
	.mutate = tas_mut_too_many_waits,
	.expected = -E2BIG,
};

FIXTURE_VARIANT_ADD(tas_submit, too_many_signals) {
	.mutate = tas_mut_too_many_signals,
	.expected = -E2BIG,
};

FIXTURE_VARIANT_ADD(tas_submit, flags) {
	.mutate = tas_mut_flags,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, flags_high) {
	.mutate = tas_mut_flags_high,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, pad) {
	.mutate = tas_mut_pad,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, extensions) {
	.mutate = tas_mut_extensions,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, nodes_stride_small) {
	.mutate = tas_mut_stride_small,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, edges_stride_small) {
	.mutate = tas_mut_stride_small,
	.array = TAS_EDGES,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, waits_stride_small) {
	.mutate = tas_mut_stride_small,
	.array = TAS_WAITS,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, signals_stride_small) {
	.mutate = tas_mut_stride_small,
	.array = TAS_SIGNALS,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, nodes_stride_zero) {
	.mutate = tas_mut_stride_zero,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, edges_stride_zero) {
	.mutate = tas_mut_stride_zero,
	.array = TAS_EDGES,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, waits_stride_zero) {
	.mutate = tas_mut_stride_zero,
	.array = TAS_WAITS,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, signals_stride_zero) {
	.mutate = tas_mut_stride_zero,
	.array = TAS_SIGNALS,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, nodes_stride_above_max) {
	.mutate = tas_mut_stride_above_max,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, edges_stride_above_max) {
	.mutate = tas_mut_stride_above_max,
	.array = TAS_EDGES,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, waits_stride_above_max) {
	.mutate = tas_mut_stride_above_max,
	.array = TAS_WAITS,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, signals_stride_above_max) {
	.mutate = tas_mut_stride_above_max,
	.array = TAS_SIGNALS,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, nodes_stride_dirty_tail) {
	.mutate = tas_mut_stride_dirty_tail,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, edges_stride_dirty_tail) {
	.mutate = tas_mut_stride_dirty_tail,
	.array = TAS_EDGES,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, waits_stride_dirty_tail) {
	.mutate = tas_mut_stride_dirty_tail,
	.array = TAS_WAITS,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, signals_stride_dirty_tail) {
	.mutate = tas_mut_stride_dirty_tail,
	.array = TAS_SIGNALS,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, edges_empty_with_ptr) {
	.mutate = tas_mut_empty_with_ptr,
	.array = TAS_EDGES,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, waits_empty_with_ptr) {
	.mutate = tas_mut_empty_with_ptr,
	.array = TAS_WAITS,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, signals_empty_with_ptr) {
	.mutate = tas_mut_empty_with_ptr,
	.array = TAS_SIGNALS,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, edges_empty_with_stride) {
	.mutate = tas_mut_empty_with_stride,
	.array = TAS_EDGES,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, waits_empty_with_stride) {
	.mutate = tas_mut_empty_with_stride,
	.array = TAS_WAITS,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, signals_empty_with_stride) {
	.mutate = tas_mut_empty_with_stride,
	.array = TAS_SIGNALS,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, nodes_unmapped) {
	.mutate = tas_mut_ptr_unmapped,
	.expected = -EFAULT,
};

FIXTURE_VARIANT_ADD(tas_submit, edges_unmapped) {
	.mutate = tas_mut_ptr_unmapped,
	.array = TAS_EDGES,
	.expected = -EFAULT,
};

FIXTURE_VARIANT_ADD(tas_submit, waits_unmapped) {
	.mutate = tas_mut_ptr_unmapped,
	.array = TAS_WAITS,
	.expected = -EFAULT,
};

FIXTURE_VARIANT_ADD(tas_submit, signals_unmapped) {
	.mutate = tas_mut_ptr_unmapped,
	.array = TAS_SIGNALS,
	.expected = -EFAULT,
};

FIXTURE_VARIANT_ADD(tas_submit, nodes_ptr_low) {
	.mutate = tas_mut_ptr_low,
	.expected = -EFAULT,
};

FIXTURE_VARIANT_ADD(tas_submit, nodes_partly_unmapped) {
	.mutate = tas_mut_ptr_partly_unmapped,
	.expected = -EFAULT,
};

FIXTURE_VARIANT_ADD(tas_submit, signals_partly_unmapped) {
	.mutate = tas_mut_ptr_partly_unmapped,
	.array = TAS_SIGNALS,
	.expected = -EFAULT,
};

/* Nodes. */
FIXTURE_VARIANT_ADD(tas_submit, ring_num_rings) {
	.mutate = tas_mut_ring_num_rings,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, ring_max) {
	.mutate = tas_mut_ring_max,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, op_unknown) {
	.mutate = tas_mut_op_unknown,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, op_max) {
	.mutate = tas_mut_op_max,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, class_unknown) {
	.mutate = tas_mut_class_unknown,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, class_max) {
	.mutate = tas_mut_class_max,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, node_flags) {
	.mutate = tas_mut_node_flags,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, node_flags_high) {
	.mutate = tas_mut_node_flags_high,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, node_pad) {
	.mutate = tas_mut_node_pad,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, duration_above_max) {
	.mutate = tas_mut_duration_above_max,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, duration_u64_max) {
	.mutate = tas_mut_duration_u64_max,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, nop_imm) {
	.mutate = tas_mut_nop_imm,
	.expected = -EINVAL,
};

/* Buffer ranges. */
FIXTURE_VARIANT_ADD(tas_submit, nop_dst) {
	.mutate = tas_mut_nop_dst,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, nop_src) {
	.mutate = tas_mut_nop_src,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, fill_src) {
	.mutate = tas_mut_fill_src,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, copy_src1_offset) {
	.mutate = tas_mut_copy_src1_offset,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, buf_pad) {
	.mutate = tas_mut_buf_pad,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, buf_empty) {
	.mutate = tas_mut_buf_empty,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, buf_out_of_bounds) {
	.mutate = tas_mut_buf_out_of_bounds,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, buf_offset_at_end) {
	.mutate = tas_mut_buf_offset_at_end,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, buf_offset_overflow) {
	.mutate = tas_mut_buf_offset_overflow,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, buf_size_overflow) {
	.mutate = tas_mut_buf_size_overflow,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, dst_unknown_handle) {
	.mutate = tas_mut_dst_unknown_handle,
	.expected = -ENOENT,
};

FIXTURE_VARIANT_ADD(tas_submit, src_unknown_handle) {
	.mutate = tas_mut_src_unknown_handle,
	.expected = -ENOENT,
};

FIXTURE_VARIANT_ADD(tas_submit, fill_size_unaligned) {
	.mutate = tas_mut_fill_size_unaligned,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, copy_size_mismatch) {
	.mutate = tas_mut_copy_size_mismatch,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, copy_overlap) {
	.mutate = tas_mut_copy_overlap,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, add_size_mismatch) {
	.mutate = tas_mut_add_size_mismatch,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, add_size_unaligned) {
	.mutate = tas_mut_add_size_unaligned,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, add_missing_src) {
	.mutate = tas_mut_add_missing_src,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, matmul_m_zero) {
	.mutate = tas_mut_matmul_m_zero,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, matmul_m_above_max) {
	.mutate = tas_mut_matmul_m_above_max,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, matmul_n_above_max) {
	.mutate = tas_mut_matmul_n_above_max,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, matmul_k_above_max) {
	.mutate = tas_mut_matmul_k_above_max,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, matmul_size_mismatch) {
	.mutate = tas_mut_matmul_size_mismatch,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, matmul_missing_src) {
	.mutate = tas_mut_matmul_missing_src,
	.expected = -EINVAL,
};

/* Edges. */
FIXTURE_VARIANT_ADD(tas_submit, edge_from_out_of_range) {
	.mutate = tas_mut_edge_from_out_of_range,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, edge_to_out_of_range) {
	.mutate = tas_mut_edge_to_out_of_range,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, edge_to_graph) {
	.mutate = tas_mut_edge_to_graph,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, self_loop) {
	.mutate = tas_mut_self_loop,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, duplicate_edge) {
	.mutate = tas_mut_duplicate_edge,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, cycle) {
	.mutate = tas_mut_cycle,
	.expected = -ELOOP,
};

FIXTURE_VARIANT_ADD(tas_submit, cycle_two) {
	.mutate = tas_mut_cycle_two,
	.expected = -ELOOP,
};

/* Syncobj waits and signals. */
FIXTURE_VARIANT_ADD(tas_submit, wait_unknown_syncobj) {
	.mutate = tas_mut_wait_unknown_syncobj,
	.expected = -ENOENT,
};

FIXTURE_VARIANT_ADD(tas_submit, wait_flags) {
	.mutate = tas_mut_wait_flags,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, wait_pad) {
	.mutate = tas_mut_wait_pad,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, wait_node_out_of_range) {
	.mutate = tas_mut_wait_node_out_of_range,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, wait_node_max) {
	.mutate = tas_mut_wait_node_max,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, wait_timeline_point_zero) {
	.mutate = tas_mut_wait_timeline_point_zero,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, wait_binary_point) {
	.mutate = tas_mut_wait_binary_point,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, wait_empty_binary) {
	.mutate = tas_mut_wait_empty_binary,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, wait_empty_timeline) {
	.mutate = tas_mut_wait_empty_timeline,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, wait_unsubmitted_point) {
	.mutate = tas_mut_wait_unsubmitted_point,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, signal_unknown_syncobj) {
	.mutate = tas_mut_signal_unknown_syncobj,
	.expected = -ENOENT,
};

FIXTURE_VARIANT_ADD(tas_submit, signal_flags) {
	.mutate = tas_mut_signal_flags,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, signal_pad) {
	.mutate = tas_mut_signal_pad,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, signal_node_out_of_range) {
	.mutate = tas_mut_signal_node_out_of_range,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, signal_node_max) {
	.mutate = tas_mut_signal_node_max,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, signal_point_not_above) {
	.mutate = tas_mut_signal_point_not_above,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, signal_point_below) {
	.mutate = tas_mut_signal_point_below,
	.expected = -EINVAL,
};

FIXTURE_VARIANT_ADD(tas_submit, signal_point_twice) {
	.mutate = tas_mut_signal_point_twice,
	.expected = -EINVAL,
};

FIXTURE_SETUP(tas_submit)
{
	memset(&self->sub, 0, sizeof(self->sub));
	self->sub.fd = tas_open_render_node();
	if (self->sub.fd < 0)
		SKIP(return, "no tas render node (CONFIG_DRM_TAS not enabled?)");
	ASSERT_EQ(0, tas_sub_init(&self->sub));
}

FIXTURE_TEARDOWN(tas_submit)
{
	free(self->sub.mem);
	if (self->sub.map)
		munmap(self->sub.map, self->sub.map_size);
	if (self->sub.fd >= 0)
		close(self->sub.fd);
}

TEST_F(tas_submit, validate)
{
	struct tas_sub *s = &self->sub;
	struct drm_tas_node_info *info;
	__u32 i, count, done = 0;
	int ret;

	s->which = variant->array;
	ASSERT_EQ(0, variant->mutate(s));

	ret = tas_ioctl(s->fd, DRM_IOCTL_TAS_SUBMIT_GRAPH, &s->args);
	ASSERT_EQ(variant->expected, ret);

	if (ret) {
		/* Nothing was queued and no syncobj was touched. */
		EXPECT_EQ(0, tas_syncobj_has_fence(s->fd, s->sig));
	} else {
		/* The graph runs to completion, without error. */
		count = s->args.nodes.count;
		info = calloc(count, sizeof(*info));
		ASSERT_NE(NULL, info);
		ASSERT_EQ(0, tas_syncobj_wait_graph(s->fd, s->sig));
		ASSERT_EQ(0, tas_graph_info(s->fd, s->args.graph_id, info,
					    count, &done));
		EXPECT_EQ(1U, done);
		for (i = 0; i < count; i++)
			EXPECT_EQ(0, info[i].error) TH_LOG("node %u", i);
		free(info);
	}

	/* Whatever was submitted, the device still runs graphs. */
	ASSERT_EQ(0, tas_run_nop(s->fd));
}

TEST_F(tas, graph_info_errors)
{
	struct drm_tas_node_info info[3];
	struct drm_tas_graph_info args;
	struct drm_tas_node nodes[2];
	struct drm_tas_sync signal;
	__u64 graph_id, max_stride = 0;
	__u32 syncobj, done = 0;
	void *unmapped;

	ASSERT_EQ(0, tas_get_param(self->fd, DRM_TAS_PARAM_MAX_STRIDE, 0,
				   &max_stride));
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &syncobj));
	tas_node_init(&nodes[0], 0, DRM_TAS_OP_NOP, TAS_NSEC_PER_USEC);
	tas_node_init(&nodes[1], 0, DRM_TAS_OP_NOP, TAS_NSEC_PER_USEC);
	tas_sync_init(&signal, syncobj, DRM_TAS_NODE_GRAPH, 0);
	ASSERT_EQ(0, tas_submit(self->fd, nodes, 2, NULL, 0, NULL, 0, &signal,
				1, &graph_id));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, syncobj));

	ASSERT_EQ(0, tas_graph_info(self->fd, graph_id, info, 2, &done));
	EXPECT_EQ(1U, done);

	EXPECT_EQ(-ENOENT, tas_graph_info(self->fd, graph_id + 1000, info, 2,
					  &done));
	EXPECT_EQ(-EINVAL, tas_graph_info(self->fd, graph_id, info, 1, &done));
	EXPECT_EQ(-EINVAL, tas_graph_info(self->fd, graph_id, info, 3, &done));

	memset(&args, 0, sizeof(args));
	args.graph_id = graph_id;
	tas_array_init(&args.nodes, info, 2, sizeof(info[0]));
	args.flags = DRM_TAS_GRAPH_INFO_RELEASE << 1;
	EXPECT_EQ(-EINVAL, tas_ioctl(self->fd, DRM_IOCTL_TAS_GRAPH_INFO,
				     &args));

	args.flags = 0;
	args.nodes.stride = sizeof(info[0]) - sizeof(__u64);
	EXPECT_EQ(-EINVAL, tas_ioctl(self->fd, DRM_IOCTL_TAS_GRAPH_INFO,
				     &args));
	args.nodes.stride = 0;
	EXPECT_EQ(-EINVAL, tas_ioctl(self->fd, DRM_IOCTL_TAS_GRAPH_INFO,
				     &args));
	args.nodes.stride = max_stride + sizeof(__u64);
	EXPECT_EQ(-EINVAL, tas_ioctl(self->fd, DRM_IOCTL_TAS_GRAPH_INFO,
				     &args));

	/* A larger stride is fine: the second entry lands on info[2]. */
	args.nodes.stride = 2 * sizeof(info[0]);
	memset(info, 0, sizeof(info));
	EXPECT_EQ(0, tas_ioctl(self->fd, DRM_IOCTL_TAS_GRAPH_INFO, &args));
	EXPECT_NE(0ULL, info[0].finished_ns);
	EXPECT_NE(0ULL, info[2].finished_ns);

	/* An array that cannot be written. */
	unmapped = mmap(NULL, tas_page_size(), PROT_READ,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, unmapped);
	tas_array_init(&args.nodes, unmapped, 2, sizeof(info[0]));
	EXPECT_EQ(-EFAULT, tas_ioctl(self->fd, DRM_IOCTL_TAS_GRAPH_INFO,
				     &args));
	munmap(unmapped, tas_page_size());
	tas_array_init(&args.nodes, (void *)8, 2, sizeof(info[0]));
	EXPECT_EQ(-EFAULT, tas_ioctl(self->fd, DRM_IOCTL_TAS_GRAPH_INFO,
				     &args));

	tas_syncobj_destroy(self->fd, syncobj);
}

/* Graph ids are per file: another file does not see this file's graphs. */
TEST_F(tas, graph_info_other_file)
{
	struct drm_tas_node_info info;
	struct drm_tas_sync signal;
	struct drm_tas_node node;
	__u32 syncobj, done;
	__u64 graph_id;
	int fd2;

	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &syncobj));
	tas_node_init(&node, 0, DRM_TAS_OP_NOP, TAS_NSEC_PER_USEC);
	tas_sync_init(&signal, syncobj, DRM_TAS_NODE_GRAPH, 0);
	ASSERT_EQ(0, tas_submit(self->fd, &node, 1, NULL, 0, NULL, 0, &signal,
				1, &graph_id));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, syncobj));

	fd2 = tas_open_render_node();
	ASSERT_LE(0, fd2);
	EXPECT_EQ(-ENOENT, tas_graph_info(fd2, graph_id, &info, 1, &done));
	close(fd2);

	EXPECT_EQ(0, tas_graph_info(self->fd, graph_id, &info, 1, &done));
	tas_syncobj_destroy(self->fd, syncobj);
}

/*
 * GRAPH_INFO does not wait for a submission of the same file: a child
 * process submits graphs of up to 8192 nodes on the file it shares, each of
 * which copies, checks and allocates per node for a second or more (4 s for
 * 16384 nodes on the lockdep kernel in QEMU, 17 s under KASAN), while the
 * parent reads a small graph's results again and again. The slowest read
 * must take less than a quarter of the quickest submission; a read that
 * waits for the submission's lock takes as long as the submission. Two
 * graphs, so that the small graph stays in the history and nothing is
 * evicted meanwhile. The parent pauses 100 us between reads, so that on two
 * CPUs the child and the nodes it leaves in flight, which the file's close
 * cancels, are not starved of one.
 */
#define TAS_BIG_SUBMITS	2
#define TAS_BIG_NODES	8192

TEST_F_TIMEOUT(tas, graph_info_does_not_wait_for_submission, 300)
{
	__u64 max_nodes = 0, graph_id, start, took, slowest = 0, *quickest;
	struct drm_tas_node_info info;
	struct drm_tas_sync signal;
	struct drm_tas_node node, *nodes;
	__u32 syncobj, done, i, reads = 0;
	pid_t pid, waited;
	int status;

	ASSERT_EQ(0, tas_get_param(self->fd, DRM_TAS_PARAM_MAX_NODES, 0, &max_nodes));
	if (max_nodes > TAS_BIG_NODES)
		max_nodes = TAS_BIG_NODES;
	quickest = mmap(NULL, sizeof(*quickest), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, quickest);
	*quickest = ~0ull;
	nodes = calloc(max_nodes, sizeof(*nodes));
	ASSERT_NE(NULL, nodes);
	for (i = 0; i < max_nodes; i++)
		tas_node_init(&nodes[i], i % self->num_rings, DRM_TAS_OP_NOP, 0);
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &syncobj));
	tas_node_init(&node, 0, DRM_TAS_OP_NOP, 0);
	tas_sync_init(&signal, syncobj, DRM_TAS_NODE_GRAPH, 0);
	ASSERT_EQ(0, tas_submit(self->fd, &node, 1, NULL, 0, NULL, 0, &signal,
				1, &graph_id));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, syncobj));

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		for (i = 0; i < TAS_BIG_SUBMITS; i++) {
			start = tas_now_ns();
			if (tas_submit(self->fd, nodes, max_nodes, NULL, 0, NULL, 0,
				       NULL, 0, NULL))
				_exit(1);
			took = tas_now_ns() - start;
			if (took < *quickest)
				*quickest = took;
		}
		_exit(0);
	}
	while ((waited = waitpid(pid, &status, WNOHANG)) == 0) {
		int ret;

		start = tas_now_ns();
		ret = tas_graph_info(self->fd, graph_id, &info, 1, &done);
		took = tas_now_ns() - start;
		if (ret) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			ASSERT_EQ(0, ret);
		}
		if (took > slowest)
			slowest = took;
		reads++;
		usleep(100);
	}
	ASSERT_EQ(pid, waited);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	TH_LOG("%u reads, %u submissions of %llu nodes: slowest read %llu us, quickest %llu us",
	       reads, TAS_BIG_SUBMITS, (unsigned long long)max_nodes,
	       (unsigned long long)slowest / 1000, (unsigned long long)*quickest / 1000);
	EXPECT_LT(slowest, *quickest / 4);
	tas_syncobj_destroy(self->fd, syncobj);
	free(nodes);
	munmap(quickest, sizeof(*quickest));
}

/* The dispatch modes of SUBMIT_GRAPH: the tests below run under each. */
static const __u32 tas_dispatch_flags[] = {
	0,
	DRM_TAS_SUBMIT_FIFO,
};

/* A node's tag: any 64-bit value, which one test also looks for in the trace. */
static __u64 tas_tag(__u32 mode, __u32 node)
{
	return 0xfeedface00000000ull | (__u64)mode << 16 | node;
}

/*
 * Submits a three-node chain over two rings whose nodes carry tas_tag(mode,
 * i), and waits for it. Returns the graph id in @graph_id.
 */
static int tas_run_tagged(int fd, __u32 mode, __u64 *graph_id)
{
	struct drm_tas_node nodes[3];
	struct drm_tas_edge edges[2];
	struct drm_tas_sync signal;
	__u32 syncobj, i;
	int ret;

	ret = tas_syncobj_create(fd, 0, &syncobj);
	if (ret)
		return ret;
	for (i = 0; i < 3; i++) {
		tas_node_init(&nodes[i], i % 2, DRM_TAS_OP_NOP, TAS_NSEC_PER_USEC);
		nodes[i].tag = tas_tag(mode, i);
	}
	tas_edge_init(&edges[0], 0, 1);
	tas_edge_init(&edges[1], 1, 2);
	tas_sync_init(&signal, syncobj, DRM_TAS_NODE_GRAPH, 0);
	ret = tas_submit_flags(fd, tas_dispatch_flags[mode], nodes, 3, edges, 2,
			       NULL, 0, &signal, 1, graph_id);
	if (!ret)
		ret = tas_syncobj_wait_graph(fd, syncobj);
	tas_syncobj_destroy(fd, syncobj);
	return ret;
}

/* GRAPH_INFO gives each node's tag back, all 64 bits of it. */
TEST_F(tas, node_tag_graph_info)
{
	struct drm_tas_node_info info[3];
	__u32 mode, i, done;
	__u64 graph_id;

	for (mode = 0; mode < ARRAY_SIZE(tas_dispatch_flags); mode++) {
		ASSERT_EQ(0, tas_run_tagged(self->fd, mode, &graph_id));
		ASSERT_EQ(0, tas_graph_info(self->fd, graph_id, info, 3, &done));
		EXPECT_EQ(1U, done);
		for (i = 0; i < 3; i++) {
			EXPECT_EQ(tas_tag(mode, i), info[i].tag);
			EXPECT_EQ(0, info[i].error);
		}
	}
}

#define TAS_TRACE_INSTANCE	"/sys/kernel/tracing/instances/tas_test"

static int tas_write_str(const char *path, const char *text)
{
	ssize_t len = strlen(text);
	int fd, ret = 0;

	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return -errno;
	if (write(fd, text, len) != len)
		ret = -EIO;
	close(fd);
	return ret;
}

/* The scheduler's latency events, as tas_trace_events() takes them. */
static const char * const tas_latency_events[] = {
	"gpu_scheduler/drm_sched_job_deps_resolved",
	"gpu_scheduler/drm_sched_job_dispatch",
};

/*
 * Writes @enable to the enable file of each of the @count events
 * ("system/event") in @events of the trace instance; 0 or -errno.
 */
static int tas_trace_events(const char * const *events, unsigned int count,
			    const char *enable)
{
	char path[256];
	unsigned int i;
	int ret;

	for (i = 0; i < count; i++) {
		snprintf(path, sizeof(path),
			 TAS_TRACE_INSTANCE "/events/%s/enable", events[i]);
		ret = tas_write_str(path, enable);
		if (ret)
			return ret;
	}
	return 0;
}

/* The text of the instance's trace buffer, NUL-terminated; free() it. */
static char *tas_trace_read(void)
{
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap);
	ssize_t n;
	int fd;

	fd = open(TAS_TRACE_INSTANCE "/trace", O_RDONLY);
	if (fd < 0 || !buf)
		goto fail;
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += n;
		if (cap - len == 1) {
			char *bigger = realloc(buf, cap * 2);

			if (!bigger)
				goto fail;
			buf = bigger;
			cap *= 2;
		}
	}
	if (n < 0)
		goto fail;
	buf[len] = '\0';
	close(fd);
	return buf;
fail:
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

/* How many lines of @trace are @event events whose last field is tag=@tag. */
static int tas_trace_count(const char *trace, const char *event, __u64 tag)
{
	const char *line, *end, *name;
	char want[64];
	size_t wlen;
	int count = 0;

	wlen = snprintf(want, sizeof(want), " tag=%llu", (unsigned long long)tag);
	for (line = trace; *line; line = *end ? end + 1 : end) {
		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		if ((size_t)(end - line) < wlen || memcmp(end - wlen, want, wlen))
			continue;
		name = strstr(line, event);
		if (name && name < end)
			count++;
	}
	return count;
}

/*
 * The scheduler's latency trace events carry each node's tag: one
 * drm_sched_job_deps_resolved and one drm_sched_job_dispatch event per node,
 * recorded in a trace instance of the test's own.
 */
TEST_F(tas, node_tag_trace_events)
{
	__u32 mode, i;
	__u64 graph_id;
	char *trace;

	if (mkdir(TAS_TRACE_INSTANCE, 0755) && errno != EEXIST)
		SKIP(return, "cannot create a trace instance (tracefs at /sys/kernel/tracing?): %s",
		     strerror(errno));
	ASSERT_EQ(0, tas_write_str(TAS_TRACE_INSTANCE "/trace", ""));
	ASSERT_EQ(0, tas_trace_events(tas_latency_events,
				      ARRAY_SIZE(tas_latency_events), "1"));

	for (mode = 0; mode < ARRAY_SIZE(tas_dispatch_flags); mode++)
		ASSERT_EQ(0, tas_run_tagged(self->fd, mode, &graph_id));

	ASSERT_EQ(0, tas_trace_events(tas_latency_events,
				      ARRAY_SIZE(tas_latency_events), "0"));
	trace = tas_trace_read();
	ASSERT_NE(NULL, trace);
	for (mode = 0; mode < ARRAY_SIZE(tas_dispatch_flags); mode++) {
		for (i = 0; i < 3; i++) {
			__u64 tag = tas_tag(mode, i);

			EXPECT_EQ(1, tas_trace_count(trace, "drm_sched_job_deps_resolved:", tag))
				TH_LOG("mode %u node %u", mode, i);
			EXPECT_EQ(1, tas_trace_count(trace, "drm_sched_job_dispatch:", tag))
				TH_LOG("mode %u node %u", mode, i);
		}
	}
	free(trace);
	EXPECT_EQ(0, rmdir(TAS_TRACE_INSTANCE));
}

/*
 * Submits a graph like tas_submit() and returns its errno, with what
 * SUBMIT_GRAPH blamed in @array (enum drm_tas_error_array) and @index.
 */
static int tas_submit_blame(int fd, const struct drm_tas_node *nodes,
			    __u32 num_nodes, const struct drm_tas_edge *edges,
			    __u32 num_edges, const struct drm_tas_sync *waits,
			    __u32 num_waits, const struct drm_tas_sync *signals,
			    __u32 num_signals, __u32 *array, __u32 *index)
{
	struct drm_tas_submit_graph args;
	int ret;

	memset(&args, 0, sizeof(args));
	/* Output only: what they hold on entry is overwritten. */
	args.error_array = 0xdead;
	args.error_index = 0xbeef;
	tas_array_init(&args.nodes, nodes, num_nodes, sizeof(*nodes));
	tas_array_init(&args.edges, edges, num_edges, sizeof(*edges));
	tas_array_init(&args.waits, waits, num_waits, sizeof(*waits));
	tas_array_init(&args.signals, signals, num_signals, sizeof(*signals));
	ret = tas_ioctl(fd, DRM_IOCTL_TAS_SUBMIT_GRAPH, &args);
	*array = args.error_array;
	*index = args.error_index;
	return ret;
}

/*
 * A rejected submission names the node, edge, wait or signal at fault in
 * error_array and error_index; a successful one, and one that no single
 * element fails, name none.
 */
TEST_F(tas, submit_error_index)
{
	struct drm_tas_node nodes[4];
	struct drm_tas_edge edges[4];
	struct drm_tas_sync syncs[2];
	__u32 array, index, done, i;

	ASSERT_EQ(0, tas_syncobj_create(self->fd, DRM_SYNCOBJ_CREATE_SIGNALED,
					&done));
	for (i = 0; i < 4; i++)
		tas_node_init(&nodes[i], 0, DRM_TAS_OP_NOP, 0);
	tas_edge_init(&edges[0], 0, 1);
	tas_edge_init(&edges[1], 1, 2);
	tas_edge_init(&edges[2], 2, 3);

	EXPECT_EQ(0, tas_submit_blame(self->fd, nodes, 4, edges, 3, NULL, 0,
				      NULL, 0, &array, &index));
	EXPECT_EQ((__u32)DRM_TAS_ERROR_NONE, array);
	EXPECT_EQ(0U, index);

	/* Nodes. */
	nodes[2].ring = self->num_rings;
	EXPECT_EQ(-EINVAL, tas_submit_blame(self->fd, nodes, 4, edges, 3, NULL,
					    0, NULL, 0, &array, &index));
	EXPECT_EQ((__u32)DRM_TAS_ERROR_NODES, array);
	EXPECT_EQ(2U, index);
	nodes[2].ring = 0;
	nodes[3].flags = 1;
	EXPECT_EQ(-EINVAL, tas_submit_blame(self->fd, nodes, 4, edges, 3, NULL,
					    0, NULL, 0, &array, &index));
	EXPECT_EQ((__u32)DRM_TAS_ERROR_NODES, array);
	EXPECT_EQ(3U, index);
	nodes[3].flags = 0;
	nodes[1].op = DRM_TAS_OP_FILL;
	tas_buf_init(&nodes[1].dst, 0xfffff, 0, 4096);
	EXPECT_EQ(-ENOENT, tas_submit_blame(self->fd, nodes, 4, edges, 3, NULL,
					    0, NULL, 0, &array, &index));
	EXPECT_EQ((__u32)DRM_TAS_ERROR_NODES, array);
	EXPECT_EQ(1U, index);
	tas_node_init(&nodes[1], 0, DRM_TAS_OP_NOP, 0);

	/* Edges: a self-loop, an end out of range, the later of two equal. */
	tas_edge_init(&edges[1], 2, 2);
	EXPECT_EQ(-EINVAL, tas_submit_blame(self->fd, nodes, 4, edges, 3, NULL,
					    0, NULL, 0, &array, &index));
	EXPECT_EQ((__u32)DRM_TAS_ERROR_EDGES, array);
	EXPECT_EQ(1U, index);
	tas_edge_init(&edges[1], 1, 2);
	tas_edge_init(&edges[2], 2, 4);
	EXPECT_EQ(-EINVAL, tas_submit_blame(self->fd, nodes, 4, edges, 3, NULL,
					    0, NULL, 0, &array, &index));
	EXPECT_EQ((__u32)DRM_TAS_ERROR_EDGES, array);
	EXPECT_EQ(2U, index);
	tas_edge_init(&edges[2], 0, 1);
	EXPECT_EQ(-EINVAL, tas_submit_blame(self->fd, nodes, 4, edges, 3, NULL,
					    0, NULL, 0, &array, &index));
	EXPECT_EQ((__u32)DRM_TAS_ERROR_EDGES, array);
	EXPECT_EQ(2U, index);

	/* A cycle 1 -> 2 -> 3 -> 1 behind node 0: one of its edges. */
	tas_edge_init(&edges[2], 2, 3);
	tas_edge_init(&edges[3], 3, 1);
	EXPECT_EQ(-ELOOP, tas_submit_blame(self->fd, nodes, 4, edges, 4, NULL,
					   0, NULL, 0, &array, &index));
	EXPECT_EQ((__u32)DRM_TAS_ERROR_EDGES, array);
	EXPECT_GE(index, 1U);
	EXPECT_LE(index, 3U);

	/* Waits and signals. */
	tas_sync_init(&syncs[0], done, 0, 0);
	tas_sync_init(&syncs[1], done + 1000, DRM_TAS_NODE_GRAPH, 0);
	EXPECT_EQ(-ENOENT, tas_submit_blame(self->fd, nodes, 4, edges, 3,
					    syncs, 2, NULL, 0, &array, &index));
	EXPECT_EQ((__u32)DRM_TAS_ERROR_WAITS, array);
	EXPECT_EQ(1U, index);
	tas_sync_init(&syncs[1], done, 4, 0);
	EXPECT_EQ(-EINVAL, tas_submit_blame(self->fd, nodes, 4, edges, 3, NULL,
					    0, syncs, 2, &array, &index));
	EXPECT_EQ((__u32)DRM_TAS_ERROR_SIGNALS, array);
	EXPECT_EQ(1U, index);

	/* No single element: more nodes than the limit. */
	EXPECT_EQ(-E2BIG, tas_submit_blame(self->fd, nodes, 16385, edges, 3,
					   NULL, 0, NULL, 0, &array, &index));
	EXPECT_EQ((__u32)DRM_TAS_ERROR_NONE, array);
	EXPECT_EQ(0U, index);
	tas_syncobj_destroy(self->fd, done);
}

/* A file keeps its last 64 graphs. */
#define TAS_KEPT_GRAPHS		64

TEST_F(tas, graph_info_keeps_last_64)
{
	__u64 ids[TAS_KEPT_GRAPHS + 1];
	struct drm_tas_node_info info;
	struct drm_tas_sync signal;
	struct drm_tas_node node;
	__u32 syncobj, done;
	unsigned int i, j;

	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &syncobj));
	tas_node_init(&node, 0, DRM_TAS_OP_NOP, TAS_NSEC_PER_USEC);
	tas_sync_init(&signal, syncobj, DRM_TAS_NODE_GRAPH, 0);

	for (i = 0; i < ARRAY_SIZE(ids); i++) {
		ASSERT_EQ(0, tas_submit(self->fd, &node, 1, NULL, 0, NULL, 0,
					&signal, 1, &ids[i]));
		for (j = 0; j < i; j++)
			ASSERT_NE(ids[j], ids[i]);
	}
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, syncobj));

	EXPECT_EQ(-ENOENT, tas_graph_info(self->fd, ids[0], &info, 1, &done));
	for (i = 1; i < ARRAY_SIZE(ids); i++)
		EXPECT_EQ(0, tas_graph_info(self->fd, ids[i], &info, 1, &done))
			TH_LOG("graph %u", i);
	EXPECT_EQ(1U, done);

	tas_syncobj_destroy(self->fd, syncobj);
}

/*
 * C = A x B with tiles: A is split into TAS_MM_BLOCKS x TAS_MM_BLOCKS tiles,
 * stored tile after tile so that each is a contiguous matrix; B into row
 * blocks, contiguous in row-major order. The MATMUL of tile (i, k) of A by
 * row block k of B is the partial product (i, k), a row block of C's size;
 * a tree of ADDs sums the partial products of row block i of C.
 */
#define TAS_MM_N		64
#define TAS_MM_BLOCKS		4	/* a power of two */
#define TAS_MM_TILE		(TAS_MM_N / TAS_MM_BLOCKS)
#define TAS_MM_BYTES		(sizeof(__u32) * TAS_MM_N * TAS_MM_N)
#define TAS_MM_TILE_BYTES	(sizeof(__u32) * TAS_MM_TILE * TAS_MM_TILE)
#define TAS_MM_ROWS_BYTES	(sizeof(__u32) * TAS_MM_TILE * TAS_MM_N)
#define TAS_MM_MATMULS		(TAS_MM_BLOCKS * TAS_MM_BLOCKS)
#define TAS_MM_ADDS		(TAS_MM_BLOCKS * (TAS_MM_BLOCKS - 1))
#define TAS_MM_NODES		(TAS_MM_MATMULS + TAS_MM_ADDS)
#define TAS_MM_EDGES		(2 * TAS_MM_ADDS)
/* Partial products, then the partial sums that are not a block of C. */
#define TAS_MM_SCRATCH_BYTES \
	((TAS_MM_MATMULS + TAS_MM_BLOCKS * (TAS_MM_BLOCKS - 2)) * \
	 TAS_MM_ROWS_BYTES)

TEST_F(tas, matmul_tiled)
{
	static __u32 a[TAS_MM_N * TAS_MM_N], b[TAS_MM_N * TAS_MM_N];
	static __u32 ref[TAS_MM_N * TAS_MM_N];
	struct drm_tas_node_info info[TAS_MM_NODES];
	struct drm_tas_node nodes[TAS_MM_NODES];
	struct drm_tas_edge edges[TAS_MM_EDGES];
	__u32 a_bo, b_bo, c_bo, s_bo, syncobj, done = 0;
	__u32 *a_map, *b_map, *c_map, *s_map;
	__u32 i, k, r, col, n = 0, e = 0, seed = 0x5eed;
	__u64 scratch = (__u64)TAS_MM_MATMULS * TAS_MM_ROWS_BYTES;
	struct drm_tas_sync signal;
	__u64 graph_id;

	for (i = 0; i < TAS_MM_N * TAS_MM_N; i++) {
		/* Small values of both signs; arithmetic wraps anyway. */
		a[i] = (__u32)((int)(tas_rand(&seed) % 201) - 100);
		b[i] = (__u32)((int)(tas_rand(&seed) % 201) - 100);
	}
	for (r = 0; r < TAS_MM_N; r++) {
		for (col = 0; col < TAS_MM_N; col++) {
			__u32 sum = 0;

			for (k = 0; k < TAS_MM_N; k++)
				sum += a[r * TAS_MM_N + k] *
				       b[k * TAS_MM_N + col];
			ref[r * TAS_MM_N + col] = sum;
		}
	}

	ASSERT_EQ(0, tas_bo_create_map(self->fd, TAS_MM_BYTES, &a_bo,
				       (void **)&a_map));
	ASSERT_EQ(0, tas_bo_create_map(self->fd, TAS_MM_BYTES, &b_bo,
				       (void **)&b_map));
	ASSERT_EQ(0, tas_bo_create_map(self->fd, TAS_MM_BYTES, &c_bo,
				       (void **)&c_map));
	ASSERT_EQ(0, tas_bo_create_map(self->fd, TAS_MM_SCRATCH_BYTES, &s_bo,
				       (void **)&s_map));
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &syncobj));

	/* A, tile after tile; B in row-major order. */
	for (i = 0; i < TAS_MM_BLOCKS; i++)
		for (k = 0; k < TAS_MM_BLOCKS; k++)
			for (r = 0; r < TAS_MM_TILE; r++)
				for (col = 0; col < TAS_MM_TILE; col++)
					a_map[(i * TAS_MM_BLOCKS + k) *
					      TAS_MM_TILE * TAS_MM_TILE +
					      r * TAS_MM_TILE + col] =
						a[(i * TAS_MM_TILE + r) *
						  TAS_MM_N +
						  k * TAS_MM_TILE + col];
	memcpy(b_map, b, TAS_MM_BYTES);

	/* Node i * BLOCKS + k: partial product (i, k). */
	for (i = 0; i < TAS_MM_BLOCKS; i++) {
		for (k = 0; k < TAS_MM_BLOCKS; k++) {
			struct drm_tas_node *node = &nodes[n];

			tas_node_init(node, n % self->num_rings,
				      DRM_TAS_OP_MATMUL,
				      50 * TAS_NSEC_PER_USEC);
			node->imm = tas_matmul_imm(TAS_MM_TILE, TAS_MM_N,
						   TAS_MM_TILE);
			tas_buf_init(&node->src[0], a_bo,
				     (i * TAS_MM_BLOCKS + k) *
				     TAS_MM_TILE_BYTES, TAS_MM_TILE_BYTES);
			tas_buf_init(&node->src[1], b_bo,
				     k * TAS_MM_ROWS_BYTES, TAS_MM_ROWS_BYTES);
			tas_buf_init(&node->dst, s_bo, n * TAS_MM_ROWS_BYTES,
				     TAS_MM_ROWS_BYTES);
			n++;
		}
	}

	/* Per row block, a tree of ADDs, the last one into C. */
	for (i = 0; i < TAS_MM_BLOCKS; i++) {
		__u32 producer[TAS_MM_BLOCKS];
		__u64 offset[TAS_MM_BLOCKS];
		__u32 count = TAS_MM_BLOCKS, j;

		for (k = 0; k < TAS_MM_BLOCKS; k++) {
			producer[k] = i * TAS_MM_BLOCKS + k;
			offset[k] = producer[k] * TAS_MM_ROWS_BYTES;
		}
		for (; count > 1; count /= 2) {
			for (j = 0; j < count / 2; j++) {
				struct drm_tas_node *node = &nodes[n];

				tas_node_init(node, n % self->num_rings,
					      DRM_TAS_OP_ADD,
					      20 * TAS_NSEC_PER_USEC);
				tas_buf_init(&node->src[0], s_bo,
					     offset[2 * j], TAS_MM_ROWS_BYTES);
				tas_buf_init(&node->src[1], s_bo,
					     offset[2 * j + 1],
					     TAS_MM_ROWS_BYTES);
				if (count == 2) {
					tas_buf_init(&node->dst, c_bo,
						     i * TAS_MM_ROWS_BYTES,
						     TAS_MM_ROWS_BYTES);
				} else {
					tas_buf_init(&node->dst, s_bo, scratch,
						     TAS_MM_ROWS_BYTES);
					offset[j] = scratch;
					scratch += TAS_MM_ROWS_BYTES;
				}
				tas_edge_init(&edges[e++], producer[2 * j], n);
				tas_edge_init(&edges[e++], producer[2 * j + 1],
					      n);
				producer[j] = n++;
			}
		}
	}
	ASSERT_EQ((__u32)TAS_MM_NODES, n);
	ASSERT_EQ((__u32)TAS_MM_EDGES, e);
	ASSERT_EQ((__u64)TAS_MM_SCRATCH_BYTES, scratch);

	tas_sync_init(&signal, syncobj, DRM_TAS_NODE_GRAPH, 0);
	ASSERT_EQ(0, tas_submit(self->fd, nodes, n, edges, e, NULL, 0, &signal,
				1, &graph_id));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, syncobj));

	ASSERT_EQ(0, tas_graph_info(self->fd, graph_id, info, n, &done));
	EXPECT_EQ(1U, done);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(0, info[i].error) TH_LOG("node %u", i);
		EXPECT_EQ(nodes[i].ring, info[i].ring) TH_LOG("node %u", i);
	}

	for (i = 0; i < TAS_MM_N * TAS_MM_N; i++)
		ASSERT_EQ(ref[i], c_map[i])
			TH_LOG("C[%u][%u]", i / TAS_MM_N, i % TAS_MM_N);

	tas_syncobj_destroy(self->fd, syncobj);
	munmap(s_map, TAS_MM_SCRATCH_BYTES);
	munmap(c_map, TAS_MM_BYTES);
	munmap(b_map, TAS_MM_BYTES);
	munmap(a_map, TAS_MM_BYTES);
}

#define TAS_FC_RANGE		4096

/* FILL x[0, 4K) -> COPY to x[8K, 12K) -> COPY to y[4K, 8K). */
TEST_F(tas, fill_copy_chain)
{
	const __u32 value = 0xa5a5f00d;
	struct drm_tas_node nodes[3];
	struct drm_tas_edge edges[2];
	struct drm_tas_sync signal;
	__u32 x_bo, y_bo, syncobj;
	__u32 *x, *y;
	__u32 i, words = TAS_FC_RANGE / sizeof(__u32);

	ASSERT_EQ(0, tas_bo_create_map(self->fd, 3 * TAS_FC_RANGE, &x_bo,
				       (void **)&x));
	ASSERT_EQ(0, tas_bo_create_map(self->fd, 2 * TAS_FC_RANGE, &y_bo,
				       (void **)&y));
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &syncobj));

	tas_node_init(&nodes[0], 0, DRM_TAS_OP_FILL, 20 * TAS_NSEC_PER_USEC);
	nodes[0].imm = value;
	tas_buf_init(&nodes[0].dst, x_bo, 0, TAS_FC_RANGE);

	tas_node_init(&nodes[1], 1 % self->num_rings, DRM_TAS_OP_COPY,
		      20 * TAS_NSEC_PER_USEC);
	tas_buf_init(&nodes[1].src[0], x_bo, 0, TAS_FC_RANGE);
	tas_buf_init(&nodes[1].dst, x_bo, 2 * TAS_FC_RANGE, TAS_FC_RANGE);

	tas_node_init(&nodes[2], 2 % self->num_rings, DRM_TAS_OP_COPY,
		      20 * TAS_NSEC_PER_USEC);
	tas_buf_init(&nodes[2].src[0], x_bo, 2 * TAS_FC_RANGE, TAS_FC_RANGE);
	tas_buf_init(&nodes[2].dst, y_bo, TAS_FC_RANGE, TAS_FC_RANGE);

	tas_edge_init(&edges[0], 0, 1);
	tas_edge_init(&edges[1], 1, 2);
	tas_sync_init(&signal, syncobj, DRM_TAS_NODE_GRAPH, 0);

	ASSERT_EQ(0, tas_submit(self->fd, nodes, 3, edges, 2, NULL, 0, &signal,
				1, NULL));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, syncobj));

	for (i = 0; i < words; i++) {
		ASSERT_EQ(value, x[i]) TH_LOG("x word %u", i);
		ASSERT_EQ(0U, x[words + i]) TH_LOG("x word %u", words + i);
		ASSERT_EQ(value, x[2 * words + i])
			TH_LOG("x word %u", 2 * words + i);
		ASSERT_EQ(0U, y[i]) TH_LOG("y word %u", i);
		ASSERT_EQ(value, y[words + i]) TH_LOG("y word %u", words + i);
	}

	tas_syncobj_destroy(self->fd, syncobj);
	munmap(y, 2 * TAS_FC_RANGE);
	munmap(x, 3 * TAS_FC_RANGE);
}

#define TAS_UA_BYTES		4096
#define TAS_UA_COPY		1021
#define TAS_UA_ADD_WORDS	16

/*
 * Operands at offsets that are not multiples of 4: a copy of an odd length
 * between offsets of different alignments, and an add whose three operands
 * are unaligned words, give what the same operations give on the CPU.
 */
TEST_F(tas, unaligned_operands)
{
	__u8 *m, ref[TAS_UA_BYTES];
	struct drm_tas_node nodes[3];
	struct drm_tas_edge edges[2];
	struct drm_tas_sync signal;
	__u32 bo, syncobj, i, a, b;

	ASSERT_EQ(0, tas_bo_create_map(self->fd, TAS_UA_BYTES, &bo,
				       (void **)&m));
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &syncobj));
	for (i = 0; i < TAS_UA_BYTES; i++) {
		ref[i] = i * 7 + 3;
		m[i] = ref[i];
	}

	/* [1, 1 + 1021) -> [1506, ...) and [2050, ...) -> [3, ...) */
	tas_node_init(&nodes[0], 0, DRM_TAS_OP_COPY, 0);
	tas_buf_init(&nodes[0].src[0], bo, 1, TAS_UA_COPY);
	tas_buf_init(&nodes[0].dst, bo, 1506, TAS_UA_COPY);
	memmove(ref + 1506, ref + 1, TAS_UA_COPY);
	tas_node_init(&nodes[1], 1 % self->num_rings, DRM_TAS_OP_COPY, 0);
	tas_buf_init(&nodes[1].src[0], bo, 2050, TAS_UA_COPY);
	tas_buf_init(&nodes[1].dst, bo, 3, TAS_UA_COPY);
	memmove(ref + 3, ref + 2050, TAS_UA_COPY);
	/* [3203, +64) = [3301, +64) + [3402, +64), word by word */
	tas_node_init(&nodes[2], 2 % self->num_rings, DRM_TAS_OP_ADD, 0);
	tas_buf_init(&nodes[2].dst, bo, 3203, 4 * TAS_UA_ADD_WORDS);
	tas_buf_init(&nodes[2].src[0], bo, 3301, 4 * TAS_UA_ADD_WORDS);
	tas_buf_init(&nodes[2].src[1], bo, 3402, 4 * TAS_UA_ADD_WORDS);
	for (i = 0; i < TAS_UA_ADD_WORDS; i++) {
		memcpy(&a, ref + 3301 + 4 * i, 4);
		memcpy(&b, ref + 3402 + 4 * i, 4);
		a += b;
		memcpy(ref + 3203 + 4 * i, &a, 4);
	}
	tas_edge_init(&edges[0], 0, 1);
	tas_edge_init(&edges[1], 1, 2);
	tas_sync_init(&signal, syncobj, DRM_TAS_NODE_GRAPH, 0);
	ASSERT_EQ(0, tas_submit(self->fd, nodes, 3, edges, 2, NULL, 0, &signal,
				1, NULL));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, syncobj));
	for (i = 0; i < TAS_UA_BYTES; i++)
		ASSERT_EQ(ref[i], m[i]) TH_LOG("byte %u", i);

	tas_syncobj_destroy(self->fd, syncobj);
	munmap(m, TAS_UA_BYTES);
}

#define TAS_DAG_NODES		50
#define TAS_DAG_MAX_EDGES	(TAS_DAG_NODES * (TAS_DAG_NODES - 1) / 2)

/*
 * A random DAG of NOPs: every node starts after all its predecessors
 * finished, and the timestamps of each node are in order.
 */
TEST_F(tas, ordering_random_dag)
{
	struct drm_tas_node_info info[TAS_DAG_NODES];
	struct drm_tas_node nodes[TAS_DAG_NODES];
	struct drm_tas_edge edges[TAS_DAG_MAX_EDGES];
	__u32 i, j, e = 0, seed = 0x7a5, syncobj, done = 0;
	struct drm_tas_sync signal;
	__u64 graph_id;

	for (j = 0; j < TAS_DAG_NODES; j++) {
		tas_node_init(&nodes[j], tas_rand(&seed) % self->num_rings,
			      DRM_TAS_OP_NOP,
			      100 * TAS_NSEC_PER_USEC +
			      tas_rand(&seed) % (900 * TAS_NSEC_PER_USEC));
		nodes[j].class = tas_rand(&seed) % TAS_NUM_CLASSES;
		for (i = 0; i < j; i++)
			if (tas_rand(&seed) % 8 == 0)
				tas_edge_init(&edges[e++], i, j);
	}
	TH_LOG("%u nodes, %u edges", TAS_DAG_NODES, e);

	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &syncobj));
	tas_sync_init(&signal, syncobj, DRM_TAS_NODE_GRAPH, 0);
	ASSERT_EQ(0, tas_submit(self->fd, nodes, TAS_DAG_NODES, edges, e, NULL,
				0, &signal, 1, &graph_id));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, syncobj));
	ASSERT_EQ(0, tas_graph_info(self->fd, graph_id, info, TAS_DAG_NODES,
				    &done));
	ASSERT_EQ(1U, done);

	for (i = 0; i < TAS_DAG_NODES; i++) {
		const struct drm_tas_node_info *n = &info[i];

		EXPECT_EQ(0, n->error) TH_LOG("node %u", i);
		EXPECT_EQ(nodes[i].ring, n->ring) TH_LOG("node %u", i);
		EXPECT_NE(0ULL, n->queued_ns) TH_LOG("node %u", i);
		EXPECT_LE(n->queued_ns, n->ready_ns) TH_LOG("node %u", i);
		EXPECT_LE(n->ready_ns, n->started_ns) TH_LOG("node %u", i);
		EXPECT_LE(n->started_ns, n->finished_ns) TH_LOG("node %u", i);
	}
	for (i = 0; i < e; i++) {
		const struct drm_tas_node_info *from = &info[edges[i].from];
		const struct drm_tas_node_info *to = &info[edges[i].to];

		EXPECT_GE(to->started_ns, from->finished_ns)
			TH_LOG("edge %u -> %u", edges[i].from, edges[i].to);
	}

	tas_syncobj_destroy(self->fd, syncobj);
}

/*
 * A graph waits on a timeline point that another graph signals: its node
 * starts only after the node of the first graph finished.
 */
TEST_F(tas, syncobj_wait_point_of_other_graph)
{
	struct drm_tas_node_info info0, info1;
	struct drm_tas_sync wait, signals[2];
	struct drm_tas_node node;
	__u32 timeline, syncobj, done = 0;
	__u64 id0, id1;

	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &timeline));
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &syncobj));

	tas_node_init(&node, 0, DRM_TAS_OP_NOP, 100 * TAS_NSEC_PER_MSEC);
	tas_sync_init(&signals[0], timeline, DRM_TAS_NODE_GRAPH, 1);
	ASSERT_EQ(0, tas_submit(self->fd, &node, 1, NULL, 0, NULL, 0,
				&signals[0], 1, &id0));

	/* Point 1 is submitted now, though not signalled. */
	tas_node_init(&node, 1 % self->num_rings, DRM_TAS_OP_NOP,
		      TAS_NSEC_PER_MSEC);
	tas_sync_init(&wait, timeline, DRM_TAS_NODE_GRAPH, 1);
	tas_sync_init(&signals[1], syncobj, DRM_TAS_NODE_GRAPH, 0);
	ASSERT_EQ(0, tas_submit(self->fd, &node, 1, NULL, 0, &wait, 1,
				&signals[1], 1, &id1));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, syncobj));

	ASSERT_EQ(0, tas_graph_info(self->fd, id0, &info0, 1, &done));
	EXPECT_EQ(1U, done);
	ASSERT_EQ(0, tas_graph_info(self->fd, id1, &info1, 1, &done));
	EXPECT_EQ(1U, done);
	EXPECT_EQ(0, info0.error);
	EXPECT_EQ(0, info1.error);
	EXPECT_NE(0ULL, info0.finished_ns);
	EXPECT_GE(info1.started_ns, info0.finished_ns);

	tas_syncobj_destroy(self->fd, syncobj);
	tas_syncobj_destroy(self->fd, timeline);
}

/*
 * Opens a sw_sync timeline and imports its fence at value 1 into a new binary
 * syncobj @syncobj, which signals once the timeline is incremented. Returns
 * the timeline's file descriptor, or -errno (-ENOENT without sw_sync).
 */
static int tas_sw_sync_syncobj(int fd, __u32 *syncobj)
{
	struct sw_sync_create_fence_data fence = {
		.value = 1,
		.name = "tas_test",
	};
	int timeline, ret;

	timeline = open(SW_SYNC_PATH, O_RDWR | O_CLOEXEC);
	if (timeline < 0)
		return -errno;
	ret = tas_ioctl(timeline, SW_SYNC_IOC_CREATE_FENCE, &fence);
	if (!ret)
		ret = tas_syncobj_create(fd, 0, syncobj);
	if (!ret) {
		ret = tas_syncobj_import_sync_file(fd, *syncobj, fence.fence);
		if (ret)
			tas_syncobj_destroy(fd, *syncobj);
	}
	if (fence.fence >= 0 && !ret)
		close(fence.fence);
	if (ret) {
		close(timeline);
		return ret;
	}
	return timeline;
}

/* A graph waits on a sw_sync fence, imported into a binary syncobj. */
TEST_F(tas, syncobj_wait_sw_sync_fence)
{
	struct drm_tas_node_info info;
	struct drm_tas_sync wait, signal;
	struct drm_tas_node node;
	__u32 in, out, done = 1, inc = 1;
	__u64 graph_id, before_inc;
	int timeline;

	timeline = tas_sw_sync_syncobj(self->fd, &in);
	if (timeline == -ENOENT)
		SKIP(return, "no %s (CONFIG_SW_SYNC, debugfs mounted?)",
		     SW_SYNC_PATH);
	ASSERT_LE(0, timeline);
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &out));

	tas_node_init(&node, 0, DRM_TAS_OP_NOP, TAS_NSEC_PER_MSEC);
	tas_sync_init(&wait, in, DRM_TAS_NODE_GRAPH, 0);
	tas_sync_init(&signal, out, DRM_TAS_NODE_GRAPH, 0);
	ASSERT_EQ(0, tas_submit(self->fd, &node, 1, NULL, 0, &wait, 1, &signal,
				1, &graph_id));

	/* Blocked on the fence. */
	usleep(50 * 1000);
	ASSERT_EQ(0, tas_graph_info(self->fd, graph_id, &info, 1, &done));
	EXPECT_EQ(0U, done);
	EXPECT_EQ(0ULL, info.started_ns);
	EXPECT_EQ(-ETIME, tas_syncobj_wait(self->fd, out,
					   DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
					   0));

	before_inc = tas_now_ns();
	ASSERT_EQ(0, tas_ioctl(timeline, SW_SYNC_IOC_INC, &inc));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, out));
	ASSERT_EQ(0, tas_graph_info(self->fd, graph_id, &info, 1, &done));
	EXPECT_EQ(1U, done);
	EXPECT_EQ(0, info.error);
	EXPECT_GE(info.started_ns, before_inc);

	close(timeline);
	tas_syncobj_destroy(self->fd, out);
	tas_syncobj_destroy(self->fd, in);
}

/*
 * A chain of three NOPs where node 1 signals timeline point 7: the point
 * signals when node 1 finishes, before node 2 does. Node 2 also waits for a
 * sw_sync fence that the test signals only once the point has woken it, so
 * the order does not depend on how fast the guest runs.
 */
TEST_F(tas, syncobj_signal_node_point)
{
	struct drm_tas_node_info info[3];
	struct drm_tas_node nodes[3];
	struct drm_tas_edge edges[2];
	struct drm_tas_sync signals[2], wait;
	__u32 timeline, syncobj, in, i, done = 0, inc = 1;
	__u64 graph_id, woken;
	int sw_timeline;

	sw_timeline = tas_sw_sync_syncobj(self->fd, &in);
	if (sw_timeline == -ENOENT)
		SKIP(return, "no %s (CONFIG_SW_SYNC, debugfs mounted?)",
		     SW_SYNC_PATH);
	ASSERT_LE(0, sw_timeline);
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &timeline));
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &syncobj));
	for (i = 0; i < 3; i++)
		tas_node_init(&nodes[i], i % self->num_rings, DRM_TAS_OP_NOP,
			      20 * TAS_NSEC_PER_MSEC);
	tas_edge_init(&edges[0], 0, 1);
	tas_edge_init(&edges[1], 1, 2);
	tas_sync_init(&wait, in, 2, 0);
	tas_sync_init(&signals[0], timeline, 1, 7);
	tas_sync_init(&signals[1], syncobj, DRM_TAS_NODE_GRAPH, 0);

	ASSERT_EQ(0, tas_submit(self->fd, nodes, 3, edges, 2, &wait, 1,
				signals, 2, &graph_id));
	ASSERT_EQ(0, tas_syncobj_timeline_wait(self->fd, timeline, 7,
					       TAS_WAIT_NS));
	ASSERT_EQ(0, tas_graph_info(self->fd, graph_id, info, 3, &done));
	EXPECT_EQ(0U, done);
	EXPECT_NE(0ULL, info[1].finished_ns);
	EXPECT_EQ(0, info[1].error);
	EXPECT_EQ(0ULL, info[2].started_ns);
	woken = tas_now_ns();
	EXPECT_LE(info[1].finished_ns, woken);
	ASSERT_EQ(0, tas_ioctl(sw_timeline, SW_SYNC_IOC_INC, &inc));

	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, syncobj));
	ASSERT_EQ(0, tas_graph_info(self->fd, graph_id, info, 3, &done));
	EXPECT_EQ(1U, done);
	EXPECT_GE(info[1].started_ns, info[0].finished_ns);
	EXPECT_GE(info[2].started_ns, info[1].finished_ns);
	/* The point did not wait for the whole graph. */
	EXPECT_GT(info[2].finished_ns, woken);

	close(sw_timeline);
	tas_syncobj_destroy(self->fd, syncobj);
	tas_syncobj_destroy(self->fd, timeline);
	tas_syncobj_destroy(self->fd, in);
}

/*
 * A node that runs longer than the job timeout fails with -ETIMEDOUT; its
 * successor does not run and inherits the error; an independent node
 * completes; the whole-graph signal carries the error, the signal of the
 * independent node does not.
 *
 * Run many times with the driver's job_timeout_ms at 10, this races the
 * timeout handler against the ring that executes the node. With a timeout
 * under 100 ms, a (virtual) machine that stalls for longer than the timeout
 * may time node 0 out before its ring starts it, or time out the
 * independent node too: then only the errors of nodes 0 and 1 and of the
 * graph are checked.
 */
TEST_F(tas, error_timeout_propagates)
{
	struct drm_tas_node_info info[3];
	struct drm_tas_node nodes[3];
	struct drm_tas_sync signals[2];
	struct drm_tas_edge edge;
	__u64 timeout = 0, max_duration = 0, graph_id;
	__u32 graph_sig, node_sig, done = 0;
	int status = 0;
	bool all;

	ASSERT_EQ(0, tas_get_param(self->fd, DRM_TAS_PARAM_JOB_TIMEOUT_NS, 0,
				   &timeout));
	ASSERT_EQ(0, tas_get_param(self->fd, DRM_TAS_PARAM_MAX_DURATION_NS, 0,
				   &max_duration));
	if (!timeout || timeout > 2 * TAS_NSEC_PER_SEC)
		SKIP(return, "job timeout of %llu ns, more than 2 s",
		     (unsigned long long)timeout);
	if (max_duration <= timeout)
		SKIP(return, "no duration above the job timeout");
	all = timeout >= 100 * TAS_NSEC_PER_MSEC;

	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &graph_sig));
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &node_sig));

	/*
	 * The longest duration the device takes. The timeout handler runs
	 * one timeout after the node started, or two if it first fires before
	 * the node is marked as started. But when the host stops a guest's
	 * CPUs for seconds (QEMU without KVM on a busy machine), the handler
	 * and the end of the node fall due together once the guest resumes,
	 * and the node may end first: the longer it is, the longer a stall
	 * this needs. A node that is stopped costs only the timeout.
	 */
	tas_node_init(&nodes[0], 0, DRM_TAS_OP_NOP, max_duration);
	tas_node_init(&nodes[1], 0, DRM_TAS_OP_NOP, TAS_NSEC_PER_MSEC);
	tas_node_init(&nodes[2], 1 % self->num_rings, DRM_TAS_OP_NOP,
		      TAS_NSEC_PER_MSEC);
	tas_edge_init(&edge, 0, 1);
	tas_sync_init(&signals[0], graph_sig, DRM_TAS_NODE_GRAPH, 0);
	tas_sync_init(&signals[1], node_sig, 2, 0);

	ASSERT_EQ(0, tas_submit(self->fd, nodes, 3, &edge, 1, NULL, 0, signals,
				2, &graph_id));
	ASSERT_EQ(0, tas_syncobj_wait(self->fd, graph_sig,
				      DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
				      max_duration + TAS_WAIT_NS));
	ASSERT_EQ(0, tas_graph_info(self->fd, graph_id, info, 3, &done));
	EXPECT_EQ(1U, done);
	TH_LOG("node 0 ran %llu ms, the timeout is %llu ms",
	       (unsigned long long)(info[0].finished_ns - info[0].started_ns) /
		       TAS_NSEC_PER_MSEC,
	       (unsigned long long)timeout / TAS_NSEC_PER_MSEC);

	EXPECT_EQ(-ETIMEDOUT, info[0].error);
	EXPECT_EQ(-ETIMEDOUT, info[1].error);
	EXPECT_EQ(0ULL, info[1].started_ns);
	ASSERT_EQ(0, tas_syncobj_fence_status(self->fd, graph_sig, &status));
	EXPECT_EQ(-ETIMEDOUT, status);
	if (all) {
		EXPECT_NE(0ULL, info[0].started_ns);
		EXPECT_NE(0ULL, info[0].finished_ns);
		EXPECT_EQ(0, info[2].error);
		EXPECT_NE(0ULL, info[2].finished_ns);
		ASSERT_EQ(0, tas_syncobj_fence_status(self->fd, node_sig,
						      &status));
		EXPECT_EQ(1, status);
	}

	tas_syncobj_destroy(self->fd, node_sig);
	tas_syncobj_destroy(self->fd, graph_sig);
}

/*
 * Closing a file with a large graph in flight neither hangs, nor waits for
 * the graph's work, nor disturbs the other files: one chain of NOPs per
 * ring, TAS_CLOSE_WORK_NS of work each, of which close() must take less
 * than half. Tearing down the 4096 nodes alone takes seconds on a KASAN
 * kernel in QEMU (11 s seen).
 */
#define TAS_CLOSE_WORK_NS	(120 * TAS_NSEC_PER_SEC)

TEST_F_TIMEOUT(tas, close_with_graph_in_flight, 240)
{
	struct drm_tas_node *nodes;
	struct drm_tas_edge *edges;
	struct drm_tas_sync signal;
	__u64 max_nodes = 0, start, took, duration;
	__u32 i, count, syncobj;
	int fd2;

	ASSERT_EQ(0, tas_get_param(self->fd, DRM_TAS_PARAM_MAX_NODES, 0,
				   &max_nodes));
	count = max_nodes < 4096 ? max_nodes : 4096;
	ASSERT_GT(count, self->num_rings);
	nodes = calloc(count, sizeof(*nodes));
	edges = calloc(count, sizeof(*edges));
	ASSERT_NE(NULL, nodes);
	ASSERT_NE(NULL, edges);

	/* One chain of NOPs per ring. */
	duration = TAS_CLOSE_WORK_NS / (count / self->num_rings);
	for (i = 0; i < count; i++)
		tas_node_init(&nodes[i], i % self->num_rings, DRM_TAS_OP_NOP,
			      duration);
	for (i = self->num_rings; i < count; i++)
		tas_edge_init(&edges[i - self->num_rings],
			      i - self->num_rings, i);

	fd2 = tas_open_render_node();
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, tas_syncobj_create(fd2, 0, &syncobj));
	tas_sync_init(&signal, syncobj, DRM_TAS_NODE_GRAPH, 0);
	ASSERT_EQ(0, tas_submit(fd2, nodes, count, edges,
				count - self->num_rings, NULL, 0, &signal, 1,
				NULL));

	start = tas_now_ns();
	close(fd2);
	took = tas_now_ns() - start;
	TH_LOG("closed with %u nodes of %llu ms in flight in %llu ms", count,
	       (unsigned long long)duration / TAS_NSEC_PER_MSEC,
	       (unsigned long long)took / TAS_NSEC_PER_MSEC);
	EXPECT_LT(took, TAS_CLOSE_WORK_NS / 2);

	/* tas_run_nop() waits TAS_WAIT_NS at most. */
	ASSERT_EQ(0, tas_run_nop(self->fd));

	free(edges);
	free(nodes);
}

TEST_HARNESS_MAIN

/*
 * On ring 0, node 2 waits for node 0 on ring 1, which waits for a sw_sync
 * fence, and node 3 for node 1 on ring 2; a topological push puts node 2
 * first. The dispatcher starts node 3 as soon as it is ready: it completes
 * while node 0 still waits. The stock FIFO dispatch holds it behind node 2
 * (head-of-line blocking), which is the baseline: it cannot complete
 * before the test signals the fence.
 */
TEST_F(tas, dispatch_no_head_of_line_blocking)
{
	struct drm_tas_sync signals[2], wait;
	struct drm_tas_node_info info[4];
	struct drm_tas_node nodes[4];
	struct drm_tas_edge edges[2];
	__u32 syncobj, node3, in, done, fifo, inc = 1;
	__u64 graph_id;
	int timeline;

	if (self->num_rings < 3)
		SKIP(return, "fewer than 3 rings");
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &syncobj));
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &node3));
	tas_node_init(&nodes[0], 1, DRM_TAS_OP_NOP, TAS_NSEC_PER_MSEC);
	tas_node_init(&nodes[1], 2, DRM_TAS_OP_NOP, TAS_NSEC_PER_MSEC);
	tas_node_init(&nodes[2], 0, DRM_TAS_OP_NOP, TAS_NSEC_PER_MSEC);
	tas_node_init(&nodes[3], 0, DRM_TAS_OP_NOP, TAS_NSEC_PER_MSEC);
	tas_edge_init(&edges[0], 0, 2);
	tas_edge_init(&edges[1], 1, 3);
	tas_sync_init(&signals[0], syncobj, DRM_TAS_NODE_GRAPH, 0);
	tas_sync_init(&signals[1], node3, 3, 0);

	for (fifo = 0; fifo < 2; fifo++) {
		timeline = tas_sw_sync_syncobj(self->fd, &in);
		if (timeline == -ENOENT)
			SKIP(return, "no %s (CONFIG_SW_SYNC, debugfs mounted?)",
			     SW_SYNC_PATH);
		ASSERT_LE(0, timeline);
		tas_sync_init(&wait, in, 0, 0);
		ASSERT_EQ(0, tas_submit_flags(self->fd,
					      fifo ? DRM_TAS_SUBMIT_FIFO : 0,
					      nodes, 4, edges, 2, &wait, 1,
					      signals, 2, &graph_id));
		/* Node 3 completes before node 0 can start only without HOL blocking. */
		EXPECT_EQ(fifo ? -ETIME : 0,
			  tas_syncobj_wait(self->fd, node3,
					   DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
					   fifo ? 100 * TAS_NSEC_PER_MSEC :
						  TAS_WAIT_NS));
		ASSERT_EQ(0, tas_ioctl(timeline, SW_SYNC_IOC_INC, &inc));
		ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, syncobj));
		ASSERT_EQ(0, tas_graph_info(self->fd, graph_id, info, 4,
					    &done));
		EXPECT_EQ(1U, done);
		ASSERT_NE(0ULL, info[3].started_ns);
		TH_LOG("%s: node 3 started %lld us after node 0 finished",
		       fifo ? "fifo" : "graph",
		       ((long long)info[3].started_ns -
			(long long)info[0].finished_ns) / 1000);
		/* Held behind node 2 only with the stock dispatch. */
		EXPECT_EQ(!!fifo, info[3].started_ns >= info[0].finished_ns);
		EXPECT_GE(info[2].started_ns, info[0].finished_ns);
		EXPECT_GE(info[3].started_ns, info[1].finished_ns);
		close(timeline);
		tas_syncobj_destroy(self->fd, in);
	}
	tas_syncobj_destroy(self->fd, node3);
	tas_syncobj_destroy(self->fd, syncobj);
}

#define TAS_STREAM_DEPTH	8
#define TAS_STREAM_NODES	8

/*
 * A child process of tas_stream_start(), and the flags it shares with it:
 * @stop is set by tas_stream_stop(), @queued by the child once it has
 * TAS_STREAM_DEPTH graphs in flight.
 */
struct tas_stream {
	pid_t pid;
	int *stop;
	int *queued;
};

/* Stops the stream of tas_stream_start(); returns whether it ran without a fault. */
static bool tas_stream_stop(struct tas_stream *st)
{
	int status;
	bool ok;

	__atomic_store_n(st->stop, 1, __ATOMIC_RELAXED);
	ok = waitpid(st->pid, &status, 0) == st->pid && WIFEXITED(status) &&
	     WEXITSTATUS(status) == 0;
	munmap(st->stop, 2 * sizeof(*st->stop));
	return ok;
}

/* How long tas_stream_start() waits for the child to queue its graphs. */
#define TAS_STREAM_START_NS	(60 * TAS_NSEC_PER_SEC)

/* Ends the child of tas_stream_start() after a failed call, saying which. */
static void tas_stream_fail(const char *what, __u64 k, int err)
{
	fprintf(stderr, "tas_stream: %s of graph %llu failed: %s\n", what,
		(unsigned long long)k, strerror(-err));
	_exit(1);
}

/*
 * Starts a child that keeps normal-class work queued on each ring of @rings (a
 * mask) from a file of its own (graphs of 8 nodes of 1 ms per ring, of the
 * stock dispatch, which pushes each at once, 8 graphs in flight) until
 * tas_stream_stop(), and returns once the child has its first 8 graphs in
 * flight: drm_sched's priorities are strict between clients, so while it
 * runs, no batch-class job of another client starts on those rings, and no
 * job queued at the normal priority after the stream's starts before the
 * stream's older ones. On a slow kernel, opening the device and submitting
 * the first graphs takes the child longer than any fixed delay would allow.
 */
static int tas_stream_start(struct tas_stream *st, __u32 rings)
{
	struct drm_tas_node stream[TAS_STREAM_NODES * TAS_MAX_RINGS];
	__u32 sync[TAS_STREAM_DEPTH], ring[TAS_MAX_RINGS], n = 0, i;
	struct drm_tas_sync sig;
	__u64 k, deadline;
	int fd, ret, status;

	for (i = 0; i < TAS_MAX_RINGS; i++)
		if (rings & (1U << i))
			ring[n++] = i;
	if (!n)
		return -EINVAL;
	st->stop = mmap(NULL, 2 * sizeof(*st->stop), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (st->stop == MAP_FAILED)
		return -errno;
	st->queued = st->stop + 1;
	__atomic_store_n(st->stop, 0, __ATOMIC_RELAXED);
	__atomic_store_n(st->queued, 0, __ATOMIC_RELAXED);
	st->pid = fork();
	if (st->pid < 0) {
		int err = -errno;

		munmap(st->stop, 2 * sizeof(*st->stop));
		return err;
	}
	if (st->pid) {
		deadline = tas_now_ns() + TAS_STREAM_START_NS;
		while (!__atomic_load_n(st->queued, __ATOMIC_ACQUIRE)) {
			if (waitpid(st->pid, &status, WNOHANG) == st->pid ||
			    tas_now_ns() > deadline) {
				tas_stream_stop(st);
				return -ETIME;
			}
			usleep(1000);
		}
		return 0;
	}
	fd = tas_open_render_node();
	if (fd < 0)
		tas_stream_fail("open", 0, -errno);
	for (i = 0; i < TAS_STREAM_NODES * n; i++)
		tas_node_init(&stream[i], ring[i % n], DRM_TAS_OP_NOP,
			      TAS_NSEC_PER_MSEC);
	for (i = 0; i < TAS_STREAM_DEPTH; i++) {
		ret = tas_syncobj_create(fd, 0, &sync[i]);
		if (ret)
			tas_stream_fail("syncobj", i, ret);
	}
	for (k = 0; !__atomic_load_n(st->stop, __ATOMIC_RELAXED); k++) {
		__u32 s = sync[k % TAS_STREAM_DEPTH];

		if (k == TAS_STREAM_DEPTH)
			__atomic_store_n(st->queued, 1, __ATOMIC_RELEASE);
		if (k >= TAS_STREAM_DEPTH) {
			ret = tas_syncobj_wait_graph(fd, s);
			if (ret)
				tas_stream_fail("wait", k - TAS_STREAM_DEPTH,
						ret);
		}
		tas_sync_init(&sig, s, DRM_TAS_NODE_GRAPH, 0);
		ret = tas_submit_flags(fd, DRM_TAS_SUBMIT_FIFO, stream,
				       TAS_STREAM_NODES * n, NULL, 0, NULL, 0,
				       &sig, 1, NULL);
		if (ret)
			tas_stream_fail("submit", k, ret);
	}
	/* Only the syncobjs of submitted graphs hold a fence to wait for. */
	for (i = 0; i < TAS_STREAM_DEPTH && i < k; i++) {
		ret = tas_syncobj_wait_graph(fd, sync[i]);
		if (ret)
			tas_stream_fail("final wait", i, ret);
	}
	_exit(0);
}

/*
 * Polls graph @graph_id of @n nodes until node @v started or @timeout_ns
 * passed; the last read is in @info. Returns the last GRAPH_INFO result.
 */
static int tas_wait_started(int fd, __u64 graph_id,
			    struct drm_tas_node_info *info, __u32 n, __u32 v,
			    __u64 timeout_ns)
{
	__u64 deadline = tas_now_ns() + timeout_ns;
	__u32 done;
	int ret;

	do {
		usleep(10 * 1000);
		ret = tas_graph_info(fd, graph_id, info, n, &done);
	} while (!ret && !info[v].started_ns && tas_now_ns() < deadline);
	return ret;
}

/*
 * How far apart the members of a gang may start: their rings' workers wake
 * one after the other, which takes up to a few milliseconds on a debug
 * kernel in QEMU without KVM, and more when the host deschedules one of the
 * guest's CPUs at that moment. The tests keep every other way of starting
 * them (one at a time, as their rings become free) further apart than this.
 */
#define TAS_GANG_SKEW_NS	(200 * TAS_NSEC_PER_MSEC)

/*
 * The spread of the start times of @n nodes (the start skew of a gang);
 * the earliest of them in @first.
 */
static __u64 tas_start_spread(const struct drm_tas_node_info *info,
			      unsigned int n, __u64 *first)
{
	__u64 lo = ~0ULL, hi = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (info[i].started_ns < lo)
			lo = info[i].started_ns;
		if (info[i].started_ns > hi)
			hi = info[i].started_ns;
	}
	*first = lo;
	return hi - lo;
}

/*
 * A gang of three nodes on rings that a previous graph keeps busy for
 * different times (ring 2 not at all): no member starts before every ring is
 * free, and then they all start within TAS_GANG_SKEW_NS of each other, where
 * one at a time they would be 400 ms apart.
 */
TEST_F(tas, gang_starts_together)
{
	struct drm_tas_node_info busy_info[2], info[3];
	struct drm_tas_node busy[2], gang[3];
	__u64 busy_id, gang_id, first, spread;
	struct drm_tas_sync signal;
	__u32 syncobj, done, i;

	if (self->num_rings < 3)
		SKIP(return, "fewer than 3 rings");
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &syncobj));
	tas_node_init(&busy[0], 0, DRM_TAS_OP_NOP, 10 * TAS_NSEC_PER_MSEC);
	tas_node_init(&busy[1], 1, DRM_TAS_OP_NOP, 400 * TAS_NSEC_PER_MSEC);
	for (i = 0; i < 3; i++) {
		tas_node_init(&gang[i], i, DRM_TAS_OP_NOP, TAS_NSEC_PER_MSEC);
		gang[i].gang = 5;
	}
	tas_sync_init(&signal, syncobj, DRM_TAS_NODE_GRAPH, 0);
	ASSERT_EQ(0, tas_submit(self->fd, busy, 2, NULL, 0, NULL, 0, NULL, 0,
				&busy_id));
	ASSERT_EQ(0, tas_submit(self->fd, gang, 3, NULL, 0, NULL, 0, &signal,
				1, &gang_id));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, syncobj));
	ASSERT_EQ(0, tas_graph_info(self->fd, gang_id, info, 3, &done));
	EXPECT_EQ(1U, done);
	ASSERT_EQ(0, tas_graph_info(self->fd, busy_id, busy_info, 2, &done));
	EXPECT_EQ(1U, done);

	for (i = 0; i < 3; i++) {
		EXPECT_EQ(0, info[i].error);
		EXPECT_GE(info[i].started_ns, busy_info[1].finished_ns);
	}
	spread = tas_start_spread(info, 3, &first);
	TH_LOG("start spread %llu us", (unsigned long long)spread / 1000);
	EXPECT_LE(spread, TAS_GANG_SKEW_NS);
	tas_syncobj_destroy(self->fd, syncobj);
}

/*
 * A gang of two whose member on ring 0 fails before the gang can start: it
 * waits for a node that runs into the job timeout. The gang does not start
 * at all: the member on ring 1 completes with -ECANCELED without running, and
 * its successor inherits the error.
 */
TEST_F(tas, gang_member_failure_cancels_gang)
{
	struct drm_tas_node_info info[4];
	struct drm_tas_node nodes[4];
	struct drm_tas_edge edges[2];
	struct drm_tas_sync signal;
	__u64 timeout = 0, max_duration = 0, graph_id;
	__u32 syncobj, done = 0;
	int status = 0;

	if (self->num_rings < 2)
		SKIP(return, "one ring");
	ASSERT_EQ(0, tas_get_param(self->fd, DRM_TAS_PARAM_JOB_TIMEOUT_NS, 0,
				   &timeout));
	ASSERT_EQ(0, tas_get_param(self->fd, DRM_TAS_PARAM_MAX_DURATION_NS, 0,
				   &max_duration));
	if (!timeout || timeout > 2 * TAS_NSEC_PER_SEC ||
	    max_duration < 2 * timeout)
		SKIP(return, "job timeout of %llu ns", (unsigned long long)timeout);

	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &syncobj));
	/* As long as it can be, as in error_timeout_propagates. */
	tas_node_init(&nodes[0], 0, DRM_TAS_OP_NOP, max_duration);
	tas_node_init(&nodes[1], 0, DRM_TAS_OP_NOP, TAS_NSEC_PER_MSEC);
	tas_node_init(&nodes[2], 1, DRM_TAS_OP_NOP, TAS_NSEC_PER_MSEC);
	tas_node_init(&nodes[3], 1, DRM_TAS_OP_NOP, TAS_NSEC_PER_MSEC);
	nodes[1].gang = 9;
	nodes[2].gang = 9;
	tas_edge_init(&edges[0], 0, 1);
	tas_edge_init(&edges[1], 2, 3);
	tas_sync_init(&signal, syncobj, DRM_TAS_NODE_GRAPH, 0);
	ASSERT_EQ(0, tas_submit(self->fd, nodes, 4, edges, 2, NULL, 0, &signal,
				1, &graph_id));
	ASSERT_EQ(0, tas_syncobj_wait(self->fd, syncobj,
				      DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
				      max_duration + TAS_WAIT_NS));
	ASSERT_EQ(0, tas_graph_info(self->fd, graph_id, info, 4, &done));
	EXPECT_EQ(1U, done);

	EXPECT_EQ(-ETIMEDOUT, info[0].error);
	EXPECT_EQ(-ETIMEDOUT, info[1].error);
	EXPECT_EQ(0ULL, info[1].started_ns);
	EXPECT_EQ(-ECANCELED, info[2].error);
	EXPECT_EQ(0ULL, info[2].started_ns);
	EXPECT_EQ(-ECANCELED, info[3].error);
	EXPECT_EQ(0ULL, info[3].started_ns);
	ASSERT_EQ(0, tas_syncobj_fence_status(self->fd, syncobj, &status));
	EXPECT_LT(status, 0);
	tas_syncobj_destroy(self->fd, syncobj);
}

#define TAS_TRACEFS		"/sys/kernel/tracing"

/* Writes @str to the tracefs file @name; 0 or -errno. */
static int tas_tracefs_write(const char *name, const char *str, int flags)
{
	char path[128];
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), TAS_TRACEFS "/%s", name);
	fd = open(path, O_WRONLY | O_CLOEXEC | flags);
	if (fd < 0)
		return -errno;
	len = write(fd, str, strlen(str));
	close(fd);
	return len == (ssize_t)strlen(str) ? 0 : -EIO;
}

/*
 * The tas_gang_start trace event reports each started gang once: its rings,
 * its members, and the first and the spread of their start times, exactly
 * as GRAPH_INFO reports them.
 */
TEST_F(tas, gang_start_trace_event)
{
	unsigned long long rings = 0, first_ns = 0, skew_ns = 0;
	__u64 graph_id, first, spread;
	struct drm_tas_node_info info[3];
	struct drm_tas_node gang[3];
	struct drm_tas_sync signal;
	unsigned int members = 0;
	static char buf[16384];
	__u32 syncobj, done, i;
	ssize_t len;
	char *line;
	int fd, n;

	if (self->num_rings < 3)
		SKIP(return, "fewer than 3 rings");
	if (tas_tracefs_write("events/tas/tas_gang_start/enable", "0", 0))
		SKIP(return, "no tracefs or no tas_gang_start event");
	ASSERT_EQ(0, tas_tracefs_write("trace", "", O_TRUNC));
	ASSERT_EQ(0, tas_tracefs_write("events/tas/tas_gang_start/enable",
				       "1", 0));

	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &syncobj));
	for (i = 0; i < 3; i++) {
		tas_node_init(&gang[i], i, DRM_TAS_OP_NOP, TAS_NSEC_PER_MSEC);
		gang[i].gang = 2;
	}
	tas_sync_init(&signal, syncobj, DRM_TAS_NODE_GRAPH, 0);
	ASSERT_EQ(0, tas_submit(self->fd, gang, 3, NULL, 0, NULL, 0, &signal,
				1, &graph_id));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, syncobj));
	ASSERT_EQ(0, tas_tracefs_write("events/tas/tas_gang_start/enable",
				       "0", 0));
	ASSERT_EQ(0, tas_graph_info(self->fd, graph_id, info, 3, &done));
	EXPECT_EQ(1U, done);
	for (i = 0; i < 3; i++)
		EXPECT_EQ(0, info[i].error);
	spread = tas_start_spread(info, 3, &first);

	fd = open(TAS_TRACEFS "/trace", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	ASSERT_LT(0, len);
	buf[len] = '\0';
	line = strstr(buf, "tas_gang_start: ");
	ASSERT_NE(NULL, line);
	/* Exactly one event: one gang started. */
	EXPECT_EQ(NULL, strstr(line + 1, "tas_gang_start: "));
	n = sscanf(line,
		   "tas_gang_start: rings=0x%llx members=%u first_ns=%llu skew_ns=%llu",
		   &rings, &members, &first_ns, &skew_ns);
	ASSERT_EQ(4, n);
	EXPECT_EQ(0x7ULL, rings);
	EXPECT_EQ(3U, members);
	EXPECT_EQ(first, first_ns);
	EXPECT_EQ(spread, skew_ns);
	tas_syncobj_destroy(self->fd, syncobj);
}

#define TAS_MAX_TEST_DEPTH	16
/* The credits of a ring's scheduler beyond its depth: for its early nodes. */
#define TAS_EARLY_CREDITS	2

/*
 * Gangs of two clients on the same two rings, both queued in the scheduler
 * behind a third client's nodes that take every credit of the rings. Each
 * gang has a latency-class member on the ring where the other gang has a
 * normal-class one, so the scheduler hands ring 0 the first gang's member
 * first and ring 1 the second gang's: released together, each gang would
 * hold one ring at its start barrier waiting for the other ring, until the
 * job timeout. Admitted in one order for the device, the second gang is
 * released only once the first has started: both start, their members
 * together, without an error.
 */
TEST_F(tas, gangs_of_two_clients_start_together)
{
	struct drm_tas_node fill[2 * (TAS_MAX_TEST_DEPTH + TAS_EARLY_CREDITS)];
	struct drm_tas_node gang[2];
	__u32 n_fill;
	struct drm_tas_node_info info[2];
	__u64 depth = 0, graph_id[2], first, spread;
	__u32 syncobj[2], done, c, m;
	struct drm_tas_sync signal;
	int fd[3];

	if (self->num_rings < 2)
		SKIP(return, "one ring");
	ASSERT_EQ(0, tas_get_param(self->fd, DRM_TAS_PARAM_RING_DEPTH, 0,
				   &depth));
	if (depth > TAS_MAX_TEST_DEPTH)
		SKIP(return, "ring depth %llu", (unsigned long long)depth);
	fd[0] = self->fd;
	fd[1] = tas_open_render_node();
	ASSERT_LE(0, fd[1]);
	fd[2] = tas_open_render_node();
	ASSERT_LE(0, fd[2]);

	/*
	 * The stock dispatch pushes all of them at once: the rings' depth and
	 * the credits kept for early nodes, which these are not.
	 */
	n_fill = 2 * (depth + TAS_EARLY_CREDITS);
	for (m = 0; m < n_fill; m++)
		tas_node_init(&fill[m], m % 2, DRM_TAS_OP_NOP,
			      20 * TAS_NSEC_PER_MSEC);
	ASSERT_EQ(0, tas_submit_flags(fd[2], DRM_TAS_SUBMIT_FIFO, fill,
				      n_fill, NULL, 0, NULL, 0, NULL, 0, NULL));
	for (c = 0; c < 2; c++) {
		for (m = 0; m < 2; m++) {
			tas_node_init(&gang[m], m, DRM_TAS_OP_NOP,
				      TAS_NSEC_PER_MSEC);
			gang[m].gang = 1;
			gang[m].class = m == c ? DRM_TAS_CLASS_LATENCY :
						 DRM_TAS_CLASS_NORMAL;
		}
		ASSERT_EQ(0, tas_syncobj_create(fd[c], 0, &syncobj[c]));
		tas_sync_init(&signal, syncobj[c], DRM_TAS_NODE_GRAPH, 0);
		ASSERT_EQ(0, tas_submit(fd[c], gang, 2, NULL, 0, NULL, 0,
					&signal, 1, &graph_id[c]));
	}
	for (c = 0; c < 2; c++) {
		ASSERT_EQ(0, tas_syncobj_wait_graph(fd[c], syncobj[c]));
		ASSERT_EQ(0, tas_graph_info(fd[c], graph_id[c], info, 2, &done));
		EXPECT_EQ(1U, done);
		EXPECT_EQ(0, info[0].error);
		EXPECT_EQ(0, info[1].error);
		EXPECT_NE(0ULL, info[0].started_ns);
		spread = tas_start_spread(info, 2, &first);
		TH_LOG("client %u: start spread %llu us", c,
		       (unsigned long long)spread / 1000);
		EXPECT_LE(spread, TAS_GANG_SKEW_NS);
		tas_syncobj_destroy(fd[c], syncobj[c]);
	}
	close(fd[2]);
	close(fd[1]);
}

/*
 * Another client keeps normal work queued on every ring, and a gang of two
 * members on rings 0 and 1 is submitted in each class. Once admitted, the
 * gang holds both rings for the whole device until its members start, and
 * its member that reaches its ring first holds that ring at the start
 * barrier: the members enter their rings at least at the normal priority
 * (the latency class at its own), so the gang starts after the normal work
 * queued before it, while the stream goes on, not once it ends.
 */
TEST_F_TIMEOUT(tas, gang_not_held_by_other_clients_work, 300)
{
	static const __u32 classes[] = {
		DRM_TAS_CLASS_LATENCY, DRM_TAS_CLASS_NORMAL, DRM_TAS_CLASS_BATCH,
	};
	struct drm_tas_node_info info[3][2];
	struct drm_tas_node gang[2];
	struct drm_tas_sync signal;
	struct tas_stream stream;
	__u32 syncobj[3], done, c, m;
	__u64 graph_id[3];
	int ret = 0;

	if (self->num_rings < 2)
		SKIP(return, "one ring");
	ASSERT_LE(self->num_rings, (__u64)TAS_MAX_RINGS);
	memset(info, 0, sizeof(info));
	ASSERT_EQ(0, tas_stream_start(&stream, (1U << self->num_rings) - 1));
	for (c = 0; c < ARRAY_SIZE(classes) && !ret; c++) {
		for (m = 0; m < 2; m++) {
			tas_node_init(&gang[m], m, DRM_TAS_OP_NOP,
				      TAS_NSEC_PER_MSEC);
			gang[m].gang = 1;
			gang[m].class = classes[c];
		}
		ret = tas_syncobj_create(self->fd, 0, &syncobj[c]);
		if (!ret) {
			tas_sync_init(&signal, syncobj[c], DRM_TAS_NODE_GRAPH, 0);
			ret = tas_submit(self->fd, gang, 2, NULL, 0, NULL, 0,
					 &signal, 1, &graph_id[c]);
		}
		for (m = 0; m < 2 && !ret; m++)
			ret = tas_wait_started(self->fd, graph_id[c], info[c],
					       2, m, 10 * TAS_NSEC_PER_SEC);
	}
	/* Asserted only once the stream is told to stop. */
	ASSERT_TRUE(tas_stream_stop(&stream));
	ASSERT_EQ(0, ret);
	for (c = 0; c < ARRAY_SIZE(classes); c++) {
		for (m = 0; m < 2; m++) {
			TH_LOG("class %u: member on ring %u started %lld ms after readiness",
			       classes[c], m,
			       info[c][m].started_ns ?
				       ((long long)info[c][m].started_ns -
					(long long)info[c][m].ready_ns) /
					       (long long)TAS_NSEC_PER_MSEC :
				       -1LL);
			EXPECT_NE(0ULL, info[c][m].started_ns);
		}
		ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, syncobj[c]));
		ASSERT_EQ(0, tas_graph_info(self->fd, graph_id[c], info[c], 2,
					    &done));
		EXPECT_EQ(1U, done);
		EXPECT_EQ(0, info[c][0].error);
		EXPECT_EQ(0, info[c][1].error);
		tas_syncobj_destroy(self->fd, syncobj[c]);
	}
}

#define TAS_BATCH_PER_RING	8

/*
 * A latency-class node submitted while batch work fills every ring starts
 * after at most the batch nodes of its ring already handed to the ring.
 * Only the batch nodes that started after the latency node was submitted
 * count, and they are long enough (200 ms) that a stalled guest during its
 * submission does not start more of them; without classes the latency node
 * would start after all 8.
 */
TEST_F(tas, latency_class_overtakes_batch)
{
	struct drm_tas_node_info *batch_info, info;
	struct drm_tas_node *batch, node;
	struct drm_tas_sync signal;
	__u32 syncobj, done, i, n, before = 0;
	__u64 batch_id, id, submitted;

	n = TAS_BATCH_PER_RING * self->num_rings;
	batch = calloc(n, sizeof(*batch));
	batch_info = calloc(n, sizeof(*batch_info));
	ASSERT_NE(NULL, batch);
	ASSERT_NE(NULL, batch_info);
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &syncobj));
	for (i = 0; i < n; i++) {
		tas_node_init(&batch[i], i % self->num_rings, DRM_TAS_OP_NOP,
			      200 * TAS_NSEC_PER_MSEC);
		batch[i].class = DRM_TAS_CLASS_BATCH;
	}
	tas_node_init(&node, 0, DRM_TAS_OP_NOP, TAS_NSEC_PER_MSEC);
	node.class = DRM_TAS_CLASS_LATENCY;
	tas_sync_init(&signal, syncobj, DRM_TAS_NODE_GRAPH, 0);
	ASSERT_EQ(0, tas_submit(self->fd, batch, n, NULL, 0, NULL, 0, &signal,
				1, &batch_id));
	submitted = tas_now_ns();
	ASSERT_EQ(0, tas_submit(self->fd, &node, 1, NULL, 0, NULL, 0, NULL, 0,
				&id));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, syncobj));
	ASSERT_EQ(0, tas_graph_info(self->fd, id, &info, 1, &done));
	EXPECT_EQ(1U, done);
	EXPECT_EQ(0, info.error);
	ASSERT_EQ(0, tas_graph_info(self->fd, batch_id, batch_info, n, &done));
	EXPECT_EQ(1U, done);
	for (i = 0; i < n; i += self->num_rings)
		before += batch_info[i].started_ns >= submitted &&
			  batch_info[i].started_ns < info.started_ns;
	TH_LOG("%u of %u batch nodes of ring 0 started between its submission and its start",
	       before, TAS_BATCH_PER_RING);
	EXPECT_LE(before, 3U);
	tas_syncobj_destroy(self->fd, syncobj);
	free(batch_info);
	free(batch);
}

/*
 * A one-node graph submitted behind a chain of 1024 nodes of its class on
 * its ring. Every link of the chain has a higher rank than the lone node
 * (the longer path after it), and each becomes ready as the one before it
 * is released; by rank alone the lone node would start after the whole
 * chain. The ready set serves the oldest node of a class after
 * STARVATION_LIMIT (4) releases of it that left others waiting: it starts
 * after at most 4 more links, plus those already on the ring (2, one more
 * for a latency-class node, one early node waiting on the ring). In every
 * class.
 */
#define TAS_CHAIN_NODES	1024

TEST_F_TIMEOUT(tas, class_node_not_starved_by_long_chain, 120)
{
	static const __u32 classes[] = {
		DRM_TAS_CLASS_LATENCY, DRM_TAS_CLASS_NORMAL, DRM_TAS_CLASS_BATCH,
	};
	struct drm_tas_node_info *chain_info, info;
	struct drm_tas_node *chain, node;
	struct drm_tas_edge *edges;
	struct drm_tas_sync signal, lone_signal;
	__u32 syncobj, lone, done, i, c, before;
	__u64 chain_id, id;

	chain = calloc(TAS_CHAIN_NODES, sizeof(*chain));
	chain_info = calloc(TAS_CHAIN_NODES, sizeof(*chain_info));
	edges = calloc(TAS_CHAIN_NODES, sizeof(*edges));
	ASSERT_NE(NULL, chain);
	ASSERT_NE(NULL, chain_info);
	ASSERT_NE(NULL, edges);
	for (c = 0; c < ARRAY_SIZE(classes); c++) {
		for (i = 0; i < TAS_CHAIN_NODES; i++) {
			tas_node_init(&chain[i], 0, DRM_TAS_OP_NOP, 20 * 1000);
			chain[i].class = classes[c];
			if (i)
				tas_edge_init(&edges[i - 1], i - 1, i);
		}
		tas_node_init(&node, 0, DRM_TAS_OP_NOP, 0);
		node.class = classes[c];
		ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &syncobj));
		ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &lone));
		tas_sync_init(&signal, syncobj, DRM_TAS_NODE_GRAPH, 0);
		tas_sync_init(&lone_signal, lone, DRM_TAS_NODE_GRAPH, 0);
		ASSERT_EQ(0, tas_submit(self->fd, chain, TAS_CHAIN_NODES, edges,
					TAS_CHAIN_NODES - 1, NULL, 0, &signal, 1,
					&chain_id));
		ASSERT_EQ(0, tas_submit(self->fd, &node, 1, NULL, 0, NULL, 0,
					&lone_signal, 1, &id));
		/* A release and a hop per link: 2.5 ms each under KASAN. */
		ASSERT_EQ(0, tas_syncobj_wait(self->fd, syncobj,
					      DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
					      TAS_WAIT_NS + TAS_CHAIN_NODES *
					      10 * TAS_NSEC_PER_MSEC));
		ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, lone));
		ASSERT_EQ(0, tas_graph_info(self->fd, id, &info, 1, &done));
		EXPECT_EQ(1U, done);
		EXPECT_EQ(0, info.error);
		ASSERT_EQ(0, tas_graph_info(self->fd, chain_id, chain_info,
					    TAS_CHAIN_NODES, &done));
		EXPECT_EQ(1U, done);
		before = 0;
		for (i = 0; i < TAS_CHAIN_NODES; i++)
			before += chain_info[i].started_ns >= info.ready_ns &&
				  chain_info[i].started_ns < info.started_ns;
		TH_LOG("class %u: %u links started between the lone node's readiness and start",
		       classes[c], before);
		EXPECT_LE(before, 16U);
		tas_syncobj_destroy(self->fd, syncobj);
		tas_syncobj_destroy(self->fd, lone);
	}
	free(edges);
	free(chain_info);
	free(chain);
}

/*
 * A client keeps normal-class work queued on ring 0 (tas_stream_start()).
 * Another client has two batch nodes on ring 0, which fill its window of the
 * ring and wait in their entity, and then a normal node on ring 0 that
 * becomes ready 20 ms later: the batch nodes hold up no more urgent class, so
 * the normal node starts while the stream goes on, not once it ends.
 */
TEST_F_TIMEOUT(tas, normal_not_held_by_waiting_batch, 300)
{
	struct drm_tas_node_info info[4];
	struct drm_tas_node nodes[4];
	struct drm_tas_sync signal;
	struct drm_tas_edge edge;
	struct tas_stream stream;
	__u32 syncobj, done, i;
	__u64 graph_id;
	int ret = 0;

	if (self->num_rings < 2)
		SKIP(return, "one ring");
	for (i = 0; i < 4; i++)
		tas_node_init(&nodes[i], i == 2, DRM_TAS_OP_NOP,
			      (i == 2 ? 20 : 1) * TAS_NSEC_PER_MSEC);
	nodes[0].class = DRM_TAS_CLASS_BATCH;
	nodes[1].class = DRM_TAS_CLASS_BATCH;
	tas_edge_init(&edge, 2, 3);
	memset(info, 0, sizeof(info));
	ASSERT_EQ(0, tas_stream_start(&stream, 1U << 0));
	ret = tas_syncobj_create(self->fd, 0, &syncobj);
	if (!ret) {
		tas_sync_init(&signal, syncobj, DRM_TAS_NODE_GRAPH, 0);
		ret = tas_submit(self->fd, nodes, 4, &edge, 1, NULL, 0, &signal,
				 1, &graph_id);
	}
	if (!ret)
		ret = tas_wait_started(self->fd, graph_id, info, 4, 3,
				       10 * TAS_NSEC_PER_SEC);
	ASSERT_TRUE(tas_stream_stop(&stream));
	ASSERT_EQ(0, ret);
	TH_LOG("normal node started %lld ms after readiness; batch started: %d",
	       info[3].started_ns ? ((long long)info[3].started_ns -
				     (long long)info[3].ready_ns) /
					    (long long)TAS_NSEC_PER_MSEC : -1LL,
	       info[0].started_ns || info[1].started_ns);
	EXPECT_NE(0ULL, info[3].started_ns);
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, syncobj));
	ASSERT_EQ(0, tas_graph_info(self->fd, graph_id, info, 4, &done));
	EXPECT_EQ(1U, done);
	tas_syncobj_destroy(self->fd, syncobj);
}

static int tas_template_create(int fd, const struct drm_tas_node *nodes,
			       __u32 num_nodes, const struct drm_tas_edge *edges,
			       __u32 num_edges, __u32 *handle)
{
	struct drm_tas_template_create args;
	int ret;

	memset(&args, 0, sizeof(args));
	tas_array_init(&args.nodes, nodes, num_nodes, sizeof(*nodes));
	tas_array_init(&args.edges, edges, num_edges, sizeof(*edges));
	ret = tas_ioctl(fd, DRM_IOCTL_TAS_TEMPLATE_CREATE, &args);
	if (!ret)
		*handle = args.handle;
	return ret;
}

static int tas_template_launch(int fd, __u32 handle,
			       const struct drm_tas_sync *waits, __u32 num_waits,
			       const struct drm_tas_sync *signals,
			       __u32 num_signals, __u64 *graph_id)
{
	struct drm_tas_template_launch args;
	int ret;

	memset(&args, 0, sizeof(args));
	args.handle = handle;
	tas_array_init(&args.waits, waits, num_waits, sizeof(*waits));
	tas_array_init(&args.signals, signals, num_signals, sizeof(*signals));
	ret = tas_ioctl(fd, DRM_IOCTL_TAS_TEMPLATE_LAUNCH, &args);
	if (!ret && graph_id)
		*graph_id = args.graph_id;
	return ret;
}

static int tas_template_destroy(int fd, __u32 handle)
{
	struct drm_tas_template_destroy args = { .handle = handle };

	return tas_ioctl(fd, DRM_IOCTL_TAS_TEMPLATE_DESTROY, &args);
}

#define TAS_TPL_LAUNCHES	10000
#define TAS_TPL_WORDS		64

/*
 * A template that adds a buffer of ones to an accumulator and copies the
 * accumulator on another ring, launched 10000 times, each launch waiting for
 * the timeline point of the one before: the accumulator and its copy count
 * the launches. What is tested is that every launch runs, not how fast: the
 * harness's default 30 s is too tight for 10000 launches under lockdep in
 * QEMU without KVM.
 */
TEST_F_TIMEOUT(tas, template_launched_10000_times, 180)
{
	const __u64 range = TAS_TPL_WORDS * sizeof(__u32);
	struct drm_tas_sync wait, signal;
	struct drm_tas_node nodes[2];
	struct drm_tas_edge edge;
	__u32 bo, timeline, handle, i, last;
	__u32 *mem;
	int ret;

	ASSERT_EQ(0, tas_bo_create_map(self->fd, 3 * range, &bo, (void **)&mem));
	for (i = 0; i < TAS_TPL_WORDS; i++)
		mem[TAS_TPL_WORDS + i] = 1;
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &timeline));

	/* acc += ones; copy = acc */
	tas_node_init(&nodes[0], 0, DRM_TAS_OP_ADD, 0);
	tas_buf_init(&nodes[0].dst, bo, 0, range);
	tas_buf_init(&nodes[0].src[0], bo, 0, range);
	tas_buf_init(&nodes[0].src[1], bo, range, range);
	tas_node_init(&nodes[1], 1 % self->num_rings, DRM_TAS_OP_COPY, 0);
	tas_buf_init(&nodes[1].src[0], bo, 0, range);
	tas_buf_init(&nodes[1].dst, bo, 2 * range, range);
	tas_edge_init(&edge, 0, 1);
	ASSERT_EQ(0, tas_template_create(self->fd, nodes, 2, &edge, 1, &handle));
	ASSERT_NE(0U, handle);

	for (i = 0; i < TAS_TPL_LAUNCHES; i++) {
		tas_sync_init(&wait, timeline, DRM_TAS_NODE_GRAPH, i);
		tas_sync_init(&signal, timeline, DRM_TAS_NODE_GRAPH, i + 1);
		ASSERT_EQ(0, tas_template_launch(self->fd, handle, &wait, i ? 1 : 0,
						 &signal, 1, NULL))
			TH_LOG("launch %u", i);
	}
	/*
	 * Up to 1024 launches are still in flight, milliseconds each on a
	 * slow kernel: wait as long as the accumulator's count goes on.
	 */
	for (last = 0;; last = __atomic_load_n(&mem[0], __ATOMIC_RELAXED)) {
		ret = tas_syncobj_timeline_wait(self->fd, timeline,
						TAS_TPL_LAUNCHES, TAS_WAIT_NS);
		if (ret != -ETIME ||
		    __atomic_load_n(&mem[0], __ATOMIC_RELAXED) == last)
			break;
	}
	ASSERT_EQ(0, ret);
	for (i = 0; i < TAS_TPL_WORDS; i++) {
		ASSERT_EQ((__u32)TAS_TPL_LAUNCHES, mem[i]) TH_LOG("word %u", i);
		ASSERT_EQ((__u32)TAS_TPL_LAUNCHES, mem[2 * TAS_TPL_WORDS + i])
			TH_LOG("copy word %u", i);
	}
	ASSERT_EQ(0, tas_template_destroy(self->fd, handle));
	tas_syncobj_destroy(self->fd, timeline);
	munmap(mem, 3 * range);
}

/*
 * Destroying a template with a launch in flight lets the launch complete, and
 * the launch reports the tag its node was created with.
 */
TEST_F(tas, template_destroy_in_flight)
{
	struct drm_tas_node_info info;
	struct drm_tas_sync signal;
	struct drm_tas_node node;
	__u32 handle, syncobj, done = 0;
	__u64 graph_id;

	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &syncobj));
	tas_node_init(&node, 0, DRM_TAS_OP_NOP, 50 * TAS_NSEC_PER_MSEC);
	node.tag = ~0ull;
	ASSERT_EQ(0, tas_template_create(self->fd, &node, 1, NULL, 0, &handle));
	tas_sync_init(&signal, syncobj, DRM_TAS_NODE_GRAPH, 0);
	ASSERT_EQ(0, tas_template_launch(self->fd, handle, NULL, 0, &signal, 1,
					 &graph_id));
	ASSERT_EQ(0, tas_template_destroy(self->fd, handle));
	EXPECT_EQ(-ENOENT, tas_template_launch(self->fd, handle, NULL, 0, NULL,
					       0, NULL));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, syncobj));
	ASSERT_EQ(0, tas_graph_info(self->fd, graph_id, &info, 1, &done));
	EXPECT_EQ(1U, done);
	EXPECT_EQ(0, info.error);
	EXPECT_GE(info.finished_ns - info.started_ns, 50 * TAS_NSEC_PER_MSEC);
	EXPECT_EQ(~0ull, info.tag);
	tas_syncobj_destroy(self->fd, syncobj);
}

/*
 * Destroying a template stops the work item that prepares its instances at
 * its next node rather than waiting for it to build them: right after the
 * creation of a template of the most nodes, when the work item has just
 * begun its two instances, destroy takes less than creation did (which
 * only checks the graph). Then, for the log, the time of a destroy that
 * frees two prepared instances.
 */
TEST_F_TIMEOUT(tas, template_destroy_does_not_wait_for_instances, 120)
{
	__u64 max_nodes = 0, created, destroyed, start;
	struct drm_tas_node *nodes;
	__u32 handle, i, round;

	ASSERT_EQ(0, tas_get_param(self->fd, DRM_TAS_PARAM_MAX_NODES, 0, &max_nodes));
	nodes = calloc(max_nodes, sizeof(*nodes));
	ASSERT_NE(NULL, nodes);
	for (i = 0; i < max_nodes; i++)
		tas_node_init(&nodes[i], i % self->num_rings, DRM_TAS_OP_NOP, 0);
	for (round = 0; round < 3; round++) {
		start = tas_now_ns();
		ASSERT_EQ(0, tas_template_create(self->fd, nodes, max_nodes, NULL, 0,
						 &handle));
		created = tas_now_ns() - start;
		start = tas_now_ns();
		ASSERT_EQ(0, tas_template_destroy(self->fd, handle));
		destroyed = tas_now_ns() - start;
		TH_LOG("%llu nodes: create %llu us, destroy %llu us",
		       (unsigned long long)max_nodes, (unsigned long long)created / 1000,
		       (unsigned long long)destroyed / 1000);
		EXPECT_LT(destroyed, created);
	}
	ASSERT_EQ(0, tas_template_create(self->fd, nodes, max_nodes, NULL, 0, &handle));
	sleep(3);
	start = tas_now_ns();
	ASSERT_EQ(0, tas_template_destroy(self->fd, handle));
	TH_LOG("destroy 3 s after create: %llu us",
	       (unsigned long long)(tas_now_ns() - start) / 1000);
	free(nodes);
}

/*
 * TEMPLATE_CREATE names the node or edge at fault, TEMPLATE_LAUNCH the wait
 * or signal, as SUBMIT_GRAPH does.
 */
TEST_F(tas, template_error_index)
{
	struct drm_tas_template_create create;
	struct drm_tas_template_launch launch;
	struct drm_tas_node nodes[3];
	struct drm_tas_edge edges[3];
	struct drm_tas_sync wait;
	__u32 i;

	for (i = 0; i < 3; i++)
		tas_node_init(&nodes[i], 0, DRM_TAS_OP_NOP, 0);
	tas_edge_init(&edges[0], 0, 1);
	tas_edge_init(&edges[1], 1, 2);
	tas_edge_init(&edges[2], 2, 1);
	memset(&create, 0, sizeof(create));
	tas_array_init(&create.nodes, nodes, 3, sizeof(nodes[0]));
	tas_array_init(&create.edges, edges, 3, sizeof(edges[0]));
	EXPECT_EQ(-ELOOP, tas_ioctl(self->fd, DRM_IOCTL_TAS_TEMPLATE_CREATE,
				    &create));
	EXPECT_EQ((__u32)DRM_TAS_ERROR_EDGES, create.error_array);
	EXPECT_GE(create.error_index, 1U);

	nodes[1].pad = 1;
	EXPECT_EQ(-EINVAL, tas_ioctl(self->fd, DRM_IOCTL_TAS_TEMPLATE_CREATE,
				     &create));
	EXPECT_EQ((__u32)DRM_TAS_ERROR_NODES, create.error_array);
	EXPECT_EQ(1U, create.error_index);
	nodes[1].pad = 0;

	create.edges.count = 2;
	ASSERT_EQ(0, tas_ioctl(self->fd, DRM_IOCTL_TAS_TEMPLATE_CREATE,
			       &create));
	EXPECT_EQ((__u32)DRM_TAS_ERROR_NONE, create.error_array);
	memset(&launch, 0, sizeof(launch));
	launch.handle = create.handle;
	tas_sync_init(&wait, 0xfffff, DRM_TAS_NODE_GRAPH, 0);
	tas_array_init(&launch.waits, &wait, 1, sizeof(wait));
	EXPECT_EQ(-ENOENT, tas_ioctl(self->fd, DRM_IOCTL_TAS_TEMPLATE_LAUNCH,
				     &launch));
	EXPECT_EQ((__u32)DRM_TAS_ERROR_WAITS, launch.error_array);
	EXPECT_EQ(0U, launch.error_index);
	ASSERT_EQ(0, tas_template_destroy(self->fd, create.handle));
}

TEST_F(tas, template_errors)
{
	struct drm_tas_template_destroy destroy = { 0 };
	struct drm_tas_template_launch launch = { 0 };
	struct drm_tas_template_create create = { 0 };
	struct drm_tas_node nodes[2];
	struct drm_tas_edge edges[2];
	struct drm_tas_sync signal;
	__u32 handle, handles[64], i;

	tas_node_init(&nodes[0], 0, DRM_TAS_OP_NOP, 0);
	tas_node_init(&nodes[1], 0, DRM_TAS_OP_NOP, 0);
	tas_edge_init(&edges[0], 0, 1);
	tas_edge_init(&edges[1], 1, 0);

	EXPECT_EQ(-ELOOP, tas_template_create(self->fd, nodes, 2, edges, 2,
					      &handle));
	EXPECT_EQ(-EINVAL, tas_template_create(self->fd, nodes, 0, NULL, 0,
					       &handle));
	tas_array_init(&create.nodes, nodes, 1, sizeof(nodes[0]));
	create.flags = 1;
	EXPECT_EQ(-EINVAL, tas_ioctl(self->fd, DRM_IOCTL_TAS_TEMPLATE_CREATE,
				     &create));
	create.flags = 0;
	create.extensions = 1;
	EXPECT_EQ(-EINVAL, tas_ioctl(self->fd, DRM_IOCTL_TAS_TEMPLATE_CREATE,
				     &create));

	EXPECT_EQ(-ENOENT, tas_template_launch(self->fd, 12345, NULL, 0, NULL,
					       0, NULL));
	EXPECT_EQ(-ENOENT, tas_template_destroy(self->fd, 12345));

	ASSERT_EQ(0, tas_template_create(self->fd, nodes, 2, edges, 1, &handle));
	launch.handle = handle;
	launch.flags = 1;
	EXPECT_EQ(-EINVAL, tas_ioctl(self->fd, DRM_IOCTL_TAS_TEMPLATE_LAUNCH,
				     &launch));
	/* A signal of a node the template does not have. */
	tas_sync_init(&signal, 1, 2, 0);
	EXPECT_EQ(-EINVAL, tas_template_launch(self->fd, handle, NULL, 0,
					       &signal, 1, NULL));
	destroy.handle = handle;
	destroy.pad = 1;
	EXPECT_EQ(-EINVAL, tas_ioctl(self->fd, DRM_IOCTL_TAS_TEMPLATE_DESTROY,
				     &destroy));
	ASSERT_EQ(0, tas_template_destroy(self->fd, handle));
	EXPECT_EQ(-ENOENT, tas_template_destroy(self->fd, handle));

	/* At most 64 templates per file. */
	for (i = 0; i < 64; i++)
		ASSERT_EQ(0, tas_template_create(self->fd, nodes, 1, NULL, 0,
						 &handles[i]));
	EXPECT_EQ(-ENOSPC, tas_template_create(self->fd, nodes, 1, NULL, 0,
					       &handle));
	for (i = 0; i < 64; i++)
		ASSERT_EQ(0, tas_template_destroy(self->fd, handles[i]));
	ASSERT_EQ(0, tas_run_nop(self->fd));
}

/*
 * Reads graph @graph_id, of @count nodes, with GRAPH_INFO @flags once it is
 * done; -ETIMEDOUT if it is not done within TAS_WAIT_NS.
 */
static int tas_read_done(int fd, __u64 graph_id, __u32 flags,
			 struct drm_tas_node_info *info, __u32 count)
{
	__u64 deadline = tas_now_ns() + TAS_WAIT_NS;
	__u32 done = 0;
	int ret;

	for (;;) {
		ret = tas_graph_info_flags(fd, graph_id, flags, info, count,
					   &done);
		if (ret || done)
			return ret;
		if (tas_now_ns() > deadline)
			return -ETIMEDOUT;
		usleep(1000);
	}
}

/* Submits a graph of one nop node of @duration_ns with @flags. */
static int tas_submit_one(int fd, __u32 flags, __u64 duration_ns,
			  __u64 *graph_id)
{
	struct drm_tas_node node;

	tas_node_init(&node, 0, DRM_TAS_OP_NOP, duration_ns);
	return tas_submit_flags(fd, flags, &node, 1, NULL, 0, NULL, 0, NULL, 0,
				graph_id);
}

/*
 * Graphs submitted with DRM_TAS_SUBMIT_KEEP outlive the history of the last
 * 64 graphs, until GRAPH_INFO releases them; the history still forgets the
 * others.
 */
TEST_F(tas, keep_outlives_history)
{
	__u64 kept[3], first = 0, last = 0;
	struct drm_tas_node_info info;
	__u32 done = 0;
	unsigned int i;

	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, tas_submit_one(self->fd, DRM_TAS_SUBMIT_KEEP, 0,
					    &kept[i]));
	for (i = 0; i < 70; i++)
		ASSERT_EQ(0, tas_submit_one(self->fd, 0, 0, i ? &last : &first));

	EXPECT_EQ(-ENOENT, tas_graph_info(self->fd, first, &info, 1, &done));
	ASSERT_EQ(0, tas_read_done(self->fd, last, 0, &info, 1));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, tas_read_done(self->fd, kept[i], 0, &info, 1));
		EXPECT_EQ(0, info.error);
		EXPECT_NE(0ULL, info.finished_ns);
	}

	/* Read and released, then gone; the others stay. */
	ASSERT_EQ(0, tas_graph_info_flags(self->fd, kept[0],
					  DRM_TAS_GRAPH_INFO_RELEASE, &info, 1,
					  &done));
	EXPECT_EQ(1U, done);
	EXPECT_NE(0ULL, info.finished_ns);
	EXPECT_EQ(-ENOENT, tas_graph_info(self->fd, kept[0], &info, 1, &done));
	EXPECT_EQ(0, tas_graph_info(self->fd, kept[1], &info, 1, &done));

	/* A graph of the history can be released too. */
	ASSERT_EQ(0, tas_graph_info_flags(self->fd, last,
					  DRM_TAS_GRAPH_INFO_RELEASE, &info, 1,
					  &done));
	EXPECT_EQ(-ENOENT, tas_graph_info(self->fd, last, &info, 1, &done));

	/* A failed read does not release: a wrong count is -EINVAL. */
	EXPECT_EQ(-EINVAL, tas_graph_info_flags(self->fd, kept[1],
						DRM_TAS_GRAPH_INFO_RELEASE,
						&info, 2, &done));
	EXPECT_EQ(0, tas_graph_info(self->fd, kept[1], &info, 1, &done));
}

/*
 * A release of a graph that is still running (it waits for a sw_sync fence
 * that the test signals afterwards) keeps its record.
 */
TEST_F(tas, keep_release_running)
{
	struct drm_tas_node_info info;
	struct drm_tas_sync signal, wait;
	struct drm_tas_node node;
	__u32 syncobj, in, done = 1, inc = 1;
	__u64 graph_id;
	int timeline;

	timeline = tas_sw_sync_syncobj(self->fd, &in);
	if (timeline == -ENOENT)
		SKIP(return, "no %s (CONFIG_SW_SYNC, debugfs mounted?)",
		     SW_SYNC_PATH);
	ASSERT_LE(0, timeline);
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &syncobj));
	tas_node_init(&node, 0, DRM_TAS_OP_NOP, TAS_NSEC_PER_MSEC);
	tas_sync_init(&wait, in, DRM_TAS_NODE_GRAPH, 0);
	tas_sync_init(&signal, syncobj, DRM_TAS_NODE_GRAPH, 0);
	ASSERT_EQ(0, tas_submit_flags(self->fd, DRM_TAS_SUBMIT_KEEP, &node, 1,
				      NULL, 0, &wait, 1, &signal, 1,
				      &graph_id));
	ASSERT_EQ(0, tas_graph_info_flags(self->fd, graph_id,
					  DRM_TAS_GRAPH_INFO_RELEASE, &info, 1,
					  &done));
	EXPECT_EQ(0U, done);
	EXPECT_EQ(0ULL, info.finished_ns);
	ASSERT_EQ(0, tas_ioctl(timeline, SW_SYNC_IOC_INC, &inc));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, syncobj));
	ASSERT_EQ(0, tas_graph_info_flags(self->fd, graph_id,
					  DRM_TAS_GRAPH_INFO_RELEASE, &info, 1,
					  &done));
	EXPECT_EQ(1U, done);
	EXPECT_NE(0ULL, info.finished_ns);
	EXPECT_EQ(-ENOENT, tas_graph_info(self->fd, graph_id, &info, 1, &done));
	close(timeline);
	tas_syncobj_destroy(self->fd, syncobj);
	tas_syncobj_destroy(self->fd, in);
}

/* A template launch with DRM_TAS_SUBMIT_KEEP keeps its record too. */
TEST_F(tas, keep_template_launch)
{
	struct drm_tas_template_launch launch;
	struct drm_tas_node_info info[2];
	struct drm_tas_node nodes[2];
	struct drm_tas_edge edge;
	__u32 handle = 0;
	unsigned int i;

	tas_node_init(&nodes[0], 0, DRM_TAS_OP_NOP, 0);
	tas_node_init(&nodes[1], self->num_rings - 1, DRM_TAS_OP_NOP, 0);
	tas_edge_init(&edge, 0, 1);
	ASSERT_EQ(0, tas_template_create(self->fd, nodes, 2, &edge, 1, &handle));
	memset(&launch, 0, sizeof(launch));
	launch.handle = handle;
	launch.flags = DRM_TAS_SUBMIT_KEEP;
	ASSERT_EQ(0, tas_ioctl(self->fd, DRM_IOCTL_TAS_TEMPLATE_LAUNCH,
			       &launch));
	for (i = 0; i < 70; i++)
		ASSERT_EQ(0, tas_template_launch(self->fd, handle, NULL, 0,
						 NULL, 0, NULL));
	ASSERT_EQ(0, tas_read_done(self->fd, launch.graph_id, 0, info, 2));
	EXPECT_NE(0ULL, info[1].finished_ns);
	EXPECT_LE(info[0].finished_ns, info[1].started_ns);

	/* Unknown launch flags. */
	launch.flags = DRM_TAS_LAUNCH_ORDERED << 1;
	EXPECT_EQ(-EINVAL, tas_ioctl(self->fd, DRM_IOCTL_TAS_TEMPLATE_LAUNCH,
				     &launch));
	ASSERT_EQ(0, tas_template_destroy(self->fd, handle));
}

/*
 * A file keeps at most DRM_TAS_PARAM_MAX_KEPT_GRAPHS (1024) graphs until they
 * are read; beyond that, DRM_TAS_SUBMIT_KEEP fails with -ENOSPC before
 * anything runs (its signal syncobj stays empty), for submissions and
 * template launches, and a release makes room again. Graphs without the flag
 * are not limited by it.
 */
TEST_F_TIMEOUT(tas, keep_limit_graphs, 120)
{
	struct drm_tas_template_launch launch;
	struct drm_tas_node_info info;
	struct drm_tas_sync signal;
	struct drm_tas_node node;
	__u32 done = 0, syncobj, handle;
	__u64 *ids, graph_id, max = 0;
	unsigned int i;

	ASSERT_EQ(0, tas_get_param(self->fd, DRM_TAS_PARAM_MAX_KEPT_GRAPHS, 0,
				   &max));
	ASSERT_EQ(1024ULL, max);
	ids = calloc(max, sizeof(*ids));
	ASSERT_NE(NULL, ids);
	for (i = 0; i < max; i++)
		ASSERT_EQ(0, tas_submit_one(self->fd, DRM_TAS_SUBMIT_KEEP, 0,
					    &ids[i])) TH_LOG("graph %u", i);
	EXPECT_EQ(-ENOSPC, tas_submit_one(self->fd, DRM_TAS_SUBMIT_KEEP, 0,
					  &graph_id));

	/* Nothing of a refused submission or launch ran. */
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &syncobj));
	tas_node_init(&node, 0, DRM_TAS_OP_NOP, 0);
	tas_sync_init(&signal, syncobj, DRM_TAS_NODE_GRAPH, 0);
	EXPECT_EQ(-ENOSPC, tas_submit_flags(self->fd, DRM_TAS_SUBMIT_KEEP, &node,
					    1, NULL, 0, NULL, 0, &signal, 1,
					    &graph_id));
	ASSERT_EQ(0, tas_template_create(self->fd, &node, 1, NULL, 0, &handle));
	memset(&launch, 0, sizeof(launch));
	launch.handle = handle;
	launch.flags = DRM_TAS_SUBMIT_KEEP;
	tas_array_init(&launch.signals, &signal, 1, sizeof(signal));
	EXPECT_EQ(-ENOSPC, tas_ioctl(self->fd, DRM_IOCTL_TAS_TEMPLATE_LAUNCH,
				     &launch));
	EXPECT_EQ(0, tas_syncobj_has_fence(self->fd, syncobj));
	ASSERT_EQ(0, tas_template_destroy(self->fd, handle));
	tas_syncobj_destroy(self->fd, syncobj);

	/* Unknown flags are -EINVAL, whatever room is left. */
	EXPECT_EQ(-EINVAL, tas_submit_one(self->fd, DRM_TAS_SUBMIT_KEEP |
					  DRM_TAS_SUBMIT_KEEP << 1, 0, &graph_id));
	EXPECT_EQ(0, tas_submit_one(self->fd, 0, 0, &graph_id));
	ASSERT_EQ(0, tas_read_done(self->fd, ids[0], DRM_TAS_GRAPH_INFO_RELEASE,
				   &info, 1));
	EXPECT_EQ(-ENOENT, tas_graph_info(self->fd, ids[0], &info, 1, &done));
	EXPECT_EQ(0, tas_submit_one(self->fd, DRM_TAS_SUBMIT_KEEP, 0,
				    &graph_id));
	/* The oldest kept graph is still there. */
	EXPECT_EQ(0, tas_graph_info(self->fd, ids[1], &info, 1, &done));
	free(ids);
}

/*
 * The kept graphs of a file have at most DRM_TAS_PARAM_MAX_KEPT_NODES nodes
 * together. Four graphs of the largest size run: minutes under KASAN in
 * QEMU without KVM.
 */
TEST_F_TIMEOUT(tas, keep_limit_nodes, 300)
{
	__u64 max_nodes = 0, max_kept = 0, ids[4], graph_id;
	struct drm_tas_node_info *info;
	struct drm_tas_node *nodes;
	__u32 done = 0;
	unsigned int i, n;

	ASSERT_EQ(0, tas_get_param(self->fd, DRM_TAS_PARAM_MAX_NODES, 0,
				   &max_nodes));
	ASSERT_EQ(0, tas_get_param(self->fd, DRM_TAS_PARAM_MAX_KEPT_NODES, 0,
				   &max_kept));
	n = max_kept / max_nodes;
	ASSERT_EQ(max_kept, n * max_nodes);
	ASSERT_LE(n, ARRAY_SIZE(ids));
	nodes = tas_nop_nodes(max_nodes, self->num_rings);
	info = calloc(max_nodes, sizeof(*info));
	ASSERT_NE(NULL, nodes);
	ASSERT_NE(NULL, info);
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, tas_submit_flags(self->fd, DRM_TAS_SUBMIT_KEEP, nodes,
					      max_nodes, NULL, 0, NULL, 0, NULL,
					      0, &ids[i])) TH_LOG("graph %u", i);
	EXPECT_EQ(-ENOSPC, tas_submit_one(self->fd, DRM_TAS_SUBMIT_KEEP, 0,
					  &graph_id));
	ASSERT_EQ(0, tas_read_done(self->fd, ids[0], DRM_TAS_GRAPH_INFO_RELEASE,
				   info, max_nodes));
	EXPECT_EQ(-ENOENT, tas_graph_info(self->fd, ids[0], info, max_nodes,
					  &done));
	EXPECT_EQ(0, tas_submit_one(self->fd, DRM_TAS_SUBMIT_KEEP, 0,
				    &graph_id));
	free(info);
	free(nodes);
}

/*
 * A stock-dispatch (FIFO) node waits in the scheduler for what it depends
 * on; the graph dispatcher's nodes, queued only once ready, must not end up
 * behind it. Graph A (dispatcher): a node on ring 1, then one on ring 0,
 * signalling S. Graph B (FIFO), submitted meanwhile: a node on ring 0 that
 * waits for S. Both complete; with one scheduler entity for both, A's
 * second node queued behind B's, which waited for it: neither completed.
 */
TEST_F(tas, fifo_wait_does_not_block_dispatched_nodes)
{
	struct drm_tas_sync wait, signal_a, signal_b;
	struct drm_tas_node nodes[2], node;
	struct drm_tas_edge edge;
	__u32 s, t;

	if (self->num_rings < 2)
		SKIP(return, "needs 2 rings");
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &s));
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &t));

	tas_node_init(&nodes[0], 1, DRM_TAS_OP_NOP, 100 * TAS_NSEC_PER_MSEC);
	tas_node_init(&nodes[1], 0, DRM_TAS_OP_NOP, 0);
	tas_edge_init(&edge, 0, 1);
	tas_sync_init(&signal_a, s, DRM_TAS_NODE_GRAPH, 0);
	ASSERT_EQ(0, tas_submit(self->fd, nodes, 2, &edge, 1, NULL, 0,
				&signal_a, 1, NULL));

	tas_node_init(&node, 0, DRM_TAS_OP_NOP, 0);
	tas_sync_init(&wait, s, DRM_TAS_NODE_GRAPH, 0);
	tas_sync_init(&signal_b, t, DRM_TAS_NODE_GRAPH, 0);
	ASSERT_EQ(0, tas_submit_flags(self->fd, DRM_TAS_SUBMIT_FIFO, &node, 1,
				      NULL, 0, &wait, 1, &signal_b, 1, NULL));

	EXPECT_EQ(0, tas_syncobj_wait_graph(self->fd, s));
	EXPECT_EQ(0, tas_syncobj_wait_graph(self->fd, t));
	tas_syncobj_destroy(self->fd, t);
	tas_syncobj_destroy(self->fd, s);
}

static int tas_syncobj_eventfd(int fd, __u32 handle, __u64 point,
			       __u32 flags, int efd)
{
	struct drm_syncobj_eventfd args = {
		.handle = handle,
		.flags = flags,
		.point = point,
		.fd = efd,
	};

	return tas_ioctl(fd, DRM_IOCTL_SYNCOBJ_EVENTFD, &args);
}

/* Whether @efd becomes readable within @timeout_ms. */
static int tas_eventfd_ready(int efd, int timeout_ms)
{
	struct pollfd pfd = { .fd = efd, .events = POLLIN };

	return poll(&pfd, 1, timeout_ms);
}

/*
 * Event loops wait on syncobjs with eventfds (DRM_IOCTL_SYNCOBJ_EVENTFD).
 * Registered before the graph exists, on a point that one of its nodes
 * signals: the WAIT_AVAILABLE eventfd fires at submission, the other when
 * the node completes (it waits for a sw_sync fence that the test signals
 * after checking that the eventfd has not fired yet).
 */
TEST_F(tas, syncobj_eventfd_on_node_point)
{
	struct drm_tas_sync signal, wait;
	struct drm_tas_node node;
	int avail, done, timeline;
	__u32 tl, in, inc = 1;
	__u64 value;

	/* A kernel without CONFIG_EVENTFD has no such system call. */
	avail = eventfd(0, EFD_CLOEXEC);
	if (avail < 0)
		SKIP(return, "no eventfd: %s (CONFIG_EVENTFD)", strerror(errno));
	ASSERT_LE(0, avail);
	done = eventfd(0, EFD_CLOEXEC);
	ASSERT_LE(0, done);
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &tl));
	ASSERT_EQ(0, tas_syncobj_eventfd(self->fd, tl, 2,
					 DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE,
					 avail));
	ASSERT_EQ(0, tas_syncobj_eventfd(self->fd, tl, 2, 0, done));
	EXPECT_EQ(0, tas_eventfd_ready(avail, 0));
	timeline = tas_sw_sync_syncobj(self->fd, &in);
	if (timeline == -ENOENT)
		SKIP(return, "no %s (CONFIG_SW_SYNC, debugfs mounted?)",
		     SW_SYNC_PATH);
	ASSERT_LE(0, timeline);

	tas_node_init(&node, 0, DRM_TAS_OP_NOP, TAS_NSEC_PER_MSEC);
	tas_sync_init(&wait, in, DRM_TAS_NODE_GRAPH, 0);
	tas_sync_init(&signal, tl, 0, 2);
	ASSERT_EQ(0, tas_submit(self->fd, &node, 1, NULL, 0, &wait, 1, &signal,
				1, NULL));
	ASSERT_EQ(1, tas_eventfd_ready(avail, 10000));
	/* The node waits for the sw_sync fence. */
	EXPECT_EQ(0, tas_eventfd_ready(done, 0));
	ASSERT_EQ(0, tas_ioctl(timeline, SW_SYNC_IOC_INC, &inc));
	ASSERT_EQ(1, tas_eventfd_ready(done, 10000));
	ASSERT_EQ((ssize_t)sizeof(value), read(done, &value, sizeof(value)));
	EXPECT_EQ(1ULL, value);
	ASSERT_EQ(0, tas_syncobj_timeline_wait(self->fd, tl, 2, 0));

	close(timeline);
	tas_syncobj_destroy(self->fd, in);
	tas_syncobj_destroy(self->fd, tl);
	close(done);
	close(avail);
}

/*
 * Core syncobj code reached through the tas render node. A sync_file
 * exported from a timeline point holds a dma_fence_chain; imported as a
 * point of another timeline, it is flattened (a chain cannot be a link of
 * another chain: dma_fence_chain_init() warned) and the new point signals
 * with the graph behind the exported one (which waits for a sw_sync fence
 * that the test signals once it has seen the point unsignalled).
 */
TEST_F(tas, syncobj_timeline_sync_file_imported_as_point)
{
	struct drm_syncobj_handle args;
	struct drm_tas_sync signal, wait;
	struct drm_tas_node node;
	__u32 src, dst, in, inc = 1;
	int sync_fd, timeline;

	timeline = tas_sw_sync_syncobj(self->fd, &in);
	if (timeline == -ENOENT)
		SKIP(return, "no %s (CONFIG_SW_SYNC, debugfs mounted?)",
		     SW_SYNC_PATH);
	ASSERT_LE(0, timeline);
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &src));
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &dst));
	tas_node_init(&node, 0, DRM_TAS_OP_NOP, TAS_NSEC_PER_MSEC);
	tas_sync_init(&wait, in, DRM_TAS_NODE_GRAPH, 0);
	tas_sync_init(&signal, src, 0, 1);
	ASSERT_EQ(0, tas_submit(self->fd, &node, 1, NULL, 0, &wait, 1, &signal,
				1, NULL));

	memset(&args, 0, sizeof(args));
	args.handle = src;
	args.flags = DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE |
		     DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_TIMELINE;
	args.point = 1;
	ASSERT_EQ(0, tas_ioctl(self->fd, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD,
			       &args));
	sync_fd = args.fd;

	memset(&args, 0, sizeof(args));
	args.fd = sync_fd;
	args.handle = dst;
	args.flags = DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE |
		     DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_TIMELINE;
	args.point = 5;
	ASSERT_EQ(0, tas_ioctl(self->fd, DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE,
			       &args));
	close(sync_fd);

	/* The node waits for the sw_sync fence. */
	EXPECT_EQ(-ETIME, tas_syncobj_timeline_wait(self->fd, dst, 5, 0));
	ASSERT_EQ(0, tas_ioctl(timeline, SW_SYNC_IOC_INC, &inc));
	ASSERT_EQ(0, tas_syncobj_timeline_wait(self->fd, dst, 5, TAS_WAIT_NS));
	ASSERT_EQ(0, tas_syncobj_timeline_wait(self->fd, src, 1, 0));

	close(timeline);
	tas_syncobj_destroy(self->fd, in);
	tas_syncobj_destroy(self->fd, dst);
	tas_syncobj_destroy(self->fd, src);
}

/*
 * Core syncobj code reached through the tas render node. A timeline point
 * signals only after the points before it, even when its own fence has
 * signalled first. A waiter of a point whose earlier points have all
 * signalled waits for the point's own fence rather than its chain node (one
 * hop less); until then it must wait for the chain. Point 1 is a node that
 * waits for a sw_sync fence, points 2 and 3 nodes that wait for nothing.
 * Once they are done, nothing sees point 3 (or 2) signalled until the test
 * signals the sw_sync fence: not a wait or an eventfd that finds the point
 * at once, nor a wait (in a child process) or an eventfd that started
 * before the point was submitted.
 */
TEST_F(tas, syncobj_timeline_wait_follows_earlier_point)
{
	struct drm_tas_sync signal[3], wait;
	struct drm_tas_node node;
	__u32 tl, in, out, inc = 1;
	int early, late, status, timeline;
	__u64 value;
	pid_t pid;

	early = eventfd(0, EFD_CLOEXEC);
	if (early < 0)
		SKIP(return, "no eventfd: %s (CONFIG_EVENTFD)", strerror(errno));
	late = eventfd(0, EFD_CLOEXEC);
	ASSERT_LE(0, late);
	timeline = tas_sw_sync_syncobj(self->fd, &in);
	if (timeline == -ENOENT)
		SKIP(return, "no %s (CONFIG_SW_SYNC, debugfs mounted?)",
		     SW_SYNC_PATH);
	ASSERT_LE(0, timeline);
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &tl));
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &out));

	tas_node_init(&node, 0, DRM_TAS_OP_NOP, TAS_NSEC_PER_MSEC);
	tas_sync_init(&wait, in, DRM_TAS_NODE_GRAPH, 0);
	tas_sync_init(&signal[0], tl, 0, 1);
	ASSERT_EQ(0, tas_submit(self->fd, &node, 1, NULL, 0, &wait, 1,
				signal, 1, NULL));

	/* Waiting before points 2 and 3 exist. */
	ASSERT_EQ(0, tas_syncobj_eventfd(self->fd, tl, 3, 0, early));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(tas_syncobj_timeline_wait(self->fd, tl, 3, TAS_WAIT_NS) ?
		      1 : 0);
	usleep(100 * 1000);

	tas_sync_init(&signal[0], tl, 0, 2);
	tas_sync_init(&signal[1], out, DRM_TAS_NODE_GRAPH, 0);
	ASSERT_EQ(0, tas_submit(self->fd, &node, 1, NULL, 0, NULL, 0,
				signal, 2, NULL));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, out));
	tas_sync_init(&signal[2], tl, 0, 3);
	ASSERT_EQ(0, tas_submit(self->fd, &node, 1, NULL, 0, NULL, 0,
				&signal[1], 2, NULL));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, out));

	/* Points 2 and 3's own fences have signalled; point 1's has not. */
	ASSERT_EQ(0, tas_syncobj_eventfd(self->fd, tl, 3, 0, late));
	EXPECT_EQ(-ETIME, tas_syncobj_timeline_wait(self->fd, tl, 3,
						    50 * TAS_NSEC_PER_MSEC));
	EXPECT_EQ(-ETIME, tas_syncobj_timeline_wait(self->fd, tl, 2, 0));
	EXPECT_EQ(-ETIME, tas_syncobj_timeline_wait(self->fd, tl, 1, 0));
	EXPECT_EQ(0, tas_eventfd_ready(early, 0));
	EXPECT_EQ(0, tas_eventfd_ready(late, 0));
	EXPECT_EQ(0, waitpid(pid, &status, WNOHANG))
		TH_LOG("the child's wait for point 3 returned");

	ASSERT_EQ(0, tas_ioctl(timeline, SW_SYNC_IOC_INC, &inc));
	ASSERT_EQ(0, tas_syncobj_timeline_wait(self->fd, tl, 3, TAS_WAIT_NS));
	ASSERT_EQ(0, tas_syncobj_timeline_wait(self->fd, tl, 1, 0));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ASSERT_EQ(1, tas_eventfd_ready(early, 10000));
	ASSERT_EQ(1, tas_eventfd_ready(late, 10000));
	ASSERT_EQ((ssize_t)sizeof(value), read(late, &value, sizeof(value)));
	EXPECT_EQ(1ULL, value);

	close(timeline);
	tas_syncobj_destroy(self->fd, out);
	tas_syncobj_destroy(self->fd, in);
	tas_syncobj_destroy(self->fd, tl);
	close(late);
	close(early);
}

/*
 * The syncobj array ioctls take a u32 count. A count whose arrays exceed
 * what kmalloc can give (2^21 handles) is served from vmalloc and gets the
 * answer for its handles (-ENOENT for handle 0), and a count that cannot
 * be allocated at all gets -ENOMEM, both without a warning (kmalloc warned
 * above MAX_PAGE_ORDER, kvmalloc above INT_MAX).
 */
TEST_F(tas, syncobj_array_ioctls_huge_counts)
{
	const __u32 big = 1U << 21;
	const size_t size = (size_t)big * sizeof(__u64);
	struct drm_syncobj_timeline_array array;
	struct drm_syncobj_timeline_wait twait;
	struct drm_syncobj_array reset;
	struct drm_syncobj_wait wait;
	void *zeros;

	zeros = mmap(NULL, size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		     0);
	ASSERT_NE(MAP_FAILED, zeros);

	memset(&wait, 0, sizeof(wait));
	wait.handles = (__u64)(uintptr_t)zeros;
	wait.count_handles = big;
	EXPECT_EQ(-ENOENT, tas_ioctl(self->fd, DRM_IOCTL_SYNCOBJ_WAIT, &wait));
	memset(&reset, 0, sizeof(reset));
	reset.handles = (__u64)(uintptr_t)zeros;
	reset.count_handles = big;
	EXPECT_EQ(-ENOENT, tas_ioctl(self->fd, DRM_IOCTL_SYNCOBJ_RESET,
				     &reset));

	memset(&array, 0, sizeof(array));
	array.handles = (__u64)(uintptr_t)zeros;
	array.points = (__u64)(uintptr_t)zeros;
	array.count_handles = big;
	EXPECT_EQ(-ENOENT, tas_ioctl(self->fd,
				     DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL,
				     &array));
	EXPECT_EQ(-ENOENT, tas_ioctl(self->fd, DRM_IOCTL_SYNCOBJ_QUERY,
				     &array));

	memset(&twait, 0, sizeof(twait));
	twait.handles = (__u64)(uintptr_t)zeros;
	twait.points = (__u64)(uintptr_t)zeros;
	twait.count_handles = big;
	EXPECT_EQ(-ENOENT, tas_ioctl(self->fd,
				     DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &twait));

	wait.count_handles = UINT32_MAX;
	EXPECT_EQ(-ENOMEM, tas_ioctl(self->fd, DRM_IOCTL_SYNCOBJ_WAIT, &wait));

	munmap(zeros, size);
	ASSERT_EQ(0, tas_run_nop(self->fd));
}

/* Removes @cap from the effective capabilities of the calling thread. */
static int tas_drop_capability(int cap)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	data[cap / 32].effective &= ~(1U << (cap % 32));
	return syscall(SYS_capset, &hdr, data) ? -errno : 0;
}

/*
 * The latency class runs at the scheduler's high priority: without
 * CAP_SYS_NICE it is refused (-EACCES, nothing runs or signals), with the
 * stock dispatch, which ignores classes, it is not; the other classes need
 * no privilege.
 */
TEST_F(tas, latency_class_needs_cap_sys_nice)
{
	struct drm_tas_node node, two[2];
	struct drm_tas_sync signal;
	__u32 syncobj, array, index;
	__u32 handle;

	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &syncobj));
	tas_sync_init(&signal, syncobj, DRM_TAS_NODE_GRAPH, 0);
	tas_node_init(&node, 0, DRM_TAS_OP_NOP, 0);
	node.class = DRM_TAS_CLASS_LATENCY;
	/* The harness runs as root: allowed. */
	ASSERT_EQ(0, tas_submit(self->fd, &node, 1, NULL, 0, NULL, 0, &signal,
				1, NULL));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, syncobj));
	tas_syncobj_destroy(self->fd, syncobj);

	ASSERT_EQ(0, tas_drop_capability(CAP_SYS_NICE));
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &syncobj));
	tas_sync_init(&signal, syncobj, DRM_TAS_NODE_GRAPH, 0);
	EXPECT_EQ(-EACCES, tas_submit(self->fd, &node, 1, NULL, 0, NULL, 0,
				      &signal, 1, NULL));
	EXPECT_EQ(0, tas_syncobj_has_fence(self->fd, syncobj));
	/* The error names the first node of the latency class. */
	tas_node_init(&two[0], 0, DRM_TAS_OP_NOP, 0);
	two[1] = node;
	EXPECT_EQ(-EACCES, tas_submit_blame(self->fd, two, 2, NULL, 0, NULL, 0,
					    NULL, 0, &array, &index));
	EXPECT_EQ((__u32)DRM_TAS_ERROR_NODES, array);
	EXPECT_EQ(1U, index);
	EXPECT_EQ(-EACCES, tas_template_create(self->fd, &node, 1, NULL, 0,
					       &handle));
	ASSERT_EQ(0, tas_submit_flags(self->fd, DRM_TAS_SUBMIT_FIFO, &node, 1,
				      NULL, 0, NULL, 0, &signal, 1, NULL));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, syncobj));
	node.class = DRM_TAS_CLASS_NORMAL;
	EXPECT_EQ(0, tas_submit(self->fd, &node, 1, NULL, 0, NULL, 0, NULL, 0,
				NULL));
	node.class = DRM_TAS_CLASS_BATCH;
	EXPECT_EQ(0, tas_template_create(self->fd, &node, 1, NULL, 0, &handle));
	EXPECT_EQ(0, tas_template_destroy(self->fd, handle));
	tas_syncobj_destroy(self->fd, syncobj);
	ASSERT_EQ(0, tas_run_nop(self->fd));
}

#define TAS_MAX_IN_FLIGHT	1024U

static void tas_on_alarm(int sig __maybe_unused)
{
}

/*
 * A file has at most 1024 graphs in flight. The next submission waits
 * until one of them completes (here: until a child process signals the
 * sw_sync fence they all wait for, after it wrote to a pipe), rather than
 * failing with -EAGAIN, which drmIoctl() would retry in a busy loop. A
 * signal ends the wait with -EINTR, and the interrupted submission has no
 * effect.
 */
TEST_F_TIMEOUT(tas, submit_waits_for_free_slot, 120)
{
	struct sigaction sa = { .sa_handler = tas_on_alarm };
	/* Every second, in case the first fires before the ioctl waits. */
	struct itimerval every_second = {
		.it_interval = { .tv_sec = 1 },
		.it_value = { .tv_sec = 1 },
	}, off = {};
	struct drm_tas_submit_graph args;
	struct drm_tas_sync wait, signal;
	struct drm_tas_node node;
	__u32 in, out, inc = 1, i;
	int timeline, status, pipefd[2];
	char byte;
	pid_t pid;

	timeline = tas_sw_sync_syncobj(self->fd, &in);
	if (timeline == -ENOENT)
		SKIP(return, "no %s (CONFIG_SW_SYNC, debugfs mounted?)",
		     SW_SYNC_PATH);
	ASSERT_LE(0, timeline);
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &out));

	tas_node_init(&node, 0, DRM_TAS_OP_NOP, 0);
	tas_sync_init(&wait, in, DRM_TAS_NODE_GRAPH, 0);
	tas_sync_init(&signal, out, DRM_TAS_NODE_GRAPH, 0);
	for (i = 0; i < TAS_MAX_IN_FLIGHT; i++)
		ASSERT_EQ(0, tas_submit(self->fd, &node, 1, NULL, 0, &wait, 1,
					NULL, 0, NULL))
			TH_LOG("graph %u", i);

	memset(&args, 0, sizeof(args));
	tas_array_init(&args.nodes, &node, 1, sizeof(node));
	tas_array_init(&args.signals, &signal, 1, sizeof(signal));

	/* A signal ends the wait; the submission had no effect. */
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &every_second, NULL));
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_TAS_SUBMIT_GRAPH, &args));
	EXPECT_EQ(EINTR, errno);
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &off, NULL));
	EXPECT_EQ(0, tas_syncobj_has_fence(self->fd, out));

	/* The wait ends when a graph completes. */
	ASSERT_EQ(0, pipe(pipefd));
	ASSERT_EQ(0, fcntl(pipefd[0], F_SETFL, O_NONBLOCK));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		usleep(200 * 1000);
		if (write(pipefd[1], "x", 1) != 1)
			_exit(1);
		_exit(ioctl(timeline, SW_SYNC_IOC_INC, &inc) ? 2 : 0);
	}
	EXPECT_EQ(0, ioctl(self->fd, DRM_IOCTL_TAS_SUBMIT_GRAPH, &args))
		TH_LOG("errno %d", errno);
	EXPECT_EQ(1, read(pipefd[0], &byte, 1))
		TH_LOG("the submission returned before a graph completed");
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* Behind the TAS_MAX_IN_FLIGHT graphs: seconds under KASAN. */
	ASSERT_EQ(0, tas_syncobj_wait(self->fd, out,
				      DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
				      TAS_WAIT_NS +
				      TAS_MAX_IN_FLIGHT * 10 * TAS_NSEC_PER_MSEC));

	close(pipefd[0]);
	close(pipefd[1]);
	close(timeline);
	tas_syncobj_destroy(self->fd, out);
	tas_syncobj_destroy(self->fd, in);
	ASSERT_EQ(0, tas_run_nop(self->fd));
}

#define TAS_MAX_BUDGET_GRAPHS	8

/*
 * Besides 1024 graphs, a file has at most DRM_TAS_PARAM_MAX_NODES_IN_FLIGHT
 * nodes in flight, graphs of the stock dispatch included: the next
 * submission waits until enough of them complete, and a signal ends the
 * wait with -EINTR and no effect. The results it keeps for GRAPH_INFO are
 * bounded to 65536 nodes too.
 */

TEST_F_TIMEOUT(tas, submit_waits_for_node_budget, 300)
{
	struct sigaction sa = { .sa_handler = tas_on_alarm };
	/* Every second, in case the first fires before the ioctl waits. */
	struct itimerval every_second = {
		.it_interval = { .tv_sec = 1 },
		.it_value = { .tv_sec = 1 },
	}, off = {};
	struct drm_tas_submit_graph args;
	struct drm_tas_sync wait, signal;
	__u64 max_nodes = 0, budget = 0;
	struct drm_tas_node *nodes;
	struct drm_tas_node_info *info;
	__u32 in, out, inc = 1, i, graphs, done;
	__u64 ids[TAS_MAX_BUDGET_GRAPHS];
	int timeline;

	ASSERT_EQ(0, tas_get_param(self->fd, DRM_TAS_PARAM_MAX_NODES, 0,
				   &max_nodes));
	ASSERT_EQ(0, tas_get_param(self->fd, DRM_TAS_PARAM_MAX_NODES_IN_FLIGHT,
				   0, &budget));
	ASSERT_EQ(0ULL, budget % max_nodes);
	graphs = budget / max_nodes;
	ASSERT_LE(graphs, ARRAY_SIZE(ids));
	/* Fewer graphs than launch slots: the nodes are what runs out. */
	ASSERT_LT(graphs, TAS_MAX_IN_FLIGHT);

	timeline = tas_sw_sync_syncobj(self->fd, &in);
	if (timeline == -ENOENT)
		SKIP(return, "no %s (CONFIG_SW_SYNC, debugfs mounted?)",
		     SW_SYNC_PATH);
	ASSERT_LE(0, timeline);
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &out));

	nodes = tas_nop_nodes(max_nodes, self->num_rings);
	ASSERT_NE(NULL, nodes);
	tas_sync_init(&wait, in, DRM_TAS_NODE_GRAPH, 0);
	tas_sync_init(&signal, out, DRM_TAS_NODE_GRAPH, 0);
	/* Half of them with the stock dispatch, which counts too. */
	for (i = 0; i < graphs; i++)
		ASSERT_EQ(0, tas_submit_flags(self->fd,
					      i % 2 ? DRM_TAS_SUBMIT_FIFO : 0,
					      nodes, max_nodes, NULL, 0, &wait,
					      1, NULL, 0, &ids[i]))
			TH_LOG("graph %u", i);

	memset(&args, 0, sizeof(args));
	tas_array_init(&args.nodes, nodes, 1, sizeof(*nodes));
	tas_array_init(&args.signals, &signal, 1, sizeof(signal));
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	for (i = 0; i < 2; i++) {
		args.flags = i ? DRM_TAS_SUBMIT_FIFO : 0;
		ASSERT_EQ(0, setitimer(ITIMER_REAL, &every_second, NULL));
		EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_TAS_SUBMIT_GRAPH,
				    &args));
		EXPECT_EQ(EINTR, errno);
		ASSERT_EQ(0, setitimer(ITIMER_REAL, &off, NULL));
		EXPECT_EQ(0, tas_syncobj_has_fence(self->fd, out));
	}

	/*
	 * Once the graphs completed, there is room again. The nodes of the
	 * graphs in flight run first: allow for them under TCG.
	 */
	ASSERT_EQ(0, ioctl(timeline, SW_SYNC_IOC_INC, &inc));
	args.flags = 0;
	ASSERT_EQ(0, tas_ioctl(self->fd, DRM_IOCTL_TAS_SUBMIT_GRAPH, &args));
	ASSERT_EQ(0, tas_syncobj_wait(self->fd, out,
				      DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
				      12 * TAS_WAIT_NS));

	/*
	 * The file keeps the results of its graphs with at most 65536 nodes
	 * together (they hold the nodes' state, about 1 KiB each): with the
	 * last graph's node, the first of the large ones had to go.
	 */
	info = calloc(max_nodes, sizeof(*info));
	ASSERT_NE(NULL, info);
	EXPECT_EQ(-ENOENT, tas_graph_info(self->fd, ids[0], info, max_nodes,
					  &done));
	for (i = 1; i < graphs; i++)
		EXPECT_EQ(0, tas_graph_info(self->fd, ids[i], info, max_nodes,
					    &done))
			TH_LOG("graph %u", i);
	EXPECT_EQ(0, tas_graph_info(self->fd, args.graph_id, info, 1, &done));
	free(info);
	free(nodes);
	close(timeline);
	tas_syncobj_destroy(self->fd, out);
	tas_syncobj_destroy(self->fd, in);
	ASSERT_EQ(0, tas_run_nop(self->fd));
}

/*
 * A file's templates have at most DRM_TAS_PARAM_MAX_TEMPLATE_NODES nodes
 * together: one more is refused with -ENOSPC, and destroying a template
 * makes room.
 */
TEST_F_TIMEOUT(tas, template_node_limit, 300)
{
	__u64 max_nodes = 0, limit = 0;
	struct drm_tas_sync signal;
	struct drm_tas_node *nodes;
	__u32 handles[64], handle, i, count, syncobj;

	ASSERT_EQ(0, tas_get_param(self->fd, DRM_TAS_PARAM_MAX_NODES, 0,
				   &max_nodes));
	ASSERT_EQ(0, tas_get_param(self->fd, DRM_TAS_PARAM_MAX_TEMPLATE_NODES,
				   0, &limit));
	ASSERT_EQ(0ULL, limit % max_nodes);
	count = limit / max_nodes;
	ASSERT_LT(count, ARRAY_SIZE(handles));

	nodes = tas_nop_nodes(max_nodes, self->num_rings);
	ASSERT_NE(NULL, nodes);
	for (i = 0; i < count; i++)
		ASSERT_EQ(0, tas_template_create(self->fd, nodes, max_nodes,
						 NULL, 0, &handles[i]))
			TH_LOG("template %u", i);
	EXPECT_EQ(-ENOSPC, tas_template_create(self->fd, nodes, 1, NULL, 0,
					       &handle));
	/* A graph above the per-graph limit is still -E2BIG. */
	EXPECT_EQ(-E2BIG, tas_template_create(self->fd, nodes, max_nodes + 1,
					      NULL, 0, &handle));
	ASSERT_EQ(0, tas_template_destroy(self->fd, handles[0]));
	ASSERT_EQ(0, tas_template_create(self->fd, nodes, max_nodes, NULL, 0,
					 &handles[0]));
	EXPECT_EQ(-ENOSPC, tas_template_create(self->fd, nodes, 1, NULL, 0,
					       &handle));
	/*
	 * Launches of templates at the limit still work. The launch's nodes
	 * run before the NOP below: about 1 ms each on the lockdep kernel.
	 */
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &syncobj));
	tas_sync_init(&signal, syncobj, DRM_TAS_NODE_GRAPH, 0);
	ASSERT_EQ(0, tas_template_launch(self->fd, handles[1], NULL, 0,
					 &signal, 1, NULL));
	for (i = 0; i < count; i++)
		EXPECT_EQ(0, tas_template_destroy(self->fd, handles[i]));
	free(nodes);
	ASSERT_EQ(0, tas_syncobj_wait(self->fd, syncobj,
				      DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
				      TAS_WAIT_NS +
				      max_nodes * 5 * TAS_NSEC_PER_MSEC));
	tas_syncobj_destroy(self->fd, syncobj);
	ASSERT_EQ(0, tas_run_nop(self->fd));
}

static int tas_write_file(const char *path, const char *value)
{
	int fd, ret = 0;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, value, strlen(value)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

#define TAS_CGROUP_ROOT		"/sys/fs/cgroup"
#define TAS_CGROUP_MARGIN	(4ULL << 20)

static int tas_write_u64(const char *dir, const char *file, __u64 value)
{
	char path[256], buf[32];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)value);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, buf, strlen(buf)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* Reads the value of KEY in a flat-keyed cgroup file, or the file's number. */
static int tas_read_cgroup(const char *dir, const char *file,
			   const char *key, __u64 *value)
{
	char path[256], name[64];
	unsigned long long v;
	int ret = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	if (!key) {
		ret = fscanf(f, "%llu", &v) == 1 ? 0 : -EINVAL;
	} else {
		while (fscanf(f, "%63s %llu", name, &v) == 2) {
			if (!strcmp(name, key)) {
				ret = 0;
				break;
			}
		}
	}
	fclose(f);
	if (!ret)
		*value = v;
	return ret;
}

/*
 * Mounts cgroup v2 with the memory controller and moves the process into a
 * new cgroup, whose path it writes to @dir. Returns 0, 1 when the kernel has
 * no cgroup2 or no memory controller, or -errno.
 */
static int tas_memcg_enter(char *dir, size_t len)
{
	char ctrl[256];
	int fd;

	if (mount("none", TAS_CGROUP_ROOT, "cgroup2", 0, NULL) &&
	    errno != EBUSY)
		return errno == ENODEV || errno == ENOENT ? 1 : -errno;
	fd = open(TAS_CGROUP_ROOT "/cgroup.controllers", O_RDONLY);
	if (fd < 0)
		return -errno;
	memset(ctrl, 0, sizeof(ctrl));
	if (read(fd, ctrl, sizeof(ctrl) - 1) <= 0) {
		close(fd);
		return -EIO;
	}
	close(fd);
	if (!strstr(ctrl, "memory"))
		return 1;
	if (tas_write_file(TAS_CGROUP_ROOT "/cgroup.subtree_control", "+memory"))
		return -EIO;
	snprintf(dir, len, TAS_CGROUP_ROOT "/tas_test.%d", getpid());
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	return tas_write_u64(dir, "cgroup.procs", getpid());
}

/*
 * What a submission allocates is charged to the submitter's memory cgroup:
 * in a cgroup whose memory.max leaves a few MiB, the largest graph fails
 * with -ENOMEM, the memcg OOM killer is not invoked (memory.events) and
 * the kernel logs nothing (the QEMU run's log scan fails on OOM and
 * allocation failure reports), and a small graph then works.
 *
 * So does a syncobj wait on 2^24 handles (a 64 MiB array the kernel
 * allocates and charges): the array ioctls allocate with
 * __GFP_RETRY_MAYFAIL, so a count that does not fit fails with -ENOMEM
 * instead of making the OOM killer kill the caller (or, outside of a
 * cgroup, other processes). It comes last, and memory.max is lifted right
 * after it through a file opened before: under KASAN the cgroup can stay at
 * its limit for a moment after the failed vmalloc, and the next charged
 * allocation (any open()) would then invoke the OOM killer, which is not
 * what this checks. memory.events still counts any OOM of the call itself.
 */
TEST_F_TIMEOUT(tas, memcg_limit_fails_submission_quietly, 120)
{
	__u64 max_nodes = 0, current = 0, events_max = 0, oom = 1, kills = 1;
	const __u32 many = 1U << 24;
	const size_t size = (size_t)many * sizeof(__u32);
	struct drm_syncobj_wait wait;
	struct drm_tas_node *nodes;
	unsigned int sum = 0;
	const char *zeros;
	char dir[64], path[128];
	int ret, max_fd;
	size_t off;

	ASSERT_EQ(0, tas_get_param(self->fd, DRM_TAS_PARAM_MAX_NODES, 0,
				   &max_nodes));
	/* The process's own memory, before it enters the cgroup. */
	nodes = tas_nop_nodes(max_nodes, self->num_rings);
	ASSERT_NE(NULL, nodes);
	/*
	 * The handles: zero pages, faulted in (their page tables charged)
	 * before the process enters the cgroup.
	 */
	zeros = mmap(NULL, size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		     0);
	ASSERT_NE(MAP_FAILED, zeros);
	for (off = 0; off < size; off += 4096)
		sum += zeros[off];
	ASSERT_EQ(0U, sum);

	ret = tas_memcg_enter(dir, sizeof(dir));
	if (ret == 1)
		SKIP(return, "no cgroup2 memory controller (CONFIG_MEMCG not enabled?)");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, tas_read_cgroup(dir, "memory.current", NULL, &current));
	ASSERT_EQ(0, tas_write_u64(dir, "memory.max",
				   current + TAS_CGROUP_MARGIN));

	EXPECT_EQ(-ENOMEM, tas_submit(self->fd, nodes, max_nodes, NULL, 0, NULL,
				      0, NULL, 0, NULL));
	EXPECT_EQ(-ENOMEM, tas_submit_flags(self->fd, DRM_TAS_SUBMIT_FIFO,
					    nodes, max_nodes, NULL, 0, NULL, 0,
					    NULL, 0, NULL));
	ASSERT_EQ(0, tas_read_cgroup(dir, "memory.events", "max", &events_max));
	ASSERT_EQ(0, tas_read_cgroup(dir, "memory.events", "oom", &oom));
	ASSERT_EQ(0, tas_read_cgroup(dir, "memory.events", "oom_kill", &kills));
	EXPECT_LT(0ULL, events_max);
	EXPECT_EQ(0ULL, oom);
	EXPECT_EQ(0ULL, kills);
	/* Small work still fits. */
	EXPECT_EQ(0, tas_run_nop(self->fd));
	EXPECT_EQ(0, tas_submit(self->fd, nodes, 64, NULL, 0, NULL, 0, NULL, 0,
				NULL));

	snprintf(path, sizeof(path), "%s/memory.max", dir);
	max_fd = open(path, O_WRONLY);
	ASSERT_LE(0, max_fd);
	memset(&wait, 0, sizeof(wait));
	wait.handles = (__u64)(uintptr_t)zeros;
	wait.count_handles = many;
	EXPECT_EQ(-ENOMEM, tas_ioctl(self->fd, DRM_IOCTL_SYNCOBJ_WAIT, &wait));
	EXPECT_EQ(3, write(max_fd, "max", 3));
	close(max_fd);
	ASSERT_EQ(0, tas_read_cgroup(dir, "memory.events", "oom", &oom));
	ASSERT_EQ(0, tas_read_cgroup(dir, "memory.events", "oom_kill", &kills));
	EXPECT_EQ(0ULL, oom);
	EXPECT_EQ(0ULL, kills);

	ASSERT_EQ(0, tas_write_u64(TAS_CGROUP_ROOT, "cgroup.procs", getpid()));
	munmap((void *)zeros, size);
	free(nodes);
}

/* Reads memory.current until it has not changed for 500 ms (at most 20 s). */
static __u64 tas_memcg_settled(const char *dir)
{
	__u64 last = 0, now = 0;
	int i, same = 0;

	for (i = 0; i < 400 && same < 10; i++) {
		usleep(50000);
		if (tas_read_cgroup(dir, "memory.current", NULL, &now))
			return 0;
		same = now == last ? same + 1 : 0;
		last = now;
	}
	return now;
}

/*
 * What opening the device allocates for the file (its scheduler entities,
 * one per ring and class, and its dispatcher's launch slots: about 40 KiB
 * with 4 rings) is charged to the opener's memory cgroup: 512 opens add at
 * least 12 KiB each to memory.current, and closing the files gives it back
 * (within 2 KiB a file: the cgroup's per-CPU charge caches and the grown
 * file table stay). Without the driver's charging the opens added 4 KiB
 * each (the struct file and what the VFS and the DRM core charge), and a
 * process could pin memory outside of its cgroup by opening the device.
 */
#define TAS_OPENS	512

TEST_F_TIMEOUT(tas, memcg_charges_open, 120)
{
	__u64 before, with, after;
	char dir[64], path[64], node[64];
	int fds[TAS_OPENS];
	unsigned int i;
	ssize_t len;
	int ret;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", self->fd);
	len = readlink(path, node, sizeof(node) - 1);
	ASSERT_LT(0, len);
	node[len] = 0;

	ret = tas_memcg_enter(dir, sizeof(dir));
	if (ret == 1)
		SKIP(return, "no cgroup2 memory controller (CONFIG_MEMCG not enabled?)");
	ASSERT_EQ(0, ret);
	before = tas_memcg_settled(dir);
	ASSERT_LT(0ULL, before);
	for (i = 0; i < TAS_OPENS; i++) {
		fds[i] = open(node, O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, fds[i]);
	}
	with = tas_memcg_settled(dir);
	for (i = 0; i < TAS_OPENS; i++)
		close(fds[i]);
	after = tas_memcg_settled(dir);
	TH_LOG("memory.current: %llu before, %llu with %u files open, %llu after",
	       (unsigned long long)before, (unsigned long long)with, TAS_OPENS,
	       (unsigned long long)after);
	EXPECT_LE(before + TAS_OPENS * 12288ULL, with);
	EXPECT_GT(before + TAS_OPENS * 2048ULL, after);

	ASSERT_EQ(0, tas_write_u64(TAS_CGROUP_ROOT, "cgroup.procs", getpid()));
}

/*
 * The instances of a template that the driver prepares in a work item, for
 * launches to come, are charged to the memory cgroup of the template's
 * creator, like the template itself: a template of the largest graph adds
 * its nodes (112 bytes each, and the checked operations and plan) plus two
 * prepared instances (the jobs, fences and per-node state, about 1 KiB per
 * node) to the cgroup's memory.current, and gives them back when it is
 * destroyed. Uncharged instances would leave a growth of a few hundred bytes
 * per node.
 */
TEST_F_TIMEOUT(tas, memcg_charges_template_instances, 120)
{
	__u64 max_nodes = 0, before, with, after;
	struct drm_tas_node *nodes;
	__u32 handle = 0;
	char dir[64];
	int ret;

	ASSERT_EQ(0, tas_get_param(self->fd, DRM_TAS_PARAM_MAX_NODES, 0,
				   &max_nodes));
	nodes = tas_nop_nodes(max_nodes, self->num_rings);
	ASSERT_NE(NULL, nodes);

	ret = tas_memcg_enter(dir, sizeof(dir));
	if (ret == 1)
		SKIP(return, "no cgroup2 memory controller (CONFIG_MEMCG not enabled?)");
	ASSERT_EQ(0, ret);
	before = tas_memcg_settled(dir);
	ASSERT_LT(0ULL, before);
	ASSERT_EQ(0, tas_template_create(self->fd, nodes, max_nodes, NULL, 0,
					 &handle));
	with = tas_memcg_settled(dir);
	ASSERT_EQ(0, tas_template_destroy(self->fd, handle));
	after = tas_memcg_settled(dir);
	TH_LOG("memory.current: %llu before, %llu with the template, %llu after",
	       (unsigned long long)before, (unsigned long long)with,
	       (unsigned long long)after);
	EXPECT_LE(before + max_nodes * 1024, with);
	EXPECT_GT(before + max_nodes * 128, after);

	ASSERT_EQ(0, tas_write_u64(TAS_CGROUP_ROOT, "cgroup.procs", getpid()));
	free(nodes);
}

/*
 * Fault injection, as syzkaller does it: the n-th allocation of one call
 * fails, for n = 1, 2, ... until the call makes fewer than n allocations
 * (/proc/thread-self/fail-nth, with CONFIG_FAILSLAB and
 * CONFIG_FAIL_PAGE_ALLOC set up to fail GFP_KERNEL allocations of any
 * order). A call that fails returns -ENOMEM and has no effect: no node runs
 * and no syncobj changes. A call that succeeds although an allocation failed
 * does everything it promises. Leaks are left to kmemleak (make qemu-kasan).
 */
#define TAS_DEBUGFS		"/sys/kernel/debug/"
#define TAS_FAULT_MAX_CALLS	100000U
#define TAS_FAULT_WORDS		16

/*
 * Makes the n-th allocation of the calling thread fail on demand, quietly.
 * Returns the fail-nth file descriptor, or -errno (-ENOENT on a kernel
 * without fault injection).
 */
static int tas_failnth_open(void)
{
	static const char *const knobs[][2] = {
		{ "failslab/ignore-gfp-wait", "N" },
		{ "failslab/verbose", "0" },
		{ "fail_page_alloc/ignore-gfp-wait", "N" },
		{ "fail_page_alloc/ignore-gfp-highmem", "N" },
		{ "fail_page_alloc/min-order", "0" },
		{ "fail_page_alloc/verbose", "0" },
	};
	char path[128];
	unsigned int i;
	int fd, ret;

	fd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (fd < 0)
		return -errno;
	for (i = 0; i < ARRAY_SIZE(knobs); i++) {
		snprintf(path, sizeof(path), TAS_DEBUGFS "%s", knobs[i][0]);
		ret = tas_write_file(path, knobs[i][1]);
		if (ret) {
			close(fd);
			return ret;
		}
	}
	return fd;
}

/* Puts the defaults back: other tasks' allocations are never failed. */
static void tas_failnth_close(int fd)
{
	tas_write_file(TAS_DEBUGFS "failslab/ignore-gfp-wait", "Y");
	tas_write_file(TAS_DEBUGFS "fail_page_alloc/ignore-gfp-wait", "Y");
	tas_write_file(TAS_DEBUGFS "fail_page_alloc/min-order", "1");
	close(fd);
}

/* Fails the n-th allocation of the calling thread from now on. */
static int tas_fault_arm(int fd, unsigned int n)
{
	char buf[16];
	int len;

	len = snprintf(buf, sizeof(buf), "%u", n);
	return write(fd, buf, len) == len ? 0 : -errno;
}

/* Disarms; returns whether the armed allocation failed. */
static bool tas_fault_fired(int fd)
{
	char buf[16] = { 0 };
	bool fired;

	fired = pread(fd, buf, sizeof(buf) - 1, 0) > 0 && atoi(buf) == 0;
	if (write(fd, "0", 1) != 1)
		return false;
	return fired;
}

static int tas_syncobj_query(int fd, __u32 handle, __u64 *point)
{
	struct drm_syncobj_timeline_array args;

	memset(&args, 0, sizeof(args));
	args.handles = (__u64)(uintptr_t)&handle;
	args.points = (__u64)(uintptr_t)point;
	args.count_handles = 1;
	return tas_ioctl(fd, DRM_IOCTL_SYNCOBJ_QUERY, &args);
}

enum tas_fault_call {
	TAS_FAULT_SUBMIT,
	TAS_FAULT_SUBMIT_FIFO,
	TAS_FAULT_GRAPH_INFO,
	TAS_FAULT_TEMPLATE_LAUNCH,
	TAS_FAULT_TEMPLATE_CREATE,
};

/* Whether @call runs the graph (and may change its syncobjs). */
static bool tas_fault_runs_graph(enum tas_fault_call call)
{
	switch (call) {
	case TAS_FAULT_SUBMIT:
	case TAS_FAULT_SUBMIT_FIFO:
	case TAS_FAULT_TEMPLATE_LAUNCH:
		return true;
	default:
		return false;
	}
}

FIXTURE(tas_fault) {
	int fd;
	int nth;
	__u32 bo;
	__u32 *mem;
	__u32 tpl;
	__u64 graph_id;
	struct drm_tas_node nodes[2];
	struct drm_tas_edge edge;
};

FIXTURE_VARIANT(tas_fault) {
	enum tas_fault_call call;
};

FIXTURE_VARIANT_ADD(tas_fault, submit_graph) {
	.call = TAS_FAULT_SUBMIT,
};

FIXTURE_VARIANT_ADD(tas_fault, submit_graph_fifo) {
	.call = TAS_FAULT_SUBMIT_FIFO,
};

FIXTURE_VARIANT_ADD(tas_fault, graph_info) {
	.call = TAS_FAULT_GRAPH_INFO,
};

FIXTURE_VARIANT_ADD(tas_fault, template_launch) {
	.call = TAS_FAULT_TEMPLATE_LAUNCH,
};

FIXTURE_VARIANT_ADD(tas_fault, template_create) {
	.call = TAS_FAULT_TEMPLATE_CREATE,
};

/*
 * Node 0 (ring 0) fills the first words of the buffer, node 1 (ring 1)
 * copies them behind.
 */
FIXTURE_SETUP(tas_fault)
{
	const __u64 range = TAS_FAULT_WORDS * sizeof(__u32);
	struct drm_tas_sync signal;
	__u64 num_rings = 1;
	__u32 syncobj;

	self->nth = -1;
	self->fd = tas_open_render_node();
	if (self->fd < 0)
		SKIP(return, "no tas render node (CONFIG_DRM_TAS not enabled?)");
	ASSERT_EQ(0, tas_get_param(self->fd, DRM_TAS_PARAM_NUM_RINGS, 0,
				   &num_rings));
	ASSERT_EQ(0, tas_bo_create_map(self->fd, 2 * range, &self->bo,
				       (void **)&self->mem));
	tas_node_init(&self->nodes[0], 0, DRM_TAS_OP_FILL, 0);
	self->nodes[0].imm = 0x5a5a5a5a;
	tas_buf_init(&self->nodes[0].dst, self->bo, 0, range);
	tas_node_init(&self->nodes[1], 1 % num_rings, DRM_TAS_OP_COPY, 0);
	tas_buf_init(&self->nodes[1].src[0], self->bo, 0, range);
	tas_buf_init(&self->nodes[1].dst, self->bo, range, range);
	tas_edge_init(&self->edge, 0, 1);
	ASSERT_EQ(0, tas_template_create(self->fd, self->nodes, 2, &self->edge,
					 1, &self->tpl));
	/* GRAPH_INFO's graph; done before the tests look at the buffer. */
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &syncobj));
	tas_sync_init(&signal, syncobj, DRM_TAS_NODE_GRAPH, 0);
	ASSERT_EQ(0, tas_submit(self->fd, self->nodes, 2, &self->edge, 1, NULL,
				0, &signal, 1, &self->graph_id));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, syncobj));
	tas_syncobj_destroy(self->fd, syncobj);

	self->nth = tas_failnth_open();
	if (self->nth == -ENOENT)
		SKIP(return, "no fault injection (%s)",
		     "CONFIG_FAILSLAB, CONFIG_FAULT_INJECTION_DEBUG_FS");
	ASSERT_LE(0, self->nth);
}

FIXTURE_TEARDOWN(tas_fault)
{
	if (self->nth >= 0)
		tas_failnth_close(self->nth);
	if (self->fd >= 0)
		close(self->fd);
}

/* Submits or launches the graph, signalling @binary and point 1 of @timeline. */
static int tas_fault_run(int fd, enum tas_fault_call call, __u32 tpl,
			 const struct drm_tas_node *nodes,
			 const struct drm_tas_edge *edge, __u32 binary,
			 __u32 timeline)
{
	struct drm_tas_sync signals[2];

	tas_sync_init(&signals[0], binary, DRM_TAS_NODE_GRAPH, 0);
	tas_sync_init(&signals[1], timeline, 1, 1);
	switch (call) {
	case TAS_FAULT_SUBMIT:
		return tas_submit(fd, nodes, 2, edge, 1, NULL, 0, signals, 2,
				  NULL);
	case TAS_FAULT_SUBMIT_FIFO:
		return tas_submit_flags(fd, DRM_TAS_SUBMIT_FIFO, nodes, 2, edge,
					1, NULL, 0, signals, 2, NULL);
	case TAS_FAULT_TEMPLATE_LAUNCH:
		return tas_template_launch(fd, tpl, NULL, 0, signals, 2, NULL);
	default:
		return -EINVAL;
	}
}

/* Makes one call of the variant's kind, with the n-th allocation failing. */
TEST_F_TIMEOUT(tas_fault, nth_allocation_fails, 300)
{
	enum tas_fault_call call = variant->call;
	struct drm_tas_node_info info[2];
	bool graph = tas_fault_runs_graph(call);
	__u32 binary = 0, timeline = 0;
	__u32 handle = 0;
	unsigned int n, failed = 0, tolerated = 0;
	__u64 point;
	bool fired;
	int i, ret;

	for (n = 1; n < TAS_FAULT_MAX_CALLS; n++) {
		if (graph) {
			memset(self->mem, 0, 2 * TAS_FAULT_WORDS * sizeof(__u32));
			ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &binary));
			ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &timeline));
		}

		ASSERT_EQ(0, tas_fault_arm(self->nth, n));
		switch (call) {
		case TAS_FAULT_TEMPLATE_CREATE:
			ret = tas_template_create(self->fd, self->nodes, 2,
						  &self->edge, 1, &handle);
			break;
		case TAS_FAULT_GRAPH_INFO:
			ret = tas_graph_info(self->fd, self->graph_id, info, 2,
					     NULL);
			break;
		default:
			ret = tas_fault_run(self->fd, call, self->tpl,
					    self->nodes, &self->edge, binary,
					    timeline);
			break;
		}
		fired = tas_fault_fired(self->nth);

		if (ret) {
			ASSERT_TRUE(fired) TH_LOG("n=%u: %d without a fault", n, ret);
			ASSERT_EQ(-ENOMEM, ret) TH_LOG("n=%u", n);
			failed++;
		} else {
			tolerated += fired;
			if (call == TAS_FAULT_TEMPLATE_CREATE)
				ASSERT_EQ(0, tas_template_destroy(self->fd, handle));
		}

		if (graph && ret) {
			/* No syncobj changed, and no node ran: once a node
			 * queued behind any on ring 0 has run, node 0 would
			 * have.
			 */
			EXPECT_EQ(0, tas_syncobj_has_fence(self->fd, binary))
				TH_LOG("n=%u", n);
			ASSERT_EQ(0, tas_syncobj_query(self->fd, timeline, &point));
			EXPECT_EQ(0ULL, point) TH_LOG("n=%u", n);
			ASSERT_EQ(0, tas_run_nop(self->fd));
			for (i = 0; i < TAS_FAULT_WORDS; i++)
				ASSERT_EQ(0U, self->mem[i])
					TH_LOG("n=%u: node 0 ran", n);
		} else if (graph) {
			ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, binary))
				TH_LOG("n=%u", n);
			ASSERT_EQ(0, tas_syncobj_timeline_wait(self->fd, timeline,
							       1, TAS_WAIT_NS))
				TH_LOG("n=%u", n);
			for (i = 0; i < 2 * TAS_FAULT_WORDS; i++)
				ASSERT_EQ(0x5a5a5a5aU, self->mem[i])
					TH_LOG("n=%u: word %d", n, i);
		}
		if (graph) {
			tas_syncobj_destroy(self->fd, binary);
			tas_syncobj_destroy(self->fd, timeline);
		}
		if (!fired)
			break;
	}
	ASSERT_LT(n, TAS_FAULT_MAX_CALLS);
	TH_LOG("%u calls failed with -ENOMEM, %u succeeded despite a failed allocation",
	       failed, tolerated);
	ASSERT_EQ(0, tas_run_nop(self->fd));
}

/*
 * BO_CREATE with its n-th allocation failed, for every n until it makes
 * fewer than n allocations, fails with -ENOMEM or succeeds completely.
 */
FIXTURE(tas_nth) {
	int fd;
	int nth;
};

FIXTURE_SETUP(tas_nth)
{
	self->nth = -1;
	self->fd = tas_open_render_node();
	if (self->fd < 0)
		SKIP(return, "no tas render node (CONFIG_DRM_TAS not enabled?)");
	self->nth = tas_failnth_open();
	if (self->nth == -ENOENT)
		SKIP(return, "no fault injection (%s)",
		     "CONFIG_FAILSLAB, CONFIG_FAULT_INJECTION_DEBUG_FS");
	ASSERT_LE(0, self->nth);
}

FIXTURE_TEARDOWN(tas_nth)
{
	if (self->nth >= 0)
		tas_failnth_close(self->nth);
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F_TIMEOUT(tas_nth, bo_create, 300)
{
	unsigned int n, failed = 0, tolerated = 0;
	__u32 handle = 0;
	void *map;
	bool fired;
	int ret;

	for (n = 1; n < TAS_FAULT_MAX_CALLS; n++) {
		ASSERT_EQ(0, tas_fault_arm(self->nth, n));
		ret = tas_bo_create(self->fd, 1 << 20, 0, &handle);
		fired = tas_fault_fired(self->nth);
		if (ret) {
			ASSERT_TRUE(fired) TH_LOG("n=%u: %d without a fault", n, ret);
			ASSERT_EQ(-ENOMEM, ret) TH_LOG("n=%u", n);
			failed++;
		} else {
			/* The buffer works: it maps, zeroed. */
			tolerated += fired;
			ASSERT_EQ(0, tas_bo_map(self->fd, handle, 1 << 20, &map))
				TH_LOG("n=%u", n);
			EXPECT_EQ(0U, ((__u32 *)map)[(1 << 18) - 1]) TH_LOG("n=%u", n);
			munmap(map, 1 << 20);
			ASSERT_EQ(0, tas_bo_close(self->fd, handle));
		}
		if (!fired)
			break;
	}
	ASSERT_LT(n, TAS_FAULT_MAX_CALLS);
	TH_LOG("%u calls failed with -ENOMEM, %u succeeded despite a failed allocation",
	       failed, tolerated);
}

static int tas_host_done(int fd, __u64 graph_id, __u32 node, __s32 error)
{
	struct drm_tas_host_done args = {
		.graph_id = graph_id,
		.node = node,
		.error = error,
	};

	return tas_ioctl(fd, DRM_IOCTL_TAS_HOST_DONE, &args);
}

/* A signal of @node's timeline point @point when the host node is released. */
static void tas_sync_on_start(struct drm_tas_sync *sync, __u32 handle,
			      __u32 node, __u64 point)
{
	tas_sync_init(sync, handle, node, point);
	sync->flags = DRM_TAS_SYNC_ON_START;
}

/*
 * GPU node 0 -> host node 1 -> GPU node 2 in one graph. The thread wakes on
 * the host node's start point once node 0 has finished; node 2 does not
 * start before the thread reports, and starts after it did.
 */
TEST_F(tas, host_gpu_cpu_gpu_chain)
{
	struct drm_tas_node_info info[3];
	struct drm_tas_sync signals[2];
	struct drm_tas_node nodes[3];
	struct drm_tas_edge edges[2];
	__u32 start, graph_sig, done = 1;
	__u64 graph_id, woken;

	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &start));
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &graph_sig));
	tas_node_init(&nodes[0], 0, DRM_TAS_OP_NOP, 20 * TAS_NSEC_PER_MSEC);
	tas_node_init(&nodes[1], 0, DRM_TAS_OP_HOST, 0);
	tas_node_init(&nodes[2], 1 % self->num_rings, DRM_TAS_OP_NOP,
		      TAS_NSEC_PER_MSEC);
	tas_edge_init(&edges[0], 0, 1);
	tas_edge_init(&edges[1], 1, 2);
	tas_sync_on_start(&signals[0], start, 1, 1);
	tas_sync_init(&signals[1], graph_sig, DRM_TAS_NODE_GRAPH, 0);
	ASSERT_EQ(0, tas_submit(self->fd, nodes, 3, edges, 2, NULL, 0, signals,
				2, &graph_id));

	ASSERT_EQ(0, tas_syncobj_timeline_wait(self->fd, start, 1, TAS_WAIT_NS));
	woken = tas_now_ns();
	ASSERT_EQ(0, tas_graph_info(self->fd, graph_id, info, 3, &done));
	EXPECT_EQ(0U, done);
	ASSERT_NE(0ULL, info[0].finished_ns);
	EXPECT_LE(info[0].finished_ns, info[1].started_ns);
	EXPECT_LE(info[1].started_ns, woken);
	EXPECT_EQ(0ULL, info[1].finished_ns);
	EXPECT_EQ(0ULL, info[2].started_ns);
	EXPECT_EQ(self->num_rings, (__u64)info[1].ring);
	TH_LOG("woken %llu us after node 0 finished",
	       (unsigned long long)(woken - info[0].finished_ns) /
		       TAS_NSEC_PER_USEC);

	ASSERT_EQ(0, tas_host_done(self->fd, graph_id, 1, 0));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, graph_sig));
	ASSERT_EQ(0, tas_graph_info(self->fd, graph_id, info, 3, &done));
	EXPECT_EQ(1U, done);
	EXPECT_EQ(0, info[1].error);
	EXPECT_NE(0ULL, info[1].finished_ns);
	EXPECT_LE(info[1].finished_ns, info[2].started_ns);
	EXPECT_EQ(0, info[2].error);
	/* The graph is done: it is not in flight any more. */
	EXPECT_EQ(-ENOENT, tas_host_done(self->fd, graph_id, 1, 0));

	tas_syncobj_destroy(self->fd, graph_sig);
	tas_syncobj_destroy(self->fd, start);
}

/*
 * An error the thread reports is the host node's, its successor's, which
 * does not run, and the graph's.
 */
TEST_F(tas, host_error_propagates)
{
	struct drm_tas_node_info info[2];
	struct drm_tas_sync signals[2];
	struct drm_tas_node nodes[2];
	struct drm_tas_edge edge;
	__u32 start, graph_sig, done = 0;
	int status = 0;
	__u64 graph_id;

	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &start));
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &graph_sig));
	tas_node_init(&nodes[0], 0, DRM_TAS_OP_HOST, 0);
	tas_node_init(&nodes[1], 0, DRM_TAS_OP_NOP, TAS_NSEC_PER_MSEC);
	tas_edge_init(&edge, 0, 1);
	tas_sync_on_start(&signals[0], start, 0, 0);
	tas_sync_init(&signals[1], graph_sig, DRM_TAS_NODE_GRAPH, 0);
	ASSERT_EQ(0, tas_submit(self->fd, nodes, 2, &edge, 1, NULL, 0, signals,
				2, &graph_id));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, start));
	ASSERT_EQ(0, tas_host_done(self->fd, graph_id, 0, -EIO));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, graph_sig));

	ASSERT_EQ(0, tas_graph_info(self->fd, graph_id, info, 2, &done));
	EXPECT_EQ(1U, done);
	EXPECT_EQ(-EIO, info[0].error);
	EXPECT_EQ(-EIO, info[1].error);
	EXPECT_EQ(0ULL, info[1].started_ns);
	ASSERT_EQ(0, tas_syncobj_fence_status(self->fd, graph_sig, &status));
	EXPECT_EQ(-EIO, status);

	tas_syncobj_destroy(self->fd, graph_sig);
	tas_syncobj_destroy(self->fd, start);
}

/* The errors of HOST_DONE, on a graph in flight. */
TEST_F(tas, host_done_errors)
{
	struct drm_tas_host_done args = { 0 };
	struct drm_tas_sync signals[3];
	struct drm_tas_node nodes[3];
	struct drm_tas_edge edges[2];
	__u32 start, graph_sig;
	__u64 graph_id;
	int fd2;

	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &start));
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &graph_sig));
	tas_node_init(&nodes[0], 0, DRM_TAS_OP_HOST, 0);
	tas_node_init(&nodes[1], 0, DRM_TAS_OP_HOST, 0);
	tas_node_init(&nodes[2], 0, DRM_TAS_OP_NOP, TAS_NSEC_PER_MSEC);
	tas_edge_init(&edges[0], 0, 1);
	tas_edge_init(&edges[1], 1, 2);
	tas_sync_on_start(&signals[0], start, 0, 1);
	tas_sync_on_start(&signals[1], start, 1, 2);
	tas_sync_init(&signals[2], graph_sig, DRM_TAS_NODE_GRAPH, 0);
	ASSERT_EQ(0, tas_submit(self->fd, nodes, 3, edges, 2, NULL, 0, signals,
				3, &graph_id));
	ASSERT_EQ(0, tas_syncobj_timeline_wait(self->fd, start, 1, TAS_WAIT_NS));

	EXPECT_EQ(-ENOENT, tas_host_done(self->fd, graph_id + 1000, 0, 0));
	EXPECT_EQ(-ENOENT, tas_host_done(self->fd, graph_id, 3, 0));
	EXPECT_EQ(-EINVAL, tas_host_done(self->fd, graph_id, 2, 0));
	EXPECT_EQ(-EBUSY, tas_host_done(self->fd, graph_id, 1, 0));
	EXPECT_EQ(-EINVAL, tas_host_done(self->fd, graph_id, 0, 1));
	EXPECT_EQ(-EINVAL, tas_host_done(self->fd, graph_id, 0, -4096));
	/* The kernel's own errnos (ERESTARTSYS and up) do not reach fences. */
	EXPECT_EQ(-EINVAL, tas_host_done(self->fd, graph_id, 0, -512));
	args.graph_id = graph_id;
	args.flags = 1;
	EXPECT_EQ(-EINVAL, tas_ioctl(self->fd, DRM_IOCTL_TAS_HOST_DONE, &args));
	args.flags = 0;
	args.pad = 1;
	EXPECT_EQ(-EINVAL, tas_ioctl(self->fd, DRM_IOCTL_TAS_HOST_DONE, &args));
	EXPECT_EQ(-EFAULT, ioctl(self->fd, DRM_IOCTL_TAS_HOST_DONE, NULL) ?
		  -errno : 0);
	/* Graph ids are a file's own: another file cannot report the node. */
	fd2 = tas_open_render_node();
	ASSERT_GE(fd2, 0);
	EXPECT_EQ(-ENOENT, tas_host_done(fd2, graph_id, 0, 0));
	close(fd2);

	ASSERT_EQ(0, tas_host_done(self->fd, graph_id, 0, 0));
	EXPECT_EQ(-EALREADY, tas_host_done(self->fd, graph_id, 0, 0));
	ASSERT_EQ(0, tas_syncobj_timeline_wait(self->fd, start, 2, TAS_WAIT_NS));
	ASSERT_EQ(0, tas_host_done(self->fd, graph_id, 1, 0));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, graph_sig));

	tas_syncobj_destroy(self->fd, graph_sig);
	tas_syncobj_destroy(self->fd, start);
}

/*
 * A host node that nobody reports completes with -ETIMEDOUT after the host
 * timeout, as a hung GPU node does, and so does its successor. Up to 20 s
 * of host timeout and 10 s more for the graph: above the harness's default.
 */
TEST_F_TIMEOUT(tas, host_node_times_out, 60)
{
	struct drm_tas_node_info info[2];
	struct drm_tas_node nodes[2];
	struct drm_tas_sync signal;
	struct drm_tas_edge edge;
	__u64 timeout = 0, graph_id;
	__u32 graph_sig, done = 0;

	ASSERT_EQ(0, tas_get_param(self->fd, DRM_TAS_PARAM_HOST_TIMEOUT_NS, 0,
				   &timeout));
	ASSERT_GE(timeout, 10 * TAS_NSEC_PER_MSEC);
	if (timeout > 20 * TAS_NSEC_PER_SEC)
		SKIP(return, "host timeout of %llu ns, more than 20 s",
		     (unsigned long long)timeout);

	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &graph_sig));
	tas_node_init(&nodes[0], 0, DRM_TAS_OP_HOST, 0);
	tas_node_init(&nodes[1], 0, DRM_TAS_OP_NOP, TAS_NSEC_PER_MSEC);
	tas_edge_init(&edge, 0, 1);
	tas_sync_init(&signal, graph_sig, DRM_TAS_NODE_GRAPH, 0);
	ASSERT_EQ(0, tas_submit(self->fd, nodes, 2, &edge, 1, NULL, 0, &signal,
				1, &graph_id));
	ASSERT_EQ(0, tas_syncobj_wait(self->fd, graph_sig,
				      DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
				      timeout + TAS_WAIT_NS));

	ASSERT_EQ(0, tas_graph_info(self->fd, graph_id, info, 2, &done));
	EXPECT_EQ(1U, done);
	EXPECT_EQ(-ETIMEDOUT, info[0].error);
	EXPECT_GE(info[0].finished_ns - info[0].started_ns, timeout);
	EXPECT_EQ(-ETIMEDOUT, info[1].error);
	EXPECT_EQ(0ULL, info[1].started_ns);
	TH_LOG("timed out after %llu ms, the timeout is %llu ms",
	       (unsigned long long)(info[0].finished_ns - info[0].started_ns) /
		       TAS_NSEC_PER_MSEC,
	       (unsigned long long)timeout / TAS_NSEC_PER_MSEC);

	tas_syncobj_destroy(self->fd, graph_sig);
}

/*
 * Closing a file completes its released host node at once: the graph's
 * fence, seen through a sync_file that outlives the file, signals with an
 * error, long before the job timeout.
 */
TEST_F(tas, host_node_cancelled_on_close)
{
	struct drm_tas_sync signals[2];
	struct sync_file_info sinfo;
	struct drm_tas_node node;
	__u32 start, graph_sig;
	struct pollfd pfd;
	int fd2, sync_fd;

	fd2 = tas_open_render_node();
	ASSERT_GE(fd2, 0);
	ASSERT_EQ(0, tas_syncobj_create(fd2, 0, &start));
	ASSERT_EQ(0, tas_syncobj_create(fd2, 0, &graph_sig));
	tas_node_init(&node, 0, DRM_TAS_OP_HOST, 0);
	tas_sync_on_start(&signals[0], start, 0, 0);
	tas_sync_init(&signals[1], graph_sig, DRM_TAS_NODE_GRAPH, 0);
	ASSERT_EQ(0, tas_submit(fd2, &node, 1, NULL, 0, NULL, 0, signals, 2,
				NULL));
	ASSERT_EQ(0, tas_syncobj_wait_graph(fd2, start));
	ASSERT_EQ(0, tas_syncobj_export_sync_file(fd2, graph_sig, &sync_fd));
	close(fd2);

	pfd.fd = sync_fd;
	pfd.events = POLLIN;
	pfd.revents = 0;
	/*
	 * Below the host timeout (10 s by default); a node that timed out
	 * instead would carry -ETIMEDOUT.
	 */
	EXPECT_EQ(1, poll(&pfd, 1, 5000));
	memset(&sinfo, 0, sizeof(sinfo));
	ASSERT_EQ(0, tas_ioctl(sync_fd, SYNC_IOC_FILE_INFO, &sinfo));
	EXPECT_EQ(-ESRCH, sinfo.status);
	close(sync_fd);

	ASSERT_EQ(0, tas_run_nop(self->fd));
}

/* A GPU node and a host node after it, which host_node_rejected varies. */
static void tas_host_pair(struct drm_tas_node *nodes)
{
	tas_node_init(&nodes[0], 0, DRM_TAS_OP_NOP, TAS_NSEC_PER_MSEC);
	tas_node_init(&nodes[1], 0, DRM_TAS_OP_HOST, 0);
}

/*
 * Host nodes with a ring, a duration or a gang, a host node with the stock
 * dispatch, and DRM_TAS_SYNC_ON_START where it does not belong are
 * rejected, naming the element at fault, and nothing runs.
 */
TEST_F(tas, host_node_rejected)
{
	struct drm_tas_sync signals[2], wait;
	struct drm_tas_node nodes[2];
	struct drm_tas_edge edge;
	__u32 sig, start, array, index;

	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &sig));
	ASSERT_EQ(0, tas_syncobj_create(self->fd, DRM_SYNCOBJ_CREATE_SIGNALED,
					&start));
	tas_edge_init(&edge, 0, 1);
	tas_sync_init(&signals[0], sig, DRM_TAS_NODE_GRAPH, 0);

	if (self->num_rings > 1) {
		tas_host_pair(nodes);
		nodes[1].ring = 1;
		EXPECT_EQ(-EINVAL, tas_submit_blame(self->fd, nodes, 2,
						    &edge, 1, NULL, 0, signals,
						    1, &array, &index));
		EXPECT_EQ((__u32)DRM_TAS_ERROR_NODES, array);
		EXPECT_EQ(1U, index);
	}

	tas_host_pair(nodes);
	nodes[1].duration_ns = 1;
	EXPECT_EQ(-EINVAL, tas_submit_blame(self->fd, nodes, 2, &edge, 1,
					    NULL, 0, signals, 1, &array,
					    &index));
	EXPECT_EQ((__u32)DRM_TAS_ERROR_NODES, array);
	EXPECT_EQ(1U, index);

	tas_host_pair(nodes);
	nodes[0].gang = 3;
	nodes[1].gang = 3;
	EXPECT_EQ(-EINVAL, tas_submit_blame(self->fd, nodes, 2, NULL, 0,
					    NULL, 0, signals, 1, &array,
					    &index));
	EXPECT_EQ((__u32)DRM_TAS_ERROR_NODES, array);
	EXPECT_EQ(1U, index);

	/* tas-py's tests check that the stock dispatch names node 1. */
	tas_host_pair(nodes);
	EXPECT_EQ(-EINVAL, tas_submit_flags(self->fd, DRM_TAS_SUBMIT_FIFO,
					    nodes, 2, &edge, 1, NULL, 0,
					    signals, 1, NULL));

	/* ON_START on a wait, on a GPU node, on the graph; unknown flags. */
	tas_host_pair(nodes);
	tas_sync_init(&wait, start, DRM_TAS_NODE_GRAPH, 0);
	wait.flags = DRM_TAS_SYNC_ON_START;
	EXPECT_EQ(-EINVAL, tas_submit_blame(self->fd, nodes, 2, &edge, 1,
					    &wait, 1, signals, 1, &array,
					    &index));
	EXPECT_EQ((__u32)DRM_TAS_ERROR_WAITS, array);
	EXPECT_EQ(0U, index);

	tas_sync_on_start(&signals[1], start, 0, 0);
	EXPECT_EQ(-EINVAL, tas_submit_blame(self->fd, nodes, 2, &edge, 1,
					    NULL, 0, signals, 2, &array,
					    &index));
	EXPECT_EQ((__u32)DRM_TAS_ERROR_SIGNALS, array);
	EXPECT_EQ(1U, index);

	tas_sync_on_start(&signals[1], start, DRM_TAS_NODE_GRAPH, 0);
	EXPECT_EQ(-EINVAL, tas_submit_blame(self->fd, nodes, 2, &edge, 1,
					    NULL, 0, signals, 2, &array,
					    &index));
	EXPECT_EQ((__u32)DRM_TAS_ERROR_SIGNALS, array);
	EXPECT_EQ(1U, index);

	tas_sync_on_start(&signals[1], start, 1, 0);
	signals[1].flags |= DRM_TAS_SYNC_ON_START << 1;
	EXPECT_EQ(-EINVAL, tas_submit_blame(self->fd, nodes, 2, &edge, 1,
					    NULL, 0, signals, 2, &array,
					    &index));
	EXPECT_EQ((__u32)DRM_TAS_ERROR_SIGNALS, array);
	EXPECT_EQ(1U, index);

	/* Nothing ran: the graph's syncobj is still empty. */
	EXPECT_EQ(0, tas_syncobj_has_fence(self->fd, sig));
	ASSERT_EQ(0, tas_run_nop(self->fd));

	tas_syncobj_destroy(self->fd, start);
	tas_syncobj_destroy(self->fd, sig);
}

#define TAS_HOST_LAUNCHES	20

/*
 * A template with a GPU -> CPU -> GPU chain, launched again and again: each
 * launch's host node has its own start point and its own report.
 */
TEST_F(tas, host_node_template)
{
	struct drm_tas_node_info info[3];
	struct drm_tas_sync signals[2];
	struct drm_tas_node nodes[3];
	struct drm_tas_edge edges[2];
	__u32 tpl, start, graph_sig, done = 0;
	__u64 graph_id = 0, k;

	tas_node_init(&nodes[0], 0, DRM_TAS_OP_NOP, TAS_NSEC_PER_MSEC);
	tas_node_init(&nodes[1], 0, DRM_TAS_OP_HOST, 0);
	tas_node_init(&nodes[2], 1 % self->num_rings, DRM_TAS_OP_NOP,
		      TAS_NSEC_PER_MSEC);
	tas_edge_init(&edges[0], 0, 1);
	tas_edge_init(&edges[1], 1, 2);
	ASSERT_EQ(0, tas_template_create(self->fd, nodes, 3, edges, 2, &tpl));
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &start));
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &graph_sig));

	for (k = 1; k <= TAS_HOST_LAUNCHES; k++) {
		tas_sync_on_start(&signals[0], start, 1, k);
		tas_sync_init(&signals[1], graph_sig, DRM_TAS_NODE_GRAPH, k);
		ASSERT_EQ(0, tas_template_launch(self->fd, tpl, NULL, 0,
						 signals, 2, &graph_id))
			TH_LOG("launch %llu", (unsigned long long)k);
		ASSERT_EQ(0, tas_syncobj_timeline_wait(self->fd, start, k,
						       TAS_WAIT_NS));
		ASSERT_EQ(0, tas_host_done(self->fd, graph_id, 1, 0));
		ASSERT_EQ(0, tas_syncobj_timeline_wait(self->fd, graph_sig, k,
						       TAS_WAIT_NS));
	}

	ASSERT_EQ(0, tas_graph_info(self->fd, graph_id, info, 3, &done));
	EXPECT_EQ(1U, done);
	EXPECT_LE(info[0].finished_ns, info[1].started_ns);
	EXPECT_LE(info[1].finished_ns, info[2].started_ns);
	EXPECT_EQ(0, info[2].error);

	ASSERT_EQ(0, tas_template_destroy(self->fd, tpl));
	tas_syncobj_destroy(self->fd, graph_sig);
	tas_syncobj_destroy(self->fd, start);
}

/* How many of @n nodes of graph @graph_id have started (been released). */
static int tas_count_started(int fd, __u64 graph_id, __u32 n)
{
	struct drm_tas_node_info info[8];
	int started = 0;
	__u32 i;

	if (n > 8 || tas_graph_info(fd, graph_id, info, n, NULL))
		return -1;
	for (i = 0; i < n; i++)
		started += info[i].started_ns != 0;
	return started;
}

/*
 * Four independent host nodes: the dispatcher releases two of them (the
 * window of their ring) in the submission itself, and one more each time
 * one is reported.
 */
TEST_F(tas, host_nodes_released_two_at_a_time)
{
	struct drm_tas_node_info info[4];
	struct drm_tas_node nodes[4];
	struct drm_tas_sync signal;
	__u32 graph_sig, i, reported = 0;
	__u64 graph_id;

	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &graph_sig));
	for (i = 0; i < 4; i++)
		tas_node_init(&nodes[i], 0, DRM_TAS_OP_HOST, 0);
	tas_sync_init(&signal, graph_sig, DRM_TAS_NODE_GRAPH, 0);
	ASSERT_EQ(0, tas_submit(self->fd, nodes, 4, NULL, 0, NULL, 0, &signal,
				1, &graph_id));
	EXPECT_EQ(2, tas_count_started(self->fd, graph_id, 4));

	/* Report the released ones, one at a time, until all are done. */
	while (reported < 4) {
		ASSERT_EQ(0, tas_graph_info(self->fd, graph_id, info, 4, NULL));
		for (i = 0; i < 4; i++)
			if (info[i].started_ns && !info[i].finished_ns)
				break;
		ASSERT_LT(i, 4U) TH_LOG("%u reported, none released", reported);
		ASSERT_EQ(0, tas_host_done(self->fd, graph_id, i, 0));
		reported++;
		EXPECT_EQ((int)(reported + 2 < 4 ? reported + 2 : 4),
			  tas_count_started(self->fd, graph_id, 4));
	}
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, graph_sig));
	tas_syncobj_destroy(self->fd, graph_sig);
}

/*
 * Latency-class host nodes have a window of their own: with two normal host
 * nodes waiting for their threads, both latency-class nodes of a later graph
 * start at once. All complete without an error.
 */
TEST_F(tas, host_node_latency_class)
{
	struct drm_tas_node_info info[2];
	struct drm_tas_node normal[2], urgent[2];
	struct drm_tas_sync signal;
	__u64 normal_id, urgent_id;
	__u32 sig[2], i, done = 0;

	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &sig[i]));
		tas_node_init(&normal[i], 0, DRM_TAS_OP_HOST, 0);
		tas_node_init(&urgent[i], 0, DRM_TAS_OP_HOST, 0);
		urgent[i].class = DRM_TAS_CLASS_LATENCY;
	}
	tas_sync_init(&signal, sig[0], DRM_TAS_NODE_GRAPH, 0);
	ASSERT_EQ(0, tas_submit(self->fd, normal, 2, NULL, 0, NULL, 0, &signal,
				1, &normal_id));
	EXPECT_EQ(2, tas_count_started(self->fd, normal_id, 2));
	tas_sync_init(&signal, sig[1], DRM_TAS_NODE_GRAPH, 0);
	ASSERT_EQ(0, tas_submit(self->fd, urgent, 2, NULL, 0, NULL, 0, &signal,
				1, &urgent_id));
	ASSERT_EQ(2, tas_count_started(self->fd, urgent_id, 2));
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, tas_host_done(self->fd, urgent_id, i, 0));
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, tas_host_done(self->fd, normal_id, i, 0));

	for (i = 0; i < 2; i++) {
		__u64 id = i ? urgent_id : normal_id;

		ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, sig[i]));
		ASSERT_EQ(0, tas_graph_info(self->fd, id, info, 2, &done));
		EXPECT_EQ(1U, done);
		EXPECT_EQ(0, info[0].error);
		EXPECT_EQ(0, info[1].error);
		tas_syncobj_destroy(self->fd, sig[i]);
	}
}

/*
 * A host node after a failed one is not released: its start point signals
 * with the error, which its thread sees without running, and HOST_DONE
 * says it has completed.
 */
TEST_F(tas, host_node_start_carries_error)
{
	struct drm_tas_node_info info[3];
	struct drm_tas_sync signals[3];
	struct drm_tas_node nodes[3];
	struct drm_tas_edge edge;
	__u32 start0, start1, graph_sig, done = 0;
	int status = 0;
	__u64 graph_id;

	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &start0));
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &start1));
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &graph_sig));
	tas_node_init(&nodes[0], 0, DRM_TAS_OP_HOST, 0);
	tas_node_init(&nodes[1], 0, DRM_TAS_OP_HOST, 0);
	/* Independent, unreported until the end: the graph stays in flight. */
	tas_node_init(&nodes[2], 0, DRM_TAS_OP_HOST, 0);
	tas_edge_init(&edge, 0, 1);
	tas_sync_on_start(&signals[0], start0, 0, 0);
	tas_sync_on_start(&signals[1], start1, 1, 0);
	tas_sync_init(&signals[2], graph_sig, DRM_TAS_NODE_GRAPH, 0);
	ASSERT_EQ(0, tas_submit(self->fd, nodes, 3, &edge, 1, NULL, 0, signals,
				3, &graph_id));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, start0));
	ASSERT_EQ(0, tas_host_done(self->fd, graph_id, 0, -EIO));

	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, start1));
	ASSERT_EQ(0, tas_syncobj_fence_status(self->fd, start1, &status));
	EXPECT_EQ(-EIO, status);
	EXPECT_EQ(-EALREADY, tas_host_done(self->fd, graph_id, 1, 0));

	ASSERT_EQ(0, tas_host_done(self->fd, graph_id, 2, 0));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, graph_sig));
	ASSERT_EQ(0, tas_graph_info(self->fd, graph_id, info, 3, &done));
	EXPECT_EQ(1U, done);
	EXPECT_EQ(-EIO, info[1].error);
	EXPECT_EQ(0ULL, info[1].started_ns);
	EXPECT_EQ(0, info[2].error);

	tas_syncobj_destroy(self->fd, graph_sig);
	tas_syncobj_destroy(self->fd, start1);
	tas_syncobj_destroy(self->fd, start0);
}

static int tas_template_launch_binds(int fd, __u32 handle,
				     const struct drm_tas_bind *binds,
				     __u32 num_binds,
				     const struct drm_tas_sync *signal,
				     struct drm_tas_template_launch *args)
{
	memset(args, 0, sizeof(*args));
	args->handle = handle;
	if (num_binds)
		args->flags = DRM_TAS_LAUNCH_BINDS;
	tas_array_init(&args->signals, signal, signal ? 1 : 0, sizeof(*signal));
	tas_array_init(&args->binds, binds, num_binds, sizeof(*binds));
	return tas_ioctl(fd, DRM_IOCTL_TAS_TEMPLATE_LAUNCH, args);
}

/* TEMPLATE_LAUNCH as userspace built against uAPI version 6 encodes it. */
#define TAS_IOCTL_TEMPLATE_LAUNCH_V6 \
	_IOC(_IOC_READ | _IOC_WRITE, DRM_IOCTL_BASE, \
	     DRM_COMMAND_BASE + DRM_TAS_TEMPLATE_LAUNCH, \
	     offsetof(struct drm_tas_template_launch, binds))

static void tas_bind_init(struct drm_tas_bind *bind, __u32 slot, __u32 handle,
			  __u64 offset)
{
	memset(bind, 0, sizeof(*bind));
	bind->slot = slot;
	bind->handle = handle;
	bind->offset = offset;
}

/* A page per range: buffers are page-rounded, so sizes are checked in pages. */
#define TAS_BIND_WORDS	1024

/*
 * A template "out = a + b; copy = out" created on three buffers is launched
 * on others: each launch reads and writes the buffers it binds, at the
 * offsets it binds them at, and the template's buffers and the unbound
 * slots keep their contents and their use; a launch without binds, or from
 * userspace that does not know them, runs on the template's buffers again.
 */
TEST_F(tas, template_bind_rebinds_buffers)
{
	const __u64 range = TAS_BIND_WORDS * sizeof(__u32);
	struct drm_tas_template_create create;
	struct drm_tas_template_launch launch;
	struct drm_tas_bind binds[3];
	struct drm_tas_node nodes[2];
	struct drm_tas_sync signal;
	__u32 a, b, out, a2, out2, done;
	__u32 *ma, *mb, *mout, *ma2, *mout2;
	struct drm_tas_edge edge;
	__u32 i;

	ASSERT_EQ(0, tas_bo_create_map(self->fd, range, &a, (void **)&ma));
	ASSERT_EQ(0, tas_bo_create_map(self->fd, range, &b, (void **)&mb));
	ASSERT_EQ(0, tas_bo_create_map(self->fd, 2 * range, &out,
				       (void **)&mout));
	ASSERT_EQ(0, tas_bo_create_map(self->fd, 2 * range, &a2,
				       (void **)&ma2));
	ASSERT_EQ(0, tas_bo_create_map(self->fd, 4 * range, &out2,
				       (void **)&mout2));
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &done));
	for (i = 0; i < TAS_BIND_WORDS; i++) {
		ma[i] = i;
		mb[i] = 1000;
		ma2[TAS_BIND_WORDS + i] = 7 * i;
	}

	/* Slots by first use: out (node 0's dst) 0, a 1, b 2. */
	tas_node_init(&nodes[0], 0, DRM_TAS_OP_ADD, 0);
	tas_buf_init(&nodes[0].dst, out, 0, range);
	tas_buf_init(&nodes[0].src[0], a, 0, range);
	tas_buf_init(&nodes[0].src[1], b, 0, range);
	tas_node_init(&nodes[1], 1 % self->num_rings, DRM_TAS_OP_COPY, 0);
	tas_buf_init(&nodes[1].dst, out, range, range);
	tas_buf_init(&nodes[1].src[0], out, 0, range);
	tas_edge_init(&edge, 0, 1);
	memset(&create, 0, sizeof(create));
	tas_array_init(&create.nodes, nodes, 2, sizeof(nodes[0]));
	tas_array_init(&create.edges, &edge, 1, sizeof(edge));
	ASSERT_EQ(0, tas_ioctl(self->fd, DRM_IOCTL_TAS_TEMPLATE_CREATE,
			       &create));
	EXPECT_EQ(3U, create.slots);

	/* Unbound: the template's own buffers. */
	tas_sync_init(&signal, done, DRM_TAS_NODE_GRAPH, 0);
	ASSERT_EQ(0, tas_template_launch_binds(self->fd, create.handle, NULL, 0,
					       &signal, &launch));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, done));
	for (i = 0; i < TAS_BIND_WORDS; i++) {
		ASSERT_EQ(1000 + i, mout[i]) TH_LOG("word %u", i);
		ASSERT_EQ(1000 + i, mout[TAS_BIND_WORDS + i]) TH_LOG("word %u", i);
	}

	/* a -> a2 at one range in, out -> out2 at two ranges in; b stays. */
	tas_bind_init(&binds[0], 1, a2, range);
	tas_bind_init(&binds[1], 0, out2, 2 * range);
	ASSERT_EQ(0, tas_template_launch_binds(self->fd, create.handle, binds,
					       2, &signal, &launch));
	EXPECT_EQ((__u32)DRM_TAS_ERROR_NONE, launch.error_array);
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, done));
	for (i = 0; i < TAS_BIND_WORDS; i++) {
		ASSERT_EQ(1000 + 7 * i, mout2[2 * TAS_BIND_WORDS + i])
			TH_LOG("word %u", i);
		ASSERT_EQ(1000 + 7 * i, mout2[3 * TAS_BIND_WORDS + i])
			TH_LOG("copied word %u", i);
		/* Outside the bound ranges, and the template's buffers. */
		ASSERT_EQ(0U, mout2[i]) TH_LOG("word %u", i);
		ASSERT_EQ(0U, mout2[TAS_BIND_WORDS + i]) TH_LOG("word %u", i);
		ASSERT_EQ(1000 + i, mout[i]) TH_LOG("word %u", i);
		ASSERT_EQ(1000 + i, mout[TAS_BIND_WORDS + i]) TH_LOG("word %u", i);
		ASSERT_EQ(i, ma[i]) TH_LOG("word %u", i);
	}

	/*
	 * Two slots on one buffer: out at a2's first half and a at its
	 * second, so that the sum of a2's second half and b lands in its
	 * first half, which the copy then writes over the second.
	 */
	tas_bind_init(&binds[0], 0, a2, 0);
	tas_bind_init(&binds[1], 1, a2, range);
	ASSERT_EQ(0, tas_template_launch_binds(self->fd, create.handle, binds,
					       2, &signal, &launch));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, done));
	for (i = 0; i < TAS_BIND_WORDS; i++) {
		ASSERT_EQ(1000 + 7 * i, ma2[i]) TH_LOG("word %u", i);
		ASSERT_EQ(1000 + 7 * i, ma2[TAS_BIND_WORDS + i])
			TH_LOG("word %u", i);
	}

	/* Without binds again: the template's buffers. */
	memset(mout, 0, 2 * range);
	ASSERT_EQ(0, tas_template_launch_binds(self->fd, create.handle, NULL, 0,
					       &signal, &launch));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, done));
	for (i = 0; i < TAS_BIND_WORDS; i++)
		ASSERT_EQ(1000 + i, mout[TAS_BIND_WORDS + i]) TH_LOG("word %u", i);

	/*
	 * Userspace built against version 6 passes the shorter structure:
	 * what lies beyond it in memory (here binds) is not read, and the
	 * launch runs on the template's buffers.
	 */
	memset(mout, 0, 2 * range);
	tas_bind_init(&binds[0], 0, out2, 0);
	memset(&launch, 0, sizeof(launch));
	launch.handle = create.handle;
	tas_array_init(&launch.signals, &signal, 1, sizeof(signal));
	tas_array_init(&launch.binds, binds, 1, sizeof(binds[0]));
	ASSERT_EQ(0, tas_ioctl(self->fd, TAS_IOCTL_TEMPLATE_LAUNCH_V6, &launch));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, done));
	for (i = 0; i < TAS_BIND_WORDS; i++) {
		ASSERT_EQ(1000 + i, mout[i]) TH_LOG("word %u", i);
		ASSERT_EQ(0U, mout2[i]) TH_LOG("word %u", i);
	}

	ASSERT_EQ(0, tas_template_destroy(self->fd, create.handle));
	tas_syncobj_destroy(self->fd, done);
	munmap(mout2, 4 * range);
	munmap(ma2, 2 * range);
	munmap(mout, 2 * range);
	munmap(mb, range);
	munmap(ma, range);
}

/*
 * A copy whose two slots are bound to overlapping ranges of one buffer is
 * done as memmove() does it.
 */
TEST_F(tas, template_bind_overlapping_copy)
{
	const __u64 range = TAS_BIND_WORDS * sizeof(__u32);
	struct drm_tas_template_create create;
	struct drm_tas_template_launch launch;
	struct drm_tas_bind binds[2];
	struct drm_tas_sync signal;
	struct drm_tas_node node;
	__u32 x, y, z, done, i;
	__u32 *mz;

	ASSERT_EQ(0, tas_bo_create(self->fd, range, 0, &x));
	ASSERT_EQ(0, tas_bo_create(self->fd, range, 0, &y));
	ASSERT_EQ(0, tas_bo_create_map(self->fd, 2 * range, &z, (void **)&mz));
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &done));
	for (i = 0; i < 2 * TAS_BIND_WORDS; i++)
		mz[i] = i;

	/* y = x: slot 0 is y, slot 1 is x. */
	tas_node_init(&node, 0, DRM_TAS_OP_COPY, 0);
	tas_buf_init(&node.dst, y, 0, range);
	tas_buf_init(&node.src[0], x, 0, range);
	memset(&create, 0, sizeof(create));
	tas_array_init(&create.nodes, &node, 1, sizeof(node));
	ASSERT_EQ(0, tas_ioctl(self->fd, DRM_IOCTL_TAS_TEMPLATE_CREATE,
			       &create));
	ASSERT_EQ(2U, create.slots);

	/* z[W/2 .. W/2 + W) = z[0 .. W), the source read before it is written. */
	tas_bind_init(&binds[0], 0, z, range / 2);
	tas_bind_init(&binds[1], 1, z, 0);
	tas_sync_init(&signal, done, DRM_TAS_NODE_GRAPH, 0);
	ASSERT_EQ(0, tas_template_launch_binds(self->fd, create.handle, binds,
					       2, &signal, &launch));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, done));
	for (i = 0; i < TAS_BIND_WORDS / 2; i++)
		ASSERT_EQ(i, mz[i]) TH_LOG("word %u", i);
	for (i = 0; i < TAS_BIND_WORDS; i++)
		ASSERT_EQ(i, mz[TAS_BIND_WORDS / 2 + i])
			TH_LOG("word %u", TAS_BIND_WORDS / 2 + i);
	for (i = TAS_BIND_WORDS * 3 / 2; i < 2 * TAS_BIND_WORDS; i++)
		ASSERT_EQ(i, mz[i]) TH_LOG("word %u", i);

	ASSERT_EQ(0, tas_template_destroy(self->fd, create.handle));
	tas_syncobj_destroy(self->fd, done);
	munmap(mz, 2 * range);
	tas_bo_close(self->fd, y);
	tas_bo_close(self->fd, x);
}

/*
 * Bad binds are rejected with their errno and index before anything runs:
 * the graph's signal is never installed and no buffer is written.
 */
TEST_F(tas, template_bind_errors)
{
	const __u64 range = TAS_BIND_WORDS * sizeof(__u32);
	struct drm_tas_template_create create;
	struct drm_tas_template_launch launch;
	struct drm_tas_bind binds[3];
	struct drm_tas_node nodes[2];
	struct drm_tas_sync signal;
	struct drm_tas_edge edge;
	__u32 buf, small, big, done;
	__u32 *mbuf, *mbig;
	__u32 i;

	ASSERT_EQ(0, tas_bo_create_map(self->fd, 2 * range, &buf,
				       (void **)&mbuf));
	ASSERT_EQ(0, tas_bo_create(self->fd, range, 0, &small));
	ASSERT_EQ(0, tas_bo_create_map(self->fd, 4 * range, &big,
				       (void **)&mbig));
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &done));

	/* One slot of extent 2 * range: fill its second range, then copy. */
	tas_node_init(&nodes[0], 0, DRM_TAS_OP_FILL, 0);
	nodes[0].imm = 5;
	tas_buf_init(&nodes[0].dst, buf, range, range);
	tas_node_init(&nodes[1], 0, DRM_TAS_OP_COPY, 0);
	tas_buf_init(&nodes[1].dst, buf, 0, range);
	tas_buf_init(&nodes[1].src[0], buf, range, range);
	tas_edge_init(&edge, 0, 1);
	memset(&create, 0, sizeof(create));
	tas_array_init(&create.nodes, nodes, 2, sizeof(nodes[0]));
	tas_array_init(&create.edges, &edge, 1, sizeof(edge));
	create.pad = 1;
	EXPECT_EQ(-EINVAL, tas_ioctl(self->fd, DRM_IOCTL_TAS_TEMPLATE_CREATE,
				     &create));
	create.pad = 0;
	ASSERT_EQ(0, tas_ioctl(self->fd, DRM_IOCTL_TAS_TEMPLATE_CREATE,
			       &create));
	ASSERT_EQ(1U, create.slots);
	tas_sync_init(&signal, done, DRM_TAS_NODE_GRAPH, 0);

	/* More binds than slots; then a slot out of range (index 0). */
	tas_bind_init(&binds[0], 0, big, 0);
	tas_bind_init(&binds[1], 1, big, 0);
	EXPECT_EQ(-E2BIG, tas_template_launch_binds(self->fd, create.handle,
						    binds, 2, &signal,
						    &launch));
	EXPECT_EQ((__u32)DRM_TAS_ERROR_NONE, launch.error_array);
	EXPECT_EQ(-EINVAL, tas_template_launch_binds(self->fd, create.handle,
						     &binds[1], 1, &signal,
						     &launch));
	EXPECT_EQ((__u32)DRM_TAS_ERROR_BINDS, launch.error_array);
	EXPECT_EQ(0U, launch.error_index);

	/* Binds without DRM_TAS_LAUNCH_BINDS, and a non-zero stride alone. */
	memset(&launch, 0, sizeof(launch));
	launch.handle = create.handle;
	tas_array_init(&launch.signals, &signal, 1, sizeof(signal));
	tas_array_init(&launch.binds, binds, 1, sizeof(binds[0]));
	EXPECT_EQ(-EINVAL, tas_ioctl(self->fd, DRM_IOCTL_TAS_TEMPLATE_LAUNCH,
				     &launch));
	EXPECT_EQ((__u32)DRM_TAS_ERROR_NONE, launch.error_array);
	launch.binds.ptr = 0;
	launch.binds.count = 0;
	EXPECT_EQ(-EINVAL, tas_ioctl(self->fd, DRM_IOCTL_TAS_TEMPLATE_LAUNCH,
				     &launch));

	/* Unknown buffer, at index 1. */
	tas_bind_init(&binds[0], 0, big, 0);
	tas_bind_init(&binds[1], 0, 0xfffff, 0);
	ASSERT_EQ(0, tas_template_destroy(self->fd, create.handle));
	tas_buf_init(&nodes[1].dst, big, 0, range);
	ASSERT_EQ(0, tas_ioctl(self->fd, DRM_IOCTL_TAS_TEMPLATE_CREATE,
			       &create));
	ASSERT_EQ(2U, create.slots);
	tas_bind_init(&binds[1], 1, 0xfffff, 0);
	EXPECT_EQ(-ENOENT, tas_template_launch_binds(self->fd, create.handle,
						     binds, 2, &signal,
						     &launch));
	EXPECT_EQ((__u32)DRM_TAS_ERROR_BINDS, launch.error_array);
	EXPECT_EQ(1U, launch.error_index);

	/*
	 * A buffer smaller than the slot's extent (two ranges), an offset
	 * that leaves too little room, one that overflows.
	 */
	tas_bind_init(&binds[0], 0, small, 0);
	EXPECT_EQ(-EINVAL, tas_template_launch_binds(self->fd, create.handle,
						     binds, 1, &signal,
						     &launch));
	EXPECT_EQ((__u32)DRM_TAS_ERROR_BINDS, launch.error_array);
	EXPECT_EQ(0U, launch.error_index);
	tas_bind_init(&binds[0], 0, big, 2 * range + 4);
	EXPECT_EQ(-EINVAL, tas_template_launch_binds(self->fd, create.handle,
						     binds, 1, &signal,
						     &launch));
	EXPECT_EQ((__u32)DRM_TAS_ERROR_BINDS, launch.error_array);
	tas_bind_init(&binds[0], 0, big, ~0ULL - range);
	EXPECT_EQ(-EINVAL, tas_template_launch_binds(self->fd, create.handle,
						     binds, 1, &signal,
						     &launch));
	EXPECT_EQ((__u32)DRM_TAS_ERROR_BINDS, launch.error_array);

	/* The second bind of a slot is blamed. */
	tas_bind_init(&binds[0], 0, big, 0);
	tas_bind_init(&binds[1], 0, big, 2 * range);
	EXPECT_EQ(-EINVAL, tas_template_launch_binds(self->fd, create.handle,
						     binds, 2, &signal,
						     &launch));
	EXPECT_EQ((__u32)DRM_TAS_ERROR_BINDS, launch.error_array);
	EXPECT_EQ(1U, launch.error_index);

	/* Nothing ran: no signal was installed, no buffer written. */
	EXPECT_EQ(-EINVAL, tas_syncobj_wait(self->fd, done, 0, 0));
	for (i = 0; i < 4 * TAS_BIND_WORDS; i++)
		ASSERT_EQ(0U, mbig[i]) TH_LOG("word %u", i);
	for (i = 0; i < 2 * TAS_BIND_WORDS; i++)
		ASSERT_EQ(0U, mbuf[i]) TH_LOG("word %u", i);

	/* And a good bind still runs: slot 1 (big) moved by one range. */
	tas_bind_init(&binds[0], 1, big, range);
	ASSERT_EQ(0, tas_template_launch_binds(self->fd, create.handle, binds,
					       1, &signal, &launch));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, done));
	for (i = 0; i < TAS_BIND_WORDS; i++) {
		ASSERT_EQ(5U, mbig[TAS_BIND_WORDS + i]) TH_LOG("word %u", i);
		ASSERT_EQ(0U, mbig[i]) TH_LOG("word %u", i);
		ASSERT_EQ(5U, mbuf[TAS_BIND_WORDS + i]) TH_LOG("word %u", i);
	}

	ASSERT_EQ(0, tas_template_destroy(self->fd, create.handle));
	tas_syncobj_destroy(self->fd, done);
	munmap(mbig, 4 * range);
	tas_bo_close(self->fd, small);
	munmap(mbuf, 2 * range);
}

#define TAS_EVICT_NODES		4096
#define TAS_EVICT_LAUNCHES	20
#define TAS_EVICT_WAIT_S	240ULL

/*
 * A file's history keeps at most 65536 nodes of records: launches of a
 * 4096-node template back to back evict the records of the earlier ones,
 * which the driver drops in work items while the launches go on (and makes
 * them wait when too many nodes are waiting to be dropped). Every launch
 * succeeds, the first graph is forgotten, the last one reads back complete
 * without errors, and closing the file with evicted records still queued
 * leaves nothing behind (the kernel checks of the test kernels).
 */
TEST_F_TIMEOUT(tas, history_evicts_large_graphs, 400)
{
	struct drm_tas_node_info *info;
	struct drm_tas_node *nodes;
	struct drm_tas_sync signal;
	__u64 first = 0, last = 0, t0;
	__u32 handle, syncobj, i, done = 0;

	nodes = calloc(TAS_EVICT_NODES, sizeof(*nodes));
	info = calloc(TAS_EVICT_NODES, sizeof(*info));
	ASSERT_NE(NULL, nodes);
	ASSERT_NE(NULL, info);
	for (i = 0; i < TAS_EVICT_NODES; i++)
		tas_node_init(&nodes[i], i % self->num_rings, DRM_TAS_OP_NOP, 0);
	ASSERT_EQ(0, tas_template_create(self->fd, nodes, TAS_EVICT_NODES,
					 NULL, 0, &handle));
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &syncobj));
	tas_sync_init(&signal, syncobj, DRM_TAS_NODE_GRAPH, 0);

	t0 = tas_now_ns();
	for (i = 0; i < TAS_EVICT_LAUNCHES; i++)
		ASSERT_EQ(0, tas_template_launch(self->fd, handle, NULL, 0,
						 &signal, 1,
						 i ? &last : &first))
			TH_LOG("launch %u", i);
	/* Up to 65536 nodes are still in flight: slow in QEMU without KVM. */
	ASSERT_EQ(0, tas_syncobj_wait(self->fd, syncobj, 0,
				      TAS_EVICT_WAIT_S * TAS_NSEC_PER_SEC));
	TH_LOG("%u launches of %u nodes done in %.1f s", TAS_EVICT_LAUNCHES,
	       TAS_EVICT_NODES, (tas_now_ns() - t0) / 1e9);

	EXPECT_EQ(-ENOENT, tas_graph_info(self->fd, first, info,
					  TAS_EVICT_NODES, &done));
	ASSERT_EQ(0, tas_read_done(self->fd, last, 0, info, TAS_EVICT_NODES));
	for (i = 0; i < TAS_EVICT_NODES; i++) {
		ASSERT_EQ(0, info[i].error) TH_LOG("node %u", i);
		ASSERT_NE(0ULL, info[i].finished_ns) TH_LOG("node %u", i);
	}

	/* The fixture closes the file, maybe with records still queued. */
	ASSERT_EQ(0, tas_template_launch(self->fd, handle, NULL, 0, NULL, 0,
					 NULL));
	free(info);
	free(nodes);
}

#define TAS_LET_GO_BYTES	(16ULL << 20)

/*
 * A graph's record stays in the file's history after the graph completed,
 * for DRM_IOCTL_TAS_GRAPH_INFO, but does not keep its nodes' buffers: a
 * node that ran lets go of its operation. A buffer filled by a completed
 * graph, with both dispatch modes, gives its pages back to the memory
 * cgroup once its handle is closed, while the graph's record still reads
 * back complete. When the records kept the operations, memory.current did
 * not fall after the close.
 */
TEST_F_TIMEOUT(tas, completed_graph_lets_go_of_buffers, 120)
{
	static const __u32 modes[] = { 0, DRM_TAS_SUBMIT_FIFO };
	__u64 before, with, after, graph_id;
	struct drm_tas_node_info info;
	struct drm_tas_node node;
	struct drm_tas_sync signal;
	__u32 bo, syncobj, done, m;
	char dir[64];
	int ret;

	ret = tas_memcg_enter(dir, sizeof(dir));
	if (ret == 1)
		SKIP(return, "no cgroup2 memory controller (CONFIG_MEMCG not enabled?)");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &syncobj));
	tas_sync_init(&signal, syncobj, DRM_TAS_NODE_GRAPH, 0);

	for (m = 0; m < ARRAY_SIZE(modes); m++) {
		before = tas_memcg_settled(dir);
		ASSERT_LT(0ULL, before);
		ASSERT_EQ(0, tas_bo_create(self->fd, TAS_LET_GO_BYTES, 0, &bo));
		tas_node_init(&node, 0, DRM_TAS_OP_FILL, 0);
		node.imm = 0x5a5a5a5a;
		tas_buf_init(&node.dst, bo, 0, TAS_LET_GO_BYTES);
		ASSERT_EQ(0, tas_submit_flags(self->fd, modes[m], &node, 1,
					      NULL, 0, NULL, 0, &signal, 1,
					      &graph_id));
		ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, syncobj));
		with = tas_memcg_settled(dir);
		ASSERT_EQ(0, tas_bo_close(self->fd, bo));
		after = tas_memcg_settled(dir);
		TH_LOG("mode %u: memory.current %llu before, %llu with the buffer, %llu after",
		       modes[m], (unsigned long long)before,
		       (unsigned long long)with, (unsigned long long)after);
		/* The pages were allocated and charged for the fill. */
		EXPECT_LE(before + TAS_LET_GO_BYTES * 3 / 4, with);
		EXPECT_GT(before + TAS_LET_GO_BYTES / 4, after);

		done = 0;
		ASSERT_EQ(0, tas_graph_info(self->fd, graph_id, &info, 1,
					    &done));
		EXPECT_EQ(1U, done);
		EXPECT_EQ(0, info.error);
		EXPECT_NE(0ULL, info.finished_ns);
	}

	tas_syncobj_destroy(self->fd, syncobj);
	ASSERT_EQ(0, tas_write_u64(TAS_CGROUP_ROOT, "cgroup.procs", getpid()));
}

/*
 * The same for a buffer that a template launch binds: a template "fill a
 * buffer, then a host node" is launched on another buffer. The template
 * keeps its last launch's bindings, so that launching again on the same
 * buffers does not map them again: once the launch completed and the
 * buffer's handle is closed, the buffer stays until the next launch, which
 * runs on the template's own buffer, and then its pages are given back,
 * although the records still hold both launches' nodes. The host node
 * runs no operation and must not keep the launch's binds either.
 */
TEST_F_TIMEOUT(tas, completed_launch_lets_go_of_bound_buffers, 120)
{
	__u64 before, with, kept, after, graph_id = 0, graph2 = 0;
	struct drm_tas_template_launch launch;
	struct drm_tas_node_info info[2];
	struct drm_tas_sync signals[2];
	struct drm_tas_node nodes[2];
	struct drm_tas_edge edge;
	struct drm_tas_bind bind;
	__u32 tb, bo, tpl, start, graph_sig, done = 0;
	char dir[64];
	int ret;

	ret = tas_memcg_enter(dir, sizeof(dir));
	if (ret == 1)
		SKIP(return, "no cgroup2 memory controller (CONFIG_MEMCG not enabled?)");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, tas_bo_create(self->fd, TAS_LET_GO_BYTES, 0, &tb));
	tas_node_init(&nodes[0], 0, DRM_TAS_OP_FILL, 0);
	nodes[0].imm = 0xa5a5a5a5;
	tas_buf_init(&nodes[0].dst, tb, 0, TAS_LET_GO_BYTES);
	tas_node_init(&nodes[1], 0, DRM_TAS_OP_HOST, 0);
	tas_edge_init(&edge, 0, 1);
	ASSERT_EQ(0, tas_template_create(self->fd, nodes, 2, &edge, 1, &tpl));
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &start));
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &graph_sig));

	before = tas_memcg_settled(dir);
	ASSERT_LT(0ULL, before);
	ASSERT_EQ(0, tas_bo_create(self->fd, TAS_LET_GO_BYTES, 0, &bo));
	tas_bind_init(&bind, 0, bo, 0);
	memset(&launch, 0, sizeof(launch));
	launch.handle = tpl;
	launch.flags = DRM_TAS_LAUNCH_BINDS;
	tas_sync_on_start(&signals[0], start, 1, 1);
	tas_sync_init(&signals[1], graph_sig, DRM_TAS_NODE_GRAPH, 0);
	tas_array_init(&launch.signals, signals, 2, sizeof(signals[0]));
	tas_array_init(&launch.binds, &bind, 1, sizeof(bind));
	ASSERT_EQ(0, tas_ioctl(self->fd, DRM_IOCTL_TAS_TEMPLATE_LAUNCH,
			       &launch));
	graph_id = launch.graph_id;
	ASSERT_EQ(0, tas_syncobj_timeline_wait(self->fd, start, 1,
					       TAS_WAIT_NS));
	ASSERT_EQ(0, tas_host_done(self->fd, graph_id, 1, 0));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, graph_sig));
	with = tas_memcg_settled(dir);
	ASSERT_EQ(0, tas_bo_close(self->fd, bo));
	kept = tas_memcg_settled(dir);

	/* The next launch, without binds, lets the template's binding go. */
	tas_sync_on_start(&signals[0], start, 1, 2);
	ASSERT_EQ(0, tas_template_launch(self->fd, tpl, NULL, 0, signals, 2,
					 &graph2));
	ASSERT_EQ(0, tas_syncobj_timeline_wait(self->fd, start, 2,
					       TAS_WAIT_NS));
	ASSERT_EQ(0, tas_host_done(self->fd, graph2, 1, 0));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, graph_sig));
	after = tas_memcg_settled(dir);
	TH_LOG("memory.current: %llu before, %llu bound, %llu closed, %llu after a launch",
	       (unsigned long long)before, (unsigned long long)with,
	       (unsigned long long)kept, (unsigned long long)after);
	EXPECT_LE(before + TAS_LET_GO_BYTES * 3 / 4, with);
	EXPECT_LE(before + TAS_LET_GO_BYTES * 3 / 4, kept);
	EXPECT_GT(before + TAS_LET_GO_BYTES / 4, after);

	ASSERT_EQ(0, tas_graph_info(self->fd, graph_id, info, 2, &done));
	EXPECT_EQ(1U, done);
	EXPECT_EQ(0, info[0].error);
	EXPECT_EQ(0, info[1].error);

	ASSERT_EQ(0, tas_template_destroy(self->fd, tpl));
	tas_syncobj_destroy(self->fd, graph_sig);
	tas_syncobj_destroy(self->fd, start);
	ASSERT_EQ(0, tas_bo_close(self->fd, tb));
	ASSERT_EQ(0, tas_write_u64(TAS_CGROUP_ROOT, "cgroup.procs", getpid()));
}

/*
 * A chain over rings 0, 1 and 2: node 0 runs for 500 ms, nodes 1 and 2
 * follow it. The dispatcher hands nodes 1 and 2 to their rings while node 0
 * runs, so each becomes ready when its predecessor's fence signals (ready_ns
 * is that fence's timestamp), not when the dispatcher learns of the
 * completion, which is later. Node 3 on ring 1 becomes ready after node 4 on
 * ring 3, while node 1 waits on ring 1: the waiting node does not hold it
 * up, and it completes while node 0 still runs.
 */
TEST_F(tas, early_release_on_ring)
{
	struct drm_tas_node_info info[5];
	struct drm_tas_node nodes[5];
	struct drm_tas_edge edges[3];
	struct drm_tas_sync signal;
	__u32 syncobj, done;
	__u64 graph_id;
	int i;

	if (self->num_rings < 4)
		SKIP(return, "fewer than 4 rings");
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &syncobj));
	tas_node_init(&nodes[0], 0, DRM_TAS_OP_NOP, 500 * TAS_NSEC_PER_MSEC);
	tas_node_init(&nodes[1], 1, DRM_TAS_OP_NOP, TAS_NSEC_PER_MSEC);
	tas_node_init(&nodes[2], 2, DRM_TAS_OP_NOP, TAS_NSEC_PER_MSEC);
	tas_node_init(&nodes[3], 1, DRM_TAS_OP_NOP, TAS_NSEC_PER_MSEC);
	tas_node_init(&nodes[4], 3, DRM_TAS_OP_NOP, TAS_NSEC_PER_MSEC);
	tas_edge_init(&edges[0], 0, 1);
	tas_edge_init(&edges[1], 1, 2);
	tas_edge_init(&edges[2], 4, 3);
	tas_sync_init(&signal, syncobj, DRM_TAS_NODE_GRAPH, 0);

	ASSERT_EQ(0, tas_submit(self->fd, nodes, 5, edges, 3, NULL, 0,
				&signal, 1, &graph_id));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, syncobj));
	ASSERT_EQ(0, tas_graph_info(self->fd, graph_id, info, 5, &done));
	EXPECT_EQ(1U, done);
	for (i = 0; i < 5; i++)
		EXPECT_EQ(0, info[i].error);
	TH_LOG("node 1 started %lld us after node 0 finished, node 2 %lld us after node 1",
	       ((long long)info[1].started_ns -
		(long long)info[0].finished_ns) / 1000,
	       ((long long)info[2].started_ns -
		(long long)info[1].finished_ns) / 1000);
	EXPECT_EQ(info[0].finished_ns, info[1].ready_ns);
	EXPECT_EQ(info[1].finished_ns, info[2].ready_ns);
	EXPECT_GE(info[1].started_ns, info[1].ready_ns);
	EXPECT_GE(info[2].started_ns, info[2].ready_ns);
	TH_LOG("node 3 finished %lld us before node 0",
	       ((long long)info[0].finished_ns -
		(long long)info[3].finished_ns) / 1000);
	EXPECT_LT(info[3].finished_ns, info[0].finished_ns);
	tas_syncobj_destroy(self->fd, syncobj);
}

/*
 * Another client keeps normal work queued on ring 0 (the stock dispatch
 * pushes all of it at once). A latency-class node on ring 0 that waits for
 * a 20 ms node on ring 1 goes to ring 0 early, through the early entity of
 * its class: the scheduler takes it there before the other client's normal
 * work, as it would take it from the latency class's own entity, and it
 * starts right after its predecessor. 256 nodes of 1 ms: without its
 * class, the latency node would start after most of them.
 */
#define TAS_EARLY_FLOOD_NODES	256

TEST_F_TIMEOUT(tas, early_node_keeps_its_class, 300)
{
	struct drm_tas_node_info *flood_info, info[2];
	struct drm_tas_sync signal, flood_signal;
	struct drm_tas_node *flood, nodes[2];
	__u32 syncobj, flood_sync, done, m, before = 0;
	__u64 graph_id, flood_id, depth = 0;
	struct drm_tas_edge edge;
	int fd2;

	if (self->num_rings < 2)
		SKIP(return, "one ring");
	ASSERT_EQ(0, tas_get_param(self->fd, DRM_TAS_PARAM_RING_DEPTH, 0,
				   &depth));
	flood = calloc(TAS_EARLY_FLOOD_NODES, sizeof(*flood));
	flood_info = calloc(TAS_EARLY_FLOOD_NODES, sizeof(*flood_info));
	ASSERT_NE(NULL, flood);
	ASSERT_NE(NULL, flood_info);
	fd2 = tas_open_render_node();
	ASSERT_LE(0, fd2);
	for (m = 0; m < TAS_EARLY_FLOOD_NODES; m++)
		tas_node_init(&flood[m], 0, DRM_TAS_OP_NOP, TAS_NSEC_PER_MSEC);
	ASSERT_EQ(0, tas_syncobj_create(fd2, 0, &flood_sync));
	tas_sync_init(&flood_signal, flood_sync, DRM_TAS_NODE_GRAPH, 0);
	ASSERT_EQ(0, tas_submit_flags(fd2, DRM_TAS_SUBMIT_FIFO, flood,
				      TAS_EARLY_FLOOD_NODES, NULL, 0, NULL, 0,
				      &flood_signal, 1, &flood_id));
	tas_node_init(&nodes[0], 1, DRM_TAS_OP_NOP, 20 * TAS_NSEC_PER_MSEC);
	tas_node_init(&nodes[1], 0, DRM_TAS_OP_NOP, TAS_NSEC_PER_MSEC);
	nodes[0].class = DRM_TAS_CLASS_LATENCY;
	nodes[1].class = DRM_TAS_CLASS_LATENCY;
	tas_edge_init(&edge, 0, 1);
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &syncobj));
	tas_sync_init(&signal, syncobj, DRM_TAS_NODE_GRAPH, 0);
	ASSERT_EQ(0, tas_submit(self->fd, nodes, 2, &edge, 1, NULL, 0, &signal,
				1, &graph_id));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, syncobj));
	/* A release and a hop per node: 2.5 ms each under KASAN. */
	ASSERT_EQ(0, tas_syncobj_wait(fd2, flood_sync,
				      DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
				      TAS_WAIT_NS + TAS_EARLY_FLOOD_NODES *
				      10 * TAS_NSEC_PER_MSEC));
	ASSERT_EQ(0, tas_graph_info(self->fd, graph_id, info, 2, &done));
	EXPECT_EQ(1U, done);
	EXPECT_EQ(0, info[1].error);
	ASSERT_EQ(0, tas_graph_info(fd2, flood_id, flood_info,
				    TAS_EARLY_FLOOD_NODES, &done));
	EXPECT_EQ(1U, done);
	for (m = 0; m < TAS_EARLY_FLOOD_NODES; m++)
		before += flood_info[m].started_ns >= info[0].finished_ns &&
			  flood_info[m].started_ns < info[1].started_ns;
	TH_LOG("%u of %u queued nodes started before it (ring depth %llu)",
	       before, TAS_EARLY_FLOOD_NODES, (unsigned long long)depth);
	EXPECT_LE(before, 2 * depth + 8);
	tas_syncobj_destroy(fd2, flood_sync);
	tas_syncobj_destroy(self->fd, syncobj);
	close(fd2);
	free(flood_info);
	free(flood);
}

/*
 * Node 1 on ring 1 waits for node 0 (300 ms on ring 0), node 3 on ring 1 for
 * node 2 (600 ms on ring 2). The dispatcher releases the sources ring by
 * ring, node 0 first: node 1 takes ring 1's wait slot, and node 3 finds it
 * taken when node 2 is released. Node 1 completes after 300 ms and gives the
 * slot back: node 3 is tried again and goes to its ring, where it becomes
 * ready at node 2's fence timestamp. Not tried again, it would be released
 * by the dispatcher once node 2 had finished, later than that.
 */
TEST_F(tas, early_node_tried_again)
{
	struct drm_tas_node_info info[4];
	struct drm_tas_node nodes[4];
	struct drm_tas_edge edges[2];
	struct drm_tas_sync signal;
	__u32 syncobj, done;
	__u64 graph_id;
	int i;

	if (self->num_rings < 3)
		SKIP(return, "fewer than 3 rings");
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &syncobj));
	tas_node_init(&nodes[0], 0, DRM_TAS_OP_NOP, 300 * TAS_NSEC_PER_MSEC);
	tas_node_init(&nodes[1], 1, DRM_TAS_OP_NOP, TAS_NSEC_PER_MSEC);
	tas_node_init(&nodes[2], 2, DRM_TAS_OP_NOP, 600 * TAS_NSEC_PER_MSEC);
	tas_node_init(&nodes[3], 1, DRM_TAS_OP_NOP, TAS_NSEC_PER_MSEC);
	tas_edge_init(&edges[0], 0, 1);
	tas_edge_init(&edges[1], 2, 3);
	tas_sync_init(&signal, syncobj, DRM_TAS_NODE_GRAPH, 0);

	ASSERT_EQ(0, tas_submit(self->fd, nodes, 4, edges, 2, NULL, 0,
				&signal, 1, &graph_id));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, syncobj));
	ASSERT_EQ(0, tas_graph_info(self->fd, graph_id, info, 4, &done));
	EXPECT_EQ(1U, done);
	for (i = 0; i < 4; i++)
		EXPECT_EQ(0, info[i].error);
	TH_LOG("node 1 became ready %lld us after node 0, node 3 %lld us after node 2",
	       ((long long)info[1].ready_ns -
		(long long)info[0].finished_ns) / 1000,
	       ((long long)info[3].ready_ns -
		(long long)info[2].finished_ns) / 1000);
	EXPECT_EQ(info[0].finished_ns, info[1].ready_ns);
	EXPECT_EQ(info[2].finished_ns, info[3].ready_ns);
	EXPECT_LT(info[1].finished_ns, info[2].finished_ns);
	tas_syncobj_destroy(self->fd, syncobj);
}

/*
 * A ring starts its next node when its last one ends, as hardware starts the
 * next job of its queue, not when the work item that plays the ring gets to
 * it: node 1 (1 ms) waits on ring 0 behind node 0 (200 ms) and must start at
 * node 0's fence timestamp, under the dispatcher and the stock dispatch.
 * Node 2 (1 ms on ring 1) follows node 0: the dispatcher hands it to its
 * idle ring while node 0 runs, and it must start at the same timestamp; the
 * stock dispatch pushes it once node 0 has finished, so it starts later.
 *
 * This relies on: the dispatcher releasing node 0 (the longer path) first,
 * and node 1 into ring 0's window while node 0 runs; the stock dispatch
 * pushing the nodes in index order onto a ring of at least two credits;
 * and ring 1's wait slot being free, which no other client of the device
 * takes while the selftests run one at a time.
 */
TEST_F(tas, ring_starts_next_node_at_once)
{
	struct drm_tas_node_info info[3];
	struct drm_tas_node nodes[3];
	struct drm_tas_edge edge;
	struct drm_tas_sync signal;
	__u32 syncobj, done;
	__u64 graph_id;
	int fifo, i;

	if (self->num_rings < 2)
		SKIP(return, "fewer than 2 rings");
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &syncobj));
	tas_node_init(&nodes[0], 0, DRM_TAS_OP_NOP, 200 * TAS_NSEC_PER_MSEC);
	tas_node_init(&nodes[1], 0, DRM_TAS_OP_NOP, TAS_NSEC_PER_MSEC);
	tas_node_init(&nodes[2], 1, DRM_TAS_OP_NOP, TAS_NSEC_PER_MSEC);
	tas_edge_init(&edge, 0, 2);
	tas_sync_init(&signal, syncobj, DRM_TAS_NODE_GRAPH, 0);

	for (fifo = 0; fifo < 2; fifo++) {
		ASSERT_EQ(0, tas_submit_flags(self->fd,
					      fifo ? DRM_TAS_SUBMIT_FIFO : 0,
					      nodes, 3, &edge, 1, NULL, 0,
					      &signal, 1, &graph_id));
		ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, syncobj));
		ASSERT_EQ(0, tas_graph_info(self->fd, graph_id, info, 3,
					    &done));
		EXPECT_EQ(1U, done);
		for (i = 0; i < 3; i++)
			EXPECT_EQ(0, info[i].error);
		TH_LOG("%s: node 1 started %lld ns after node 0 finished, node 2 %lld ns",
		       fifo ? "fifo" : "graph",
		       (long long)info[1].started_ns -
		       (long long)info[0].finished_ns,
		       (long long)info[2].started_ns -
		       (long long)info[0].finished_ns);
		EXPECT_EQ(info[0].finished_ns, info[1].started_ns);
		/* The stock dispatch pushes node 2 once node 0 has finished. */
		EXPECT_EQ(!fifo, info[0].finished_ns == info[2].started_ns);
		EXPECT_LE(info[0].finished_ns, info[2].started_ns);
		EXPECT_LE(info[2].ready_ns, info[2].started_ns);
		EXPECT_LE(info[1].started_ns + TAS_NSEC_PER_MSEC,
			  info[1].finished_ns);
	}
	tas_syncobj_destroy(self->fd, syncobj);
}

/*
 * Node 1 on ring 1 follows node 0 (200 ms on ring 0), so the dispatcher hands
 * it to its ring while node 0 runs. Each node has one tas_node_start event:
 * its ready and start times are GRAPH_INFO's, node 1 is early and its wait
 * on the ring ends at node 0's finished_ns, after it reached the ring, node
 * 0 is not early, and the fence of each is that of the scheduler's run_job
 * event of the ring. It relies on ring 1's wait slot being free, as no other
 * client uses the device, and records in the selftests' trace instance.
 */
TEST_F(tas, node_start_trace_event)
{
	static const char * const events[] = {
		"tas/tas_node_start", "gpu_scheduler/drm_sched_job_run",
	};
	unsigned long long ctx, seqno, on_ring, ready, start;
	unsigned int ring, early, seen[2] = { 0, 0 };
	struct drm_tas_node_info info[2];
	struct drm_tas_node nodes[2];
	struct drm_tas_sync signal;
	struct drm_tas_edge edge;
	__u32 syncobj, done;
	char run[128], *line, *trace;
	__u64 graph_id;
	int n;

	if (self->num_rings < 2)
		SKIP(return, "fewer than 2 rings");
	if (mkdir(TAS_TRACE_INSTANCE, 0755) && errno != EEXIST)
		SKIP(return, "cannot create a trace instance (tracefs at /sys/kernel/tracing?): %s",
		     strerror(errno));
	ASSERT_EQ(0, tas_write_str(TAS_TRACE_INSTANCE "/trace", ""));
	ASSERT_EQ(0, tas_trace_events(events, ARRAY_SIZE(events), "1"));

	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &syncobj));
	tas_node_init(&nodes[0], 0, DRM_TAS_OP_NOP, 200 * TAS_NSEC_PER_MSEC);
	tas_node_init(&nodes[1], 1, DRM_TAS_OP_NOP, TAS_NSEC_PER_MSEC);
	tas_edge_init(&edge, 0, 1);
	tas_sync_init(&signal, syncobj, DRM_TAS_NODE_GRAPH, 0);
	ASSERT_EQ(0, tas_submit(self->fd, nodes, 2, &edge, 1, NULL, 0, &signal,
				1, &graph_id));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, syncobj));
	ASSERT_EQ(0, tas_trace_events(events, ARRAY_SIZE(events), "0"));
	ASSERT_EQ(0, tas_graph_info(self->fd, graph_id, info, 2, &done));
	EXPECT_EQ(1U, done);
	EXPECT_EQ(0, info[0].error);
	EXPECT_EQ(0, info[1].error);

	trace = tas_trace_read();
	ASSERT_NE(NULL, trace);
	for (line = strstr(trace, "tas_node_start: "); line;
	     line = strstr(line + 1, "tas_node_start: ")) {
		n = sscanf(line,
			   "tas_node_start: ring=%u fence=%llu:%llu early=%u on_ring_ns=%llu ready_ns=%llu start_ns=%llu",
			   &ring, &ctx, &seqno, &early, &on_ring, &ready, &start);
		ASSERT_EQ(7, n);
		ASSERT_GT(2U, ring);
		seen[ring]++;
		TH_LOG("ring %u: early %u, on its ring %lld us, ready %lld us before its start",
		       ring, early, (long long)(start - on_ring) / 1000,
		       (long long)(start - ready) / 1000);
		EXPECT_EQ(info[ring].started_ns, start);
		EXPECT_EQ(info[ring].ready_ns, ready);
		EXPECT_EQ(ring == 1, early == 1);
		EXPECT_LE(ready, start);
		EXPECT_LE(on_ring, start);
		/* Node 1, too, reached its ring while node 0 still ran. */
		EXPECT_GT(info[0].finished_ns, on_ring);
		EXPECT_EQ(ring == 1, ready == info[0].finished_ns);
		snprintf(run, sizeof(run),
			 "drm_sched_job_run: dev=tas, fence=%llu:%llu, ring=tas-ring%u,",
			 ctx, seqno, ring);
		EXPECT_NE(NULL, strstr(trace, run));
	}
	free(trace);
	EXPECT_EQ(1U, seen[0]);
	EXPECT_EQ(1U, seen[1]);
	tas_syncobj_destroy(self->fd, syncobj);
	EXPECT_EQ(0, rmdir(TAS_TRACE_INSTANCE));
}

/*
 * The scheduler times out the first job of a ring's pending list, which an
 * early node is from the moment it goes to its ring. With the job timeout T:
 *
 * - node 1 (0.5 T on ring 1) after node 0 (0.8 T on ring 0) waits 0.8 T on
 *   its ring, then runs: it must complete, as it ran for less than T;
 * - in a second graph, node 1 waits for node 0 (0.9 T) on ring 1 while node
 *   3 (3 T, released after node 2 on ring 2) runs there: node 3 must fail
 *   with -ETIMEDOUT although the scheduler looks only at the early node.
 */
TEST_F(tas, early_node_timeout)
{
	struct drm_tas_node_info info[4];
	struct drm_tas_node nodes[4];
	struct drm_tas_edge edges[2];
	struct drm_tas_sync signal;
	__u64 timeout = 0, max_duration = 0, graph_id;
	__u32 syncobj, done;

	if (self->num_rings < 3)
		SKIP(return, "fewer than 3 rings");
	ASSERT_EQ(0, tas_get_param(self->fd, DRM_TAS_PARAM_JOB_TIMEOUT_NS, 0,
				   &timeout));
	ASSERT_EQ(0, tas_get_param(self->fd, DRM_TAS_PARAM_MAX_DURATION_NS, 0,
				   &max_duration));
	if (!timeout || timeout > 2 * TAS_NSEC_PER_SEC ||
	    max_duration < 3 * timeout)
		SKIP(return, "job timeout of %llu ns", (unsigned long long)timeout);
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &syncobj));
	tas_sync_init(&signal, syncobj, DRM_TAS_NODE_GRAPH, 0);

	tas_node_init(&nodes[0], 0, DRM_TAS_OP_NOP, timeout * 8 / 10);
	tas_node_init(&nodes[1], 1, DRM_TAS_OP_NOP, timeout / 2);
	tas_edge_init(&edges[0], 0, 1);
	ASSERT_EQ(0, tas_submit(self->fd, nodes, 2, edges, 1, NULL, 0,
				&signal, 1, &graph_id));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, syncobj));
	ASSERT_EQ(0, tas_graph_info(self->fd, graph_id, info, 2, &done));
	EXPECT_EQ(1U, done);
	EXPECT_EQ(0, info[0].error);
	EXPECT_EQ(0, info[1].error);
	/* It went to its ring early. */
	EXPECT_EQ(info[0].finished_ns, info[1].ready_ns);

	tas_node_init(&nodes[0], 0, DRM_TAS_OP_NOP, timeout * 9 / 10);
	tas_node_init(&nodes[1], 1, DRM_TAS_OP_NOP, TAS_NSEC_PER_MSEC);
	tas_node_init(&nodes[2], 2, DRM_TAS_OP_NOP, TAS_NSEC_PER_MSEC);
	tas_node_init(&nodes[3], 1, DRM_TAS_OP_NOP, 3 * timeout);
	tas_edge_init(&edges[0], 0, 1);
	tas_edge_init(&edges[1], 2, 3);
	ASSERT_EQ(0, tas_submit(self->fd, nodes, 4, edges, 2, NULL, 0,
				&signal, 1, &graph_id));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, syncobj));
	ASSERT_EQ(0, tas_graph_info(self->fd, graph_id, info, 4, &done));
	EXPECT_EQ(1U, done);
	EXPECT_EQ(0, info[0].error);
	EXPECT_EQ(0, info[1].error);
	EXPECT_EQ(0, info[2].error);
	EXPECT_EQ(-ETIMEDOUT, info[3].error);
	EXPECT_EQ(info[0].finished_ns, info[1].ready_ns);
	TH_LOG("node 3 stopped after %llu ms, the timeout is %llu ms",
	       (unsigned long long)(info[3].finished_ns - info[3].started_ns) /
		       TAS_NSEC_PER_MSEC,
	       (unsigned long long)timeout / TAS_NSEC_PER_MSEC);
	EXPECT_GT(3 * timeout, info[3].finished_ns - info[3].started_ns);
	tas_syncobj_destroy(self->fd, syncobj);
}

/*
 * A ring's wait slot goes to the next early node once the node that held it
 * starts, not once it completes. In both graphs node 1 (ring 0) waits on its
 * ring for node 0 (100 ms on ring 1) and starts when node 0 ends, and node 2
 * (75 ms, after node 0 on ring 1) completes while node 1 (200 ms) runs.
 *
 * - Node 3 (ring 0) waits for nodes 1 and 2: once node 2 has completed, it
 *   waits only for node 1, which runs on its own ring, and goes there
 *   early, to start at node 1's fence timestamp. With the slot held by node
 *   1 until it completed, node 3 was released by the dispatcher afterwards.
 * - In the second graph node 1 runs for 600 ms, and node 4 (ring 0, of the
 *   latency class) waits for node 2 and node 3 (250 ms on ring 2).
 *   Once node 2 has completed it could go early, but it would preempt node
 *   1, whose fence context it would share: it must not, and must still
 *   preempt node 1 once released by the dispatcher. Node 1 runs long enough
 *   that the dispatcher's release of node 4 after node 3, tens of
 *   milliseconds on a KASAN kernel in QEMU, comes well before it ends.
 *
 * This relies on ring 0's wait slot being free when the graph is submitted,
 * which no other client of the device takes while the selftests run one at
 * a time, and on ring 0's work item starting node 1 within the 75 ms of
 * node 2: otherwise node 1 still holds the slot when node 2 completes. The
 * durations leave tens of milliseconds to each hop of a KASAN kernel in
 * QEMU and stay below the 1 s job timeout.
 */
TEST_F(tas, wait_slot_free_once_early_node_starts)
{
	struct drm_tas_node_info info[5];
	struct drm_tas_node nodes[5];
	struct drm_tas_edge edges[4];
	struct drm_tas_sync signal;
	__u32 syncobj, done;
	__u64 graph_id;
	int i;

	if (self->num_rings < 3)
		SKIP(return, "fewer than 3 rings");
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &syncobj));
	tas_sync_init(&signal, syncobj, DRM_TAS_NODE_GRAPH, 0);
	tas_node_init(&nodes[0], 1, DRM_TAS_OP_NOP, 100 * TAS_NSEC_PER_MSEC);
	tas_node_init(&nodes[1], 0, DRM_TAS_OP_NOP, 200 * TAS_NSEC_PER_MSEC);
	tas_node_init(&nodes[2], 1, DRM_TAS_OP_NOP, 75 * TAS_NSEC_PER_MSEC);
	tas_node_init(&nodes[3], 0, DRM_TAS_OP_NOP, TAS_NSEC_PER_MSEC);
	tas_edge_init(&edges[0], 0, 1);
	tas_edge_init(&edges[1], 0, 2);
	tas_edge_init(&edges[2], 1, 3);
	tas_edge_init(&edges[3], 2, 3);
	ASSERT_EQ(0, tas_submit(self->fd, nodes, 4, edges, 4, NULL, 0,
				&signal, 1, &graph_id));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, syncobj));
	ASSERT_EQ(0, tas_graph_info(self->fd, graph_id, info, 4, &done));
	EXPECT_EQ(1U, done);
	for (i = 0; i < 4; i++)
		EXPECT_EQ(0, info[i].error);
	TH_LOG("node 3 became ready %lld us after node 1 finished",
	       ((long long)info[3].ready_ns -
		(long long)info[1].finished_ns) / 1000);
	EXPECT_EQ(info[0].finished_ns, info[1].ready_ns);
	EXPECT_LT(info[1].started_ns, info[2].finished_ns);
	EXPECT_LT(info[2].finished_ns, info[1].finished_ns);
	EXPECT_EQ(info[1].finished_ns, info[3].ready_ns);
	EXPECT_EQ(info[1].finished_ns, info[3].started_ns);

	nodes[1].duration_ns = 600 * TAS_NSEC_PER_MSEC;
	tas_node_init(&nodes[3], 2, DRM_TAS_OP_NOP, 250 * TAS_NSEC_PER_MSEC);
	tas_node_init(&nodes[4], 0, DRM_TAS_OP_NOP, 5 * TAS_NSEC_PER_MSEC);
	nodes[4].class = DRM_TAS_CLASS_LATENCY;
	tas_edge_init(&edges[2], 2, 4);
	tas_edge_init(&edges[3], 3, 4);
	ASSERT_EQ(0, tas_submit(self->fd, nodes, 5, edges, 4, NULL, 0,
				&signal, 1, &graph_id));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, syncobj));
	ASSERT_EQ(0, tas_graph_info(self->fd, graph_id, info, 5, &done));
	EXPECT_EQ(1U, done);
	for (i = 0; i < 5; i++)
		EXPECT_EQ(0, info[i].error);
	TH_LOG("node 4 became ready %lld us after node 3 finished, ended %lld ms before node 1",
	       ((long long)info[4].ready_ns -
		(long long)info[3].finished_ns) / 1000,
	       ((long long)info[1].finished_ns -
		(long long)info[4].finished_ns) / 1000000);
	EXPECT_EQ(info[0].finished_ns, info[1].ready_ns);
	EXPECT_LT(info[1].started_ns, info[2].finished_ns);
	EXPECT_LT(info[2].finished_ns, info[3].finished_ns);
	/* Not early: released by the dispatcher after node 3 ended. */
	EXPECT_LT(info[3].finished_ns, info[4].ready_ns);
	EXPECT_LT(info[4].finished_ns, info[1].finished_ns);
	tas_syncobj_destroy(self->fd, syncobj);
}

/* GRAPH_INFO with DRM_TAS_GRAPH_INFO_SUMMARY: no node copied. */
static int tas_graph_summary(int fd, __u64 graph_id,
			     struct drm_tas_graph_info *args)
{
	memset(args, 0, sizeof(*args));
	args->graph_id = graph_id;
	args->flags = DRM_TAS_GRAPH_INFO_SUMMARY;
	return tas_ioctl(fd, DRM_IOCTL_TAS_GRAPH_INFO, args);
}

/*
 * A graph's summary says whether it is done and names its first failed
 * node, without its nodes: GPU node 1 -> host node 3 -> GPU node 0, and
 * GPU node 2 alone. The thread reports -EIO for node 3, which node 0
 * inherits: the summary names node 3, which failed first, not node 0,
 * which has the lower index, as full GRAPH_INFO does in the same fields.
 */
TEST_F(tas, graph_summary_names_first_error)
{
	struct drm_tas_node_info info[4];
	struct drm_tas_graph_info args;
	struct drm_tas_sync signals[2];
	struct drm_tas_node nodes[4];
	struct drm_tas_edge edges[2];
	__u32 start, graph_sig;
	__u64 graph_id;

	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &start));
	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &graph_sig));
	tas_node_init(&nodes[0], 1 % self->num_rings, DRM_TAS_OP_NOP,
		      TAS_NSEC_PER_MSEC);
	tas_node_init(&nodes[1], 0, DRM_TAS_OP_NOP, TAS_NSEC_PER_MSEC);
	tas_node_init(&nodes[2], 1 % self->num_rings, DRM_TAS_OP_NOP,
		      TAS_NSEC_PER_MSEC);
	tas_node_init(&nodes[3], 0, DRM_TAS_OP_HOST, 0);
	tas_edge_init(&edges[0], 1, 3);
	tas_edge_init(&edges[1], 3, 0);
	tas_sync_on_start(&signals[0], start, 3, 1);
	tas_sync_init(&signals[1], graph_sig, DRM_TAS_NODE_GRAPH, 0);
	ASSERT_EQ(0, tas_submit(self->fd, nodes, 4, edges, 2, NULL, 0, signals,
				2, &graph_id));

	/* Running: not done, no error yet. */
	ASSERT_EQ(0, tas_syncobj_timeline_wait(self->fd, start, 1, TAS_WAIT_NS));
	ASSERT_EQ(0, tas_graph_summary(self->fd, graph_id, &args));
	EXPECT_EQ(0U, args.done);
	EXPECT_EQ(4U, args.node_count);
	EXPECT_EQ(DRM_TAS_NODE_GRAPH, args.error_node);
	EXPECT_EQ(0, args.error);

	ASSERT_EQ(0, tas_host_done(self->fd, graph_id, 3, -EIO));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, graph_sig));
	ASSERT_EQ(0, tas_graph_summary(self->fd, graph_id, &args));
	EXPECT_EQ(1U, args.done);
	EXPECT_EQ(4U, args.node_count);
	EXPECT_EQ(3U, args.error_node);
	EXPECT_EQ(-EIO, args.error);

	/* Full GRAPH_INFO fills in the same fields beside the nodes. */
	memset(&args, 0, sizeof(args));
	args.graph_id = graph_id;
	tas_array_init(&args.nodes, info, 4, sizeof(info[0]));
	ASSERT_EQ(0, tas_ioctl(self->fd, DRM_IOCTL_TAS_GRAPH_INFO, &args));
	EXPECT_EQ(1U, args.done);
	EXPECT_EQ(4U, args.node_count);
	EXPECT_EQ(3U, args.error_node);
	EXPECT_EQ(-EIO, args.error);
	EXPECT_EQ(-EIO, info[3].error);
	EXPECT_EQ(-EIO, info[0].error);
	EXPECT_LE(info[3].finished_ns, info[0].finished_ns);
	EXPECT_EQ(0, info[1].error);
	EXPECT_EQ(0, info[2].error);

	/* The summary releases the record of a done graph, as GRAPH_INFO. */
	memset(&args, 0, sizeof(args));
	args.graph_id = graph_id;
	args.flags = DRM_TAS_GRAPH_INFO_SUMMARY | DRM_TAS_GRAPH_INFO_RELEASE;
	ASSERT_EQ(0, tas_ioctl(self->fd, DRM_IOCTL_TAS_GRAPH_INFO, &args));
	EXPECT_EQ(-ENOENT, tas_graph_summary(self->fd, graph_id, &args));

	tas_syncobj_destroy(self->fd, graph_sig);
	tas_syncobj_destroy(self->fd, start);
}

/* struct drm_tas_graph_info before the summary's fields. */
struct tas_graph_info_v1 {
	__u64 graph_id;
	struct drm_tas_array nodes;
	__u32 flags;
	__u32 done;
};

/*
 * A graph without errors; the summary's argument rules; a caller built
 * against the structure before the summary.
 */
TEST_F(tas, graph_summary_rejects_nodes)
{
	/* The kernel writes back no more than the caller's structure. */
	struct {
		struct tas_graph_info_v1 args;
		__u64 canary;
	} v1 = { .canary = 0xa5a5a5a5a5a5a5a5ULL };
	struct drm_tas_node_info info;
	struct drm_tas_graph_info args;
	struct drm_tas_sync signal;
	struct drm_tas_node node;
	__u32 syncobj;
	__u64 graph_id;

	ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &syncobj));
	tas_node_init(&node, 0, DRM_TAS_OP_NOP, TAS_NSEC_PER_MSEC);
	tas_sync_init(&signal, syncobj, DRM_TAS_NODE_GRAPH, 0);
	ASSERT_EQ(0, tas_submit(self->fd, &node, 1, NULL, 0, NULL, 0, &signal,
				1, &graph_id));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, syncobj));
	ASSERT_EQ(0, tas_graph_summary(self->fd, graph_id, &args));
	EXPECT_EQ(1U, args.done);
	EXPECT_EQ(1U, args.node_count);
	EXPECT_EQ(DRM_TAS_NODE_GRAPH, args.error_node);
	EXPECT_EQ(0, args.error);

	/* Nodes with the summary, a pad, an unknown flag: -EINVAL. */
	tas_array_init(&args.nodes, &info, 1, sizeof(info));
	args.flags = DRM_TAS_GRAPH_INFO_SUMMARY;
	EXPECT_EQ(-EINVAL, tas_ioctl(self->fd, DRM_IOCTL_TAS_GRAPH_INFO, &args));
	memset(&args.nodes, 0, sizeof(args.nodes));
	args.pad = 1;
	EXPECT_EQ(-EINVAL, tas_ioctl(self->fd, DRM_IOCTL_TAS_GRAPH_INFO, &args));
	args.pad = 0;
	args.flags = DRM_TAS_GRAPH_INFO_SUMMARY << 1;
	EXPECT_EQ(-EINVAL, tas_ioctl(self->fd, DRM_IOCTL_TAS_GRAPH_INFO, &args));
	args.flags = DRM_TAS_GRAPH_INFO_SUMMARY;
	EXPECT_EQ(0, tas_ioctl(self->fd, DRM_IOCTL_TAS_GRAPH_INFO, &args));
	/* The probe: an unknown graph is -ENOENT, not -EINVAL. */
	EXPECT_EQ(-ENOENT, tas_graph_summary(self->fd, ~0ULL, &args));

	v1.args.graph_id = graph_id;
	tas_array_init(&v1.args.nodes, &info, 1, sizeof(info));
	ASSERT_EQ(0, tas_ioctl(self->fd,
			       DRM_IOWR(DRM_COMMAND_BASE + DRM_TAS_GRAPH_INFO,
					struct tas_graph_info_v1), &v1.args));
	EXPECT_EQ(1U, v1.args.done);
	EXPECT_EQ(0xa5a5a5a5a5a5a5a5ULL, v1.canary);
	EXPECT_EQ(0, info.error);
	EXPECT_NE(0ULL, info.finished_ns);

	tas_syncobj_destroy(self->fd, syncobj);
}

/*
 * A launch of template @handle with @flags, the waits @waits and the signals
 * @signals.
 */
static int tas_launch_flags(int fd, __u32 handle, __u32 flags,
			    const struct drm_tas_sync *waits, __u32 num_waits,
			    const struct drm_tas_sync *signals,
			    __u32 num_signals, __u64 *graph_id)
{
	struct drm_tas_template_launch args;
	int ret;

	memset(&args, 0, sizeof(args));
	args.handle = handle;
	args.flags = flags;
	tas_array_init(&args.waits, waits, num_waits, sizeof(*waits));
	tas_array_init(&args.signals, signals, num_signals, sizeof(*signals));
	ret = tas_ioctl(fd, DRM_IOCTL_TAS_TEMPLATE_LAUNCH, &args);
	if (!ret)
		*graph_id = args.graph_id;
	return ret;
}

/* An ordered launch of @tpl whose host node 0 signals @start when released. */
static int tas_launch_ordered(int fd, __u32 tpl, __u32 start, __u64 *graph_id)
{
	struct drm_tas_sync signal;

	tas_sync_on_start(&signal, start, 0, 0);
	return tas_launch_flags(fd, tpl, DRM_TAS_LAUNCH_ORDERED, NULL, 0,
				&signal, 1, graph_id);
}

/* -ETIME if binary syncobj @handle does not signal within 50 ms. */
static int tas_not_within_50ms(int fd, __u32 handle)
{
	return tas_syncobj_wait(fd, handle,
				DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
				50 * TAS_NSEC_PER_MSEC);
}

/*
 * Ordered launches of a template (host node 0 -> GPU node 1) start one
 * after the other: launch B, ordered after A, is not released while A's
 * thread has not reported, and is released once A has completed although A
 * failed (its error is not B's); C, not ordered, is released at once; D,
 * ordered after B, does not wait for C. E has no signal of its whole graph,
 * whose fence exists only for F to wait for; a rejected ordered launch is
 * not waited for. The host nodes make the order visible without timing: a
 * node not released yet cannot be reported (-EBUSY), and its start point
 * does not signal.
 */
TEST_F(tas, template_launch_ordered)
{
	struct drm_tas_graph_info summary;
	struct drm_tas_sync signals[2], bad;
	__u32 tpl, start[7], done[4];
	struct drm_tas_node nodes[2];
	struct drm_tas_edge edge;
	__u64 host_timeout = 0, id[7];
	int i;

	/* A host node must not time out while its order is checked. */
	ASSERT_EQ(0, tas_get_param(self->fd, DRM_TAS_PARAM_HOST_TIMEOUT_NS, 0,
				   &host_timeout));
	if (host_timeout < TAS_NSEC_PER_SEC)
		SKIP(return, "host timeout under 1 s");
	tas_node_init(&nodes[0], 0, DRM_TAS_OP_HOST, 0);
	tas_node_init(&nodes[1], 0, DRM_TAS_OP_NOP, TAS_NSEC_PER_MSEC);
	tas_edge_init(&edge, 0, 1);
	ASSERT_EQ(0, tas_template_create(self->fd, nodes, 2, &edge, 1, &tpl));
	for (i = 0; i < 7; i++)
		ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &start[i]));
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, tas_syncobj_create(self->fd, 0, &done[i]));
	/* A, B ordered; C not. */
	for (i = 0; i < 3; i++) {
		tas_sync_on_start(&signals[0], start[i], 0, 0);
		tas_sync_init(&signals[1], done[i], DRM_TAS_NODE_GRAPH, 0);
		ASSERT_EQ(0, tas_launch_flags(self->fd, tpl,
					      i < 2 ? DRM_TAS_LAUNCH_ORDERED : 0,
					      NULL, 0, signals, 2, &id[i]))
			TH_LOG("launch %d", i);
	}
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, start[0]));
	/* B waits for all of A. */
	EXPECT_EQ(-EBUSY, tas_host_done(self->fd, id[1], 0, 0));
	EXPECT_EQ(-ETIME, tas_not_within_50ms(self->fd, start[1]));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, start[2]));

	/* A fails; B then runs, without A's error. */
	ASSERT_EQ(0, tas_host_done(self->fd, id[0], 0, -EIO));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, done[0]));
	ASSERT_EQ(0, tas_graph_summary(self->fd, id[0], &summary));
	EXPECT_EQ(0U, summary.error_node);
	EXPECT_EQ(-EIO, summary.error);
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, start[1]));
	ASSERT_EQ(0, tas_host_done(self->fd, id[1], 0, 0));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, done[1]));
	ASSERT_EQ(0, tas_graph_summary(self->fd, id[1], &summary));
	EXPECT_EQ(1U, summary.done);
	EXPECT_EQ(0, summary.error);

	/* D comes after B, which is done, not after C, which is running. */
	tas_sync_on_start(&signals[0], start[3], 0, 0);
	tas_sync_init(&signals[1], done[3], DRM_TAS_NODE_GRAPH, 0);
	ASSERT_EQ(0, tas_launch_flags(self->fd, tpl, DRM_TAS_LAUNCH_ORDERED,
				      NULL, 0, signals, 2, &id[3]));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, start[3]));
	ASSERT_EQ(0, tas_host_done(self->fd, id[3], 0, 0));
	ASSERT_EQ(0, tas_host_done(self->fd, id[2], 0, 0));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, done[2]));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, done[3]));

	/* E, then F: no signal of E's whole graph, still waited for. */
	ASSERT_EQ(0, tas_launch_ordered(self->fd, tpl, start[4], &id[4]));
	ASSERT_EQ(0, tas_launch_ordered(self->fd, tpl, start[5], &id[5]));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, start[4]));
	EXPECT_EQ(-EBUSY, tas_host_done(self->fd, id[5], 0, 0));
	EXPECT_EQ(-ETIME, tas_not_within_50ms(self->fd, start[5]));
	ASSERT_EQ(0, tas_host_done(self->fd, id[4], 0, 0));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, start[5]));

	/* Rejected (unknown syncobj), so not the launch that G waits for. */
	tas_sync_init(&bad, ~0U, DRM_TAS_NODE_GRAPH, 0);
	EXPECT_EQ(-ENOENT, tas_launch_flags(self->fd, tpl,
					    DRM_TAS_LAUNCH_ORDERED, &bad, 1,
					    NULL, 0, &id[6]));
	ASSERT_EQ(0, tas_host_done(self->fd, id[5], 0, 0));
	ASSERT_EQ(0, tas_launch_ordered(self->fd, tpl, start[6], &id[6]));
	ASSERT_EQ(0, tas_syncobj_wait_graph(self->fd, start[6]));
	ASSERT_EQ(0, tas_host_done(self->fd, id[6], 0, 0));

	/*
	 * The probe: a kernel without the flag rejects it with -EINVAL before
	 * it looks the template up; this one answers -ENOENT for template 0.
	 */
	EXPECT_EQ(-ENOENT, tas_launch_flags(self->fd, 0, DRM_TAS_LAUNCH_ORDERED,
					    NULL, 0, NULL, 0, &id[0]));
	EXPECT_EQ(-EINVAL, tas_launch_flags(self->fd, tpl,
					    DRM_TAS_LAUNCH_ORDERED << 1,
					    NULL, 0, NULL, 0, &id[0]));
	ASSERT_EQ(0, tas_template_destroy(self->fd, tpl));
	for (i = 0; i < 7; i++)
		tas_syncobj_destroy(self->fd, start[i]);
	for (i = 0; i < 4; i++)
		tas_syncobj_destroy(self->fd, done[i]);
}
