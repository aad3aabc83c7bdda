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
//! Fence signalling critical path: [`NodeJob::run`] and [`NodeJob::timed_out`] only move
//! pre-allocated objects around; the worker signals fences and touches buffers that were mapped
//! at submit time, and does not allocate.

use core::ptr;

use kernel::{
    bindings, device,
    dma_fence::{
        DriverFence,
        Fence,
        FenceAllocation,
        FenceContext,
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
    new_spinlock, new_work,
    prelude::*,
    sync::{
        aref::ARef,
        atomic::{
            Atomic,
            Relaxed, //
        },
        Arc,
        SpinLock, //
    },
    time::{
        delay::fsleep,
        Delta, //
    },
    workqueue::{
        self,
        impl_has_work,
        Work,
        WorkItem, //
    },
};

use crate::gem::TasObject;

/// Longest stretch of simulated execution between two checks for an abort.
pub(crate) const CHUNK_NS: u64 = 1_000_000;

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

/// The current `CLOCK_MONOTONIC` time in nanoseconds, the clock of fence timestamps.
pub(crate) fn now_ns() -> u64 {
    // SAFETY: `ktime_get()` has no preconditions.
    let t = unsafe { bindings::ktime_get() };
    u64::try_from(t).unwrap_or(0)
}

/// A byte range of a buffer, mapped for the CPU that plays the ring.
pub(crate) struct BufRange {
    map: VMapOwned<TasObject>,
    offset: usize,
    size: usize,
}

impl BufRange {
    /// Creates a range; `offset + size` must be within the object (checked by the caller).
    pub(crate) fn new(map: VMapOwned<TasObject>, offset: usize, size: usize) -> Self {
        Self { map, offset, size }
    }

    fn base(&self) -> *mut u8 {
        use kernel::io::IoBase;
        (&self.map).as_view().as_ptr().cast::<u8>()
    }

    fn word(&self, index: usize) -> u32 {
        // SAFETY: `index * 4 + 4 <= size` is checked by every caller, and the range is within
        // the mapping (checked at submit). The memory is shared with userspace mappings, so it is
        // read as an unaligned plain value.
        unsafe { ptr::read_unaligned(self.base().add(self.offset + index * 4).cast::<u32>()) }
    }

    fn set_word(&self, index: usize, value: u32) {
        // SAFETY: As in `word()`.
        unsafe {
            ptr::write_unaligned(
                self.base().add(self.offset + index * 4).cast::<u32>(),
                value,
            )
        };
    }

    fn words(&self) -> usize {
        self.size / 4
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
        match self {
            Op::Nop => {}
            Op::Fill { dst, value } => (0..dst.words()).for_each(|i| dst.set_word(i, *value)),
            Op::Copy { dst, src } => {
                // SAFETY: Both ranges are within their mappings and do not overlap (checked at
                // submit).
                unsafe {
                    ptr::copy_nonoverlapping(
                        src.base().add(src.offset),
                        dst.base().add(dst.offset),
                        dst.size,
                    )
                }
            }
            Op::Add { dst, a, b } => {
                (0..dst.words()).for_each(|i| dst.set_word(i, a.word(i).wrapping_add(b.word(i))))
            }
            Op::MatMul { dst, a, b, m, n, k } => {
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

/// What a node needs while it runs, shared by its job, the ring and the graph record.
#[pin_data]
pub(crate) struct NodeExec {
    pub(crate) ring: u32,
    op: Op,
    duration_ns: u64,
    /// The fences the node waits for, whose errors it inherits.
    ///
    /// The scheduler does not wait for every one of them to signal before it runs the node: a
    /// dependency on an earlier job of the same ring only orders the two (the ring executes in
    /// order). They have all signalled when the node reaches the head of its ring's FIFO, which
    /// is where they are looked at.
    deps: KVec<ARef<Fence>>,
    /// Set when the scheduler aborted the node (timeout) or its file went away.
    aborted: Atomic<bool>,
    /// The hardware fence while the node is on the ring.
    #[pin]
    fence: SpinLock<Option<DriverFence>>,
    pub(crate) queued_ns: Atomic<u64>,
    pub(crate) ready_ns: Atomic<u64>,
    pub(crate) started_ns: Atomic<u64>,
}

impl NodeExec {
    pub(crate) fn new(
        ring: u32,
        op: Op,
        duration_ns: u64,
        deps: KVec<ARef<Fence>>,
    ) -> Result<Arc<Self>> {
        Arc::pin_init(
            pin_init!(Self {
                ring,
                op,
                duration_ns,
                deps,
                aborted: Atomic::new(false),
                fence <- new_spinlock!(None),
                queued_ns: Atomic::new(0),
                ready_ns: Atomic::new(0),
                started_ns: Atomic::new(0),
            }),
            GFP_KERNEL,
        )
    }

    /// The fences the node waits for.
    pub(crate) fn deps(&self) -> &[ARef<Fence>] {
        &self.deps
    }

    fn take_fence(&self) -> Option<DriverFence> {
        self.fence.lock().take()
    }

    /// The time the last dependency signalled (at least the queue time) and the first error
    /// among them.
    fn ready(&self) -> (u64, Option<Error>) {
        dep_state(&self.deps, self.queued_ns.load(Relaxed))
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
    ctx: FenceContext,
    /// Nodes started by the scheduler and not finished, in order; at most `depth` of them.
    #[pin]
    fifo: SpinLock<KVec<Arc<NodeExec>>>,
    #[pin]
    work: Work<Ring>,
}

impl_has_work! {
    impl HasWork<Self> for Ring { self.work }
}

impl Ring {
    /// Creates ring `index` with a queue `depth` nodes deep and a job timeout.
    pub(crate) fn new(
        dev: &device::Device,
        index: u32,
        depth: u32,
        timeout: Delta,
    ) -> Result<Arc<Self>> {
        let name = RING_NAMES.get(index as usize).copied().ok_or(EINVAL)?;
        Self::new_named(dev, index, name, depth, Some(timeout))
    }

    /// Creates the graph ring, which completes graphs and executes no node.
    pub(crate) fn new_graph(dev: &device::Device, index: u32) -> Result<Arc<Self>> {
        Self::new_named(
            dev,
            index,
            GRAPH_RING_NAME,
            crate::driver::MAX_RING_DEPTH,
            None,
        )
    }

    fn new_named(
        dev: &device::Device,
        index: u32,
        name: &'static CStr,
        depth: u32,
        timeout: Option<Delta>,
    ) -> Result<Arc<Self>> {
        let mut opts = SchedulerOptions::new(dev, name, depth);
        opts.timeout = timeout;
        let sched = Scheduler::new(opts)?;
        let fifo = KVec::with_capacity(depth as usize, GFP_KERNEL)?;
        Arc::pin_init(
            pin_init!(Self {
                index,
                sched,
                ctx: FenceContext::new(c"tas", name),
                fifo <- new_spinlock!(fifo),
                work <- new_work!("tas::Ring::work"),
            }),
            GFP_KERNEL,
        )
    }

    /// Executes the nodes on the FIFO until it is empty.
    fn process(&self) {
        loop {
            let Some(node) = self.fifo.lock().first().cloned() else {
                return;
            };
            let (ready, error) = node.ready();
            node.ready_ns.store(ready, Relaxed);
            if let Some(error) = error {
                // A dependency failed: the node does not run and carries the error on.
                self.remove(&node);
                if let Some(fence) = node.take_fence() {
                    fence.signal_with_error(error);
                }
                continue;
            }
            let start = now_ns();
            node.started_ns.store(start, Relaxed);
            // Sleep towards the deadline, not chunk by chunk, so that the wake-up latency of
            // each chunk does not add up.
            let deadline = start.saturating_add(node.duration_ns);
            loop {
                let now = now_ns();
                if now >= deadline || node.aborted.load(Relaxed) {
                    break;
                }
                let chunk = (deadline - now).min(CHUNK_NS);
                fsleep(Delta::from_nanos(i64::try_from(chunk).unwrap_or(i64::MAX)));
            }
            // Off the FIFO before the fence signals: the scheduler starts the next node (and
            // pushes it here) once the fence has returned the node's credit.
            self.remove(&node);
            let _guard = SignallingGuard::new();
            if let Some(fence) = node.take_fence() {
                node.op.execute();
                fence.signal();
            }
        }
    }

    /// Waits until the work item of the ring is idle.
    ///
    /// The work item runs driver code after the fence of its last node has signalled; the device
    /// waits for it before its data, and the module's code, can go away.
    pub(crate) fn flush(&self) {
        // SAFETY: `self.work` is an initialised work item that lives as long as `self`.
        unsafe { bindings::flush_work(Work::raw_get(&self.work)) };
    }

    fn remove(&self, node: &Arc<NodeExec>) {
        let mut fifo = self.fifo.lock();
        if let Some(pos) = fifo.iter().position(|n| Arc::ptr_eq(n, node)) {
            let _ = fifo.remove(pos);
        }
    }
}

impl WorkItem for Ring {
    type Pointer = Arc<Ring>;

    fn run(this: Arc<Ring>) {
        this.process();
    }
}

/// The driver data of a scheduler job: one graph node, or the completion of a whole graph.
pub(crate) enum NodeJob {
    /// A node, executed by its ring.
    Node {
        ring: Arc<Ring>,
        exec: Arc<NodeExec>,
        alloc: Option<FenceAllocation>,
    },
    /// The completion of a graph: runs on the graph ring, which executes nothing, once the sink
    /// nodes of the graph (all on other schedulers, so fully waited for) have finished, and
    /// completes with the first error among them.
    Graph { deps: KVec<ARef<Fence>> },
}

impl JobImpl for NodeJob {
    fn run(job: &mut RunningJob<'_, Self>) -> Result<Option<ARef<Fence>>> {
        let (ring, exec, alloc) = match &mut **job {
            NodeJob::Graph { deps } => {
                let (_, error) = dep_state(deps, 0);
                return error.map_or(Ok(None), Err);
            }
            NodeJob::Node { ring, exec, alloc } => (ring.clone(), exec.clone(), alloc.take()),
        };
        let fence = ring.ctx.init_fence(alloc.ok_or(EINVAL)?, ());
        let hw = fence.fence().clone();
        *exec.fence.lock() = Some(fence);
        ring.fifo
            .lock()
            .push_within_capacity(exec)
            .map_err(|_| EBUSY)?;
        // Enqueueing fails only while the work is queued and not yet running, in which case it
        // will find the node.
        let _ = workqueue::system_long().enqueue(ring);
        Ok(Some(hw))
    }

    fn timed_out(job: &mut RunningJob<'_, Self>) {
        if let NodeJob::Node { ring, exec, .. } = &**job {
            // The worker stops within a chunk and skips the operation.
            exec.aborted.store(true, Relaxed);
            ring.remove(exec);
            if let Some(fence) = exec.take_fence() {
                fence.signal_with_error(ETIMEDOUT);
            }
        }
    }
}
