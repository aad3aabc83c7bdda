// SPDX-License-Identifier: GPL-2.0

//! DRM file (client) of the TAS driver and its ioctls.

use core::{
    mem::{
        size_of,
        MaybeUninit, //
    },
    slice, //
};

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
    new_condvar, new_delayed_work, new_mutex,
    prelude::*,
    sync::{
        aref::ARef,
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
    workqueue::{
        impl_has_delayed_work,
        DelayedWork,
        Queue,
        WorkItem, //
    },
};

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
        MAX_KEPT,
        MAX_KEPT_NODES,
        MAX_NODES,
        MAX_NODES_IN_FLIGHT,
        MAX_SIGNALS,
        MAX_STRIDE,
        MAX_TEMPLATE_NODES,
        MAX_WAITS,
        UAPI_VERSION, //
    },
    engine::{
        now_ns,
        NodeJob, //
    },
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
    template::{
        Template,
        MAX_TEMPLATES, //
    },
};

/// Bit mask of the operations the engine supports (`DRM_TAS_PARAM_OPS`).
const OPS_MASK: u64 = (1 << uapi::drm_tas_op_DRM_TAS_OP_NOP)
    | (1 << uapi::drm_tas_op_DRM_TAS_OP_FILL)
    | (1 << uapi::drm_tas_op_DRM_TAS_OP_COPY)
    | (1 << uapi::drm_tas_op_DRM_TAS_OP_ADD)
    | (1 << uapi::drm_tas_op_DRM_TAS_OP_MATMUL)
    | (1 << uapi::drm_tas_op_DRM_TAS_OP_HOST);

/// The graphs a file submitted: the last [`GRAPH_HISTORY`] of them, of those only the latest
/// with at most [`GRAPH_HISTORY_NODES`] nodes together.
///
/// Graphs submitted with `DRM_TAS_SUBMIT_KEEP` are not part of that history: they stay in
/// `kept` until they are released, at most [`MAX_KEPT`] of them with [`MAX_KEPT_NODES`] nodes
/// together.
struct Graphs {
    next_id: u64,
    list: KVec<(u64, Arc<HistoryEntry>)>,
    /// The device's workqueue for work off the fence signalling path, which drops the entries
    /// evicted from `list`.
    wq: &'static Queue,
    /// The nodes of the evicted entries not dropped yet.
    retiring: Arc<Retiring>,
    /// The nodes of the graphs in `list`.
    nodes: usize,
    /// The graphs kept until they are released, at most [`MAX_KEPT`]; empty and without an
    /// allocation until the file keeps a graph.
    kept: KVec<(u64, Arc<GraphRecord>)>,
    /// The nodes of the graphs in `kept`.
    kept_nodes: usize,
}

/// A graph's record in the history of its file.
///
/// The record of a finished graph holds the last references to its nodes, so dropping it takes
/// time in the number of those nodes. A submission that evicts an entry from the history hands
/// it to the entry's own work item, which drops it: a submission or a launch costs the same
/// whatever it evicts, and nothing is dropped under the file's submission lock.
///
/// The work item runs [`BG_DELAY`](crate::driver::BG_DELAY) after the eviction, when the
/// submission has returned, so that its worker does not compete with the submitting thread for
/// the CPU.
#[pin_data]
struct HistoryEntry {
    record: Arc<GraphRecord>,
    retiring: Arc<Retiring>,
    #[pin]
    work: DelayedWork<HistoryEntry>,
}

impl_has_delayed_work! {
    impl HasDelayedWork<Self> for HistoryEntry { self.work }
}

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

    /// Waits until every evicted entry has been dropped: none of them is left waiting for its
    /// delay, whose timer would queue it on the device's workqueue after the file has gone.
    /// Every graph has a node, so no entry is left once no node is.
    fn wait_all(&self) {
        let mut nodes = self.nodes.lock();
        while *nodes > 0 {
            self.dropped.wait(&mut nodes);
        }
    }

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

impl Graphs {
    /// Allocates the room for the record of the next graph.
    fn reserve() -> Result<RecordRoom> {
        Ok(RecordRoom {
            record: UniqueArc::new_uninit(client_gfp())?,
            entry: UniqueArc::new_uninit(client_gfp())?,
        })
    }

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
        let found = self.list.iter().find(|(i, _)| *i == id);
        let found = found.map(|(_, entry)| &entry.record);
        found
            .or_else(|| self.kept.iter().find(|(i, _)| *i == id).map(|(_, r)| r))
            .cloned()
    }

    /// Forgets the record of graph `id`.
    fn release(&mut self, id: u64) {
        if let Some(pos) = self.kept.iter().position(|(i, _)| *i == id) {
            if let Ok((_, record)) = self.kept.remove(pos) {
                self.kept_nodes -= record.nodes.len();
            }
        } else if let Some(pos) = self.list.iter().position(|(i, _)| *i == id) {
            // Dropped here: the caller, `GRAPH_INFO`, holds a reference of the record and has
            // read all its nodes.
            if let Ok((_, entry)) = self.list.remove(pos) {
                self.nodes -= entry.record.nodes.len();
            }
        }
    }

    /// Keeps `record`, in `room`, as the next graph, in the history or, with `keep`, until it
    /// is released; returns its id. Cannot fail: it runs after the point of no return of a
    /// submission, which checked the room for a kept record with [`Graphs::check_keep`].
    fn add(&mut self, room: RecordRoom, record: GraphRecord, keep: bool) -> u64 {
        let id = self.next_id;
        let nodes = record.nodes.len();
        if keep {
            // Cannot fail: `check_keep()` made room under the same `submitting` lock.
            let record = room.record.write(record).into();
            if self.kept.push_within_capacity((id, record)).is_ok() {
                self.kept_nodes += nodes;
            }
            self.next_id = id.wrapping_add(1);
            return id;
        }
        // Makes room in the list, whose capacity is `GRAPH_HISTORY`, and keeps the records (which
        // hold their nodes' state, about 1 KiB each) within `GRAPH_HISTORY_NODES`.
        while self.list.len() == GRAPH_HISTORY
            || (!self.list.is_empty() && self.nodes + nodes > GRAPH_HISTORY_NODES)
        {
            let Ok((_, old)) = self.list.remove(0) else {
                break;
            };
            let old_nodes = old.record.nodes.len();
            self.nodes = self.nodes.saturating_sub(old_nodes);
            self.retiring.evicted(old_nodes);
            // Fails only if the entry's work item is queued already, which it is once it has
            // left the list, and it leaves the list once.
            if let Err(old) = self.wq.enqueue_delayed(old, crate::driver::BG_DELAY) {
                drop(old);
                self.retiring.dropped(old_nodes);
            }
        }
        self.nodes += nodes;
        let retiring = self.retiring.clone();
        let Ok(entry) = room.entry.pin_init_with(pin_init!(HistoryEntry {
            record: room.record.write(record).into(),
            retiring,
            work <- new_delayed_work!("tas::HistoryEntry::work"),
        }));
        // Cannot fail, see above; if it did, only the record would be lost (`GRAPH_INFO` then
        // says `ENOENT`), not the graph.
        let _ = self.list.push_within_capacity((id, entry.into()));
        // A u64 counted up once per submission does not wrap.
        self.next_id = id.wrapping_add(1);
        id
    }
}

/// The templates of a file, at most [`MAX_TEMPLATES`] with at most [`MAX_TEMPLATE_NODES`]
/// nodes together.
struct Templates {
    next_handle: u32,
    list: KVec<(u32, Arc<Template>)>,
    /// The nodes of the templates in `list`.
    nodes: u64,
}

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

/// Nodes taken from a file's [`Budget`] by a graph in flight, given back when dropped: by the
/// last job of a graph of the stock dispatch, or when the dispatcher drops a completed launch.
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

/// A client of the driver: its dispatcher and the scheduler entities it releases nodes into, one
/// scheduler entity per ring for the stock dispatch, its graphs and templates.
#[pin_data(PinnedDrop)]
pub(crate) struct File {
    disp: Arc<Dispatcher>,
    budget: Arc<Budget>,
    retiring: Arc<Retiring>,
    /// At `ring * Class::COUNT + class`, with the class's priority.
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
    #[pin]
    templates: Mutex<Templates>,
}

#[pinned_drop]
impl PinnedDrop for File {
    fn drop(self: Pin<&mut Self>) {
        // Nodes not released yet are cancelled before the entities go, which cancels the
        // released ones still queued.
        self.disp.close();
        // The templates' work items run driver code.
        for (_, template) in self.templates.lock().list.iter() {
            template.retire();
        }
        self.retiring.wait_all();
    }
}

impl drm::file::DriverFile for File {
    type Driver = TasDriver;

    fn open(dev: &TasDevice) -> Result<Pin<KBox<Self>>> {
        // Charged to the opener, who decides how many files there are.
        let flags = client_gfp();
        let classes = [Class::Latency, Class::Normal, Class::Batch];
        let mut entities = KVec::with_capacity(dev.rings.len() * classes.len(), flags)?;
        let mut fifo_entities = KVec::with_capacity(dev.rings.len(), flags)?;
        let mut early = KVec::with_capacity(
            dev.rings.len() * crate::dispatch::EARLY_CLASSES.len(),
            flags,
        )?;
        for ring in dev.rings.iter() {
            fifo_entities.push(
                KBox::pin_init(Entity::new(&ring.sched, Priority::Normal, flags), flags)?,
                flags,
            )?;
            // At `dispatch::early_index()`: drm_sched chooses an entity's run queue once, by
            // its priority, so each class has its own.
            for class in crate::dispatch::EARLY_CLASSES {
                early.push(
                    Arc::pin_init(Entity::new(&ring.sched, class.priority(), flags), flags)?,
                    flags,
                )?;
            }
            for class in classes {
                entities.push(
                    Arc::pin_init(Entity::new(&ring.sched, class.priority(), flags), flags)?,
                    flags,
                )?;
            }
        }
        let graph_entity = KBox::pin_init(
            Entity::new(&dev.graph_ring.sched, Priority::Normal, flags),
            flags,
        )?;
        let evicted = Retiring::new()?;
        let list = KVec::with_capacity(GRAPH_HISTORY, flags)?;
        let file = KBox::pin_init(
            try_pin_init!(Self {
                disp: Dispatcher::new(
                    dev.num_rings,
                    &dev.gate,
                    dev.signal_wq,
                    u64::from(dev.host_timeout_ms) * 1_000_000,
                )?,
                budget: Budget::new()?,
                retiring: evicted.clone(),
                entities,
                fifo_entities,
                graph_entity,
                submitting <- new_mutex!(()),
                graphs <- new_mutex!(Graphs {
                    next_id: 1,
                    list,
                    wq: dev.bg_wq,
                    retiring: evicted,
                    nodes: 0,
                    kept: KVec::new(),
                    kept_nodes: 0,
                }),
                templates <- new_mutex!(Templates {
                    next_handle: 1,
                    list: KVec::with_capacity(MAX_TEMPLATES, flags)?,
                    nodes: 0,
                }),
            }? Error),
            flags,
        )?;
        file.disp.set_early_entities(early);
        Ok(file)
    }
}

impl File {
    /// IOCTL: get_param: Query a parameter of the driver or of the virtual device.
    pub(crate) fn get_param(
        dev: &TasDevice<Registered>,
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
            uapi::drm_tas_param_DRM_TAS_PARAM_MAX_TEMPLATE_NODES => MAX_TEMPLATE_NODES,
            uapi::drm_tas_param_DRM_TAS_PARAM_MAX_KEPT_NODES => MAX_KEPT_NODES as u64,
            uapi::drm_tas_param_DRM_TAS_PARAM_MAX_KEPT_GRAPHS => MAX_KEPT as u64,
            uapi::drm_tas_param_DRM_TAS_PARAM_HOST_TIMEOUT_NS => {
                u64::from(dev.host_timeout_ms) * 1_000_000
            }
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
        // First, the records that the file's earlier submissions evicted are dropped down to
        // the bound of `Retiring`.
        this.retiring.wait()?;
        // Room for the nodes, then a launch slot of the dispatcher, waited for before the
        // file's submission lock: the file's other submissions may be what frees them. The
        // node count is checked later; a count above the limit fails there.
        let charge = this.budget.charge(args.nodes.count)?;
        let (mut launch, charge) = if args.flags & uapi::DRM_TAS_SUBMIT_FIFO == 0 {
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
        let keep = args.flags & uapi::DRM_TAS_SUBMIT_KEEP != 0;
        // Unknown flags fail with `EINVAL` in the checks, also on a file without room.
        if keep && args.flags & !(uapi::DRM_TAS_SUBMIT_FIFO | uapi::DRM_TAS_SUBMIT_KEEP) == 0 {
            // A count above the per-graph limit fails with `E2BIG` in the checks instead.
            let count = Some(args.nodes.count).filter(|&n| u64::from(n) <= MAX_NODES);
            // Only submissions, which `submitting` serialises, fill the room it checks.
            this.graphs.lock().check_keep(count.unwrap_or(0))?;
        }
        let room = Graphs::reserve()?;
        // The id `graphs.add()` gives the graph: only submissions, which `submitting`
        // serialises, add.
        if let Some(launch) = &mut launch {
            launch.set_id(this.graphs.lock().next_id);
        }
        let record = graph::submit(
            dev, file, &entities, &this.disp, args, launch, charge, blame,
        )?;
        // Past the point of no return: nothing fails any more.
        args.graph_id = this.graphs.lock().add(room, record, keep);
        Ok(0)
    }

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
        if args.extensions != 0 || args.flags != 0 || args.pad != 0 {
            return Err(EINVAL);
        }
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
        let slots = template.slots();
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
        args.slots = slots;
        Ok(0)
    }

    /// IOCTL: template_launch: Run a template as a new graph; on error, say which wait or
    /// signal is at fault, if one is.
    pub(crate) fn template_launch(
        dev: &TasDevice<Registered>,
        _reg_data: &(),
        args: &mut uapi::drm_tas_template_launch,
        file: &drm::File<File>,
    ) -> Result<u32> {
        let mut blame = Blame::default();
        let ret = Self::template_launch_blamed(dev, args, file, &mut blame);
        args.error_array = blame.array;
        args.error_index = blame.index;
        ret
    }

    fn template_launch_blamed(
        dev: &TasDevice<Registered>,
        args: &mut uapi::drm_tas_template_launch,
        file: &drm::File<File>,
        blame: &mut Blame,
    ) -> Result<u32> {
        const FLAGS: u32 =
            uapi::DRM_TAS_SUBMIT_KEEP | uapi::DRM_TAS_LAUNCH_BINDS | uapi::DRM_TAS_LAUNCH_ORDERED;
        if args.flags & !FLAGS != 0 {
            return Err(EINVAL);
        }
        // Binds only with the flag, which an older kernel rejects instead of ignoring the binds.
        let no_binds = args.binds.ptr == 0 && args.binds.count == 0 && args.binds.stride == 0;
        if args.flags & uapi::DRM_TAS_LAUNCH_BINDS == 0 && !no_binds {
            return Err(EINVAL);
        }
        let keep = args.flags & uapi::DRM_TAS_SUBMIT_KEEP != 0;
        let ordered = args.flags & uapi::DRM_TAS_LAUNCH_ORDERED != 0;
        let this = file.inner();
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
        this.retiring.wait()?;
        let mut launch = this.disp.reserve(this.budget.charge(nodes)?)?;
        let _submitting = this.submitting.lock();
        // The id `graphs.add()` gives the graph: only submissions, which `submitting`
        // serialises, add.
        launch.set_id(this.graphs.lock().next_id);
        // Held while an instance is taken, so that a destroyed template's work item is idle
        // once its destroy has flushed it.
        let templates = this.templates.lock();
        let template = templates
            .list
            .iter()
            .find(|(h, _)| *h == args.handle)
            .map(|(_, t)| t.clone())
            .ok_or(ENOENT)?;
        let mut syncs =
            graph::check_syncs(file, &args.waits, &args.signals, template.plan(), blame)?;
        // The previous ordered launch cannot change before this one is installed: launches
        // are serialised by `submitting`. The dispatcher resolves a whole-graph wait without
        // looking at the fence's error, which the uAPI promises for this one.
        if ordered {
            if let Some(previous) = template.last_ordered() {
                syncs.waits.push((None, previous), client_gfp())?;
            }
        }
        if keep {
            this.graphs.lock().check_keep(nodes)?;
        }
        let room = Graphs::reserve()?;
        let (inst, mut record) = template.take(binds)?;
        drop(templates);
        record.queued_ns = now_ns();
        let (node_fences, graph_fence) = graph::launch(
            &this.disp,
            launch,
            template.plan().clone(),
            inst,
            &syncs,
            ordered,
        )?;
        // Point of no return: nothing below fails.
        if ordered {
            if let Some(fence) = &graph_fence {
                template.set_last_ordered(ARef::from(&**fence));
            }
        }
        graph::install_signals(syncs.signals, &node_fences, graph_fence.as_ref());
        args.graph_id = this.graphs.lock().add(room, record, keep);
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

    /// IOCTL: graph_info: Read the per-node timestamps and errors of a graph, or with
    /// `DRM_TAS_GRAPH_INFO_SUMMARY` only whether it is done and its first error.
    pub(crate) fn graph_info(
        _dev: &TasDevice<Registered>,
        _reg_data: &(),
        args: &mut uapi::drm_tas_graph_info,
        file: &drm::File<File>,
    ) -> Result<u32> {
        const FLAGS: u32 = uapi::DRM_TAS_GRAPH_INFO_RELEASE | uapi::DRM_TAS_GRAPH_INFO_SUMMARY;
        if args.flags & !FLAGS != 0 || args.pad != 0 {
            return Err(EINVAL);
        }
        let summary = args.flags & uapi::DRM_TAS_GRAPH_INFO_SUMMARY != 0;
        let nodes = &args.nodes;
        if summary && (nodes.ptr != 0 || nodes.count != 0 || nodes.stride != 0) {
            return Err(EINVAL);
        }
        let this = file.inner();
        let record = this.graphs.lock().find(args.graph_id).ok_or(ENOENT)?;
        let info_size = size_of::<uapi::drm_tas_node_info>();
        if !summary
            && (nodes.count as usize != record.nodes.len()
                || (nodes.stride as usize) < info_size
                || nodes.stride > MAX_STRIDE)
        {
            return Err(EINVAL);
        }
        let base = usize::try_from(args.nodes.ptr).map_err(|_| EFAULT)?;
        let mut done = 1;
        // The failed node that finished first, as (finished_ns, index, error); a node that failed
        // without a timestamp counts as finished last.
        let mut first: Option<(u64, usize, i32)> = None;
        for (i, node) in record.nodes.iter().enumerate() {
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
            if finished_ns == 0 {
                done = 0;
            }
            if error != 0 {
                let at = if finished_ns == 0 {
                    u64::MAX
                } else {
                    finished_ns
                };
                match first {
                    Some((t, j, _)) if (t, j) <= (at, i) => {}
                    _ => first = Some((at, i, error)),
                }
            }
            if summary {
                continue;
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
        // Bounded by the node limit of a graph, far below `u32::MAX`.
        args.node_count = record.nodes.len() as u32;
        (args.error_node, args.error) =
            first.map_or((uapi::DRM_TAS_NODE_GRAPH, 0), |(_, i, e)| (i as u32, e));
        // Forgotten only once read completely and done: a failed read or a running graph keeps
        // its record.
        if done == 1 && args.flags & uapi::DRM_TAS_GRAPH_INFO_RELEASE != 0 {
            this.graphs.lock().release(args.graph_id);
        }
        Ok(0)
    }

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
}
