// SPDX-License-Identifier: MIT
//! The raw drm/tas uAPI: `#[repr(C)]` mirrors of the structures, enums,
//! flags and ioctl numbers of `include/uapi/drm/tas_drm.h`.
//!
//! The definitions are written by hand, in the header's order and with its
//! names, so that they can be compared line by line; `tests/layout.rs`
//! compiles a C program against the header and checks every size, field
//! offset, field size, constant and ioctl number against this module. The
//! sizes are also asserted at compile time below.
//!
//! All structures are padded to a multiple of 64 bits. Padding, reserved and
//! flags fields that the header says must be zero are rejected by the kernel
//! with `EINVAL` when they are not. `Default` gives all-zero values.
//!
//! Most users want the safe API of the crate root instead of this module.

#![allow(non_camel_case_types)]

use core::mem::size_of;
use rustix::ioctl::{opcode, Opcode};

/// Base of the DRM ioctl numbers (`DRM_IOCTL_BASE`, `'d'`).
pub const DRM_IOCTL_BASE: u8 = b'd';
/// First driver-specific DRM ioctl number (`DRM_COMMAND_BASE`).
pub const DRM_COMMAND_BASE: u8 = 0x40;

// enum drm_tas_param

/// Version of the TAS uAPI, incremented whenever an ioctl, a parameter or a
/// flag is added. Currently 6.
pub const DRM_TAS_PARAM_VERSION: u32 = 0;
/// Number of rings (hardware queues) of the virtual engine, 1 to 16.
pub const DRM_TAS_PARAM_NUM_RINGS: u32 = 1;
/// Maximum number of nodes in one submitted graph. Currently 16384.
pub const DRM_TAS_PARAM_MAX_NODES: u32 = 2;
/// Maximum number of dependency edges in one submitted graph. Currently 65536.
pub const DRM_TAS_PARAM_MAX_EDGES: u32 = 3;
/// Maximum number of syncobj wait entries in one submission. Currently 64.
pub const DRM_TAS_PARAM_MAX_WAITS: u32 = 4;
/// Maximum number of syncobj signal entries in one submission. Currently 64.
pub const DRM_TAS_PARAM_MAX_SIGNALS: u32 = 5;
/// Bit mask of the supported operations, bit n for `DRM_TAS_OP_*` value n.
pub const DRM_TAS_PARAM_OPS: u32 = 6;
/// Largest size of a buffer object, in bytes. Currently 64 MiB.
pub const DRM_TAS_PARAM_MAX_BO_SIZE: u32 = 7;
/// Largest simulated duration of a node, in ns. Currently 10 s.
pub const DRM_TAS_PARAM_MAX_DURATION_NS: u32 = 8;
/// Time after which a running node is aborted with `ETIMEDOUT` (module
/// parameter `job_timeout_ms`). Not for host nodes, see
/// [`DRM_TAS_PARAM_HOST_TIMEOUT_NS`].
pub const DRM_TAS_PARAM_JOB_TIMEOUT_NS: u32 = 9;
/// Number of nodes a ring executes at once (module parameter `ring_depth`).
pub const DRM_TAS_PARAM_RING_DEPTH: u32 = 10;
/// Largest stride accepted in a [`drm_tas_array`]. Currently 4096.
pub const DRM_TAS_PARAM_MAX_STRIDE: u32 = 11;
/// Largest number of nodes of one file's graphs in flight. Currently 65536.
/// (Since version 4.)
pub const DRM_TAS_PARAM_MAX_NODES_IN_FLIGHT: u32 = 12;
/// Largest number of nodes of one file's templates together. Currently
/// 65536. (Since version 4.)
pub const DRM_TAS_PARAM_MAX_TEMPLATE_NODES: u32 = 13;
/// Largest number of nodes of one file's graphs kept until they are read
/// ([`DRM_TAS_SUBMIT_KEEP`]) together. Currently 65536. (Since version 5.)
pub const DRM_TAS_PARAM_MAX_KEPT_NODES: u32 = 14;
/// Largest number of one file's graphs kept until they are read. Currently
/// 1024. (Since version 5.)
pub const DRM_TAS_PARAM_MAX_KEPT_GRAPHS: u32 = 15;
/// Time after which a released host node ([`DRM_TAS_OP_HOST`]) that was not
/// reported completes with `ETIMEDOUT` (module parameter `host_timeout_ms`,
/// 10 s by default). (Since version 6.)
pub const DRM_TAS_PARAM_HOST_TIMEOUT_NS: u32 = 16;

/// `error_array`: no single element of the arrays is at fault.
pub const DRM_TAS_ERROR_NONE: u32 = 0;
/// `error_array`: the node at `error_index`.
pub const DRM_TAS_ERROR_NODES: u32 = 1;
/// `error_array`: the edge at `error_index`.
pub const DRM_TAS_ERROR_EDGES: u32 = 2;
/// `error_array`: the wait at `error_index`.
pub const DRM_TAS_ERROR_WAITS: u32 = 3;
/// `error_array`: the signal at `error_index`.
pub const DRM_TAS_ERROR_SIGNALS: u32 = 4;
/// `error_array`: the bind at `error_index` (of a template launch). Since
/// version 7.
pub const DRM_TAS_ERROR_BINDS: u32 = 5;

/// [`drm_tas_template_launch::flags`]: the launch has binds; a kernel older
/// than version 7 rejects it with `EINVAL` rather than ignore them.
pub const DRM_TAS_LAUNCH_BINDS: u32 = 1 << 2;

/// [`drm_tas_template_launch::flags`]: the launch starts after the
/// template's previous launch with this flag has completed, whatever its
/// outcome. A kernel without it rejects it with `EINVAL`.
pub const DRM_TAS_LAUNCH_ORDERED: u32 = 1 << 3;

/// Argument of `DRM_IOCTL_TAS_GET_PARAM`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct drm_tas_get_param {
    /// \[in\] The parameter to query, one of `DRM_TAS_PARAM_*`.
    pub param: u32,
    /// \[in\] Padding, must be zero.
    pub pad: u32,
    /// \[out\] The value of the parameter.
    pub value: u64,
}

/// Argument of `DRM_IOCTL_TAS_BO_CREATE`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct drm_tas_bo_create {
    /// \[in\] Size of the buffer in bytes, from 1 to
    /// `DRM_TAS_PARAM_MAX_BO_SIZE`. Rounded up to whole pages; the bounds
    /// checks of nodes use the rounded size.
    pub size: u64,
    /// \[in\] Must be zero.
    pub flags: u32,
    /// \[out\] GEM handle of the new, zeroed buffer.
    pub handle: u32,
}

/// Argument of `DRM_IOCTL_TAS_BO_MMAP_OFFSET`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct drm_tas_bo_mmap_offset {
    /// \[in\] GEM handle of the buffer.
    pub handle: u32,
    /// \[in\] Padding, must be zero.
    pub pad: u32,
    /// \[out\] Offset to pass to mmap() on the DRM file descriptor.
    pub offset: u64,
}

// enum drm_tas_op. Buffers are arrays of little-endian 32-bit integers for
// the arithmetic operations; arithmetic wraps around on overflow.

/// Does nothing but take its simulated duration. No buffer.
pub const DRM_TAS_OP_NOP: u32 = 0;
/// Fills `dst` with the 32-bit value in the low half of `imm`. `dst.size`
/// is a multiple of 4.
pub const DRM_TAS_OP_FILL: u32 = 1;
/// Copies `src[0]` to `dst`; both have the same size. The ranges may be in
/// the same buffer but must not overlap.
pub const DRM_TAS_OP_COPY: u32 = 2;
/// Element-wise `dst = src[0] + src[1]` on 32-bit integers; all three ranges
/// have the same size, a multiple of 4.
pub const DRM_TAS_OP_ADD: u32 = 3;
/// `dst = src[0] x src[1]` on row-major 32-bit integer matrices: `src[0]` is
/// M x K, `src[1]` is K x N and `dst` is M x N, with M, N and K in bits
/// 0-15, 16-31 and 32-47 of `imm`, each from 1 to 256. The range sizes must
/// be exactly 4 * M * K, 4 * K * N and 4 * M * N bytes.
pub const DRM_TAS_OP_MATMUL: u32 = 4;
/// Work that a CPU thread does (a host node). No buffer and no immediate
/// operand; `ring` and `duration_ns` must be 0, and the node may not be in a
/// gang. Once its dependencies are done, the kernel signals the node's
/// [`DRM_TAS_SYNC_ON_START`] points, which wakes the thread that waits for
/// them; the node completes when that thread reports with
/// `DRM_IOCTL_TAS_HOST_DONE`, or with `ETIMEDOUT` after
/// [`DRM_TAS_PARAM_HOST_TIMEOUT_NS`], as a hung GPU node does. At most two
/// host nodes of a file are released at once, three with
/// [`DRM_TAS_CLASS_LATENCY`]: the others wait for a report. Not with
/// [`DRM_TAS_SUBMIT_FIFO`]. (Since version 6.)
pub const DRM_TAS_OP_HOST: u32 = 5;

// enum drm_tas_class

/// Default class.
pub const DRM_TAS_CLASS_NORMAL: u32 = 0;
/// Latency-sensitive work; needs `CAP_SYS_NICE`.
pub const DRM_TAS_CLASS_LATENCY: u32 = 1;
/// Throughput work that may wait.
pub const DRM_TAS_CLASS_BATCH: u32 = 2;

/// A byte range of a buffer object used by a node. Unused ranges of a node
/// must be all zero.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct drm_tas_buf {
    /// \[in\] GEM handle of the buffer.
    pub handle: u32,
    /// \[in\] Padding, must be zero.
    pub pad: u32,
    /// \[in\] Offset of the range in the buffer, in bytes.
    pub offset: u64,
    /// \[in\] Size of the range in bytes, not zero; `offset + size` must not
    /// exceed the size of the buffer.
    pub size: u64,
}

/// A node (job) of a graph.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct drm_tas_node {
    /// \[in\] Ring that executes the node, below `DRM_TAS_PARAM_NUM_RINGS`.
    pub ring: u32,
    /// \[in\] Operation, one of `DRM_TAS_OP_*`.
    pub op: u32,
    /// \[in\] Priority class, one of `DRM_TAS_CLASS_*`. Ignored with
    /// [`DRM_TAS_SUBMIT_FIFO`]. `DRM_TAS_CLASS_LATENCY` needs
    /// `CAP_SYS_NICE`.
    pub class: u32,
    /// \[in\] Gang id, 0 for none. The nodes of a graph with the same
    /// non-zero id must be on different rings and start together. Ignored
    /// with [`DRM_TAS_SUBMIT_FIFO`].
    pub gang: u32,
    /// \[in\] Simulated execution time on the ring, at most
    /// `DRM_TAS_PARAM_MAX_DURATION_NS`.
    pub duration_ns: u64,
    /// \[in\] Destination range.
    pub dst: drm_tas_buf,
    /// \[in\] Source ranges.
    pub src: [drm_tas_buf; 2],
    /// \[in\] Immediate operand; the bits that the operation does not use
    /// must be zero.
    pub imm: u64,
    /// \[in\] Must be zero.
    pub flags: u32,
    /// \[in\] Padding, must be zero.
    pub pad: u32,
    /// \[in\] Any value, for the caller to name the node by (a framework's
    /// operation id, say): `DRM_IOCTL_TAS_GRAPH_INFO` reports it, and the
    /// scheduler's latency trace events carry it as `tag`.
    pub tag: u64,
}

/// A dependency: node `to` starts after node `from` has finished. Nodes are
/// numbered by their index in the nodes array. Self-loops, duplicate edges
/// and cycles are rejected.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct drm_tas_edge {
    /// \[in\] Index of the node that must finish first.
    pub from: u32,
    /// \[in\] Index of the node that waits.
    pub to: u32,
}

/// Value of [`drm_tas_sync::node`]: the entry applies to the whole graph.
pub const DRM_TAS_NODE_GRAPH: u32 = 0xffff_ffff;

/// A syncobj wait or signal of a graph submission.
///
/// `point` 0 uses the syncobj as a binary one; a non-zero point is a
/// timeline point. A signal point must be above the syncobj's last timeline
/// point.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct drm_tas_sync {
    /// \[in\] Syncobj handle.
    pub handle: u32,
    /// \[in\] The node that waits or whose completion signals, or
    /// [`DRM_TAS_NODE_GRAPH`] for the whole graph.
    pub node: u32,
    /// \[in\] Timeline point, or 0 for binary use.
    pub point: u64,
    /// \[in\] 0, or for a signal of a host node ([`DRM_TAS_OP_HOST`]),
    /// [`DRM_TAS_SYNC_ON_START`].
    pub flags: u32,
    /// \[in\] Padding, must be zero.
    pub pad: u32,
}

/// Flag of [`drm_tas_sync::flags`]: the point signals when the host node is
/// released (its dependencies are done and the thread may start its work),
/// not when it completes. With the error of a failed dependency, the node
/// is not released: the point signals with that error (a binary syncobj
/// carries it) and the node completes with it. (Since version 6.)
pub const DRM_TAS_SYNC_ON_START: u32 = 1 << 0;

/// A user array of structures.
///
/// `stride` must be at least the size of the structure the kernel knows and
/// at most `DRM_TAS_PARAM_MAX_STRIDE`; the bytes beyond the known structure
/// must be zero. An empty array (count 0) must have `ptr` and `stride` 0.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct drm_tas_array {
    /// \[in\] User pointer to the first element.
    pub ptr: u64,
    /// \[in\] Number of elements.
    pub count: u32,
    /// \[in\] Distance between elements in bytes.
    pub stride: u32,
}

/// Flag of [`drm_tas_submit_graph::flags`]: stock FIFO dispatch.
pub const DRM_TAS_SUBMIT_FIFO: u32 = 1 << 0;

/// Flag of [`drm_tas_submit_graph::flags`] and
/// [`drm_tas_template_launch::flags`]: keep the graph's record until it is
/// read with [`DRM_TAS_GRAPH_INFO_RELEASE`].
pub const DRM_TAS_SUBMIT_KEEP: u32 = 1 << 1;

/// Flag of [`drm_tas_graph_info::flags`]: forget the graph's record after
/// reading it, if the graph is done.
pub const DRM_TAS_GRAPH_INFO_RELEASE: u32 = 1 << 0;

/// Flag of [`drm_tas_graph_info::flags`]: fill in only `done`,
/// `node_count`, `error_node` and `error`, without the nodes (`nodes`
/// empty). A kernel without it rejects the flag with `EINVAL`.
pub const DRM_TAS_GRAPH_INFO_SUMMARY: u32 = 1 << 1;

/// Argument of `DRM_IOCTL_TAS_SUBMIT_GRAPH`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct drm_tas_submit_graph {
    /// \[in\] Chain of extension structures. None is defined: must be zero.
    pub extensions: u64,
    /// \[in\] [`drm_tas_node`] array, 1 to `DRM_TAS_PARAM_MAX_NODES` entries.
    pub nodes: drm_tas_array,
    /// \[in\] [`drm_tas_edge`] array, at most `DRM_TAS_PARAM_MAX_EDGES`.
    pub edges: drm_tas_array,
    /// \[in\] [`drm_tas_sync`] array of points to wait for, at most
    /// `DRM_TAS_PARAM_MAX_WAITS`.
    pub waits: drm_tas_array,
    /// \[in\] [`drm_tas_sync`] array of points to signal, at most
    /// `DRM_TAS_PARAM_MAX_SIGNALS`.
    pub signals: drm_tas_array,
    /// \[in\] Zero, or [`DRM_TAS_SUBMIT_FIFO`] and/or
    /// [`DRM_TAS_SUBMIT_KEEP`].
    pub flags: u32,
    /// \[in\] Padding, must be zero.
    pub pad: u32,
    /// \[out\] Identifier of the submitted graph in this file.
    pub graph_id: u64,
    /// \[out\] On an error that one element causes, its array
    /// (`DRM_TAS_ERROR_*`); else [`DRM_TAS_ERROR_NONE`].
    pub error_array: u32,
    /// \[out\] The index of that element in its array.
    pub error_index: u32,
}

/// Per-node result of a graph, filled in by `DRM_IOCTL_TAS_GRAPH_INFO`.
/// Timestamps are `CLOCK_MONOTONIC` nanoseconds; 0 means the node has not
/// reached that stage (or never will).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct drm_tas_node_info {
    /// \[out\] When the node was pushed to its ring's scheduler.
    pub queued_ns: u64,
    /// \[out\] When its last dependency signalled, or when it was queued if
    /// that was later.
    pub ready_ns: u64,
    /// \[out\] When the ring started executing it; for a host node, when
    /// it was released to its thread.
    pub started_ns: u64,
    /// \[out\] When its fences signalled, also for a node that did not run
    /// because of an error.
    pub finished_ns: u64,
    /// \[out\] 0, or the negative errno the node completed with.
    pub error: i32,
    /// \[out\] The ring of the node; `DRM_TAS_PARAM_NUM_RINGS` for a host
    /// node.
    pub ring: u32,
    /// \[out\] The node's tag.
    pub tag: u64,
}

/// Argument of `DRM_IOCTL_TAS_GRAPH_INFO`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct drm_tas_graph_info {
    /// \[in\] The graph, as returned by SUBMIT_GRAPH or TEMPLATE_LAUNCH.
    pub graph_id: u64,
    /// \[in\] [`drm_tas_node_info`] array to fill in, with exactly as many
    /// entries as the graph has nodes.
    pub nodes: drm_tas_array,
    /// \[in\] Zero, or [`DRM_TAS_GRAPH_INFO_RELEASE`] and
    /// [`DRM_TAS_GRAPH_INFO_SUMMARY`].
    pub flags: u32,
    /// \[out\] 1 if every node of the graph has finished, else 0.
    pub done: u32,
    /// \[out\] The number of nodes of the graph.
    pub node_count: u32,
    /// \[out\] The node that failed first (of the failed nodes, the one
    /// that finished first, the lowest index among equals), or
    /// [`DRM_TAS_NODE_GRAPH`] if none has.
    pub error_node: u32,
    /// \[out\] Its error, a negative errno, or 0.
    pub error: i32,
    /// \[in\] Zero.
    pub pad: u32,
}

/// Argument of `DRM_IOCTL_TAS_TEMPLATE_CREATE`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct drm_tas_template_create {
    /// \[in\] Must be zero.
    pub extensions: u64,
    /// \[in\] As [`drm_tas_submit_graph::nodes`].
    pub nodes: drm_tas_array,
    /// \[in\] As [`drm_tas_submit_graph::edges`].
    pub edges: drm_tas_array,
    /// \[in\] Must be zero.
    pub flags: u32,
    /// \[out\] Handle of the template in this file, not zero.
    pub handle: u32,
    /// \[out\] As [`drm_tas_submit_graph::error_array`], for the nodes and
    /// edges.
    pub error_array: u32,
    /// \[out\] As [`drm_tas_submit_graph::error_index`].
    pub error_index: u32,
    /// \[out\] The number of buffer slots: the template's distinct GEM
    /// handles, in the order of their first use (nodes in index order, and
    /// in each node `dst`, then `src[0]`, then `src[1]`). Since version 7.
    pub slots: u32,
    /// \[in\] Padding, must be zero.
    pub pad: u32,
}

/// A buffer that a template launch uses in place of one of the template's:
/// every range of slot `slot` at offset `o` is at `offset + o` of `handle`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct drm_tas_bind {
    /// \[in\] The slot, below [`drm_tas_template_create::slots`].
    pub slot: u32,
    /// \[in\] GEM handle of a TAS buffer of this file.
    pub handle: u32,
    /// \[in\] Where in `handle` the slot's offset 0 is.
    pub offset: u64,
}

/// Argument of `DRM_IOCTL_TAS_TEMPLATE_LAUNCH`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct drm_tas_template_launch {
    /// \[in\] The template.
    pub handle: u32,
    /// \[in\] Zero, or [`DRM_TAS_SUBMIT_KEEP`].
    pub flags: u32,
    /// \[in\] As [`drm_tas_submit_graph::waits`]; node indices refer to the
    /// template's nodes.
    pub waits: drm_tas_array,
    /// \[in\] As [`drm_tas_submit_graph::signals`].
    pub signals: drm_tas_array,
    /// \[out\] As [`drm_tas_submit_graph::graph_id`].
    pub graph_id: u64,
    /// \[out\] As [`drm_tas_submit_graph::error_array`], for the waits,
    /// signals and binds.
    pub error_array: u32,
    /// \[out\] As [`drm_tas_submit_graph::error_index`].
    pub error_index: u32,
    /// \[in\] [`drm_tas_bind`] array: the buffers this launch uses in place
    /// of the template's. Since version 7.
    pub binds: drm_tas_array,
}

/// Argument of `DRM_IOCTL_TAS_TEMPLATE_DESTROY`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct drm_tas_template_destroy {
    /// \[in\] The template.
    pub handle: u32,
    /// \[in\] Must be zero.
    pub pad: u32,
}

/// Argument of `DRM_IOCTL_TAS_HOST_DONE`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct drm_tas_host_done {
    /// \[in\] The graph, as returned by SUBMIT_GRAPH or TEMPLATE_LAUNCH.
    pub graph_id: u64,
    /// \[in\] The index of the host node in the graph.
    pub node: u32,
    /// \[in\] 0 if the work succeeded, or a negative errno (-511 to -1)
    /// that the node completes with and its successors inherit.
    pub error: i32,
    /// \[in\] Must be zero.
    pub flags: u32,
    /// \[in\] Padding, must be zero.
    pub pad: u32,
}

/// Command number of GET_PARAM (relative to [`DRM_COMMAND_BASE`]).
pub const DRM_TAS_GET_PARAM: u8 = 0x00;
/// Command number of BO_CREATE.
pub const DRM_TAS_BO_CREATE: u8 = 0x01;
/// Command number of BO_MMAP_OFFSET.
pub const DRM_TAS_BO_MMAP_OFFSET: u8 = 0x02;
/// Command number of SUBMIT_GRAPH.
pub const DRM_TAS_SUBMIT_GRAPH: u8 = 0x03;
/// Command number of GRAPH_INFO.
pub const DRM_TAS_GRAPH_INFO: u8 = 0x04;
/// Command number of TEMPLATE_CREATE.
pub const DRM_TAS_TEMPLATE_CREATE: u8 = 0x05;
/// Command number of TEMPLATE_LAUNCH.
pub const DRM_TAS_TEMPLATE_LAUNCH: u8 = 0x06;
/// Command number of TEMPLATE_DESTROY.
pub const DRM_TAS_TEMPLATE_DESTROY: u8 = 0x07;
/// Command number of HOST_DONE.
pub const DRM_TAS_HOST_DONE: u8 = 0x08;

/// `DRM_IOWR(DRM_COMMAND_BASE + nr, T)`, as the header computes it.
const fn drm_iowr<T>(nr: u8) -> Opcode {
    opcode::read_write::<T>(DRM_IOCTL_BASE, DRM_COMMAND_BASE + nr)
}

/// `DRM_IOW(DRM_COMMAND_BASE + nr, T)`, as the header computes it.
const fn drm_iow<T>(nr: u8) -> Opcode {
    opcode::write::<T>(DRM_IOCTL_BASE, DRM_COMMAND_BASE + nr)
}

/// `DRM_IOWR(DRM_COMMAND_BASE + DRM_TAS_GET_PARAM, struct drm_tas_get_param)`.
pub const DRM_IOCTL_TAS_GET_PARAM: Opcode = drm_iowr::<drm_tas_get_param>(DRM_TAS_GET_PARAM);
/// `DRM_IOWR(DRM_COMMAND_BASE + DRM_TAS_BO_CREATE, struct drm_tas_bo_create)`.
pub const DRM_IOCTL_TAS_BO_CREATE: Opcode = drm_iowr::<drm_tas_bo_create>(DRM_TAS_BO_CREATE);
/// `DRM_IOWR(DRM_COMMAND_BASE + DRM_TAS_BO_MMAP_OFFSET, struct drm_tas_bo_mmap_offset)`.
pub const DRM_IOCTL_TAS_BO_MMAP_OFFSET: Opcode =
    drm_iowr::<drm_tas_bo_mmap_offset>(DRM_TAS_BO_MMAP_OFFSET);
/// `DRM_IOWR(DRM_COMMAND_BASE + DRM_TAS_SUBMIT_GRAPH, struct drm_tas_submit_graph)`.
pub const DRM_IOCTL_TAS_SUBMIT_GRAPH: Opcode =
    drm_iowr::<drm_tas_submit_graph>(DRM_TAS_SUBMIT_GRAPH);
/// `DRM_IOWR(DRM_COMMAND_BASE + DRM_TAS_GRAPH_INFO, struct drm_tas_graph_info)`.
pub const DRM_IOCTL_TAS_GRAPH_INFO: Opcode = drm_iowr::<drm_tas_graph_info>(DRM_TAS_GRAPH_INFO);
/// `DRM_IOWR(DRM_COMMAND_BASE + DRM_TAS_TEMPLATE_CREATE, struct drm_tas_template_create)`.
pub const DRM_IOCTL_TAS_TEMPLATE_CREATE: Opcode =
    drm_iowr::<drm_tas_template_create>(DRM_TAS_TEMPLATE_CREATE);
/// `DRM_IOWR(DRM_COMMAND_BASE + DRM_TAS_TEMPLATE_LAUNCH, struct drm_tas_template_launch)`.
pub const DRM_IOCTL_TAS_TEMPLATE_LAUNCH: Opcode =
    drm_iowr::<drm_tas_template_launch>(DRM_TAS_TEMPLATE_LAUNCH);
/// `DRM_IOWR(DRM_COMMAND_BASE + DRM_TAS_TEMPLATE_DESTROY, struct drm_tas_template_destroy)`.
pub const DRM_IOCTL_TAS_TEMPLATE_DESTROY: Opcode =
    drm_iowr::<drm_tas_template_destroy>(DRM_TAS_TEMPLATE_DESTROY);
/// `DRM_IOW(DRM_COMMAND_BASE + DRM_TAS_HOST_DONE, struct drm_tas_host_done)`:
/// the kernel only reads the argument.
pub const DRM_IOCTL_TAS_HOST_DONE: Opcode = drm_iow::<drm_tas_host_done>(DRM_TAS_HOST_DONE);

// The sizes of the header's structures; tests/layout.rs checks them and every
// field offset against the C header itself.
const _: () = assert!(size_of::<drm_tas_get_param>() == 16);
const _: () = assert!(size_of::<drm_tas_bo_create>() == 16);
const _: () = assert!(size_of::<drm_tas_bo_mmap_offset>() == 16);
const _: () = assert!(size_of::<drm_tas_buf>() == 24);
const _: () = assert!(size_of::<drm_tas_node>() == 120);
const _: () = assert!(size_of::<drm_tas_edge>() == 8);
const _: () = assert!(size_of::<drm_tas_sync>() == 24);
const _: () = assert!(size_of::<drm_tas_array>() == 16);
const _: () = assert!(size_of::<drm_tas_submit_graph>() == 96);
const _: () = assert!(size_of::<drm_tas_node_info>() == 48);
const _: () = assert!(size_of::<drm_tas_graph_info>() == 48);
const _: () = assert!(size_of::<drm_tas_template_create>() == 64);
const _: () = assert!(size_of::<drm_tas_bind>() == 16);
const _: () = assert!(size_of::<drm_tas_template_launch>() == 72);
const _: () = assert!(size_of::<drm_tas_template_destroy>() == 8);
const _: () = assert!(size_of::<drm_tas_host_done>() == 24);

#[cfg(test)]
mod tests {
    use super::*;

    /// The values of `_IOC(_IOC_READ | _IOC_WRITE, 'd', 0x40 + nr, size)`,
    /// computed by hand from the sizes above.
    #[test]
    fn ioctl_numbers() {
        let expect = |nr: u64, size: u64| (3 << 30) | (size << 16) | (0x64 << 8) | (0x40 + nr);
        assert_eq!(u64::from(DRM_IOCTL_TAS_GET_PARAM), 0xC010_6440);
        assert_eq!(u64::from(DRM_IOCTL_TAS_GET_PARAM), expect(0, 16));
        assert_eq!(u64::from(DRM_IOCTL_TAS_BO_CREATE), expect(1, 16));
        assert_eq!(u64::from(DRM_IOCTL_TAS_BO_MMAP_OFFSET), expect(2, 16));
        assert_eq!(u64::from(DRM_IOCTL_TAS_SUBMIT_GRAPH), 0xC060_6443);
        assert_eq!(u64::from(DRM_IOCTL_TAS_SUBMIT_GRAPH), expect(3, 96));
        assert_eq!(u64::from(DRM_IOCTL_TAS_GRAPH_INFO), expect(4, 48));
        assert_eq!(u64::from(DRM_IOCTL_TAS_TEMPLATE_CREATE), expect(5, 64));
        assert_eq!(u64::from(DRM_IOCTL_TAS_TEMPLATE_LAUNCH), expect(6, 72));
        assert_eq!(u64::from(DRM_IOCTL_TAS_TEMPLATE_DESTROY), expect(7, 8));
    }

    /// `_IOC(_IOC_WRITE, 'd', 0x48, 24)`: HOST_DONE is the one `DRM_IOW`
    /// ioctl, which the kernel does not copy back.
    #[test]
    fn host_done_ioctl_number() {
        let write = |nr: u64, size: u64| (1 << 30) | (size << 16) | (0x64 << 8) | (0x40 + nr);
        assert_eq!(DRM_TAS_HOST_DONE, 0x08);
        assert_eq!(u64::from(DRM_IOCTL_TAS_HOST_DONE), 0x4018_6448);
        assert_eq!(u64::from(DRM_IOCTL_TAS_HOST_DONE), write(8, 24));
    }

    /// The layout of `struct drm_tas_host_done`, as the header has it.
    #[test]
    fn host_done_layout() {
        use core::mem::offset_of;
        assert_eq!(size_of::<drm_tas_host_done>(), 24);
        assert_eq!(offset_of!(drm_tas_host_done, graph_id), 0);
        assert_eq!(offset_of!(drm_tas_host_done, node), 8);
        assert_eq!(offset_of!(drm_tas_host_done, error), 12);
        assert_eq!(offset_of!(drm_tas_host_done, flags), 16);
        assert_eq!(offset_of!(drm_tas_host_done, pad), 20);
        assert_eq!((DRM_TAS_OP_HOST, DRM_TAS_SYNC_ON_START), (5, 1));
        assert_eq!(DRM_TAS_PARAM_HOST_TIMEOUT_NS, 16);
    }
}
