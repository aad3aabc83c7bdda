// SPDX-License-Identifier: GPL-2.0

//! DRM file (client) of the TAS driver and its ioctls.

// series: until tas-graph
use kernel::{
    drm::{
        self,
        gem::BaseObject,
        Registered, //
    },
    prelude::*,
    uapi, //
};

use crate::{
    driver::{
        TasDevice,
        TasDriver,
        MAX_BO_SIZE,
        UAPI_VERSION, //
    },
    gem::{
        self,
        Bo, //
    },
};
// series: end
// series: from tas-graph
use core::{
    mem::{
        size_of,
        MaybeUninit, //
    },
    slice, //
};

// series: until tas-dispatch
use kernel::{
    drm::{
        self,
        gem::BaseObject,
        sched::{
            Entity,
            Priority, //
        },
        Registered, //
    },
    new_condvar, new_mutex,
    prelude::*,
    sync::{
        atomic::Relaxed,
        Arc,
        CondVar,
        Mutex,
        UniqueArc, //
    },
    uaccess::{
        UserPtr,
        UserSlice, //
    },
    uapi,
};
// series: end
// series: from tas-dispatch
// series: until tas-classes
use kernel::{
    drm::{
        self,
        gem::BaseObject,
        sched::{
            Entity,
            Priority, //
        },
        Registered, //
    },
    new_condvar, new_mutex,
    prelude::*,
    sync::{
        atomic::{
            Acquire,
            Relaxed, //
        },
        Arc,
        CondVar,
        Mutex,
        UniqueArc, //
    },
    uaccess::{
        UserPtr,
        UserSlice, //
    },
    uapi,
};
// series: end
// series: from tas-classes
use kernel::{
    drm::{
        self,
        gem::BaseObject,
        sched::{
            graph::Class,
            Entity,
            Priority, //
        },
        Registered, //
    },
    // series: until tas-retire
    new_condvar, new_mutex,
    // series: end
    // series: from tas-retire
    // series: until tas-prepare-later
    new_condvar, new_mutex, new_work,
    // series: end
    // series: from tas-prepare-later
    new_condvar, new_delayed_work, new_mutex,
    // series: end
    // series: end
    prelude::*,
    sync::{
        atomic::{
            Acquire,
            Relaxed, //
        },
        Arc,
        CondVar,
        Mutex,
        UniqueArc, //
    },
    uaccess::{
        UserPtr,
        UserSlice, //
    },
    uapi,
    // series: from tas-retire
    workqueue::{
        // series: until tas-prepare-later
        impl_has_work,
        Queue,
        Work,
        WorkItem, //
        // series: end
        // series: from tas-prepare-later
        impl_has_delayed_work,
        DelayedWork,
        Queue,
        WorkItem, //
        // series: end
    },
    // series: end
};
// series: end
// series: end

// series: until tas-dispatch
use crate::{
    driver::{
        client_gfp,
        TasDevice,
        TasDriver,
        GRAPH_HISTORY,
        GRAPH_HISTORY_NODES,
        MAX_BO_SIZE,
        MAX_DURATION_NS,
        MAX_EDGES,
        MAX_NODES,
        MAX_NODES_IN_FLIGHT,
        MAX_SIGNALS,
        MAX_STRIDE,
        // series: from tas-templates
        MAX_TEMPLATE_NODES,
        // series: end
        MAX_WAITS,
        UAPI_VERSION, //
    },
    // series: until tas-templates
    engine::NodeJob,
    // series: end
    // series: from tas-templates
    engine::{
        now_ns,
        NodeJob, //
    },
    // series: end
    gem::{
        self,
        Bo, //
    },
    graph::{
        self,
        Blame,
        Entities,
        GraphRecord, //
    },
    // series: from tas-templates
    template::{
        Template,
        MAX_TEMPLATES, //
    },
    // series: end
};
// series: end
// series: from tas-dispatch
use crate::{
    dispatch::Dispatcher,
    driver::{
        client_gfp,
        TasDevice,
        TasDriver,
        GRAPH_HISTORY,
        GRAPH_HISTORY_NODES,
        MAX_BO_SIZE,
        MAX_DURATION_NS,
        MAX_EDGES,
        // series: from tas-keep
        MAX_KEPT,
        MAX_KEPT_NODES,
        // series: end
        MAX_NODES,
        MAX_NODES_IN_FLIGHT,
        MAX_SIGNALS,
        MAX_STRIDE,
        // series: from tas-templates
        MAX_TEMPLATE_NODES,
        // series: end
        MAX_WAITS,
        UAPI_VERSION, //
    },
    // series: until tas-templates
    engine::NodeJob,
    // series: end
    // series: from tas-templates
    engine::{
        now_ns,
        NodeJob, //
    },
    // series: end
    gem::{
        self,
        Bo, //
    },
    graph::{
        self,
        Blame,
        Entities,
        GraphRecord, //
    },
    // series: from tas-templates
    template::{
        Template,
        MAX_TEMPLATES, //
    },
    // series: end
};
// series: end
// series: end

// series: from tas-graph
/// Bit mask of the operations the engine supports (`DRM_TAS_PARAM_OPS`).
// series: until tas-ops
const OPS_MASK: u64 = 1 << uapi::drm_tas_op_DRM_TAS_OP_NOP;
// series: end
// series: from tas-ops
// series: until tas-host
const OPS_MASK: u64 = (1 << uapi::drm_tas_op_DRM_TAS_OP_NOP)
    | (1 << uapi::drm_tas_op_DRM_TAS_OP_FILL)
    | (1 << uapi::drm_tas_op_DRM_TAS_OP_COPY)
    | (1 << uapi::drm_tas_op_DRM_TAS_OP_ADD)
    | (1 << uapi::drm_tas_op_DRM_TAS_OP_MATMUL);
// series: end
// series: end
// series: from tas-host
const OPS_MASK: u64 = (1 << uapi::drm_tas_op_DRM_TAS_OP_NOP)
    | (1 << uapi::drm_tas_op_DRM_TAS_OP_FILL)
    | (1 << uapi::drm_tas_op_DRM_TAS_OP_COPY)
    | (1 << uapi::drm_tas_op_DRM_TAS_OP_ADD)
    | (1 << uapi::drm_tas_op_DRM_TAS_OP_MATMUL)
    | (1 << uapi::drm_tas_op_DRM_TAS_OP_HOST);
// series: end

/// The graphs a file submitted: the last [`GRAPH_HISTORY`] of them, of those only the latest
/// with at most [`GRAPH_HISTORY_NODES`] nodes together.
// series: from tas-keep
///
/// Graphs submitted with `DRM_TAS_SUBMIT_KEEP` are not part of that history: they stay in
/// `kept` until they are released, at most [`MAX_KEPT`] of them with [`MAX_KEPT_NODES`] nodes
/// together.
// series: end
struct Graphs {
    next_id: u64,
    // series: until tas-retire
    list: KVec<(u64, Arc<GraphRecord>)>,
    // series: end
    // series: from tas-retire
    list: KVec<(u64, Arc<HistoryEntry>)>,
    /// The device's workqueue for work off the fence signalling path, which drops the entries
    /// evicted from `list`.
    wq: &'static Queue,
    /// The nodes of the evicted entries not dropped yet.
    retiring: Arc<Retiring>,
    // series: end
    /// The nodes of the graphs in `list`.
    nodes: usize,
    // series: from tas-keep
    /// The graphs kept until they are released, at most [`MAX_KEPT`]; empty and without an
    /// allocation until the file keeps a graph.
    kept: KVec<(u64, Arc<GraphRecord>)>,
    /// The nodes of the graphs in `kept`.
    kept_nodes: usize,
    // series: end
}

// series: until tas-retire
/// Room for the record of a graph, allocated before its submission can have any effect.
type RecordRoom = UniqueArc<MaybeUninit<GraphRecord>>;
// series: end
// series: from tas-retire
/// A graph's record in the history of its file.
///
/// The record of a finished graph holds the last references to its nodes, so dropping it takes
/// time in the number of those nodes. A submission that evicts an entry from the history hands
/// it to the entry's own work item, which drops it: a submission or a launch costs the same
/// whatever it evicts, and nothing is dropped under the file's submission lock.
// series: from tas-prepare-later
///
/// The work item runs [`BG_DELAY`](crate::driver::BG_DELAY) after the eviction, when the
/// submission has returned, so that its worker does not compete with the submitting thread for
/// the CPU.
// series: end
#[pin_data]
struct HistoryEntry {
    record: Arc<GraphRecord>,
    retiring: Arc<Retiring>,
    #[pin]
    // series: until tas-prepare-later
    work: Work<HistoryEntry>,
    // series: end
    // series: from tas-prepare-later
    work: DelayedWork<HistoryEntry>,
    // series: end
}

// series: until tas-prepare-later
impl_has_work! {
    impl HasWork<Self> for HistoryEntry { self.work }
}
// series: end
// series: from tas-prepare-later
impl_has_delayed_work! {
    impl HasDelayedWork<Self> for HistoryEntry { self.work }
}
// series: end

impl WorkItem for HistoryEntry {
    type Pointer = Arc<HistoryEntry>;

    fn run(this: Arc<HistoryEntry>) {
        let nodes = this.record.nodes.len();
        let retiring = this.retiring.clone();
        drop(this);
        retiring.dropped(nodes);
    }
}

/// The nodes of the records that a file's submissions evicted from its history and that their
/// work items have not dropped yet.
///
/// Dropping a record takes longer than evicting it, so a client that submits large graphs
/// back to back would let them pile up without a bound; its submissions wait instead, before
/// they take anything, while more than [`GRAPH_HISTORY_NODES`] nodes are waiting to be
/// dropped.
#[pin_data]
struct Retiring {
    #[pin]
    nodes: Mutex<usize>,
    /// Notified when records are dropped.
    #[pin]
    dropped: CondVar,
}

impl Retiring {
    fn new() -> Result<Arc<Self>> {
        Arc::pin_init(
            pin_init!(Self {
                nodes <- new_mutex!(0),
                dropped <- new_condvar!("tas::Retiring::dropped"),
            }),
            client_gfp(),
        )
    }

    /// Waits interruptibly until at most [`GRAPH_HISTORY_NODES`] nodes of evicted records are
    /// waiting to be dropped.
    fn wait(&self) -> Result {
        let mut nodes = self.nodes.lock();
        while *nodes > GRAPH_HISTORY_NODES {
            if self.dropped.wait_interruptible(&mut nodes) {
                return Err(ERESTARTSYS);
            }
        }
        Ok(())
    }
    // series: from tas-prepare-later

    /// Waits until every evicted entry has been dropped: none of them is left waiting for its
    /// delay, whose timer would queue it on the device's workqueue after the file has gone.
    /// Every graph has a node, so no entry is left once no node is.
    fn wait_all(&self) {
        let mut nodes = self.nodes.lock();
        while *nodes > 0 {
            self.dropped.wait(&mut nodes);
        }
    }
    // series: end

    /// Counts `nodes` evicted nodes.
    fn evicted(&self, nodes: usize) {
        *self.nodes.lock() += nodes;
    }

    /// Counts `nodes` evicted nodes as dropped.
    fn dropped(&self, nodes: usize) {
        let mut pending = self.nodes.lock();
        *pending = pending.saturating_sub(nodes);
        drop(pending);
        self.dropped.notify_all();
    }
}

/// Room for the record of a graph and for its entry in the history, allocated before its
/// submission can have any effect.
struct RecordRoom {
    record: UniqueArc<MaybeUninit<GraphRecord>>,
    entry: UniqueArc<MaybeUninit<HistoryEntry>>,
}
// series: end

impl Graphs {
    /// Allocates the room for the record of the next graph.
    fn reserve() -> Result<RecordRoom> {
        // series: until tas-retire
        Ok(UniqueArc::new_uninit(client_gfp())?)
        // series: end
        // series: from tas-retire
        Ok(RecordRoom {
            record: UniqueArc::new_uninit(client_gfp())?,
            entry: UniqueArc::new_uninit(client_gfp())?,
        })
        // series: end
    }

    // series: from tas-keep
    /// Checks, before the point of no return, that a graph of `nodes` nodes (a count from
    /// userspace) can be kept until it is read, and makes room for its record in `kept`,
    /// which grows only for files that keep graphs. Only submissions add records, and a file's
    /// submissions hold its `submitting` lock until they have added theirs, so the room stays
    /// free until then (a release only makes more).
    fn check_keep(&mut self, nodes: u32) -> Result {
        let nodes = nodes as usize;
        if self.kept.len() >= MAX_KEPT || nodes > MAX_KEPT_NODES - self.kept_nodes {
            return Err(ENOSPC);
        }
        self.kept.reserve(1, client_gfp())?;
        Ok(())
    }

    /// The record of graph `id`, if the file still has it.
    fn find(&self, id: u64) -> Option<Arc<GraphRecord>> {
        // series: until tas-retire
        let is_id = |(i, _): &&(u64, Arc<GraphRecord>)| *i == id;
        let found = self.list.iter().find(is_id);
        found
            .or_else(|| self.kept.iter().find(is_id))
            .map(|(_, record)| record.clone())
        // series: end
        // series: from tas-retire
        let found = self.list.iter().find(|(i, _)| *i == id);
        let found = found.map(|(_, entry)| &entry.record);
        found
            .or_else(|| self.kept.iter().find(|(i, _)| *i == id).map(|(_, r)| r))
            .cloned()
        // series: end
    }

    /// Forgets the record of graph `id`.
    fn release(&mut self, id: u64) {
        if let Some(pos) = self.kept.iter().position(|(i, _)| *i == id) {
            if let Ok((_, record)) = self.kept.remove(pos) {
                self.kept_nodes -= record.nodes.len();
            }
        } else if let Some(pos) = self.list.iter().position(|(i, _)| *i == id) {
            // series: until tas-retire
            if let Ok((_, record)) = self.list.remove(pos) {
                self.nodes -= record.nodes.len();
            }
            // series: end
            // series: from tas-retire
            // Dropped here: the caller, `GRAPH_INFO`, holds a reference of the record and has
            // read all its nodes.
            if let Ok((_, entry)) = self.list.remove(pos) {
                self.nodes -= entry.record.nodes.len();
            }
            // series: end
        }
    }

    // series: end
    // series: until tas-keep
    /// Keeps `record`, in `room`, as the next graph; returns its id. Cannot fail: it
    /// runs after the point of no return of a submission.
    fn add(&mut self, room: RecordRoom, record: GraphRecord) -> u64 {
        let id = self.next_id;
        let nodes = record.nodes.len();
    // series: end
    // series: from tas-keep
    /// Keeps `record`, in `room`, as the next graph, in the history or, with `keep`, until it
    /// is released; returns its id. Cannot fail: it runs after the point of no return of a
    /// submission, which checked the room for a kept record with [`Graphs::check_keep`].
    fn add(&mut self, room: RecordRoom, record: GraphRecord, keep: bool) -> u64 {
        let id = self.next_id;
        let nodes = record.nodes.len();
        if keep {
            // Cannot fail: `check_keep()` made room under the same `submitting` lock.
            // series: until tas-retire
            if self
                .kept
                .push_within_capacity((id, room.write(record).into()))
                .is_ok()
            {
                self.kept_nodes += nodes;
            }
            // series: end
            // series: from tas-retire
            let record = room.record.write(record).into();
            if self.kept.push_within_capacity((id, record)).is_ok() {
                self.kept_nodes += nodes;
            }
            // series: end
            self.next_id = id.wrapping_add(1);
            return id;
        }
    // series: end
        // Makes room in the list, whose capacity is `GRAPH_HISTORY`, and keeps the records (which
        // hold their nodes' state, about 1 KiB each) within `GRAPH_HISTORY_NODES`.
        while self.list.len() == GRAPH_HISTORY
            || (!self.list.is_empty() && self.nodes + nodes > GRAPH_HISTORY_NODES)
        {
            let Ok((_, old)) = self.list.remove(0) else {
                break;
            };
            // series: until tas-retire
            self.nodes = self.nodes.saturating_sub(old.nodes.len());
            // series: end
            // series: from tas-retire
            let old_nodes = old.record.nodes.len();
            self.nodes = self.nodes.saturating_sub(old_nodes);
            self.retiring.evicted(old_nodes);
            // Fails only if the entry's work item is queued already, which it is once it has
            // left the list, and it leaves the list once.
            // series: until tas-prepare-later
            if let Err(old) = self.wq.enqueue(old) {
            // series: end
            // series: from tas-prepare-later
            if let Err(old) = self.wq.enqueue_delayed(old, crate::driver::BG_DELAY) {
            // series: end
                drop(old);
                self.retiring.dropped(old_nodes);
            }
            // series: end
        }
        self.nodes += nodes;
        // series: until tas-retire
        // Cannot fail, see above; if it did, only the record would be lost (`GRAPH_INFO` then
        // says `ENOENT`), not the graph.
        let _ = self
            .list
            .push_within_capacity((id, room.write(record).into()));
        // series: end
        // series: from tas-retire
        let retiring = self.retiring.clone();
        let Ok(entry) = room.entry.pin_init_with(pin_init!(HistoryEntry {
            record: room.record.write(record).into(),
            retiring,
            // series: until tas-prepare-later
            work <- new_work!("tas::HistoryEntry::work"),
            // series: end
            // series: from tas-prepare-later
            work <- new_delayed_work!("tas::HistoryEntry::work"),
            // series: end
        }));
        // Cannot fail, see above; if it did, only the record would be lost (`GRAPH_INFO` then
        // says `ENOENT`), not the graph.
        let _ = self.list.push_within_capacity((id, entry.into()));
        // series: end
        // A u64 counted up once per submission does not wrap.
        self.next_id = id.wrapping_add(1);
        id
    }
}

// series: from tas-templates
/// The templates of a file, at most [`MAX_TEMPLATES`] with at most [`MAX_TEMPLATE_NODES`]
/// nodes together.
struct Templates {
    next_handle: u32,
    list: KVec<(u32, Arc<Template>)>,
    /// The nodes of the templates in `list`.
    nodes: u64,
}

// series: end
/// The nodes of a file's graphs in flight, at most [`MAX_NODES_IN_FLIGHT`]: what bounds the
/// memory a file's submissions hold (besides its memory cgroup, which is charged for it).
#[pin_data]
pub(crate) struct Budget {
    #[pin]
    used: Mutex<u64>,
    /// Notified when nodes are given back.
    #[pin]
    freed: CondVar,
}

impl Budget {
    fn new() -> Result<Arc<Self>> {
        Arc::pin_init(
            pin_init!(Self {
                used <- new_mutex!(0),
                freed <- new_condvar!("tas::Budget::freed"),
            }),
            client_gfp(),
        )
    }

    /// Takes `nodes` (at most [`MAX_NODES`]) for a graph, waiting interruptibly until the
    /// file's graphs in flight leave room for them.
    fn charge(self: &Arc<Self>, nodes: u32) -> Result<Charge> {
        let want = u64::from(nodes).min(MAX_NODES);
        let mut used = self.used.lock();
        while *used + want > MAX_NODES_IN_FLIGHT {
            if self.freed.wait_interruptible(&mut used) {
                return Err(ERESTARTSYS);
            }
        }
        *used += want;
        Ok(Charge {
            budget: self.clone(),
            nodes: want,
        })
    }
}

// series: until tas-dispatch
/// Nodes taken from a file's [`Budget`] by a graph in flight, given back when dropped, by the
/// last job of the graph.
// series: end
// series: from tas-dispatch
/// Nodes taken from a file's [`Budget`] by a graph in flight, given back when dropped: by the
/// last job of a graph of the stock dispatch, or when the dispatcher drops a completed launch.
// series: end
///
/// The budget's lock is taken by nothing that holds another lock, so a charge may be dropped
/// under any sleeping lock of the driver.
pub(crate) struct Charge {
    budget: Arc<Budget>,
    nodes: u64,
}

impl Drop for Charge {
    fn drop(&mut self) {
        let mut used = self.budget.used.lock();
        *used = used.saturating_sub(self.nodes);
        drop(used);
        self.budget.freed.notify_all();
    }
}

// series: end
// series: until tas-graph
/// A client of the driver.
#[pin_data]
pub(crate) struct File {}
// series: end
// series: from tas-graph
// series: until tas-dispatch
/// A client of the driver: a scheduler entity per ring, and its graphs.
#[pin_data]
pub(crate) struct File {
    budget: Arc<Budget>,
    /// The entities of the rings.
    fifo_entities: KVec<Pin<KBox<Entity<NodeJob>>>>,
    graph_entity: Pin<KBox<Entity<NodeJob>>>,
    /// Serialises the file's submissions (and launches), so that graph ids and syncobj points
    /// follow submission order. Held while a submission checks its arrays and allocates per
    /// node, which `graphs` is not: GRAPH_INFO waits for no submission.
    #[pin]
    submitting: Mutex<()>,
    /// The records of the file's graphs, which GRAPH_INFO reads.
    #[pin]
    graphs: Mutex<Graphs>,
}
// series: end
// series: from tas-dispatch
/// A client of the driver: its dispatcher and the scheduler entities it releases nodes into, one
// series: until tas-templates
/// scheduler entity per ring for the stock dispatch, and its graphs.
// series: end
// series: from tas-templates
/// scheduler entity per ring for the stock dispatch, its graphs and templates.
// series: end
#[pin_data(PinnedDrop)]
pub(crate) struct File {
    disp: Arc<Dispatcher>,
    budget: Arc<Budget>,
    // series: from tas-retire
    retiring: Arc<Retiring>,
    // series: end
    // series: until tas-classes
    /// One per ring.
    // series: end
    // series: from tas-classes
    /// At `ring * Class::COUNT + class`, with the class's priority.
    // series: end
    entities: KVec<Arc<Entity<NodeJob>>>,
    /// Per ring, for `DRM_TAS_SUBMIT_FIFO` jobs, which wait for their dependencies in the
    /// entity: the dispatcher's entities only ever hold ready nodes.
    fifo_entities: KVec<Pin<KBox<Entity<NodeJob>>>>,
    graph_entity: Pin<KBox<Entity<NodeJob>>>,
    /// Serialises the file's submissions (and launches), so that graph ids and syncobj points
    /// follow submission order. Held while a submission checks its arrays and allocates per
    /// node, which `graphs` is not: GRAPH_INFO waits for no submission.
    #[pin]
    submitting: Mutex<()>,
    /// The records of the file's graphs, which GRAPH_INFO reads.
    #[pin]
    graphs: Mutex<Graphs>,
    // series: from tas-templates
    #[pin]
    templates: Mutex<Templates>,
    // series: end
}

#[pinned_drop]
impl PinnedDrop for File {
    fn drop(self: Pin<&mut Self>) {
        // Nodes not released yet are cancelled before the entities go, which cancels the
        // released ones still queued.
        self.disp.close();
        // series: from tas-templates
        // The templates' work items run driver code.
        for (_, template) in self.templates.lock().list.iter() {
            template.retire();
        }
        // series: end
        // series: from tas-prepare-later
        self.retiring.wait_all();
        // series: end
    }
}
// series: end
// series: end

impl drm::file::DriverFile for File {
    type Driver = TasDriver;

    // series: until tas-graph
    fn open(_dev: &TasDevice) -> Result<Pin<KBox<Self>>> {
        KBox::pin_init(pin_init!(Self {}), GFP_KERNEL)
    }
    // series: end
    // series: from tas-graph
    // series: until tas-dispatch
    fn open(dev: &TasDevice) -> Result<Pin<KBox<Self>>> {
        // Charged to the opener, who decides how many files there are.
        let flags = client_gfp();
        let mut fifo_entities = KVec::with_capacity(dev.rings.len(), flags)?;
        for ring in dev.rings.iter() {
            fifo_entities.push(
                KBox::pin_init(Entity::new(&ring.sched, Priority::Normal, flags), flags)?,
                flags,
            )?;
        }
        let graph_entity = KBox::pin_init(
            Entity::new(&dev.graph_ring.sched, Priority::Normal, flags),
            flags,
        )?;
        let list = KVec::with_capacity(GRAPH_HISTORY, flags)?;
        KBox::pin_init(
            try_pin_init!(Self {
                budget: Budget::new()?,
                fifo_entities,
                graph_entity,
                submitting <- new_mutex!(()),
                graphs <- new_mutex!(Graphs {
                    next_id: 1,
                    list,
                    nodes: 0,
                }),
            }? Error),
            flags,
        )
    }
    // series: end
    // series: from tas-dispatch
    fn open(dev: &TasDevice) -> Result<Pin<KBox<Self>>> {
        // Charged to the opener, who decides how many files there are.
        let flags = client_gfp();
        // series: until tas-classes
        let mut entities = KVec::with_capacity(dev.rings.len(), flags)?;
        // series: end
        // series: from tas-classes
        let classes = [Class::Latency, Class::Normal, Class::Batch];
        let mut entities = KVec::with_capacity(dev.rings.len() * classes.len(), flags)?;
        // series: end
        let mut fifo_entities = KVec::with_capacity(dev.rings.len(), flags)?;
        // series: from tas-early
        let mut early = KVec::with_capacity(
            dev.rings.len() * crate::dispatch::EARLY_CLASSES.len(),
            flags,
        )?;
        // series: end
        for ring in dev.rings.iter() {
            fifo_entities.push(
                KBox::pin_init(Entity::new(&ring.sched, Priority::Normal, flags), flags)?,
                flags,
            )?;
            // series: from tas-early
            // At `dispatch::early_index()`: drm_sched chooses an entity's run queue once, by
            // its priority, so each class has its own.
            for class in crate::dispatch::EARLY_CLASSES {
                early.push(
                    Arc::pin_init(Entity::new(&ring.sched, class.priority(), flags), flags)?,
                    flags,
                )?;
            }
            // series: end
            // series: until tas-classes
            entities.push(
                Arc::pin_init(Entity::new(&ring.sched, Priority::Normal, flags), flags)?,
                flags,
            )?;
            // series: end
            // series: from tas-classes
            for class in classes {
                entities.push(
                    Arc::pin_init(Entity::new(&ring.sched, class.priority(), flags), flags)?,
                    flags,
                )?;
            }
            // series: end
        }
        let graph_entity = KBox::pin_init(
            Entity::new(&dev.graph_ring.sched, Priority::Normal, flags),
            flags,
        )?;
        // series: from tas-retire
        let evicted = Retiring::new()?;
        // series: end
        let list = KVec::with_capacity(GRAPH_HISTORY, flags)?;
        // series: until tas-early
        KBox::pin_init(
        // series: end
        // series: from tas-early
        let file = KBox::pin_init(
        // series: end
            try_pin_init!(Self {
                // series: until tas-gangs
                disp: Dispatcher::new(dev.num_rings, dev.signal_wq)?,
                // series: end
                // series: from tas-gangs
                // series: until tas-host
                disp: Dispatcher::new(dev.num_rings, &dev.gate, dev.signal_wq)?,
                // series: end
                // series: end
                // series: from tas-host
                disp: Dispatcher::new(
                    dev.num_rings,
                    &dev.gate,
                    dev.signal_wq,
                    u64::from(dev.host_timeout_ms) * 1_000_000,
                )?,
                // series: end
                budget: Budget::new()?,
                // series: from tas-retire
                retiring: evicted.clone(),
                // series: end
                entities,
                fifo_entities,
                graph_entity,
                submitting <- new_mutex!(()),
                graphs <- new_mutex!(Graphs {
                    next_id: 1,
                    list,
                    // series: from tas-retire
                    wq: dev.bg_wq,
                    retiring: evicted,
                    // series: end
                    nodes: 0,
                    // series: from tas-keep
                    kept: KVec::new(),
                    kept_nodes: 0,
                    // series: end
                }),
                // series: from tas-templates
                templates <- new_mutex!(Templates {
                    next_handle: 1,
                    list: KVec::with_capacity(MAX_TEMPLATES, flags)?,
                    nodes: 0,
                }),
                // series: end
            }? Error),
            flags,
        // series: until tas-early
        )
        // series: end
        // series: from tas-early
        )?;
        file.disp.set_early_entities(early);
        Ok(file)
        // series: end
    }
    // series: end
    // series: end
}

impl File {
    /// IOCTL: get_param: Query a parameter of the driver or of the virtual device.
    pub(crate) fn get_param(
        // series: until tas-graph
        _dev: &TasDevice<Registered>,
        // series: end
        // series: from tas-graph
        dev: &TasDevice<Registered>,
        // series: end
        _reg_data: &(),
        args: &mut uapi::drm_tas_get_param,
        _file: &drm::File<File>,
    ) -> Result<u32> {
        if args.pad != 0 {
            return Err(EINVAL);
        }

        args.value = match args.param {
            uapi::drm_tas_param_DRM_TAS_PARAM_VERSION => UAPI_VERSION,
            uapi::drm_tas_param_DRM_TAS_PARAM_MAX_BO_SIZE => MAX_BO_SIZE,
            // series: from tas-graph
            uapi::drm_tas_param_DRM_TAS_PARAM_NUM_RINGS => dev.num_rings.into(),
            uapi::drm_tas_param_DRM_TAS_PARAM_MAX_NODES => MAX_NODES,
            uapi::drm_tas_param_DRM_TAS_PARAM_MAX_EDGES => MAX_EDGES,
            uapi::drm_tas_param_DRM_TAS_PARAM_MAX_WAITS => MAX_WAITS,
            uapi::drm_tas_param_DRM_TAS_PARAM_MAX_SIGNALS => MAX_SIGNALS,
            uapi::drm_tas_param_DRM_TAS_PARAM_OPS => OPS_MASK,
            uapi::drm_tas_param_DRM_TAS_PARAM_MAX_DURATION_NS => MAX_DURATION_NS,
            uapi::drm_tas_param_DRM_TAS_PARAM_JOB_TIMEOUT_NS => {
                u64::from(dev.job_timeout_ms) * 1_000_000
            }
            uapi::drm_tas_param_DRM_TAS_PARAM_RING_DEPTH => dev.ring_depth.into(),
            uapi::drm_tas_param_DRM_TAS_PARAM_MAX_STRIDE => MAX_STRIDE.into(),
            uapi::drm_tas_param_DRM_TAS_PARAM_MAX_NODES_IN_FLIGHT => MAX_NODES_IN_FLIGHT,
            // series: end
            // series: from tas-templates
            uapi::drm_tas_param_DRM_TAS_PARAM_MAX_TEMPLATE_NODES => MAX_TEMPLATE_NODES,
            // series: from tas-keep
            uapi::drm_tas_param_DRM_TAS_PARAM_MAX_KEPT_NODES => MAX_KEPT_NODES as u64,
            uapi::drm_tas_param_DRM_TAS_PARAM_MAX_KEPT_GRAPHS => MAX_KEPT as u64,
            // series: end
            // series: from tas-host
            uapi::drm_tas_param_DRM_TAS_PARAM_HOST_TIMEOUT_NS => {
                u64::from(dev.host_timeout_ms) * 1_000_000
            }
            // series: end
            // series: end
            _ => return Err(EINVAL),
        };

        Ok(0)
    }

    /// IOCTL: bo_create: Create a zeroed shmem buffer object.
    pub(crate) fn bo_create(
        dev: &TasDevice<Registered>,
        _reg_data: &(),
        args: &mut uapi::drm_tas_bo_create,
        file: &drm::File<File>,
    ) -> Result<u32> {
        if args.flags != 0 || args.size == 0 || args.size > MAX_BO_SIZE {
            return Err(EINVAL);
        }
        let size = usize::try_from(args.size).map_err(|_| EINVAL)?;
        let bo = gem::create(dev, size)?;
        args.handle = bo.create_handle(file)?;
        Ok(0)
    }

    /// IOCTL: bo_mmap_offset: Get the offset to mmap() a buffer object.
    pub(crate) fn bo_mmap_offset(
        _dev: &TasDevice<Registered>,
        _reg_data: &(),
        args: &mut uapi::drm_tas_bo_mmap_offset,
        file: &drm::File<File>,
    ) -> Result<u32> {
        if args.pad != 0 {
            return Err(EINVAL);
        }
        let bo = Bo::lookup_handle(file, args.handle)?;
        args.offset = bo.create_mmap_offset()?;
        Ok(0)
    }
    // series: from tas-graph

    /// IOCTL: submit_graph: Validate a dependency graph and queue its nodes; on error, say
    /// which element of its arrays is at fault, if one is.
    pub(crate) fn submit_graph(
        dev: &TasDevice<Registered>,
        _reg_data: &(),
        args: &mut uapi::drm_tas_submit_graph,
        file: &drm::File<File>,
    ) -> Result<u32> {
        let mut blame = Blame::default();
        let ret = Self::submit_graph_blamed(dev, args, file, &mut blame);
        args.error_array = blame.array;
        args.error_index = blame.index;
        ret
    }

    fn submit_graph_blamed(
        dev: &TasDevice<Registered>,
        args: &mut uapi::drm_tas_submit_graph,
        file: &drm::File<File>,
        blame: &mut Blame,
    ) -> Result<u32> {
        let this = file.inner();
        // series: until tas-dispatch
        // Room for the nodes, waited for before the file's submission lock: the file's other
        // submissions may be what frees it. The node count is checked later; a count above the
        // limit fails there.
        let charge = Arc::new(this.budget.charge(args.nodes.count)?, client_gfp())?;
        let _submitting = this.submitting.lock();
        let entities = Entities {
            fifo: &this.fifo_entities,
            graph: &this.graph_entity,
        };
        let room = Graphs::reserve()?;
        let record = graph::submit(dev, file, &entities, args, charge, blame)?;
        // series: end
        // series: from tas-dispatch
        // series: from tas-retire
        // First, the records that the file's earlier submissions evicted are dropped down to
        // the bound of `Retiring`.
        this.retiring.wait()?;
        // series: end
        // Room for the nodes, then a launch slot of the dispatcher, waited for before the
        // file's submission lock: the file's other submissions may be what frees them. The
        // node count is checked later; a count above the limit fails there.
        let charge = this.budget.charge(args.nodes.count)?;
        // series: until tas-host
        let (launch, charge) = if args.flags & uapi::DRM_TAS_SUBMIT_FIFO == 0 {
        // series: end
        // series: from tas-host
        let (mut launch, charge) = if args.flags & uapi::DRM_TAS_SUBMIT_FIFO == 0 {
        // series: end
            (Some(this.disp.reserve(charge)?), None)
        } else {
            (None, Some(Arc::new(charge, client_gfp())?))
        };
        let _submitting = this.submitting.lock();
        let entities = Entities {
            nodes: &this.entities,
            fifo: &this.fifo_entities,
            graph: &this.graph_entity,
        };
        // series: from tas-keep
        let keep = args.flags & uapi::DRM_TAS_SUBMIT_KEEP != 0;
        // Unknown flags fail with `EINVAL` in the checks, also on a file without room.
        if keep && args.flags & !(uapi::DRM_TAS_SUBMIT_FIFO | uapi::DRM_TAS_SUBMIT_KEEP) == 0 {
            // A count above the per-graph limit fails with `E2BIG` in the checks instead.
            let count = Some(args.nodes.count).filter(|&n| u64::from(n) <= MAX_NODES);
            // Only submissions, which `submitting` serialises, fill the room it checks.
            this.graphs.lock().check_keep(count.unwrap_or(0))?;
        }
        // series: end
        let room = Graphs::reserve()?;
        // series: from tas-host
        // The id `graphs.add()` gives the graph: only submissions, which `submitting`
        // serialises, add.
        if let Some(launch) = &mut launch {
            launch.set_id(this.graphs.lock().next_id);
        }
        // series: end
        let record = graph::submit(
            dev, file, &entities, &this.disp, args, launch, charge, blame,
        )?;
        // series: end
        // Past the point of no return: nothing fails any more.
        // series: until tas-keep
        args.graph_id = this.graphs.lock().add(room, record);
        // series: end
        // series: from tas-keep
        args.graph_id = this.graphs.lock().add(room, record, keep);
        // series: end
        Ok(0)
    }

    // series: end
    // series: from tas-templates
    /// IOCTL: template_create: Validate a graph once and keep it for launches; on error, say
    /// which node or edge is at fault, if one is.
    pub(crate) fn template_create(
        dev: &TasDevice<Registered>,
        _reg_data: &(),
        args: &mut uapi::drm_tas_template_create,
        file: &drm::File<File>,
    ) -> Result<u32> {
        let mut blame = Blame::default();
        let ret = Self::template_create_blamed(dev, args, file, &mut blame);
        args.error_array = blame.array;
        args.error_index = blame.index;
        ret
    }

    fn template_create_blamed(
        dev: &TasDevice<Registered>,
        args: &mut uapi::drm_tas_template_create,
        file: &drm::File<File>,
        blame: &mut Blame,
    ) -> Result<u32> {
        // series: until tas-bind
        if args.extensions != 0 || args.flags != 0 {
            return Err(EINVAL);
        }
        // series: end
        // series: from tas-bind
        if args.extensions != 0 || args.flags != 0 || args.pad != 0 {
            return Err(EINVAL);
        }
        // series: end
        let this = file.inner();
        let fits = |t: &Templates, nodes: u64| {
            t.list.len() < MAX_TEMPLATES && t.nodes + nodes <= MAX_TEMPLATE_NODES
        };
        // Refused early if it cannot fit; a count above the per-graph limit fails with `E2BIG`
        // in the checks instead.
        let count = Some(u64::from(args.nodes.count)).filter(|&n| n <= MAX_NODES);
        if !fits(&this.templates.lock(), count.unwrap_or(0)) {
            return Err(ENOSPC);
        }
        let checked = graph::check_graph(dev, file, &args.nodes, &args.edges, blame)?;
        checked.check_classes(blame)?;
        let template = Template::new(checked, &dev.rings, &this.entities, &this.disp, dev.bg_wq)?;
        // series: from tas-bind
        let slots = template.slots();
        // series: end
        let nodes = template.len() as u64;
        let mut templates = this.templates.lock();
        if !fits(&templates, nodes) {
            drop(templates);
            template.retire();
            return Err(ENOSPC);
        }
        let handle = templates.next_handle;
        templates.next_handle = templates.next_handle.checked_add(1).ok_or(ENOSPC)?;
        templates
            .list
            .push_within_capacity((handle, template))
            .map_err(|_| ENOSPC)?;
        templates.nodes += nodes;
        args.handle = handle;
        // series: from tas-bind
        args.slots = slots;
        // series: end
        Ok(0)
    }

    /// IOCTL: template_launch: Run a template as a new graph; on error, say which wait or
    /// signal is at fault, if one is.
    pub(crate) fn template_launch(
        // series: until tas-bind
        _dev: &TasDevice<Registered>,
        // series: end
        // series: from tas-bind
        dev: &TasDevice<Registered>,
        // series: end
        _reg_data: &(),
        args: &mut uapi::drm_tas_template_launch,
        file: &drm::File<File>,
    ) -> Result<u32> {
        let mut blame = Blame::default();
        // series: until tas-bind
        let ret = Self::template_launch_blamed(args, file, &mut blame);
        // series: end
        // series: from tas-bind
        let ret = Self::template_launch_blamed(dev, args, file, &mut blame);
        // series: end
        args.error_array = blame.array;
        args.error_index = blame.index;
        ret
    }

    fn template_launch_blamed(
        // series: from tas-bind
        dev: &TasDevice<Registered>,
        // series: end
        args: &mut uapi::drm_tas_template_launch,
        file: &drm::File<File>,
        blame: &mut Blame,
    ) -> Result<u32> {
        // series: until tas-keep
        if args.flags != 0 {
            return Err(EINVAL);
        }
        // series: end
        // series: from tas-keep
        // series: until tas-bind
        if args.flags & !uapi::DRM_TAS_SUBMIT_KEEP != 0 {
            return Err(EINVAL);
        }
        // series: end
        // series: end
        // series: from tas-bind
        if args.flags & !(uapi::DRM_TAS_SUBMIT_KEEP | uapi::DRM_TAS_LAUNCH_BINDS) != 0 {
            return Err(EINVAL);
        }
        // Binds only with the flag, which an older kernel rejects instead of ignoring the binds.
        let no_binds = args.binds.ptr == 0 && args.binds.count == 0 && args.binds.stride == 0;
        if args.flags & uapi::DRM_TAS_LAUNCH_BINDS == 0 && !no_binds {
            return Err(EINVAL);
        }
        // series: end
        // series: from tas-keep
        let keep = args.flags & uapi::DRM_TAS_SUBMIT_KEEP != 0;
        // series: end
        let this = file.inner();
        // series: until tas-bind
        // As for `submit_graph`.
        let nodes = {
            let templates = this.templates.lock();
            let found = templates.list.iter().find(|(h, _)| *h == args.handle);
            found.map(|(_, t)| t.len() as u32).ok_or(ENOENT)?
        };
        // series: end
        // series: from tas-bind
        // As for `submit_graph`; the binds' buffers are looked up and mapped before anything is
        // reserved, and without a lock held. Handles are never reused, so the template found
        // again below is this one, or none.
        let (nodes, binds) = {
            let template = {
                let templates = this.templates.lock();
                let found = templates.list.iter().find(|(h, _)| *h == args.handle);
                found.map(|(_, t)| t.clone()).ok_or(ENOENT)?
            };
            let binds = graph::check_binds(dev, file, &args.binds, template.extents(), blame)?;
            (template.len() as u32, binds)
        };
        // series: end
        // series: from tas-retire
        this.retiring.wait()?;
        // series: end
        // series: until tas-host
        let launch = this.disp.reserve(this.budget.charge(nodes)?)?;
        let _submitting = this.submitting.lock();
        // series: end
        // series: from tas-host
        let mut launch = this.disp.reserve(this.budget.charge(nodes)?)?;
        let _submitting = this.submitting.lock();
        // The id `graphs.add()` gives the graph: only submissions, which `submitting`
        // serialises, add.
        launch.set_id(this.graphs.lock().next_id);
        // series: end
        // Held while an instance is taken, so that a destroyed template's work item is idle
        // once its destroy has flushed it.
        let templates = this.templates.lock();
        let template = templates
            .list
            .iter()
            .find(|(h, _)| *h == args.handle)
            .map(|(_, t)| t.clone())
            .ok_or(ENOENT)?;
        // series: until tas-host
        let syncs = graph::check_syncs(file, &args.waits, &args.signals, template.len(), blame)?;
        // series: end
        // series: from tas-host
        let syncs = graph::check_syncs(file, &args.waits, &args.signals, template.plan(), blame)?;
        // series: end
        // series: from tas-keep
        if keep {
            this.graphs.lock().check_keep(nodes)?;
        }
        // series: end
        let room = Graphs::reserve()?;
        // series: until tas-bind
        let (inst, mut record) = template.take()?;
        // series: end
        // series: from tas-bind
        let (inst, mut record) = template.take(binds)?;
        // series: end
        drop(templates);
        record.queued_ns = now_ns();
        let (node_fences, graph_fence) =
            graph::launch(&this.disp, launch, template.plan().clone(), inst, &syncs)?;
        // Point of no return: nothing below fails.
        graph::install_signals(syncs.signals, &node_fences, graph_fence.as_ref());
        // series: until tas-keep
        args.graph_id = this.graphs.lock().add(room, record);
        // series: end
        // series: from tas-keep
        args.graph_id = this.graphs.lock().add(room, record, keep);
        // series: end
        Ok(0)
    }

    /// IOCTL: template_destroy: Destroy a template; its launches in flight complete.
    pub(crate) fn template_destroy(
        _dev: &TasDevice<Registered>,
        _reg_data: &(),
        args: &mut uapi::drm_tas_template_destroy,
        file: &drm::File<File>,
    ) -> Result<u32> {
        if args.pad != 0 {
            return Err(EINVAL);
        }
        let this = file.inner();
        let template = {
            let mut templates = this.templates.lock();
            let pos = templates
                .list
                .iter()
                .position(|(h, _)| *h == args.handle)
                .ok_or(ENOENT)?;
            let template = templates.list.remove(pos).map_err(|_| ENOENT)?.1;
            templates.nodes = templates.nodes.saturating_sub(template.len() as u64);
            template
        };
        template.retire();
        Ok(0)
    }

    // series: end
    // series: from tas-graph
    /// IOCTL: graph_info: Read the per-node timestamps and errors of a graph.
    pub(crate) fn graph_info(
        _dev: &TasDevice<Registered>,
        _reg_data: &(),
        args: &mut uapi::drm_tas_graph_info,
        file: &drm::File<File>,
    ) -> Result<u32> {
        // series: until tas-keep
        if args.flags != 0 {
            return Err(EINVAL);
        }
        let this = file.inner();
        let record = {
            let graphs = this.graphs.lock();
            let found = graphs.list.iter().find(|(id, _)| *id == args.graph_id);
            found.map(|(_, record)| record.clone()).ok_or(ENOENT)?
        };
        // series: end
        // series: from tas-keep
        if args.flags & !uapi::DRM_TAS_GRAPH_INFO_RELEASE != 0 {
            return Err(EINVAL);
        }
        let this = file.inner();
        let record = this.graphs.lock().find(args.graph_id).ok_or(ENOENT)?;
        // series: end
        let info_size = size_of::<uapi::drm_tas_node_info>();
        if args.nodes.count as usize != record.nodes.len()
            || (args.nodes.stride as usize) < info_size
            || args.nodes.stride > MAX_STRIDE
        {
            return Err(EINVAL);
        }
        let base = usize::try_from(args.nodes.ptr).map_err(|_| EFAULT)?;
        let mut done = 1;
        for (i, node) in record.nodes.iter().enumerate() {
            // series: until tas-dispatch
            let finished_ns = node.finished.timestamp().unwrap_or(0);
            let error = node.finished.error().map_or(0, |e| e.to_errno());
            // series: end
            // series: from tas-dispatch
            let (finished_ns, error) = match &node.finished {
                Some(fence) => (
                    fence.timestamp().unwrap_or(0),
                    fence.error().map_or(0, |e| e.to_errno()),
                ),
                None => (
                    node.exec.finished_ns.load(Acquire),
                    node.exec.error.load(Relaxed),
                ),
            };
            // series: end
            if finished_ns == 0 {
                done = 0;
            }
            let info = uapi::drm_tas_node_info {
                queued_ns: record.queued_ns,
                ready_ns: node.exec.ready_ns.load(Relaxed),
                started_ns: node.exec.started_ns.load(Relaxed),
                finished_ns,
                error,
                ring: node.exec.ring,
                tag: node.tag,
            };
            // SAFETY: `drm_tas_node_info` is a plain structure of integers without padding.
            let bytes = unsafe {
                slice::from_raw_parts(core::ptr::from_ref(&info).cast::<u8>(), info_size)
            };
            let addr = i
                .checked_mul(args.nodes.stride as usize)
                .and_then(|off| base.checked_add(off))
                .ok_or(EFAULT)?;
            UserSlice::new(UserPtr::from_addr(addr), info_size)
                .writer()
                .write_slice(bytes)?;
        }
        args.done = done;
        // series: from tas-keep
        // Forgotten only once read completely and done: a failed read or a running graph keeps
        // its record.
        if done == 1 && args.flags & uapi::DRM_TAS_GRAPH_INFO_RELEASE != 0 {
            this.graphs.lock().release(args.graph_id);
        }
        // series: end
        Ok(0)
    }
    // series: end
    // series: from tas-host

    /// IOCTL: host_done: Report the completion of a host node of a graph in flight.
    pub(crate) fn host_done(
        _dev: &TasDevice<Registered>,
        _reg_data: &(),
        args: &mut uapi::drm_tas_host_done,
        file: &drm::File<File>,
    ) -> Result<u32> {
        // The errnos userspace knows: the kernel's own from `ERESTARTSYS` (512) on must not
        // reach a fence, whose error other drivers may return from their ioctls.
        const MAX_USER_ERRNO: i32 = 511;
        if args.flags != 0 || args.pad != 0 {
            return Err(EINVAL);
        }
        let error = match args.error {
            0 => None,
            e if (-MAX_USER_ERRNO..0).contains(&e) => Some(Error::from_errno(e)),
            _ => return Err(EINVAL),
        };
        file.inner()
            .disp
            .host_done(args.graph_id, args.node, error)?;
        Ok(0)
    }
    // series: end
}
