// SPDX-License-Identifier: GPL-2.0

//! The virtual execution engine: rings that execute graph nodes.
//!
//! Each ring is a DRM GPU scheduler (through the Rust `drm::sched` abstraction) whose credit
//! limit stands for the depth of the hardware queue, and a "hardware" FIFO of the nodes the
//! scheduler has started. A work item per ring plays the GPU: it takes the node at the head of
//! the FIFO, lets its simulated duration pass in chunks of at most [`CHUNK_NS`] (so that an
//! aborted node stops within a chunk), performs the node's operation on the CPU and signals the
//! node's hardware fence. The CPU that submitted the node is never blocked.
//!
//! The simulated time passes on a high-resolution timer per ring that expires at the chunk's
//! end ([`Alarm`]): `fsleep()` would let its timer expire up to a quarter of the sleep late (its
//! slack) and sleeps of more than four ticks to the next tick, which made a 0.5 ms node run
//! for milliseconds. With `CONFIG_HIGH_RES_TIMERS` a node runs for its duration plus the
//! wake-up of the ring's worker; without, timers expire on the tick. The worker's last sleep
//! before a deadline ends its usual wake-up latency early, and it waits out the rest on the CPU
//! (at most [`MAX_LEAD_NS`]), so that a node ends on time rather than a wake-up late.
//!
//! A node whose predecessors are all on their rings may come to its ring before they finish (an
//! early node, see [`NodeExec::wait_on_ring`]), as hardware queues a job behind a semaphore wait:
//! the ring holds it until the one fence it waits for signals, starts other nodes meanwhile, and
//! a callback on that fence queues its work item, so the node starts from the completing ring's
//! work without the dispatcher or the scheduler in between. A ring holds one waiting early node
//! at a time (its wait slot, given back when the node starts) and one running, which the
//! waiting one cannot preempt: each on a credit of its own, on a hardware fence context of the
//! early nodes.
//!
//! Fence signalling critical path: [`NodeJob::run`] and [`NodeJob::timed_out`] only move
//! pre-allocated objects around; the worker signals fences and touches buffers that were mapped
//! at submit time, and does not allocate. Buffer mappings are released by a [`Reaper`] of their
//! own, never on that path.

use core::{
    mem::ManuallyDrop,
    ptr, //
};

use kernel::{
    alloc::Flags,
    device,
    dma_fence::{
        DriverFence,
        Fence,
        FenceAllocation,
        FenceCallback,
        FenceCallbackHandler,
        FenceContext,
        SignaledFence,
        SignallingGuard, //
    },
    drm::{
        gem::shmem::VMapOwned,
        sched::{
            JobImpl,
            RunningJob,
            Scheduler,
            SchedulerOptions, //
        },
    },
    impl_has_hr_timer,
    list::{
        List,
        ListArc,
        ListLinks, //
    },
    new_condvar, new_spinlock, new_spinlock_irq, new_work,
    prelude::*,
    processor::cpu_relax,
    sync::{
        aref::ARef,
        atomic::{
            Acquire,
            Atomic,
            Full,
            Relaxed,
            Release, //
        },
        completion::Completion,
        Arc,
        ArcBorrow,
        CondVar,
        SpinLock,
        SpinLockIrq, //
    },
    time::{
        hrtimer::{
            HrTimer,
            HrTimerCallback,
            HrTimerCallbackContext,
            HrTimerPointer,
            HrTimerRestart,
            RelativeMode, //
        },
        Delta,
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

use crate::{
    dispatch::{
        Done,
        GangGate, //
    },
    driver::client_gfp,
    file::Charge,
    gem::TasObject, //
};

use core::mem::MaybeUninit;

/// Longest stretch of simulated execution between two checks for an abort.
pub(crate) const CHUNK_NS: u64 = 1_000_000;

/// The most that a ring's worker wakes ahead of a node's deadline, and hence waits on the CPU.
const MAX_LEAD_NS: u64 = 250_000;

/// The number of urgency levels of nodes (0 most urgent).
///
/// A ring lets a more urgent node in between the chunks of a running one, so nodes of different
/// urgencies complete out of FIFO order. Each level therefore has a hardware fence context of
/// its own, within which nodes complete in FIFO order.
pub(crate) const URGENCIES: usize = 3;

/// [`Ring`]'s `early_running` while no early node runs on the ring.
const NOT_RUNNING: u32 = u32::MAX;

/// Name of the graph ring, which only completes graphs.
const GRAPH_RING_NAME: &CStr = c"tas-graph";

/// Names of the rings' schedulers and fence timelines.
const RING_NAMES: [&CStr; crate::driver::MAX_RINGS as usize] = [
    c"tas-ring0",
    c"tas-ring1",
    c"tas-ring2",
    c"tas-ring3",
    c"tas-ring4",
    c"tas-ring5",
    c"tas-ring6",
    c"tas-ring7",
    c"tas-ring8",
    c"tas-ring9",
    c"tas-ring10",
    c"tas-ring11",
    c"tas-ring12",
    c"tas-ring13",
    c"tas-ring14",
    c"tas-ring15",
];

/// The high-resolution timer that a ring's worker sleeps on: the ring's simulated clock.
///
/// Allocated on its own rather than on the worker's stack, where debug objects would flag the
/// timer, and rather than inside the [`Ring`], whose work item already is the [`Arc`] pointer.
#[pin_data]
struct Alarm {
    #[pin]
    timer: HrTimer<Self>,
    /// Whether the timer expired since the worker started it.
    #[pin]
    expired: SpinLockIrq<bool>,
    #[pin]
    wake: CondVar,
    /// How late the worker ran after its timer expired: a moving average over its sleeps,
    /// each counted up to [`MAX_LEAD_NS`].
    late_ns: Atomic<u64>,
}

impl Alarm {
    fn new() -> Result<Arc<Self>> {
        Arc::pin_init(
            pin_init!(Self {
                timer <- HrTimer::new(),
                expired <- new_spinlock_irq!(false, "tas::Alarm::expired"),
                wake <- new_condvar!("tas::Alarm::wake"),
                late_ns: Atomic::new(0),
            }),
            GFP_KERNEL,
        )
    }

    /// Sleeps for `ns` nanoseconds, until the timer expires: without the slack that `fsleep()`
    /// gives its timer, and without rounding to the tick where high-resolution timers exist.
    fn sleep(self: &Arc<Self>, ns: u64) {
        let delta = Delta::from_nanos(i64::try_from(ns).unwrap_or(i64::MAX));
        let expiry = now_ns().saturating_add(ns);
        let timer = {
            let mut expired = self.expired.lock();
            *expired = false;
            let timer = self.clone().start(delta);
            while !*expired {
                self.wake.wait(&mut expired);
            }
            timer
        };
        // Dropping the handle cancels the timer, which has expired: it waits, outside of the
        // lock, for a callback that is still returning.
        drop(timer);
        // Only the ring's work item sleeps, and it never runs twice at once.
        let late = now_ns().saturating_sub(expiry).min(MAX_LEAD_NS);
        let avg = self.late_ns.load(Relaxed);
        self.late_ns.store(avg - avg / 8 + late / 8, Relaxed);
    }

    /// How long before a deadline the worker's last sleep ends, so that it runs about on time:
    /// how late it usually runs after its timer expired.
    fn lead(&self) -> u64 {
        self.late_ns.load(Relaxed)
    }
}

impl HrTimerCallback for Alarm {
    type Pointer<'a> = Arc<Self>;

    fn run(this: ArcBorrow<'_, Self>, _ctx: HrTimerCallbackContext<'_, Self>) -> HrTimerRestart {
        *this.expired.lock() = true;
        this.wake.notify_all();
        HrTimerRestart::NoRestart
    }
}

impl_has_hr_timer! {
    // Relative mode expires in hard interrupt context, in a soft interrupt under PREEMPT_RT.
    impl HasHrTimer<Self> for Alarm {
        mode: RelativeMode<Monotonic>, field: self.timer
    }
}

/// The current `CLOCK_MONOTONIC` time in nanoseconds, the clock of fence timestamps.
pub(crate) fn now_ns() -> u64 {
    // Never negative (an invariant of `Instant`).
    u64::try_from(Instant::<Monotonic>::now().as_nanos()).unwrap_or(0)
}

/// A kernel mapping of a buffer, held by the ranges of node operations that use it.
///
/// Unmapping takes the buffer's reservation lock, which may be held while waiting for the fences
/// of the rings: the last reference to a node can be dropped where its fence is signalled (the
/// ring's work item, the dispatcher's completion of the node), so a mapping is never released
/// there but handed to the [`Reaper`].
#[pin_data]
pub(crate) struct Mapping {
    map: VMapOwned<TasObject>,
    #[pin]
    links: ListLinks,
}

kernel::list::impl_list_arc_safe! {
    impl ListArcSafe<0> for Mapping { untracked; }
}

kernel::list::impl_list_item! {
    impl ListItem<0> for Mapping { using ListLinks { self.links }; }
}

/// Releases buffer mappings in a work item of its own, off the paths that signal fences.
#[pin_data]
pub(crate) struct Reaper {
    #[pin]
    maps: SpinLock<List<Mapping>>,
    wq: &'static Queue,
    #[pin]
    work: Work<Reaper>,
}

impl_has_work! {
    impl HasWork<Self> for Reaper { self.work }
}

impl Reaper {
    /// Creates the reaper of a device whose work items run on `wq`.
    pub(crate) fn new(wq: &'static Queue) -> Result<Arc<Self>> {
        Arc::pin_init(
            pin_init!(Self {
                maps <- new_spinlock!(List::new()),
                wq,
                work <- new_work!("tas::Reaper::work"),
            }),
            GFP_KERNEL,
        )
    }

    /// Releases `map` in the reaper's work item. Neither allocates nor sleeps.
    fn release(self: &Arc<Self>, map: ListArc<Mapping>) {
        self.maps.lock().push_back(map);
        // Already queued if this fails: the work item takes the mapping with the others.
        let _ = self.wq.enqueue(self.clone());
    }
}

impl WorkItem for Reaper {
    type Pointer = Arc<Reaper>;

    fn run(this: Arc<Reaper>) {
        loop {
            // The lock guard goes at the end of this statement, before the mapping does.
            let map = this.maps.lock().pop_front();
            match map {
                Some(map) => drop(map),
                None => return,
            }
        }
    }
}

/// A byte range of a buffer, mapped for the CPU that plays the ring.
///
/// # Invariants
///
/// - `offset + size` does not overflow and is at most the size of the mapping.
/// - `map` is only taken out by `drop`.
pub(crate) struct BufRange {
    map: ManuallyDrop<ListArc<Mapping>>,
    reaper: Arc<Reaper>,
    offset: usize,
    size: usize,
}

impl BufRange {
    /// Creates the range of `size` bytes at `offset` of `map`, whose mapping `reaper` releases.
    ///
    /// Returns `EINVAL` if the range does not fit in the mapping.
    pub(crate) fn new(
        map: VMapOwned<TasObject>,
        reaper: &Arc<Reaper>,
        offset: usize,
        size: usize,
    ) -> Result<Self> {
        use kernel::io::Io;
        let end = offset.checked_add(size).ok_or(EINVAL)?;
        if end > (&map).size() {
            return Err(EINVAL);
        }
        let map = ListArc::pin_init(
            try_pin_init!(Mapping {
                map,
                links <- ListLinks::new(),
            }? Error),
            client_gfp(),
        )?;
        // INVARIANT: The range was checked above; `map` is taken out only by `drop`.
        Ok(Self {
            map: ManuallyDrop::new(map),
            reaper: reaper.clone(),
            offset,
            size,
        })
    }

    fn base(&self) -> *mut u8 {
        use kernel::io::IoBase;
        (&self.map.map).as_view().as_ptr().cast::<u8>()
    }

    /// The range, for one execution of an operation.
    fn view(&self) -> View<'_> {
        // INVARIANT: The range is within the mapping (type invariant), which lives as long as
        // `self`.
        View {
            // `offset <= size of the mapping`, so this stays within (or one past) the mapping.
            base: self.base().wrapping_add(self.offset),
            size: self.size,
            _map: core::marker::PhantomData,
        }
    }
}

impl Drop for BufRange {
    fn drop(&mut self) {
        // SAFETY: `map` is not used again: this is the range's destructor.
        let map = unsafe { ManuallyDrop::take(&mut self.map) };
        self.reaper.release(map);
    }
}

/// A byte range of a mapped buffer, as one execution of an operation uses it.
///
/// # Invariants
///
/// `base..base + size` is within a buffer mapping that lives at least for `'a`.
#[derive(Clone, Copy)]
struct View<'a> {
    base: *mut u8,
    size: usize,
    _map: core::marker::PhantomData<&'a Mapping>,
}

impl<'a> View<'a> {
    /// A range of no bytes: reads as zero, writes nothing.
    fn empty() -> Self {
        // INVARIANT: An empty range is within any mapping.
        Self {
            base: ptr::null_mut(),
            size: 0,
            _map: core::marker::PhantomData,
        }
    }

    /// The `size` bytes at `offset` of the range, or an empty range if they are not within it.
    fn sub(self, offset: usize, size: usize) -> Self {
        match offset.checked_add(size) {
            // INVARIANT: Within `self`, which is within its mapping.
            Some(end) if end <= self.size => Self {
                base: self.base.wrapping_add(offset),
                size,
                _map: self._map,
            },
            _ => Self::empty(),
        }
    }

    // The memory of a range is shared: userspace writes it through its own mappings, and the
    // operations of other rings, or other operands of the same operation, may read and write it
    // at the same time, also through other mappings of the same buffer. Every access below is
    // atomic (`READ_ONCE()`/`WRITE_ONCE()`), so none of them is a data race whatever the others
    // do; what a racing operation reads is unspecified, as on hardware.

    /// The byte at `offset` of the range as an atomic, or `None` if it is outside the range.
    fn byte(&self, offset: usize) -> Option<&'a Atomic<i8>> {
        if offset >= self.size {
            return None;
        }
        // SAFETY: `offset < size`, so the byte is within the range, which is within a mapping
        // that lives for `'a` (type invariant); a byte is always aligned. The driver accesses
        // the mapping only atomically, and the accesses of userspace through its own mappings
        // are outside the kernel's memory model, as for any memory that userspace shares.
        Some(unsafe { Atomic::from_ptr(self.base.add(offset).cast::<i8>()) })
    }

    /// The 32-bit word `index` of the range as an atomic, or `None` if it is outside the range
    /// or not aligned to 4 bytes (an operand at an offset that is not a multiple of 4).
    fn aligned_word(&self, index: usize) -> Option<&'a Atomic<u32>> {
        if index >= self.words() {
            return None;
        }
        // `index < size / 4`: within the range, so the multiplication does not overflow.
        let ptr = self.base.wrapping_add(index * 4);
        if (ptr as usize) % 4 != 0 {
            return None;
        }
        // SAFETY: The word is within the range, which is within a mapping that lives for `'a`
        // (type invariant), and aligned (checked above). As in `byte()`, the driver accesses
        // the mapping only atomically.
        Some(unsafe { Atomic::from_ptr(ptr.cast::<u32>()) })
    }

    /// Reads the 32-bit word `index` of the range; a word outside the range reads as zero.
    fn word(&self, index: usize) -> u32 {
        if let Some(word) = self.aligned_word(index) {
            return word.load(Relaxed);
        }
        if index >= self.words() {
            return 0;
        }
        let mut bytes = [0u8; 4];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = self
                .byte(index * 4 + i)
                .map_or(0, |b| b.load(Relaxed).to_ne_bytes()[0]);
        }
        u32::from_ne_bytes(bytes)
    }

    /// Writes the 32-bit word `index` of the range; a word outside the range is not written.
    fn set_word(&self, index: usize, value: u32) {
        if let Some(word) = self.aligned_word(index) {
            word.store(value, Relaxed);
            return;
        }
        if index >= self.words() {
            return;
        }
        for (i, b) in value.to_ne_bytes().into_iter().enumerate() {
            if let Some(byte) = self.byte(index * 4 + i) {
                byte.store(i8::from_ne_bytes([b]), Relaxed);
            }
        }
    }

    fn words(&self) -> usize {
        self.size / 4
    }

    /// Copies the bytes of `src` that fit to the start of the range.
    ///
    /// Where the two overlap within one mapping, the result is that of `memmove()` if nothing
    /// else writes them meanwhile; through two mappings of one buffer it is unspecified, as for
    /// a copy engine given overlapping operands.
    fn copy_from(&self, src: View<'_>) {
        let len = self.size.min(src.size);
        let (dst_addr, src_addr) = (self.base as usize, src.base as usize);
        // Word by word where both are aligned, byte by byte where not and for the tail.
        let words = if dst_addr % 4 == 0 && src_addr % 4 == 0 {
            len / 4
        } else {
            0
        };
        let copy_word = |i: usize| {
            if let (Some(d), Some(s)) = (self.aligned_word(i), src.aligned_word(i)) {
                d.store(s.load(Relaxed), Relaxed);
            }
        };
        let copy_byte = |i: usize| {
            if let (Some(d), Some(s)) = (self.byte(i), src.byte(i)) {
                d.store(s.load(Relaxed), Relaxed);
            }
        };
        if dst_addr > src_addr {
            // The destination may overlap the end of the source: copy from the end.
            (words * 4..len).rev().for_each(copy_byte);
            (0..words).rev().for_each(copy_word);
        } else {
            (0..words).for_each(copy_word);
            (words * 4..len).for_each(copy_byte);
        }
    }
}

/// The operation of a node with its operands, validated at submit time.
pub(crate) enum Op {
    Nop,
    Fill {
        dst: BufRange,
        value: u32,
    },
    Copy {
        dst: BufRange,
        src: BufRange,
    },
    Add {
        dst: BufRange,
        a: BufRange,
        b: BufRange,
    },
    MatMul {
        dst: BufRange,
        a: BufRange,
        b: BufRange,
        m: usize,
        n: usize,
        k: usize,
    },
}

impl Op {
    fn execute(&self) {
        self.execute_in(|_, range| range.view());
    }

    /// Executes the operation on the ranges that `view` gives for its operands (0: the
    /// destination, 1 and 2: the sources), each bounded by its own mapping.
    fn execute_in<'a>(&'a self, view: impl Fn(usize, &'a BufRange) -> View<'a>) {
        match self {
            Op::Nop => {}
            Op::Fill { dst, value } => {
                let dst = view(0, dst);
                (0..dst.words()).for_each(|i| dst.set_word(i, *value))
            }
            // Submit checks that the sizes match and that the template's ranges do not overlap;
            // the copy relies on neither, and binds may make them overlap.
            Op::Copy { dst, src } => view(0, dst).copy_from(view(1, src)),
            Op::Add { dst, a, b } => {
                let (dst, a, b) = (view(0, dst), view(1, a), view(2, b));
                (0..dst.words()).for_each(|i| dst.set_word(i, a.word(i).wrapping_add(b.word(i))))
            }
            Op::MatMul { dst, a, b, m, n, k } => {
                let (dst, a, b) = (view(0, dst), view(1, a), view(2, b));
                for row in 0..*m {
                    for col in 0..*n {
                        let mut acc = 0u32;
                        for i in 0..*k {
                            acc = acc.wrapping_add(
                                a.word(row * k + i).wrapping_mul(b.word(i * n + col)),
                            );
                        }
                        dst.set_word(row * n + col, acc);
                    }
                }
            }
        }
    }
}

/// The operations of a template, shared by all of its launches.
pub(crate) struct TemplateOps {
    ops: KVVec<Op>,
    /// The slot of each operand of each operation (see [`Op::execute_in`]), `u32::MAX` where the
    /// operation has no such operand.
    slots: KVVec<[u32; 3]>,
}

impl TemplateOps {
    /// Creates the operations of a template with the buffer slots of their operands.
    pub(crate) fn new(ops: KVVec<Op>, slots: KVVec<[u32; 3]>) -> Self {
        Self { ops, slots }
    }
}

/// The buffers a template launch binds in place of the template's.
pub(crate) struct Binds {
    /// Each bound slot once, with the range of its buffer that covers the slot's extent, in
    /// increasing slot order.
    slots: KVVec<(u32, BufRange)>,
}

impl Binds {
    /// Creates the binds of `slots`, which must be sorted by slot, each slot once.
    ///
    /// Returns `EINVAL` if they are not.
    pub(crate) fn new(slots: KVVec<(u32, BufRange)>) -> Result<Self> {
        if slots.windows(2).any(|w| w[0].0 >= w[1].0) {
            return Err(EINVAL);
        }
        Ok(Self { slots })
    }

    /// The range that an operand of slot `slot` uses instead of `range` of the template.
    fn view<'a>(&'a self, slot: u32, range: &'a BufRange) -> View<'a> {
        match self.slots.binary_search_by_key(&slot, |(s, _)| *s) {
            Ok(i) => self.slots[i].1.view().sub(range.offset, range.size),
            Err(_) => range.view(),
        }
    }
}

/// The operations of one launch of a template: the template's, on the buffers of the launch.
pub(crate) struct LaunchOps {
    ops: Arc<TemplateOps>,
    /// Set by the launch, before its nodes are queued, if it binds buffers.
    binds: kernel::sync::SetOnce<Binds>,
}

impl LaunchOps {
    /// Creates the operations of a launch of `ops`, on the template's buffers until
    /// [`Self::bind`].
    pub(crate) fn new(ops: Arc<TemplateOps>) -> Self {
        Self {
            ops,
            binds: kernel::sync::SetOnce::new(),
        }
    }

    /// Makes the launch use the buffers of `binds`. Neither allocates nor fails; only the
    /// first call binds.
    pub(crate) fn bind(&self, binds: Binds) {
        // A second call drops its binds: the launch already has its buffers.
        let _ = self.binds.populate(binds);
    }

    fn execute(&self, i: usize) {
        let Some(op) = self.ops.ops.get(i) else {
            return;
        };
        match (self.binds.as_ref(), self.ops.slots.get(i)) {
            (Some(binds), Some(slots)) => op.execute_in(|j, range| {
                binds.view(slots.get(j).copied().unwrap_or(u32::MAX), range)
            }),
            _ => op.execute(),
        }
    }
}

/// The operation of a node: its own, or one of a template's, shared by all of its launches.
pub(crate) enum OpRef {
    Own(Op),
    Shared(Arc<LaunchOps>, usize),
}

impl OpRef {
    fn execute(&self) {
        match self {
            OpRef::Shared(ops, i) => ops.execute(*i),
            OpRef::Own(op) => op.execute(),
        }
    }
}

kernel::declare_trace! {
    /// Emits the `tas_gang_start` trace event (see `tas_trace.h`).
    ///
    /// # Safety
    ///
    /// None: the event takes integers only.
    unsafe fn tas_gang_start(rings: u64, members: u32, first_ns: u64, skew_ns: u64);
}

kernel::declare_trace! {
    /// Emits the `tas_node_start` trace event (see `tas_trace.h`).
    ///
    /// # Safety
    ///
    /// None: the event takes integers and a flag only.
    unsafe fn tas_node_start(
        ring: u32,
        fence_context: u64,
        fence_seqno: u64,
        early: bool,
        on_ring_ns: u64,
        ready_ns: u64,
        start_ns: u64,
    );
}

/// Replaces the value of `a` with `v` as long as `better(v, value)`.
fn fetch_replace_if(a: &Atomic<u64>, v: u64, better: impl Fn(u64, u64) -> bool) {
    let mut cur = a.load(Relaxed);
    while better(v, cur) {
        match a.cmpxchg(cur, v, Relaxed) {
            Ok(_) => return,
            Err(now) => cur = now,
        }
    }
}

/// [`Gang::order`]: not admitted by the device's gang gate yet.
const GANG_WAITING: i32 = 0;
/// [`Gang::order`]: admitted, holding its rings in the gang gate.
const GANG_HOLDING: i32 = 1;
/// [`Gang::order`]: started or cancelled; its rings are given back once admitted.
const GANG_GONE: i32 = 2;

/// The start barrier of a gang in one launch: its members, released together onto idle rings,
/// start once all of them have reached the head of their rings; the last one to arrive wakes
/// the others. A member that fails cancels the others, which also wakes them.
///
/// The gang holds its rings in the device's [`GangGate`] from its admission until it starts or
/// is cancelled, whichever comes later of the admission and that.
#[pin_data]
pub(crate) struct Gang {
    /// Members that have not reached the head of their ring yet.
    waiting: Atomic<i32>,
    /// The error that cancelled the gang (a negative errno), 0 if none.
    error: Atomic<i32>,
    /// Completed when every member has arrived or the gang was cancelled.
    #[pin]
    go: Completion,
    /// The rings of the members, as a bit mask.
    rings: u64,
    gate: Arc<GangGate>,
    /// `GANG_WAITING`, `GANG_HOLDING` or `GANG_GONE`.
    order: Atomic<i32>,
    members: u32,
    /// Members that have started, and the first and last of their start times.
    started: Atomic<u32>,
    first_ns: Atomic<u64>,
    last_ns: Atomic<u64>,
}

impl Gang {
    /// Creates the barrier of a gang of `members` nodes on `rings` (a bit mask), admitted by
    /// `gate`, allocated with `flags`.
    pub(crate) fn new(
        members: u32,
        rings: u64,
        gate: &Arc<GangGate>,
        flags: Flags,
    ) -> Result<Arc<Self>> {
        let waiting = i32::try_from(members).map_err(|_| EINVAL)?;
        Arc::pin_init(
            pin_init!(Gang {
                waiting: Atomic::new(waiting),
                error: Atomic::new(0),
                go <- Completion::new(),
                rings,
                gate: gate.clone(),
                order: Atomic::new(GANG_WAITING),
                members,
                started: Atomic::new(0),
                first_ns: Atomic::new(u64::MAX),
                last_ns: Atomic::new(0),
            }),
            flags,
        )
    }

    /// Cancels the members that have not finished, with `ECANCELED`.
    pub(crate) fn cancel(&self) {
        self.error.store(ECANCELED.to_errno(), Relaxed);
        self.go.complete_all();
        self.leave();
    }

    /// Records that the gate admitted the gang, which now holds its rings; gives them back at
    /// once if the gang was cancelled before.
    pub(crate) fn admitted(&self) {
        if self
            .order
            .cmpxchg(GANG_WAITING, GANG_HOLDING, Full)
            .is_err()
        {
            self.gate.started(self.rings);
        }
    }

    /// Records that a member started at `ts`; once all have, emits the gang's start skew.
    fn member_started(&self, ts: u64) {
        fetch_replace_if(&self.first_ns, ts, |v, cur| v < cur);
        fetch_replace_if(&self.last_ns, ts, |v, cur| v > cur);
        // Orders the updates of the times before the count, which the last member reads.
        if self.started.fetch_add(1, Full) + 1 == self.members {
            let first = self.first_ns.load(Relaxed);
            let skew = self.last_ns.load(Relaxed).saturating_sub(first);
            // SAFETY: The event takes integers only.
            unsafe { tas_gang_start(self.rings, self.members, first, skew) };
        }
    }

    /// The gang started or was cancelled: gives its rings back if it holds them.
    fn leave(&self) {
        if self.order.xchg(GANG_GONE, Full) == GANG_HOLDING {
            self.gate.started(self.rings);
        }
    }

    fn error(&self) -> Option<Error> {
        match self.error.load(Relaxed) {
            0 => None,
            e => Some(Error::from_errno(e)),
        }
    }
}

/// Queues a ring's work item when the ring wait of its early node signals.
pub(crate) struct Kick(Arc<Ring>);

impl FenceCallbackHandler for Kick {
    fn fence_signaled(&self, _fence: &SignaledFence) {
        // Fails only if the work item is queued and has not run yet: it will find the node.
        let _ = self.0.wq.enqueue(self.0.clone());
    }
}

/// The room for the callback that wakes an early node's ring, reserved with the node.
type KickRoom = KBox<MaybeUninit<FenceCallback<Kick>>>;

/// The wait slot of a ring, held by its early node; given back when dropped.
struct WaitSlot(Arc<Ring>);

impl Drop for WaitSlot {
    fn drop(&mut self) {
        self.0.wait_slot.store(false, Release);
    }
}

/// Why [`NodeExec::wait_on_ring`] did not make a node wait on its ring.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NoRingWait {
    /// The node waits for fences other than its ring waits, or for more than one ring wait
    /// (the ring waits on one fence at a time), it is not of the ring, or no room was reserved
    /// for its callback.
    Unable,
    /// Another early node holds the ring's wait slot, or a less urgent one runs, which the node
    /// would preempt.
    SlotTaken,
}

/// What an early node holds while it waits on its ring: the ring's wait slot, and the callback
/// on the fence it waits for, if that had not signalled.
struct Early {
    _slot: WaitSlot,
    _kick: Option<Pin<KBox<FenceCallback<Kick>>>>,
}

/// What a node needs while it runs, shared by its job, the ring and the graph record.
#[pin_data]
pub(crate) struct NodeExec {
    pub(crate) ring: u32,
    /// The operation, until the ring takes it to run it, or the node's job goes without it
    /// having run: a graph record, which keeps the node until it is read or evicted, does not
    /// keep the operation's buffers with it.
    #[pin]
    op: SpinLock<Option<OpRef>>,
    duration_ns: u64,
    /// The fences the node waits for, whose errors it inherits.
    ///
    /// The scheduler does not wait for every one of them to signal before it runs the node: a
    /// dependency on an earlier job of the same ring only orders the two (the ring executes in
    /// order). They have all signalled when the node reaches the head of its ring's FIFO, which
    /// is where they are looked at.
    ///
    /// Let go of, with `pipe_deps`, once the ring has run or skipped the node, or when its job
    /// goes.
    #[pin]
    deps: SpinLock<KVec<ARef<Fence>>>,
    /// Set when the scheduler aborted the node (timeout), once its fence has been taken and
    /// signalled with the error: a ring that stops the node because of it finds no fence left to
    /// signal.
    aborted: Atomic<bool>,
    /// The hardware fence while the node is on the ring.
    #[pin]
    fence: SpinLock<Option<DriverFence>>,
    pub(crate) queued_ns: Atomic<u64>,
    pub(crate) ready_ns: Atomic<u64>,
    pub(crate) started_ns: Atomic<u64>,
    /// Completion time and negative error code, for nodes whose completion the dispatcher
    /// tracks (those dispatched in FIFO mode have their scheduler fence instead).
    pub(crate) finished_ns: Atomic<u64>,
    pub(crate) error: Atomic<i32>,
    /// The urgency of the node's class (0 most urgent); the ring lets a more urgent node in
    /// between the chunks of a running one.
    urgency: u8,
    /// The node's gang, if any.
    gang: Option<Arc<Gang>>,
    /// The dispatcher's completion token: reported by the ring right after the node's fence
    /// has signalled, or when the job is freed if the node never reached the ring.
    #[pin]
    done: SpinLock<Option<Done>>,
    /// The finished fences of the predecessors that the dispatcher released to this ring ahead
    /// of the node (pipelined edges), added before the node is released; looked at like
    /// `deps`. Allocated for all of them when the node is created.
    #[pin]
    pipe_deps: SpinLock<KVec<ARef<Fence>>>,
    /// Set when the dispatcher hands the node to its ring before its predecessors have
    /// finished: the ring holds it until they have (its ring waits, the fences of `pipe_deps`),
    /// and its hardware fence is of the ring's early context.
    early: Atomic<bool>,
    /// The wait slot and callback of an early node; let go of with the dependencies.
    #[pin]
    early_state: SpinLock<Option<Early>>,
    /// The room for the callback of an early node, reserved with a node that may become one.
    #[pin]
    kick_room: SpinLock<Option<KickRoom>>,
    /// When the node reached its ring's FIFO.
    on_ring_ns: Atomic<u64>,
    /// When the node, a gang member, began to wait at the head of its ring for the others.
    gang_wait_ns: Atomic<u64>,
    /// The scheduler's finished fence, from the moment the node reaches its ring until the ring
    /// has run or skipped it, or its job goes: the ring's next node starts at its timestamp
    /// (see `Ring::start_time()`).
    #[pin]
    finished_fence: SpinLock<Option<ARef<Fence>>>,
}

impl NodeExec {
    /// Creates a node for `ring`, allocated with `flags`.
    #[expect(clippy::too_many_arguments)]
    pub(crate) fn new(
        ring: u32,
        op: OpRef,
        duration_ns: u64,
        urgency: u8,
        gang: Option<Arc<Gang>>,
        deps: KVec<ARef<Fence>>,
        pipelined: usize,
        flags: Flags,
    ) -> Result<Arc<Self>> {
        if usize::from(urgency) >= URGENCIES {
            return Err(EINVAL);
        }
        let pipe_deps = KVec::with_capacity(pipelined, flags)?;
        Arc::pin_init(
            pin_init!(Self {
                ring,
                op <- new_spinlock!(Some(op)),
                duration_ns,
                deps <- new_spinlock!(deps),
                aborted: Atomic::new(false),
                fence <- new_spinlock!(None),
                queued_ns: Atomic::new(0),
                ready_ns: Atomic::new(0),
                started_ns: Atomic::new(0),
                finished_ns: Atomic::new(0),
                error: Atomic::new(0),
                urgency,
                gang,
                done <- new_spinlock!(None),
                pipe_deps <- new_spinlock!(pipe_deps),
                early: Atomic::new(false),
                early_state <- new_spinlock!(None),
                kick_room <- new_spinlock!(None),
                on_ring_ns: Atomic::new(0),
                gang_wait_ns: Atomic::new(0),
                finished_fence <- new_spinlock!(None),
            }),
            flags,
        )
    }

    /// The `i`-th fence the node waits for; `None` past the last one. Only meaningful before the
    /// node's job is pushed: the node lets go of them once it ran.
    pub(crate) fn dep(&self, i: usize) -> Option<ARef<Fence>> {
        self.deps.lock().get(i).cloned()
    }

    /// Takes the node's operation, to run it or to let go of it.
    fn take_op(&self) -> Option<OpRef> {
        self.op.lock().take()
    }

    /// Lets go of the fences the node waited for, once they have been looked at (the ring ran or
    /// skipped the node) or will never be (its job goes). The vectors keep no capacity either.
    /// The node's finished fence goes with them.
    fn let_go_of_deps(&self) {
        let deps = core::mem::take(&mut *self.deps.lock());
        let pipe_deps = core::mem::take(&mut *self.pipe_deps.lock());
        // An early node's fence has signalled, or never will be created: its ring's wait slot
        // is free for the next one.
        let early = self.early_state.lock().take();
        let room = self.kick_room.lock().take();
        // The ring has read the finished fence's timestamp, if it ran the node.
        let finished = self.finished_fence.lock().take();
        // Outside of the locks: the last reference to a fence may go with them, and removing the
        // callback takes the lock of its fence.
        drop((deps, pipe_deps, early, room, finished));
    }

    /// Cancels the node's gang, if it has one.
    pub(crate) fn cancel_gang(&self) {
        if let Some(gang) = &self.gang {
            gang.cancel();
        }
    }

    /// Records that the device's gang gate admitted the node's gang.
    pub(crate) fn gang_admitted(&self) {
        if let Some(gang) = &self.gang {
            gang.admitted();
        }
    }

    /// The error that cancelled the node's gang.
    fn gang_error(&self) -> Option<Error> {
        self.gang.as_ref().and_then(|g| g.error())
    }

    /// Waits, at the head of its ring, until every member of the node's gang is at the head of
    /// its ring; returns the error that cancels the node instead. A node without a gang starts
    /// at once.
    ///
    /// The wait ends: the members are released together onto idle rings, and a member that
    /// never arrives cancels the gang (its job is freed without running, or it times out
    /// while waiting, see [`NodeJob::timed_out`]).
    fn gang_start(&self) -> Option<Error> {
        let gang = self.gang.as_ref()?;
        self.gang_wait_ns.store(now_ns(), Relaxed);
        if gang.waiting.fetch_add(-1, Full) == 1 {
            gang.go.complete_all();
            gang.leave();
        }
        gang.go.wait_for_completion();
        if self.aborted.load(Acquire) {
            return Some(ETIMEDOUT);
        }
        gang.error()
    }

    /// Sets the dispatcher's completion token.
    pub(crate) fn set_done(&self, done: Done) {
        *self.done.lock() = Some(done);
    }

    /// Runs `f` on the completion token, if it is still there.
    pub(crate) fn with_done(&self, f: impl FnOnce(&mut Done)) {
        let mut done = self.done.lock();
        if let Some(done) = Option::as_mut(&mut *done) {
            f(done);
        }
    }

    /// Takes the completion token; dropping it reports the completion.
    pub(crate) fn take_done(&self) -> Option<Done> {
        self.done.lock().take()
    }

    /// Takes the completion token if the node's finished fence has signalled.
    ///
    /// Looked at and taken under the token's lock: a token that is taken to look at it and put
    /// back could miss the job's release, which takes it in between, and would then never be
    /// dropped (it holds the node): the node's completion would be lost, and the node leaked
    /// with the buffers of its operation.
    pub(crate) fn take_ready_done(&self) -> Option<Done> {
        let mut done = self.done.lock();
        if done.as_ref().is_some_and(Done::is_ready) {
            done.take()
        } else {
            None
        }
    }

    /// Records the completion of the node at `ts` with `error`.
    pub(crate) fn finish(&self, ts: u64, error: Option<Error>) {
        self.error.store(error.map_or(0, |e| e.to_errno()), Relaxed);
        // Pairs with the acquire in `GRAPH_INFO`: the error is visible with the time.
        self.finished_ns.store(ts, Release);
    }

    fn take_fence(&self) -> Option<DriverFence> {
        self.fence.lock().take()
    }

    /// The time the last dependency signalled (at least the queue time, and the time the
    /// dispatcher found the node ready) and the first error among them.
    fn ready(&self) -> (u64, Option<Error>) {
        let known = self
            .queued_ns
            .load(Relaxed)
            .max(self.ready_ns.load(Relaxed));
        let (ready, error) = dep_state(&self.deps.lock(), known);
        let (ready, pipe_error) = dep_state(&self.pipe_deps.lock(), ready);
        (ready, error.or(pipe_error))
    }

    /// Whether every dependency has signalled.
    fn deps_signalled(&self) -> bool {
        self.deps.lock().iter().all(|d| d.is_signaled())
            && self.pipe_deps.lock().iter().all(|d| d.is_signaled())
    }

    /// Adds the finished fence of a predecessor released to the ring ahead of the node; fails
    /// only if more are added than the node was created for, or once the node has let go of
    /// its dependencies (it ran, or its job went).
    pub(crate) fn add_pipe_dep(&self, fence: ARef<Fence>) -> Result {
        self.pipe_deps
            .lock()
            .push_within_capacity(fence)
            .map_err(|_| ENOSPC)
    }

    /// Reserves the room for the node to wait on its ring (see [`NodeExec::wait_on_ring`]),
    /// allocated with `flags`.
    pub(crate) fn reserve_ring_wait(&self, flags: Flags) -> Result {
        let room = KBox::new_uninit(flags)?;
        *self.kick_room.lock() = Some(room);
        Ok(())
    }

    /// Makes the node wait on `ring`, its ring, for the fences added with
    /// [`NodeExec::add_pipe_dep`] (its ring waits): the ring starts it once they have signalled,
    /// and starts other nodes meanwhile. To be called before the node's job is pushed, once
    /// every predecessor of the node that has not finished has been pushed and added.
    ///
    /// Fails if the ring cannot hold the node (see [`NoRingWait`]).
    pub(crate) fn wait_on_ring(&self, ring: &Arc<Ring>) -> Result<(), NoRingWait> {
        if ring.index != self.ring || !self.deps.lock().iter().all(|d| d.is_signaled()) {
            return Err(NoRingWait::Unable);
        }
        let pending = {
            let pipe_deps = self.pipe_deps.lock();
            let mut pending = pipe_deps.iter().filter(|d| !d.is_signaled());
            match (pending.next(), pending.next()) {
                (first, None) => first.cloned(),
                _ => return Err(NoRingWait::Unable),
            }
        };
        let Some(room) = self.kick_room.lock().take() else {
            return Err(NoRingWait::Unable);
        };
        if ring.wait_slot.cmpxchg(false, true, Acquire).is_err() {
            *self.kick_room.lock() = Some(room);
            return Err(NoRingWait::SlotTaken);
        }
        let slot = WaitSlot(ring.clone());
        // Nor while a less urgent early node runs, which this one would preempt: the early
        // nodes' fences share one context (and a file's of a class, one entity), so they must end
        // in order.
        // Dropping the slot gives it back.
        let running = ring.early_running.load(Acquire);
        if running != NOT_RUNNING && u32::from(self.urgency) < running {
            drop(slot);
            *self.kick_room.lock() = Some(room);
            return Err(NoRingWait::SlotTaken);
        }
        // A fence that signals from here on queues the ring's work item, which looks at the node
        // once its job has been pushed and started; one that signalled before needs no callback.
        let kick = pending.and_then(|fence| {
            room.write_pin_init(FenceCallback::new(&fence, Kick(ring.clone())))
                .ok()
        });
        *self.early_state.lock() = Some(Early {
            _slot: slot,
            _kick: kick,
        });
        self.early.store(true, Release);
        Ok(())
    }

    /// Whether the node waits, or waited, on its ring (see [`NodeExec::wait_on_ring`]): such a
    /// node is not in the dispatcher's ready set and takes no window of its ring.
    pub(crate) fn is_early(&self) -> bool {
        self.early.load(Acquire)
    }

    /// Gives the ring's wait slot back if the node holds it: once its fence has signalled, or
    /// never will be created.
    /// Also before the node's completion is reported, as the dispatcher then tries a node that
    /// found the slot taken again.
    /// And when the node starts: it waits no more.
    fn leave_wait_slot(&self) {
        // Outside of the lock: removing the callback takes the lock of its fence.
        let early = self.early_state.lock().take();
        drop(early);
    }

    /// Undoes [`NodeExec::wait_on_ring`], before the node's job is pushed.
    pub(crate) fn cancel_ring_wait(&self) {
        self.early.store(false, Relaxed);
        self.leave_wait_slot();
    }

    /// When the node could take its place on the ring: when it reached the ring, or for an
    /// early node, when its ring wait signalled if that was later.
    fn arrival(&self) -> u64 {
        let on_ring = self.on_ring_ns.load(Relaxed);
        if self.is_early() {
            on_ring.max(self.ready().0)
        } else {
            on_ring
        }
    }

    /// When the scheduler's finished fence of the node signalled, if it has.
    fn finished_ts(&self) -> Option<u64> {
        // Outside of the lock: the timestamp of a fence that is being signalled takes a moment.
        let fence = self.finished_fence.lock().clone();
        fence.and_then(|fence| fence.timestamp())
    }
}

fn dep_state(deps: &[ARef<Fence>], queued: u64) -> (u64, Option<Error>) {
    let mut ready = queued;
    let mut error = None;
    for dep in deps {
        if let Some(ts) = dep.timestamp() {
            ready = ready.max(ts);
        }
        if error.is_none() {
            error = dep.error();
        }
    }
    (ready, error)
}

/// A ring of the virtual engine.
#[pin_data]
pub(crate) struct Ring {
    pub(crate) index: u32,
    pub(crate) sched: Scheduler<NodeJob>,
    /// The hardware fence contexts, one per urgency level (see [`URGENCIES`]).
    ctx: [FenceContext; URGENCIES],
    /// The hardware fence context of the early nodes (see [`NodeExec::wait_on_ring`]): one
    /// waits for its fence while the one before it may still run, and cannot preempt it, so
    /// their fences signal in order.
    early_ctx: FenceContext,
    /// Taken by the early node that waits, if any, until it starts: the ring waits on one fence
    /// at a time, like hardware with one semaphore wait per queue.
    wait_slot: Atomic<bool>,
    /// The urgency of the early node that runs, or [`NOT_RUNNING`]: set before the node gives
    /// the wait slot back, cleared once its fence has signalled.
    early_running: Atomic<u32>,
    /// The job timeout (`u64::MAX` for none), which the ring checks itself while the early
    /// node is the scheduler's first job (see [`NodeJob::timed_out`]).
    timeout_ns: u64,
    /// When the ring's last node ended, on the simulated clock (see `start_time()`); written and
    /// read by the work item only.
    free_ns: Atomic<u64>,
    /// The node the work item completed last, which its next run reports to the dispatcher once
    /// it has started the ring's next node, or before it skips that node or finds none (see
    /// `report_last()`).
    #[pin]
    report_next: SpinLock<Option<Arc<NodeExec>>>,
    /// Nodes started by the scheduler and not finished, in order; at most `depth` of them, and
    /// the early nodes, one waiting and one running.
    #[pin]
    fifo: SpinLock<KVec<Arc<NodeExec>>>,
    /// The clock of the nodes' simulated execution, used by the work item only.
    alarm: Arc<Alarm>,
    /// The device's workqueue of the fence signalling path, which runs the work item and the
    /// scheduler's.
    wq: &'static Queue,
    #[pin]
    work: Work<Ring>,
}

impl_has_work! {
    impl HasWork<Self> for Ring { self.work }
}

impl Ring {
    /// Creates ring `index` with a queue `depth` nodes deep and a job timeout, whose work item
    /// runs on `wq`.
    pub(crate) fn new(
        dev: &device::Device,
        wq: &'static Queue,
        index: u32,
        depth: u32,
        timeout: Delta,
    ) -> Result<Arc<Self>> {
        let name = RING_NAMES.get(index as usize).copied().ok_or(EINVAL)?;
        Self::new_named(dev, wq, index, name, depth, Some(timeout))
    }

    /// Creates the graph ring, which completes graphs and executes no node.
    pub(crate) fn new_graph(
        dev: &device::Device,
        wq: &'static Queue,
        index: u32,
    ) -> Result<Arc<Self>> {
        Self::new_named(
            dev,
            wq,
            index,
            GRAPH_RING_NAME,
            crate::driver::MAX_RING_DEPTH,
            None,
        )
    }

    fn new_named(
        dev: &device::Device,
        wq: &'static Queue,
        index: u32,
        name: &'static CStr,
        depth: u32,
        timeout: Option<Delta>,
    ) -> Result<Arc<Self>> {
        // The early nodes' credits come on top, for the one that waits and the one that may
        // still run: they never take one that a ready node needs.
        let depth = depth.checked_add(2).ok_or(EINVAL)?;
        let mut opts = SchedulerOptions::new(dev, name, depth);
        let timeout_ns = timeout.map_or(u64::MAX, |t| {
            u64::try_from(t.as_nanos()).unwrap_or(u64::MAX)
        });
        opts.timeout = timeout;
        // The scheduler's work items share the queue of the rings' work items. A node whose
        // predecessor completes on another ring is pushed from that ring's work item, whose
        // CPU then runs the scheduler's `run_job` and this ring's work item in turn, without
        // waking a thread for either (on a scheduler's own ordered queue, each was a wake-up).
        opts.submit_wq = Some(wq);
        let sched = Scheduler::new(opts)?;
        let fifo = KVec::with_capacity(depth as usize, GFP_KERNEL)?;
        let alarm = Alarm::new()?;
        Arc::pin_init(
            pin_init!(Self {
                index,
                sched,
                alarm,
                wq,
                ctx: core::array::from_fn(|_| FenceContext::new(c"tas", name)),
                early_ctx: FenceContext::new(c"tas", name),
                early_running: Atomic::new(NOT_RUNNING),
                wait_slot: Atomic::new(false),
                timeout_ns,
                free_ns: Atomic::new(0),
                report_next <- new_spinlock!(None),
                fifo <- new_spinlock!(fifo),
                work <- new_work!("tas::Ring::work"),
            }),
            GFP_KERNEL,
        )
    }

    /// Executes the next node of the FIFO; returns `false` if no node can start. That is the
    /// first node that did not come early, or the early node (see [`NodeExec::wait_on_ring`])
    /// once its ring wait has signalled, if that happened before the other node reached the
    /// ring: the early node takes the place it would have had if it had been released when it
    /// became ready, and a ring that is idle then starts it at once. It has a hardware fence
    /// context of its own, so the other nodes still complete in FIFO order.
    fn process_one(&self) -> bool {
        let next = {
            let fifo = self.fifo.lock();
            let first = fifo.iter().find(|n| !n.is_early());
            // At most one: the ring has one wait slot.
            let early = fifo.iter().find(|n| n.is_early() && n.deps_signalled());
            match (first, early) {
                (Some(n), Some(e)) if e.arrival() < n.arrival() => Some(e),
                (Some(n), _) => Some(n),
                (None, e) => e,
            }
            .cloned()
        };
        let Some(node) = next else {
            return false;
        };
        let (ready, error) = node.ready();
        node.ready_ns.store(ready, Relaxed);
        if let Some(error) = error {
            // A dependency failed: the node does not run and carries the error on, and
            // cancels its gang.
            node.cancel_gang();
            // The last completion first, as the node will not start.
            self.report_last();
            self.skip(&node, error);
            return true;
        }
        // A gang member waits for the rest of its gang before it starts: not with a report held
        // back.
        if node.gang.is_some() {
            self.report_last();
        }
        if let Some(error) = node.gang_start() {
            self.skip(&node, error);
            return true;
        }
        self.execute(&node, true);
        true
    }

    /// Completes `node` with `error` without running it.
    fn skip(&self, node: &Arc<NodeExec>, error: Error) {
        self.remove(node);
        if let Some(fence) = node.take_fence() {
            fence.signal_with_error(error);
            Self::report(node);
        }
        // Looked at when the node reached the head of the FIFO.
        node.let_go_of_deps();
    }

    /// Reports the completion of `node`, whose fence this ring signalled, to the dispatcher now
    /// rather than when the scheduler frees its job. If the scheduler has not signalled the
    /// node's finished fence yet, the job's release reports it.
    ///
    /// An early node gives its ring's wait slot back first, if it still holds it.
    fn report(node: &NodeExec) {
        node.leave_wait_slot();
        drop(node.take_ready_done());
    }

    /// Reports the node that the work item completed last (`report_next`), if any.
    ///
    /// Called once the ring has started its next node, as a driver's interrupt handler reports
    /// a completion while the hardware runs on: a report, which releases the node's successors
    /// to their schedulers, costs the CPU tens of microseconds, which would otherwise pass
    /// between any two nodes of the ring.
    fn report_last(&self) {
        let done = self.report_next.lock().take();
        if let Some(node) = done {
            Self::report(&node);
        }
    }

    /// Lets the simulated duration of `node` pass, then performs its operation and signals
    /// its fence. If `preemptible`, a more urgent node that is waiting on the FIFO runs
    /// between two chunks, at most once per chunk of `node`, so that `node` still progresses.
    fn execute(&self, node: &Arc<NodeExec>, preemptible: bool) {
        // A gang member starts when its gang does, and a preempting node when it preempts.
        let start = if preemptible && node.gang.is_none() {
            self.start_time(node)
        } else {
            now_ns()
        };
        node.started_ns.store(start, Relaxed);
        // An early node waits no more: the next one may take the wait slot, before the report
        // below lets the dispatcher look for one, if it cannot preempt this one.
        if node.is_early() {
            self.early_running.store(u32::from(node.urgency), Release);
            node.leave_wait_slot();
        }
        if tas_node_start_enabled() {
            self.trace_start(node, start);
        }
        if let Some(gang) = &node.gang {
            gang.member_started(start);
        }
        if preemptible {
            self.report_last();
        }
        // Sleep towards the deadline, not chunk by chunk, so that the wake-up latency of each
        // chunk does not add up.
        let mut deadline = start.saturating_add(node.duration_ns);
        let mut cancelled = None;
        loop {
            let now = now_ns();
            if now >= deadline || node.aborted.load(Acquire) {
                break;
            }
            // Another member of the gang failed.
            cancelled = node.gang_error();
            if cancelled.is_some() {
                break;
            }
            if preemptible {
                if let Some(urgent) = self.more_urgent(node) {
                    let (ready, error) = urgent.ready();
                    urgent.ready_ns.store(ready, Relaxed);
                    if error.is_none() {
                        // The preempted node's remaining work resumes afterwards.
                        let left = deadline - now;
                        self.execute(&urgent, false);
                        deadline = now_ns().saturating_add(left);
                    }
                }
            }
            // The last sleep ends the worker's usual wake-up latency before the deadline, and
            // the rest (at most `MAX_LEAD_NS`) passes on the CPU: the node completes on time
            // rather than a wake-up late.
            let left = deadline.saturating_sub(now_ns());
            let lead = self.alarm.lead();
            if left > lead {
                self.alarm.sleep((left - lead).min(CHUNK_NS));
            } else {
                while now_ns() < deadline && !node.aborted.load(Acquire) {
                    cpu_relax();
                }
            }
        }
        // Off the FIFO before the fence signals: the scheduler starts the next node (and pushes
        // it here) once the fence has returned the node's credit.
        self.remove(node);
        let signalled = {
            let _guard = SignallingGuard::new();
            node.take_fence().map(|fence| match cancelled {
                Some(error) => fence.signal_with_error(error),
                None => {
                    // The worker holds the node's fence, and the job, which drops the
                    // operation of a node that did not run, is freed only once the fence has
                    // signalled: the operation is still there.
                    let op = node.take_op();
                    if let Some(op) = &op {
                        op.execute();
                    }
                    fence.signal();
                    // Only after the signal: the last reference to a template launch's
                    // operations may go with it.
                    drop(op);
                }
            })
        };
        if node.is_early() {
            self.early_running.store(NOT_RUNNING, Release);
        }
        // The ring is free from the node's end as the scheduler stamped it on its finished fence
        // (which the hardware fence's signal, this one or the timeout handler's, reaches at
        // once). Otherwise from now: the scheduler has not learnt of the end yet (a node that
        // completed while its `run_job` still ran, whose finished fence the scheduler signals
        // once `run_job` has returned, a little later than now), or a node that timed out has
        // had its job freed meanwhile.
        self.free_ns
            .store(node.finished_ts().unwrap_or_else(now_ns), Relaxed);
        // The scheduler's finished fence signals with the hardware fence. If the timeout
        // handler took the fence, the job's release reports the completion.
        // Reported by the work item's next run, which the rings' work items queued by the signal
        // (see `Kick`) go before, once it has started the ring's next node: an early node that
        // waited for this one starts first, and so does this ring's next node.
        if signalled.is_some() {
            if preemptible {
                let older = self.report_next.lock().replace(node.clone());
                if let Some(older) = older {
                    Self::report(&older);
                }
            } else {
                Self::report(node);
            }
        }
        // Looked at when the node reached the head of the FIFO, or when it went ahead of a less
        // urgent node.
        node.let_go_of_deps();
    }

    /// When the ring starts `node`, the next node of its FIFO, on the simulated clock: the last
    /// of when the node could take its place on the ring (it reached the ring, and for an early
    /// node, its ring wait ended), when its dependencies had signalled, and when the ring's last
    /// node ended.
    ///
    /// A hardware ring starts its next job at that moment. The work item that plays the ring
    /// gets to the node later, a worker's wake-up or the other work items of its CPU later,
    /// and lets the node's time run from that moment: its own lag is then part of the node's
    /// duration rather than time the ring stands idle, as long as the node lasts longer.
    fn start_time(&self, node: &NodeExec) -> u64 {
        let start = node
            .arrival()
            .max(node.ready_ns.load(Relaxed))
            .max(self.free_ns.load(Relaxed));
        start.min(now_ns())
    }

    /// Emits the `tas_node_start` trace event for `node`, which starts at `start`.
    fn trace_start(&self, node: &NodeExec, start: u64) {
        // The fence is gone if the node's job was freed meanwhile (a timeout): then 0:0.
        let (context, seqno) = node
            .finished_fence
            .lock()
            .as_ref()
            .map_or((0, 0), |fence| (fence.context(), fence.seqno()));
        // SAFETY: The event takes integers and a flag only.
        unsafe {
            tas_node_start(
                self.index,
                context,
                seqno,
                node.is_early(),
                node.on_ring_ns.load(Relaxed),
                node.ready_ns.load(Relaxed),
                start,
            )
        };
    }

    /// The first node on the FIFO that is more urgent than `node`, whose dependencies are done
    /// and that is not a gang member: those start with their gang, at the head of their rings.
    ///
    /// Only the first waiting node of each urgency level may go ahead: the nodes of one level
    /// share a hardware fence context, and complete in FIFO order.
    fn more_urgent(&self, node: &Arc<NodeExec>) -> Option<Arc<NodeExec>> {
        let fifo = self.fifo.lock();
        let mut seen = [false; URGENCIES];
        for n in fifo.iter() {
            let level = usize::from(n.urgency);
            // An early node has a fence context of its own: it neither waits for the nodes of
            // its level nor holds them up.
            if n.is_early() {
                if n.urgency < node.urgency && n.deps_signalled() {
                    return Some(n.clone());
                }
                continue;
            }
            if n.urgency >= node.urgency || seen[level] {
                continue;
            }
            seen[level] = true;
            if n.gang.is_none() && n.deps_signalled() {
                return Some(n.clone());
            }
        }
        None
    }

    fn remove(&self, node: &Arc<NodeExec>) {
        let removed = {
            let mut fifo = self.fifo.lock();
            let pos = fifo.iter().position(|n| Arc::ptr_eq(n, node));
            pos.and_then(|pos| fifo.remove(pos).ok())
        };
        // Outside of the lock: if this was the last reference, the node goes with it (its job,
        // freed before, took its operation and fences).
        drop(removed);
    }

    /// Stops a node of the FIFO that has run, or waited at the head of the ring for its gang,
    /// for the job timeout at `now`, as [`NodeJob::timed_out`] does for the scheduler's first
    /// job, if there is one.
    fn abort_overdue(&self, now: u64) {
        let overdue = |since: u64| since != 0 && now.saturating_sub(since) >= self.timeout_ns;
        let node = self
            .fifo
            .lock()
            .iter()
            .find(|n| match n.started_ns.load(Relaxed) {
                0 => overdue(n.gang_wait_ns.load(Relaxed)),
                started => overdue(started),
            })
            .cloned();
        // A node that the work item completed meanwhile is left alone.
        if let Some(node) = node {
            self.time_out(&node);
        }
    }

    /// Takes `node` off the FIFO and signals its fence with `error`, from outside the work item.
    ///
    /// Both happen under the FIFO's lock, which the work item holds to find the next node: it
    /// reads the errors of that node's dependencies once it has found it, and a dependency that
    /// has left the FIFO without signalling would look like one without an error. (The work item
    /// itself signals a node after taking it off the FIFO, before it looks for the next one.)
    ///
    /// Returns `false` if the node's fence had been taken already: by the work item that
    /// completed or skipped the node, or by another abort.
    fn abort(&self, node: &Arc<NodeExec>, error: Error) -> bool {
        let (removed, signalled) = {
            let mut fifo = self.fifo.lock();
            let pos = fifo.iter().position(|n| Arc::ptr_eq(n, node));
            let removed = pos.and_then(|pos| fifo.remove(pos).ok());
            let fence = node.take_fence();
            let signalled = fence.is_some();
            if let Some(fence) = fence {
                fence.signal_with_error(error);
            }
            (removed, signalled)
        };
        // Outside of the lock, as in `remove()`.
        drop(removed);
        signalled
    }

    /// Stops `node` for its job timeout: signals its fence with `ETIMEDOUT`, then stops it on the
    /// ring, unless it had completed meanwhile.
    fn time_out(&self, node: &Arc<NodeExec>) {
        // The fence first: a ring that sees the node aborted stops it at once, and would
        // signal it without the error if it found the fence still there.
        if !self.abort(node, ETIMEDOUT) {
            return;
        }
        // The worker stops within a chunk and skips the operation; the rest of the gang is
        // cancelled.
        node.aborted.store(true, Release);
        node.cancel_gang();
    }
}

impl WorkItem for Ring {
    type Pointer = Arc<Ring>;

    fn run(this: Arc<Ring>) {
        // The work item plays the hardware: everything it does is on the path that signals the
        // nodes' fences, so lockdep checks it as a fence signalling critical section.
        let _guard = SignallingGuard::new();
        // One node per run: the work item then queues itself again, behind what was queued on
        // its CPU meanwhile. The rings share the CPU's worker pool with their schedulers' work
        // items, and a worker that does not sleep is not joined by another one, so a ring that
        // completes zero-time nodes back to back would otherwise hold up every dispatch on that
        // CPU until its FIFO is empty.
        // A run that found a node has reported the last completion (see `report_last()`) and
        // may leave one to report: it queues the next run. One that found none reports here.
        if this.process_one() {
            let wq = this.wq;
            // Fails only if `run_job` queued the work item again meanwhile, which is as good.
            let _ = wq.enqueue(this);
        } else {
            this.report_last();
        }
    }
}

/// The driver data of a scheduler job: one graph node, or the completion of a whole graph.
pub(crate) enum NodeJob {
    /// A node, executed by its ring.
    Node {
        ring: Arc<Ring>,
        exec: Arc<NodeExec>,
        alloc: Option<FenceAllocation>,
        /// The graph's nodes in its file's budget, for a node of the stock dispatch: given back
        /// once the last of them is freed.
        _charge: Option<Arc<Charge>>,
    },
    /// The completion of a graph: runs on the graph ring, which executes nothing, once the sink
    /// nodes of the graph (all on other schedulers, so fully waited for) have finished, and
    /// completes with the first error among them.
    Graph { deps: KVec<ARef<Fence>> },
}

impl Drop for NodeJob {
    fn drop(&mut self) {
        // A node that never reached the ring (cancelled, or its entity went away) reports its
        // completion when its job is freed.
        if let NodeJob::Node { exec, .. } = self {
            if exec.started_ns.load(Relaxed) == 0 {
                // The rest of its gang would wait for it in vain.
                exec.cancel_gang();
            }
            exec.leave_wait_slot();
            drop(exec.take_done());
            // A node that did not run still holds its operation, and one that the ring did not
            // take its dependencies: the node may outlive its job in a graph record, they do
            // not.
            drop(exec.take_op());
            exec.let_go_of_deps();
        }
    }
}

impl JobImpl for NodeJob {
    fn run(job: &mut RunningJob<'_, Self>) -> Result<Option<ARef<Fence>>> {
        let (ring, exec, alloc) = match &mut **job {
            NodeJob::Graph { deps } => {
                let (_, error) = dep_state(deps, 0);
                return error.map_or(Ok(None), Err);
            }
            NodeJob::Node {
                ring, exec, alloc, ..
            } => (ring.clone(), exec.clone(), alloc.take()),
        };
        // The completion token learns the finished fence before the ring can complete the node.
        let finished = job.finished_fence();
        exec.with_done(|done| done.set_finished(finished));
        let ctx = if exec.is_early() {
            &ring.early_ctx
        } else {
            ring.ctx.get(usize::from(exec.urgency)).ok_or(EINVAL)?
        };
        let fence = ctx.init_fence(alloc.ok_or(EINVAL)?, ());
        let hw = fence.fence().clone();
        *exec.fence.lock() = Some(fence);
        exec.on_ring_ns.store(now_ns(), Relaxed);
        // A job runs once, so there is no earlier fence; none would be dropped under the lock.
        let finished = job.finished_fence();
        let earlier = exec.finished_fence.lock().replace(finished);
        drop(earlier);
        ring.fifo
            .lock()
            .push_within_capacity(exec)
            .map_err(|_| EBUSY)?;
        // Enqueueing fails only while the work is queued and not yet running, in which case it
        // will find the node.
        let _ = ring.wq.enqueue(ring.clone());
        Ok(Some(hw))
    }

    fn timed_out(job: &mut RunningJob<'_, Self>) {
        if let NodeJob::Node { ring, exec, .. } = &**job {
            // The scheduler times out the first job of its pending list, which an early node
            // becomes when it is handed to the ring, long before it starts: it only times out
            // once it has run for a whole timeout itself, and until then the ring stops the
            // nodes that have, which the scheduler does not look at meanwhile. The wait on the
            // ring ends when the predecessor ends, whose own timeout bounds it.
            // The node's time runs from when the ring started it on the simulated clock, which
            // may be a worker's lag before the work item got to it (see `Ring::start_time()`).
            if exec.is_early() {
                let started = exec.started_ns.load(Relaxed);
                let now = now_ns();
                if started == 0 || now.saturating_sub(started) < ring.timeout_ns {
                    ring.abort_overdue(now);
                    return;
                }
            }
            ring.time_out(exec);
        }
    }

    fn free(job: &mut RunningJob<'_, Self>) {
        // A node that never ran reports the error of its finished fence (e.g. `ESRCH` for a
        // killed entity) when its data is dropped right after this.
        if let NodeJob::Node { exec, .. } = &**job {
            let finished = job.finished_fence();
            exec.with_done(|done| done.set_finished(finished));
        }
    }
}
