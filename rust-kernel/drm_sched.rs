// SPDX-License-Identifier: GPL-2.0

//! DRM GPU scheduler.
//!
//! The DRM GPU scheduler (`struct drm_gpu_scheduler`) feeds the jobs that drivers push into
//! scheduler entities to one hardware ring, in dependency order and within a credit limit, and
//! handles jobs that time out. This module wraps it for Rust drivers:
//!
//! - A [`Scheduler`] is one scheduler instance (credit limit, timeout, name, its own or a shared
//!   workqueue). The driver implements [`JobImpl`] for its per-job data: [`JobImpl::run`] starts
//!   a job on the hardware and [`JobImpl::timed_out`] aborts a stuck one. Freeing a job is
//!   dropping its data.
//! - An [`Entity`] is a queue of jobs with a [`Priority`], typically one per client and ring.
//! - A [`Job`] is created with everything that can fail: its allocation and its dependencies
//!   (fences of any kind, [`SyncObj`] points with their full 64-bit point). [`Job::push`] then arms
//!   it (creates its scheduled and finished fences) and hands it to the scheduler in one step that
//!   cannot fail, and returns its fences ([`JobFences`]).
//!
//! # Fence order
//!
//! The finished fences of an entity's jobs form one fence context, and fences of one context must
//! signal in the order of their sequence numbers. Arming takes the entity's next sequence number
//! and pushing decides the order in which the jobs run, so the two must never be reordered or
//! interleaved with another thread's. [`Job::push`] does both under the entity's push lock; there
//! is no armed job that the driver could hold, push late or drop.
//!
//! The jobs then complete in that order as long as the driver signals the hardware fences it
//! returns one after the other, in the order the jobs ran, as fences of one context must be. A job
//! that completes without a running hardware fence (`run()` returns none, a signalled one or an
//! error, or the job is cancelled instead of run) while the finished fence of the entity's
//! previous job is unsignalled signals its own finished fence right after that one, and the
//! entity's next job starts only then. Each job therefore carries a small pre-allocated chain
//! node for this.
//!
//! # Ownership and lifetimes
//!
//! - Until it is pushed, a job is owned by the driver's [`Job`] value, which borrows its entity.
//!   Dropping it frees it: nobody can wait on a job that has not been pushed, as its fences do not
//!   exist yet.
//! - A pushed job belongs to the scheduler. The driver sees it again only in the callbacks, as
//!   a [`RunningJob`]. Its data is dropped after its finished fence has signalled, in the
//!   scheduler's workqueue (or, for jobs of a dropped entity, the system workqueue).
//! - The scheduler instance is shared by the [`Scheduler`] handles and the entities. The C
//!   scheduler dereferences `job->sched` in work items until each job is freed, also for jobs
//!   whose entity is long gone; therefore the last handle (or entity) to go does not tear the
//!   scheduler down until every job created on it has been freed, and only then calls
//!   `drm_sched_fini()`. No job can be pending at that point, so `drm_sched_fini()` never has to
//!   cancel or leak one. The teardown happens in the context that drops the last handle, except
//!   where waiting there would wait for itself: in one of the scheduler's own work items, or when
//!   the driver's data of a job holds the last handle (e.g. through the driver's ring object) and
//!   drops it while the job is being freed. The teardown then runs in a work item of the unbound
//!   system workqueue, and a driver waits for it with a [`TeardownWaiter`].
//! - Dropping an [`Entity`] cancels the jobs whose [`JobImpl::run`] has not been called yet: the
//!   C scheduler signals the finished fences of those still queued with `ESRCH`, in order, once
//!   the jobs ahead of them are done, and a job that the scheduler already took from the queue
//!   ends with `ESRCH` instead of running. Call [`Entity::flush`] first to let them run instead.
//!   An entity dropped in [`JobImpl::run`] of one of its own jobs (whose data held its last
//!   reference) is finished by a work item of the unbound system workqueue once `run()` has
//!   returned, as the scheduler's run worker still uses it; it keeps a handle of the scheduler
//!   until then, and the jobs behind that job do not run either.
//! - Jobs that are running when the driver tears down complete when their hardware fences
//!   signal. A hardware fence created with [`DriverFence`](crate::dma_fence::DriverFence)
//!   signals with `ECANCELED` when it is dropped, so a driver that drops its hardware state
//!   before its last scheduler handle completes all of them. Every finished fence therefore
//!   signals exactly once, with an error if the job did not run to completion.
//!
//! A driver module must drop all of its schedulers and entities before it is unloaded, as the
//! callbacks are its code; dropping the last handle waits until the last job is freed, and where
//! jobs can hold handles, a [`TeardownWaiter`] waits for the teardown they run.
//!
//! # Fence signalling context
//!
//! [`JobImpl::run`] and [`JobImpl::timed_out`] are part of the fence signalling critical path:
//! the finished fences of jobs depend on them and memory reclaim may wait on those fences. They
//! run inside a [`SignallingGuard`] so that lockdep reports violations, and must not allocate
//! memory with `GFP_KERNEL`, wait on fences or take locks that are held while waiting on fences.
//! Allocate what a job needs when creating it (e.g. a
//! [`FenceAllocation`](crate::dma_fence::FenceAllocation) for the hardware fence).
//!
//! C header: [`include/drm/gpu_scheduler.h`](srctree/include/drm/gpu_scheduler.h)
//!
//! # Examples
//!
//! A job that completes on the CPU as soon as it runs:
//!
//! ```
//! use kernel::drm::sched::{Entity, Job, JobImpl, Priority, RunningJob, Scheduler};
//! use kernel::drm::sched::SchedulerOptions;
//! use kernel::dma_fence::Fence;
//! use kernel::sync::{aref::ARef, atomic::{Atomic, Relaxed}, Arc};
//! use kernel::time::Delta;
//!
//! struct CpuJob(Arc<Atomic<u32>>);
//!
//! impl JobImpl for CpuJob {
//!     fn run(job: &mut RunningJob<'_, Self>) -> Result<Option<ARef<Fence>>> {
//!         job.0.fetch_add(1, Relaxed);
//!         // No hardware fence: the job is complete when this returns.
//!         Ok(None)
//!     }
//!
//!     fn timed_out(_job: &mut RunningJob<'_, Self>) {}
//! }
//!
//! let faux = kernel::faux::Registration::new(c"rust_drm_sched_doc", None)?;
//! let dev: &kernel::device::Device = faux.as_ref().as_ref();
//! let sched = Scheduler::<CpuJob>::new(SchedulerOptions::new(dev, c"doc", 1))?;
//! let entity = KBox::pin_init(Entity::new(&sched, Priority::Normal, GFP_KERNEL), GFP_KERNEL)?;
//! let runs = Arc::new(Atomic::new(0), GFP_KERNEL)?;
//!
//! let finished = Job::new(&entity, 1, CpuJob(runs.clone()), GFP_KERNEL)?.push().finished;
//!
//! finished.wait(false, Some(Delta::from_millis(5000)))?;
//! assert!(finished.error().is_none());
//! assert_eq!(runs.load(Relaxed), 1);
//! # Ok::<(), Error>(())
//! ```

pub mod graph;

use crate::{
    alloc::Flags,
    bindings,
    container_of,
    device,
    dma_fence::{
        Fence,
        FenceChain,
        SignallingGuard,
        UnchainedFence, //
    },
    drm::syncobj::{
        SyncObj,
        SyncPoint, //
    },
    error::to_result,
    ffi::c_long,
    new_spinlock,
    prelude::*,
    sync::{
        aref::ARef,
        atomic::{
            Acquire,
            Atomic,
            Full,
            Relaxed,
            Release, //
        },
        barrier::smp_mb,
        completion::Completion,
        rcu,
        Arc,
        LockClassKey,
        SpinLock, //
    },
    time::{
        msecs_to_jiffies,
        Delta,
        Instant,
        Monotonic, //
    },
    types::Opaque,
    workqueue::{
        impl_has_work,
        new_work,
        Queue,
        Work,
        WorkItem, //
    }, //
};
use core::{
    marker::PhantomData,
    mem::ManuallyDrop,
    ops::{
        Deref,
        DerefMut, //
    },
    ptr::{
        self,
        NonNull, //
    }, //
};

/// Converts `timeout` to jiffies, rounding up and saturating; negative is zero.
fn jiffies(timeout: Delta) -> c_long {
    let msecs = u32::try_from(timeout.as_millis_ceil().max(0)).unwrap_or(u32::MAX);
    c_long::try_from(msecs_to_jiffies(msecs)).unwrap_or(c_long::MAX)
}

/// The priority of an [`Entity`].
///
/// The scheduler picks the next job from the entities of the highest priority that have one
/// ready.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Priority {
    /// Kernel-internal work, e.g. memory management.
    Kernel,
    /// High priority.
    High,
    /// Normal priority.
    Normal,
    /// Low priority.
    Low,
}

impl Priority {
    fn as_raw(self) -> bindings::drm_sched_priority {
        match self {
            Priority::Kernel => bindings::drm_sched_priority_DRM_SCHED_PRIORITY_KERNEL,
            Priority::High => bindings::drm_sched_priority_DRM_SCHED_PRIORITY_HIGH,
            Priority::Normal => bindings::drm_sched_priority_DRM_SCHED_PRIORITY_NORMAL,
            Priority::Low => bindings::drm_sched_priority_DRM_SCHED_PRIORITY_LOW,
        }
    }
}

/// The driver's side of a job: its data and the callbacks of the scheduler.
///
/// Both callbacks run in the fence signalling critical path, inside a [`SignallingGuard`]; see
/// the [module documentation](self). They never run concurrently for the same job.
pub trait JobImpl: Send + Sized + 'static {
    /// Starts the job on the hardware.
    ///
    /// Called once, in the scheduler's submit workqueue, when all dependencies of the job have
    /// signalled and the scheduler has credits for it. Returns the hardware fence, which the
    /// driver signals when the hardware is done with the job, or `None` if the job is already
    /// complete. An error completes the job with that error on its finished fence, and a hardware
    /// fence that is signalled already counts as `None`, with its error. A job that completes
    /// here finishes at once, or, if the finished fence of the entity's previous job has not
    /// signalled, right after it (see [Fence order](self#fence-order)). Not called while the
    /// entity's previous job is such a job and has not finished.
    ///
    /// Not called for jobs whose entity was killed or whose finished fence already carries an
    /// error (`ECANCELED` for a guilty entity): those complete with their error without
    /// running.
    ///
    /// The hardware fence is the driver's own: a scheduled or finished fence of the job's entity
    /// (the job's own [`RunningJob::finished_fence`] among them) completes the job with `EINVAL`
    /// instead. The hardware fences of an entity's jobs must signal in the order the jobs ran, as
    /// a ring's do: the entity's finished fences signal with them, and must signal in the order
    /// of their sequence numbers.
    fn run(job: &mut RunningJob<'_, Self>) -> Result<Option<ARef<Fence>>>;

    /// Aborts a job that ran longer than the scheduler's timeout.
    ///
    /// Called in the scheduler's timeout workqueue. The driver stops the job on the hardware and
    /// signals its hardware fence before returning, normally with `ETIMEDOUT`: the job then
    /// completes with that error and is freed, and the other jobs keep running. A job whose
    /// hardware fence is left unsignalled stays running, and its timeout starts again.
    fn timed_out(job: &mut RunningJob<'_, Self>);

    /// Called once for every pushed job when the scheduler is done with it, right before its
    /// data is dropped.
    ///
    /// Called whether the job ran or not: its finished fence has signalled, with the job's error
    /// if it has one (its own, `ECANCELED` for a guilty entity, or `ESRCH` for a job whose
    /// entity was killed). Lets a driver whose data must learn a job's fences take them here and in
    /// [`JobImpl::run`], rather than in between arming and pushing the job, where nothing of the
    /// driver runs. Does nothing by default.
    fn free(_job: &mut RunningJob<'_, Self>) {}
}

/// The options of a [`Scheduler`].
pub struct SchedulerOptions {
    /// Name of the scheduler, shown in fences and messages.
    pub name: &'static CStr,
    /// Number of credits the hardware ring can hold; each job takes between 1 and this many.
    pub credit_limit: u32,
    /// Time after which a running job is considered stuck; `None` for no timeout.
    pub timeout: Option<Delta>,
    /// Number of timeouts after which a job's entity is considered guilty (0 for none).
    pub hang_limit: u32,
    /// Workqueue for running and freeing jobs; `None` allocates an ordered one for the scheduler.
    pub submit_wq: Option<&'static Queue>,
    /// The device of the ring, named in messages and in the scheduler's trace events.
    pub dev: ARef<device::Device>,
}

impl SchedulerOptions {
    /// Options for a ring of `dev` with a name and a credit limit, and no timeout.
    pub fn new(dev: &device::Device, name: &'static CStr, credit_limit: u32) -> Self {
        Self {
            name,
            credit_limit,
            timeout: None,
            hang_limit: 0,
            submit_wq: None,
            dev: dev.into(),
        }
    }
}

/// The scheduler instance shared by the [`Scheduler`] handles and the entities.
///
/// # Invariants
///
/// - `sched` is an initialised scheduler whose jobs are all `JobInner<T>` of the one `T` its ops
///   were created for, until [`SchedCore::teardown`] has run.
/// - `handles` is the number of [`Scheduler`] values (including those of the entities), and
///   `refs` that number plus the holds taken by [`SchedCore::try_hold`]; each of the latter owns a
///   reference to the `Arc` of the core.
/// - `jobs` is one while `refs` is not zero (the share of the handles), plus the number of
///   jobs initialised on this scheduler and not yet freed.
#[pin_data]
struct SchedCore {
    #[pin]
    idle: Completion,
    #[pin]
    torn_down: Completion,
    handles: Atomic<usize>,
    refs: Atomic<usize>,
    jobs: Atomic<usize>,
    credit_limit: u32,
    dev: ARef<device::Device>,
    #[pin]
    teardown_work: Work<SchedCore>,
    #[pin]
    sched: Opaque<bindings::drm_gpu_scheduler>,
}

impl_has_work! {
    impl HasWork<Self> for SchedCore { self.teardown_work }
}

// SAFETY: The C scheduler may be used from any thread; the rest is immutable or atomic.
unsafe impl Send for SchedCore {}

// SAFETY: The C scheduler synchronises its own state; the rest is immutable or atomic.
unsafe impl Sync for SchedCore {}

/// The number of schedulers torn down, for the tests of deferred teardowns.
#[cfg(CONFIG_KUNIT)]
static TEARDOWNS: Atomic<u64> = Atomic::new(0);

/// A pause in [`SchedCore::try_hold`] between counting a hold and taking its reference, for the
/// test of that window (see [`pause`]).
#[cfg(CONFIG_KUNIT)]
static HOLD_WINDOW: Atomic<u32> = Atomic::new(0);

/// A pause in the work item that finishes an entity dropped in one of its own jobs, before it
/// does, for the test of the jobs the run worker takes meanwhile (see [`pause`]).
#[cfg(CONFIG_KUNIT)]
static ENTITY_FINI_WINDOW: Atomic<u32> = Atomic::new(0);

/// Waits in `window` if a test armed it: the test stores 1, the next thread to get here stores 2
/// and waits, for five seconds at most, until the test stores 3.
#[cfg(CONFIG_KUNIT)]
fn pause(window: &Atomic<u32>) {
    if window.cmpxchg(1, 2, Full).is_err() {
        return;
    }
    wait_until(|| window.load(Acquire) == 3);
    window.store(0, Release);
}

/// Waits up to five seconds, in steps of a millisecond, until `cond` holds; returns whether it
/// does. For the tests and their hooks.
#[cfg(CONFIG_KUNIT)]
fn wait_until(cond: impl Fn() -> bool) -> bool {
    for _ in 0..5000 {
        if cond() {
            return true;
        }
        crate::time::delay::fsleep(Delta::from_millis(1));
    }
    cond()
}

impl SchedCore {
    fn as_raw(&self) -> *mut bindings::drm_gpu_scheduler {
        self.sched.get()
    }

    /// The teardown work item. Not generic, unlike the callers, so that the work item's lock
    /// class and name exist once, in the kernel crate, not once per driver module.
    fn new_teardown_work() -> impl PinInit<Work<SchedCore>> {
        new_work!("drm_sched::SchedCore::teardown_work")
    }

    /// Accounts for a job that is being initialised; undone by [`SchedCore::job_released`].
    fn job_created(&self) {
        self.jobs.fetch_add(1, Full);
    }

    /// Accounts for a job that has been freed.
    ///
    /// Must be called once per [`SchedCore::job_created`].
    fn job_released(&self) {
        if self.jobs.fetch_sub(1, Full) == 1 {
            // The handles are gone and the teardown waits for this.
            self.idle.complete_all();
        }
    }

    /// Takes a temporary handle on the scheduler if it still has handles, so that dropping a
    /// job's data cannot drop the last one (see [`JobInner::release`]).
    ///
    /// `this` is the reference of a job that is not released yet. That reference, not a handle,
    /// keeps the core's memory valid here: the last handle may go between counting the hold and
    /// taking the hold's reference below, from a work item, which does not wait for the
    /// teardown that the hold now owes.
    fn try_hold(this: &Arc<Self>) -> Option<Arc<Self>> {
        let mut refs = this.refs.load(Relaxed);
        loop {
            if refs == 0 {
                // The teardown has started and waits for our job: nothing can drop a handle.
                return None;
            }
            match this.refs.cmpxchg(refs, refs + 1, Full) {
                Ok(_) => break,
                Err(now) => refs = now,
            }
        }
        #[cfg(CONFIG_KUNIT)]
        pause(&HOLD_WINDOW);
        // INVARIANT: The hold counted above owns the reference taken here.
        Some(this.clone())
    }

    /// Drops a reference (a handle or a hold); the last one tears the scheduler down.
    ///
    /// The teardown waits until every job is freed. In one of the scheduler's own work items,
    /// or with `defer` (in the release of a job), that would wait for itself: the teardown then
    /// runs in a work item of the unbound system workqueue (`system_dfl_wq`) instead.
    fn put_ref(this: Arc<Self>, defer: bool) {
        if this.refs.fetch_sub(1, Full) != 1 {
            return;
        }
        if defer || this.in_own_work_item() {
            // SAFETY: `system_dfl_wq`, the unbound system workqueue, is a C global that always
            // exists.
            let wq = unsafe { Queue::from_raw(bindings::system_dfl_wq) };
            // The work item of a core is only ever enqueued here, once, so this cannot fail.
            let _ = wq.enqueue(this);
        } else {
            this.teardown();
        }
    }

    /// Whether the caller runs in one of the scheduler's work items.
    fn in_own_work_item(&self) -> bool {
        // SAFETY: `current_work()` has no preconditions.
        let current = unsafe { bindings::current_work() };
        let sched = self.as_raw();
        // SAFETY: Only the addresses of fields of the initialised scheduler are computed.
        let own = unsafe {
            [
                &raw mut (*sched).work_run_job,
                &raw mut (*sched).work_free_job,
                &raw mut (*sched).work_tdr.work,
            ]
        };
        !current.is_null() && own.contains(&current)
    }

    /// Tears the scheduler down once its last handle is gone.
    fn teardown(&self) {
        // Drop the handles' share; wait for the jobs that are still alive, including those of
        // killed entities that the C scheduler frees from the system workqueue.
        if self.jobs.fetch_sub(1, Full) != 1 {
            self.idle.wait_for_completion();
        }
        // SAFETY: The scheduler was initialised, its entities are gone (each holds a handle) and
        // so are all of its jobs, so no work item of it uses a job any more. This does not run in
        // one of the scheduler's work items (see `put_ref()`), which `drm_sched_fini()` waits
        // for.
        unsafe { bindings::drm_sched_fini(self.as_raw()) };
        // The scheduler's fences outlive it, and `dma_fence_timeline_name()` readers may still
        // be in `drm_sched_fence_get_timeline_name()`, which reads `fence->sched->name`, under
        // RCU: the dma-fence rules require a grace period between signalling a fence and freeing
        // what its ops read.
        rcu::synchronize_rcu();
        #[cfg(CONFIG_KUNIT)]
        TEARDOWNS.fetch_add(1, Full);
        self.torn_down.complete_all();
    }
}

impl WorkItem for SchedCore {
    type Pointer = Arc<SchedCore>;

    fn run(this: Arc<SchedCore>) {
        this.teardown();
    }
}

/// A DRM GPU scheduler instance, typically one per hardware ring.
///
/// Cloning gives another handle to the same scheduler. The scheduler is torn down when the last
/// handle and the last [`Entity`] on it are dropped, after all of its jobs have been freed (see
/// the [module documentation](self)). Dropping the last handle may sleep.
pub struct Scheduler<T: JobImpl> {
    core: Arc<SchedCore>,
    _job: PhantomData<T>,
}

impl<T: JobImpl> Clone for Scheduler<T> {
    fn clone(&self) -> Self {
        self.core.handles.fetch_add(1, Full);
        self.core.refs.fetch_add(1, Full);
        // INVARIANT: The handle counted above owns the new reference to the core.
        Self {
            core: self.core.clone(),
            _job: PhantomData,
        }
    }
}

impl<T: JobImpl> Drop for Scheduler<T> {
    fn drop(&mut self) {
        let last = self.core.handles.fetch_sub(1, Full) == 1;
        SchedCore::put_ref(self.core.clone(), false);
        // The last handle waits for the teardown, which runs here or, while a job that is being
        // freed holds the scheduler, when that job is done. Jobs are freed in work items only
        // (the handles of entities keep the scheduler alive while unpushed jobs are dropped), so
        // outside of work items this is not one of them; inside one, waiting could wait for the
        // caller itself (use a [`TeardownWaiter`] where that cannot happen).
        // SAFETY: `current_work()` has no preconditions.
        if last && unsafe { bindings::current_work() }.is_null() {
            self.core.torn_down.wait_for_completion();
        }
    }
}

/// Waits for the teardown of a [`Scheduler`] without keeping it alive.
///
/// A driver whose job data holds handles of the scheduler (e.g. through its ring object) does not
/// drop the last handle itself: the last job does, when it is freed, and the teardown then runs
/// in a work item of its own. A driver takes a waiter before dropping its handles and waits on it
/// before its module's code can go away: once [`TeardownWaiter::wait`] returns, every job has
/// been freed, no callback of the scheduler runs and none will.
pub struct TeardownWaiter {
    core: Arc<SchedCore>,
}

impl TeardownWaiter {
    /// Waits until the scheduler has been torn down.
    ///
    /// Must not be called while holding a handle of the scheduler, or from a context that the
    /// scheduler's jobs wait for (a fence signalling path): it would wait for itself. In one of
    /// the scheduler's own work items (e.g. when a job's data is the last user of the driver's
    /// device) it does not wait, as the teardown waits for that work item, and returns `false`.
    pub fn wait(self) -> bool {
        if self.core.in_own_work_item() {
            return false;
        }
        self.core.torn_down.wait_for_completion();
        true
    }
}

impl<T: JobImpl> Scheduler<T> {
    const OPS: bindings::drm_sched_backend_ops = bindings::drm_sched_backend_ops {
        prepare_job: Some(prepare_job::<T>),
        run_job: Some(run_job::<T>),
        timedout_job: Some(timedout_job::<T>),
        free_job: Some(free_job::<T>),
        // Never needed: `drm_sched_fini()` only runs once every job has been freed.
        cancel_job: None,
    };

    /// Creates a scheduler.
    ///
    /// Returns `EINVAL` for a credit limit of zero.
    pub fn new(opts: SchedulerOptions) -> Result<Self> {
        if opts.credit_limit == 0 {
            return Err(EINVAL);
        }
        // A timeout of zero jiffies would fire at once: at least one.
        let timeout = opts.timeout.map_or(c_long::MAX, |t| jiffies(t).max(1));
        let dev_ptr = opts.dev.as_raw();
        let args = bindings::drm_sched_init_args {
            ops: &Self::OPS,
            // `Queue` is a transparent wrapper of `struct workqueue_struct`.
            submit_wq: opts.submit_wq.map_or(ptr::null_mut(), |wq| {
                ptr::from_ref(wq)
                    .cast_mut()
                    .cast::<bindings::workqueue_struct>()
            }),
            timeout_wq: ptr::null_mut(),
            num_rqs: bindings::drm_sched_priority_DRM_SCHED_PRIORITY_COUNT as u32,
            credit_limit: opts.credit_limit,
            hang_limit: opts.hang_limit,
            timeout,
            score: ptr::null_mut(),
            name: opts.name.as_char_ptr(),
            dev: dev_ptr,
        };
        let core = Arc::pin_init(
            try_pin_init!(SchedCore {
                idle <- Completion::new(),
                torn_down <- Completion::new(),
                handles: Atomic::new(1),
                refs: Atomic::new(1),
                jobs: Atomic::new(1),
                credit_limit: opts.credit_limit,
                dev: opts.dev,
                teardown_work <- SchedCore::new_teardown_work(),
                sched <- Opaque::try_ffi_init(|slot: *mut bindings::drm_gpu_scheduler| {
                    // SAFETY: `slot` is valid for writes. `drm_sched_init()` expects a zeroed
                    // scheduler (it treats a set `sched_rq` as already initialised).
                    unsafe { slot.write_bytes(0, 1) };
                    // SAFETY: `slot` is valid for writes and pinned; `args` points to an ops
                    // table and a name that are `'static`, and to a device and a workqueue that
                    // `SchedCore` and `'static` keep alive.
                    to_result(unsafe { bindings::drm_sched_init(slot, &args) })
                }),
            }? Error),
            GFP_KERNEL,
        )?;
        // INVARIANT: `sched` was initialised with the ops of `T`, `handles` and `refs` count the
        // returned handle and `jobs` the handles' share only.
        Ok(Self {
            core,
            _job: PhantomData,
        })
    }

    /// Returns a waiter for the teardown of this scheduler; see [`TeardownWaiter`].
    pub fn teardown_waiter(&self) -> TeardownWaiter {
        TeardownWaiter {
            core: self.core.clone(),
        }
    }

    /// The credit limit of the scheduler.
    pub fn credit_limit(&self) -> u32 {
        self.core.credit_limit
    }

    /// Returns the raw `struct drm_gpu_scheduler` pointer.
    pub fn as_raw(&self) -> *mut bindings::drm_gpu_scheduler {
        self.core.as_raw()
    }
}

/// The push lock of an entity. Not generic, unlike [`Entity::new`], so that the lock class and
/// its name exist once, in the kernel crate, and not once per driver module that creates
/// entities (lockdep finds the same key with two names otherwise).
fn push_lock() -> impl PinInit<SpinLock<()>> {
    new_spinlock!((), "drm_sched::Entity::push_lock")
}

/// What `run_job` keeps of the last job of an entity that it handled.
struct LastRun {
    /// The job's finished fence.
    finished: ARef<Fence>,
    /// Whether the job completed in `run_job` while the job before it was still running, so
    /// that its finished fence waits for that job's (see `run_job`).
    waits: bool,
}

/// The lock of an entity's [`LastRun`], with its lock class; see [`push_lock`].
fn last_run_lock() -> impl PinInit<SpinLock<Option<LastRun>>> {
    new_spinlock!(None, "drm_sched::EntityCore::last_run")
}

/// The lock class of the work item that finishes an entity dropped in one of its own jobs. Not
/// generic, unlike its users, so that the class exists once, in the kernel crate.
fn entity_fini_key() -> Pin<&'static LockClassKey> {
    crate::static_lock_class!()
}

/// The part of an [`Entity`] that the C scheduler uses, in an allocation of its own.
///
/// An entity dropped in [`JobImpl::run`] of one of its own jobs cannot be finished there:
/// `drm_sched_entity_fini()` waits until the scheduler's run worker, which is the caller, is done
/// with the entity, and the worker still uses it after `run_job` returns. The entity then leaves
/// this part, with a handle of the scheduler, to a work item that finishes and frees it.
///
/// The scheduler's run worker may select the entity again before that work item runs:
/// `dropped` makes `run_job` cancel the jobs it then takes, as `drm_sched_entity_fini()` cancels
/// those still queued.
#[pin_data]
struct EntityCore<T: JobImpl> {
    #[pin]
    entity: Opaque<bindings::drm_sched_entity>,
    /// The last job of the entity that `run_job` handled. Only the scheduler's run worker uses
    /// it (in `prepare_job` and `run_job`). Declared before `sched`, so that its fence goes
    /// before the entity's handle of the scheduler.
    #[pin]
    last_run: SpinLock<Option<LastRun>>,
    sched: Scheduler<T>,
    /// Set when the [`Entity`] is dropped.
    dropped: Atomic<bool>,
    #[pin]
    fini_work: Work<EntityCore<T>>,
}

impl_has_work! {
    impl{T: JobImpl} HasWork<Self> for EntityCore<T> { self.fini_work }
}

impl<T: JobImpl> WorkItem for EntityCore<T> {
    type Pointer = Pin<KBox<EntityCore<T>>>;

    fn run(this: Pin<KBox<EntityCore<T>>>) {
        #[cfg(CONFIG_KUNIT)]
        pause(&ENTITY_FINI_WINDOW);
        // SAFETY: The entity is initialised and not used again: its `Entity` is gone. This runs
        // on the unbound system workqueue, not in the scheduler's run worker, whose use of the
        // entity `drm_sched_entity_fini()` waits for.
        unsafe { bindings::drm_sched_entity_fini(this.entity.get()) };
    }
}

// SAFETY: The C entity may be used from any thread; see `Entity`.
unsafe impl<T: JobImpl> Send for EntityCore<T> {}

// SAFETY: See above.
unsafe impl<T: JobImpl> Sync for EntityCore<T> {}

impl<T: JobImpl> EntityCore<T> {
    fn as_raw(&self) -> *mut bindings::drm_sched_entity {
        self.entity.get()
    }

    /// Whether the caller is the scheduler's run worker, between selecting this entity and
    /// returning from `run_job` (i.e. in [`JobImpl::run`] of one of its jobs).
    fn in_own_run(&self) -> bool {
        let sched = self.sched.as_raw();
        // SAFETY: `current_work()` has no preconditions; only the address of a field of the
        // initialised scheduler is computed.
        let in_run_worker = unsafe { bindings::current_work() == &raw mut (*sched).work_run_job };
        if !in_run_worker {
            return false;
        }
        // The run worker re-arms `entity_idle` when it selects the entity and completes it once
        // `run_job` has returned; the worker never runs twice at once.
        // SAFETY: The entity is initialised.
        let idle = unsafe { bindings::completion_done(&raw mut (*self.as_raw()).entity_idle) };
        !idle
    }
}

/// A queue of jobs on a [`Scheduler`], with a [`Priority`].
///
/// Jobs of one entity start in the order they were pushed. Dropping the entity cancels the jobs
/// that have not started (see the [module documentation](self)); it may sleep, except in
/// [`JobImpl::run`] of one of its own jobs, where a work item finishes it once `run()` has
/// returned.
///
/// # Invariants
///
/// `core` is the initialised entity until it is dropped or handed to its work item, in `drop`.
#[pin_data(PinnedDrop)]
pub struct Entity<T: JobImpl> {
    core: ManuallyDrop<Pin<KBox<EntityCore<T>>>>,
    /// Held while a job is armed and pushed, so that jobs are pushed in the order of their fences.
    #[pin]
    push_lock: SpinLock<()>,
}

// SAFETY: The C entity may be used from any thread; `push_job` and the other entry points do
// their own locking.
unsafe impl<T: JobImpl> Send for Entity<T> {}

// SAFETY: See above.
unsafe impl<T: JobImpl> Sync for Entity<T> {}

impl<T: JobImpl> Entity<T> {
    /// Creates an entity of `priority` on `sched`.
    ///
    /// The entity's state, which the scheduler may use after the entity is dropped, is allocated
    /// on its own with `flags`: [`GFP_KERNEL_ACCOUNT`] for an entity that a user creates (e.g.
    /// one per open file), so that it is charged to the user's memory cgroup like the allocation
    /// the entity is initialised in.
    pub fn new(
        sched: &Scheduler<T>,
        priority: Priority,
        flags: Flags,
    ) -> impl PinInit<Self, Error> {
        let raw_sched = sched.as_raw();
        let sched = sched.clone();
        let core = try_pin_init!(EntityCore::<T> {
            last_run <- last_run_lock(),
            sched,
            dropped: Atomic::new(false),
            fini_work <- Work::new(c"drm_sched::Entity::fini_work", entity_fini_key()),
            entity <- Opaque::try_ffi_init(move |slot| {
                let mut list = [raw_sched];
                // SAFETY: `slot` is valid for writes and pinned; `list` holds one valid
                // scheduler, which the entity keeps alive through `sched`. With a single
                // scheduler the entity does not keep the list pointer.
                to_result(unsafe {
                    bindings::drm_sched_entity_init(
                        slot,
                        priority.as_raw(),
                        list.as_mut_ptr(),
                        1,
                        ptr::null_mut(),
                    )
                })
            }),
        }? Error);
        try_pin_init!(Self {
            core: ManuallyDrop::new(KBox::pin_init(core, flags)?),
            push_lock <- push_lock(),
        }? Error)
    }

    fn as_raw(&self) -> *mut bindings::drm_sched_entity {
        self.core.as_raw()
    }

    /// The scheduler of the entity.
    pub fn scheduler(&self) -> &Scheduler<T> {
        &self.core.sched
    }

    /// Waits up to `timeout` until the jobs queued in the entity have been started.
    ///
    /// Returns whether the queue is empty. Must be called from a context that may sleep. In one
    /// of the scheduler's own work items (e.g. in [`JobImpl::run`]) it does not wait, as it would
    /// wait for the caller, and returns `false`.
    pub fn flush(&self, timeout: Delta) -> bool {
        if self.core.sched.core.in_own_work_item() {
            return false;
        }
        let timeout = jiffies(timeout);
        // SAFETY: The entity is initialised.
        let left = unsafe { bindings::drm_sched_entity_flush(self.as_raw(), timeout) };
        left > 0 || timeout == 0
    }

    /// The error of the last job of the entity that completed with one, if any.
    pub fn error(&self) -> Result {
        // SAFETY: The entity is initialised.
        to_result(unsafe { bindings::drm_sched_entity_error(self.as_raw()) })
    }
}

#[pinned_drop]
impl<T: JobImpl> PinnedDrop for Entity<T> {
    fn drop(self: Pin<&mut Self>) {
        // SAFETY: `core` is not structurally pinned (the `KBox` pins its contents), and it is
        // taken only here, once.
        let core = unsafe { ManuallyDrop::take(&mut self.get_unchecked_mut().core) };
        // Jobs that the run worker takes from here on are cancelled (see `run_job`).
        core.dropped.store(true, Release);
        if core.in_own_run() {
            // The work item owns the core, with its handle of the scheduler, until it has
            // finished the entity. A boxed work item is always queued.
            crate::workqueue::system_unbound().enqueue(core);
            return;
        }
        // SAFETY: The entity is initialised and not used again; jobs still queued are killed
        // and freed by the scheduler, which `sched` keeps alive until then. The caller is not
        // the scheduler's run worker in this entity's `run_job`, which this would wait for.
        unsafe { bindings::drm_sched_entity_fini(core.as_raw()) };
    }
}

/// A job as allocated: the C job, the scheduler it counts against and the driver's data.
///
/// The job owns a reference to the core, which keeps its memory, not its scheduler, alive: the
/// scheduler is torn down when the handles go, after every job has been freed (`jobs`), while a
/// job being freed may still read the core (see [`JobInner::release`]).
///
/// # Invariants
///
/// - `base` was initialised with `drm_sched_job_init()` on an entity of the scheduler of `core`,
///   which counts this job in `SchedCore::jobs`.
/// - `entity` is the [`EntityCore`] of that entity. It is valid until `drm_sched_entity_fini()`
///   has been called on it, and, as that waits for the run worker to be done with the entity,
///   during `prepare_job` and `run_job`.
#[pin_data]
struct JobInner<T: JobImpl> {
    #[pin]
    base: Opaque<bindings::drm_sched_job>,
    core: Arc<SchedCore>,
    entity: NonNull<EntityCore<T>>,
    /// A fence chain node, allocated with the job so that nothing allocates once it is pushed.
    /// Used at most once, by `prepare_job` or `run_job`, to keep the job's finished fence in
    /// order behind the one of the entity's previous job.
    order_node: Option<FenceChain>,
    /// Set by `run_job` when the job completed there but its finished fence waits for the
    /// previous job's: the job is not running on the hardware, so it cannot time out.
    completed_early: Atomic<bool>,
    data: T,
}

impl<T: JobImpl> JobInner<T> {
    fn base(&self) -> *mut bindings::drm_sched_job {
        self.base.get()
    }

    /// Returns the job that contains `job`.
    ///
    /// # Safety
    ///
    /// `job` must be the `base` of a live `JobInner<T>`.
    unsafe fn from_base(job: *mut bindings::drm_sched_job) -> *mut Self {
        // SAFETY: By the safety requirements, `job` is the `base` field of a `JobInner<T>`.
        unsafe { container_of!(Opaque::cast_from(job), Self, base) }.cast_mut()
    }

    /// The scheduled (`finished == false`) or finished fence of an armed job.
    fn fence(&self, finished: bool) -> ARef<Fence> {
        // SAFETY: The job is armed (only armed jobs are seen by the scheduler's callbacks).
        unsafe { armed_fence(self.base(), finished) }
    }

    fn credits(&self) -> u32 {
        // SAFETY: `credits` is set by `drm_sched_job_init()` and only read afterwards.
        unsafe { (*self.base()).credits }
    }

    /// Frees a job; `pushed` says whether it was pushed, in which case [`JobImpl::free`] is
    /// called first.
    ///
    /// # Safety
    ///
    /// `this` must come from `KBox::into_raw()`, and the scheduler must not use the job any more.
    /// If `pushed`, the job was armed and its finished fence has signalled.
    unsafe fn release(this: *mut Self, pushed: bool) {
        // SAFETY: `this` is valid, per the safety requirements.
        let job_core = unsafe { &(*this).core };
        let core = Arc::as_ptr(job_core);
        // The driver's data may hold the last handle of the scheduler (e.g. through the driver's
        // ring object). Dropping it here, possibly in one of the scheduler's work items, must not
        // start the teardown, which waits for this very job: a hold keeps the handles alive until
        // the job is accounted as freed, and the last hold defers the teardown. The job's own
        // reference keeps the core valid while the hold is taken.
        let hold = SchedCore::try_hold(job_core);
        if pushed {
            // SAFETY: `this` is valid and, per the safety requirements, no longer used by the
            // scheduler: the reference is unique. It ends before the job is freed below.
            let inner = unsafe { &mut *this };
            T::free(&mut RunningJob { inner });
        }
        // SAFETY: `base` was initialised by `drm_sched_job_init()` and is not used again.
        unsafe { bindings::drm_sched_job_cleanup((*this).base()) };
        // SAFETY: `this` came from `KBox::into_raw()`; dropping it drops the driver's data and the
        // job's reference to the core.
        drop(unsafe { KBox::from_raw(this) });
        // SAFETY: The job was counted in `core` (type invariant), which is still valid: the hold
        // keeps it, or, without one, the handles were gone when the hold was tried, and the
        // teardown, which owns a reference, waits for this call.
        unsafe { (*core).job_released() };
        if let Some(hold) = hold {
            SchedCore::put_ref(hold, true);
        }
    }
}

/// Returns the scheduled (`finished == false`) or finished fence of an armed job.
///
/// Only reads through the raw pointer, so it can be used while another thread holds a mutable
/// reference to the job's [`JobInner`].
///
/// # Safety
///
/// `job` must be a valid, armed job: its `s_fence` and the two fences in it are initialised and
/// hold a reference until the job is freed.
unsafe fn armed_fence(job: *mut bindings::drm_sched_job, finished: bool) -> ARef<Fence> {
    // SAFETY: By the safety requirements, `s_fence` and its fences are valid.
    unsafe {
        let s_fence = (*job).s_fence;
        let fence = if finished {
            &raw mut (*s_fence).finished
        } else {
            &raw mut (*s_fence).scheduled
        };
        ARef::from(Fence::from_raw(fence))
    }
}

/// The fences of a job, returned by [`Job::push`].
pub struct JobFences {
    /// Signals when the job has been started on the hardware.
    pub scheduled: ARef<Fence>,
    /// Signals when the job is complete, with its error if it failed.
    pub finished: ARef<Fence>,
}

/// How a [`Job`] refers to its entity.
enum EntityRef<'a, T: JobImpl> {
    Borrowed(&'a Entity<T>),
    Shared(Arc<Entity<T>>),
}

impl<T: JobImpl> Deref for EntityRef<'_, T> {
    type Target = Entity<T>;

    fn deref(&self) -> &Entity<T> {
        match self {
            EntityRef::Borrowed(entity) => entity,
            EntityRef::Shared(entity) => entity,
        }
    }
}

/// A job on its way into an [`Entity`], owned by the driver until it is pushed.
///
/// A job either borrows its entity ([`Job::new`]) or, created with [`Job::new_shared`], holds a
/// reference to it, so that it can be kept (e.g. until its dependencies are done) and pushed
/// later from any context.
///
/// Dereferences to the driver's data.
///
/// # Invariants
///
/// `inner` comes from `KBox::into_raw()` of a pinned `JobInner<T>` owned by this value,
/// initialised on `entity` and not armed.
pub struct Job<'a, T: JobImpl> {
    inner: NonNull<JobInner<T>>,
    entity: EntityRef<'a, T>,
    _owns: PhantomData<KBox<JobInner<T>>>,
}

// SAFETY: The job owns its allocation; the driver's data is `Send`, and the pointer to the
// entity's core, which is `Sync`, is only dereferenced by the scheduler, in `prepare_job` and
// `run_job`.
unsafe impl<T: JobImpl> Send for Job<'_, T> {}

impl<'a, T: JobImpl> Job<'a, T> {
    fn inner(&self) -> &JobInner<T> {
        // SAFETY: By the type invariant, `inner` is valid and owned by `self`.
        unsafe { self.inner.as_ref() }
    }

    fn inner_mut(&mut self) -> &mut JobInner<T> {
        // SAFETY: By the type invariant, `inner` is valid and owned by `self`; only `data` is
        // handed out mutably, `base` stays pinned.
        unsafe { self.inner.as_mut() }
    }

    /// The number of credits the job takes while it runs.
    pub fn credits(&self) -> u32 {
        self.inner().credits()
    }

    /// The entity the job is for.
    pub fn entity(&self) -> &Entity<T> {
        &self.entity
    }

    fn into_raw(self) -> (NonNull<JobInner<T>>, EntityRef<'a, T>) {
        let this = ManuallyDrop::new(self);
        // SAFETY: `this` is not used again and its destructor does not run, so `entity` is moved
        // out exactly once.
        (this.inner, unsafe { ptr::read(&this.entity) })
    }

    /// Creates a job on `entity` that takes `credits` credits while it runs, allocated with
    /// `flags` (e.g. [`GFP_KERNEL_ACCOUNT`] for a job that a user submitted).
    ///
    /// Returns `EINVAL` if `credits` is zero or exceeds the scheduler's credit limit.
    pub fn new(entity: &'a Entity<T>, credits: u32, data: T, flags: Flags) -> Result<Self> {
        let inner = Self::init(entity, credits, data, flags)?;
        // INVARIANT: `inner` is an initialised, unarmed job on `entity`, owned by the result.
        Ok(Self {
            inner,
            entity: EntityRef::Borrowed(entity),
            _owns: PhantomData,
        })
    }

    /// Allocates and initialises a job on `entity`; see [`Job::new`].
    fn init(
        entity: &Entity<T>,
        credits: u32,
        data: T,
        flags: Flags,
    ) -> Result<NonNull<JobInner<T>>> {
        let core = &entity.core.sched.core;
        if credits == 0 || credits > core.credit_limit {
            return Err(EINVAL);
        }
        let order_node = FenceChain::new(flags)?;
        core.job_created();
        let entity_ptr = entity.as_raw();
        // INVARIANT: `base` is initialised on `entity`, of the scheduler of `core`, which counts
        // the job (`job_created()` above); `entity` is that entity's core.
        let inner = KBox::pin_init(
            try_pin_init!(JobInner::<T> {
                base <- Opaque::try_ffi_init(|slot| {
                    // SAFETY: `slot` is valid for writes and pinned; the entity is initialised.
                    to_result(unsafe {
                        bindings::drm_sched_job_init(slot, entity_ptr, credits, ptr::null_mut(), 0)
                    })
                }),
                core: core.clone(),
                entity: NonNull::from(&**entity.core),
                order_node: Some(order_node),
                completed_early: Atomic::new(false),
                data,
            }? Error),
            flags,
        );
        let inner = match inner {
            Ok(inner) => inner,
            Err(e) => {
                // Undoes the `job_created()` above.
                core.job_released();
                return Err(e);
            }
        };
        // SAFETY: The job is never moved out of its allocation.
        let raw = KBox::into_raw(unsafe { Pin::into_inner_unchecked(inner) });
        // SAFETY: `KBox::into_raw()` never returns NULL.
        Ok(unsafe { NonNull::new_unchecked(raw) })
    }

    /// Makes the job wait for `fence` before it runs.
    ///
    /// Fences of the same context are merged (only the latest is kept). Returns `ENOMEM` if the
    /// dependency could not be recorded.
    pub fn add_dependency(&mut self, fence: ARef<Fence>) -> Result {
        let fence = ARef::into_raw(fence).cast::<bindings::dma_fence>().as_ptr();
        // SAFETY: The job is initialised and not armed; the function takes over the reference
        // to `fence` in all cases.
        to_result(unsafe { bindings::drm_sched_job_add_dependency(self.inner().base(), fence) })
    }

    /// Makes the job wait for point `point` of `syncobj` (0 for a binary syncobj).
    ///
    /// The point is resolved now, with all of its 64 bits. Returns `false`, and adds nothing,
    /// when the point has not been submitted yet (wait-before-signal): the caller decides
    /// whether to reject the job or to wait for the submission. Returns `EINVAL` for a point
    /// that does not match the use of the syncobj (see [`SyncObj::fence_at`]).
    #[must_use = "a point that is not submitted yet adds no dependency"]
    pub fn add_syncobj_dependency(&mut self, syncobj: &SyncObj, point: u64) -> Result<bool> {
        match syncobj.fence_at(point)? {
            SyncPoint::Submitted(fence) => self.add_dependency(fence).map(|()| true),
            SyncPoint::NotSubmitted => Ok(false),
        }
    }

    /// Arms the job and hands it to the scheduler, which owns it from here on.
    ///
    /// Arming creates the job's scheduled and finished fences, with the entity's next sequence
    /// number. Both happen under the entity's push lock, with no code of the caller in between,
    /// so the jobs of an entity are queued in the order of their fences whichever threads push
    /// them, and run in that order; the lock also serialises the producers of the entity's
    /// single-producer job queue. This cannot fail and does not allocate. Returns the job's
    /// fences, for the driver to install where others wait on them; a driver whose job data needs
    /// them has them in [`JobImpl::run`] and [`JobImpl::free`].
    pub fn push(self) -> JobFences {
        // A shared entity is only released after the push.
        let (inner, entity) = self.into_raw();
        // SAFETY: `inner` is valid and owned by us until it is pushed below.
        let base = unsafe { (*inner.as_ptr()).base() };
        let _guard = entity.push_lock.lock();
        // SAFETY: `base` is an initialised job that was not armed.
        unsafe { bindings::drm_sched_job_arm(base) };
        // SAFETY: The job was armed above and is not freed before it is pushed.
        let fences = unsafe {
            JobFences {
                scheduled: armed_fence(base, false),
                finished: armed_fence(base, true),
            }
        };
        // SAFETY: `base` is an armed job; the scheduler takes ownership of the allocation and
        // frees it through `free_job::<T>`. `inner` is not used afterwards.
        unsafe { bindings::drm_sched_entity_push_job(base) };
        fences
    }
}

impl<T: JobImpl> Job<'_, T> {
    /// Describes a job that its driver held back until its dependencies were done, for the
    /// scheduler's latency trace events: it was queued at `queued`, its dependencies were done at
    /// `ready`, and `chain_depth` jobs are on the longest dependency chain that ends at it (see
    /// [`graph::Plan::depth`]). The events then measure the job's wait from `queued`.
    pub fn set_graph_info(
        &mut self,
        queued: Instant<Monotonic>,
        ready: Instant<Monotonic>,
        chain_depth: u32,
    ) {
        // SAFETY: The job is initialised and not pushed (it is owned by `self`).
        unsafe {
            bindings::drm_sched_job_set_graph_info(
                self.inner().base(),
                queued.as_nanos(),
                ready.as_nanos(),
                chain_depth,
            )
        };
    }

    /// Sets the job's tag, a value of the driver's (for example a name that userspace gave the
    /// job) that the scheduler's latency trace events carry as `tag`.
    pub fn set_tag(&mut self, tag: u64) {
        // SAFETY: By the type invariant, the job is initialised and not armed or pushed, and
        // `self` owns it: the scheduler does not access it concurrently.
        unsafe { (*self.inner().base()).tag = tag };
    }
}

impl<T: JobImpl> Job<'static, T> {
    /// Creates a job on a shared `entity`, which the job holds a reference to until it is
    /// pushed or dropped; see [`Job::new`].
    pub fn new_shared(entity: Arc<Entity<T>>, credits: u32, data: T, flags: Flags) -> Result<Self> {
        let inner = Self::init(&entity, credits, data, flags)?;
        // INVARIANT: `inner` is an initialised, unarmed job on `entity`, owned by the result.
        Ok(Self {
            inner,
            entity: EntityRef::Shared(entity),
            _owns: PhantomData,
        })
    }

    /// Moves the job to `entity`, another entity of the same scheduler, before it is pushed.
    ///
    /// A driver that decides only at push time which of its queues a prepared job goes to (e.g.
    /// a queue of its own for jobs that the hardware holds until their dependencies signal) can
    /// create the job ahead of time on one entity and move it. The job keeps its credits, its
    /// dependencies and its data; its fences take the context of the entity it is pushed to.
    /// Nothing allocates.
    ///
    /// Returns `EINVAL` if `entity` is not on the job's scheduler: the job is counted by its
    /// scheduler, and its credits were checked against that scheduler's limit.
    pub fn set_entity(&mut self, entity: Arc<Entity<T>>) -> Result {
        if !Arc::ptr_eq(&entity.core.sched.core, &self.inner().core) {
            return Err(EINVAL);
        }
        let base = self.inner().base();
        // SAFETY: The job is initialised and not armed (type invariant), so the scheduler does not
        // know it yet: `drm_sched_job_arm()` reads `entity` and derives the job's scheduler, fence
        // context and priority from it, and nothing before that has used it. The new entity is
        // initialised, and the job holds a reference to it below until it is pushed or dropped.
        unsafe { (*base).entity = entity.as_raw() };
        // INVARIANT: `base` is now a job on `entity`, of the same scheduler, which still counts it;
        // `entity` in the job is that entity's core.
        self.inner_mut().entity = NonNull::from(&**entity.core);
        self.entity = EntityRef::Shared(entity);
        Ok(())
    }
}

impl<T: JobImpl> Deref for Job<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.inner().data
    }
}

impl<T: JobImpl> DerefMut for Job<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.inner_mut().data
    }
}

impl<T: JobImpl> Drop for Job<'_, T> {
    fn drop(&mut self) {
        // SAFETY: The job is owned by `self`, unarmed and unknown to the scheduler.
        unsafe { JobInner::release(self.inner.as_ptr(), false) };
    }
}

/// A pushed job, as the scheduler hands it to the callbacks of [`JobImpl`].
///
/// Dereferences to the driver's data.
pub struct RunningJob<'a, T: JobImpl> {
    inner: &'a mut JobInner<T>,
}

impl<T: JobImpl> RunningJob<'_, T> {
    /// The fence that signals when the job has been started.
    pub fn scheduled_fence(&self) -> ARef<Fence> {
        self.inner.fence(false)
    }

    /// The fence that signals when the job is complete.
    pub fn finished_fence(&self) -> ARef<Fence> {
        self.inner.fence(true)
    }

    /// The number of credits the job takes.
    pub fn credits(&self) -> u32 {
        self.inner.credits()
    }
}

impl<T: JobImpl> Deref for RunningJob<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.inner.data
    }
}

impl<T: JobImpl> DerefMut for RunningJob<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.inner.data
    }
}

/// Initialises `node` around `prev` and returns the node as a fence reference for the C
/// scheduler: it signals after `prev`, from an irq_work (see `run_job`).
fn wait_behind(node: FenceChain, prev: UnchainedFence) -> *mut bindings::dma_fence {
    let seqno = prev.seqno();
    ARef::into_raw(node.init(None, prev, seqno))
        .cast::<bindings::dma_fence>()
        .as_ptr()
}

/// `drm_sched_backend_ops.prepare_job` of `Scheduler<T>`.
///
/// Holds a job back while the job before it on its entity waits for an earlier one after
/// completing in `run_job` (see there): this job's hardware fence could otherwise signal first,
/// and its finished fence with it. The scheduler drops a dependency on a fence of the job's own
/// entity (`drm_sched_entity_add_dependency_cb()` compares contexts), so the dependency is a
/// chain node around that job's finished fence: a fence of another context, and not a scheduler
/// fence, which the scheduler waits for in full.
///
/// # Safety
///
/// `job` must be a job of a `Scheduler<T>`, pushed and not freed, at the head of its entity.
unsafe extern "C" fn prepare_job<T: JobImpl>(
    job: *mut bindings::drm_sched_job,
    _entity: *mut bindings::drm_sched_entity,
) -> *mut bindings::dma_fence {
    // SAFETY: By the type invariants of `SchedCore`, every job of the scheduler is the `base` of
    // a `JobInner<T>`. Only the run worker calls this, for the job at the head of the entity it
    // selected, before `run_job`. No other callback uses a job before `run_job`, and
    // `drm_sched_entity_kill()` frees the queued jobs only after the worker is done with the
    // entity, so the reference is unique.
    let inner = unsafe { &mut *JobInner::<T>::from_base(job) };
    // SAFETY: The run worker selected the job's entity and is not done with it, so the entity's
    // core is valid (type invariant of `JobInner`).
    let entity = unsafe { inner.entity.as_ref() };
    let prev = match &*entity.last_run.lock() {
        Some(last) if last.waits => last.finished.clone(),
        _ => return ptr::null_mut(),
    };
    if prev.is_signaled() {
        return ptr::null_mut();
    }
    // The node is still there: `run_job` uses it only for a job that runs while the previous
    // one's finished fence is unsignalled, and a job that waited here runs after it signalled.
    // Called again once the dependency has signalled, this returns above. A scheduler fence is
    // never a chain.
    let (Some(node), Ok(prev)) = (inner.order_node.take(), UnchainedFence::new(prev)) else {
        return ptr::null_mut();
    };
    wait_behind(node, prev)
}

/// The fence that `run_job` returns for a job whose [`JobImpl::run`] gave `result`, and whether
/// the job waits for `prev`, the finished fence of the job that ran before it on its entity (see
/// `run_job`).
fn fence_for_result<T: JobImpl>(
    inner: &mut JobInner<T>,
    finished: &Fence,
    prev: Option<ARef<Fence>>,
    result: Result<Option<ARef<Fence>>>,
) -> (*mut bindings::dma_fence, bool) {
    // The entity's two fence contexts, of its jobs' scheduled and finished fences. The job's own
    // finished fence as its hardware fence would never signal, and would keep the scheduler
    // from ever being torn down. Its scheduled fence has signalled by now, but a scheduled or
    // finished fence of a later job of the entity would not signal before this job's finished
    // fence: no fence of the entity stands for the hardware. It is a driver bug, reported once
    // and completed with `EINVAL` rather than hung.
    let own = |fence: &Fence| {
        let context = fence.context();
        context == finished.context() || context.wrapping_add(1) == finished.context()
    };
    let error = match result {
        Ok(Some(fence)) if own(&fence) => {
            crate::pr_warn_once!("drm_sched: run() returned a fence of its own entity\n");
            Some(EINVAL)
        }
        Ok(Some(fence)) if !fence.is_signaled() => {
            return (
                ARef::into_raw(fence).cast::<bindings::dma_fence>().as_ptr(),
                false,
            );
        }
        // A signalled hardware fence completes the job at once, like none.
        Ok(Some(fence)) => fence.error(),
        Ok(None) => None,
        Err(e) => Some(e),
    };
    // Completed in `run_job`. A scheduler fence is never a chain.
    let wait = prev
        .filter(|prev| !prev.is_signaled())
        .and_then(|prev| UnchainedFence::new(prev).ok())
        .and_then(|prev| Some((prev, inner.order_node.take()?)));
    let Some((prev, node)) = wait else {
        return (error.map_or(ptr::null_mut(), Error::to_ptr), false);
    };
    if let Some(e) = error {
        // SAFETY: `finished` is a valid fence, borrowed for the call. It is the job's finished
        // fence and not signalled: the scheduler signals it once the fence returned here has
        // signalled.
        unsafe { bindings::dma_fence_set_error(finished.as_raw(), e.to_errno()) };
    }
    inner.completed_early.store(true, Release);
    (wait_behind(node, prev), true)
}

/// `drm_sched_backend_ops.run_job` of `Scheduler<T>`.
///
/// A job completes in `run_job` when [`JobImpl::run`] returns no hardware fence, a signalled one or
/// an error, and when it is cancelled (its finished fence carries an error already, or its entity
/// was dropped). The C scheduler then signals its finished fence at once. With a credit limit above
/// one, and briefly also with a limit of one (a completing job returns its credits before it
/// signals its finished fence), the entity's previous job may still be running: the two finished
/// fences, of one context, would signal out of order. Such a job instead returns a chain node
/// around the previous job's finished fence as its hardware fence. The node signals from an
/// irq_work after that fence, so the C scheduler signals this job's finished fence right after the
/// previous one, without nesting the two fences' locks (one lockdep class). The job's error is set
/// on its finished fence first, as the node carries none. The entity's next job waits for this one
/// in `prepare_job`.
///
/// # Safety
///
/// `job` must be a job of a `Scheduler<T>`, pushed and not freed.
unsafe extern "C" fn run_job<T: JobImpl>(
    job: *mut bindings::drm_sched_job,
) -> *mut bindings::dma_fence {
    // SAFETY: By the type invariants of `SchedCore`, every job of the scheduler is the `base` of
    // a `JobInner<T>`. The scheduler calls `run_job` once and not concurrently with the other
    // callbacks for this job (`timedout_job` checks for that), so the reference is unique.
    let inner = unsafe { &mut *JobInner::<T>::from_base(job) };
    // SAFETY: The run worker selected the job's entity and calls this before it is done with
    // it, so the entity's core is valid (type invariant of `JobInner`).
    let entity = unsafe { inner.entity.as_ref() };
    let finished = inner.fence(true);
    // SAFETY: The finished fence is valid; its error is set before it signals, here or by the
    // scheduler (`ECANCELED` for a guilty entity) before `run_job`.
    let error = unsafe { (*finished.as_raw()).error };
    let result = if error < 0 {
        Err(Error::from_errno(error))
    } else if entity.dropped.load(Acquire) {
        // Taken after its entity was dropped (e.g. in `run()` of the job before it): cancelled
        // like the jobs that `drm_sched_entity_fini()` kills.
        Err(ESRCH)
    } else {
        let _guard = SignallingGuard::new();
        T::run(&mut RunningJob { inner: &mut *inner })
    };

    let prev = entity.last_run.lock().take().map(|last| last.finished);
    let (hw_fence, waits) = fence_for_result(inner, &finished, prev, result);
    *entity.last_run.lock() = Some(LastRun { finished, waits });
    hw_fence
}

/// `drm_sched_backend_ops.timedout_job` of `Scheduler<T>`.
///
/// # Safety
///
/// `job` must be a job of a `Scheduler<T>` that the scheduler took off its pending list to report
/// a timeout.
unsafe extern "C" fn timedout_job<T: JobImpl>(
    job: *mut bindings::drm_sched_job,
) -> bindings::drm_gpu_sched_stat {
    let no_hang = bindings::drm_gpu_sched_stat::DRM_GPU_SCHED_STAT_NO_HANG;
    // SAFETY: The job is armed. Only the fences are read, through the raw pointer: no reference
    // to the job is created before we know that `run()` is not using it.
    let (scheduled, finished) = unsafe { (armed_fence(job, false), armed_fence(job, true)) };
    // The timeout starts just before `run_job()` is called: a job that has not been marked as
    // scheduled may still be in `run()`, holding a mutable reference to it. A job that completed
    // meanwhile is freed by the scheduler. In both cases report no hang, which puts the job back
    // on the pending list.
    if !scheduled.is_signaled() || finished.is_signaled() {
        return no_hang;
    }
    // `is_signaled()` is a relaxed test of the fence's flag. The scheduler signals the scheduled
    // fence after `run_job()` returned, setting the flag with a fully ordered atomic operation:
    // this barrier pairs with it, so that every access of `run()` to the job happens before ours.
    smp_mb(Full);
    let inner_ptr = {
        // SAFETY: See `run_job()`.
        unsafe { JobInner::<T>::from_base(job) }
    };
    // SAFETY: The job is valid; the flag is atomic. `run_job()` has returned (the scheduled
    // fence has signalled), and it was the last to write the flag.
    if unsafe { &(*inner_ptr).completed_early }.load(Acquire) {
        // Not running: its finished fence signals right after the previous job's.
        return no_hang;
    }
    // SAFETY: The scheduled fence is signalled after `run_job()` returned, so `run()` holds no
    // reference to the job any more, and the scheduler calls `timedout_job` and `free_job` for a
    // job one at a time. The scheduler's run worker may still add the hardware fence's callback
    // to the job's `base`, which is `Opaque`. The reference ends before the job may be freed
    // below.
    let inner = unsafe { &mut *inner_ptr };
    {
        let _guard = SignallingGuard::new();
        T::timed_out(&mut RunningJob { inner });
    }
    if !finished.is_signaled() {
        // The hardware fence is still unsignalled: the job keeps running and its timeout starts
        // again.
        return no_hang;
    }
    // The hardware fence signalled and its callback completed the job: the finished fence is
    // signalled at the end of it, and nothing touches the job afterwards. The job is off the
    // pending list, so the scheduler will not free it: do it here, as the scheduler documents
    // for `DRM_GPU_SCHED_STAT_RESET`.
    // As above: the callback's accesses to the job, before it signalled the finished fence,
    // happen before the job is freed.
    smp_mb(Full);
    // SAFETY: The job was pushed and the scheduler no longer references it; its finished fence
    // has signalled (checked above).
    unsafe { JobInner::<T>::release(inner_ptr, true) };
    bindings::drm_gpu_sched_stat::DRM_GPU_SCHED_STAT_RESET
}

/// `drm_sched_backend_ops.free_job` of `Scheduler<T>`.
///
/// # Safety
///
/// `job` must be a job of a `Scheduler<T>` that the scheduler is done with.
unsafe extern "C" fn free_job<T: JobImpl>(job: *mut bindings::drm_sched_job) {
    // SAFETY: The job is the `base` of a `JobInner<T>` that was pushed, i.e. handed over with
    // `KBox::into_raw()`, and the scheduler does not use it any more. The scheduler frees a job
    // once its finished fence has signalled, also for a job of a killed entity.
    unsafe { JobInner::<T>::release(JobInner::<T>::from_base(job), true) };
}

#[kunit_tests(rust_drm_sched)]
mod tests {
    use super::*;
    use crate::{
        dma_fence::{
            DriverFence,
            FenceAllocation,
            FenceChain,
            FenceContext, //
        },
        faux,
        sync::atomic::{
            Acquire,
            Release, //
        },
        time::delay::fsleep, //
    };

    const WAIT: Delta = Delta::from_millis(5000);

    /// How a test job behaves when it runs.
    #[derive(Clone, Copy, PartialEq)]
    enum Mode {
        /// Completes on the CPU in `run()`.
        Instant,
        /// Runs until the test completes it.
        Hold,
        /// Fails in `run()`.
        Fail,
        /// Returns a hardware fence that is signalled already.
        Stub,
        /// Returns its own finished fence as its hardware fence.
        OwnFinished,
        /// Returns its own scheduled fence as its hardware fence.
        OwnScheduled,
    }

    struct HwState {
        running: KVec<(u32, DriverFence)>,
        order: KVec<u32>,
        timed_out: KVec<u32>,
        /// What [`JobImpl::free`] saw: the job, whether its finished fence had signalled, and
        /// its error.
        frees: KVec<(u32, bool, i32)>,
        freed: u32,
    }

    /// A fake ring: the hardware fences of the running jobs and what happened to the jobs.
    #[pin_data]
    struct Hw {
        ctx: FenceContext,
        #[pin]
        state: SpinLock<HwState>,
    }

    impl Hw {
        fn new() -> Result<Arc<Self>> {
            let state = HwState {
                running: KVec::with_capacity(16, GFP_KERNEL)?,
                order: KVec::with_capacity(16, GFP_KERNEL)?,
                timed_out: KVec::with_capacity(16, GFP_KERNEL)?,
                frees: KVec::with_capacity(16, GFP_KERNEL)?,
                freed: 0,
            };
            Arc::pin_init(
                pin_init!(Self {
                    ctx: FenceContext::new(c"rust_drm_sched_test", c"ring"),
                    state <- new_spinlock!(state),
                }),
                GFP_KERNEL,
            )
        }

        fn take(&self, id: u32) -> Option<DriverFence> {
            let mut state = self.state.lock();
            let pos = state.running.iter().position(|(i, _)| *i == id)?;
            state.running.remove(pos).ok().map(|(_, fence)| fence)
        }

        /// Completes a held job; returns whether it was running.
        fn complete(&self, id: u32) -> bool {
            self.take(id).map(DriverFence::signal).is_some()
        }

        /// Drops the hardware fences of all running jobs, as a driver tearing down does.
        fn reset(&self) {
            let running = core::mem::take(&mut self.state.lock().running);
            drop(running);
        }

        fn order(&self) -> KVec<u32> {
            let mut order = KVec::with_capacity(16, GFP_KERNEL).unwrap_or_default();
            for id in self.state.lock().order.iter() {
                let _ = order.push_within_capacity(*id);
            }
            order
        }

        fn freed(&self) -> u32 {
            self.state.lock().freed
        }

        fn timed_out(&self) -> usize {
            self.state.lock().timed_out.len()
        }
    }

    struct TestJob {
        id: u32,
        mode: Mode,
        hw: Arc<Hw>,
        fence: Option<FenceAllocation>,
    }

    impl TestJob {
        fn new(hw: &Arc<Hw>, id: u32, mode: Mode) -> Result<Self> {
            Ok(Self {
                id,
                mode,
                hw: hw.clone(),
                fence: Some(FenceAllocation::new(GFP_KERNEL)?),
            })
        }
    }

    impl Drop for TestJob {
        fn drop(&mut self) {
            self.hw.state.lock().freed += 1;
        }
    }

    impl JobImpl for TestJob {
        fn run(job: &mut RunningJob<'_, Self>) -> Result<Option<ARef<Fence>>> {
            let (id, mode) = (job.id, job.mode);
            let hw = job.hw.clone();
            let alloc = job.fence.take();
            let mut state = hw.state.lock();
            state.order.push_within_capacity(id).map_err(|_| ENOSPC)?;
            match mode {
                Mode::Instant => Ok(None),
                Mode::Fail => Err(EIO),
                Mode::Stub => Ok(Some(Fence::stub())),
                Mode::OwnFinished => Ok(Some(job.finished_fence())),
                Mode::OwnScheduled => Ok(Some(job.scheduled_fence())),
                Mode::Hold => {
                    let fence = hw.ctx.init_fence(alloc.ok_or(EINVAL)?, ());
                    let hw_fence = fence.fence().clone();
                    state
                        .running
                        .push_within_capacity((id, fence))
                        .map_err(|_| ENOSPC)?;
                    Ok(Some(hw_fence))
                }
            }
        }

        fn timed_out(job: &mut RunningJob<'_, Self>) {
            let id = job.id;
            let _ = job.hw.state.lock().timed_out.push_within_capacity(id);
            if let Some(fence) = job.hw.take(id) {
                fence.signal_with_error(ETIMEDOUT);
            }
        }

        fn free(job: &mut RunningJob<'_, Self>) {
            let finished = job.finished_fence();
            let seen = (job.id, finished.is_signaled(), errno(&finished));
            // A test that frees more jobs than there is room for fails on the count.
            let _ = job.hw.state.lock().frees.push_within_capacity(seen);
        }
    }

    /// A device for the schedulers of a test (they name it in messages and trace events), named
    /// after the test: one that fails an assertion leaks its device, which would make the next
    /// ones fail too if they used the same name.
    fn device(name: &'static CStr) -> Result<faux::Registration> {
        faux::Registration::new(name, None)
    }

    fn sched(
        faux: &faux::Registration,
        name: &'static CStr,
        credits: u32,
    ) -> Result<Scheduler<TestJob>> {
        Scheduler::new(SchedulerOptions::new(faux.as_ref().as_ref(), name, credits))
    }

    fn entity(
        sched: &Scheduler<TestJob>,
        priority: Priority,
    ) -> Result<Pin<KBox<Entity<TestJob>>>> {
        KBox::pin_init(Entity::new(sched, priority, GFP_KERNEL), GFP_KERNEL)
    }

    /// Pushes a job and returns its scheduled and finished fences.
    fn push(
        entity: &Entity<TestJob>,
        hw: &Arc<Hw>,
        id: u32,
        mode: Mode,
        deps: &[&ARef<Fence>],
    ) -> Result<(ARef<Fence>, ARef<Fence>)> {
        let mut job = Job::new(entity, 1, TestJob::new(hw, id, mode)?, GFP_KERNEL)?;
        for dep in deps {
            job.add_dependency((*dep).clone())?;
        }
        let JobFences {
            scheduled,
            finished,
        } = job.push();
        Ok((scheduled, finished))
    }

    fn errno(fence: &Fence) -> i32 {
        fence.error().map_or(0, |e| e.to_errno())
    }

    /// Gives the scheduler time to (wrongly) run something.
    fn settle() {
        fsleep(Delta::from_millis(30));
    }

    #[test]
    fn shared_entity_job() -> Result {
        let faux = device(c"rust_drm_sched.shared_entity_job")?;
        let hw = Hw::new()?;
        let sched = sched(&faux, c"t-shared", 2)?;
        let entity = Arc::pin_init(
            Entity::new(&sched, Priority::Normal, GFP_KERNEL),
            GFP_KERNEL,
        )?;

        // Kept without a borrow of the entity, then pushed.
        let job = Job::new_shared(
            entity.clone(),
            1,
            TestJob::new(&hw, 7, Mode::Instant)?,
            GFP_KERNEL,
        )?;
        let unused = Job::new_shared(
            entity.clone(),
            1,
            TestJob::new(&hw, 8, Mode::Instant)?,
            GFP_KERNEL,
        )?;
        drop(unused);
        assert_eq!(hw.freed(), 1);
        let finished = job.push().finished;
        finished.wait(false, Some(WAIT))?;
        assert_eq!(errno(&finished), 0);
        assert_eq!(hw.order().as_slice(), &[7]);

        // A job holding the last reference: the entity goes right after the push, which
        // cancels the job unless it has already been picked. Either way its fence signals.
        let orphan = Job::new_shared(entity, 1, TestJob::new(&hw, 9, Mode::Instant)?, GFP_KERNEL)?;
        let finished = orphan.push().finished;
        finished.wait(false, Some(WAIT))?;
        assert!(errno(&finished) == 0 || errno(&finished) == ESRCH.to_errno());
        drop(sched);
        assert_eq!(hw.freed(), 3);
        Ok(())
    }

    #[test]
    fn run_and_complete() -> Result {
        let faux = device(c"rust_drm_sched.run_and_complete")?;
        let hw = Hw::new()?;
        let sched = sched(&faux, c"t-run", 4)?;
        let entity = entity(&sched, Priority::Normal)?;

        let (s0, f0) = push(&entity, &hw, 0, Mode::Instant, &[])?;
        let (s1, f1) = push(&entity, &hw, 1, Mode::Hold, &[])?;
        let (_, f2) = push(&entity, &hw, 2, Mode::Fail, &[])?;
        assert!(!core::ptr::eq(s0.as_raw(), f0.as_raw()));

        f0.wait(false, Some(WAIT))?;
        assert_eq!(errno(&f0), 0);
        s1.wait(false, Some(WAIT))?;
        assert!(wait_until(|| hw.order().len() == 3));
        // Job 2 failed in `run()`; its finished fence signals after job 1's.
        settle();
        assert!(!f1.is_signaled() && !f2.is_signaled());

        assert!(hw.complete(1));
        f2.wait(false, Some(WAIT))?;
        assert_eq!(errno(&f2), EIO.to_errno());
        assert!(f1.is_signaled());
        assert_eq!(errno(&f1), 0);
        assert_eq!(hw.order().as_slice(), &[0, 1, 2]);

        drop(entity);
        drop(sched);
        assert_eq!(hw.freed(), 3);
        Ok(())
    }

    /// A job that completes in `run()` (with an error, or with a signalled hardware fence) while
    /// an earlier job of its entity still runs finishes after that job, and the entity's next job
    /// waits for it.
    #[test]
    fn early_completion_keeps_fence_order() -> Result {
        let faux = device(c"rust_drm_sched.early_completion_keeps_fence_order")?;
        let hw = Hw::new()?;
        let sched = sched(&faux, c"t-early", 4)?;
        let entity = entity(&sched, Priority::Normal)?;

        let (_, f0) = push(&entity, &hw, 0, Mode::Hold, &[])?;
        let (s1, f1) = push(&entity, &hw, 1, Mode::Fail, &[])?;
        let (_, f2) = push(&entity, &hw, 2, Mode::Hold, &[])?;
        let (_, f3) = push(&entity, &hw, 3, Mode::Stub, &[])?;

        s1.wait(false, Some(WAIT))?;
        settle();
        // Job 1 has run and failed, but job 0 still runs: job 1's finished fence waits for job
        // 0's, and job 2, whose hardware fence could signal before job 1's finished fence, has
        // not started.
        assert!(!f0.is_signaled() && !f1.is_signaled() && !f2.is_signaled());
        assert_eq!(hw.order().as_slice(), &[0, 1]);

        assert!(hw.complete(0));
        // Job 2 runs once job 1 is done, and job 3 right after it; job 3's hardware fence is
        // signalled already, but job 2 still runs.
        assert!(wait_until(|| hw.order().len() == 4));
        settle();
        assert!(f0.is_signaled() && f1.is_signaled());
        assert!(!f2.is_signaled() && !f3.is_signaled());

        assert!(hw.complete(2));
        f3.wait(false, Some(WAIT))?;
        assert!(f2.is_signaled());
        assert_eq!(errno(&f0), 0);
        assert_eq!(errno(&f1), EIO.to_errno());
        assert_eq!(errno(&f2), 0);
        assert_eq!(errno(&f3), 0);
        assert!(f0.timestamp() <= f1.timestamp());
        assert!(f1.timestamp() <= f2.timestamp());
        assert!(f2.timestamp() <= f3.timestamp());
        assert_eq!(hw.order().as_slice(), &[0, 1, 2, 3]);
        assert_eq!(hw.timed_out(), 0);

        drop(entity);
        drop(sched);
        assert_eq!(hw.freed(), 4);
        Ok(())
    }

    /// An entity dropped while its next job waits for a job that completed early: the waiting
    /// job is cancelled, and every fence signals in order.
    #[test]
    fn entity_dropped_while_job_held_back() -> Result {
        let faux = device(c"rust_drm_sched.entity_dropped_while_job_held_back")?;
        let hw = Hw::new()?;
        let sched = sched(&faux, c"t-early-drop", 4)?;
        let entity = entity(&sched, Priority::Normal)?;

        let (_, f0) = push(&entity, &hw, 0, Mode::Hold, &[])?;
        let (s1, f1) = push(&entity, &hw, 1, Mode::Fail, &[])?;
        let (_, f2) = push(&entity, &hw, 2, Mode::Instant, &[])?;
        s1.wait(false, Some(WAIT))?;
        settle();
        drop(entity);
        assert!(!f1.is_signaled() && !f2.is_signaled());

        assert!(hw.complete(0));
        f2.wait(false, Some(WAIT))?;
        assert!(f0.is_signaled() && f1.is_signaled());
        assert_eq!(errno(&f0), 0);
        assert_eq!(errno(&f1), EIO.to_errno());
        assert_eq!(errno(&f2), ESRCH.to_errno());
        assert!(f0.timestamp() <= f1.timestamp());
        assert!(f1.timestamp() <= f2.timestamp());
        assert_eq!(hw.order().as_slice(), &[0, 1]);

        drop(sched);
        assert_eq!(hw.freed(), 3);
        Ok(())
    }

    #[test]
    fn invalid_credits() -> Result {
        let faux = device(c"rust_drm_sched.invalid_credits")?;
        let hw = Hw::new()?;
        let sched = sched(&faux, c"t-credits-inval", 2)?;
        let entity = entity(&sched, Priority::Normal)?;
        assert_eq!(
            Job::new(&entity, 0, TestJob::new(&hw, 0, Mode::Instant)?, GFP_KERNEL).err(),
            Some(EINVAL)
        );
        assert_eq!(
            Job::new(&entity, 3, TestJob::new(&hw, 1, Mode::Instant)?, GFP_KERNEL).err(),
            Some(EINVAL)
        );
        assert_eq!(
            Scheduler::<TestJob>::new(SchedulerOptions::new(faux.as_ref().as_ref(), c"t-zero", 0))
                .err(),
            Some(EINVAL)
        );
        drop(entity);
        drop(sched);
        assert_eq!(hw.freed(), 2);
        Ok(())
    }

    #[test]
    fn dependency_across_schedulers() -> Result {
        let faux = device(c"rust_drm_sched.dependency_across_schedulers")?;
        let hw = Hw::new()?;
        let sched_a = sched(&faux, c"t-dep-a", 4)?;
        let sched_b = sched(&faux, c"t-dep-b", 4)?;
        let entity_a = entity(&sched_a, Priority::Normal)?;
        let entity_b = entity(&sched_b, Priority::Normal)?;

        let (sa, fa) = push(&entity_a, &hw, 0, Mode::Hold, &[])?;
        let (sb, fb) = push(&entity_b, &hw, 1, Mode::Instant, &[&fa])?;
        sa.wait(false, Some(WAIT))?;
        settle();
        assert!(!sb.is_signaled());

        assert!(hw.complete(0));
        fb.wait(false, Some(WAIT))?;
        assert!(fa.is_signaled());
        assert_eq!(hw.order().as_slice(), &[0, 1]);
        Ok(())
    }

    #[test]
    fn syncobj_dependency() -> Result {
        let faux = device(c"rust_drm_sched.syncobj_dependency")?;
        let hw = Hw::new()?;
        let sched = sched(&faux, c"t-syncobj", 4)?;
        let entity = entity(&sched, Priority::Normal)?;
        let ctx = FenceContext::new(c"rust_drm_sched_test", c"timeline");
        let timeline = SyncObj::new(false, None)?;
        let point = 1u64 << 40;

        let mut job = Job::new(&entity, 1, TestJob::new(&hw, 0, Mode::Instant)?, GFP_KERNEL)?;
        // Not submitted yet: nothing added.
        assert!(!job.add_syncobj_dependency(&timeline, point)?);
        let producer = ctx.new_fence((), GFP_KERNEL)?;
        timeline.add_point(FenceChain::new(GFP_KERNEL)?, &producer.unchained(), point);
        // A 64-bit point, not truncated to the 32 bits of the C helper.
        assert!(job.add_syncobj_dependency(&timeline, point)?);
        // Point 0 of a timeline is a misuse.
        assert_eq!(job.add_syncobj_dependency(&timeline, 0).err(), Some(EINVAL));

        let JobFences {
            scheduled,
            finished,
        } = job.push();
        settle();
        assert!(!scheduled.is_signaled());
        producer.signal();
        finished.wait(false, Some(WAIT))?;
        assert_eq!(errno(&finished), 0);
        Ok(())
    }

    #[test]
    fn credits_limit_concurrency() -> Result {
        let faux = device(c"rust_drm_sched.credits_limit_concurrency")?;
        let hw = Hw::new()?;
        let sched = sched(&faux, c"t-credits", 2)?;
        let entity = entity(&sched, Priority::Normal)?;

        let mut jobs = KVec::new();
        for id in 0..4 {
            jobs.push(push(&entity, &hw, id, Mode::Hold, &[])?, GFP_KERNEL)?;
        }
        jobs[0].0.wait(false, Some(WAIT))?;
        jobs[1].0.wait(false, Some(WAIT))?;
        settle();
        assert!(!jobs[2].0.is_signaled());

        assert!(hw.complete(0));
        jobs[2].0.wait(false, Some(WAIT))?;
        settle();
        assert!(!jobs[3].0.is_signaled());

        for id in 1..4 {
            if id == 3 {
                jobs[3].0.wait(false, Some(WAIT))?;
            }
            assert!(hw.complete(id));
        }
        for (_, finished) in jobs.iter() {
            finished.wait(false, Some(WAIT))?;
            assert_eq!(errno(finished), 0);
        }
        Ok(())
    }

    #[test]
    fn timeout_handler() -> Result {
        let faux = device(c"rust_drm_sched.timeout_handler")?;
        let hw = Hw::new()?;
        let mut opts = SchedulerOptions::new(faux.as_ref().as_ref(), c"t-timeout", 2);
        opts.timeout = Some(Delta::from_millis(20));
        let sched = Scheduler::<TestJob>::new(opts)?;
        let entity = entity(&sched, Priority::Normal)?;

        let (_, stuck) = push(&entity, &hw, 0, Mode::Hold, &[])?;
        stuck.wait(false, Some(WAIT))?;
        assert_eq!(errno(&stuck), ETIMEDOUT.to_errno());
        assert_eq!(hw.timed_out(), 1);

        // The ring recovered.
        let (_, next) = push(&entity, &hw, 1, Mode::Instant, &[])?;
        next.wait(false, Some(WAIT))?;
        assert_eq!(errno(&next), 0);

        drop(entity);
        drop(sched);
        assert_eq!(hw.freed(), 2);
        Ok(())
    }

    #[test]
    fn priorities() -> Result {
        let faux = device(c"rust_drm_sched.priorities")?;
        let hw = Hw::new()?;
        let sched = sched(&faux, c"t-prio", 1)?;
        let low = entity(&sched, Priority::Low)?;
        let high = entity(&sched, Priority::High)?;

        let (s0, f0) = push(&low, &hw, 0, Mode::Hold, &[])?;
        s0.wait(false, Some(WAIT))?;
        let (_, f1) = push(&low, &hw, 1, Mode::Instant, &[])?;
        let (_, f2) = push(&low, &hw, 2, Mode::Instant, &[])?;
        let (s3, f3) = push(&high, &hw, 3, Mode::Hold, &[])?;

        assert!(hw.complete(0));
        s3.wait(false, Some(WAIT))?;
        settle();
        assert!(!f1.is_signaled());
        assert!(hw.complete(3));
        for fence in [&f0, &f1, &f2, &f3] {
            fence.wait(false, Some(WAIT))?;
        }
        assert_eq!(hw.order().as_slice(), &[0, 3, 1, 2]);
        Ok(())
    }

    #[test]
    fn dropped_jobs() -> Result {
        let faux = device(c"rust_drm_sched.dropped_jobs")?;
        let hw = Hw::new()?;
        let sched = sched(&faux, c"t-drop", 2)?;
        let entity = entity(&sched, Priority::Normal)?;

        // Dropped before it is pushed: freed at once, never run, and no fence of the entity's
        // context was used up.
        let job = Job::new(&entity, 1, TestJob::new(&hw, 0, Mode::Instant)?, GFP_KERNEL)?;
        drop(job);
        assert_eq!(hw.freed(), 1);
        let (_, finished) = push(&entity, &hw, 1, Mode::Instant, &[])?;
        finished.wait(false, Some(WAIT))?;
        assert_eq!(finished.seqno(), 1);
        assert_eq!(hw.order().as_slice(), &[1]);

        drop(entity);
        drop(sched);
        assert_eq!(hw.freed(), 2);
        Ok(())
    }

    #[test]
    fn free_sees_every_pushed_job() -> Result {
        let faux = device(c"rust_drm_sched.free_sees_every_pushed_job")?;
        let hw = Hw::new()?;
        let sched_a = sched(&faux, c"t-free-a", 4)?;
        let sched_b = sched(&faux, c"t-free-b", 4)?;
        let entity_a = entity(&sched_a, Priority::Normal)?;
        let entity_b = entity(&sched_b, Priority::Normal)?;

        // Never pushed: dropped without `free()`.
        let unpushed = Job::new(
            &entity_a,
            1,
            TestJob::new(&hw, 0, Mode::Instant)?,
            GFP_KERNEL,
        )?;
        drop(unpushed);
        let (_, ok) = push(&entity_a, &hw, 1, Mode::Instant, &[])?;
        let (_, failed) = push(&entity_a, &hw, 2, Mode::Fail, &[])?;
        // Waits for a job of another scheduler, and is cancelled with its entity meanwhile.
        let (held_s, held) = push(&entity_b, &hw, 3, Mode::Hold, &[])?;
        held_s.wait(false, Some(WAIT))?;
        let (_, killed) = push(&entity_a, &hw, 4, Mode::Instant, &[&held])?;
        ok.wait(false, Some(WAIT))?;
        failed.wait(false, Some(WAIT))?;
        drop(entity_a);
        assert!(hw.complete(3));
        killed.wait(false, Some(WAIT))?;
        drop(entity_b);
        // The last handles wait until every job has been freed.
        drop(sched_a);
        drop(sched_b);

        assert_eq!(hw.freed(), 5);
        let mut frees = core::mem::take(&mut hw.state.lock().frees);
        frees.sort_unstable_by_key(|f| f.0);
        assert_eq!(
            frees.as_slice(),
            &[
                (1, true, 0),
                (2, true, EIO.to_errno()),
                (3, true, 0),
                (4, true, ESRCH.to_errno())
            ]
        );
        // Jobs 1 and 2 run on one scheduler, 3 on another: in any order. 4 never runs.
        let mut order = hw.order();
        order.sort_unstable();
        assert_eq!(order.as_slice(), &[1, 2, 3]);
        Ok(())
    }

    #[test]
    fn run_returning_an_own_fence_fails() -> Result {
        let faux = device(c"rust_drm_sched.run_returning_an_own_fence_fails")?;
        let hw = Hw::new()?;
        let sched = sched(&faux, c"t-own-fence", 2)?;
        let entity = entity(&sched, Priority::Normal)?;

        // Its own finished fence as its hardware fence would never signal, and the last handle
        // of the scheduler would wait for the job forever.
        let (_, own_finished) = push(&entity, &hw, 1, Mode::OwnFinished, &[])?;
        own_finished.wait(false, Some(WAIT))?;
        assert_eq!(errno(&own_finished), EINVAL.to_errno());
        let (_, own_scheduled) = push(&entity, &hw, 2, Mode::OwnScheduled, &[])?;
        own_scheduled.wait(false, Some(WAIT))?;
        assert_eq!(errno(&own_scheduled), EINVAL.to_errno());
        // The entity's next job runs as any other.
        let (_, next) = push(&entity, &hw, 3, Mode::Instant, &[])?;
        next.wait(false, Some(WAIT))?;
        assert_eq!(errno(&next), 0);
        assert_eq!(hw.order().as_slice(), &[1, 2, 3]);

        drop(entity);
        drop(sched);
        assert_eq!(hw.freed(), 3);
        Ok(())
    }

    /// A job that completes as soon as it runs, without the bookkeeping of [`TestJob`].
    struct NopJob;

    impl JobImpl for NopJob {
        fn run(_job: &mut RunningJob<'_, Self>) -> Result<Option<ARef<Fence>>> {
            Ok(None)
        }

        fn timed_out(_job: &mut RunningJob<'_, Self>) {}
    }

    const PUSHES: usize = 64;

    /// Pushes `PUSHES` jobs into `entity` and collects their finished fences.
    fn push_many(entity: &Arc<Entity<NopJob>>, out: &SpinLock<KVec<ARef<Fence>>>) -> Result {
        for _ in 0..PUSHES {
            let job = Job::new_shared(entity.clone(), 1, NopJob, GFP_KERNEL)?;
            let finished = job.push().finished;
            out.lock()
                .push_within_capacity(finished)
                .map_err(|_| ENOSPC)?;
        }
        Ok(())
    }

    #[test]
    fn concurrent_pushes_keep_fence_order() -> Result {
        let faux = device(c"rust_drm_sched.concurrent_pushes_keep_fence_order")?;
        let sched =
            Scheduler::<NopJob>::new(SchedulerOptions::new(faux.as_ref().as_ref(), c"t-order", 4))?;
        let entity = Arc::pin_init(
            Entity::new(&sched, Priority::Normal, GFP_KERNEL),
            GFP_KERNEL,
        )?;
        let fences = Arc::pin_init(
            new_spinlock!(KVec::with_capacity(2 * PUSHES, GFP_KERNEL)?),
            GFP_KERNEL,
        )?;
        let done = Arc::new(Atomic::new(0u32), GFP_KERNEL)?;

        // Another thread pushes into the same entity while this one does.
        {
            let (entity, fences, done) = (entity.clone(), fences.clone(), done.clone());
            crate::workqueue::system_long().try_spawn(GFP_KERNEL, move || {
                let ok = push_many(&entity, &fences).is_ok();
                done.store(if ok { 1 } else { 2 }, Release);
            })?;
        }
        push_many(&entity, &fences)?;
        assert!(wait_until(|| done.load(Acquire) != 0));
        assert_eq!(done.load(Acquire), 1);

        let mut fences = core::mem::take(&mut *fences.lock());
        assert_eq!(fences.len(), 2 * PUSHES);
        for fence in fences.iter() {
            fence.wait(false, Some(WAIT))?;
            assert_eq!(errno(fence), 0);
        }
        // Every sequence number of the entity's context was taken once, and the jobs completed
        // in that order: the order in which they were queued is the order of their fences.
        fences.sort_unstable_by_key(|f| f.seqno());
        for (i, pair) in fences.windows(2).enumerate() {
            assert_eq!(pair[0].seqno(), i as u64 + 1);
            assert_eq!(pair[1].seqno(), i as u64 + 2);
            assert!(pair[0].timestamp() <= pair[1].timestamp());
        }
        Ok(())
    }

    #[test]
    fn job_moves_to_another_entity() -> Result {
        let faux = device(c"rust_drm_sched.job_moves_to_another_entity")?;
        let dev = faux.as_ref().as_ref();
        let sched = Scheduler::<NopJob>::new(SchedulerOptions::new(dev, c"t-move", 4))?;
        let other = Scheduler::<NopJob>::new(SchedulerOptions::new(dev, c"t-move-other", 4))?;
        let new_entity = |sched: &Scheduler<NopJob>| {
            Arc::pin_init(Entity::new(sched, Priority::Normal, GFP_KERNEL), GFP_KERNEL)
        };
        let (a, b, elsewhere) = (
            new_entity(&sched)?,
            new_entity(&sched)?,
            new_entity(&other)?,
        );

        let mut moved = Job::new_shared(a.clone(), 1, NopJob, GFP_KERNEL)?;
        // Not to another scheduler's entity: the job stays where it is.
        assert_eq!(moved.set_entity(elsewhere.clone()), Err(EINVAL));
        assert!(core::ptr::eq(moved.entity(), &*a));
        moved.set_entity(b.clone())?;
        assert!(core::ptr::eq(moved.entity(), &*b));
        let moved = moved.push().finished;
        // The test keeps the entities: dropping one cancels the jobs it has not started.
        let on_b = Job::new_shared(b.clone(), 1, NopJob, GFP_KERNEL)?
            .push()
            .finished;
        let on_a = Job::new_shared(a.clone(), 1, NopJob, GFP_KERNEL)?
            .push()
            .finished;
        for fence in [&moved, &on_b, &on_a] {
            fence.wait(false, Some(WAIT))?;
            assert_eq!(errno(fence), 0);
        }
        // The moved job took the first sequence number of its new entity's context, and none of
        // the old one's.
        assert_eq!(moved.context(), on_b.context());
        assert_ne!(moved.context(), on_a.context());
        assert_eq!((moved.seqno(), on_b.seqno(), on_a.seqno()), (1, 2, 1));
        Ok(())
    }

    /// The "hardware" of [`OwningJob`]s: the fence of the job that runs.
    #[pin_data]
    struct HwSlot {
        ctx: FenceContext,
        #[pin]
        fence: SpinLock<Option<DriverFence>>,
    }

    impl HwSlot {
        fn new() -> Result<Arc<Self>> {
            Arc::pin_init(
                pin_init!(Self {
                    ctx: FenceContext::new(c"rust_drm_sched_test", c"owning"),
                    fence <- new_spinlock!(None),
                }),
                GFP_KERNEL,
            )
        }
    }

    /// A job whose data holds a handle of its own scheduler, as a driver's job holding its ring
    /// object (which owns the ring's scheduler) does. It runs until the test signals its fence.
    struct OwningJob {
        _sched: Scheduler<OwningJob>,
        hw: Arc<HwSlot>,
        alloc: Option<FenceAllocation>,
    }

    impl JobImpl for OwningJob {
        fn run(job: &mut RunningJob<'_, Self>) -> Result<Option<ARef<Fence>>> {
            let alloc = job.alloc.take().ok_or(EINVAL)?;
            let fence = job.hw.ctx.init_fence(alloc, ());
            let hw_fence = fence.fence().clone();
            *job.hw.fence.lock() = Some(fence);
            Ok(Some(hw_fence))
        }

        fn timed_out(_job: &mut RunningJob<'_, Self>) {}
    }

    /// Waits until `count` schedulers more than `before` have been torn down.
    fn wait_teardowns(before: u64, count: u64) -> bool {
        wait_until(|| TEARDOWNS.load(Acquire) >= before + count)
    }

    #[test]
    fn last_handle_dropped_by_job() -> Result {
        let faux = device(c"rust_drm_sched.last_handle_dropped_by_job")?;
        let gate_ctx = FenceContext::new(c"rust_drm_sched_test", c"gate");
        for killed in [false, true] {
            let hw = HwSlot::new()?;
            let sched = Scheduler::<OwningJob>::new(SchedulerOptions::new(
                faux.as_ref().as_ref(),
                c"t-owning",
                1,
            ))?;
            let entity = KBox::pin_init(
                Entity::new(&sched, Priority::Normal, GFP_KERNEL),
                GFP_KERNEL,
            )?;
            let gate = gate_ctx.new_fence((), GFP_KERNEL)?;
            let mut job = Job::new(
                &entity,
                1,
                OwningJob {
                    _sched: sched.clone(),
                    hw: hw.clone(),
                    alloc: Some(FenceAllocation::new(GFP_KERNEL)?),
                },
                GFP_KERNEL,
            )?;
            if killed {
                job.add_dependency(gate.fence().clone())?;
            }
            let JobFences {
                scheduled,
                finished,
            } = job.push();
            if !killed {
                scheduled.wait(false, Some(WAIT))?;
            }
            // Only the job holds a handle now. It is freed by the scheduler's free_job work item
            // once its hardware fence signals, or, killed with its entity, from the system
            // workqueue once its dependency signals; either way while it holds the last handle.
            let waiter = sched.teardown_waiter();
            drop(entity);
            drop(sched);
            let before = TEARDOWNS.load(Acquire);
            gate.signal();
            if let Some(fence) = hw.fence.lock().take() {
                fence.signal();
            }
            finished.wait(false, Some(WAIT))?;
            let expected = if killed { ESRCH.to_errno() } else { 0 };
            assert_eq!(errno(&finished), expected);
            // The teardown, which waits for that very work item, ran elsewhere instead of
            // deadlocking it.
            assert!(wait_teardowns(before, 1));
            assert!(waiter.wait());
        }
        Ok(())
    }

    #[test]
    fn last_handle_dropped_during_hold() -> Result {
        // A job being freed counts a hold on its scheduler, then takes the hold's reference to
        // the core. The last handle, dropped in between in a work item (which does not wait for
        // the teardown), must not free the core under the job (a use after free, which KASAN
        // reports); the hold then owes the teardown.
        let faux = device(c"rust_drm_sched.last_handle_dropped_during_hold")?;
        let hw = Hw::new()?;
        let sched = sched(&faux, c"t-hold", 1)?;
        let entity = entity(&sched, Priority::Normal)?;
        let (scheduled, finished) = push(&entity, &hw, 0, Mode::Hold, &[])?;
        scheduled.wait(false, Some(WAIT))?;
        drop(entity);

        let before = TEARDOWNS.load(Acquire);
        HOLD_WINDOW.store(1, Release);
        assert!(hw.complete(0));
        // The scheduler's free_job work item has counted its hold and waits.
        let in_window = wait_until(|| HOLD_WINDOW.load(Acquire) == 2);
        let dropped = Arc::new(Atomic::new(0u32), GFP_KERNEL)?;
        {
            let dropped = dropped.clone();
            crate::workqueue::system_long().try_spawn(GFP_KERNEL, move || {
                drop(sched);
                dropped.store(1, Release);
            })?;
        }
        let handle_gone = wait_until(|| dropped.load(Acquire) == 1);
        HOLD_WINDOW.store(3, Release);
        assert!(in_window);
        assert!(handle_gone);
        finished.wait(false, Some(WAIT))?;
        assert_eq!(errno(&finished), 0);
        // The hold was the last reference: its release tore the scheduler down, in a work item.
        assert!(wait_teardowns(before, 1));
        assert!(wait_until(|| hw.freed() == 1));
        Ok(())
    }

    /// A job whose data may hold its own entity, which it flushes and drops in `run()`.
    struct EntityOwningJob {
        entity: Option<Arc<Entity<EntityOwningJob>>>,
        flushed: Arc<Atomic<u32>>,
        runs: Arc<Atomic<u32>>,
    }

    impl JobImpl for EntityOwningJob {
        fn run(job: &mut RunningJob<'_, Self>) -> Result<Option<ARef<Fence>>> {
            job.runs.fetch_add(1, Full);
            if let Some(entity) = job.entity.take() {
                let empty = entity.flush(Delta::from_millis(100));
                job.flushed.store(if empty { 1 } else { 2 }, Release);
                drop(entity);
            }
            Ok(None)
        }

        fn timed_out(_job: &mut RunningJob<'_, Self>) {}
    }

    #[test]
    fn entity_dropped_in_own_run() -> Result {
        // The scheduler's run worker waits in neither `Entity::flush()` nor the entity's drop
        // when a job's `run()` calls them on its own entity: both would wait for the worker
        // itself, for good. The job queued behind is cancelled, even though the worker takes it
        // before the work item that finishes the entity has run (held back here).
        let faux = device(c"rust_drm_sched.entity_dropped_in_own_run")?;
        let gate_ctx = FenceContext::new(c"rust_drm_sched_test", c"gate");
        let gate = gate_ctx.new_fence((), GFP_KERNEL)?;
        let sched = Scheduler::<EntityOwningJob>::new(SchedulerOptions::new(
            faux.as_ref().as_ref(),
            c"t-own-entity",
            1,
        ))?;
        let entity = Arc::pin_init(
            Entity::new(&sched, Priority::Normal, GFP_KERNEL),
            GFP_KERNEL,
        )?;
        let flushed = Arc::new(Atomic::new(0u32), GFP_KERNEL)?;
        let runs = Arc::new(Atomic::new(0u32), GFP_KERNEL)?;
        let mut finished = KVec::with_capacity(2, GFP_KERNEL)?;
        for owner in [true, false] {
            let data = EntityOwningJob {
                entity: if owner { Some(entity.clone()) } else { None },
                flushed: flushed.clone(),
                runs: runs.clone(),
            };
            let mut job = Job::new_shared(entity.clone(), 1, data, GFP_KERNEL)?;
            job.add_dependency(gate.fence().clone())?;
            finished.push(job.push().finished, GFP_KERNEL)?;
        }
        // The first job holds the last reference to the entity; the second waits behind it.
        drop(entity);
        ENTITY_FINI_WINDOW.store(1, Release);
        gate.signal();
        finished[0].wait(false, Some(WAIT))?;
        let paused = wait_until(|| ENTITY_FINI_WINDOW.load(Acquire) == 2);
        let second = finished[1].wait(false, Some(WAIT));
        ENTITY_FINI_WINDOW.store(3, Release);
        assert!(paused);
        second?;
        assert_eq!(errno(&finished[0]), 0);
        // The second job was still queued: the flush did not wait for it, and it did not run.
        assert_eq!(flushed.load(Acquire), 2);
        assert_eq!(errno(&finished[1]), ESRCH.to_errno());
        assert_eq!(runs.load(Acquire), 1);
        // The work item that finished the entity held a handle until it was done.
        let waiter = sched.teardown_waiter();
        drop(sched);
        assert!(waiter.wait());
        Ok(())
    }

    #[test]
    fn scheduler_freed_after_grace_period() -> Result {
        // An RCU reader that found a fence of the scheduler unsignalled may read
        // `fence->sched->name` until it leaves its read-side critical section: the scheduler
        // must not be freed before. The reader runs on another CPU while this thread drops the
        // scheduler; with one CPU it would run to its end before, and there is nothing to check.
        if crate::cpu::nr_cpu_ids() < 2 {
            return Ok(());
        }
        let faux = device(c"rust_drm_sched.scheduler_freed_after_grace_period")?;
        let hw = Hw::new()?;
        let sched = sched(&faux, c"t-rcu", 1)?;
        let entity = entity(&sched, Priority::Normal)?;
        let (_, finished) = push(&entity, &hw, 0, Mode::Instant, &[])?;
        finished.wait(false, Some(WAIT))?;
        drop(entity);

        let started = Arc::new(Atomic::new(0u32), GFP_KERNEL)?;
        let left = Arc::new(Atomic::new(0u32), GFP_KERNEL)?;
        {
            let (started, left) = (started.clone(), left.clone());
            crate::workqueue::system_long().try_spawn(GFP_KERNEL, move || {
                let guard = rcu::read_lock();
                started.store(1, Release);
                for _ in 0..200 {
                    crate::time::delay::udelay(Delta::from_micros(1000));
                }
                left.store(1, Release);
                drop(guard);
            })?;
        }
        assert!(wait_until(|| started.load(Acquire) != 0));
        drop(sched);
        // Dropping the last handle freed the scheduler only after the reader had left.
        assert_eq!(left.load(Acquire), 1);
        Ok(())
    }

    #[test]
    fn no_timeout_while_running() -> Result {
        let faux = device(c"rust_drm_sched.no_timeout_while_running")?;
        let mut opts = SchedulerOptions::new(faux.as_ref().as_ref(), c"t-slow-run", 1);
        // Shorter than `run()` takes: the timeout fires while `run()` still executes.
        opts.timeout = Some(Delta::from_millis(10));
        let sched = Scheduler::<SlowJob>::new(opts)?;
        let entity = KBox::pin_init(
            Entity::new(&sched, Priority::Normal, GFP_KERNEL),
            GFP_KERNEL,
        )?;
        let state = Arc::pin_init(SlowState::new(), GFP_KERNEL)?;
        let alloc = FenceAllocation::new(GFP_KERNEL)?;
        let job = Job::new(&entity, 1, SlowJob(state.clone(), Some(alloc)), GFP_KERNEL)?;
        let finished = job.push().finished;
        finished.wait(false, Some(WAIT))?;
        // `timed_out()` ran (the job ended with its error), but never while `run()` did.
        assert_eq!(errno(&finished), ETIMEDOUT.to_errno());
        assert_eq!(state.overlaps.load(Acquire), 0);
        assert_eq!(state.timeouts.load(Acquire), 1);
        Ok(())
    }

    #[pin_data]
    struct SlowState {
        in_run: Atomic<u32>,
        overlaps: Atomic<u32>,
        timeouts: Atomic<u32>,
        #[pin]
        fence: SpinLock<Option<DriverFence>>,
        ctx: FenceContext,
    }

    impl SlowState {
        fn new() -> impl PinInit<Self> {
            pin_init!(Self {
                in_run: Atomic::new(0),
                overlaps: Atomic::new(0),
                timeouts: Atomic::new(0),
                fence <- new_spinlock!(None),
                ctx: FenceContext::new(c"rust_drm_sched_test", c"slow"),
            })
        }
    }

    /// A job whose `run()` takes longer than the scheduler's timeout, and that never completes
    /// on its own.
    struct SlowJob(Arc<SlowState>, Option<FenceAllocation>);

    impl JobImpl for SlowJob {
        fn run(job: &mut RunningJob<'_, Self>) -> Result<Option<ARef<Fence>>> {
            job.0.in_run.store(1, Release);
            fsleep(Delta::from_millis(100));
            let alloc = job.1.take().ok_or(EINVAL)?;
            let fence = job.0.ctx.init_fence(alloc, ());
            let hw = fence.fence().clone();
            *job.0.fence.lock() = Some(fence);
            job.0.in_run.store(0, Release);
            Ok(Some(hw))
        }

        fn timed_out(job: &mut RunningJob<'_, Self>) {
            if job.0.in_run.load(Acquire) != 0 {
                job.0.overlaps.fetch_add(1, Full);
            }
            job.0.timeouts.fetch_add(1, Full);
            if let Some(fence) = job.0.fence.lock().take() {
                fence.signal_with_error(ETIMEDOUT);
            }
        }
    }

    #[test]
    fn teardown_with_jobs() -> Result {
        let faux = device(c"rust_drm_sched.teardown_with_jobs")?;
        let hw = Hw::new()?;
        let gate_ctx = FenceContext::new(c"rust_drm_sched_test", c"gate");
        let gate = gate_ctx.new_fence((), GFP_KERNEL)?;
        let gate_fence = gate.fence().clone();

        let sched = sched(&faux, c"t-teardown", 1)?;
        let entity = entity(&sched, Priority::Normal)?;
        // One running job, one waiting for credits and one waiting for a dependency.
        let (s0, running) = push(&entity, &hw, 0, Mode::Hold, &[])?;
        let (_, queued) = push(&entity, &hw, 1, Mode::Instant, &[])?;
        let (_, gated) = push(&entity, &hw, 2, Mode::Instant, &[&gate_fence])?;
        s0.wait(false, Some(WAIT))?;

        // The entity goes first (the client closed), then the "hardware" (the driver tears
        // down), then the last scheduler handle, which waits for every job to be freed.
        drop(entity);
        drop(gate);
        hw.reset();
        drop(sched);

        assert_eq!(hw.freed(), 3);
        assert_eq!(hw.order().as_slice(), &[0]);
        // The fences outlive the scheduler and all signalled with an error.
        assert_eq!(errno(&running), ECANCELED.to_errno());
        assert_eq!(errno(&queued), ESRCH.to_errno());
        assert_eq!(errno(&gated), ESRCH.to_errno());
        assert!(gate_fence.is_signaled());
        Ok(())
    }
}
