// SPDX-License-Identifier: GPL-2.0

//! The graph dispatcher of a client: nodes enter their ring's entity only once they are ready.
//!
//! A submitted graph becomes a [`Launch`]: the [`Plan`] of the graph (ranks, classes, gangs),
//! its [`Run`] state and, per node, a scheduler job that was created and given everything it
//! needs at submit time but is not armed yet. The client's [`ReadySet`] decides which ready node
//! each ring gets next, a few at a time ([`WINDOW`]); only then is the node's job armed and
//! pushed into a scheduler entity of its ring, with no dependencies left to wait for.
//!
//! A node's completion is reported by its ring right after the node's hardware fence (and with
//! it the scheduler's finished fence) signalled, or, for a node that never reached the ring,
//! when the scheduler frees its job: dropping the node's [`Done`] token reads the error of the
//! finished fence, and the dispatcher releases what became ready, in the same context. Syncobj
//! waits are fence callbacks that count as dependencies of the graph's source nodes (or of one
//! node); a callback marks its launch in the dispatcher's bit mask of launches with fired
//! waits, and the dispatcher's work item resolves the waits of the marked launches only, so
//! that the cost of an event does not grow with the number of launches in flight. Nothing on
//! these paths allocates: storage is reserved at submit.
//!
//! A node whose predecessor failed does not run: it completes with the predecessor's error when
//! it is released, and so on down the graph. The signal fences of the uAPI are fences of the
//! dispatcher (one per signalled node, one per graph), signalled when the node or the whole
//! graph completes, with the first error.
//!
//! Gangs are admitted in one order for the whole device by its [`GangGate`], which all clients'
//! dispatchers share: a client's gang at the head of its ready set is released only once the
//! gate admits it, and holds its rings there until its members have started (see
//! [`GangOrder`]).
//!
//! A host node ([`is_host`]) is run by a CPU thread: releasing it signals its start fence, where
//! the thread waits, and watches its deadline; the thread reports its completion through
//! [`Dispatcher::host_done`], or the node completes with `ETIMEDOUT` after the host timeout, so
//! that no fence waits for userspace without a bound.
//!
//! Locking: `Dispatcher::state` is a mutex taken in process context only (the ioctls, the rings'
//! work items, the scheduler's free_job work and the dispatcher's work item); nobody allocates
//! with `GFP_KERNEL` or waits for a fence while holding it.
//! Jobs are armed and pushed under it, so the jobs of an entity are pushed in the order they
//! are armed. The gang gate's mutex nests inside it, follows the same rules, and is also taken
//! from the scheduler's timeout handler; the gate takes no dispatcher's lock.
//! The host nodes' timer is started and cancelled under it; cancelling waits for a callback
//! that is running, which is safe because the callback, in hard interrupt context, takes no
//! lock of the driver: it only queues the work item.

use core::pin::Pin;

use kernel::{
    dma_fence::{
        DriverFence,
        Fence,
        FenceCallback,
        FenceCallbackHandler,
        FenceContext,
        SignaledFence,
        SignallingGuard,
        UnchainedFence, //
    },
    drm::sched::{
        graph::{
            GangOrder,
            Plan,
            Ready,
            ReadySet,
            Release,
            Run, //
        },
        Entity,
        Job, //
    },
    new_condvar, new_mutex, new_work,
    prelude::*,
    sync::{
        aref::ARef,
        atomic::{
            Atomic,
            Full,
            Relaxed, //
        },
        Arc,
        CondVar,
        Mutex, //
    },
    time::{
        Instant,
        Monotonic, //
    },
    workqueue::{
        impl_has_work,
        Queue,
        Work,
        WorkItem, //
    },
};

use kernel::{
    drm::sched::graph::Class,
    impl_has_hr_timer,
    sync::ArcBorrow,
    time::{
        hrtimer::{
            ArcHrTimerHandle,
            HrTimer,
            HrTimerCallback,
            HrTimerCallbackContext,
            HrTimerPointer,
            HrTimerRestart,
            RelativeMode, //
        },
        Delta, //
    },
};

use crate::{
    driver::client_gfp,
    engine::{
        now_ns,
        NoRingWait,
        NodeExec,
        NodeJob, //
    },
    file::Charge,
};

/// Nodes of a class and the more urgent classes that the dispatcher gives a ring of one client at
/// a time: one running, one queued behind it.
pub(crate) const WINDOW: u32 = 2;

/// Graphs a client can have in flight in the dispatcher.
pub(crate) const MAX_LAUNCHES: usize = 1024;

/// Bits of a word of [`Dispatcher::fired`].
const FIRED_BITS: usize = u64::BITS as usize;

/// The classes whose nodes go to their rings early, each through an entity of its own per ring
/// and file (drm_sched chooses an entity's run queue once, by the priority it was created with).
/// Not the batch class: an early node holds its ring's wait slot, for every client, until it
/// starts, and a batch node may wait in its entity for as long as other clients keep normal work
/// queued on the ring.
pub(crate) const EARLY_CLASSES: [Class; 2] = [Class::Latency, Class::Normal];

/// The index of the early entity of `ring` and `class` among a file's, if the class goes early.
fn early_index(ring: u32, class: Class) -> Option<usize> {
    let i = EARLY_CLASSES.iter().position(|&c| c == class)?;
    Some(ring as usize * EARLY_CLASSES.len() + i)
}

/// The key of a host node's start fence (`DRM_TAS_SYNC_ON_START`) among the node fences of a
/// launch ([`LaunchFences`]): the node's index with this bit set, which no index has (they are
/// below [`MAX_NODES`](crate::driver::MAX_NODES)).
pub(crate) const ON_START: u32 = 1 << 31;

/// Whether node `v` of `plan` is a host node: the plan gives host nodes a ring of their own,
/// after the device's rings, so that they take no window of a device ring.
pub(crate) fn is_host(plan: &Plan, v: u32) -> bool {
    plan.ring(v) + 1 == plan.num_rings()
}

/// The most host nodes of a client released at once: the ready set gives their ring at most
/// [`WINDOW`] nodes of each class.
const MAX_HOSTS: usize = WINDOW as usize * Class::COUNT;

/// Where a host node is.
#[derive(Clone, Copy, PartialEq)]
enum Host {
    /// Not released yet.
    Waiting,
    /// Released to its thread, which has not reported yet.
    Released,
    /// Completed: reported, timed out, or with the error of a predecessor.
    Done,
}

/// A released host node whose thread has not reported: node `v` of launch `l`, which times out
/// at `deadline` (`CLOCK_MONOTONIC` nanoseconds).
#[derive(Clone, Copy)]
struct HostWatch {
    l: u32,
    v: u32,
    deadline: u64,
}

/// A node of a launch.
struct Slot {
    /// The job, until the node is released; never one for a host node.
    job: Option<Job<'static, NodeJob>>,
    exec: Arc<NodeExec>,
    /// The fence that syncobj signals of this node got.
    out: Option<DriverFence>,
    /// The error of a failed predecessor: the node will not run.
    error: Option<Error>,
    /// When the node became ready, for the scheduler's trace events.
    ready_at: Option<Instant<Monotonic>>,
    /// For a host node, where it is; `None` for a node of a device ring.
    host: Option<Host>,
    /// The start fence of a host node, which its `DRM_TAS_SYNC_ON_START` signals refer to:
    /// signalled when the node is released.
    start: Option<DriverFence>,
}

/// A syncobj wait of a launch, as a fence callback.
pub(crate) struct Wait {
    disp: Arc<Dispatcher>,
    /// The launch slot of the wait's launch.
    slot: u32,
    /// The node that waits, or `None` for the graph's source nodes.
    node: Option<u32>,
    fired: Atomic<bool>,
}

impl FenceCallbackHandler for Wait {
    fn fence_signaled(&self, _fence: &SignaledFence) {
        self.fired.store(true, Relaxed);
        self.disp.mark_fired(self.slot);
        // Already queued: it will see this wait.
        let _ = self.disp.wq.enqueue(self.disp.clone());
    }
}

/// A graph in the dispatcher.
struct Launch {
    /// The graph id that `SUBMIT_GRAPH` or `TEMPLATE_LAUNCH` returned for the launch.
    id: u64,
    plan: Arc<Plan>,
    /// When the launch was started, for the scheduler's trace events.
    queued_at: Instant<Monotonic>,
    run: Run,
    slots: KVVec<Slot>,
    /// The fence that syncobj signals of the whole graph got.
    graph_out: Option<DriverFence>,
    first_error: Option<Error>,
    waits: KVec<Pin<KBox<FenceCallback<Wait>>>>,
    /// Whether each of `waits` has been resolved.
    resolved: KVec<bool>,
    /// The launch's nodes in the file's budget, given back when the launch is dropped.
    _charge: Option<Charge>,
}

enum LaunchSlot {
    Free,
    /// Taken by a submission that is being built.
    Reserved,
    Live(KBox<Launch>),
    /// A completed launch, dropped by the dispatcher's work item, outside of the dispatcher's
    /// lock: where the launch completes (a ring's work item, in the fence signalling path,
    /// under that lock), dropping it would free the state of up to
    /// [`MAX_NODES`](crate::driver::MAX_NODES) nodes, remove its wait callbacks and give its
    /// budget back (waking submitters), with every other launch of the file held up behind the
    /// lock. Its buffer mappings go to the device's reaper either way.
    Done(KBox<Launch>),
}

/// # Invariants
///
/// At most [`MAX_HOSTS`] host nodes are released and not completed at once: the ready set
/// hands their ring at most [`WINDOW`] nodes of each class, and host nodes
/// are never in gangs, whose releases the window does not bound. So each released host node has
/// an entry in `hosts`.
struct State {
    set: ReadySet<(u32, Ready)>,
    launches: KVec<LaunchSlot>,
    closed: bool,
    /// Launches in [`LaunchSlot::Done`].
    done: usize,
    /// Per device ring and class of [`EARLY_CLASSES`], at [`early_index`], of the class's
    /// priority: the entity of the nodes released early onto the ring; empty until the file has
    /// set them, and again once it is closed.
    early: KVec<Arc<Entity<NodeJob>>>,
    /// Per device ring, the last node (launch and index) that could have gone to the ring
    /// early but found its wait slot taken: tried again when an early node of the file
    /// completes there, which has given the slot back by then (when it started).
    missed: [Option<(u32, u32)>; crate::driver::MAX_RINGS as usize],
    /// The released host nodes whose threads have not reported.
    hosts: [Option<HostWatch>; MAX_HOSTS],
    /// How long a released host node may take.
    host_timeout_ns: u64,
    /// The timer of the earliest deadline in `hosts` and that deadline, while one is armed;
    /// dropping the handle cancels the timer.
    host_timer: Option<(ArcHrTimerHandle<Dispatcher>, u64)>,
}

/// A client of the device's [`GangGate`]: its dispatcher.
pub(crate) struct Client(Arc<Dispatcher>);

impl PartialEq for Client {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// Lets a client whose gang the gate admitted release it.
fn wake(client: &Client) {
    // Already queued: it will ask again.
    let _ = client.0.wq.enqueue(client.0.clone());
}

/// The admission order of the gangs of all clients of the device.
#[pin_data]
pub(crate) struct GangGate {
    #[pin]
    order: Mutex<GangOrder<Client>>,
}

impl GangGate {
    /// Creates the gate of a device.
    pub(crate) fn new() -> Result<Arc<Self>> {
        Arc::pin_init(
            pin_init!(Self {
                order <- new_mutex!(GangOrder::new()),
            }),
            GFP_KERNEL,
        )
    }

    /// Adds a client; the room for it to wait is allocated outside of the lock, which is taken
    /// in the fence signalling path.
    fn add_client(&self) -> Result {
        loop {
            let need = match self.order.lock().add_client() {
                Ok(()) => return Ok(()),
                Err(need) => need,
            };
            // Twice what is needed, so that growing is amortised over many clients.
            let storage = KVec::with_capacity(need.saturating_mul(2), GFP_KERNEL)?;
            self.order.lock().grow(storage);
        }
    }

    /// Gives back the rings (a bit mask) of an admitted gang that started or was cancelled.
    pub(crate) fn started(&self, rings: u64) {
        self.order.lock().started(rings, wake);
    }
}

/// The dispatcher of one client.
#[pin_data(PinnedDrop)]
pub(crate) struct Dispatcher {
    #[pin]
    state: Mutex<State>,
    /// Notified when a launch slot is freed.
    #[pin]
    slot_freed: CondVar,
    /// Bit `l` is set when a wait of launch `l` fired and was not resolved yet.
    fired: [Atomic<u64>; MAX_LAUNCHES / FIRED_BITS],
    #[pin]
    work: Work<Dispatcher>,
    /// The device's workqueue of the fence signalling path, which runs the work item.
    wq: &'static Queue,
    gate: Arc<GangGate>,
    /// Expires at the earliest deadline of the released host nodes, and queues `work`.
    #[pin]
    host_timer: HrTimer<Self>,
}

#[pinned_drop]
impl PinnedDrop for Dispatcher {
    fn drop(self: Pin<&mut Self>) {
        self.gate.order.lock().remove_client();
    }
}

impl_has_work! {
    impl HasWork<Self> for Dispatcher { self.work }
}

impl_has_hr_timer! {
    // Relative mode expires in hard interrupt context, in a soft interrupt under PREEMPT_RT.
    impl HasHrTimer<Self> for Dispatcher {
        mode: RelativeMode<Monotonic>, field: self.host_timer
    }
}

impl HrTimerCallback for Dispatcher {
    type Pointer<'a> = Arc<Self>;

    fn run(this: ArcBorrow<'_, Self>, _ctx: HrTimerCallbackContext<'_, Self>) -> HrTimerRestart {
        // The work item completes the host nodes that timed out. Not the last reference: the
        // timer's handle holds one until the timer is cancelled, which waits for this callback.
        let _ = this.wq.enqueue(Arc::from(this));
        HrTimerRestart::NoRestart
    }
}

impl WorkItem for Dispatcher {
    type Pointer = Arc<Dispatcher>;

    fn run(this: Arc<Dispatcher>) {
        let done = {
            // The out-fences of the launches and the finished fences of the nodes it releases
            // wait for this work item: lockdep checks that it neither allocates with
            // `GFP_KERNEL` nor waits for a fence.
            let _guard = SignallingGuard::new();
            let mut state = this.state.lock();
            let st = &mut *state;
            for (w, word) in this.fired.iter().enumerate() {
                // Ordered before the loads of the waits' `fired` flags: a wait that fires
                // later marks its launch again and queues this work item again.
                let mut bits = word.xchg(0, Full);
                while bits != 0 {
                    let l = w * FIRED_BITS + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    if let Some(LaunchSlot::Live(launch)) = st.launches.get_mut(l) {
                        launch.resolve_waits(&mut st.set, l as u32);
                    }
                }
            }
            st.expire_hosts();
            // Not `release()`, which would queue this work item again for what it reaps next.
            st.release_ready(&this);
            st.done
        };
        if done > 0 {
            this.reap();
        }
    }
}

/// The launch slot of a set of jobs, known once it is launched.
pub(crate) struct LaunchTag {
    slot: Atomic<u32>,
}

/// No launch slot yet.
const NO_SLOT: u32 = u32::MAX;

/// A launch slot taken by [`Dispatcher::reserve`] for a submission; given back when dropped
/// unless [`Dispatcher::launch`] used it.
pub(crate) struct Reservation {
    disp: Arc<Dispatcher>,
    /// [`NO_SLOT`] once used.
    slot: u32,
    /// The nodes of the submission in the file's budget, which the launch takes over.
    charge: Option<Charge>,
    /// The graph id of the submission.
    id: u64,
}

impl Reservation {
    /// Sets the graph id of the submission, by which `HOST_DONE` finds its launch.
    pub(crate) fn set_id(&mut self, id: u64) {
        self.id = id;
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        if self.slot != NO_SLOT {
            self.disp.unreserve(self.slot);
        }
    }
}

/// Reports the completion of a node to its dispatcher when dropped: by the node's ring once the
/// node's finished fence has signalled, or when the scheduler frees a job that never ran.
pub(crate) struct Done {
    disp: Arc<Dispatcher>,
    tag: Arc<LaunchTag>,
    node: u32,
    exec: Arc<NodeExec>,
    finished: Option<ARef<Fence>>,
    /// Cleared for a job that is dropped without being pushed: its node is completed by the
    /// dispatcher itself.
    report: bool,
}

impl Done {
    /// Records the node's finished fence, once its job is pushed (from the job's callbacks).
    pub(crate) fn set_finished(&mut self, finished: ARef<Fence>) {
        self.finished.get_or_insert(finished);
    }

    /// Whether the node's finished fence has signalled, so that it can be reported.
    pub(crate) fn is_ready(&self) -> bool {
        self.finished.as_ref().is_some_and(|f| f.is_signaled())
    }
}

impl Drop for Done {
    fn drop(&mut self) {
        // Set under the dispatcher lock before any job of the launch was pushed.
        let launch = self.tag.slot.load(Relaxed);
        if !self.report || launch == NO_SLOT {
            return;
        }
        let (ts, error) = match &self.finished {
            Some(f) => (f.timestamp().unwrap_or_else(now_ns), f.error()),
            None => (now_ns(), Some(ECANCELED)),
        };
        // Run by the job's release once its finished fence has signalled: the successors of
        // the node and its launch's out-fence wait for what follows.
        let _guard = SignallingGuard::new();
        self.exec.finish(ts, error);
        let mut state = self.disp.state.lock();
        let st = &mut *state;
        if st.closed {
            return;
        }
        st.complete(launch, self.node, error);
        st.release(&self.disp);
    }
}

/// Disarms the completion token of a job that was not pushed, before it is dropped.
fn disarm(job: Job<'static, NodeJob>) -> Job<'static, NodeJob> {
    if let NodeJob::Node { exec, .. } = &*job {
        if let Some(mut done) = exec.take_done() {
            done.report = false;
        }
    }
    job
}

/// Adds `finished`, the finished fence of node `v`, which was just pushed, to the ring waits of
/// its successors (see [`NodeExec::wait_on_ring`]).
///
/// Cannot fail for a node of a device ring: it is created with room for every predecessor, and
/// it is not released before its predecessors, so it has not let go of them. A host node has no
/// room and waits for none: adding to it fails, which is ignored.
fn add_ring_waits(plan: &Plan, slots: &[Slot], v: u32, finished: &ARef<Fence>) {
    for &w in plan.succ(v) {
        let _ = slots[w as usize].exec.add_pipe_dep(finished.clone());
    }
}

/// Records that `r` of launch `l` became ready at `now` and inserts it into `set`.
fn on_ready(
    set: &mut ReadySet<(u32, Ready)>,
    plan: &Plan,
    slots: &mut [Slot],
    l: u32,
    r: Ready,
    now: u64,
) {
    // An early node is on its ring already, which has seen or will see it become ready when the
    // fence it waits for signalled; it may even have completed.
    if let Ready::Node(v) = r {
        if slots[v as usize].exec.is_early() {
            return;
        }
    }
    let at = Instant::<Monotonic>::now();
    let mut mark = |v: u32| {
        let slot = &mut slots[v as usize];
        slot.exec.ready_ns.store(now, Relaxed);
        slot.ready_at = Some(at);
    };
    match r {
        Ready::Node(v) => mark(v),
        Ready::Gang(g) => plan.gang_members(g).iter().for_each(|&v| mark(v)),
    }
    // Cannot fail: the launch was admitted with room for all of its nodes and gangs.
    let _ = set.insert(plan, r, (l, r));
}

/// Drops a launch that was never installed, without reporting its nodes.
fn discard(mut launch: KBox<Launch>) {
    for slot in launch.slots.iter_mut() {
        if let Some(job) = slot.job.take() {
            drop(disarm(job));
        }
    }
}

impl Launch {
    /// Resolves the waits whose fences have signalled.
    fn resolve_waits(&mut self, set: &mut ReadySet<(u32, Ready)>, l: u32) {
        let now = now_ns();
        let Launch {
            plan,
            run,
            slots,
            waits,
            resolved,
            ..
        } = self;
        for (wait, resolved) in waits.iter().zip(resolved.iter_mut()) {
            let w = wait.handler();
            if *resolved || !w.fired.load(Relaxed) {
                continue;
            }
            *resolved = true;
            let mut ready = |r: Ready| on_ready(set, plan, slots, l, r, now);
            match w.node {
                Some(v) => run.resolve(plan, v, &mut ready),
                None => {
                    for &v in plan.sources() {
                        run.resolve(plan, v, &mut ready);
                    }
                }
            }
        }
    }
}

/// Launch `l` of `launches`, if it is live.
fn live(launches: &mut [LaunchSlot], l: u32) -> Option<&mut Launch> {
    match launches.get_mut(l as usize) {
        Some(LaunchSlot::Live(launch)) => Some(launch),
        _ => None,
    }
}

impl State {
    /// Node `v` of launch `l` completed (or was skipped) with `error`.
    fn complete(&mut self, l: u32, v: u32, error: Option<Error>) {
        let State {
            set,
            launches,
            done,
            ..
        } = self;
        let Some(Launch {
            plan,
            run,
            slots,
            graph_out,
            first_error,
            ..
        }) = live(launches, l)
        else {
            return;
        };
        if slots[v as usize].exec.is_early() {
            set.finished_outside(plan.ring(v));
        } else {
            set.finished(plan, v);
        }
        let freed = slots[v as usize].exec.is_early().then(|| plan.ring(v));
        if let Some(out) = slots[v as usize].out.take() {
            match error {
                Some(e) => out.signal_with_error(e),
                None => out.signal(),
            }
        }
        if let Some(e) = error {
            first_error.get_or_insert(e);
            for &w in plan.succ(v) {
                slots[w as usize].error.get_or_insert(e);
            }
        }
        let now = now_ns();
        let finished = run.complete(plan, v, |r| on_ready(set, plan, slots, l, r, now));
        if finished {
            if let Some(out) = graph_out.take() {
                match *first_error {
                    Some(e) => out.signal_with_error(e),
                    None => out.signal(),
                }
            }
            set.retire(plan);
            // The launch has no job and no registered callback that could fire any more (all
            // of its nodes are done): the dispatcher's work item drops it and frees the slot.
            let slot = &mut launches[l as usize];
            if let LaunchSlot::Live(launch) = core::mem::replace(slot, LaunchSlot::Free) {
                *slot = LaunchSlot::Done(launch);
                *done += 1;
            }
        }
        self.release_early(l, v);
        // The early node gave its ring's wait slot back before it was reported.
        let missed = freed.and_then(|r| self.missed.get_mut(r as usize)?.take());
        if let Some((missed_l, w)) = missed {
            self.release_early_of(missed_l, &[w]);
        }
    }

    /// Releases what the rings can take; gangs as `disp`'s device gang gate admits them.
    fn release(&mut self, disp: &Arc<Dispatcher>) {
        self.release_ready(disp);
        if self.done > 0 {
            // Already queued: it will find them.
            let _ = disp.wq.enqueue(disp.clone());
        }
    }

    fn release_ready(&mut self, disp: &Arc<Dispatcher>) {
        let gate = &disp.gate;
        let mut admit = |rings| gate.order.lock().admit(Client(disp.clone()), rings);
        while let Some(r) = self.set.next_release_gated(&mut admit) {
            match r {
                Release::Node {
                    item: (l, Ready::Node(v)),
                    ..
                } => self.release_node(l, v),
                Release::Gang {
                    rings,
                    item: (l, Ready::Gang(g)),
                } => {
                    let Some(launch) = live(&mut self.launches, l) else {
                        gate.started(rings);
                        continue;
                    };
                    // Pushed back to back; the plan is shared, so the members can be read
                    // while the launch changes.
                    let plan = launch.plan.clone();
                    let members = plan.gang_members(g);
                    if let Some(&first) = members.first() {
                        launch.slots[first as usize].exec.gang_admitted();
                    }
                    for &v in members {
                        self.release_node(l, v);
                    }
                }
                _ => {}
            }
        }
        self.watch_hosts(disp);
    }

    fn release_node(&mut self, l: u32, v: u32) {
        if self.release_host(l, v) {
            return;
        }
        let State { set, launches, .. } = self;
        let Some(Launch {
            plan,
            queued_at,
            run,
            slots,
            ..
        }) = live(launches, l)
        else {
            return;
        };
        let slot = &mut slots[v as usize];
        let Some(mut job) = slot.job.take() else {
            return;
        };
        if let Some(error) = slot.error {
            // A predecessor failed: the node does not run and carries the error on, and
            // cancels its gang.
            slot.exec.cancel_gang();
            slot.exec.finish(now_ns(), Some(error));
            drop(disarm(job));
            self.complete(l, v, Some(error));
            return;
        }
        let ready = slot.ready_at.unwrap_or(*queued_at);
        job.set_graph_info(*queued_at, ready, plan.depth(v));
        // The job's callbacks give its completion token the finished fence.
        let finished = job.push().finished;
        // Successors on pipelined edges go to the same entity after the node, and look at its
        // errors like the stock scheduler's same-entity dependencies.
        // So do the others, as the waits of a successor that goes to its ring before the node
        // finishes (see `release_early()`).
        add_ring_waits(plan, slots, v, &finished);
        let now = now_ns();
        run.release(plan, v, |r| on_ready(set, plan, slots, l, r, now));
        self.release_early(l, v);
    }

    /// Hands the successors of node `v` of launch `l` that wait only for nodes on their rings
    /// ([`Run::on_rings`]) to their rings ahead of time, where the rings can hold them
    /// ([`NodeExec::wait_on_ring`]): a ring starts such a node when its last predecessor
    /// finishes, without a round trip through the dispatcher and the scheduler, and runs other
    /// nodes meanwhile. Called when `v` was released or completed.
    ///
    /// An early node is pushed to its ring's early entity, with the priority of its class, and
    /// stays out of the ready set: its ring holds one waiting and one running at a time, on
    /// credits of their own, so it takes no room that a ready node needs. The set counts it
    /// apart from its window, so that a gang waits for it.
    fn release_early(&mut self, l: u32, v: u32) {
        if self.early.is_empty() {
            return;
        }
        let Some(launch) = live(&mut self.launches, l) else {
            return;
        };
        let plan = launch.plan.clone();
        self.release_early_of(l, plan.succ(v));
    }

    /// Hands those of `candidates`, nodes of launch `l`, that can go to their rings early to
    /// their rings, as [`State::release_early`] does, and then their successors that can.
    fn release_early_of(&mut self, l: u32, candidates: &[u32]) {
        let State {
            set,
            launches,
            early,
            missed,
            ..
        } = self;
        if early.is_empty() {
            return;
        }
        let Some(Launch {
            plan, run, slots, ..
        }) = live(launches, l)
        else {
            return;
        };
        // At most one per ring, which holds one waiting early node at a time, unless the one
        // pushed started meanwhile and gave the slot back; the loop ends when this is full.
        let mut released = [0u32; crate::driver::MAX_RINGS as usize];
        let mut n = 0;
        for &w in candidates {
            if n == released.len() {
                break;
            }
            // A node tried again may be of another launch than the one it was missed in, which
            // took the slot of that launch since: whatever it is, it is looked at like any other.
            if w as usize >= slots.len() {
                continue;
            }
            // Only where the ring would otherwise run out of ready work: an early node must not
            // take the place of a ready node that the ready set would release before it.
            if is_host(plan, w)
                || !run.on_rings(plan, w)
                || !set.has_room(plan.ring(w), plan.class(w))
            {
                continue;
            }
            let slot = &mut slots[w as usize];
            if slot.exec.is_early() || slot.error.is_some() {
                continue;
            }
            let Some(job) = slot.job.as_mut() else {
                continue;
            };
            let NodeJob::Node { ring, .. } = &**job else {
                continue;
            };
            let ring = ring.clone();
            let Some(entity) = early_index(ring.index, plan.class(w)).and_then(|i| early.get(i))
            else {
                continue;
            };
            if let Err(no) = slot.exec.wait_on_ring(&ring) {
                // Tried again when an early node of this file gives the slot back, which one of
                // another file's does not tell this dispatcher.
                if no == NoRingWait::SlotTaken {
                    if let Some(missed) = missed.get_mut(ring.index as usize) {
                        *missed = Some((l, w));
                    }
                }
                continue;
            }
            // Cannot fail: the entity is on the ring's scheduler, as the job's own.
            if job.set_entity(entity.clone()).is_err() {
                slot.exec.cancel_ring_wait();
                continue;
            }
            let Some(mut job) = slot.job.take() else {
                slot.exec.cancel_ring_wait();
                continue;
            };
            let now = Instant::<Monotonic>::now();
            // The trace events see the node as ready when it goes to its ring.
            job.set_graph_info(now, now, plan.depth(w));
            let finished = job.push().finished;
            // A gang waits for it to finish before it starts on its ring.
            set.released_outside(plan.ring(w));
            // As in `release_node()`; the successors over pipelined edges also wait for it to
            // finish, as they do not go to its entity.
            add_ring_waits(plan, slots, w, &finished);
            run.release_early(plan, w);
            released[n] = w;
            n += 1;
        }
        // Their successors may wait only for nodes on rings now, down a chain across rings.
        for &w in &released[..n] {
            self.release_early(l, w);
        }
    }

    /// Releases node `v` of launch `l` to its thread if it is a host node: signals its start
    /// fence, where the thread waits, and watches its deadline. A host node is never reported
    /// to [`Run::release`]: its successors wait for it to complete, also over pipelined edges.
    /// Returns whether `v` is a host node.
    fn release_host(&mut self, l: u32, v: u32) -> bool {
        let State {
            launches,
            hosts,
            host_timeout_ns,
            ..
        } = self;
        let Some(launch) = live(launches, l) else {
            return false;
        };
        let slot = &mut launch.slots[v as usize];
        if slot.host != Some(Host::Waiting) {
            return slot.host.is_some();
        }
        let now = now_ns();
        let free = hosts.iter().position(Option::is_none);
        // Not released with the error of a predecessor; never without an entry to time it out
        // by, which the type invariant of `hosts` rules out.
        let error = slot.error.or(free.is_none().then_some(EBUSY));
        if let (None, Some(i)) = (error, free) {
            // INVARIANT: the node takes a free entry; the ready set released it within the
            // window of the host nodes' ring.
            hosts[i] = Some(HostWatch {
                l,
                v,
                deadline: now.saturating_add(*host_timeout_ns),
            });
            slot.host = Some(Host::Released);
            slot.exec.started_ns.store(now, Relaxed);
            if let Some(start) = slot.start.take() {
                start.signal();
            }
            return true;
        }
        slot.host = Some(Host::Done);
        slot.exec.finish(now, error);
        if let (Some(start), Some(e)) = (slot.start.take(), error) {
            start.signal_with_error(e);
        }
        self.complete(l, v, error);
        true
    }

    /// Completes released host node `v` of launch `l` with `error`: reported by its thread, or
    /// timed out.
    fn complete_host(&mut self, l: u32, v: u32, error: Option<Error>) -> Result {
        let launch = live(&mut self.launches, l).ok_or(ENOENT)?;
        let slot = launch.slots.get_mut(v as usize).ok_or(ENOENT)?;
        match slot.host {
            None => return Err(EINVAL),
            Some(Host::Waiting) => return Err(EBUSY),
            Some(Host::Done) => return Err(EALREADY),
            Some(Host::Released) => {}
        }
        slot.host = Some(Host::Done);
        slot.exec.finish(now_ns(), error);
        self.unwatch(l, v);
        self.complete(l, v, error);
        Ok(())
    }

    /// Stops watching the deadline of host node `v` of launch `l`.
    fn unwatch(&mut self, l: u32, v: u32) {
        for watch in self.hosts.iter_mut() {
            if watch.is_some_and(|w| w.l == l && w.v == v) {
                *watch = None;
            }
        }
    }

    /// Completes the released host nodes whose deadline has passed with `ETIMEDOUT`; once the
    /// timer has expired, drops its handle, so that [`State::watch_hosts`] arms it again for the
    /// rest.
    fn expire_hosts(&mut self) {
        let now = now_ns();
        let watched = self.hosts;
        for w in watched.into_iter().flatten() {
            // Completing the node removes its entry; an entry whose node cannot be completed
            // any more is removed all the same.
            if w.deadline <= now && self.complete_host(w.l, w.v, Some(ETIMEDOUT)).is_err() {
                self.unwatch(w.l, w.v);
            }
        }
        // Dropping the handle cancels the timer, which has expired: it waits for a callback
        // that is still returning, which takes no lock. The work item that runs this holds a
        // reference to the dispatcher, so this is not the last one.
        if self.host_timer.as_ref().is_some_and(|&(_, at)| at <= now) {
            self.host_timer = None;
        }
    }

    /// Arms the timer for the earliest deadline of the released host nodes, unless it is armed.
    fn watch_hosts(&mut self, disp: &Arc<Dispatcher>) {
        if self.host_timer.is_some() {
            return;
        }
        let Some(deadline) = self.hosts.iter().flatten().map(|w| w.deadline).min() else {
            return;
        };
        let delta = deadline.saturating_sub(now_ns());
        let delta = Delta::from_nanos(i64::try_from(delta).unwrap_or(i64::MAX));
        self.host_timer = Some((disp.clone().start(delta), deadline));
    }
}

/// The fences of a launch that syncobj signals refer to: those of signalled nodes (by node, or
/// by `node | ON_START` for a host node's start fence) and that of the whole graph.
pub(crate) type LaunchFences = (KVec<(u32, UnchainedFence)>, Option<UnchainedFence>);

/// A checked node, ready to become part of a launch.
pub(crate) struct NodeInit {
    /// The job; `None` for a host node.
    pub(crate) job: Option<Job<'static, NodeJob>>,
    pub(crate) exec: Arc<NodeExec>,
}

/// The jobs and run state of one launch of a plan, built before the launch.
pub(crate) struct Instance {
    tag: Arc<LaunchTag>,
    slots: KVVec<Slot>,
    run: Run,
}

impl Dispatcher {
    /// Creates the dispatcher of a client of `num_rings` rings whose gangs `gate` admits, whose
    /// work item runs on `wq`, and whose host nodes time out after `host_timeout_ns`.
    pub(crate) fn new(
        num_rings: u32,
        gate: &Arc<GangGate>,
        wq: &'static Queue,
        host_timeout_ns: u64,
    ) -> Result<Arc<Self>> {
        // Created for each open file: charged to the opener.
        let flags = client_gfp();
        let mut launches = KVec::with_capacity(MAX_LAUNCHES, flags)?;
        for _ in 0..MAX_LAUNCHES {
            launches.push(LaunchSlot::Free, flags)?;
        }
        let state = State {
            // The host nodes' ring is the last.
            set: ReadySet::new(num_rings + 1, WINDOW, flags)?,
            launches,
            closed: false,
            done: 0,
            early: KVec::new(),
            missed: [None; crate::driver::MAX_RINGS as usize],
            hosts: [None; MAX_HOSTS],
            host_timeout_ns,
            host_timer: None,
        };
        gate.add_client()?;
        Arc::pin_init(
            pin_init!(Self {
                state <- new_mutex!(state),
                slot_freed <- new_condvar!("tas::Dispatcher::slot_freed"),
                fired: [const { Atomic::new(0) }; MAX_LAUNCHES / FIRED_BITS],
                work <- new_work!("tas::Dispatcher::work"),
                wq,
                gate: gate.clone(),
                host_timer <- HrTimer::new(),
            }),
            flags,
        )
        .inspect_err(|_| gate.order.lock().remove_client())
    }

    /// The gang gate of the dispatcher's device.
    pub(crate) fn gate(&self) -> &Arc<GangGate> {
        &self.gate
    }

    /// Sets the entities of the nodes released early (see [`State::release_early`]), one per
    /// device ring, on that ring's scheduler.
    pub(crate) fn set_early_entities(&self, entities: KVec<Arc<Entity<NodeJob>>>) {
        let old = {
            let mut state = self.state.lock();
            if state.closed {
                return;
            }
            core::mem::replace(&mut state.early, entities)
        };
        drop(old);
    }

    /// Marks launch `l` as having a fired wait; from a fence callback.
    fn mark_fired(&self, l: u32) {
        let l = l as usize;
        let Some(word) = self.fired.get(l / FIRED_BITS) else {
            return;
        };
        let bit = 1u64 << (l % FIRED_BITS);
        let mut old = word.load(Relaxed);
        // Ordered after the store to the wait's `fired` flag.
        while let Err(now) = word.cmpxchg(old, old | bit, Full) {
            old = now;
        }
    }

    /// Takes a free launch slot for a submission whose nodes are `charge`d, waiting while the
    /// client has [`MAX_LAUNCHES`] graphs in flight; `ERESTARTSYS` if a signal arrives first.
    pub(crate) fn reserve(self: &Arc<Self>, charge: Charge) -> Result<Reservation> {
        let mut state = self.state.lock();
        loop {
            let free = state
                .launches
                .iter()
                .position(|s| matches!(s, LaunchSlot::Free));
            if let Some(l) = free {
                state.launches[l] = LaunchSlot::Reserved;
                return Ok(Reservation {
                    disp: self.clone(),
                    slot: l as u32,
                    charge: Some(charge),
                    id: 0,
                });
            }
            if self.slot_freed.wait_interruptible(&mut state) {
                return Err(ERESTARTSYS);
            }
        }
    }

    /// Drops the completed launches, outside of the lock, and wakes the submitters waiting for
    /// their slots.
    fn reap(&self) {
        let mut l = 0;
        loop {
            let launch = {
                let mut state = self.state.lock();
                if state.done == 0 {
                    break;
                }
                let Some(i) = state.launches[l..]
                    .iter()
                    .position(|s| matches!(s, LaunchSlot::Done(_)))
                else {
                    break;
                };
                l += i;
                state.done -= 1;
                self.slot_freed.notify_all();
                match core::mem::replace(&mut state.launches[l], LaunchSlot::Free) {
                    LaunchSlot::Done(launch) => launch,
                    _ => continue,
                }
            };
            drop(launch);
        }
    }

    /// Gives back a slot taken by [`Dispatcher::reserve`] for a submission that failed.
    fn unreserve(&self, l: u32) {
        let mut state = self.state.lock();
        if let Some(slot @ LaunchSlot::Reserved) = state.launches.get_mut(l as usize) {
            *slot = LaunchSlot::Free;
            self.slot_freed.notify_all();
        }
    }

    /// The completion token of node `node` of the launch tagged `tag`.
    pub(crate) fn done(
        self: &Arc<Self>,
        tag: &Arc<LaunchTag>,
        node: u32,
        exec: Arc<NodeExec>,
    ) -> Done {
        Done {
            disp: self.clone(),
            tag: tag.clone(),
            node,
            exec,
            finished: None,
            report: true,
        }
    }

    /// Builds the jobs of a launch of `plan`: `make` creates node `v`'s job, whose data holds
    /// the completion token [`Dispatcher::done`] gives for `tag`.
    pub(crate) fn instance(
        self: &Arc<Self>,
        plan: &Plan,
        mut make: impl FnMut(u32, &Arc<LaunchTag>) -> Result<NodeInit>,
    ) -> Result<Instance> {
        let tag = Arc::new(
            LaunchTag {
                slot: Atomic::new(NO_SLOT),
            },
            client_gfp(),
        )?;
        let mut slots = KVVec::with_capacity(plan.len(), client_gfp())?;
        for v in 0..plan.len() as u32 {
            let init = make(v, &tag)?;
            slots.push(
                Slot {
                    host: init.job.is_none().then_some(Host::Waiting),
                    start: None,
                    job: init.job,
                    exec: init.exec,
                    out: None,
                    error: None,
                    ready_at: None,
                },
                client_gfp(),
            )?;
        }
        Ok(Instance {
            tag,
            slots,
            run: Run::new(plan, client_gfp())?,
        })
    }

    /// Starts an instance of `plan` in the launch slot `slot`, with its waits and signals.
    ///
    /// `waits` are the fences the launch waits for, each for one node or (`None`) the whole
    /// graph; `signalled` are the nodes that syncobj signals refer to (`node | ON_START` for a
    /// host node's start). Returns their fences
    /// and, if `graph_signalled`, that of the whole graph. The work done here is proportional
    /// to the waits, signals and source nodes, not to the size of the graph. Nothing fails
    /// after the launch is installed; on failure, the slot is given back and the instance
    /// dropped.
    pub(crate) fn launch(
        self: &Arc<Self>,
        mut slot: Reservation,
        plan: Arc<Plan>,
        inst: Instance,
        waits: &[(Option<u32>, ARef<Fence>)],
        signalled: &[u32],
        graph_signalled: bool,
    ) -> Result<LaunchFences> {
        // Dropping the reservation gives the slot back if the launch failed.
        let l = slot.slot;
        let charge = slot.charge.take();
        let r = self.start(
            l,
            slot.id,
            plan,
            inst,
            waits,
            signalled,
            graph_signalled,
            charge,
        );
        if r.is_ok() {
            slot.slot = NO_SLOT;
        }
        r
    }

    #[expect(clippy::too_many_arguments)]
    fn start(
        self: &Arc<Self>,
        l: u32,
        id: u64,
        plan: Arc<Plan>,
        inst: Instance,
        waits: &[(Option<u32>, ARef<Fence>)],
        signalled: &[u32],
        graph_signalled: bool,
        charge: Option<Charge>,
    ) -> Result<LaunchFences> {
        let Instance {
            tag,
            mut slots,
            mut run,
        } = inst;
        let mut outs = KVec::with_capacity(signalled.len(), client_gfp())?;
        for &key in signalled {
            let slot = slots.get_mut((key & !ON_START) as usize).ok_or(EINVAL)?;
            let (out, name) = if key & ON_START != 0 {
                (&mut slot.start, c"tas-host-start")
            } else {
                (&mut slot.out, c"tas-node")
            };
            if out.is_none() {
                let fence = FenceContext::new(c"tas", name).new_fence((), client_gfp())?;
                outs.push((key, fence.unchained()), client_gfp())?;
                *out = Some(fence);
            }
        }
        let graph_out = if graph_signalled {
            Some(FenceContext::new(c"tas", c"tas-graph").new_fence((), client_gfp())?)
        } else {
            None
        };
        let graph_fence = graph_out.as_ref().map(DriverFence::unchained);

        let mut cbs = KVec::with_capacity(waits.len(), client_gfp())?;
        for (node, fence) in waits {
            let wait = Wait {
                disp: self.clone(),
                slot: l,
                node: *node,
                fired: Atomic::new(false),
            };
            match KBox::pin_init(FenceCallback::new(fence, wait), client_gfp()) {
                Ok(cb) => {
                    match node {
                        Some(v) => run.add_wait(*v),
                        None => plan.sources().iter().for_each(|&v| run.add_wait(v)),
                    }
                    cbs.push(cb, client_gfp())?;
                }
                // Already signalled: nothing to wait for.
                Err(e) if e == ENOENT => {}
                Err(e) => return Err(e),
            }
        }

        // Room in the ready set, allocated outside of the lock.
        loop {
            let need = self.state.lock().set.shortfall(&plan);
            let Some((idx, need)) = need else {
                break;
            };
            // Twice what is needed, so that growing is amortised over many launches.
            let storage = KVVec::with_capacity(need.max(8).saturating_mul(2), client_gfp())?;
            self.state.lock().set.install(idx, storage);
        }

        let launch = KBox::new(
            Launch {
                id,
                plan,
                queued_at: Instant::now(),
                run,
                slots,
                graph_out,
                first_error: None,
                resolved: KVec::from_elem(false, cbs.len(), client_gfp())?,
                waits: cbs,
                _charge: charge,
            },
            client_gfp(),
        )?;

        let mut state = self.state.lock();
        let st = &mut *state;
        let admitted = if st.closed {
            Err(ESRCH)
        } else {
            st.set.admit(&launch.plan)
        };
        if let Err(e) = admitted {
            drop(state);
            discard(launch);
            return Err(e);
        }
        // Point of no return.
        tag.slot.store(l, Relaxed);
        st.launches[l as usize] = LaunchSlot::Live(launch);
        if let LaunchSlot::Live(launch) = &mut st.launches[l as usize] {
            let now = now_ns();
            let Launch {
                plan, run, slots, ..
            } = &mut **launch;
            let set = &mut st.set;
            run.start(plan, |r| on_ready(set, plan, slots, l, r, now));
            launch.resolve_waits(&mut st.set, l);
            // A graph without nodes does not exist (checked by the caller), so the launch
            // completes through its nodes.
        }
        st.release(self);
        Ok((outs, graph_fence))
    }

    /// Cancels everything not released yet; called when the client goes away.
    ///
    /// Released nodes complete through the scheduler (their entities are dropped next, which
    /// cancels those still queued).
    pub(crate) fn close(self: &Arc<Self>) {
        let (launches, host_timer) = {
            let mut state = self.state.lock();
            state.closed = true;
            state.done = 0;
            state.set.remove_if(|_| true);
            state.hosts = [None; MAX_HOSTS];
            (
                core::mem::take(&mut state.launches),
                state.host_timer.take(),
            )
        };
        // Cancels the timer; its callback may have queued the work item, which is flushed below.
        drop(host_timer);
        // The client's gang waiting in the gate, if any, will not be released any more.
        self.gate.order.lock().withdraw(&Client(self.clone()), wake);
        // Dropped outside of the lock, like the file's other entities, which cancels the early
        // nodes still queued (their completion takes the lock).
        let early = core::mem::take(&mut self.state.lock().early);
        drop(early);
        for slot in launches {
            let LaunchSlot::Live(mut launch) = slot else {
                continue;
            };
            // No callback can fire once they are dropped.
            drop(core::mem::take(&mut launch.waits));
            let graph_out = launch.graph_out.take();
            for slot in core::mem::take(&mut launch.slots) {
                if let Some(job) = slot.job {
                    slot.exec.finish(now_ns(), Some(ESRCH));
                    drop(disarm(job));
                }
                // A released host node's thread is not waited for.
                if matches!(slot.host, Some(Host::Waiting | Host::Released)) {
                    slot.exec.finish(now_ns(), Some(ESRCH));
                }
                if let Some(start) = slot.start {
                    start.signal_with_error(ESRCH);
                }
                if let Some(out) = slot.out {
                    out.signal_with_error(ESRCH);
                }
            }
            if let Some(out) = graph_out {
                out.signal_with_error(ESRCH);
            }
        }
        self.work.flush();
    }

    /// Completes released host node `node` of graph `id` with `error`, as its thread reports.
    ///
    /// Fails with `ENOENT` if no launch of graph `id` is in flight or it has no node `node`,
    /// `EINVAL` if the node is not a host node, `EBUSY` if it is not released yet and
    /// `EALREADY` if it has completed.
    pub(crate) fn host_done(self: &Arc<Self>, id: u64, node: u32, error: Option<Error>) -> Result {
        let mut state = self.state.lock();
        let is_id = |s: &LaunchSlot| matches!(s, LaunchSlot::Live(launch) if launch.id == id);
        // A node that can be reported is released, so it is among the few in `hosts`; the
        // launches are scanned only to tell why another cannot.
        let released = state
            .hosts
            .iter()
            .flatten()
            .find(|w| w.v == node && state.launches.get(w.l as usize).is_some_and(is_id))
            .map(|w| w.l);
        let l = match released {
            Some(l) => l,
            None => state.launches.iter().position(is_id).ok_or(ENOENT)? as u32,
        };
        state.complete_host(l, node, error)?;
        state.release(self);
        Ok(())
    }
}
