// SPDX-License-Identifier: GPL-2.0

//! Graph templates: a graph validated, ranked and bound to its buffers once, then launched any
//! number of times with new syncobj waits and signals.
//!
//! A launch needs a fresh scheduler job per node, and jobs are allocated. So that a launch does
//! not pay for that, each template keeps up to [`POOL`] instances (the jobs and run state of one
//! launch) built ahead of time by a work item; a launch takes one and has the work item build
//! the next [`BG_DELAY`](crate::driver::BG_DELAY) later, and builds one itself only when none is
//! ready. The work left to the ioctl is proportional to the waits, signals and source nodes of
//! the graph.
//!
//! The delay keeps the launch from paying for the next one: queued at once, the work item's
//! worker is woken while the ioctl runs, and competes with it for the CPU until it returns (for a
//! 10000-node template, the building of the next instance took a launch from about 1 ms to 2-5
//! ms under QEMU). A client that launches again within the delay finds the second prepared
//! instance; one that launches faster than instances are built builds its own, as before.
//!
//! The nodes of all launches share the template's operations (and buffer mappings), and each
//! launch holds the template's plan, so destroying a template with launches in flight is safe:
//! they complete normally.
//!
//! A launch may bind other buffers in place of the template's: the template numbers its distinct
//! buffers (its slots) and keeps the extent of each, the furthest byte its nodes use. A launch's
//! binds are checked against the extents alone and applied to its prepared instance as a whole,
//! so their cost does not depend on the number of nodes that use a slot.

use kernel::{
    dma_fence::Fence,
    drm::sched::{
        graph::Plan,
        Entity, //
    },
    memcg::MemCgroup,
    new_delayed_work, new_mutex,
    prelude::*,
    sync::{
        aref::ARef,
        atomic::{
            Atomic,
            Relaxed, //
        },
        Arc,
        Mutex, //
    },
    uapi,
    workqueue::{
        impl_has_delayed_work,
        DelayedWork,
        Queue,
        WorkItem, //
    },
};

use crate::{
    dispatch::{
        Dispatcher,
        Instance, //
    },
    driver::{
        client_gfp,
        BG_DELAY, //
    },
    engine::{
        Binds,
        LaunchOps,
        NodeJob,
        OpRef,
        Ring,
        TemplateOps, //
    },
    graph::{
        self,
        CheckedGraph,
        GraphRecord, //
    },
};

/// Templates a file can have.
pub(crate) const MAX_TEMPLATES: usize = 64;

/// Instances a template keeps ready.
const POOL: usize = 2;

/// A prepared launch, with the operations that its binds apply to.
type Prepared = (Instance, GraphRecord, Arc<LaunchOps>);

/// The operations of a template's last launches, kept by the template.
///
/// A launch's nodes let go of their operations once they ran, and with the last of them the
/// launch's mappings of the buffers it bound would go. A mapping of a buffer that is still
/// mapped only takes a count, so the template keeps the last launch's operations until the next
/// launch has made its own: a template launched again and again on the same buffers maps them
/// once. What it keeps is the buffers of one launch (of two until the work item has run after a
/// launch), released by the next launches or with the template.
#[derive(Default)]
struct KeptOps {
    /// The last launch's operations.
    last: Option<Arc<LaunchOps>>,
    /// The operations that `last` replaced, for the work item to drop: their mappings go to the
    /// device's reaper, whose work item should not start while a launch runs. A launch that
    /// comes before the work item has run drops them itself.
    stale: Option<Arc<LaunchOps>>,
}

/// A graph template.
#[pin_data]
pub(crate) struct Template {
    plan: Arc<Plan>,
    nodes: KVVec<uapi::drm_tas_node>,
    ops: Arc<TemplateOps>,
    /// The extent of each buffer slot: the end of the furthest range that a node uses in it.
    extents: KVVec<u64>,
    rings: KVec<Arc<Ring>>,
    entities: KVec<Arc<Entity<NodeJob>>>,
    disp: Arc<Dispatcher>,
    /// The memory cgroup of the task that created the template, charged for the instances that
    /// the work item prepares.
    memcg: Option<MemCgroup>,
    /// Set by [`Template::retire`]: the work item builds nothing more, and stops an instance
    /// it is building at its next node.
    retired: Atomic<bool>,
    #[pin]
    pool: Mutex<KVec<Prepared>>,
    #[pin]
    kept: Mutex<KeptOps>,
    /// The fence of the whole graph of the last launch with `DRM_TAS_LAUNCH_ORDERED`, which
    /// the next such launch waits for.
    #[pin]
    ordered: Mutex<Option<ARef<Fence>>>,
    /// The device's workqueue for work off the fence signalling path, which runs the work item.
    wq: &'static Queue,
    #[pin]
    work: DelayedWork<Template>,
}

impl_has_delayed_work! {
    impl HasDelayedWork<Self> for Template { self.work }
}

impl WorkItem for Template {
    type Pointer = Arc<Template>;

    fn run(this: Arc<Template>) {
        // The lock guard goes at the end of this statement, before the operations do.
        let stale = this.kept.lock().stale.take();
        drop(stale);
        while !this.retired.load(Relaxed) && this.pool.lock().len() < POOL {
            let inst = match &this.memcg {
                Some(memcg) => memcg.charge(|| this.build()),
                None => this.build(),
            };
            // Out of memory (or of the creator's cgroup's room): a launch builds its own.
            let Ok(inst) = inst else {
                return;
            };
            let mut pool = this.pool.lock();
            if let Err(e) = pool.push_within_capacity(inst) {
                drop(pool);
                drop(e);
                return;
            }
        }
    }
}

impl Template {
    /// Creates a template of a checked graph for the client `disp` with its `entities`, and
    /// starts building its first instances in its work item, on `wq`.
    pub(crate) fn new(
        graph: CheckedGraph,
        rings: &[Arc<Ring>],
        entities: &[Arc<Entity<NodeJob>>],
        disp: &Arc<Dispatcher>,
        wq: &'static Queue,
    ) -> Result<Arc<Self>> {
        let CheckedGraph {
            nodes,
            ops: mut checked_ops,
            plan,
            ..
        } = graph;
        let mut ops = KVVec::with_capacity(checked_ops.len(), client_gfp())?;
        for op in checked_ops.iter_mut() {
            ops.push(op.take().ok_or(EINVAL)?, client_gfp())?;
        }
        let (slots, extents) = buffer_slots(&nodes)?;
        let ops = TemplateOps::new(ops, slots);
        let mut ring_list = KVec::with_capacity(rings.len(), client_gfp())?;
        ring_list.extend_from_slice(rings, client_gfp())?;
        let mut entity_list = KVec::with_capacity(entities.len(), client_gfp())?;
        entity_list.extend_from_slice(entities, client_gfp())?;
        let this = Arc::pin_init(
            try_pin_init!(Self {
                plan: Arc::new(plan, client_gfp())?,
                nodes,
                ops: Arc::new(ops, client_gfp())?,
                extents,
                rings: ring_list,
                entities: entity_list,
                disp: disp.clone(),
                memcg: MemCgroup::current(),
                retired: Atomic::new(false),
                pool <- new_mutex!(KVec::with_capacity(POOL, client_gfp())?),
                kept <- new_mutex!(KeptOps::default()),
                ordered <- new_mutex!(None),
                wq,
                work <- new_delayed_work!("tas::Template::work"),
            }? Error),
            client_gfp(),
        )?;
        let _ = this.wq.enqueue_delayed(this.clone(), 0);
        Ok(this)
    }

    /// The number of nodes of the template.
    pub(crate) fn len(&self) -> usize {
        self.nodes.len()
    }

    /// The plan of the template.
    pub(crate) fn plan(&self) -> &Arc<Plan> {
        &self.plan
    }

    /// The number of buffer slots of the template.
    pub(crate) fn slots(&self) -> u32 {
        // At most three per node, and nodes are bounded far below `u32::MAX`.
        self.extents.len() as u32
    }

    /// The extent of each buffer slot of the template.
    pub(crate) fn extents(&self) -> &[u64] {
        &self.extents
    }

    fn build(&self) -> Result<Prepared> {
        let ops = Arc::new(LaunchOps::new(self.ops.clone()), client_gfp())?;
        let (inst, record) = graph::instance(
            &self.rings,
            &self.entities,
            &self.disp,
            &self.plan,
            &self.nodes,
            |v| {
                if self.retired.load(Relaxed) {
                    return Err(ECANCELED);
                }
                Ok(OpRef::Shared(ops.clone(), v))
            },
        )?;
        Ok((inst, record, ops))
    }

    /// Takes an instance for a launch that uses the buffers of `binds` (the template's if
    /// `None`): a ready one if there is one, else a new one. Has the next one built
    /// [`BG_DELAY`] later.
    pub(crate) fn take(self: &Arc<Self>, binds: Option<Binds>) -> Result<(Instance, GraphRecord)> {
        let ready = self.pool.lock().pop();
        let (inst, record, ops) = match ready {
            Some(prepared) => prepared,
            None => self.build()?,
        };
        // Before any node of the instance is queued. A prepared instance's operations are bound
        // by its own launch only.
        if let Some(binds) = binds {
            ops.bind(binds);
        }
        // The caller mapped this launch's buffers before: the last launch's mappings can go. A
        // launch that comes before the work item has run drops the stale ones here.
        let older = {
            let mut kept = self.kept.lock();
            let last = kept.last.replace(ops);
            core::mem::replace(&mut kept.stale, last)
        };
        drop(older);
        // After `stale` is set, so that a work item that is already running and has looked at
        // it runs once more. Already queued: it will fill the pool up and drop `stale`.
        let _ = self.wq.enqueue_delayed(self.clone(), BG_DELAY);
        Ok((inst, record))
    }

    /// The fence of the last ordered launch, for the next one to wait for; `None` if there was
    /// none or it has signalled.
    pub(crate) fn last_ordered(&self) -> Option<ARef<Fence>> {
        let last = self.ordered.lock();
        last.as_ref().filter(|fence| !fence.is_signaled()).cloned()
    }

    /// Makes `fence`, that of the whole graph of an ordered launch, the one the next ordered
    /// launch waits for. Does not allocate: called after a launch's point of no return.
    pub(crate) fn set_last_ordered(&self, fence: ARef<Fence>) {
        let older = self.ordered.lock().replace(fence);
        // Its last reference may go here, outside of the lock.
        drop(older);
    }

    /// Stops the work item from preparing instances and waits until it is idle (it runs
    /// driver code), for a template that is destroyed or whose file is closed.
    ///
    /// The wait is short: an instance being built stops at its next node, with `ECANCELED`,
    /// rather than the pool being filled with up to two instances of every node.
    /// A pending delay is cut short: the work item runs at once and finds the template retired.
    pub(crate) fn retire(&self) {
        self.retired.store(true, Relaxed);
        self.work.flush();
    }
}

/// Numbers the distinct buffers of a template's nodes (its slots) in the order of their first
/// use: nodes in index order, and in each node the destination, then the sources. Returns the
/// slot of each operand of each node (`u32::MAX` where it has none, see
/// [`TemplateOps`]) and the extent of each slot. `O(n log n)` in the operands.
fn buffer_slots(nodes: &[uapi::drm_tas_node]) -> Result<(KVVec<[u32; 3]>, KVVec<u64>)> {
    // The operands in use (the others are all zero, see `graph::check_graph()`).
    let operands = |node: &uapi::drm_tas_node| [node.dst, node.src[0], node.src[1]];
    let mut uses = KVVec::new();
    for (v, node) in nodes.iter().enumerate() {
        for (j, buf) in operands(node).iter().enumerate() {
            if buf.size != 0 {
                uses.push((buf.handle, v * 3 + j), client_gfp())?;
            }
        }
    }
    // First use of each handle, then the handles in the order of their first use.
    uses.sort_unstable();
    let mut first = KVVec::new();
    for (i, &(handle, pos)) in uses.iter().enumerate() {
        if i == 0 || uses[i - 1].0 != handle {
            first.push((pos, handle), client_gfp())?;
        }
    }
    first.sort_unstable();
    // Slot of each handle, by handle.
    let mut by_handle = KVVec::with_capacity(first.len(), client_gfp())?;
    for (slot, &(_, handle)) in first.iter().enumerate() {
        by_handle.push((handle, slot as u32), client_gfp())?;
    }
    by_handle.sort_unstable();

    let mut slots = KVVec::with_capacity(nodes.len(), client_gfp())?;
    let mut extents = KVVec::from_elem(0u64, first.len(), client_gfp())?;
    for node in nodes {
        let mut of_node = [u32::MAX; 3];
        for (j, buf) in operands(node).iter().enumerate() {
            if buf.size == 0 {
                continue;
            }
            let i = by_handle
                .binary_search_by_key(&buf.handle, |&(h, _)| h)
                .map_err(|_| EINVAL)?;
            let slot = by_handle[i].1;
            of_node[j] = slot;
            // Checked against the buffer's size by `graph::check_graph()`.
            let end = buf.offset.checked_add(buf.size).ok_or(EINVAL)?;
            let extent = &mut extents[slot as usize];
            *extent = (*extent).max(end);
        }
        slots.push(of_node, client_gfp())?;
    }
    Ok((slots, extents))
}
