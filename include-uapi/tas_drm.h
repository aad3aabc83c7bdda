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
 * Like vgem and vkms, TAS is a driver for development and testing: it lets
 * userspace (ML frameworks, test suites) and the scheduler's graph layer be
 * developed against whole-graph submission without GPU hardware. Its uAPI
 * follows the usual rules all the same: ioctls, structure fields, flags and
 * parameters are only ever added, never changed, and
 * &DRM_TAS_PARAM_VERSION tells userspace what a kernel supports. Its
 * open-source userspace is the kselftests in
 * tools/testing/selftests/drivers/gpu/tas/.
 *
 * Userspace discovers the driver with DRM_IOCTL_VERSION (driver name "tas")
 * and queries its properties with &DRM_IOCTL_TAS_GET_PARAM.
 *
 * All structures are padded to a multiple of 64 bits. Fields marked as
 * padding or reserved must be zero; the kernel rejects non-zero values with
 * -EINVAL, so that they can be given a meaning later.
 *
 * Each ioctl below ends its description with the complete list of errors it
 * returns. -EFAULT is among them for every ioctl: the argument structure (or
 * an array it points to) cannot be read or written.
 *
 * Buffer objects can be exported as dma-bufs with
 * DRM_IOCTL_PRIME_HANDLE_TO_FD; DRM_IOCTL_PRIME_FD_TO_HANDLE accepts only
 * dma-bufs that tas exported (-EINVAL for those of other devices). tas
 * creates no dumb buffers.
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
	 * whenever an ioctl, a parameter, a field or a flag is added.
	 * Currently 7.
	 */
	DRM_TAS_PARAM_VERSION = 0,

	/**
	 * @DRM_TAS_PARAM_NUM_RINGS: Number of rings (hardware queues) of the
	 * virtual engine, between 1 and 16.
	 */
	DRM_TAS_PARAM_NUM_RINGS = 1,

	/**
	 * @DRM_TAS_PARAM_MAX_NODES: Maximum number of nodes (jobs) in one
	 * submitted graph. Currently 16384.
	 */
	DRM_TAS_PARAM_MAX_NODES = 2,

	/**
	 * @DRM_TAS_PARAM_MAX_EDGES: Maximum number of dependency edges in one
	 * submitted graph. Currently 65536.
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

	/**
	 * @DRM_TAS_PARAM_OPS: Bit mask of the supported operations, bit n for
	 * &enum drm_tas_op value n.
	 */
	DRM_TAS_PARAM_OPS = 6,

	/**
	 * @DRM_TAS_PARAM_MAX_BO_SIZE: Largest size of a buffer object, in
	 * bytes. Currently 64 MiB.
	 */
	DRM_TAS_PARAM_MAX_BO_SIZE = 7,

	/**
	 * @DRM_TAS_PARAM_MAX_DURATION_NS: Largest simulated duration of a node,
	 * in nanoseconds. Currently 10 s.
	 */
	DRM_TAS_PARAM_MAX_DURATION_NS = 8,

	/**
	 * @DRM_TAS_PARAM_JOB_TIMEOUT_NS: Time after which a running node is
	 * aborted with -ETIMEDOUT (module parameter ``job_timeout_ms``).
	 */
	DRM_TAS_PARAM_JOB_TIMEOUT_NS = 9,

	/**
	 * @DRM_TAS_PARAM_RING_DEPTH: Number of nodes a ring executes at once
	 * (the credit limit of its scheduler, module parameter ``ring_depth``).
	 */
	DRM_TAS_PARAM_RING_DEPTH = 10,

	/**
	 * @DRM_TAS_PARAM_MAX_STRIDE: Largest stride accepted in a
	 * &struct drm_tas_array. Currently 4096.
	 */
	DRM_TAS_PARAM_MAX_STRIDE = 11,

	/**
	 * @DRM_TAS_PARAM_MAX_NODES_IN_FLIGHT: Largest number of nodes of one
	 * file's graphs in flight (submitted or launched and not completed),
	 * whatever their dispatch. A submission beyond it waits. Currently
	 * 65536. (Since version 4.)
	 */
	DRM_TAS_PARAM_MAX_NODES_IN_FLIGHT = 12,

	/**
	 * @DRM_TAS_PARAM_MAX_TEMPLATE_NODES: Largest number of nodes of one
	 * file's templates together. Currently 65536. (Since version 4.)
	 */
	DRM_TAS_PARAM_MAX_TEMPLATE_NODES = 13,

	/**
	 * @DRM_TAS_PARAM_MAX_KEPT_NODES: Largest number of nodes of one
	 * file's graphs kept until they are read (&DRM_TAS_SUBMIT_KEEP)
	 * together. Currently 65536. (Since version 5.)
	 */
	DRM_TAS_PARAM_MAX_KEPT_NODES = 14,

	/**
	 * @DRM_TAS_PARAM_MAX_KEPT_GRAPHS: Largest number of one file's
	 * graphs kept until they are read. Currently 1024. (Since version 5.)
	 */
	DRM_TAS_PARAM_MAX_KEPT_GRAPHS = 15,

	/**
	 * @DRM_TAS_PARAM_HOST_TIMEOUT_NS: Time after which a released host
	 * node (&DRM_TAS_OP_HOST) that was not reported completes with
	 * -ETIMEDOUT (module parameter ``host_timeout_ms``, 10 s by default).
	 * (Since version 6.)
	 */
	DRM_TAS_PARAM_HOST_TIMEOUT_NS = 16,
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

/**
 * struct drm_tas_bo_create - Argument of &DRM_IOCTL_TAS_BO_CREATE.
 */
struct drm_tas_bo_create {
	/**
	 * @size: [in] Size of the buffer in bytes, from 1 to
	 * &DRM_TAS_PARAM_MAX_BO_SIZE. It is rounded up to whole pages; the
	 * bounds checks of nodes use the rounded size.
	 */
	__u64 size;

	/**
	 * @flags: [in] Must be zero.
	 */
	__u32 flags;

	/**
	 * @handle: [out] GEM handle of the new buffer. The buffer is zeroed.
	 */
	__u32 handle;
};

/**
 * struct drm_tas_bo_mmap_offset - Argument of &DRM_IOCTL_TAS_BO_MMAP_OFFSET.
 */
struct drm_tas_bo_mmap_offset {
	/**
	 * @handle: [in] GEM handle of the buffer.
	 */
	__u32 handle;

	/**
	 * @pad: [in] Padding, must be zero.
	 */
	__u32 pad;

	/**
	 * @offset: [out] Offset to pass to mmap() on the render node's file
	 * descriptor to map the buffer.
	 */
	__u64 offset;
};

/**
 * enum drm_tas_op - Operations of a graph node.
 *
 * Buffers are arrays of little-endian 32-bit integers for the arithmetic
 * operations; arithmetic wraps around on overflow.
 */
enum drm_tas_op {
	/**
	 * @DRM_TAS_OP_NOP: Does nothing but take its simulated duration. No
	 * buffer.
	 */
	DRM_TAS_OP_NOP = 0,

	/**
	 * @DRM_TAS_OP_FILL: Fills &drm_tas_node.dst with the 32-bit value in
	 * the low half of &drm_tas_node.imm. dst.size is a multiple of 4.
	 */
	DRM_TAS_OP_FILL = 1,

	/**
	 * @DRM_TAS_OP_COPY: Copies src[0] to dst; both have the same size.
	 * The ranges may be in the same buffer but must not overlap.
	 */
	DRM_TAS_OP_COPY = 2,

	/**
	 * @DRM_TAS_OP_ADD: Element-wise dst = src[0] + src[1] on 32-bit
	 * integers; all three ranges have the same size, a multiple of 4.
	 */
	DRM_TAS_OP_ADD = 3,

	/**
	 * @DRM_TAS_OP_MATMUL: dst = src[0] x src[1] on row-major 32-bit integer
	 * matrices: src[0] is M x K, src[1] is K x N and dst is M x N, with
	 * M, N and K in bits 0-15, 16-31 and 32-47 of &drm_tas_node.imm, each
	 * from 1 to 256. The range sizes must be exactly 4 * M * K,
	 * 4 * K * N and 4 * M * N bytes.
	 */
	DRM_TAS_OP_MATMUL = 4,

	/**
	 * @DRM_TAS_OP_HOST: Work that a CPU thread does (a host node). No
	 * buffer and no immediate operand; &drm_tas_node.ring and
	 * &drm_tas_node.duration_ns must be 0, and the node may not be in a
	 * gang. Once its dependencies are done, the kernel signals the node's
	 * &DRM_TAS_SYNC_ON_START points, which wakes the thread that waits for
	 * them; the node completes when that thread reports with
	 * &DRM_IOCTL_TAS_HOST_DONE, or with -ETIMEDOUT after
	 * &DRM_TAS_PARAM_HOST_TIMEOUT_NS, as a hung GPU node does. At most two
	 * host nodes of a file are released at once, three with
	 * &DRM_TAS_CLASS_LATENCY: the others wait for a report. Not with
	 * &DRM_TAS_SUBMIT_FIFO. (Since version 6.)
	 *
	 * The node's fences, and those of the nodes after it, then depend on
	 * a userspace thread, bounded only by the timeout. The dma-buf rules
	 * ("Indefinite DMA Fences" in Documentation/driver-api/dma-buf.rst)
	 * say that such fences must not reach memory management, even with a
	 * timeout; drm/tas is a driver for testing, like vgem, whose fences
	 * userspace signals too, and host nodes are meant for graphs whose
	 * fences stay with the clients that wait for them.
	 */
	DRM_TAS_OP_HOST = 5,
};

/**
 * enum drm_tas_class - Priority classes of graph nodes.
 */
enum drm_tas_class {
	/** @DRM_TAS_CLASS_NORMAL: Default class. */
	DRM_TAS_CLASS_NORMAL = 0,
	/** @DRM_TAS_CLASS_LATENCY: Latency-sensitive work. */
	DRM_TAS_CLASS_LATENCY = 1,
	/** @DRM_TAS_CLASS_BATCH: Throughput work that may wait. */
	DRM_TAS_CLASS_BATCH = 2,
};

/**
 * struct drm_tas_buf - A byte range of a buffer object used by a node.
 *
 * Unused ranges of a node (see &enum drm_tas_op) must be all zero.
 */
struct drm_tas_buf {
	/** @handle: [in] GEM handle of the buffer. */
	__u32 handle;
	/** @pad: [in] Padding, must be zero. */
	__u32 pad;
	/** @offset: [in] Offset of the range in the buffer, in bytes. */
	__u64 offset;
	/**
	 * @size: [in] Size of the range in bytes, not zero;
	 * offset + size must not exceed the size of the buffer.
	 */
	__u64 size;
};

/**
 * struct drm_tas_node - A node (job) of a graph.
 */
struct drm_tas_node {
	/** @ring: [in] Ring that executes the node, below &DRM_TAS_PARAM_NUM_RINGS. */
	__u32 ring;

	/** @op: [in] Operation, one of &enum drm_tas_op. */
	__u32 op;

	/**
	 * @class: [in] Priority class, one of &enum drm_tas_class. Among the
	 * ready nodes of a file, a ring takes latency work first, then normal,
	 * then batch work, and within a class the node with the longest
	 * remaining path (by @duration_ns) to the end of its graph; a class
	 * that has been passed over 4 times on a ring is served next, so no
	 * class starves. Between files, the class is the scheduler priority.
	 * &DRM_TAS_CLASS_LATENCY needs CAP_SYS_NICE, as high priorities do in
	 * other drivers. Ignored with &DRM_TAS_SUBMIT_FIFO.
	 */
	__u32 class;

	/**
	 * @gang: [in] Gang id, 0 for none. The nodes of a graph with the same
	 * non-zero id form a gang: they must be on different rings, and they
	 * start together, once all of them are ready and all of their rings
	 * are idle, or not at all. A file's gangs start one at a time, in the
	 * order they became ready; gangs of all files that share rings are
	 * admitted in one order for the device, so that no two gangs ever
	 * wait for each other. When a member fails (it times out, or one of its
	 * dependencies failed), the members that have not finished complete
	 * with -ECANCELED, which their successors inherit. Ignored with
	 * &DRM_TAS_SUBMIT_FIFO.
	 */
	__u32 gang;

	/**
	 * @duration_ns: [in] Simulated execution time on the ring, at most
	 * &DRM_TAS_PARAM_MAX_DURATION_NS. The operation's result is visible
	 * once the node's fences signal.
	 */
	__u64 duration_ns;

	/** @dst: [in] Destination range. */
	struct drm_tas_buf dst;

	/** @src: [in] Source ranges. */
	struct drm_tas_buf src[2];

	/**
	 * @imm: [in] Immediate operand (see &enum drm_tas_op); its bits that
	 * the operation does not use must be zero.
	 */
	__u64 imm;

	/** @flags: [in] Must be zero. */
	__u32 flags;

	/** @pad: [in] Padding, must be zero. */
	__u32 pad;

	/**
	 * @tag: [in] Any value, for the caller to name the node by (a
	 * framework's operation id, say). The kernel does not interpret it:
	 * &DRM_IOCTL_TAS_GRAPH_INFO reports it in &drm_tas_node_info.tag, and
	 * the scheduler's ``drm_sched_job_deps_resolved`` and
	 * ``drm_sched_job_dispatch`` trace events carry it as ``tag``.
	 */
	__u64 tag;
};

/**
 * struct drm_tas_edge - A dependency: node @to starts after node @from has
 * finished.
 *
 * Nodes are numbered by their index in &drm_tas_submit_graph.nodes. An edge
 * from a node to itself, an edge given twice and a cycle are rejected.
 */
struct drm_tas_edge {
	/** @from: [in] Index of the node that must finish first. */
	__u32 from;
	/** @to: [in] Index of the node that waits. */
	__u32 to;
};

/* Value of &drm_tas_sync.node: the entry applies to the whole graph. */
#define DRM_TAS_NODE_GRAPH	0xffffffffu

/**
 * struct drm_tas_sync - A syncobj wait or signal of a graph submission.
 *
 * @point 0 uses the syncobj as a binary one (its fence is replaced on
 * signal); a non-zero point is a timeline point (a point is added on
 * signal). The payload of a syncobj changes when the graph is submitted;
 * its fence signals later. Waiting on point 0 of a syncobj that holds a
 * timeline, on a non-zero point of one that holds a binary fence, or on a
 * point that has not been submitted yet (including an empty binary
 * syncobj) fails with -EINVAL. A signal point must be above the
 * syncobj's last timeline point; within one submission, a syncobj is
 * signalled at point 0 at most once and its timeline points in increasing
 * order.
 */
struct drm_tas_sync {
	/** @handle: [in] Syncobj handle. */
	__u32 handle;

	/**
	 * @node: [in] For a wait, the node that waits, or
	 * %DRM_TAS_NODE_GRAPH for every node of the graph. For a signal, the
	 * node whose completion signals the point, or %DRM_TAS_NODE_GRAPH for
	 * the completion of the whole graph. A binary signal (point 0)
	 * carries the error of the node, or the first error of the graph. A
	 * timeline point does not: the dma_fence_chain node that represents
	 * it never carries an error, so it reads as signalled without one;
	 * &DRM_IOCTL_TAS_GRAPH_INFO reports the errors.
	 */
	__u32 node;

	/** @point: [in] Timeline point, or 0 for binary use. */
	__u64 point;

	/**
	 * @flags: [in] 0, or for a signal of a host node
	 * (&DRM_TAS_OP_HOST), &DRM_TAS_SYNC_ON_START.
	 */
	__u32 flags;

	/** @pad: [in] Padding, must be zero. */
	__u32 pad;
};

/*
 * Flag of &drm_tas_sync.flags: the point signals when the host node is
 * released (its dependencies are done and the thread may start its work),
 * not when it completes. With the error of a failed dependency, the node
 * is not released: the point signals with that error (a binary syncobj
 * carries it) and the node completes with it. (Since version 6.)
 */
#define DRM_TAS_SYNC_ON_START	(1u << 0)

/**
 * struct drm_tas_array - A user array of structures.
 *
 * @stride lets userspace built against a newer header, with larger
 * structures, run on this kernel: it must be at least the size of the
 * structure this kernel knows and at most &DRM_TAS_PARAM_MAX_STRIDE, and the
 * bytes beyond the known structure must be zero. An empty array (count 0)
 * must have ptr and stride 0.
 */
struct drm_tas_array {
	/** @ptr: [in] User pointer to the first element. */
	__u64 ptr;
	/** @count: [in] Number of elements. */
	__u32 count;
	/** @stride: [in] Distance between elements in bytes. */
	__u32 stride;
};

/* Flag of &drm_tas_submit_graph.flags: stock FIFO dispatch. */
#define DRM_TAS_SUBMIT_FIFO	(1u << 0)

/*
 * Flag of &drm_tas_submit_graph.flags and &drm_tas_template_launch.flags:
 * keep the graph's record for &DRM_IOCTL_TAS_GRAPH_INFO until it is read
 * with &DRM_TAS_GRAPH_INFO_RELEASE.
 */
#define DRM_TAS_SUBMIT_KEEP	(1u << 1)

/*
 * Flag of &drm_tas_template_launch.flags: the launch has
 * &drm_tas_template_launch.binds. Without it, @binds must be all zero. A
 * kernel older than version 7 rejects the flag with -EINVAL rather than run
 * the template on its own buffers, as it would if it only saw a shorter
 * structure. (Since version 7.)
 */
#define DRM_TAS_LAUNCH_BINDS	(1u << 2)

/*
 * Flag of &drm_tas_template_launch.flags: order the launch after the
 * previous ordered launch of the same template, the last launch of the
 * template with this flag that the kernel accepted (launches of one file
 * are accepted one at a time; between threads, their order is the order
 * in which their ioctls took effect). The launch's source nodes are
 * released once every node of that launch has completed, whatever its
 * outcome: unlike a syncobj wait, its error does not carry over (read it
 * with &DRM_TAS_GRAPH_INFO_SUMMARY). A source host node's timeout starts
 * at its release, as always. The order is per template: launches without
 * the flag, and launches of other templates, are not ordered by it. The
 * wait is not one of the launch's &drm_tas_template_launch.waits. A kernel
 * without the flag rejects it with -EINVAL before it looks the template
 * up, one with it answers -ENOENT for an unknown template, which is how
 * userspace probes for it.
 */
#define DRM_TAS_LAUNCH_ORDERED	(1u << 3)

/**
 * enum drm_tas_error_array - The array of the element that a rejected
 * submission failed on, in &drm_tas_submit_graph.error_array.
 *
 * A graph is rejected as a whole, but a framework wants to know which of its
 * operations or dependencies to blame. These errors name the element that
 * caused them:
 *
 * - -EINVAL: a node's fields, an edge out of range, a self-loop, the second
 *   of two equal edges, a wait's or a signal's fields or point
 * - -EINVAL: a node's buffer ranges or immediate operand
 * - -ENOENT: a node's unknown buffer
 * - -ENOENT: a wait's or a signal's unknown syncobj
 * - -ELOOP: an edge on a cycle
 * - -EACCES: a node of a class the caller may not use
 * - -EINVAL: a bind's slot out of range or bound twice, or an offset
 *   that leaves no room for the slot's extent
 * - -ENOENT: a bind's unknown buffer
 *
 * Every other error leaves &DRM_TAS_ERROR_NONE: a bad array header, a limit
 * of the file,
 * a gang that can never start,
 * an allocation, a fault or a signal.
 */
enum drm_tas_error_array {
	/** @DRM_TAS_ERROR_NONE: No single element is at fault. */
	DRM_TAS_ERROR_NONE = 0,
	/** @DRM_TAS_ERROR_NODES: The node at &drm_tas_submit_graph.error_index. */
	DRM_TAS_ERROR_NODES = 1,
	/** @DRM_TAS_ERROR_EDGES: The edge at the error index. */
	DRM_TAS_ERROR_EDGES = 2,
	/** @DRM_TAS_ERROR_WAITS: The wait at the error index. */
	DRM_TAS_ERROR_WAITS = 3,
	/** @DRM_TAS_ERROR_SIGNALS: The signal at the error index. */
	DRM_TAS_ERROR_SIGNALS = 4,
	/**
	 * @DRM_TAS_ERROR_BINDS: The bind at the error index, in
	 * &drm_tas_template_launch.binds. (Since version 7.)
	 */
	DRM_TAS_ERROR_BINDS = 5,
};

/**
 * struct drm_tas_submit_graph - Argument of &DRM_IOCTL_TAS_SUBMIT_GRAPH.
 */
struct drm_tas_submit_graph {
	/**
	 * @extensions: [in] Pointer to a chain of extension structures. No
	 * extension is defined yet: must be zero.
	 */
	__u64 extensions;

	/**
	 * @nodes: [in] &struct drm_tas_node array, 1 to
	 * &DRM_TAS_PARAM_MAX_NODES entries.
	 */
	struct drm_tas_array nodes;

	/**
	 * @edges: [in] &struct drm_tas_edge array, at most
	 * &DRM_TAS_PARAM_MAX_EDGES entries.
	 */
	struct drm_tas_array edges;

	/**
	 * @waits: [in] &struct drm_tas_sync array of syncobj points to wait
	 * for, at most &DRM_TAS_PARAM_MAX_WAITS entries.
	 */
	struct drm_tas_array waits;

	/**
	 * @signals: [in] &struct drm_tas_sync array of syncobj points to
	 * signal, at most &DRM_TAS_PARAM_MAX_SIGNALS entries.
	 */
	struct drm_tas_array signals;

	/**
	 * @flags: [in] Zero, or &DRM_TAS_SUBMIT_FIFO for the stock dispatch
	 * (the baseline of measurements): every node is queued to its ring at
	 * submit, in a topological order, and each ring starts its nodes in
	 * that order.
	 * &DRM_TAS_SUBMIT_KEEP, alone or with it, keeps the graph's record
	 * until it is read (see &DRM_IOCTL_TAS_GRAPH_INFO).
	 */
	__u32 flags;

	/** @pad: [in] Padding, must be zero. */
	__u32 pad;

	/**
	 * @graph_id: [out] Identifier of the submitted graph in this file,
	 * for &DRM_IOCTL_TAS_GRAPH_INFO.
	 */
	__u64 graph_id;

	/**
	 * @error_array: [out] When the ioctl fails because of one element of
	 * one of the arrays, that array, one of &enum drm_tas_error_array;
	 * otherwise, and on success, &DRM_TAS_ERROR_NONE.
	 */
	__u32 error_array;

	/**
	 * @error_index: [out] The index of that element in its array; 0 with
	 * &DRM_TAS_ERROR_NONE.
	 */
	__u32 error_index;
};

/**
 * struct drm_tas_node_info - Per-node result of a graph, filled in by
 * &DRM_IOCTL_TAS_GRAPH_INFO.
 *
 * Timestamps are CLOCK_MONOTONIC nanoseconds; 0 means the node has not
 * reached that stage (or never will, for a node cancelled by an error).
 */
struct drm_tas_node_info {
	/** @queued_ns: [out] When the node was pushed to its ring's scheduler. */
	__u64 queued_ns;
	/**
	 * @ready_ns: [out] When its last dependency (predecessor or wait)
	 * signalled, or when it was queued if that was later.
	 */
	__u64 ready_ns;
	/**
	 * @started_ns: [out] When the ring started executing it; for a host
	 * node, when it was released to its thread.
	 */
	__u64 started_ns;
	/**
	 * @finished_ns: [out] When its fences signalled, also for a node that
	 * did not run because of an error.
	 */
	__u64 finished_ns;
	/**
	 * @error: [out] 0, or the negative errno the node completed with:
	 * -ETIMEDOUT when it ran longer than &DRM_TAS_PARAM_JOB_TIMEOUT_NS;
	 * for a host node, -ETIMEDOUT when it was not reported within
	 * &DRM_TAS_PARAM_HOST_TIMEOUT_NS, or the error its thread reported;
	 * -ECANCELED when it did not run because another member of its gang
	 * failed;
	 * -ECANCELED or -ESRCH when its file was closed before it ran (seen
	 * through the syncobjs it signals). A node that
	 * waited for a failed predecessor, or for a syncobj point whose fence
	 * carries an error, completes with that error instead.
	 */
	__s32 error;
	/**
	 * @ring: [out] The ring of the node; &DRM_TAS_PARAM_NUM_RINGS for a
	 * host node.
	 */
	__u32 ring;
	/** @tag: [out] The node's &drm_tas_node.tag. */
	__u64 tag;
};

/**
 * struct drm_tas_graph_info - Argument of &DRM_IOCTL_TAS_GRAPH_INFO.
 */
struct drm_tas_graph_info {
	/** @graph_id: [in] The graph, as returned by SUBMIT_GRAPH. */
	__u64 graph_id;

	/**
	 * @nodes: [in] &struct drm_tas_node_info array to fill in, with as
	 * many entries as the graph has nodes (count) and a stride of at
	 * least the size of &struct drm_tas_node_info; empty (all zero) with
	 * &DRM_TAS_GRAPH_INFO_SUMMARY.
	 */
	struct drm_tas_array nodes;

	/**
	 * @flags: [in] Zero, or &DRM_TAS_GRAPH_INFO_RELEASE and
	 * &DRM_TAS_GRAPH_INFO_SUMMARY.
	 */
	__u32 flags;

	/**
	 * @done: [out] 1 if every node of the graph has finished, else 0.
	 */
	__u32 done;

	/** @node_count: [out] The number of nodes of the graph. */
	__u32 node_count;

	/**
	 * @error_node: [out] Of the nodes that have finished with an error,
	 * the one with the earliest &drm_tas_node_info.finished_ns (the
	 * lowest index among equal ones), or %DRM_TAS_NODE_GRAPH if none has.
	 * It is mostly the node that failed, as the nodes that inherit its
	 * error finish after it; but a node can inherit an error from a wait
	 * (every node that waits on a failed fence does), and the successor
	 * of a node that timed out can be reported before it. Final once
	 * @done is 1. A kernel without &DRM_TAS_GRAPH_INFO_SUMMARY leaves
	 * @node_count, @error_node and @error as the caller passed them.
	 */
	__u32 error_node;

	/**
	 * @error: [out] The error of @error_node, a negative errno, or 0 if
	 * no node has failed.
	 */
	__s32 error;

	/** @pad: [in] Zero. */
	__u32 pad;
};

/*
 * Flag of &drm_tas_graph_info.flags: forget the graph's record after
 * reading it, if the graph is done.
 */
#define DRM_TAS_GRAPH_INFO_RELEASE	(1u << 0)

/*
 * Flag of &drm_tas_graph_info.flags: fill in only @done, @node_count,
 * @error_node and @error, without the nodes; @nodes must be empty (all
 * zero). The kernel walks the graph's record (one read per node) but
 * copies nothing per node. A kernel without it rejects the flag with
 * -EINVAL before it looks the graph up; one with it answers -ENOENT for
 * an unknown graph, which is how userspace probes for it.
 */
#define DRM_TAS_GRAPH_INFO_SUMMARY	(1u << 1)

/**
 * struct drm_tas_template_create - Argument of
 * &DRM_IOCTL_TAS_TEMPLATE_CREATE.
 *
 * A template is a graph validated, ranked and bound to its buffers once,
 * to be launched any number of times with &DRM_IOCTL_TAS_TEMPLATE_LAUNCH.
 */
struct drm_tas_template_create {
	/** @extensions: [in] Must be zero. */
	__u64 extensions;

	/** @nodes: [in] As &drm_tas_submit_graph.nodes. */
	struct drm_tas_array nodes;

	/** @edges: [in] As &drm_tas_submit_graph.edges. */
	struct drm_tas_array edges;

	/** @flags: [in] Must be zero. */
	__u32 flags;

	/** @handle: [out] Handle of the template in this file, not zero. */
	__u32 handle;

	/**
	 * @error_array: [out] As &drm_tas_submit_graph.error_array, for
	 * @nodes and @edges.
	 */
	__u32 error_array;

	/** @error_index: [out] As &drm_tas_submit_graph.error_index. */
	__u32 error_index;

	/**
	 * @slots: [out] The number of buffer slots of the template: its
	 * distinct GEM handles, numbered in the order of their first use
	 * (nodes in index order, and in each node ``dst``, then ``src[0]``,
	 * then ``src[1]``). &drm_tas_template_launch.binds refers to them.
	 * (Since version 7.)
	 */
	__u32 slots;

	/** @pad: [in] Padding, must be zero. (Since version 7.) */
	__u32 pad;
};

/**
 * struct drm_tas_bind - A buffer that a template launch uses in place of
 * one of the template's.
 *
 * Every range that the template's nodes use in slot @slot, at offset o of
 * the template's buffer, is at @offset + o of @handle in this launch. The
 * extent of a slot is the end of the furthest range in it (offset + size);
 * @offset + extent must be within @handle. Two slots may be bound to one
 * buffer, even to overlapping ranges of it: every operation stays within
 * its ranges, a copy between overlapping ranges is done as by memmove(),
 * and what another operation writes over one of its sources is
 * unspecified.
 */
struct drm_tas_bind {
	/**
	 * @slot: [in] The slot, below &drm_tas_template_create.slots; each
	 * slot at most once per launch.
	 */
	__u32 slot;

	/** @handle: [in] GEM handle of a TAS buffer of this file. */
	__u32 handle;

	/** @offset: [in] Where in @handle the slot's offset 0 is. */
	__u64 offset;
};

/**
 * struct drm_tas_template_launch - Argument of
 * &DRM_IOCTL_TAS_TEMPLATE_LAUNCH.
 */
struct drm_tas_template_launch {
	/** @handle: [in] The template. */
	__u32 handle;

	/**
	 * @flags: [in] Zero, or &DRM_TAS_SUBMIT_KEEP, &DRM_TAS_LAUNCH_BINDS and
	 * &DRM_TAS_LAUNCH_ORDERED, alone or together.
	 */
	__u32 flags;

	/**
	 * @waits: [in] As &drm_tas_submit_graph.waits; node indices refer to
	 * the template's nodes.
	 */
	struct drm_tas_array waits;

	/** @signals: [in] As &drm_tas_submit_graph.signals. */
	struct drm_tas_array signals;

	/** @graph_id: [out] As &drm_tas_submit_graph.graph_id. */
	__u64 graph_id;

	/**
	 * @error_array: [out] As &drm_tas_submit_graph.error_array, for
	 * @waits, @signals and @binds.
	 */
	__u32 error_array;

	/** @error_index: [out] As &drm_tas_submit_graph.error_index. */
	__u32 error_index;

	/**
	 * @binds: [in] With &DRM_TAS_LAUNCH_BINDS, a &struct drm_tas_bind
	 * array: the buffers this launch uses in place of the template's, at
	 * most &drm_tas_template_create.slots entries. A slot not bound keeps
	 * the template's buffer. Without the flag, all zero. (Since
	 * version 7.)
	 */
	struct drm_tas_array binds;
};

/**
 * struct drm_tas_template_destroy - Argument of
 * &DRM_IOCTL_TAS_TEMPLATE_DESTROY.
 */
struct drm_tas_template_destroy {
	/** @handle: [in] The template. */
	__u32 handle;

	/** @pad: [in] Must be zero. */
	__u32 pad;
};

/**
 * struct drm_tas_host_done - Argument of &DRM_IOCTL_TAS_HOST_DONE.
 */
struct drm_tas_host_done {
	/**
	 * @graph_id: [in] The graph, as returned by SUBMIT_GRAPH or
	 * TEMPLATE_LAUNCH.
	 */
	__u64 graph_id;
	/** @node: [in] The index of the host node in the graph. */
	__u32 node;
	/**
	 * @error: [in] 0 if the work succeeded, or a negative errno (-511 to
	 * -1) that the node completes with and its successors inherit.
	 */
	__s32 error;
	/** @flags: [in] Must be zero. */
	__u32 flags;
	/** @pad: [in] Padding, must be zero. */
	__u32 pad;
};

#define DRM_TAS_GET_PARAM		0x00
#define DRM_TAS_BO_CREATE		0x01
#define DRM_TAS_BO_MMAP_OFFSET		0x02
#define DRM_TAS_SUBMIT_GRAPH		0x03
#define DRM_TAS_GRAPH_INFO		0x04
#define DRM_TAS_TEMPLATE_CREATE		0x05
#define DRM_TAS_TEMPLATE_LAUNCH		0x06
#define DRM_TAS_TEMPLATE_DESTROY	0x07
#define DRM_TAS_HOST_DONE		0x08

/**
 * DOC: TAS ioctls
 *
 * .. c:macro:: DRM_IOCTL_TAS_GET_PARAM
 *
 *    Query a parameter of the driver or the virtual device, see
 *    &struct drm_tas_get_param. Allowed on the render node.
 *    Errors: -EINVAL if &drm_tas_get_param.param is unknown or
 *    &drm_tas_get_param.pad is not zero; -EFAULT.
 *
 * .. c:macro:: DRM_IOCTL_TAS_BO_CREATE
 *
 *    Create a zeroed shmem buffer object, see &struct drm_tas_bo_create.
 *    Errors: -EINVAL for a size of 0 or above the limit, or non-zero
 *    flags; -ENOMEM; -EFAULT.
 *
 * .. c:macro:: DRM_IOCTL_TAS_BO_MMAP_OFFSET
 *
 *    Get the fake offset to mmap() a buffer object, see
 *    &struct drm_tas_bo_mmap_offset. Errors: -ENOENT for an unknown
 *    handle; -EINVAL for non-zero padding; -ENOMEM when no offset can be
 *    allocated; -EFAULT.
 *
 * .. c:macro:: DRM_IOCTL_TAS_SUBMIT_GRAPH
 *
 *    Submit a whole dependency graph of nodes in one call, see
 *    &struct drm_tas_submit_graph. The graph is validated completely
 *    before anything is queued: on error nothing runs and no syncobj is
 *    touched. A node becomes ready once its predecessors have finished
 *    and its waits and the graph's waits have signalled;
 *    the ready nodes of a file are handed to their rings a few at a time,
 *    by class and critical path (see &drm_tas_node.class), so a ready node
 *    never waits behind one that is not ready.
 *    A node whose predecessor failed does not run and
 *    completes with the predecessor's error; independent nodes still run.
 *    A node that runs longer than &DRM_TAS_PARAM_JOB_TIMEOUT_NS fails with
 *    -ETIMEDOUT. A rejected graph names the node, edge, wait or signal at
 *    fault, where one is, in &drm_tas_submit_graph.error_array and
 *    &drm_tas_submit_graph.error_index.
 *
 *    A file has at most 1024 graphs in flight, not counting those
 *    submitted with &DRM_TAS_SUBMIT_FIFO, and at most
 *    &DRM_TAS_PARAM_MAX_NODES_IN_FLIGHT nodes in flight, counting them.
 *    A submission beyond either waits until enough of them complete,
 *    before its arguments are looked at; a signal ends the wait (-EINTR,
 *    or the call is restarted with SA_RESTART). A graph that waits for a
 *    point that only a later submission of the same file would signal
 *    keeps its place meanwhile.
 *    It waits in the same way while the records of more than 65536 nodes
 *    that the file's earlier submissions evicted from its history (see
 *    &DRM_IOCTL_TAS_GRAPH_INFO) have not been freed yet.
 *
 *    The kernel memory a submission takes (about 1 KiB per node while it
 *    is in flight or its results can be read with GRAPH_INFO) is charged
 *    to the caller's memory cgroup. A submission that does not fit fails with
 *    -ENOMEM without invoking the OOM killer; later ones that fit work.
 *    Errors:
 *
 *    - -EINVAL: no nodes; non-zero flags, padding, reserved fields or
 *      extensions; a stride below the structure size or above the
 *      limit, or non-zero bytes beyond the known structure; an empty
 *      array with a non-zero ptr or stride; unknown op, ring, class or
 *      flag; two members of a gang on one ring;
 *      a duration above the limit; buffer ranges that are empty, out of
 *      bounds, overflowing, of the wrong size for the operation, or set
 *      for an operation that does not use them; an edge endpoint out of
 *      range, a self-loop or a duplicate edge; a wait or signal node
 *      out of range; a wait point that does not match the syncobj's use
 *      or is not submitted yet; a signal point not above the syncobj's
 *      last point; the same syncobj point signalled twice; a host node
 *      with a ring, a duration or a gang, or with &DRM_TAS_SUBMIT_FIFO;
 *      &DRM_TAS_SYNC_ON_START on a wait, or on a signal of anything but a
 *      host node.
 *    - -E2BIG: more nodes, edges, waits or signals than the limits.
 *    - -ELOOP: the edges contain a cycle.
 *    - -EDEADLK: a gang that can never start: a member depends on
 *      another member, or gangs depend on each other in a cycle.
 *    - -EACCES: a node of &DRM_TAS_CLASS_LATENCY without CAP_SYS_NICE
 *      (not checked with &DRM_TAS_SUBMIT_FIFO, which ignores classes).
 *    - -ENOENT: an unknown buffer or syncobj handle.
 *    - -ENOSPC: &DRM_TAS_SUBMIT_KEEP when the file's kept graphs would
 *      have more than &DRM_TAS_PARAM_MAX_KEPT_NODES nodes together, or
 *      there are &DRM_TAS_PARAM_MAX_KEPT_GRAPHS of them already.
 *    - -EFAULT: the argument or an array that cannot be read.
 *    - -ENOMEM: out of memory.
 *    - -EINTR: a signal ended the wait for a free place.
 *
 * .. c:macro:: DRM_IOCTL_TAS_GRAPH_INFO
 *
 *    Read the per-node timestamps and errors of a graph, see
 *    &struct drm_tas_graph_info. Only the known structure is written in
 *    each element. With &DRM_TAS_GRAPH_INFO_SUMMARY, read only whether
 *    the graph is done and its first error, which copies nothing per node:
 *    what a runtime checks after each step. Errors: -ENOENT for an unknown
 *    graph (a file keeps the
 *    results of its last 64 graphs, running or not, and of those only the
 *    latest ones with at most 65536 nodes together); -EINVAL for a count that differs
 *    from the graph's node count, a stride below the size of
 *    &struct drm_tas_node_info or above &DRM_TAS_PARAM_MAX_STRIDE, a
 *    non-empty @nodes with &DRM_TAS_GRAPH_INFO_SUMMARY, a non-zero pad,
 *    or unknown flags; -EFAULT for an array that cannot be written.
 *
 *    A graph submitted or launched with &DRM_TAS_SUBMIT_KEEP is not one
 *    of those 64: its record is kept, whatever else the file submits,
 *    until it is read with &DRM_TAS_GRAPH_INFO_RELEASE after it is done,
 *    or the file is closed. &DRM_TAS_GRAPH_INFO_RELEASE forgets the
 *    record of any graph that is done (&drm_tas_graph_info.done is 1);
 *    that of a graph still running stays.
 *
 * .. c:macro:: DRM_IOCTL_TAS_TEMPLATE_CREATE
 *
 *    Validate a graph once and keep it as a template, see
 *    &struct drm_tas_template_create. Its memory is charged to the
 *    caller's memory cgroup, as for &DRM_IOCTL_TAS_SUBMIT_GRAPH, and so are
 *    the instances that are prepared in the background for launches (when
 *    the cgroup has no room for them, a launch prepares its own).
 *    Errors: those of &DRM_IOCTL_TAS_SUBMIT_GRAPH for its nodes and edges
 *    (-EINVAL, -E2BIG, -ELOOP, -EDEADLK, -EACCES, -ENOENT, -EFAULT,
 *    -ENOMEM), and -ENOSPC when the file has 64 templates or its templates
 *    would have more than &DRM_TAS_PARAM_MAX_TEMPLATE_NODES nodes
 *    together.
 *
 * .. c:macro:: DRM_IOCTL_TAS_TEMPLATE_LAUNCH
 *
 *    Run a template as a new graph with its own waits and signals, see
 *    &struct drm_tas_template_launch. The work of a launch does not grow
 *    with the number of nodes when the driver has an instance of the
 *    template ready (it prepares the next one in the background). It waits
 *    for a free place among the file's graphs in flight as SUBMIT_GRAPH
 *    does. Errors: those of &DRM_IOCTL_TAS_SUBMIT_GRAPH for its waits,
 *    signals and flags (-EINVAL, -E2BIG, -ENOENT, -ENOSPC, -EFAULT,
 *    -ENOMEM, -EINTR), -ENOENT for an unknown template, and for its
 *    binds: -E2BIG for more binds than the template has slots, -EINVAL
 *    and -ENOENT as above (with &DRM_TAS_ERROR_BINDS). Binds are checked
 *    and their buffers mapped before anything of the launch runs; a
 *    rejected launch runs nothing. The work of a bind is constant, not
 *    proportional to the number of nodes that use its slot. Launches of
 *    a template may run at the same time, on the same buffers, unless
 *    &DRM_TAS_LAUNCH_ORDERED or their waits order them.
 *
 * .. c:macro:: DRM_IOCTL_TAS_TEMPLATE_DESTROY
 *
 *    Destroy a template, see &struct drm_tas_template_destroy. Launches
 *    in flight complete normally. Errors: -ENOENT for an unknown
 *    template; -EINVAL for non-zero padding; -EFAULT.
 *
 * .. c:macro:: DRM_IOCTL_TAS_HOST_DONE
 *
 *    Report the completion of a host node (&DRM_TAS_OP_HOST), see
 *    &struct drm_tas_host_done. The node's fences signal, with the error if
 *    one is given, and its successors are released. A thread learns that
 *    its node was released by waiting for the node's
 *    &DRM_TAS_SYNC_ON_START point (DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, or
 *    DRM_IOCTL_SYNCOBJ_EVENTFD to wait in an epoll set). A host node that
 *    is not reported within &DRM_TAS_PARAM_HOST_TIMEOUT_NS of its release
 *    completes with -ETIMEDOUT, and closing the file completes its host
 *    nodes with -ESRCH, as every node the close cancels: no fence waits
 *    for a thread without a bound. A thread whose node timed out gets
 *    -EALREADY while the rest of the graph runs, -ENOENT after. Errors:
 *
 *    - -ENOENT: no graph of this file with that id is in flight (it may
 *      have completed), or it has no such node.
 *    - -EINVAL: the node is not a host node; the error is neither 0 nor a
 *      negative errno from -1 to -511; non-zero flags or padding.
 *    - -EBUSY: the node has not been released yet.
 *    - -EALREADY: the node has completed already (reported, timed out, or
 *      cancelled by the error of a dependency).
 *    - -EFAULT.
 */

/* Note: this is an enum so that it can be resolved by Rust bindgen. */
enum {
	DRM_IOCTL_TAS_GET_PARAM		= DRM_IOWR(DRM_COMMAND_BASE + DRM_TAS_GET_PARAM,
						   struct drm_tas_get_param),
	DRM_IOCTL_TAS_BO_CREATE		= DRM_IOWR(DRM_COMMAND_BASE + DRM_TAS_BO_CREATE,
						   struct drm_tas_bo_create),
	DRM_IOCTL_TAS_BO_MMAP_OFFSET	= DRM_IOWR(DRM_COMMAND_BASE + DRM_TAS_BO_MMAP_OFFSET,
						   struct drm_tas_bo_mmap_offset),
	DRM_IOCTL_TAS_SUBMIT_GRAPH	= DRM_IOWR(DRM_COMMAND_BASE + DRM_TAS_SUBMIT_GRAPH,
						   struct drm_tas_submit_graph),
	DRM_IOCTL_TAS_GRAPH_INFO	= DRM_IOWR(DRM_COMMAND_BASE + DRM_TAS_GRAPH_INFO,
						   struct drm_tas_graph_info),
	DRM_IOCTL_TAS_TEMPLATE_CREATE	= DRM_IOWR(DRM_COMMAND_BASE + DRM_TAS_TEMPLATE_CREATE,
						   struct drm_tas_template_create),
	DRM_IOCTL_TAS_TEMPLATE_LAUNCH	= DRM_IOWR(DRM_COMMAND_BASE + DRM_TAS_TEMPLATE_LAUNCH,
						   struct drm_tas_template_launch),
	DRM_IOCTL_TAS_TEMPLATE_DESTROY	= DRM_IOWR(DRM_COMMAND_BASE + DRM_TAS_TEMPLATE_DESTROY,
						   struct drm_tas_template_destroy),
	DRM_IOCTL_TAS_HOST_DONE		= DRM_IOW(DRM_COMMAND_BASE + DRM_TAS_HOST_DONE,
						  struct drm_tas_host_done),
};

#if defined(__cplusplus)
}
#endif

#endif /* __TAS_DRM_H__ */
