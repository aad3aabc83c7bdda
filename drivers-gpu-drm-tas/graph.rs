// SPDX-License-Identifier: GPL-2.0

//! Whole-graph submission: validation of `DRM_IOCTL_TAS_SUBMIT_GRAPH` and dispatch of the nodes
//! into the rings' scheduler entities.
//!
//! Everything that can fail happens before the first job is pushed: copying and checking the
//! arrays, looking up buffers and syncobjs, mapping buffers, building the graph's [`Plan`]
//! (cycles, gangs, ranks; O(E log E + V)), allocating the jobs and their hardware fences, and
//! pre-allocating timeline chain nodes. Then the graph is dispatched and the signal points are
//! installed, none of which can fail.
//!
//! There are two dispatch modes. By default the client's [`Dispatcher`] releases each node into
//! a scheduler entity of its ring once it is ready, in the order of the client's ready set. With
//! `DRM_TAS_SUBMIT_FIFO`, the stock dispatch (the baseline of measurements): every node is
//! pushed into the FIFO entity of its ring at submit, in topological order, with its
//! predecessors' finished fences as dependencies.

use core::{
    mem::{
        size_of,
        MaybeUninit, //
    },
    slice,
};

use kernel::{
    cred::{
        self,
        Capability, //
    },
    dma_fence::{
        Fence,
        FenceAllocation,
        FenceChain,
        FenceContext,
        UnchainedFence, //
    },
    drm::{
        self,
        gem::BaseObject,
        sched::{
            graph::{
                Class,
                NodeDesc,
                Plan, //
            },
            Entity,
            Job, //
        },
        syncobj::{
            SyncObj,
            SyncPoint, //
        },
    },
    prelude::*,
    sync::{
        aref::ARef,
        atomic::Relaxed,
        Arc, //
    },
    uaccess::{
        UserPtr,
        UserSlice,
        UserSliceReader, //
    },
    uapi,
};

use crate::dispatch::{
    is_host,
    ON_START, //
};

use crate::{
    dispatch::{
        Dispatcher,
        Instance,
        LaunchFences,
        NodeInit,
        Reservation, //
    },
    driver::{
        client_gfp,
        TasDevice,
        MAX_DURATION_NS,
        MAX_EDGES,
        MAX_NODES,
        MAX_SIGNALS,
        MAX_STRIDE,
        MAX_WAITS, //
    },
    engine::{
        now_ns,
        BufRange,
        Gang,
        NodeExec,
        NodeJob,
        Op,
        OpRef,
        Ring, //
    },
    file::{
        Charge,
        File, //
    },
    gem::Bo,
};

/// Largest dimension of a `DRM_TAS_OP_MATMUL` matrix.
const MAX_MATMUL_DIM: u64 = 256;

/// The result of a submitted node, kept for `GRAPH_INFO`.
pub(crate) struct NodeRecord {
    pub(crate) exec: Arc<NodeExec>,
    /// The node's `drm_tas_node.tag`.
    pub(crate) tag: u64,
    /// The scheduler's finished fence of a node dispatched in FIFO mode.
    pub(crate) finished: Option<ARef<Fence>>,
}

/// The scheduler entities of a client: those of the dispatcher, one per ring for the stock
/// dispatch, and the graph ring's.
pub(crate) struct Entities<'a> {
    /// At `ring * Class::COUNT + class`.
    pub(crate) nodes: &'a [Arc<Entity<NodeJob>>],
    /// At `ring`.
    pub(crate) fifo: &'a [Pin<KBox<Entity<NodeJob>>>],
    pub(crate) graph: &'a Entity<NodeJob>,
}

/// The index of the entity of `ring` and `class`.
pub(crate) fn entity_index(ring: u32, class: Class) -> usize {
    ring as usize * Class::COUNT + class as usize
}

fn class(node: &uapi::drm_tas_node) -> Class {
    match node.class {
        uapi::drm_tas_class_DRM_TAS_CLASS_LATENCY => Class::Latency,
        uapi::drm_tas_class_DRM_TAS_CLASS_BATCH => Class::Batch,
        _ => Class::Normal,
    }
}

/// The nodes of a submitted graph, kept for `GRAPH_INFO`.
pub(crate) struct GraphRecord {
    /// When the graph was submitted or launched.
    pub(crate) queued_ns: u64,
    pub(crate) nodes: KVVec<NodeRecord>,
}

/// Checks the header of a user array of `T`; returns its element count.
fn check_array<T>(array: &uapi::drm_tas_array, max: u64) -> Result<usize> {
    if array.count == 0 {
        return if array.ptr == 0 && array.stride == 0 {
            Ok(0)
        } else {
            Err(EINVAL)
        };
    }
    if u64::from(array.count) > max {
        return Err(E2BIG);
    }
    let size = u32::try_from(size_of::<T>()).map_err(|_| EINVAL)?;
    if array.stride < size || array.stride > MAX_STRIDE {
        return Err(EINVAL);
    }
    usize::try_from(array.count).map_err(|_| E2BIG)
}

/// Reads one `T` from `reader`.
///
/// # Safety
///
/// `T` must be a plain C structure of integers, valid for any bit pattern.
unsafe fn read_raw<T>(reader: &mut UserSliceReader) -> Result<T> {
    let mut value = MaybeUninit::<T>::uninit();
    // SAFETY: The slice covers exactly the storage of `value`.
    let bytes = unsafe {
        slice::from_raw_parts_mut(value.as_mut_ptr().cast::<MaybeUninit<u8>>(), size_of::<T>())
    };
    reader.read_raw(bytes)?;
    // SAFETY: All bytes were written, and any bit pattern is valid for `T`.
    Ok(unsafe { value.assume_init() })
}

/// Copies a checked user array of `T` (see [`check_array`]); the bytes of each element beyond
/// `T` must be zero.
///
/// # Safety
///
/// `T` must be a plain C structure of integers, valid for any bit pattern.
unsafe fn read_array<T>(array: &uapi::drm_tas_array, count: usize) -> Result<KVVec<T>> {
    let mut out = KVVec::with_capacity(count, client_gfp())?;
    if count == 0 {
        return Ok(out);
    }
    let stride = array.stride as usize;
    let len = count.checked_mul(stride).ok_or(EINVAL)?;
    let ptr = usize::try_from(array.ptr).map_err(|_| EFAULT)?;
    let mut reader = UserSlice::new(UserPtr::from_addr(ptr), len).reader();
    for _ in 0..count {
        // SAFETY: Per the safety requirements of this function.
        let value = unsafe { read_raw::<T>(&mut reader) }?;
        let mut tail = stride - size_of::<T>();
        while tail > 0 {
            let mut chunk = [0u8; 64];
            let n = tail.min(chunk.len());
            reader.read_slice(&mut chunk[..n])?;
            if chunk[..n].iter().any(|b| *b != 0) {
                return Err(EINVAL);
            }
            tail -= n;
        }
        out.push_within_capacity(value).map_err(|_| ENOMEM)?;
    }
    Ok(out)
}

fn buf_is_zero(buf: &uapi::drm_tas_buf) -> bool {
    buf.handle == 0 && buf.pad == 0 && buf.offset == 0 && buf.size == 0
}

/// Looks up, checks and maps the range `buf` of a node.
fn buf_range(
    dev: &TasDevice,
    file: &drm::File<File>,
    buf: &uapi::drm_tas_buf,
) -> Result<(ARef<Bo>, BufRange)> {
    if buf.pad != 0 || buf.size == 0 {
        return Err(EINVAL);
    }
    let bo = Bo::lookup_handle(file, buf.handle)?;
    let end = buf.offset.checked_add(buf.size).ok_or(EINVAL)?;
    if end > bo.size() as u64 {
        return Err(EINVAL);
    }
    let offset = usize::try_from(buf.offset).map_err(|_| EINVAL)?;
    let size = usize::try_from(buf.size).map_err(|_| EINVAL)?;
    let map = bo.owned_vmap()?;
    Ok((bo, BufRange::new(map, &dev.reaper, offset, size)?))
}

/// Checks a node and builds its operation.
fn node_op(dev: &TasDevice, file: &drm::File<File>, node: &uapi::drm_tas_node) -> Result<Op> {
    let [src0, src1] = &node.src;
    let used = match node.op {
        uapi::drm_tas_op_DRM_TAS_OP_NOP => 0,
        uapi::drm_tas_op_DRM_TAS_OP_HOST => 0,
        uapi::drm_tas_op_DRM_TAS_OP_FILL => 1,
        uapi::drm_tas_op_DRM_TAS_OP_COPY => 2,
        uapi::drm_tas_op_DRM_TAS_OP_ADD | uapi::drm_tas_op_DRM_TAS_OP_MATMUL => 3,
        _ => return Err(EINVAL),
    };
    // Ranges the operation does not use must be zero.
    let mut unused = [&node.dst, src0, src1].into_iter().skip(used);
    if !unused.all(buf_is_zero) {
        return Err(EINVAL);
    }
    let imm_ok = match node.op {
        uapi::drm_tas_op_DRM_TAS_OP_FILL => node.imm >> 32 == 0,
        uapi::drm_tas_op_DRM_TAS_OP_MATMUL => node.imm >> 48 == 0,
        _ => node.imm == 0,
    };
    if !imm_ok {
        return Err(EINVAL);
    }

    Ok(match node.op {
        uapi::drm_tas_op_DRM_TAS_OP_NOP => Op::Nop,
        // Never run by the engine.
        uapi::drm_tas_op_DRM_TAS_OP_HOST => Op::Nop,
        uapi::drm_tas_op_DRM_TAS_OP_FILL => {
            if node.dst.size % 4 != 0 {
                return Err(EINVAL);
            }
            let (_, dst) = buf_range(dev, file, &node.dst)?;
            Op::Fill {
                dst,
                value: node.imm as u32,
            }
        }
        uapi::drm_tas_op_DRM_TAS_OP_COPY => {
            if node.dst.size != src0.size {
                return Err(EINVAL);
            }
            let (dst_bo, dst) = buf_range(dev, file, &node.dst)?;
            let (src_bo, src) = buf_range(dev, file, src0)?;
            let overlap = node.dst.offset < src0.offset + src0.size
                && src0.offset < node.dst.offset + node.dst.size;
            if core::ptr::eq(&*dst_bo, &*src_bo) && overlap {
                return Err(EINVAL);
            }
            Op::Copy { dst, src }
        }
        uapi::drm_tas_op_DRM_TAS_OP_ADD => {
            if node.dst.size % 4 != 0 || node.dst.size != src0.size || node.dst.size != src1.size {
                return Err(EINVAL);
            }
            let (_, dst) = buf_range(dev, file, &node.dst)?;
            let (_, a) = buf_range(dev, file, src0)?;
            let (_, b) = buf_range(dev, file, src1)?;
            Op::Add { dst, a, b }
        }
        _ => {
            let (m, n, k) = (node.imm & 0xffff, (node.imm >> 16) & 0xffff, node.imm >> 32);
            let dims = [m, n, k];
            if dims.iter().any(|d| *d == 0 || *d > MAX_MATMUL_DIM)
                || src0.size != 4 * m * k
                || src1.size != 4 * k * n
                || node.dst.size != 4 * m * n
            {
                return Err(EINVAL);
            }
            let (_, dst) = buf_range(dev, file, &node.dst)?;
            let (_, a) = buf_range(dev, file, src0)?;
            let (_, b) = buf_range(dev, file, src1)?;
            Op::MatMul {
                dst,
                a,
                b,
                m: m as usize,
                n: n as usize,
                k: k as usize,
            }
        }
    })
}

/// A checked syncobj wait or signal.
pub(crate) struct Sync {
    node: Option<usize>,
    syncobj: ARef<SyncObj>,
    point: u64,
    /// `DRM_TAS_SYNC_ON_START`: signalled when the (host) node is released.
    on_start: bool,
}

fn check_sync(file: &drm::File<File>, s: &uapi::drm_tas_sync, n: usize) -> Result<Sync> {
    if s.flags & !uapi::DRM_TAS_SYNC_ON_START != 0 || s.pad != 0 {
        return Err(EINVAL);
    }
    let node = match s.node {
        uapi::DRM_TAS_NODE_GRAPH => None,
        node if (node as usize) < n => Some(node as usize),
        _ => return Err(EINVAL),
    };
    Ok(Sync {
        node,
        syncobj: SyncObj::lookup(file, s.handle)?,
        point: s.point,
        on_start: s.flags & uapi::DRM_TAS_SYNC_ON_START != 0,
    })
}

/// The element of a submission's arrays that its checks failed on, for `error_array` and
/// `error_index` of the ioctl's argument (`DRM_TAS_ERROR_NONE` and 0 if none).
#[derive(Clone, Copy, Default)]
pub(crate) struct Blame {
    pub(crate) array: u32,
    pub(crate) index: u32,
}

impl Blame {
    /// Blames element `index` of `array` (a `DRM_TAS_ERROR_*` value) for `err`, unless `err`
    /// is not the element's doing (memory, a fault reading the arrays, a signal); returns `err`.
    pub(crate) fn at(&mut self, array: u32, index: usize, err: Error) -> Error {
        if err != ENOMEM && err != EFAULT && err != EINTR {
            self.array = array;
            // Array indices are below the array limits, which fit in a `u32`.
            self.index = index as u32;
        }
        err
    }
}

/// The edge that [`Plan::new()`] rejected a graph of `n` nodes for with `err`, found again on
/// the rejected submission's cold path: for `EINVAL` an edge out of range, a self-loop or the
/// later of two equal edges; for `ELOOP` an edge on a cycle. `None` if no edge is at fault or
/// an allocation fails.
fn edge_fault(n: usize, edges: &[(u32, u32)], err: Error) -> Option<usize> {
    let gfp = client_gfp();
    if err == EINVAL {
        let bad = |&(a, b): &(u32, u32)| a as usize >= n || b as usize >= n || a == b;
        if let Some(i) = edges.iter().position(bad) {
            return Some(i);
        }
        let mut order = KVVec::with_capacity(edges.len(), gfp).ok()?;
        for i in 0..edges.len() as u32 {
            order.push(i, gfp).ok()?;
        }
        order.sort_unstable_by_key(|&i| (edges[i as usize], i));
        let same = |w: &[u32]| edges[w[0] as usize] == edges[w[1] as usize];
        return order.windows(2).find(|&w| same(w)).map(|w| w[1] as usize);
    }
    if err != ELOOP {
        return None;
    }
    // Kahn's algorithm on the edges, which are valid: the nodes it cannot order are on a cycle
    // or behind one, and each of them has a predecessor among them.
    let mut start = KVVec::from_elem(0u32, n + 1, gfp).ok()?;
    let mut indegree = KVVec::from_elem(0u32, n, gfp).ok()?;
    for &(a, b) in edges {
        start[a as usize + 1] += 1;
        indegree[b as usize] += 1;
    }
    for v in 0..n {
        start[v + 1] += start[v];
    }
    let mut next = KVVec::with_capacity(n, gfp).ok()?;
    for &first in start.iter().take(n) {
        next.push(first, gfp).ok()?;
    }
    let mut succ = KVVec::from_elem(0u32, edges.len(), gfp).ok()?;
    for &(a, b) in edges {
        succ[next[a as usize] as usize] = b;
        next[a as usize] += 1;
    }
    let mut queue = KVVec::with_capacity(n, gfp).ok()?;
    for (v, &d) in indegree.iter().enumerate() {
        if d == 0 {
            queue.push(v as u32, gfp).ok()?;
        }
    }
    let mut head = 0;
    while let Some(&v) = queue.get(head) {
        head += 1;
        for &w in &succ[start[v as usize] as usize..start[v as usize + 1] as usize] {
            indegree[w as usize] -= 1;
            if indegree[w as usize] == 0 {
                queue.push(w, gfp).ok()?;
            }
        }
    }
    // One incoming edge from among them per unordered node; walking these back `n` times from
    // any of them ends on a cycle, whose edges they are.
    let mut back = next;
    back.fill(u32::MAX);
    for (i, &(a, b)) in edges.iter().enumerate() {
        if indegree[a as usize] != 0 && indegree[b as usize] != 0 {
            back[b as usize] = i as u32;
        }
    }
    let mut v = indegree.iter().position(|&d| d != 0)?;
    for _ in 0..n {
        v = edges.get(back[v] as usize)?.0 as usize;
    }
    Some(back[v] as usize)
}

/// A checked graph: its nodes, their operations and the plan.
pub(crate) struct CheckedGraph {
    pub(crate) nodes: KVVec<uapi::drm_tas_node>,
    pub(crate) ops: KVVec<Option<Op>>,
    pub(crate) plan: Plan,
}

impl CheckedGraph {
    /// Checks that the caller may use the priority classes of the graph's nodes: the latency
    /// class, which runs at the scheduler's high priority, needs `CAP_SYS_NICE`, as high
    /// priorities do in other drivers. Returns `EACCES` otherwise.
    pub(crate) fn check_classes(&self, blame: &mut Blame) -> Result {
        let latency = self
            .nodes
            .iter()
            .position(|n| n.class == uapi::drm_tas_class_DRM_TAS_CLASS_LATENCY);
        match latency {
            Some(v) if !cred::capable(Capability::SYS_NICE) => {
                Err(blame.at(uapi::drm_tas_error_array_DRM_TAS_ERROR_NODES, v, EACCES))
            }
            _ => Ok(()),
        }
    }
}

/// Copies and checks the nodes and edges of a graph, looks up and maps its buffers and builds
/// its plan; `blame` says which node or edge it failed on.
pub(crate) fn check_graph(
    dev: &TasDevice,
    file: &drm::File<File>,
    nodes: &uapi::drm_tas_array,
    edges: &uapi::drm_tas_array,
    blame: &mut Blame,
) -> Result<CheckedGraph> {
    if nodes.count == 0 {
        return Err(EINVAL);
    }
    let n = check_array::<uapi::drm_tas_node>(nodes, MAX_NODES)?;
    let n_edges = check_array::<uapi::drm_tas_edge>(edges, MAX_EDGES)?;
    // SAFETY: The uAPI structures are plain integers.
    let nodes = unsafe { read_array::<uapi::drm_tas_node>(nodes, n) }?;
    // SAFETY: As above.
    let edges = unsafe { read_array::<uapi::drm_tas_edge>(edges, n_edges) }?;

    // Nodes: cheap checks of all of them first, then buffers.
    let at_node = uapi::drm_tas_error_array_DRM_TAS_ERROR_NODES;
    for (v, node) in nodes.iter().enumerate() {
        if node.ring >= dev.num_rings
            || node.class > uapi::drm_tas_class_DRM_TAS_CLASS_BATCH
            || node.flags != 0
            || node.pad != 0
            || node.duration_ns > MAX_DURATION_NS
        {
            return Err(blame.at(at_node, v, EINVAL));
        }
        // A host node runs on no ring, for no simulated time, and alone.
        let host = node.op == uapi::drm_tas_op_DRM_TAS_OP_HOST;
        if host && (node.ring != 0 || node.duration_ns != 0 || node.gang != 0) {
            return Err(blame.at(at_node, v, EINVAL));
        }
    }
    let mut ops = KVVec::with_capacity(n, client_gfp())?;
    for (v, node) in nodes.iter().enumerate() {
        let op = node_op(dev, file, node).map_err(|e| blame.at(at_node, v, e))?;
        ops.push(Some(op), client_gfp())?;
    }

    let mut descs = KVVec::with_capacity(n, client_gfp())?;
    for node in nodes.iter() {
        descs.push(
            NodeDesc {
                // Host nodes have a ring of their own in the plan, after the device's.
                ring: if node.op == uapi::drm_tas_op_DRM_TAS_OP_HOST {
                    dev.num_rings
                } else {
                    node.ring
                },
                class: class(node),
                gang: node.gang,
                cost: node.duration_ns,
            },
            client_gfp(),
        )?;
    }
    let mut edge_list = KVVec::with_capacity(n_edges, client_gfp())?;
    for e in edges.iter() {
        edge_list.push((e.from, e.to), client_gfp())?;
    }
    let at_edge = uapi::drm_tas_error_array_DRM_TAS_ERROR_EDGES;
    let plan = Plan::new(&descs, &edge_list, dev.num_rings + 1, client_gfp())
        .map_err(|e| edge_fault(n, &edge_list, e).map_or(e, |i| blame.at(at_edge, i, e)))?;
    Ok(CheckedGraph { nodes, ops, plan })
}

/// The checked waits and signals of a launch.
pub(crate) struct CheckedSyncs {
    /// The fences to wait for, each for a node or (`None`) the whole graph.
    pub(crate) waits: KVec<(Option<usize>, ARef<Fence>)>,
    /// The syncobj points to signal, with a chain node for timeline points.
    pub(crate) signals: KVec<(Sync, Option<FenceChain>)>,
}

/// Copies and checks the waits and signals of a launch of `plan`; `blame` says which wait or
/// signal it failed on.
pub(crate) fn check_syncs(
    file: &drm::File<File>,
    waits: &uapi::drm_tas_array,
    signals: &uapi::drm_tas_array,
    plan: &Plan,
    blame: &mut Blame,
) -> Result<CheckedSyncs> {
    let n = plan.len();
    let n_waits = check_array::<uapi::drm_tas_sync>(waits, MAX_WAITS)?;
    let n_signals = check_array::<uapi::drm_tas_sync>(signals, MAX_SIGNALS)?;
    // SAFETY: The uAPI structures are plain integers.
    let waits = unsafe { read_array::<uapi::drm_tas_sync>(waits, n_waits) }?;
    // SAFETY: As above.
    let signals = unsafe { read_array::<uapi::drm_tas_sync>(signals, n_signals) }?;

    // Waits: resolved now; a point that is not submitted yet is rejected.
    let at_wait = uapi::drm_tas_error_array_DRM_TAS_ERROR_WAITS;
    let mut wait_fences = KVec::with_capacity(n_waits, client_gfp())?;
    for (i, w) in waits.iter().enumerate() {
        let w = check_sync(file, w, n).map_err(|e| blame.at(at_wait, i, e))?;
        if w.on_start {
            return Err(blame.at(at_wait, i, EINVAL));
        }
        match w.syncobj.fence_at(w.point) {
            Ok(SyncPoint::Submitted(fence)) => wait_fences.push((w.node, fence), client_gfp())?,
            Ok(SyncPoint::NotSubmitted) => return Err(blame.at(at_wait, i, EINVAL)),
            Err(e) => return Err(blame.at(at_wait, i, e)),
        }
    }

    // Signals: checked, and chain nodes allocated for timeline points.
    let at_signal = uapi::drm_tas_error_array_DRM_TAS_ERROR_SIGNALS;
    let mut sigs = KVec::with_capacity(n_signals, client_gfp())?;
    for (i, s) in signals.iter().enumerate() {
        let s = check_sync(file, s, n).map_err(|e| blame.at(at_signal, i, e))?;
        if s.point != 0 && s.point <= s.syncobj.last_point() {
            return Err(blame.at(at_signal, i, EINVAL));
        }
        if s.on_start && !s.node.is_some_and(|v| is_host(plan, v as u32)) {
            return Err(blame.at(at_signal, i, EINVAL));
        }
        // Points of one syncobj are signalled in increasing order, each once.
        let misordered = sigs.iter().any(|(o, _): &(Sync, Option<FenceChain>)| {
            core::ptr::eq(&*o.syncobj, &*s.syncobj) && (s.point == 0 || o.point >= s.point)
        });
        if misordered {
            return Err(blame.at(at_signal, i, EINVAL));
        }
        let chain = if s.point != 0 {
            Some(FenceChain::new(client_gfp())?)
        } else {
            None
        };
        sigs.push((s, chain), client_gfp())?;
    }
    Ok(CheckedSyncs {
        waits: wait_fences,
        signals: sigs,
    })
}

/// Copies and checks the binds of a template launch, and looks up and maps their buffers;
/// `extents` are the extents of the template's slots. `blame` says which bind it failed on.
pub(crate) fn check_binds(
    dev: &TasDevice,
    file: &drm::File<File>,
    binds: &uapi::drm_tas_array,
    extents: &[u64],
    blame: &mut Blame,
) -> Result<Option<crate::engine::Binds>> {
    // Each slot at most once: more binds than slots cannot be valid.
    let n = check_array::<uapi::drm_tas_bind>(binds, extents.len() as u64)?;
    if n == 0 {
        return Ok(None);
    }
    // SAFETY: The uAPI structure is plain integers.
    let binds = unsafe { read_array::<uapi::drm_tas_bind>(binds, n) }?;
    let at = uapi::drm_tas_error_array_DRM_TAS_ERROR_BINDS;
    // The slot, the bind's index (for blame) and the range of its buffer.
    let mut slots = KVVec::with_capacity(n, client_gfp())?;
    for (i, b) in binds.iter().enumerate() {
        let extent = *extents
            .get(b.slot as usize)
            .ok_or_else(|| blame.at(at, i, EINVAL))?;
        let bo = Bo::lookup_handle(file, b.handle).map_err(|e| blame.at(at, i, e))?;
        match b.offset.checked_add(extent) {
            Some(end) if end <= bo.size() as u64 => {}
            _ => return Err(blame.at(at, i, EINVAL)),
        }
        let offset = usize::try_from(b.offset).map_err(|_| blame.at(at, i, EINVAL))?;
        let extent = usize::try_from(extent).map_err(|_| blame.at(at, i, EINVAL))?;
        let range = BufRange::new(bo.owned_vmap()?, &dev.reaper, offset, extent)?;
        slots.push((b.slot, i, range), client_gfp())?;
    }
    // Sorted by slot, then by index, so that the second bind of a slot is the one blamed.
    slots.sort_unstable_by_key(|(slot, i, _)| (*slot, *i));
    if let Some(w) = slots.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(blame.at(at, w[1].1, EINVAL));
    }
    let mut list = KVVec::with_capacity(n, client_gfp())?;
    for (slot, _, range) in slots {
        list.push((slot, range), client_gfp())?;
    }
    crate::engine::Binds::new(list).map(Some)
}

/// Installs the signal points of a launch; cannot fail.
pub(crate) fn install_signals(
    sigs: KVec<(Sync, Option<FenceChain>)>,
    node_fences: &[(u32, UnchainedFence)],
    graph_fence: Option<&UnchainedFence>,
) {
    for (s, chain) in sigs {
        let fence = match (s.node, graph_fence) {
            (Some(v), _) => {
                let key = v as u32 | if s.on_start { ON_START } else { 0 };
                match node_fences.iter().find(|(k, _)| *k == key) {
                    Some((_, fence)) => fence,
                    None => continue,
                }
            }
            (None, Some(fence)) => fence,
            (None, None) => continue,
        };
        match chain {
            Some(chain) => s.syncobj.add_point(chain, fence, s.point),
            None => s.syncobj.replace_fence(Some(fence)),
        }
    }
}

/// Validates and dispatches a graph, in the dispatcher's launch slot `slot` or, without one,
/// with the stock dispatch (`DRM_TAS_SUBMIT_FIFO`), whose jobs hold `charge`; returns its
/// record. `blame` says which element of the graph's arrays it failed on.
#[expect(clippy::too_many_arguments)]
pub(crate) fn submit(
    dev: &TasDevice,
    file: &drm::File<File>,
    entities: &Entities<'_>,
    disp: &Arc<Dispatcher>,
    args: &uapi::drm_tas_submit_graph,
    slot: Option<Reservation>,
    charge: Option<Arc<Charge>>,
    blame: &mut Blame,
) -> Result<GraphRecord> {
    let flags = uapi::DRM_TAS_SUBMIT_FIFO | uapi::DRM_TAS_SUBMIT_KEEP;
    if args.extensions != 0 || args.flags & !flags != 0 || args.pad != 0 {
        return Err(EINVAL);
    }
    let graph = check_graph(dev, file, &args.nodes, &args.edges, blame)?;
    // The stock dispatch ignores the classes.
    if slot.is_some() {
        graph.check_classes(blame)?;
    }
    // The stock dispatch has no release step to hand a host node to its thread.
    let host = (0..graph.plan.len() as u32).find(|&v| is_host(&graph.plan, v));
    if let (None, Some(v)) = (&slot, host) {
        let at_node = uapi::drm_tas_error_array_DRM_TAS_ERROR_NODES;
        return Err(blame.at(at_node, v as usize, EINVAL));
    }
    let syncs = check_syncs(file, &args.waits, &args.signals, &graph.plan, blame)?;
    let (record, node_fences, graph_fence) = match slot {
        None => push_fifo(dev, entities, graph, &syncs, charge.ok_or(EINVAL)?)?,
        Some(slot) => dispatch(dev, entities, disp, graph, &syncs, slot)?,
    };
    // Point of no return: nothing below fails.
    install_signals(syncs.signals, &node_fences, graph_fence.as_ref());
    Ok(record)
}

/// The record of a dispatched graph, the fences of its nodes that signals refer to, and the
/// fence of the whole graph if a signal refers to it.
type Dispatched = (
    GraphRecord,
    KVec<(u32, UnchainedFence)>,
    Option<UnchainedFence>,
);

/// Builds the jobs of a launch of a graph for `disp`; `op` gives node `v`'s operation.
pub(crate) fn instance(
    rings: &[Arc<Ring>],
    entities: &[Arc<Entity<NodeJob>>],
    disp: &Arc<Dispatcher>,
    plan: &Plan,
    nodes: &[uapi::drm_tas_node],
    mut op: impl FnMut(usize) -> Result<OpRef>,
) -> Result<(Instance, GraphRecord)> {
    let mut record = GraphRecord {
        queued_ns: 0,
        nodes: KVVec::with_capacity(nodes.len(), client_gfp())?,
    };
    // The start barriers of the gangs of this launch.
    let mut gangs = KVVec::with_capacity(plan.num_gangs(), client_gfp())?;
    for g in 0..plan.num_gangs() as u32 {
        let members = u32::try_from(plan.gang_members(g).len()).map_err(|_| EINVAL)?;
        gangs.push(
            Gang::new(members, plan.gang_rings(g), disp.gate(), client_gfp())?,
            client_gfp(),
        )?;
    }
    let inst = disp.instance(plan, |v, launch| {
        let node = nodes.get(v as usize).ok_or(EINVAL)?;
        let class = class(node);
        let gang = match plan.gang_of(v) {
            Some(g) => Some(gangs.get(g as usize).ok_or(EINVAL)?.clone()),
            None => None,
        };
        if is_host(plan, v) {
            // No job: the dispatcher hands the node to a thread, which reports its completion.
            let exec = NodeExec::new(
                plan.ring(v),
                // A host node runs no operation, and one of a template's would keep the launch's
                // bound buffers for as long as a record keeps the node. It is asked for all the
                // same: a caller that stops a build (a retired template) is asked at every node.
                {
                    drop(op(v as usize)?);
                    OpRef::Own(Op::Nop)
                },
                0,
                class as u8,
                None,
                KVec::new(),
                0,
                client_gfp(),
            )?;
            record
                .nodes
                .push_within_capacity(NodeRecord {
                    exec: exec.clone(),
                    tag: node.tag,
                    finished: None,
                })
                .map_err(|_| ENOMEM)?;
            return Ok(NodeInit { job: None, exec });
        }
        let exec = NodeExec::new(
            node.ring,
            op(v as usize)?,
            node.duration_ns,
            class as u8,
            gang,
            KVec::new(),
            // The dispatcher adds the finished fence of each predecessor it releases.
            plan.indegree(v) as usize,
            client_gfp(),
        )?;
        // A node that may go to its ring before its predecessors finish: one with predecessors,
        // outside of gangs (see `Run::on_rings()`).
        if plan.indegree(v) > 0 && plan.gang_of(v).is_none() {
            exec.reserve_ring_wait(client_gfp())?;
        }
        let data = NodeJob::Node {
            ring: rings.get(node.ring as usize).ok_or(EINVAL)?.clone(),
            exec: exec.clone(),
            alloc: Some(FenceAllocation::new(client_gfp())?),
            // The launch holds the charge of the dispatcher's nodes.
            _charge: None,
        };
        // A gang member with its gang's class, so that no less urgent work of other clients
        // holds it up while it holds its rings (see `Plan::gang_class()`).
        let pushed_as = plan.gang_of(v).map_or(class, |g| plan.gang_class(g));
        let entity = entities[entity_index(node.ring, pushed_as)].clone();
        record
            .nodes
            .push_within_capacity(NodeRecord {
                exec: exec.clone(),
                tag: node.tag,
                finished: None,
            })
            .map_err(|_| ENOMEM)?;
        let mut job = Job::new_shared(entity, 1, data, client_gfp())?;
        job.set_tag(node.tag);
        // The completion token holds the node, which holds the token: only the job takes it
        // out again (when it is dropped or freed), so the token is set once the job exists and
        // nothing can fail any more. Set earlier, a failed allocation leaked the node and the
        // buffers of its operation.
        exec.set_done(disp.done(launch, v, exec.clone()));
        Ok(NodeInit {
            job: Some(job),
            exec,
        })
    })?;
    Ok((inst, record))
}

/// Starts an instance of `plan` as a new launch in `slot`, with the checked waits and signals;
/// with `want_graph_fence`, returns the fence of the whole graph even if no signal asks for it.
pub(crate) fn launch(
    disp: &Arc<Dispatcher>,
    slot: Reservation,
    plan: Arc<Plan>,
    inst: Instance,
    syncs: &CheckedSyncs,
    want_graph_fence: bool,
) -> Result<LaunchFences> {
    let sigs = &syncs.signals;
    let mut waits = KVec::with_capacity(syncs.waits.len(), client_gfp())?;
    for (node, fence) in syncs.waits.iter() {
        waits.push((node.map(|v| v as u32), fence.clone()), client_gfp())?;
    }
    let mut signalled = KVec::with_capacity(sigs.len(), client_gfp())?;
    for (s, _) in sigs.iter() {
        if let Some(v) = s.node {
            let key = v as u32 | if s.on_start { ON_START } else { 0 };
            signalled.push(key, client_gfp())?;
        }
    }
    let graph_signal = want_graph_fence || sigs.iter().any(|(s, _)| s.node.is_none());
    // The point of no return is inside: it starts the launch only once nothing can fail.
    disp.launch(slot, plan, inst, &waits, &signalled, graph_signal)
}

/// Hands a checked graph to the client's dispatcher.
fn dispatch(
    dev: &TasDevice,
    entities: &Entities<'_>,
    disp: &Arc<Dispatcher>,
    graph: CheckedGraph,
    syncs: &CheckedSyncs,
    slot: Reservation,
) -> Result<Dispatched> {
    let CheckedGraph {
        nodes,
        mut ops,
        plan,
        ..
    } = graph;
    let (inst, mut record) = instance(&dev.rings, entities.nodes, disp, &plan, &nodes, |v| {
        Ok(OpRef::Own(ops[v].take().ok_or(EINVAL)?))
    })?;
    record.queued_ns = now_ns();
    let plan = Arc::new(plan, client_gfp())?;
    let (node_fences, graph_fence) = launch(disp, slot, plan, inst, syncs, false)?;
    Ok((record, node_fences, graph_fence))
}

/// The stock dispatch: pushes every node into the FIFO entity of its ring now.
fn push_fifo(
    dev: &TasDevice,
    entities: &Entities<'_>,
    graph: CheckedGraph,
    syncs: &CheckedSyncs,
    charge: Arc<Charge>,
) -> Result<Dispatched> {
    let CheckedGraph {
        nodes,
        mut ops,
        plan,
    } = graph;
    let wait_fences = &syncs.waits;
    let graph_signal = syncs.signals.iter().any(|(s, _)| s.node.is_none());
    let n = nodes.len();

    // Jobs, in topological order, each with its dependencies; pushed as they are created so that
    // their successors can depend on their finished fences, which are collected per successor
    // with the index of their node. Every node also waits for `gate`, which is signalled at the
    // point of no return: if anything fails before it, dropping the gate cancels (with
    // ECANCELED) every node already pushed, before any of them ran.
    let gate = FenceContext::new(c"tas", c"tas-submit").new_fence((), client_gfp())?;
    let mut finished: KVVec<Option<ARef<Fence>>> = KVVec::from_elem(None, n, client_gfp())?;
    let mut execs: KVVec<Option<Arc<NodeExec>>> = KVVec::from_elem(None, n, client_gfp())?;
    let mut pred_fences: KVVec<KVec<(u32, ARef<Fence>)>> = KVVec::with_capacity(n, client_gfp())?;
    for v in 0..n as u32 {
        pred_fences.push(
            KVec::with_capacity(plan.indegree(v) as usize, client_gfp())?,
            client_gfp(),
        )?;
    }
    for &v in plan.topo_order() {
        let v = v as usize;
        let ring = nodes[v].ring as usize;
        // The predecessors' fences in node order.
        let mut preds = core::mem::take(&mut pred_fences[v]);
        preds.sort_unstable_by_key(|(p, _)| *p);
        let mut deps = KVec::with_capacity(preds.len() + 1, client_gfp())?;
        deps.push(gate.fence().clone(), client_gfp())?;
        for (_, fence) in preds {
            deps.push(fence, client_gfp())?;
        }
        for (node, fence) in wait_fences.iter() {
            if node.is_none() || *node == Some(v) {
                deps.push(fence.clone(), client_gfp())?;
            }
        }
        let op = ops[v].take().ok_or(EINVAL)?;
        // The baseline: every node of the normal class, so no preemption either.
        let urgency = Class::Normal as u8;
        let exec = NodeExec::new(
            nodes[v].ring,
            OpRef::Own(op),
            nodes[v].duration_ns,
            urgency,
            None,
            deps,
            0,
            client_gfp(),
        )?;
        let data = NodeJob::Node {
            ring: dev.rings[ring].clone(),
            exec: exec.clone(),
            alloc: Some(FenceAllocation::new(client_gfp())?),
            _charge: Some(charge.clone()),
        };
        // Not the dispatcher's entity of the ring: a job that waits there would hold up the
        // ready nodes the dispatcher queues behind it, maybe the very one it waits for.
        let entity = &*entities.fifo[ring];
        let mut job = Job::new(entity, 1, data, client_gfp())?;
        job.set_tag(nodes[v].tag);
        // One at a time: adding a dependency allocates, so not under the node's lock.
        for dep in (0..).map_while(|i| exec.dep(i)) {
            job.add_dependency(dep)?;
        }
        let fence = job.push().finished;
        for &w in plan.succ(v as u32) {
            pred_fences[w as usize].push((v as u32, fence.clone()), client_gfp())?;
        }
        finished[v] = Some(fence);
        execs[v] = Some(exec);
    }
    // The completion of the whole graph: a job without work on the graph ring, after every sink
    // node, which inherits the first error among them.
    let mut graph_fence = None;
    if graph_signal {
        let mut deps = KVec::new();
        for v in 0..n {
            if plan.succ(v as u32).is_empty() {
                deps.push(finished[v].clone().ok_or(EINVAL)?, client_gfp())?;
            }
        }
        let mut job_deps = KVec::with_capacity(deps.len(), client_gfp())?;
        job_deps.extend_from_slice(&deps, client_gfp())?;
        let mut job = Job::new(entities.graph, 1, NodeJob::Graph { deps }, client_gfp())?;
        for dep in job_deps {
            job.add_dependency(dep)?;
        }
        graph_fence = Some(UnchainedFence::new(job.push().finished)?);
    }

    let mut record = GraphRecord {
        queued_ns: 0,
        nodes: KVVec::with_capacity(n, client_gfp())?,
    };
    // The fences of the nodes that signals refer to.
    let mut node_fences = KVec::with_capacity(syncs.signals.len(), client_gfp())?;
    for v in syncs.signals.iter().filter_map(|(s, _)| s.node) {
        let fence = UnchainedFence::new(finished[v].clone().ok_or(EINVAL)?)?;
        node_fences.push((v as u32, fence), client_gfp())?;
    }
    for v in 0..n {
        record.nodes.push(
            NodeRecord {
                exec: execs[v].clone().ok_or(EINVAL)?,
                tag: nodes[v].tag,
                finished: Some(finished[v].clone().ok_or(EINVAL)?),
            },
            client_gfp(),
        )?;
    }

    // Point of no return: nothing below fails.
    let now = now_ns();
    record.queued_ns = now;
    for node in record.nodes.iter() {
        node.exec.queued_ns.store(now, Relaxed);
    }
    gate.signal();
    Ok((record, node_fences, graph_fence))
}
