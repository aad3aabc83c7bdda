// SPDX-License-Identifier: GPL-2.0

//! Graph templates: a graph validated, ranked and bound to its buffers once, then launched any
//! number of times with new syncobj waits and signals.
//!
//! A launch needs a fresh scheduler job per node, and jobs are allocated. So that a launch does
//! not pay for that, each template keeps up to [`POOL`] instances (the jobs and run state of one
//! launch) built ahead of time by a work item; a launch takes one and queues the work item to
//! build the next, and builds one itself only when none is ready. The work left to the ioctl
//! is proportional to the waits, signals and source nodes of the graph.
//!
//! The nodes of all launches share the template's operations (and buffer mappings), and each
//! launch holds the template's plan, so destroying a template with launches in flight is safe:
//! they complete normally.

use kernel::{
    drm::sched::{
        graph::Plan,
        Entity, //
    },
    memcg::MemCgroup,
    new_mutex, new_work,
    prelude::*,
    sync::{
        Arc,
        Mutex, //
    },
    uapi,
    workqueue::{
        impl_has_work,
        Queue,
        Work,
        WorkItem, //
    },
};

use crate::{
    dispatch::{
        Dispatcher,
        Instance, //
    },
    driver::client_gfp,
    engine::{
        NodeJob,
        Op,
        OpRef,
        Ring, //
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

/// A graph template.
#[pin_data]
pub(crate) struct Template {
    plan: Arc<Plan>,
    nodes: KVVec<uapi::drm_tas_node>,
    ops: Arc<KVVec<Op>>,
    rings: KVec<Arc<Ring>>,
    entities: KVec<Arc<Entity<NodeJob>>>,
    disp: Arc<Dispatcher>,
    /// The memory cgroup of the task that created the template, charged for the instances that
    /// the work item prepares.
    memcg: Option<MemCgroup>,
    #[pin]
    pool: Mutex<KVec<(Instance, GraphRecord)>>,
    /// The device's workqueue for work off the fence signalling path, which runs the work item.
    wq: &'static Queue,
    #[pin]
    work: Work<Template>,
}

impl_has_work! {
    impl HasWork<Self> for Template { self.work }
}

impl WorkItem for Template {
    type Pointer = Arc<Template>;

    fn run(this: Arc<Template>) {
        while this.pool.lock().len() < POOL {
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
        let mut ring_list = KVec::with_capacity(rings.len(), client_gfp())?;
        ring_list.extend_from_slice(rings, client_gfp())?;
        let mut entity_list = KVec::with_capacity(entities.len(), client_gfp())?;
        entity_list.extend_from_slice(entities, client_gfp())?;
        let this = Arc::pin_init(
            try_pin_init!(Self {
                plan: Arc::new(plan, client_gfp())?,
                nodes,
                ops: Arc::new(ops, client_gfp())?,
                rings: ring_list,
                entities: entity_list,
                disp: disp.clone(),
                memcg: MemCgroup::current(),
                pool <- new_mutex!(KVec::with_capacity(POOL, client_gfp())?),
                wq,
                work <- new_work!("tas::Template::work"),
            }? Error),
            client_gfp(),
        )?;
        let _ = this.wq.enqueue(this.clone());
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

    fn build(&self) -> Result<(Instance, GraphRecord)> {
        graph::instance(
            &self.rings,
            &self.entities,
            &self.disp,
            &self.plan,
            &self.nodes,
            |v| Ok(OpRef::Shared(self.ops.clone(), v)),
        )
    }

    /// Takes an instance for a launch: a ready one if there is one, else a new one. Queues the
    /// building of the next.
    pub(crate) fn take(self: &Arc<Self>) -> Result<(Instance, GraphRecord)> {
        let ready = self.pool.lock().pop();
        let inst = match ready {
            Some(inst) => inst,
            None => self.build()?,
        };
        // Already queued: it will fill the pool up.
        let _ = self.wq.enqueue(self.clone());
        Ok(inst)
    }

    /// Waits until the work item is idle; it runs driver code.
    pub(crate) fn flush(&self) {
        self.work.flush();
    }
}
