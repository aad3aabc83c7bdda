// SPDX-License-Identifier: MIT
//! The graph builder: nodes, edges, syncobj waits and signals, encoded into
//! the uAPI structures as they are added.

use crate::error::{Error, Result};
use crate::uapi::*;
use bitflags::bitflags;
use core::mem::size_of;
use core::time::Duration;
use rustix::io::Errno;

/// A byte range of a buffer object, as a node uses it.
///
/// Usually made with [`Bo::range`](crate::Bo::range) or
/// [`Bo::whole`](crate::Bo::whole); [`BufRange::new`] takes a raw GEM handle
/// (of this device file) for buffers that the crate does not own, such as
/// imported dma-bufs. The kernel checks that the handle exists and that the
/// range is not empty, within the (page-rounded) buffer and of the right
/// size for the operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BufRange {
    /// GEM handle of the buffer.
    pub handle: u32,
    /// Offset of the range in the buffer, in bytes.
    pub offset: u64,
    /// Size of the range in bytes.
    pub size: u64,
}

impl BufRange {
    /// The range `offset..offset + size` of the buffer with GEM handle
    /// `handle`.
    pub const fn new(handle: u32, offset: u64, size: u64) -> Self {
        Self {
            handle,
            offset,
            size,
        }
    }

    /// The uAPI form of the range.
    pub const fn to_raw(&self) -> drm_tas_buf {
        drm_tas_buf {
            handle: self.handle,
            pad: 0,
            offset: self.offset,
            size: self.size,
        }
    }
}

/// The operation of a node, with its buffer ranges and immediate operand.
///
/// Buffers are arrays of little-endian 32-bit integers for the arithmetic
/// operations, which wrap around on overflow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    /// Does nothing but take its simulated duration.
    Nop,
    /// Fills `dst` (a multiple of 4 bytes) with `value`.
    Fill {
        /// Destination range.
        dst: BufRange,
        /// The 32-bit value, stored in the low half of the immediate.
        value: u32,
    },
    /// Copies `src` to `dst`, which have the same size and do not overlap.
    Copy {
        /// Destination range.
        dst: BufRange,
        /// Source range (`src[0]`).
        src: BufRange,
    },
    /// Element-wise `dst = a + b` on 32-bit integers; all three ranges have
    /// the same size, a multiple of 4.
    Add {
        /// Destination range.
        dst: BufRange,
        /// First operand (`src[0]`).
        a: BufRange,
        /// Second operand (`src[1]`).
        b: BufRange,
    },
    /// `dst = a x b` on row-major 32-bit integer matrices: `a` is `m` x `k`,
    /// `b` is `k` x `n`, `dst` is `m` x `n`. Each of `m`, `n`, `k` is from
    /// 1 to 256, and the ranges are exactly 4 * m * k, 4 * k * n and
    /// 4 * m * n bytes. `m`, `n` and `k` go into bits 0-15, 16-31 and 32-47
    /// of the immediate.
    MatMul {
        /// Destination range, `m` x `n`.
        dst: BufRange,
        /// Left operand (`src[0]`), `m` x `k`.
        a: BufRange,
        /// Right operand (`src[1]`), `k` x `n`.
        b: BufRange,
        /// Rows of `a` and `dst`.
        m: u16,
        /// Columns of `b` and `dst`.
        n: u16,
        /// Columns of `a`, rows of `b`.
        k: u16,
    },
    /// Work that a CPU thread does (a host node, uAPI version 6): no
    /// buffer, no immediate operand, no ring (the node's ring must be 0)
    /// and no duration (it must be 0), and no gang. Once its dependencies
    /// are done, the kernel releases it and signals its [`Target::Start`]
    /// points, which wake the thread that waits for them; the thread does
    /// the work and reports it with
    /// [`Device::host_done`](crate::Device::host_done), which completes the
    /// node and releases its successors. A host node not
    /// reported within [`Param::HostTimeoutNs`](crate::Param::HostTimeoutNs)
    /// of its release completes with `ETIMEDOUT`. At most two host nodes of
    /// a device file are released at once, three with
    /// [`Class::Latency`](crate::Class::Latency): the others wait for a
    /// report. Not with [`SubmitFlags::FIFO`]. Usually added with
    /// [`Node::host`].
    Host,
}

/// The uAPI fields that an [`Op`] sets in a [`drm_tas_node`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OpFields {
    /// `DRM_TAS_OP_*`.
    pub op: u32,
    /// Destination range (all zero when unused).
    pub dst: drm_tas_buf,
    /// Source ranges (all zero when unused).
    pub src: [drm_tas_buf; 2],
    /// Immediate operand.
    pub imm: u64,
}

impl Op {
    /// The `DRM_TAS_OP_*` value of the operation; bit `code()` of
    /// [`Param::Ops`](crate::Param::Ops) says whether the kernel supports
    /// it.
    pub const fn code(&self) -> u32 {
        match self {
            Op::Nop => DRM_TAS_OP_NOP,
            Op::Fill { .. } => DRM_TAS_OP_FILL,
            Op::Copy { .. } => DRM_TAS_OP_COPY,
            Op::Add { .. } => DRM_TAS_OP_ADD,
            Op::MatMul { .. } => DRM_TAS_OP_MATMUL,
            Op::Host => DRM_TAS_OP_HOST,
        }
    }

    /// The op, buffer ranges and immediate of the node, with the unused
    /// ranges all zero as the kernel requires.
    pub const fn encode(&self) -> OpFields {
        let zero = drm_tas_buf {
            handle: 0,
            pad: 0,
            offset: 0,
            size: 0,
        };
        let (dst, src, imm) = match *self {
            Op::Nop | Op::Host => (zero, [zero, zero], 0),
            Op::Fill { dst, value } => (dst.to_raw(), [zero, zero], value as u64),
            Op::Copy { dst, src } => (dst.to_raw(), [src.to_raw(), zero], 0),
            Op::Add { dst, a, b } => (dst.to_raw(), [a.to_raw(), b.to_raw()], 0),
            Op::MatMul { dst, a, b, m, n, k } => (
                dst.to_raw(),
                [a.to_raw(), b.to_raw()],
                (m as u64) | (n as u64) << 16 | (k as u64) << 32,
            ),
        };
        OpFields {
            op: self.code(),
            dst,
            src,
            imm,
        }
    }
}

/// Priority class of a node (`enum drm_tas_class`).
///
/// Among the ready nodes of a file, a ring takes latency work first, then
/// normal, then batch work (a class passed over 4 times is served next);
/// between files the class is the scheduler priority. Ignored with
/// [`SubmitFlags::FIFO`].
#[repr(u32)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Class {
    /// Default class.
    #[default]
    Normal = DRM_TAS_CLASS_NORMAL,
    /// Latency-sensitive work. Needs `CAP_SYS_NICE` (else `EACCES`, except
    /// with [`SubmitFlags::FIFO`]).
    Latency = DRM_TAS_CLASS_LATENCY,
    /// Throughput work that may wait.
    Batch = DRM_TAS_CLASS_BATCH,
}

/// A node to add to a [`Graph`]: ring, operation, simulated duration,
/// priority class and gang.
///
/// ```
/// use tas::{Class, Node, Op};
/// use std::time::Duration;
///
/// let node = Node::new(1, Op::Nop)
///     .duration(Duration::from_millis(2))
///     .class(Class::Batch)
///     .gang(7)
///     .tag(0x51);
/// assert_eq!(node.to_raw().duration_ns, 2_000_000);
/// assert_eq!(node.to_raw().tag, 0x51);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Node {
    /// Ring that executes the node, below [`Param::NumRings`](crate::Param::NumRings).
    pub ring: u32,
    /// The operation.
    pub op: Op,
    /// Simulated execution time, at most
    /// [`Param::MaxDurationNs`](crate::Param::MaxDurationNs).
    pub duration_ns: u64,
    /// Priority class.
    pub class: Class,
    /// Gang id, 0 for none. Nodes of a graph with the same non-zero id must
    /// be on different rings; they start together, or not at all.
    pub gang: u32,
    /// The caller's name for the node (a framework's operation id, say),
    /// reported by [`GraphInfo`](crate::GraphInfo) and carried by the
    /// scheduler's trace events as `tag`.
    pub tag: u64,
}

impl Node {
    /// A node of class [`Class::Normal`], no gang and a duration of 0.
    pub const fn new(ring: u32, op: Op) -> Self {
        Self {
            ring,
            op,
            duration_ns: 0,
            class: Class::Normal,
            gang: 0,
            tag: 0,
        }
    }

    /// A host node ([`Op::Host`]): ring 0, no duration, class
    /// [`Class::Normal`] (a class may be set; the ring, duration and gang
    /// must stay 0, else the kernel rejects the graph with `EINVAL`).
    ///
    /// ```
    /// use tas::{uapi, Graph, Node, Op, SyncPoint, Target};
    ///
    /// let mut g = Graph::new();
    /// let gpu = g.add(Node::new(0, Op::Nop).duration_ns(500_000));
    /// let cpu = g.add(Node::host());
    /// g.edge(gpu, cpu)?;
    /// // Timeline point 1 of syncobj 5 signals when the host node is released.
    /// g.signal(SyncPoint::timeline(5, 1), Target::Start(cpu))?;
    /// assert_eq!(g.nodes()[1].op, uapi::DRM_TAS_OP_HOST);
    /// assert_eq!(g.signals()[0].flags, uapi::DRM_TAS_SYNC_ON_START);
    /// # Ok::<(), tas::Error>(())
    /// ```
    pub const fn host() -> Self {
        Self::new(0, Op::Host)
    }

    /// Sets the simulated duration in nanoseconds.
    pub const fn duration_ns(mut self, ns: u64) -> Self {
        self.duration_ns = ns;
        self
    }

    /// Sets the simulated duration (saturated to `u64::MAX` ns, which the
    /// kernel rejects as above the limit).
    pub fn duration(self, d: Duration) -> Self {
        self.duration_ns(u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
    }

    /// Sets the priority class.
    pub const fn class(mut self, class: Class) -> Self {
        self.class = class;
        self
    }

    /// Sets the gang id (0: none).
    pub const fn gang(mut self, gang: u32) -> Self {
        self.gang = gang;
        self
    }

    /// Sets the tag, the caller's name for the node.
    pub const fn tag(mut self, tag: u64) -> Self {
        self.tag = tag;
        self
    }

    /// The uAPI form of the node.
    pub const fn to_raw(&self) -> drm_tas_node {
        let f = self.op.encode();
        drm_tas_node {
            ring: self.ring,
            op: f.op,
            class: self.class as u32,
            gang: self.gang,
            duration_ns: self.duration_ns,
            dst: f.dst,
            src: f.src,
            imm: f.imm,
            flags: 0,
            pad: 0,
            tag: self.tag,
        }
    }
}

/// The index of a node in the [`Graph`] (or [`Template`](crate::Template))
/// that returned it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(u32);

impl NodeId {
    /// The node with index `index`, for code that numbers nodes itself.
    /// Indices are checked against the graph when used.
    pub const fn from_index(index: u32) -> Self {
        Self(index)
    }

    /// The index of the node in its graph.
    pub const fn index(self) -> u32 {
        self.0
    }
}

/// What a syncobj wait or signal applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    /// A wait: every node of the graph waits. A signal: the point is
    /// signalled when the whole graph has completed (a binary signal
    /// carries the first error of the graph). `DRM_TAS_NODE_GRAPH`.
    Graph,
    /// A wait: this node waits. A signal: the point is signalled when this
    /// node completes (a binary signal carries its error).
    Node(NodeId),
    /// Only for a signal of a host node ([`Op::Host`]): the point is
    /// signalled when the node is released, its dependencies done, which
    /// is when its thread may start the work (`DRM_TAS_SYNC_ON_START`, uAPI
    /// version 6). When a dependency failed, the node is not released: the
    /// point signals with that error (a binary point carries it) and the
    /// node completes with it. Each launch of a template signals its own
    /// points. The kernel rejects it on a wait and on a node that is not a
    /// host node (`EINVAL`, naming the wait or signal).
    Start(NodeId),
}

impl Target {
    /// The value of [`drm_tas_sync::node`].
    pub const fn to_raw(self) -> u32 {
        match self {
            Target::Graph => DRM_TAS_NODE_GRAPH,
            Target::Node(id) | Target::Start(id) => id.0,
        }
    }

    /// The value of [`drm_tas_sync::flags`]: [`DRM_TAS_SYNC_ON_START`] for
    /// [`Target::Start`], else 0.
    pub const fn flags(self) -> u32 {
        match self {
            Target::Start(_) => DRM_TAS_SYNC_ON_START,
            Target::Graph | Target::Node(_) => 0,
        }
    }

    /// The node, unless the target is the whole graph.
    pub const fn node(self) -> Option<NodeId> {
        match self {
            Target::Graph => None,
            Target::Node(id) | Target::Start(id) => Some(id),
        }
    }
}

impl From<NodeId> for Target {
    fn from(id: NodeId) -> Self {
        Target::Node(id)
    }
}

/// A syncobj point: point 0 uses the syncobj as a binary one, a non-zero
/// point is a timeline point.
///
/// Usually made with [`Syncobj::binary`](crate::Syncobj::binary) or
/// [`Syncobj::at`](crate::Syncobj::at).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SyncPoint {
    /// Syncobj handle (of this device file).
    pub handle: u32,
    /// Timeline point, or 0 for binary use.
    pub point: u64,
}

impl SyncPoint {
    /// The binary syncobj `handle` (point 0).
    pub const fn binary(handle: u32) -> Self {
        Self { handle, point: 0 }
    }

    /// Point `point` of the timeline syncobj `handle` (0: binary use).
    pub const fn timeline(handle: u32, point: u64) -> Self {
        Self { handle, point }
    }

    /// The uAPI entry for `target`.
    pub const fn to_raw(self, target: Target) -> drm_tas_sync {
        drm_tas_sync {
            handle: self.handle,
            node: target.to_raw(),
            point: self.point,
            flags: target.flags(),
            pad: 0,
        }
    }
}

bitflags! {
    /// Flags of [`Device::submit`](crate::Device::submit).
    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
    pub struct SubmitFlags: u32 {
        /// `DRM_TAS_SUBMIT_FIFO`: the stock dispatch (the baseline of
        /// measurements): every node is queued to its ring at submit, in a
        /// topological order, and each ring starts its nodes in that order.
        /// Classes and gangs are ignored.
        const FIFO = DRM_TAS_SUBMIT_FIFO;
        /// `DRM_TAS_SUBMIT_KEEP`: keep the graph's record until it is read
        /// with [`Device::release_graph`](crate::Device::release_graph), not
        /// only while it is among the file's last 64 graphs. A file keeps
        /// at most [`Param::MaxKeptGraphs`](crate::Param::MaxKeptGraphs) graphs with
        /// [`Param::MaxKeptNodes`](crate::Param::MaxKeptNodes) nodes
        /// together (`ENOSPC` beyond). Also a flag of
        /// [`Device::launch_with`](crate::Device::launch_with).
        const KEEP = DRM_TAS_SUBMIT_KEEP;
        /// `DRM_TAS_LAUNCH_ORDERED`, a flag of
        /// [`Device::launch_with`](crate::Device::launch_with) only: the
        /// launch starts once the template's previous launch with the flag
        /// has completed (all of its nodes), whatever its outcome, as on a
        /// stream or an in-order queue; launches without it are not
        /// ordered. A kernel without it answers `EINVAL`.
        const ORDERED = DRM_TAS_LAUNCH_ORDERED;
    }
}

/// A dependency graph of nodes, with syncobj waits and signals, ready to be
/// submitted with [`Device::submit`](crate::Device::submit) or made into a
/// template with [`Device::create_template`](crate::Device::create_template).
///
/// The builder encodes each node, edge and syncobj entry into its uAPI
/// structure when it is added. It checks in Rust only what is cheap: that
/// node ids are in range. The kernel validates everything else (rings, ops,
/// buffer ranges, self-loops, duplicate edges, cycles, gangs, limits) and
/// is the authority; see [`Device::submit`](crate::Device::submit) for its
/// errors.
///
/// ```
/// use tas::{Graph, Node, Op, SyncPoint, Target};
///
/// let mut g = Graph::new();
/// let a = g.add(Node::new(0, Op::Nop).duration_ns(1_000_000));
/// let b = g.add(Node::new(1, Op::Nop).duration_ns(1_000_000));
/// g.edge(a, b)?;
/// g.signal(SyncPoint::timeline(5, 1), Target::Graph)?;
/// assert_eq!(g.node_count(), 2);
/// assert_eq!(g.edges()[0].from, 0);
/// # Ok::<(), tas::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Graph {
    nodes: Vec<drm_tas_node>,
    edges: Vec<drm_tas_edge>,
    waits: Vec<drm_tas_sync>,
    signals: Vec<drm_tas_sync>,
}

impl Graph {
    /// An empty graph.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty graph with room for `nodes` nodes and `edges` edges.
    pub fn with_capacity(nodes: usize, edges: usize) -> Self {
        Self {
            nodes: Vec::with_capacity(nodes),
            edges: Vec::with_capacity(edges),
            ..Self::default()
        }
    }

    /// Adds a node; returns its id, which is its index in the graph.
    ///
    /// # Panics
    ///
    /// If the graph already has `u32::MAX` nodes (the kernel takes at most
    /// [`Param::MaxNodes`](crate::Param::MaxNodes), 16384).
    pub fn add(&mut self, node: Node) -> NodeId {
        let index = u32::try_from(self.nodes.len())
            .ok()
            .filter(|&i| i != DRM_TAS_NODE_GRAPH)
            .expect("too many nodes in a tas::Graph");
        self.nodes.push(node.to_raw());
        NodeId(index)
    }

    fn check(&self, op: &'static str, id: NodeId) -> Result<()> {
        if (id.0 as usize) < self.nodes.len() {
            Ok(())
        } else {
            Err(Error::new(op, Errno::INVAL))
        }
    }

    fn check_target(&self, op: &'static str, target: Target) -> Result<()> {
        match target.node() {
            None => Ok(()),
            Some(id) => self.check(op, id),
        }
    }

    /// Adds the dependency "`to` starts after `from` has finished".
    ///
    /// Errors: `EINVAL` (op `"Graph::edge"`) when a node id is not one of
    /// this graph's. Self-loops and duplicate edges are left to the kernel,
    /// which rejects them with `EINVAL` (and cycles with `ELOOP`).
    pub fn edge(&mut self, from: NodeId, to: NodeId) -> Result<()> {
        self.check("Graph::edge", from)?;
        self.check("Graph::edge", to)?;
        self.edges.push(drm_tas_edge {
            from: from.0,
            to: to.0,
        });
        Ok(())
    }

    /// Makes `target` (the whole graph or one node) wait for `point`.
    ///
    /// Errors: `EINVAL` (op `"Graph::wait"`) when the node id is not one of
    /// this graph's. The kernel checks the syncobj at submission, and
    /// rejects a [`Target::Start`], which only signals.
    pub fn wait(&mut self, point: SyncPoint, target: impl Into<Target>) -> Result<()> {
        let target = target.into();
        self.check_target("Graph::wait", target)?;
        self.waits.push(point.to_raw(target));
        Ok(())
    }

    /// Signals `point` when `target` (the whole graph or one node)
    /// completes, or, with [`Target::Start`], when the host node is
    /// released.
    ///
    /// Errors: `EINVAL` (op `"Graph::signal"`) when the node id is not one
    /// of this graph's. The kernel checks the syncobj at submission, and
    /// that a [`Target::Start`] names a host node.
    pub fn signal(&mut self, point: SyncPoint, target: impl Into<Target>) -> Result<()> {
        let target = target.into();
        self.check_target("Graph::signal", target)?;
        self.signals.push(point.to_raw(target));
        Ok(())
    }

    /// Removes the waits and signals, to submit the same nodes and edges
    /// again with new ones.
    pub fn clear_syncs(&mut self) {
        self.waits.clear();
        self.signals.clear();
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the graph has no node (the kernel rejects such a graph).
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Number of nodes, as [`Device::graph_info`](crate::Device::graph_info)
    /// takes it.
    pub fn node_count(&self) -> u32 {
        // `add` keeps the count below u32::MAX.
        self.nodes.len() as u32
    }

    /// The encoded nodes, indexed by [`NodeId::index`].
    pub fn nodes(&self) -> &[drm_tas_node] {
        &self.nodes
    }

    /// The encoded edges.
    pub fn edges(&self) -> &[drm_tas_edge] {
        &self.edges
    }

    /// The encoded waits.
    pub fn waits(&self) -> &[drm_tas_sync] {
        &self.waits
    }

    /// The encoded signals.
    pub fn signals(&self) -> &[drm_tas_sync] {
        &self.signals
    }

    /// The argument of SUBMIT_GRAPH. Its arrays point into `self`: it must
    /// not outlive the borrow.
    pub(crate) fn submit_args(&self, flags: SubmitFlags) -> Result<drm_tas_submit_graph> {
        const OP: &str = "SUBMIT_GRAPH";
        Ok(drm_tas_submit_graph {
            nodes: array(OP, &self.nodes)?,
            edges: array(OP, &self.edges)?,
            waits: array(OP, &self.waits)?,
            signals: array(OP, &self.signals)?,
            flags: flags.bits(),
            ..Default::default()
        })
    }

    /// The argument of TEMPLATE_CREATE. Its arrays point into `self`.
    pub(crate) fn template_args(&self) -> Result<drm_tas_template_create> {
        const OP: &str = "TEMPLATE_CREATE";
        Ok(drm_tas_template_create {
            nodes: array(OP, &self.nodes)?,
            edges: array(OP, &self.edges)?,
            ..Default::default()
        })
    }
}

/// A [`drm_tas_array`] describing `items`: ptr, count and the stride of
/// `T`; all zero for an empty slice, as the kernel requires. `E2BIG` (with
/// `op`) for more than `u32::MAX` items.
pub(crate) fn array<T>(op: &'static str, items: &[T]) -> Result<drm_tas_array> {
    describe(op, items.as_ptr(), items.len())
}

/// As [`array`], for an array that the kernel writes: the pointer comes from
/// the exclusive borrow, so that writes through it are allowed.
pub(crate) fn array_mut<T>(op: &'static str, items: &mut [T]) -> Result<drm_tas_array> {
    describe(op, items.as_mut_ptr().cast_const(), items.len())
}

fn describe<T>(op: &'static str, ptr: *const T, len: usize) -> Result<drm_tas_array> {
    if len == 0 {
        return Ok(drm_tas_array::default());
    }
    let count = u32::try_from(len).map_err(|_| Error::new(op, Errno::TOOBIG))?;
    Ok(drm_tas_array {
        ptr: ptr as u64,
        count,
        stride: size_of::<T>() as u32,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: BufRange = BufRange::new(1, 0, 64);
    const B: BufRange = BufRange::new(2, 64, 64);
    const C: BufRange = BufRange::new(3, 4096, 64);

    #[test]
    fn op_nop() {
        let f = Op::Nop.encode();
        assert_eq!(f, OpFields::default());
    }

    #[test]
    fn op_fill() {
        let f = Op::Fill {
            dst: A,
            value: 0xdead_beef,
        }
        .encode();
        assert_eq!(f.op, DRM_TAS_OP_FILL);
        assert_eq!(f.dst, A.to_raw());
        assert_eq!(f.src, [drm_tas_buf::default(); 2]);
        assert_eq!(f.imm, 0xdead_beef);
    }

    #[test]
    fn op_copy() {
        let f = Op::Copy { dst: A, src: B }.encode();
        assert_eq!(f.op, DRM_TAS_OP_COPY);
        assert_eq!(f.dst, A.to_raw());
        assert_eq!(f.src, [B.to_raw(), drm_tas_buf::default()]);
        assert_eq!(f.imm, 0);
    }

    #[test]
    fn op_add() {
        let f = Op::Add { dst: C, a: A, b: B }.encode();
        assert_eq!(f.op, DRM_TAS_OP_ADD);
        assert_eq!(f.dst, C.to_raw());
        assert_eq!(f.src, [A.to_raw(), B.to_raw()]);
        assert_eq!(f.imm, 0);
    }

    #[test]
    fn op_matmul_packs_m_n_k() {
        let f = Op::MatMul {
            dst: C,
            a: A,
            b: B,
            m: 3,
            n: 5,
            k: 7,
        }
        .encode();
        assert_eq!(f.op, DRM_TAS_OP_MATMUL);
        assert_eq!(f.src, [A.to_raw(), B.to_raw()]);
        assert_eq!(f.imm, 3 | 5 << 16 | 7 << 32);
        assert_eq!(f.imm & 0xffff, 3);
        assert_eq!((f.imm >> 16) & 0xffff, 5);
        assert_eq!((f.imm >> 32) & 0xffff, 7);
        assert_eq!(f.imm >> 48, 0);

        let f = Op::MatMul {
            dst: C,
            a: A,
            b: B,
            m: 256,
            n: 0xffff,
            k: 1,
        }
        .encode();
        assert_eq!(f.imm, 0x0001_ffff_0100);
    }

    #[test]
    fn op_codes() {
        assert_eq!(Op::Nop.code(), 0);
        assert_eq!(Op::Fill { dst: A, value: 0 }.code(), 1);
        assert_eq!(Op::Copy { dst: A, src: B }.code(), 2);
        assert_eq!(Op::Add { dst: A, a: B, b: C }.code(), 3);
        let mm = Op::MatMul {
            dst: A,
            a: B,
            b: C,
            m: 1,
            n: 1,
            k: 1,
        };
        assert_eq!(mm.code(), 4);
        assert_eq!(Op::Host.code(), 5);
    }

    #[test]
    fn host_node() {
        let f = Op::Host.encode();
        assert_eq!(f.op, DRM_TAS_OP_HOST);
        assert_eq!((f.dst, f.imm), (drm_tas_buf::default(), 0));
        assert_eq!(f.src, [drm_tas_buf::default(); 2]);
        let n = Node::host().tag(9).to_raw();
        assert_eq!(n.op, DRM_TAS_OP_HOST);
        assert_eq!((n.ring, n.duration_ns, n.gang, n.class), (0, 0, 0, 0));
        assert_eq!(n.tag, 9);
        assert_eq!(Node::host(), Node::new(0, Op::Host));
    }

    #[test]
    fn start_signals() {
        let mut g = Graph::new();
        let gpu = g.add(Node::new(0, Op::Nop));
        let host = g.add(Node::host());
        g.edge(gpu, host).unwrap();
        g.signal(SyncPoint::timeline(4, 2), Target::Start(host))
            .unwrap();
        g.signal(SyncPoint::timeline(4, 3), host).unwrap();
        assert_eq!(
            g.signals(),
            &[
                drm_tas_sync {
                    handle: 4,
                    node: 1,
                    point: 2,
                    flags: DRM_TAS_SYNC_ON_START,
                    pad: 0
                },
                drm_tas_sync {
                    handle: 4,
                    node: 1,
                    point: 3,
                    flags: 0,
                    pad: 0
                },
            ]
        );
        // Only the range is checked here; the kernel rejects a start point
        // on a wait or on a GPU node.
        let bad = NodeId::from_index(2);
        let e = g.signal(SyncPoint::binary(4), Target::Start(bad));
        assert_eq!(e.unwrap_err(), Error::new("Graph::signal", Errno::INVAL));
        g.wait(SyncPoint::binary(4), Target::Start(gpu)).unwrap();
        assert_eq!(g.waits()[0].flags, DRM_TAS_SYNC_ON_START);
        assert_eq!(g.waits()[0].node, 0);
        assert_eq!(Target::Start(host).node(), Some(host));
        assert_eq!(Target::Graph.node(), None);
        assert_eq!((Target::Graph.flags(), Target::Node(host).flags()), (0, 0));
    }

    #[test]
    fn node_fields() {
        let n = Node::new(3, Op::Fill { dst: A, value: 9 })
            .duration(Duration::from_micros(1500))
            .class(Class::Latency)
            .gang(4)
            .to_raw();
        assert_eq!(n.ring, 3);
        assert_eq!(n.op, DRM_TAS_OP_FILL);
        assert_eq!(n.class, DRM_TAS_CLASS_LATENCY);
        assert_eq!(n.gang, 4);
        assert_eq!(n.duration_ns, 1_500_000);
        assert_eq!(n.dst, A.to_raw());
        assert_eq!(n.imm, 9);
        assert_eq!((n.flags, n.pad), (0, 0));
        assert_eq!(Class::default(), Class::Normal);
        assert_eq!(Class::Batch as u32, DRM_TAS_CLASS_BATCH);
        assert_eq!(
            Node::new(0, Op::Nop).duration(Duration::MAX).duration_ns,
            u64::MAX
        );
    }

    fn chain() -> (Graph, NodeId, NodeId, NodeId) {
        let mut g = Graph::new();
        let a = g.add(Node::new(0, Op::Nop));
        let b = g.add(Node::new(1, Op::Copy { dst: B, src: A }));
        let c = g.add(Node::new(0, Op::Nop).class(Class::Batch));
        g.edge(a, b).unwrap();
        g.edge(b, c).unwrap();
        (g, a, b, c)
    }

    #[test]
    fn node_and_edge_arrays() {
        let (g, a, b, c) = chain();
        assert_eq!((a.index(), b.index(), c.index()), (0, 1, 2));
        assert_eq!(g.len(), 3);
        assert_eq!(g.node_count(), 3);
        assert_eq!(g.nodes()[1].op, DRM_TAS_OP_COPY);
        assert_eq!(g.nodes()[1].ring, 1);
        assert_eq!(g.nodes()[2].class, DRM_TAS_CLASS_BATCH);
        assert_eq!(
            g.edges(),
            &[
                drm_tas_edge { from: 0, to: 1 },
                drm_tas_edge { from: 1, to: 2 }
            ]
        );
    }

    #[test]
    fn ids_checked() {
        let (mut g, a, _, _) = chain();
        let bad = NodeId::from_index(3);
        let e = g.edge(a, bad).unwrap_err();
        assert_eq!(e, Error::new("Graph::edge", Errno::INVAL));
        assert!(g.edge(bad, a).unwrap_err().is_invalid());
        assert!(g.wait(SyncPoint::binary(1), bad).is_err());
        assert!(g.signal(SyncPoint::binary(1), bad).is_err());
        assert_eq!(g.edges().len(), 2);
        assert!(g.waits().is_empty() && g.signals().is_empty());
        // A self-loop is the kernel's to reject.
        g.edge(a, a).unwrap();
        assert_eq!(g.edges()[2], drm_tas_edge { from: 0, to: 0 });
    }

    #[test]
    fn syncs() {
        let (mut g, a, _, c) = chain();
        g.wait(SyncPoint::binary(7), Target::Graph).unwrap();
        g.wait(SyncPoint::timeline(8, 3), a).unwrap();
        g.signal(SyncPoint::timeline(9, 4), Target::Graph).unwrap();
        g.signal(SyncPoint::binary(10), Target::Node(c)).unwrap();
        assert_eq!(
            g.waits(),
            &[
                drm_tas_sync {
                    handle: 7,
                    node: DRM_TAS_NODE_GRAPH,
                    point: 0,
                    flags: 0,
                    pad: 0
                },
                drm_tas_sync {
                    handle: 8,
                    node: 0,
                    point: 3,
                    flags: 0,
                    pad: 0
                },
            ]
        );
        assert_eq!(g.signals()[0].node, 0xffff_ffff);
        assert_eq!(g.signals()[0].point, 4);
        assert_eq!(g.signals()[1].node, 2);
        assert_eq!(g.signals()[1].point, 0);
        g.clear_syncs();
        assert!(g.waits().is_empty() && g.signals().is_empty());
        assert_eq!(g.len(), 3);
    }

    #[test]
    fn submit_args_strides() {
        let (mut g, _, _, _) = chain();
        g.signal(SyncPoint::timeline(9, 1), Target::Graph).unwrap();
        let args = g.submit_args(SubmitFlags::FIFO).unwrap();
        assert_eq!(args.extensions, 0);
        assert_eq!(args.nodes.ptr, g.nodes().as_ptr() as u64);
        assert_eq!(args.nodes.count, 3);
        assert_eq!(args.nodes.stride, 120);
        assert_eq!(args.edges.ptr, g.edges().as_ptr() as u64);
        assert_eq!(args.edges.count, 2);
        assert_eq!(args.edges.stride, 8);
        // An empty array has ptr and stride 0.
        assert_eq!(args.waits, drm_tas_array::default());
        assert_eq!(args.signals.count, 1);
        assert_eq!(args.signals.stride, 24);
        assert_eq!(args.flags, DRM_TAS_SUBMIT_FIFO);
        assert_eq!((args.pad, args.graph_id), (0, 0));

        let t = g.template_args().unwrap();
        assert_eq!(t.nodes, args.nodes);
        assert_eq!(t.edges, args.edges);
        assert_eq!((t.extensions, t.flags, t.handle), (0, 0, 0));
    }

    #[test]
    fn empty_graph_args() {
        let g = Graph::new();
        assert!(g.is_empty());
        let args = g.submit_args(SubmitFlags::empty()).unwrap();
        assert_eq!(args, drm_tas_submit_graph::default());
    }

    #[test]
    fn flags() {
        assert_eq!(SubmitFlags::FIFO.bits(), 1);
        assert_eq!(SubmitFlags::default().bits(), 0);
        assert_eq!(SubmitFlags::from_bits(1), Some(SubmitFlags::FIFO));
        assert_eq!(SubmitFlags::KEEP.bits(), 2);
        assert_eq!(SubmitFlags::ORDERED.bits(), 8);
        // Bit 2 is DRM_TAS_LAUNCH_BINDS, which launch_bound sets itself.
        assert_eq!(SubmitFlags::from_bits(4), None);
        assert_eq!(
            SubmitFlags::all(),
            SubmitFlags::FIFO | SubmitFlags::KEEP | SubmitFlags::ORDERED
        );
    }

    #[test]
    fn array_stride_of_type() {
        let infos = [drm_tas_node_info::default(); 4];
        let a = array("x", &infos).unwrap();
        assert_eq!((a.count, a.stride), (4, 48));
        let empty: [drm_tas_edge; 0] = [];
        assert_eq!(array("x", &empty).unwrap(), drm_tas_array::default());
    }
}
