// SPDX-License-Identifier: GPL-2.0

//! DMA fences.
//!
//! A DMA fence (`struct dma_fence`) is a one-shot completion event shared between drivers, the
//! DRM scheduler, syncobjs, sync files and userspace. This module splits it into two sides:
//!
//! - The producer, [`DriverFence`], is created from a [`FenceContext`] and is the only thing that
//!   can signal the fence. [`DriverFence::signal`] and [`DriverFence::signal_with_error`]
//!   consume it, so a fence is signalled exactly once by construction, and its error (if any) is
//!   always set before it is signalled. Dropping a [`DriverFence`] that was not signalled signals
//!   it with `ECANCELED`, so no waiter can hang on a producer that went away. The memory of a
//!   fence can be allocated ahead of time ([`FenceAllocation`]), apart from taking its sequence
//!   number ([`FenceContext::init_fence`]); signalling cannot fail and does not allocate.
//!
//! - The consumer, [`Fence`], is a reference counted handle ([`ARef<Fence>`]) that can be waited
//!   on, queried and passed to C code. It can be obtained from a [`DriverFence`] or from a raw
//!   `struct dma_fence` pointer created elsewhere (scheduler fences, syncobj payloads, ...).
//!   Callbacks are pinned registrations ([`FenceCallback`]) that unregister themselves on drop.
//!
//! # Lifetime of fences
//!
//! Fences are shared with code that the driver does not control and can outlive the
//! [`FenceContext`], the [`DriverFence`] and the module that created them. Fences created here
//! are safe in that situation:
//!
//! - The `dma_fence_ops` table and its callbacks are part of the `kernel` crate, which is
//!   always built into the kernel image; they never go away with a module.
//! - The table has neither a `release` nor a `wait` callback. The fence memory is freed by the
//!   dma-fence core with `dma_fence_free()` (`kfree_rcu()`), and `dma_fence_signal()` detaches
//!   the fence from its ops on signalling. A signalled fence therefore references no driver
//!   code or data at all.
//! - The driver and timeline names are `'static` strings that are only read through the ops
//!   while the fence is unsignalled, i.e. while the [`DriverFence`] still exists, and within
//!   an RCU read-side critical section (module unloading waits for a grace period). A module
//!   drops (and thereby signals) its [`DriverFence`]s when it tears down whatever owns them,
//!   at the latest in its exit path. Leaking a [`DriverFence`] is a bug, just like not
//!   signalling a fence is in C: its waiters hang, and, as with any `'static` data borrowed from
//!   a module, the names dangle once the module is gone.
//! - The [`FenceContext`] holds no state a fence refers to; it can be dropped while its fences
//!   are still alive.
//!
//! # Signalling context
//!
//! Everything that runs while a fence is being signalled runs in the "fence signalling
//! critical section" (see `Documentation/driver-api/dma-buf.rst`): the [`FenceCallback`]
//! handlers registered on the fence. They may run in interrupt context with the fence lock
//! held, and must not sleep, allocate memory with `GFP_KERNEL`, take locks that are held
//! while waiting on fences, or call back into the same fence. [`DriverFence::signal`] marks
//! the section with `dma_fence_begin_signalling()`/`dma_fence_end_signalling()`
//! ([`SignallingGuard`]), so lockdep reports violations. Drivers should hold a
//! [`SignallingGuard`] over their own completion paths as well.
//!
//! C headers: [`include/linux/dma-fence.h`](srctree/include/linux/dma-fence.h),
//! [`include/linux/dma-fence-chain.h`](srctree/include/linux/dma-fence-chain.h)

use crate::{
    alloc::Flags,
    bindings,
    container_of,
    error::to_result,
    prelude::*,
    sync::{
        aref::{
            ARef,
            AlwaysRefCounted, //
        },
        atomic::{
            Atomic,
            Relaxed, //
        }, //
    },
    time::{
        msecs_to_jiffies,
        Delta, //
    },
    types::{
        NotThreadSafe,
        Opaque, //
    }, //
};
use core::{
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

/// A consumer reference to a DMA fence.
///
/// Instances are always reference counted: use [`ARef<Fence>`] to hold one. A [`Fence`] can be
/// waited on and queried, and callbacks can be registered on it with [`FenceCallback`], but it
/// cannot be signalled: only the producer ([`DriverFence`]) of a fence can do that.
///
/// # Invariants
///
/// The inner `struct dma_fence` is initialised, and its reference count is non-zero for as long
/// as a reference to the [`Fence`] exists.
#[repr(transparent)]
pub struct Fence(Opaque<bindings::dma_fence>);

// SAFETY: `struct dma_fence` is meant to be shared and released across threads: its reference
// count is atomic and all its mutable state is protected by its spinlock.
unsafe impl Send for Fence {}

// SAFETY: All methods taking `&Fence` are safe to call concurrently from any thread; the C side
// synchronises them with atomic flags and the fence spinlock.
unsafe impl Sync for Fence {}

// SAFETY: `dma_fence_get()`/`dma_fence_put()` manage the reference count of the fence, and the
// fence is only freed once the count drops to zero.
unsafe impl AlwaysRefCounted for Fence {
    #[inline]
    fn inc_ref(&self) {
        // SAFETY: By the type invariant the reference count is non-zero.
        unsafe { bindings::dma_fence_get(self.as_raw()) };
    }

    #[inline]
    unsafe fn dec_ref(obj: NonNull<Self>) {
        // SAFETY: The caller owns a reference to the fence, which it gives up here.
        unsafe { bindings::dma_fence_put(obj.cast().as_ptr()) };
    }
}

impl Fence {
    /// Borrows a [`Fence`] from a raw `struct dma_fence` pointer.
    ///
    /// Use `ARef::from(fence)` to take a reference of one's own.
    ///
    /// # Safety
    ///
    /// `ptr` must point to an initialised `struct dma_fence`, and the caller must hold a
    /// reference to it (or otherwise guarantee that its reference count stays non-zero) for the
    /// whole lifetime `'a`.
    #[inline]
    pub unsafe fn from_raw<'a>(ptr: *mut bindings::dma_fence) -> &'a Self {
        // SAFETY: `Fence` is a transparent wrapper of `struct dma_fence`, and the caller
        // guarantees that the fence stays alive for `'a`.
        unsafe { &*ptr.cast::<Self>() }
    }

    /// Takes over a reference to a fence from C code.
    ///
    /// This is the counterpart of C functions that return a fence together with a reference the
    /// caller has to `dma_fence_put()`, such as `drm_syncobj_fence_get()`. The returned
    /// [`ARef`] owns that reference and puts it on drop. The fence does not have to be one
    /// created by this module.
    ///
    /// # Safety
    ///
    /// `ptr` must point to an initialised `struct dma_fence`, and the caller must own one
    /// reference to it, which is transferred to the returned [`ARef`].
    #[inline]
    pub unsafe fn from_raw_owned(ptr: NonNull<bindings::dma_fence>) -> ARef<Self> {
        // SAFETY: `Fence` is a transparent wrapper of `struct dma_fence`, and the caller
        // transfers the ownership of one reference.
        unsafe { ARef::from_raw(ptr.cast()) }
    }

    /// Returns the always-signalled stub fence of the dma-fence core.
    pub fn stub() -> ARef<Self> {
        // SAFETY: `dma_fence_get_stub()` has no preconditions.
        let ptr = unsafe { bindings::dma_fence_get_stub() };
        // SAFETY: `dma_fence_get_stub()` returns a valid fence with a reference for the caller.
        unsafe { Self::from_raw_owned(NonNull::new_unchecked(ptr)) }
    }

    /// Returns the raw pointer to the underlying `struct dma_fence`.
    #[inline]
    pub fn as_raw(&self) -> *mut bindings::dma_fence {
        self.0.get()
    }

    /// Returns the fence context this fence belongs to.
    #[inline]
    pub fn context(&self) -> u64 {
        // SAFETY: The fence is valid, and `context` does not change after initialisation.
        unsafe { (*self.as_raw()).context }
    }

    /// Returns the sequence number of this fence within its context.
    #[inline]
    pub fn seqno(&self) -> u64 {
        // SAFETY: The fence is valid, and `seqno` does not change after initialisation.
        unsafe { (*self.as_raw()).seqno }
    }

    /// Returns whether the fence is a `struct dma_fence_chain` node, i.e. a timeline point.
    ///
    /// A fence is one or the other for its whole life: `dma_fence_init()` sets its ops, and
    /// signalling only ever clears them, for ops with neither `release` nor `wait`, which the
    /// chain's ops have.
    #[inline]
    pub fn is_chain(&self) -> bool {
        // SAFETY: The fence is valid.
        unsafe { bindings::dma_fence_is_chain(self.as_raw()) }
    }

    /// Returns whether the fence is signalled.
    ///
    /// This may signal the fence if its implementation finds out that it completed.
    #[inline]
    pub fn is_signaled(&self) -> bool {
        // SAFETY: The fence is valid.
        unsafe { bindings::dma_fence_is_signaled(self.as_raw()) }
    }

    /// Returns the error the fence was signalled with.
    ///
    /// Returns [`None`] if the fence is not signalled yet or was signalled without an error.
    pub fn error(&self) -> Option<Error> {
        // SAFETY: The fence is valid.
        let status = unsafe { bindings::dma_fence_get_status(self.as_raw()) };
        (status < 0).then(|| Error::from_errno(status))
    }

    /// Returns the time the fence was signalled, in `CLOCK_MONOTONIC` nanoseconds, or `None`
    /// if it is not signalled.
    pub fn timestamp(&self) -> Option<u64> {
        if !self.is_signaled() {
            return None;
        }
        // SAFETY: The fence is valid and signalled.
        let ts = unsafe { bindings::dma_fence_timestamp(self.as_raw()) };
        u64::try_from(ts).ok()
    }

    /// Waits for the fence to be signalled.
    ///
    /// With `timeout` [`None`] this waits without a time limit. An interruptible wait returns
    /// `ERESTARTSYS` when a signal is pending, and a wait that times out returns `ETIME`. A wait
    /// that succeeds says nothing about the fence's [`error`](Fence::error).
    ///
    /// Must be called from a context that may sleep, and never from the fence signalling
    /// critical section.
    pub fn wait(&self, interruptible: bool, timeout: Option<Delta>) -> Result {
        let jiffies = match timeout {
            None => c_long::MAX,
            Some(timeout) => {
                let msecs = u32::try_from(timeout.as_millis_ceil().max(0)).unwrap_or(u32::MAX);
                c_long::try_from(msecs_to_jiffies(msecs)).unwrap_or(c_long::MAX)
            }
        };
        // SAFETY: The fence is valid.
        let ret =
            unsafe { bindings::dma_fence_wait_timeout(self.as_raw(), interruptible, jiffies) };
        match ret {
            0 => Err(ETIME),
            ret if ret < 0 => Err(Error::from_errno(ret as c_int)),
            _ => Ok(()),
        }
    }
}

/// The `dma_fence_ops` of fences created by [`FenceContext`].
///
/// Without `release` and `wait`, the dma-fence core frees the fences with `dma_fence_free()`
/// and detaches them from these ops when they are signalled; see the module documentation.
static FENCE_OPS: bindings::dma_fence_ops = bindings::dma_fence_ops {
    get_driver_name: Some(get_driver_name),
    get_timeline_name: Some(get_timeline_name),
    enable_signaling: None,
    signaled: None,
    wait: None,
    release: None,
    set_deadline: None,
};

/// The allocation behind a fence created by [`FenceContext`].
///
/// `fence` must be the first field: the dma-fence core frees the allocation with
/// `dma_fence_free()`, i.e. `kfree_rcu()` of the `struct dma_fence` pointer.
#[repr(C)]
struct RawFence {
    fence: Opaque<bindings::dma_fence>,
    driver_name: &'static CStr,
    timeline_name: &'static CStr,
}

/// Returns the [`RawFence`] containing `fence`.
///
/// # Safety
///
/// `fence` must point to a valid fence whose ops are [`FENCE_OPS`], which is only ever the case
/// for fences allocated as a [`RawFence`].
unsafe fn raw_fence<'a>(fence: *mut bindings::dma_fence) -> &'a RawFence {
    // SAFETY: By the safety requirements `fence` is the `fence` field of a live `RawFence`.
    unsafe { &*container_of!(Opaque::cast_from(fence), RawFence, fence) }
}

/// # Safety
///
/// Only called by the dma-fence core, on a valid fence with ops [`FENCE_OPS`].
unsafe extern "C" fn get_driver_name(fence: *mut bindings::dma_fence) -> *const c_char {
    // SAFETY: The dma-fence core only calls this for fences using `FENCE_OPS`.
    unsafe { raw_fence(fence) }.driver_name.as_char_ptr()
}

/// # Safety
///
/// Only called by the dma-fence core, on a valid fence with ops [`FENCE_OPS`].
unsafe extern "C" fn get_timeline_name(fence: *mut bindings::dma_fence) -> *const c_char {
    // SAFETY: The dma-fence core only calls this for fences using `FENCE_OPS`.
    unsafe { raw_fence(fence) }.timeline_name.as_char_ptr()
}

/// A fence context: a timeline of fences signalled in order.
///
/// Each context gets a unique number from `dma_fence_context_alloc()`, and the fences it creates
/// get increasing sequence numbers, starting at 1. Fences of one context must be signalled in the
/// order of their sequence numbers: other code (`dma_fence_is_later()`, dma-resv, syncobj
/// timelines) relies on it.
///
/// Fences do not refer to their context: a [`FenceContext`] can be dropped while fences it
/// created, signalled or not, are still alive.
///
/// # Examples
///
/// ```
/// use kernel::dma_fence::FenceContext;
///
/// let ctx = FenceContext::new(c"my_driver", c"ring0");
/// let job = ctx.new_fence(42u32, GFP_KERNEL)?;
/// let fence = job.fence().clone();
/// assert_eq!(*job, 42);
/// assert!(!fence.is_signaled());
///
/// job.signal();
/// assert!(fence.is_signaled());
/// assert!(fence.error().is_none());
/// # Ok::<(), Error>(())
/// ```
pub struct FenceContext {
    context: u64,
    seqno: Atomic<u64>,
    driver_name: &'static CStr,
    timeline_name: &'static CStr,
    order: OrderCheck,
}

/// The signalling order of one fence context, as far as `CONFIG_RUST_DMA_FENCE_CHECK_ORDER`
/// checks it: the highest sequence number signalled so far, shared by the context and its
/// producers (which can outlive it).
#[derive(Clone)]
struct OrderCheck {
    #[cfg(CONFIG_RUST_DMA_FENCE_CHECK_ORDER)]
    last: Option<crate::sync::Arc<Atomic<u64>>>,
}

impl OrderCheck {
    fn new() -> Self {
        Self {
            // A context whose record cannot be allocated is not checked: the check is a debugging
            // aid and must not make fence contexts fallible.
            #[cfg(CONFIG_RUST_DMA_FENCE_CHECK_ORDER)]
            last: crate::sync::Arc::new(Atomic::new(0), GFP_KERNEL).ok(),
        }
    }

    /// Records that `seqno` of `context` is being signalled, and warns if a later fence of the
    /// context has been signalled before it.
    #[cfg_attr(not(CONFIG_RUST_DMA_FENCE_CHECK_ORDER), allow(unused_variables))]
    fn signalling(&self, context: u64, seqno: u64) {
        #[cfg(CONFIG_RUST_DMA_FENCE_CHECK_ORDER)]
        if let Some(last) = &self.last {
            if let Err(after) = record_signalled(last, seqno) {
                pr_warn!(
                    "dma_fence: context {context} signalled seqno {seqno} after seqno {after}\n"
                );
                crate::warn_on!(true);
            }
        }
    }
}

/// Records in `last`, the highest sequence number signalled on a context so far, that `seqno` is
/// signalled. Returns the higher sequence number signalled before it as an error if there is one.
#[cfg_attr(not(CONFIG_RUST_DMA_FENCE_CHECK_ORDER), allow(dead_code))]
fn record_signalled(last: &Atomic<u64>, seqno: u64) -> core::result::Result<(), u64> {
    let mut prev = last.load(Relaxed);
    loop {
        if prev > seqno {
            return Err(prev);
        }
        match last.cmpxchg(prev, seqno, Relaxed) {
            Ok(_) => return Ok(()),
            Err(now) => prev = now,
        }
    }
}

impl FenceContext {
    /// Allocates a new fence context.
    ///
    /// The names are reported by `dma_fence_driver_name()` and `dma_fence_timeline_name()`
    /// (debugfs, sync_file, tracepoints) for as long as a fence is unsignalled.
    pub fn new(driver_name: &'static CStr, timeline_name: &'static CStr) -> Self {
        Self {
            // SAFETY: `dma_fence_context_alloc()` has no preconditions.
            context: unsafe { bindings::dma_fence_context_alloc(1) },
            seqno: Atomic::new(0),
            driver_name,
            timeline_name,
            order: OrderCheck::new(),
        }
    }

    /// Returns the context number of this context.
    #[inline]
    pub fn context(&self) -> u64 {
        self.context
    }

    /// Creates a new unsignalled fence with the next sequence number of this context.
    ///
    /// The returned producer carries `data` for the driver (e.g. the job the fence belongs to)
    /// until it is signalled. This is [`FenceAllocation::new`] followed by
    /// [`FenceContext::init_fence`]; use those where the sequence number has to be taken later
    /// than the memory can be allocated.
    pub fn new_fence<T>(&self, data: T, flags: Flags) -> Result<DriverFence<T>> {
        Ok(self.init_fence(FenceAllocation::new(flags)?, data))
    }

    /// Turns a pre-allocated fence into a new unsignalled fence of this context.
    ///
    /// The fence gets the next sequence number of this context now, so the order in which a
    /// driver calls this is the order in which it has to signal the fences. This cannot fail
    /// and does not allocate; it can be called where allocating could deadlock, e.g. in a
    /// scheduler's `run_job()`.
    pub fn init_fence<T>(&self, alloc: FenceAllocation, data: T) -> DriverFence<T> {
        let seqno = self.seqno.fetch_add(1, Relaxed) + 1;
        let raw = KBox::into_raw(alloc.raw);
        // SAFETY: `raw` points to a valid `RawFence` (from `KBox::into_raw`) that nothing else
        // accesses.
        let fence = unsafe {
            (*raw).driver_name = self.driver_name;
            (*raw).timeline_name = self.timeline_name;
            Opaque::cast_into(&raw const (*raw).fence)
        };
        // SAFETY: `fence` is valid for writes. `FENCE_OPS` is static and has the mandatory name
        // callbacks. A `NULL` lock makes the fence use its inline lock. From here on, the fence
        // reference count owns the allocation: it was allocated with `kmalloc()`, and the
        // `struct dma_fence` is at its start, so `dma_fence_free()` frees it.
        unsafe {
            bindings::dma_fence_init64(fence, &FENCE_OPS, ptr::null_mut(), self.context, seqno)
        };
        // INVARIANT: The fence was just initialised with `FENCE_OPS`, and nothing else can
        // signal it. The initial reference is transferred to `fence`.
        DriverFence {
            // SAFETY: `fence` is valid and initialised, and its initial reference is ours.
            fence: unsafe { Fence::from_raw_owned(NonNull::new_unchecked(fence)) },
            data,
            order: self.order.clone(),
        }
    }
}

/// Memory for a fence, allocated ahead of time.
///
/// Creating a fence is split into this allocation, which can fail, and
/// [`FenceContext::init_fence`], which cannot and assigns the sequence number. Dropping an unused
/// allocation frees it.
pub struct FenceAllocation {
    raw: KBox<RawFence>,
}

// SAFETY: The allocation is owned by the `FenceAllocation` alone and holds no initialised fence;
// it can be moved to and freed on any thread.
unsafe impl Send for FenceAllocation {}

// SAFETY: `FenceAllocation` has no methods taking `&self`.
unsafe impl Sync for FenceAllocation {}

impl FenceAllocation {
    /// Allocates the memory for one fence.
    pub fn new(flags: Flags) -> Result<Self> {
        Ok(Self {
            raw: KBox::new(
                RawFence {
                    fence: Opaque::uninit(),
                    driver_name: c"",
                    timeline_name: c"",
                },
                flags,
            )?,
        })
    }
}

/// The producer side of a fence: the only handle that can signal it.
///
/// Created by [`FenceContext::new_fence`]. Signalling consumes the [`DriverFence`], so a fence is
/// signalled exactly once. The driver data `T` is accessible through [`Deref`] and is dropped
/// after the fence has been signalled, outside the signalling critical section.
///
/// Dropping an unsignalled [`DriverFence`] signals the fence with `ECANCELED`, so waiters never
/// hang on a fence whose producer went away (e.g. a job torn down before it ran).
///
/// # Invariants
///
/// `fence` was created by [`FenceContext::new_fence`] with the ops `FENCE_OPS`, is not
/// signalled, and can only be signalled through this [`DriverFence`].
pub struct DriverFence<T = ()> {
    fence: ARef<Fence>,
    data: T,
    order: OrderCheck,
}

impl<T> DriverFence<T> {
    /// Returns the consumer side of the fence.
    ///
    /// Clone the returned reference to hand the fence to others.
    #[inline]
    pub fn fence(&self) -> &ARef<Fence> {
        &self.fence
    }

    /// Returns a new reference to the fence as an [`UnchainedFence`], for a timeline point.
    pub fn unchained(&self) -> UnchainedFence {
        // INVARIANT: The fence has the ops `FENCE_OPS` (type invariant), not those of a chain.
        UnchainedFence(self.fence.clone())
    }

    /// Signals the fence successfully.
    ///
    /// Runs the callbacks registered on the fence and wakes up its waiters. This cannot fail.
    pub fn signal(self) {
        self.signal_with(None);
    }

    /// Signals the fence with an error.
    ///
    /// `err` is set before the fence is signalled, so every waiter and callback sees it.
    pub fn signal_with_error(self, err: Error) {
        self.signal_with(Some(err));
    }

    fn signal_with(self, err: Option<Error>) {
        let this = ManuallyDrop::new(self);
        // SAFETY: `this` is never used or dropped again, and each field is moved out once.
        let (fence, data, order) = unsafe {
            (
                ptr::read(&this.fence),
                ptr::read(&this.data),
                ptr::read(&this.order),
            )
        };
        signal_fence(&fence, &order, err);
        drop(data);
    }
}

impl<T> Deref for DriverFence<T> {
    type Target = T;

    #[inline]
    fn deref(&self) -> &T {
        &self.data
    }
}

impl<T> DerefMut for DriverFence<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        &mut self.data
    }
}

impl<T> Drop for DriverFence<T> {
    fn drop(&mut self) {
        signal_fence(&self.fence, &self.order, Some(ECANCELED));
    }
}

/// Signals `fence`, setting `err` first.
///
/// Must only be called once per fence, by its [`DriverFence`], whose context's order `order` is.
fn signal_fence(fence: &Fence, order: &OrderCheck, err: Option<Error>) {
    let _guard = SignallingGuard::new();
    order.signalling(fence.context(), fence.seqno());
    if let Some(err) = err {
        // SAFETY: The fence is valid and, by the invariants of `DriverFence`, not signalled yet.
        // `err` is a valid negative error code.
        unsafe { bindings::dma_fence_set_error(fence.as_raw(), err.to_errno()) };
    }
    // SAFETY: The fence is valid.
    unsafe { bindings::dma_fence_signal(fence.as_raw()) };
}

/// Marks a fence signalling critical section for lockdep.
///
/// Between creating the guard (`dma_fence_begin_signalling()`) and dropping it
/// (`dma_fence_end_signalling()`), lockdep reports any wait for a fence and any lock or
/// allocation that may depend on one, because code on a path that signals fences must not
/// depend on fences itself. Without `CONFIG_LOCKDEP` this does nothing.
///
/// Guards must be dropped in the reverse order of their creation, on the same task; the type is
/// not [`Send`].
///
/// # Examples
///
/// ```
/// use kernel::dma_fence::{FenceContext, SignallingGuard};
///
/// let ctx = FenceContext::new(c"my_driver", c"ring0");
/// let done = ctx.new_fence((), GFP_KERNEL)?;
///
/// // A completion handler: no allocation, no fence waits in here.
/// let guard = SignallingGuard::new();
/// done.signal();
/// drop(guard);
/// # Ok::<(), Error>(())
/// ```
pub struct SignallingGuard {
    cookie: bool,
    _not_send: NotThreadSafe,
}

impl SignallingGuard {
    /// Begins a fence signalling critical section.
    #[inline]
    #[must_use = "the critical section ends when the guard is dropped"]
    pub fn new() -> Self {
        Self {
            // SAFETY: `dma_fence_begin_signalling()` has no preconditions.
            cookie: unsafe { bindings::dma_fence_begin_signalling() },
            _not_send: NotThreadSafe,
        }
    }
}

impl Default for SignallingGuard {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for SignallingGuard {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: `cookie` comes from `dma_fence_begin_signalling()` on this task.
        unsafe { bindings::dma_fence_end_signalling(self.cookie) };
    }
}

/// A fence as a [`FenceCallbackHandler`] sees it: signalled, with its lock held by the code
/// that signals it.
///
/// It has what a handler may read there: the fence's context and sequence number, the error it
/// was signalled with and the time it was signalled, none of which takes the fence lock. It has
/// no wait and no callback registration, and none of the [`Fence`] methods that take the lock
/// ([`Fence::error`] through `dma_fence_get_status()`, [`Fence::wait`]): called from the
/// handler, they would spin forever on the lock that the same CPU holds, possibly with
/// interrupts off.
///
/// # Invariants
///
/// The fence is valid, signalled, its timestamp is set, and its lock is held by the caller of
/// the handler for as long as the reference lives.
#[repr(transparent)]
pub struct SignaledFence(Opaque<bindings::dma_fence>);

impl SignaledFence {
    /// # Safety
    ///
    /// `ptr` must point to a fence that is being signalled, with its lock held, for `'a`.
    unsafe fn from_raw<'a>(ptr: *mut bindings::dma_fence) -> &'a Self {
        // SAFETY: `SignaledFence` is a transparent wrapper of `struct dma_fence`, and by the
        // safety requirements the fence meets the type invariants for `'a`.
        unsafe { &*ptr.cast::<Self>() }
    }

    /// Returns the fence context the fence belongs to.
    #[inline]
    pub fn context(&self) -> u64 {
        // SAFETY: The fence is valid (type invariant); `context` does not change after
        // initialisation.
        unsafe { (*self.0.get()).context }
    }

    /// Returns the sequence number of the fence within its context.
    #[inline]
    pub fn seqno(&self) -> u64 {
        // SAFETY: The fence is valid (type invariant); `seqno` does not change after
        // initialisation.
        unsafe { (*self.0.get()).seqno }
    }

    /// Returns the error the fence was signalled with, if any.
    #[inline]
    pub fn error(&self) -> Option<Error> {
        // SAFETY: The fence is valid and signalled (type invariant). Its error is set before it
        // is signalled and never changes afterwards. Signalling takes the lock, which the
        // caller of the handler holds (type invariant), so the read is ordered after that write
        // and races with no other, as in `dma_fence_get_status_locked()`.
        let error = unsafe { (*self.0.get()).error };
        (error < 0).then(|| Error::from_errno(error))
    }

    /// Returns the time the fence was signalled, in `CLOCK_MONOTONIC` nanoseconds.
    #[inline]
    pub fn timestamp(&self) -> u64 {
        // SAFETY: The fence is valid, signalled and its timestamp is set (type invariant), so
        // `dma_fence_timestamp()` neither waits nor takes the lock.
        let ts = unsafe { bindings::dma_fence_timestamp(self.0.get()) };
        u64::try_from(ts).unwrap_or(0)
    }
}

/// A handler run by [`FenceCallback`] when its fence is signalled.
///
/// Handlers are `'static`: they own what they use (or hold references counted on it), they never
/// borrow it. A registration can be leaked (`core::mem::forget()` of its box is safe code), and
/// a leaked registration stays on the fence: its handler runs whenever the fence signals, after
/// any borrowed data could be gone.
pub trait FenceCallbackHandler: Sync + 'static {
    /// Called once, when the fence is signalled.
    ///
    /// Runs in the fence signalling critical section, possibly in interrupt context, with the
    /// fence lock held by the code that signals the fence. It is handed what it may read of the
    /// fence ([`SignaledFence`]). It must not sleep, allocate with `GFP_KERNEL` or wait for
    /// fences, and must not take the lock of the signalled fence through another reference to
    /// it: no [`Fence::error`], [`Fence::wait`] or callback registration or removal on that
    /// fence, which spin on the lock the CPU holds (lockdep reports a recursion). A fence's
    /// lock may be shared with other fences (all the fences of a ring, in many drivers): the
    /// same holds for every fence whose lock is unknown to the handler. In particular, the
    /// handler must not drop a [`FenceCallback`], whose drop takes the lock of its fence, nor
    /// signal a fence it does not know to have a lock of its own.
    fn fence_signaled(&self, fence: &SignaledFence);
}

/// A callback registered on a fence.
///
/// The handler runs at most once, when the fence is signalled. Dropping the registration removes
/// the callback (`dma_fence_remove_callback()`); once the drop has returned, the handler is
/// neither running nor will it ever run, so the handler can be dropped with it. A registration
/// that is leaked instead stays registered; as handlers are `'static` (see
/// [`FenceCallbackHandler`]), that leaks memory but cannot make the handler use freed data.
/// The registration holds a reference to the fence.
///
/// # Examples
///
/// ```
/// use kernel::{
///     dma_fence::{FenceCallback, FenceCallbackHandler, FenceContext, SignaledFence},
///     sync::atomic::{Atomic, Relaxed},
/// };
///
/// struct Counter(Atomic<u32>);
///
/// impl FenceCallbackHandler for Counter {
///     fn fence_signaled(&self, _fence: &SignaledFence) {
///         self.0.fetch_add(1, Relaxed);
///     }
/// }
///
/// let ctx = FenceContext::new(c"my_driver", c"ring0");
/// let job = ctx.new_fence((), GFP_KERNEL)?;
/// let cb = KBox::pin_init(FenceCallback::new(job.fence(), Counter(Atomic::new(0))), GFP_KERNEL)?;
/// job.signal();
/// assert_eq!(cb.handler().0.load(Relaxed), 1);
/// # Ok::<(), Error>(())
/// ```
///
/// # Invariants
///
/// `cb` was passed to `dma_fence_add_callback()` on `fence` and is either still on its callback
/// list or has been called.
#[pin_data(PinnedDrop)]
pub struct FenceCallback<H: FenceCallbackHandler> {
    fence: ARef<Fence>,
    handler: H,
    #[pin]
    cb: Opaque<bindings::dma_fence_cb>,
}

// SAFETY: The `struct dma_fence_cb` is only accessed by the dma-fence core and by
// `PinnedDrop::drop`, both under the fence lock, from whatever thread; the fence is `Send`. So
// the registration can be moved (and dropped) on another thread if the handler can.
unsafe impl<H: FenceCallbackHandler + Send> Send for FenceCallback<H> {}

// SAFETY: `&FenceCallback` only gives access to the fence, which is `Sync`, and to the handler,
// which is `Sync` by the bound of `FenceCallbackHandler`.
unsafe impl<H: FenceCallbackHandler> Sync for FenceCallback<H> {}

impl<H: FenceCallbackHandler> FenceCallback<H> {
    /// Registers `handler` to be run when `fence` is signalled.
    ///
    /// Fails with `ENOENT` if `fence` is already signalled, in which case `handler` is dropped
    /// without having been run: the caller has to do itself whatever the handler would have
    /// done.
    pub fn new(fence: &Fence, handler: H) -> impl PinInit<Self, Error> {
        let fence = ARef::from(fence);
        let raw = fence.as_raw();
        try_pin_init!(Self {
            fence,
            handler,
            // The callback is registered last, when `fence` and `handler` are in place: it can
            // run on another CPU as soon as `dma_fence_add_callback()` has added it.
            cb <- Opaque::try_ffi_init(move |cb| {
                // SAFETY: `raw` is valid: the `fence` field, initialised above, holds a
                // reference. `cb` is pinned and stays valid until `PinnedDrop::drop` removes it.
                to_result(unsafe {
                    bindings::dma_fence_add_callback(raw, cb, Some(Self::callback))
                })
            }),
        })
    }

    /// Returns the fence this callback is registered on.
    #[inline]
    pub fn fence(&self) -> &Fence {
        &self.fence
    }

    /// Returns the handler.
    #[inline]
    pub fn handler(&self) -> &H {
        &self.handler
    }

    /// # Safety
    ///
    /// Only called by the dma-fence core for a callback registered by [`FenceCallback::new`].
    unsafe extern "C" fn callback(
        fence: *mut bindings::dma_fence,
        cb: *mut bindings::dma_fence_cb,
    ) {
        // SAFETY: `cb` is the `cb` field of a `FenceCallback<H>`. It is still alive: its drop
        // removes the callback under the fence lock, which the core holds while calling us.
        let this = unsafe { container_of!(Opaque::cast_from(cb), Self, cb) };
        // SAFETY: `this` is valid (see above). Only a shared reference to `handler` is created,
        // and `H: Sync`.
        let handler = unsafe { &(*this).handler };
        // SAFETY: The core calls the callbacks of `fence` while it signals it, with its lock
        // held and its timestamp set, until the handler returns. The fence stays valid that
        // long: the registration holds a reference to it (`this.fence`), and its drop, which
        // would release it, waits for the lock.
        handler.fence_signaled(unsafe { SignaledFence::from_raw(fence) });
    }
}

#[pinned_drop]
impl<H: FenceCallbackHandler> PinnedDrop for FenceCallback<H> {
    fn drop(self: Pin<&mut Self>) {
        // SAFETY: `fence` is valid, and `cb` was registered on it (type invariant). If the
        // callback already ran, its list node was reinitialised and this does nothing; if it
        // is running, this waits for the fence lock and thus for it to finish.
        unsafe { bindings::dma_fence_remove_callback(self.fence.as_raw(), self.cb.get()) };
    }
}

/// A reference to a fence that is not a `struct dma_fence_chain`: what a chain node contains.
///
/// A chain node ([`FenceChain`], a timeline point) links its own fence to the node of the
/// previous point. Chains are only linked through that previous node: a chain node as the fence
/// of another one is a bug that `dma_fence_chain_init()` warns about, and signalling, waiting on
/// and freeing such nested chains recurse once per level of nesting, without a bound. The check
/// is made when this value is created, so that a driver can make it before the point of no
/// return of a submission and link the node after it, when nothing may fail.
///
/// Fences from [`DriverFence::unchained`] are never chains; other fences are checked by
/// [`UnchainedFence::new`]. Dereferences to the [`Fence`].
///
/// # Invariants
///
/// The fence is not a `struct dma_fence_chain`.
#[derive(Clone)]
pub struct UnchainedFence(ARef<Fence>);

impl UnchainedFence {
    /// Returns `fence` as an unchained fence, or `EINVAL` if it is a `struct dma_fence_chain`.
    pub fn new(fence: ARef<Fence>) -> Result<Self> {
        if fence.is_chain() {
            return Err(EINVAL);
        }
        // INVARIANT: Checked above; a fence that is not a chain never becomes one (see
        // `Fence::is_chain`).
        Ok(Self(fence))
    }

    /// Returns the reference to the fence.
    pub fn into_inner(self) -> ARef<Fence> {
        self.0
    }
}

impl Deref for UnchainedFence {
    type Target = Fence;

    #[inline]
    fn deref(&self) -> &Fence {
        &self.0
    }
}

/// A pre-allocated `struct dma_fence_chain` node.
///
/// A timeline syncobj point is a chain node linking a fence to the previous point. Allocating the
/// node up front with [`FenceChain::new`] lets a driver add the point later, after the point of
/// no return of a submission, without allocating. Dropping an unused node frees it.
pub struct FenceChain {
    chain: KBox<Opaque<bindings::dma_fence_chain>>,
}

// SAFETY: A `FenceChain` is an uninitialised allocation owned by it alone; it can be moved to and
// freed on any thread.
unsafe impl Send for FenceChain {}

// SAFETY: `FenceChain` has no methods taking `&self`.
unsafe impl Sync for FenceChain {}

impl FenceChain {
    /// Allocates a chain node.
    pub fn new(flags: Flags) -> Result<Self> {
        Ok(Self {
            chain: KBox::new(Opaque::uninit(), flags)?,
        })
    }

    /// Initialises the node as the point `seqno` following `prev`, with payload `fence`.
    ///
    /// Returns the chain fence, which signals once `fence` and all fences of earlier points
    /// have signalled. `prev` may be a chain (the previous point) or any other fence. Takes over
    /// the references of `prev` and `fence`. This cannot fail.
    pub fn init(self, prev: Option<ARef<Fence>>, fence: UnchainedFence, seqno: u64) -> ARef<Fence> {
        let chain = KBox::into_raw(self.chain).cast::<bindings::dma_fence_chain>();
        let prev = prev.map_or(ptr::null_mut(), |prev| {
            ARef::into_raw(prev).cast::<bindings::dma_fence>().as_ptr()
        });
        let fence = ARef::into_raw(fence.into_inner())
            .cast::<bindings::dma_fence>()
            .as_ptr();
        // SAFETY: `chain` is a `kmalloc()` allocation of a `struct dma_fence_chain`, as
        // `dma_fence_chain_alloc()` would return. `prev` is NULL or valid, `fence` is valid and
        // not a chain (type invariant of `UnchainedFence`), and their references are transferred
        // to the chain.
        unsafe { bindings::dma_fence_chain_init(chain, prev, fence, seqno) };
        // SAFETY: `chain` is valid, and its `base` fence was initialised with a reference owned
        // by the caller.
        unsafe { Fence::from_raw_owned(NonNull::new_unchecked(&raw mut (*chain).base)) }
    }

    /// Hands the uninitialised node over to C code that initialises it.
    ///
    /// This is for C functions that link a pre-allocated node themselves, such as
    /// `drm_syncobj_add_point()`. The caller takes over the `kmalloc()` allocation: it has to
    /// pass it to `dma_fence_chain_init()` (directly or through such a function), after which
    /// the chain's reference count owns it, or free it with `dma_fence_chain_free()`.
    /// Otherwise it is leaked. The fence the C code puts in the node must not be a chain (see
    /// [`UnchainedFence`]).
    pub fn into_raw(self) -> NonNull<bindings::dma_fence_chain> {
        NonNull::from(KBox::leak(self.chain)).cast()
    }
}

#[kunit_tests(rust_dma_fence)]
mod tests {
    use super::*;
    use crate::{
        sync::Arc,
        time::delay::fsleep,
        workqueue, //
    };

    const DRIVER: &CStr = c"rust_dma_fence_test";
    const TIMELINE: &CStr = c"test";

    struct Counter(Atomic<u32>);

    impl FenceCallbackHandler for Counter {
        fn fence_signaled(&self, fence: &SignaledFence) {
            self.0.fetch_add(1, Relaxed);
            // The fence has its timestamp by the time callbacks run.
            if fence.timestamp() == 0 {
                self.0.fetch_add(100, Relaxed);
            }
        }
    }

    impl Counter {
        fn new() -> Self {
            Self(Atomic::new(0))
        }

        fn get(&self) -> u32 {
            self.0.load(Relaxed)
        }
    }

    struct SharedCounter(Arc<Atomic<u32>>);

    impl FenceCallbackHandler for SharedCounter {
        fn fence_signaled(&self, _fence: &SignaledFence) {
            self.0.fetch_add(1, Relaxed);
        }
    }

    struct DropFlag(Arc<Atomic<u32>>);

    impl Drop for DropFlag {
        fn drop(&mut self) {
            self.0.fetch_add(1, Relaxed);
        }
    }

    #[test]
    fn signal_once() -> Result {
        let ctx = FenceContext::new(DRIVER, TIMELINE);
        let a = ctx.new_fence((), GFP_KERNEL)?;
        let b = ctx.new_fence((), GFP_KERNEL)?;
        let fa = a.fence().clone();
        let fb = b.fence().clone();

        assert_eq!(fa.context(), ctx.context());
        assert_eq!(fb.context(), ctx.context());
        assert_eq!(fa.seqno(), 1);
        assert_eq!(fb.seqno(), 2);
        assert!(!fa.is_signaled());
        assert!(fa.error().is_none());

        a.signal();
        assert!(fa.is_signaled());
        assert!(!fb.is_signaled());
        assert!(fa.error().is_none());
        assert_eq!(fa.wait(false, Some(Delta::ZERO)), Ok(()));

        b.signal();
        assert!(fb.is_signaled());
        Ok(())
    }

    #[test]
    fn signal_with_error() -> Result {
        let ctx = FenceContext::new(DRIVER, TIMELINE);
        let df = ctx.new_fence((), GFP_KERNEL)?;
        let fence = df.fence().clone();

        let cb = KBox::pin_init(FenceCallback::new(&fence, Counter::new()), GFP_KERNEL)?;
        df.signal_with_error(EIO);
        assert!(fence.is_signaled());
        assert_eq!(fence.error(), Some(EIO));
        assert_eq!(cb.handler().get(), 1);
        // A successful wait does not hide the error.
        assert_eq!(fence.wait(true, None), Ok(()));
        assert_eq!(fence.error(), Some(EIO));
        Ok(())
    }

    /// What a handler sees of the fence, read without the fence lock that its signaller holds.
    struct Seen {
        error: Atomic<i32>,
        seqno: Atomic<u64>,
        timestamp: Atomic<u64>,
    }

    impl FenceCallbackHandler for Seen {
        fn fence_signaled(&self, fence: &SignaledFence) {
            self.error
                .store(fence.error().map_or(0, |e| e.to_errno()), Relaxed);
            self.seqno.store(fence.seqno(), Relaxed);
            self.timestamp.store(fence.timestamp(), Relaxed);
        }
    }

    #[test]
    fn handler_sees_error_and_timestamp() -> Result {
        let ctx = FenceContext::new(DRIVER, TIMELINE);
        let df = ctx.new_fence((), GFP_KERNEL)?;
        let fence = df.fence().clone();
        let seen = Seen {
            error: Atomic::new(0),
            seqno: Atomic::new(0),
            timestamp: Atomic::new(0),
        };

        let cb = KBox::pin_init(FenceCallback::new(&fence, seen), GFP_KERNEL)?;
        df.signal_with_error(EIO);
        let seen = cb.handler();
        assert_eq!(seen.error.load(Relaxed), EIO.to_errno());
        assert_eq!(seen.seqno.load(Relaxed), fence.seqno());
        assert_eq!(Some(seen.timestamp.load(Relaxed)), fence.timestamp());
        Ok(())
    }

    #[test]
    fn callback_runs_once() -> Result {
        let ctx = FenceContext::new(DRIVER, TIMELINE);
        let df = ctx.new_fence((), GFP_KERNEL)?;
        let fence = df.fence().clone();

        let cb = KBox::pin_init(FenceCallback::new(&fence, Counter::new()), GFP_KERNEL)?;
        assert!(core::ptr::eq(cb.fence(), &*fence));
        assert_eq!(cb.handler().get(), 0);
        df.signal();
        assert_eq!(cb.handler().get(), 1);
        drop(cb);
        Ok(())
    }

    #[test]
    fn callback_after_signal() -> Result {
        let ctx = FenceContext::new(DRIVER, TIMELINE);
        let df = ctx.new_fence((), GFP_KERNEL)?;
        let fence = df.fence().clone();
        df.signal();

        let ran = Arc::new(Atomic::new(0u32), GFP_KERNEL)?;
        let res = KBox::pin_init(
            FenceCallback::new(&fence, SharedCounter(ran.clone())),
            GFP_KERNEL,
        );
        assert_eq!(res.err(), Some(ENOENT));
        assert_eq!(ran.load(Relaxed), 0);

        let res = KBox::pin_init(
            FenceCallback::new(&Fence::stub(), SharedCounter(ran.clone())),
            GFP_KERNEL,
        );
        assert_eq!(res.err(), Some(ENOENT));
        assert_eq!(ran.load(Relaxed), 0);
        Ok(())
    }

    #[test]
    fn callback_dropped_before_signal() -> Result {
        let ctx = FenceContext::new(DRIVER, TIMELINE);
        let df = ctx.new_fence((), GFP_KERNEL)?;
        let fence = df.fence().clone();

        let ran = Arc::new(Atomic::new(0u32), GFP_KERNEL)?;
        let kept = KBox::pin_init(
            FenceCallback::new(&fence, SharedCounter(ran.clone())),
            GFP_KERNEL,
        )?;
        let dropped = KBox::pin_init(
            FenceCallback::new(&fence, SharedCounter(ran.clone())),
            GFP_KERNEL,
        )?;
        // Freeing the registration must unlink it: signalling would otherwise call into freed
        // memory (which KASAN reports) and count twice.
        drop(dropped);
        df.signal();
        assert_eq!(ran.load(Relaxed), 1);
        drop(kept);
        Ok(())
    }

    #[test]
    fn wait_timeout() -> Result {
        let ctx = FenceContext::new(DRIVER, TIMELINE);
        let df = ctx.new_fence((), GFP_KERNEL)?;
        let fence = df.fence().clone();

        assert_eq!(fence.wait(false, Some(Delta::ZERO)), Err(ETIME));
        assert_eq!(fence.wait(true, Some(Delta::from_millis(20))), Err(ETIME));
        assert!(!fence.is_signaled());

        // Signal from a workqueue while this thread sleeps in the wait.
        workqueue::system_long().try_spawn(GFP_KERNEL, move || {
            fsleep(Delta::from_millis(20));
            df.signal();
        })?;
        assert_eq!(fence.wait(false, Some(Delta::from_secs(10))), Ok(()));
        assert!(fence.is_signaled());
        assert!(fence.error().is_none());
        Ok(())
    }

    #[test]
    fn drop_signals_canceled() -> Result {
        let ctx = FenceContext::new(DRIVER, TIMELINE);
        let dropped = Arc::new(Atomic::new(0u32), GFP_KERNEL)?;
        let df = ctx.new_fence(DropFlag(dropped.clone()), GFP_KERNEL)?;
        let fence = df.fence().clone();
        let cb = KBox::pin_init(FenceCallback::new(&fence, Counter::new()), GFP_KERNEL)?;

        drop(df);
        assert!(fence.is_signaled());
        assert_eq!(fence.error(), Some(ECANCELED));
        assert_eq!(cb.handler().get(), 1);
        assert_eq!(dropped.load(Relaxed), 1);
        Ok(())
    }

    #[test]
    fn data_dropped_on_signal() -> Result {
        let ctx = FenceContext::new(DRIVER, TIMELINE);
        let dropped = Arc::new(Atomic::new(0u32), GFP_KERNEL)?;
        let df = ctx.new_fence(DropFlag(dropped.clone()), GFP_KERNEL)?;
        let fence = df.fence().clone();
        assert_eq!(dropped.load(Relaxed), 0);
        df.signal();
        assert_eq!(dropped.load(Relaxed), 1);
        assert!(fence.error().is_none());
        Ok(())
    }

    #[test]
    fn fence_outlives_context() -> Result {
        let (context, df) = {
            let ctx = FenceContext::new(DRIVER, TIMELINE);
            (ctx.context(), ctx.new_fence((), GFP_KERNEL)?)
        };
        let fence = df.fence().clone();

        // The producer outlives its context too.
        let cb = KBox::pin_init(FenceCallback::new(&fence, Counter::new()), GFP_KERNEL)?;
        df.signal_with_error(EINVAL);
        assert_eq!(cb.handler().get(), 1);
        drop(cb);

        // Signalled fences are detached from their ops.
        // SAFETY: `fence` is valid, and the ops pointer is only read.
        assert!(unsafe { (*fence.as_raw()).ops }.is_null());
        assert_eq!(fence.context(), context);
        assert_eq!(fence.seqno(), 1);
        assert_eq!(fence.error(), Some(EINVAL));

        // A fresh context gets a different number.
        let ctx2 = FenceContext::new(DRIVER, TIMELINE);
        assert_ne!(ctx2.context(), context);
        Ok(())
    }

    #[test]
    fn raw_round_trip() -> Result {
        let ctx = FenceContext::new(DRIVER, TIMELINE);
        let df = ctx.new_fence((), GFP_KERNEL)?;
        let raw = ARef::into_raw(df.fence().clone());
        // SAFETY: `raw` carries the reference taken by `clone()` above.
        let owned = unsafe { Fence::from_raw_owned(raw.cast()) };
        // SAFETY: `owned` keeps the fence alive while `borrowed` is used.
        let borrowed = unsafe { Fence::from_raw(owned.as_raw()) };
        assert!(core::ptr::eq(borrowed, &**df.fence()));
        df.signal();
        assert!(owned.is_signaled());
        Ok(())
    }

    #[test]
    fn chain_signals_in_order() -> Result {
        // Two producers (contexts), which may signal in any order.
        let a = FenceContext::new(DRIVER, TIMELINE).new_fence((), GFP_KERNEL)?;
        let b = FenceContext::new(DRIVER, TIMELINE).new_fence((), GFP_KERNEL)?;
        let a_fence = a.fence().clone();

        // Pre-allocate, then link without allocating.
        let n1 = FenceChain::new(GFP_KERNEL)?;
        let n2 = FenceChain::new(GFP_KERNEL)?;
        let unused = FenceChain::new(GFP_KERNEL)?;
        let p1 = n1.init(None, a.unchained(), 1);
        let p2 = n2.init(Some(p1.clone()), b.unchained(), 2);
        drop(unused);
        // A point can only be linked through `prev`, never be the fence of another one.
        assert!(p2.is_chain() && !a_fence.is_chain());
        assert_eq!(UnchainedFence::new(p2.clone()).err(), Some(EINVAL));
        assert!(UnchainedFence::new(a_fence.clone()).is_ok());
        assert_eq!(p2.seqno(), 2);
        assert!(!p1.is_signaled());
        assert!(!p2.is_signaled());

        // Point 2 waits for point 1 as well.
        b.signal();
        assert!(!p1.is_signaled());
        assert!(!p2.is_signaled());
        a.signal_with_error(EIO);
        assert!(p1.is_signaled());
        assert!(p2.is_signaled());
        // Signalled, a point is still a chain, and a driver's fence is still none.
        assert!(p2.is_chain() && !a_fence.is_chain());
        assert_eq!(UnchainedFence::new(p2.clone()).err(), Some(EINVAL));
        assert_eq!(p2.wait(false, Some(Delta::from_secs(10))), Ok(()));
        Ok(())
    }

    #[test]
    fn preallocated_fence() -> Result {
        let ctx = FenceContext::new(DRIVER, TIMELINE);
        let first = FenceAllocation::new(GFP_KERNEL)?;
        let second = FenceAllocation::new(GFP_KERNEL)?;
        let unused = FenceAllocation::new(GFP_KERNEL)?;

        // The sequence number is taken when the fence is initialised, not when it is allocated.
        let b = ctx.init_fence(second, 2u32);
        let a = ctx.init_fence(first, 1u32);
        drop(unused);
        assert_eq!(b.fence().seqno(), 1);
        assert_eq!(a.fence().seqno(), 2);
        assert_eq!(a.fence().context(), ctx.context());
        assert_eq!((*a, *b), (1, 2));

        let fb = b.fence().clone();
        b.signal();
        a.signal();
        assert!(fb.is_signaled());
        Ok(())
    }

    #[test]
    fn thread_safety() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<Fence>();
        send_sync::<ARef<Fence>>();
        send_sync::<FenceContext>();
        send_sync::<DriverFence<u32>>();
        send_sync::<FenceCallback<Counter>>();
        send_sync::<FenceChain>();
        send_sync::<UnchainedFence>();
        send_sync::<FenceAllocation>();
    }

    #[test]
    fn handlers_are_static() {
        // Compiles only if every handler is `'static`, i.e. cannot borrow data that a leaked
        // registration would outlive.
        fn owns_its_data<H: FenceCallbackHandler>() {
            fn is_static<T: 'static>() {}
            is_static::<H>();
        }
        owns_its_data::<Counter>();
        owns_its_data::<SharedCounter>();
    }

    #[test]
    fn leaked_callback_owns_its_data() -> Result {
        let ctx = FenceContext::new(DRIVER, TIMELINE);
        let df = ctx.new_fence((), GFP_KERNEL)?;
        let ran = Arc::new(Atomic::new(0u32), GFP_KERNEL)?;
        let cb = KBox::pin_init(
            FenceCallback::new(df.fence(), SharedCounter(ran.clone())),
            GFP_KERNEL,
        )?;
        // Safe code may leak a registration (`mem::forget()`): it stays registered and runs on
        // signalling, with data it owns. The box is taken back afterwards only to keep the test
        // free of leaks.
        // SAFETY: The pointer is only turned back into the box below, and not moved meanwhile.
        let leaked = KBox::into_raw(unsafe { Pin::into_inner_unchecked(cb) });
        df.signal();
        assert_eq!(ran.load(Relaxed), 1);
        // SAFETY: `leaked` comes from `KBox::into_raw()` above and is not used elsewhere.
        drop(unsafe { KBox::from_raw(leaked) });
        Ok(())
    }

    #[test]
    fn order_record() {
        let last = Atomic::new(0u64);
        assert_eq!(record_signalled(&last, 1), Ok(()));
        assert_eq!(record_signalled(&last, 3), Ok(()));
        // A skipped sequence number is fine, an earlier one after a later one is not.
        assert_eq!(record_signalled(&last, 2), Err(3));
        assert_eq!(last.load(Relaxed), 3);
        assert_eq!(record_signalled(&last, 3), Ok(()));
        assert_eq!(record_signalled(&last, 4), Ok(()));
        assert_eq!(last.load(Relaxed), 4);
    }

    #[test]
    fn signalling_guard_nests() {
        let outer = SignallingGuard::new();
        let inner = SignallingGuard::new();
        drop(inner);
        drop(outer);
    }
}
