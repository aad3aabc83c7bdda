// SPDX-License-Identifier: GPL-2.0

//! DRM synchronisation objects.
//!
//! A DRM synchronisation object (`struct drm_syncobj`) is a container for a DMA fence, its
//! payload, that userspace refers to by a handle of its DRM file or by a file descriptor. It is
//! used in one of two ways:
//!
//! - **Binary**: the payload is a plain fence, replaced as a whole by every signal operation
//!   ([`SyncObj::replace_fence`]). Waits use point 0.
//! - **Timeline**: the payload is the head of a chain of `struct dma_fence_chain` nodes, one per
//!   point, added with [`SyncObj::add_point`]. Point `n` is reached once the fences of all
//!   points up to and including `n` have signalled. Points are `u64` throughout.
//!
//! [`SyncObj::fence_at`] resolves a point to a fence and rejects the mixed use of one syncobj
//! with `EINVAL`: point 0 of a syncobj whose payload is a chain, or a point above 0 of one whose
//! payload is a plain fence. A point that has not been submitted yet (an empty syncobj, or a
//! point above the last one of a timeline) is reported as [`SyncPoint::NotSubmitted`], never as
//! signalled: userspace may submit work that waits for a point before the work that signals it
//! (wait-before-signal), and it is up to the caller to wait for the submission or to reject it.
//!
//! # Reference counting and lifetime
//!
//! A [`SyncObj`] is always reference counted ([`ARef<SyncObj>`], `drm_syncobj_get()`/
//! `drm_syncobj_put()`). A DRM file's handle table and exported file descriptors hold references
//! of their own, so a syncobj looked up by handle stays alive after userspace destroyed the
//! handle. Fences obtained from a syncobj are separate references: they stay valid after the
//! payload was replaced and after the syncobj is gone.
//!
//! # Context
//!
//! [`SyncObj::add_point`] and [`SyncObj::replace_fence`] take the syncobj spinlock, wake up the
//! waiters of the syncobj and do not allocate memory or wait: they can be called after the point
//! of no return of a submission, inside a fence signalling critical section. The lock is not
//! taken with interrupts disabled, so they must not be called from interrupt context, which
//! includes [`FenceCallback`](crate::dma_fence::FenceCallback) handlers. The same holds for
//! dropping the last reference to a syncobj. [`SyncObj::lookup`] takes the spinlock of the
//! file's handle table. [`SyncObj::new`] allocates memory with `GFP_KERNEL`.
//!
//! C header: [`include/drm/drm_syncobj.h`](srctree/include/drm/drm_syncobj.h)

use crate::{
    bindings,
    dma_fence::{
        Fence,
        FenceChain,
        UnchainedFence, //
    },
    drm,
    error::to_result,
    prelude::*,
    sync::aref::{
        ARef,
        AlwaysRefCounted, //
    },
    types::Opaque, //
};
use core::ptr::{
    self,
    NonNull, //
};

/// A DRM synchronisation object (`struct drm_syncobj`), reference counted.
///
/// Instances are always reference counted: use [`ARef<SyncObj>`] to hold one. See the
/// [module documentation](self) for binary and timeline use.
///
/// # Examples
///
/// A timeline point that a job signals, looked up before and after its submission:
///
/// ```
/// use kernel::{
///     dma_fence::{FenceChain, FenceContext},
///     drm::syncobj::{SyncObj, SyncPoint},
/// };
///
/// let ctx = FenceContext::new(c"my_driver", c"ring0");
/// let syncobj = SyncObj::new(false, None)?;
///
/// // Wait-before-signal: point 1 has not been submitted yet.
/// assert!(matches!(syncobj.fence_at(1)?, SyncPoint::NotSubmitted));
///
/// // Submission: everything that can fail comes first, adding the point cannot fail.
/// let job = ctx.new_fence((), GFP_KERNEL)?;
/// let chain = FenceChain::new(GFP_KERNEL)?;
/// syncobj.add_point(chain, &job.unchained(), 1);
/// assert_eq!(syncobj.last_point(), 1);
///
/// let SyncPoint::Submitted(point) = syncobj.fence_at(1)? else {
///     return Err(EINVAL);
/// };
/// assert!(!point.is_signaled());
/// job.signal();
/// assert!(point.is_signaled());
///
/// // Point 0 is the binary use of the syncobj, which now is a timeline.
/// assert_eq!(syncobj.fence_at(0).err(), Some(EINVAL));
/// # Ok::<(), Error>(())
/// ```
///
/// # Invariants
///
/// The inner `struct drm_syncobj` is initialised, and its reference count is non-zero for as
/// long as a reference to the [`SyncObj`] exists.
#[repr(transparent)]
pub struct SyncObj(Opaque<bindings::drm_syncobj>);

// SAFETY: `struct drm_syncobj` is meant to be shared and released across threads: its reference
// count is atomic, its payload is RCU protected and its other state is protected by its spinlock.
unsafe impl Send for SyncObj {}

// SAFETY: All methods taking `&SyncObj` are safe to call concurrently from any thread; the C side
// synchronises them with RCU and the syncobj spinlock.
unsafe impl Sync for SyncObj {}

// SAFETY: `drm_syncobj_get()`/`drm_syncobj_put()` manage the reference count of the syncobj, and
// the syncobj is only freed once the count drops to zero.
unsafe impl AlwaysRefCounted for SyncObj {
    #[inline]
    fn inc_ref(&self) {
        // SAFETY: By the type invariant the reference count is non-zero.
        unsafe { bindings::drm_syncobj_get(self.as_raw()) };
    }

    #[inline]
    unsafe fn dec_ref(obj: NonNull<Self>) {
        // SAFETY: The caller owns a reference to the syncobj, which it gives up here.
        unsafe { bindings::drm_syncobj_put(obj.cast().as_ptr()) };
    }
}

impl SyncObj {
    /// Creates a new syncobj (`drm_syncobj_create()`).
    ///
    /// With `signaled`, the syncobj starts with an already signalled binary payload
    /// (`DRM_SYNCOBJ_CREATE_SIGNALED`). With `fence`, the syncobj starts with `fence` as its
    /// binary payload and takes a reference of its own to it; this takes precedence over
    /// `signaled`. Without either, the syncobj is empty. The syncobj is not visible to
    /// userspace until a driver gives it a handle or a file descriptor.
    pub fn new(signaled: bool, fence: Option<&Fence>) -> Result<ARef<Self>> {
        let flags = if signaled {
            bindings::DRM_SYNCOBJ_CREATE_SIGNALED
        } else {
            0
        };
        let fence = fence.map_or(ptr::null_mut(), Fence::as_raw);
        let mut raw = ptr::null_mut();
        // SAFETY: `raw` is valid for writes, and `fence` is NULL or a valid fence (it is borrowed
        // for the duration of the call), to which the syncobj takes a reference of its own.
        to_result(unsafe { bindings::drm_syncobj_create(&mut raw, flags, fence) })?;
        // SAFETY: On success, `drm_syncobj_create()` stored a valid syncobj with an initial
        // reference owned by the caller in `raw`.
        Ok(unsafe { Self::from_raw_owned(NonNull::new_unchecked(raw)) })
    }

    /// Looks up the syncobj with the handle `handle` in `file` (`drm_syncobj_find()`).
    ///
    /// Returns `ENOENT` if `file` has no syncobj with that handle. The returned reference keeps
    /// the syncobj alive even if userspace destroys the handle in the meantime. Takes the
    /// spinlock of the file's handle table.
    pub fn lookup<T: drm::file::DriverFile>(
        file: &drm::File<T>,
        handle: u32,
    ) -> Result<ARef<Self>> {
        // SAFETY: `file` is a valid, open DRM file.
        let raw = unsafe { bindings::drm_syncobj_find(file.as_raw(), handle) };
        let raw = NonNull::new(raw).ok_or(ENOENT)?;
        // SAFETY: `drm_syncobj_find()` returned a valid syncobj with a reference for the caller.
        Ok(unsafe { Self::from_raw_owned(raw) })
    }

    /// Borrows a [`SyncObj`] from a raw `struct drm_syncobj` pointer.
    ///
    /// Use `ARef::from(syncobj)` to take a reference of one's own.
    ///
    /// # Safety
    ///
    /// `ptr` must point to an initialised `struct drm_syncobj`, and the caller must hold a
    /// reference to it (or otherwise guarantee that its reference count stays non-zero) for the
    /// whole lifetime `'a`.
    #[inline]
    pub unsafe fn from_raw<'a>(ptr: *mut bindings::drm_syncobj) -> &'a Self {
        // SAFETY: `SyncObj` is a transparent wrapper of `struct drm_syncobj`, and the caller
        // guarantees that the syncobj stays alive for `'a`.
        unsafe { &*ptr.cast::<Self>() }
    }

    /// Takes over a reference to a syncobj from C code.
    ///
    /// The returned [`ARef`] owns that reference and puts it on drop.
    ///
    /// # Safety
    ///
    /// `ptr` must point to an initialised `struct drm_syncobj`, and the caller must own one
    /// reference to it, which is transferred to the returned [`ARef`].
    #[inline]
    pub unsafe fn from_raw_owned(ptr: NonNull<bindings::drm_syncobj>) -> ARef<Self> {
        // SAFETY: `SyncObj` is a transparent wrapper of `struct drm_syncobj`, and the caller
        // transfers the ownership of one reference.
        unsafe { ARef::from_raw(ptr.cast()) }
    }

    /// Returns the raw pointer to the underlying `struct drm_syncobj`.
    #[inline]
    pub fn as_raw(&self) -> *mut bindings::drm_syncobj {
        self.0.get()
    }

    /// Returns the current payload (`drm_syncobj_fence_get()`), if any.
    ///
    /// This is the binary fence, or for a timeline the chain node of its last point. The
    /// returned reference stays valid when the payload is replaced afterwards.
    pub fn fence(&self) -> Option<ARef<Fence>> {
        // SAFETY: The syncobj is valid.
        let ptr = unsafe { bindings::drm_syncobj_fence_get(self.as_raw()) };
        NonNull::new(ptr).map(|ptr| {
            // SAFETY: `drm_syncobj_fence_get()` returned a valid fence with a reference for the
            // caller.
            unsafe { Fence::from_raw_owned(ptr) }
        })
    }

    /// Returns the fence of the point `point`.
    ///
    /// Point 0 is the binary payload; a point above 0 is a timeline point, resolved as
    /// `dma_fence_chain_find_seqno()` does. The result is
    /// [`SyncPoint::Submitted`] with a fence that signals once the point is reached: for a
    /// timeline point, the chain node that signals once the fences of all points up to `point`
    /// have signalled; for a point that is older than all points still in the chain (their
    /// fences signalled and were garbage collected), the signalled stub fence. A point between
    /// two submitted points resolves to the next submitted one, as in C.
    ///
    /// Returns [`SyncPoint::NotSubmitted`] if the syncobj is empty, or if `point` is above the
    /// last point of the timeline (see [`SyncObj::last_point`]): the point may still be
    /// submitted later, so this must not be treated as signalled.
    ///
    /// Fails with `EINVAL` if the syncobj is used the other way: `point` is 0 and the payload is
    /// a timeline, or `point` is above 0 and the payload is a binary fence (including the
    /// signalled payload of a syncobj created signalled).
    ///
    /// A `struct dma_fence_chain` does not carry the errors of the fences it contains: for a
    /// timeline point, [`Fence::error`] reports no error even if the fence of the point was
    /// signalled with one. The binary payload is the fence itself and carries its error.
    ///
    /// Does not allocate or take locks other than the fences' own.
    pub fn fence_at(&self, point: u64) -> Result<SyncPoint> {
        let Some(head) = self.fence() else {
            return Ok(SyncPoint::NotSubmitted);
        };
        let timeline = head.is_chain();
        if point == 0 {
            return if timeline {
                Err(EINVAL)
            } else {
                Ok(SyncPoint::Submitted(head))
            };
        }
        if !timeline {
            return Err(EINVAL);
        }
        if head.seqno() < point {
            return Ok(SyncPoint::NotSubmitted);
        }
        let mut fence = ARef::into_raw(head).cast::<bindings::dma_fence>().as_ptr();
        // SAFETY: `fence` is a valid chain node, and its reference is handed to
        // `dma_fence_chain_find_seqno()`. On success, that reference was put and `fence` is
        // either NULL or a fence with a reference for us; on failure, `fence` is unchanged.
        let ret = unsafe { bindings::dma_fence_chain_find_seqno(&mut fence, point) };
        let fence = NonNull::new(fence).map(|fence| {
            // SAFETY: A non-NULL `fence` is valid and we own a reference to it (see above).
            unsafe { Fence::from_raw_owned(fence) }
        });
        // The head is a chain node with a seqno of at least `point`, so this does not fail.
        to_result(ret)?;
        // NULL means that the point is older than all points left in the chain.
        Ok(SyncPoint::Submitted(fence.unwrap_or_else(Fence::stub)))
    }

    /// Returns the last point submitted to the timeline, or 0 if the syncobj is not a timeline.
    ///
    /// This is the point of the last chain node, whether or not it has signalled. Points above
    /// it are [`SyncPoint::NotSubmitted`].
    pub fn last_point(&self) -> u64 {
        match self.fence() {
            Some(head) if head.is_chain() => head.seqno(),
            _ => 0,
        }
    }

    /// Replaces the payload with `fence` (`drm_syncobj_replace_fence()`).
    ///
    /// This is the binary signal operation; it also turns a timeline into a binary syncobj.
    /// [`None`] resets the syncobj to empty. The syncobj takes a reference of its own to
    /// `fence` and puts the one to the old payload.
    ///
    /// Takes the syncobj spinlock and does not allocate: may be called in the fence signalling
    /// critical section, but not from interrupt context.
    pub fn replace_fence(&self, fence: Option<&Fence>) {
        let fence = fence.map_or(ptr::null_mut(), Fence::as_raw);
        // SAFETY: The syncobj is valid, and `fence` is NULL or a valid fence, to which the
        // syncobj takes a reference of its own.
        unsafe { bindings::drm_syncobj_replace_fence(self.as_raw(), fence) };
    }

    /// Adds the timeline point `point` with the fence `fence` (`drm_syncobj_add_point()`).
    ///
    /// `chain` is the node that links the point to the previous payload; it is allocated
    /// beforehand with [`FenceChain::new`], so this cannot fail. `fence` cannot be a chain: the
    /// caller checked that beforehand, when it created the [`UnchainedFence`]. The syncobj takes
    /// a reference of its own to `fence`. Point 0 is the binary signal operation: it replaces the
    /// payload like [`SyncObj::replace_fence`] and frees `chain`, as the C drivers do for point 0.
    ///
    /// Points must be added in increasing order. A point that is not above the last one is
    /// recorded by the C code with the last point's number, so lookups of lower points no longer
    /// see it.
    ///
    /// Takes the syncobj spinlock and does not allocate: may be called in the fence signalling
    /// critical section, e.g. after the point of no return of a submission, but not from
    /// interrupt context.
    pub fn add_point(&self, chain: FenceChain, fence: &UnchainedFence, point: u64) {
        if point == 0 {
            self.replace_fence(Some(fence));
            return;
        }
        // SAFETY: The syncobj and `fence` are valid, and `fence` is not a chain (type invariant
        // of `UnchainedFence`). `chain` is an uninitialised `struct dma_fence_chain` allocation,
        // which `drm_syncobj_add_point()` initialises and whose ownership passes to the chain's
        // reference count; the syncobj takes a reference of its own to `fence`.
        unsafe {
            bindings::drm_syncobj_add_point(
                self.as_raw(),
                chain.into_raw().as_ptr(),
                fence.as_raw(),
                point,
            )
        };
    }
}

/// The result of looking up a point of a [`SyncObj`] with [`SyncObj::fence_at`].
pub enum SyncPoint {
    /// The point has been submitted: the fence signals once the point is reached.
    ///
    /// The fence may already be signalled; for a point that was garbage collected from a
    /// timeline, it is the signalled stub fence.
    Submitted(ARef<Fence>),
    /// The point has not been submitted yet (wait-before-signal).
    ///
    /// A binary syncobj without a payload, or a timeline point above the last one. This is not
    /// a signalled point: the caller has to wait for its submission or reject the wait.
    NotSubmitted,
}

#[kunit_tests(rust_drm_syncobj)]
mod tests {
    use super::*;
    use crate::{
        dma_fence::{
            DriverFence,
            FenceContext,
            SignallingGuard, //
        },
        time::Delta, //
    };

    const DRIVER: &CStr = c"rust_drm_syncobj_test";
    const TIMELINE: &CStr = c"test";

    /// Returns the fence of a submitted point, `EINVAL` for an unsubmitted one.
    fn submitted(syncobj: &SyncObj, point: u64) -> Result<ARef<Fence>> {
        match syncobj.fence_at(point)? {
            SyncPoint::Submitted(fence) => Ok(fence),
            SyncPoint::NotSubmitted => Err(EINVAL),
        }
    }

    fn not_submitted(syncobj: &SyncObj, point: u64) -> bool {
        matches!(syncobj.fence_at(point), Ok(SyncPoint::NotSubmitted))
    }

    /// Adds `point` to `syncobj` with a new fence, and returns its producer.
    ///
    /// Each point gets a fence context of its own, as if each came from another ring, so that
    /// the tests can signal points out of order without breaking the fence order of a context.
    fn add(syncobj: &SyncObj, point: u64) -> Result<DriverFence> {
        let df = FenceContext::new(DRIVER, TIMELINE).new_fence((), GFP_KERNEL)?;
        syncobj.add_point(FenceChain::new(GFP_KERNEL)?, &df.unchained(), point);
        Ok(df)
    }

    #[test]
    fn binary_replace() -> Result {
        let ctx = FenceContext::new(DRIVER, TIMELINE);
        let syncobj = SyncObj::new(false, None)?;

        // An empty syncobj accepts both uses, and nothing is submitted.
        assert!(syncobj.fence().is_none());
        assert!(not_submitted(&syncobj, 0));
        assert!(not_submitted(&syncobj, 1));
        assert!(not_submitted(&syncobj, u64::MAX));
        assert_eq!(syncobj.last_point(), 0);

        let df = ctx.new_fence((), GFP_KERNEL)?;
        syncobj.replace_fence(Some(df.fence()));
        let fence = submitted(&syncobj, 0)?;
        assert!(ptr::eq(&*fence, &**df.fence()));
        assert!(syncobj.fence().is_some_and(|f| ptr::eq(&*f, &*fence)));
        assert_eq!(syncobj.last_point(), 0);
        assert!(!fence.is_signaled());

        df.signal();
        assert!(fence.is_signaled());
        assert!(submitted(&syncobj, 0)?.is_signaled());
        assert!(fence.error().is_none());

        // Resetting empties the syncobj; the old payload stays valid.
        syncobj.replace_fence(None);
        assert!(not_submitted(&syncobj, 0));
        assert!(fence.is_signaled());
        Ok(())
    }

    #[test]
    fn created_signaled() -> Result {
        let syncobj = SyncObj::new(true, None)?;
        let fence = submitted(&syncobj, 0)?;
        assert!(fence.is_signaled());
        assert!(fence.error().is_none());
        assert_eq!(fence.wait(false, Some(Delta::ZERO)), Ok(()));
        assert_eq!(syncobj.last_point(), 0);

        // Created with a fence.
        let ctx = FenceContext::new(DRIVER, TIMELINE);
        let df = ctx.new_fence((), GFP_KERNEL)?;
        let syncobj = SyncObj::new(false, Some(df.fence()))?;
        let fence = submitted(&syncobj, 0)?;
        assert!(ptr::eq(&*fence, &**df.fence()));
        assert!(!fence.is_signaled());
        df.signal();
        assert!(fence.is_signaled());
        Ok(())
    }

    #[test]
    fn timeline_signals_in_order() -> Result {
        let syncobj = SyncObj::new(false, None)?;
        let f1 = add(&syncobj, 1)?;
        let f2 = add(&syncobj, 2)?;
        let f3 = add(&syncobj, 3)?;
        assert_eq!(syncobj.last_point(), 3);
        assert!(not_submitted(&syncobj, 4));
        assert!(not_submitted(&syncobj, u64::MAX));

        let p1 = submitted(&syncobj, 1)?;
        let p2 = submitted(&syncobj, 2)?;
        let p3 = submitted(&syncobj, 3)?;
        assert_eq!((p1.seqno(), p2.seqno(), p3.seqno()), (1, 2, 3));
        assert!(!p1.is_signaled());
        assert!(!p2.is_signaled());
        assert!(!p3.is_signaled());

        // Out of order: point 2 waits for fence 1 as well.
        f2.signal();
        assert!(!p1.is_signaled());
        assert!(!p2.is_signaled());
        assert!(!submitted(&syncobj, 2)?.is_signaled());
        assert_eq!(p2.wait(false, Some(Delta::ZERO)), Err(ETIME));

        f3.signal();
        assert!(!p3.is_signaled());

        f1.signal();
        assert!(p1.is_signaled());
        assert!(p2.is_signaled());
        assert!(p3.is_signaled());
        assert_eq!(p2.wait(false, Some(Delta::from_secs(10))), Ok(()));

        // Signalled points stay submitted, and later points are still not submitted.
        for point in 1..=3 {
            assert!(submitted(&syncobj, point)?.is_signaled());
        }
        assert!(not_submitted(&syncobj, 4));
        assert_eq!(syncobj.last_point(), 3);

        // The timeline goes on.
        let f4 = add(&syncobj, 4)?;
        let p4 = submitted(&syncobj, 4)?;
        assert!(!p4.is_signaled());
        assert!(submitted(&syncobj, 3)?.is_signaled());
        f4.signal();
        assert!(p4.is_signaled());
        Ok(())
    }

    #[test]
    fn timeline_gaps_and_u64_points() -> Result {
        let syncobj = SyncObj::new(false, None)?;
        let high = 1u64 << 40;
        let f2 = add(&syncobj, 2)?;
        let f5 = add(&syncobj, 5)?;
        let fh = add(&syncobj, high)?;
        assert_eq!(syncobj.last_point(), high);

        // Point 1 is reached with point 2, points 3 and 4 with point 5.
        assert_eq!(submitted(&syncobj, 1)?.seqno(), 2);
        assert_eq!(submitted(&syncobj, 3)?.seqno(), 5);
        assert_eq!(submitted(&syncobj, 4)?.seqno(), 5);
        // Points above `u32::MAX` are not truncated.
        assert_eq!(submitted(&syncobj, high)?.seqno(), high);
        assert_eq!(submitted(&syncobj, 6)?.seqno(), high);
        assert!(not_submitted(&syncobj, high + 1));

        f2.signal();
        f5.signal();
        assert!(submitted(&syncobj, 4)?.is_signaled());
        assert!(!submitted(&syncobj, high)?.is_signaled());
        fh.signal();
        assert!(submitted(&syncobj, high)?.is_signaled());
        Ok(())
    }

    #[test]
    fn mixed_use_rejected() -> Result {
        let ctx = FenceContext::new(DRIVER, TIMELINE);

        // Binary in use: timeline points are rejected.
        let binary = SyncObj::new(false, None)?;
        let df = ctx.new_fence((), GFP_KERNEL)?;
        binary.replace_fence(Some(df.fence()));
        assert_eq!(binary.fence_at(1).err(), Some(EINVAL));
        assert_eq!(binary.fence_at(u64::MAX).err(), Some(EINVAL));
        df.signal();
        assert_eq!(binary.fence_at(1).err(), Some(EINVAL));
        assert_eq!(SyncObj::new(true, None)?.fence_at(1).err(), Some(EINVAL));

        // Timeline in use: point 0 is rejected.
        let timeline = SyncObj::new(false, None)?;
        let df = add(&timeline, 1)?;
        assert_eq!(timeline.fence_at(0).err(), Some(EINVAL));
        df.signal();
        assert_eq!(timeline.fence_at(0).err(), Some(EINVAL));
        assert!(submitted(&timeline, 1)?.is_signaled());

        // Replacing the payload turns the timeline into a binary syncobj.
        timeline.replace_fence(Some(&Fence::stub()));
        assert!(submitted(&timeline, 0)?.is_signaled());
        assert_eq!(timeline.fence_at(1).err(), Some(EINVAL));
        assert_eq!(timeline.last_point(), 0);

        // Point 0 of `add_point()` is the binary signal operation.
        let df = ctx.new_fence((), GFP_KERNEL)?;
        timeline.add_point(FenceChain::new(GFP_KERNEL)?, &df.unchained(), 0);
        let fence = submitted(&timeline, 0)?;
        assert!(ptr::eq(&*fence, &**df.fence()));
        assert_eq!(timeline.last_point(), 0);
        df.signal();
        Ok(())
    }

    #[test]
    fn error_propagation() -> Result {
        let ctx = FenceContext::new(DRIVER, TIMELINE);

        // The binary payload is the fence itself.
        let binary = SyncObj::new(false, None)?;
        let df = ctx.new_fence((), GFP_KERNEL)?;
        binary.replace_fence(Some(df.fence()));
        let fence = submitted(&binary, 0)?;
        df.signal_with_error(EIO);
        assert!(fence.is_signaled());
        assert_eq!(fence.error(), Some(EIO));
        assert_eq!(submitted(&binary, 0)?.error(), Some(EIO));

        // A producer dropped unsignalled cancels the point.
        let df = ctx.new_fence((), GFP_KERNEL)?;
        binary.replace_fence(Some(df.fence()));
        drop(df);
        assert_eq!(submitted(&binary, 0)?.error(), Some(ECANCELED));

        // A timeline point is reached when its fence signals with an error, but the chain node
        // does not carry the error (see `SyncObj::fence_at`).
        let timeline = SyncObj::new(false, None)?;
        let df = add(&timeline, 1)?;
        let point = submitted(&timeline, 1)?;
        df.signal_with_error(EIO);
        assert!(point.is_signaled());
        assert!(point.error().is_none());
        Ok(())
    }

    #[test]
    fn fence_outlives_syncobj() -> Result {
        let syncobj = SyncObj::new(false, None)?;
        let df1 = add(&syncobj, 1)?;
        let df2 = add(&syncobj, 2)?;

        // Another reference keeps the syncobj alive.
        let other = syncobj.clone();
        drop(syncobj);
        let point = submitted(&other, 2)?;
        let head = other.fence();
        assert!(head.as_ref().is_some_and(|h| ptr::eq(&**h, &*point)));

        // The fences outlive the last reference to the syncobj and still signal.
        drop(other);
        assert!(!point.is_signaled());
        df2.signal();
        assert!(!point.is_signaled());
        df1.signal();
        assert!(point.is_signaled());
        assert_eq!(point.wait(false, Some(Delta::from_secs(10))), Ok(()));
        drop(head);
        Ok(())
    }

    #[test]
    fn raw_round_trip() -> Result {
        let syncobj = SyncObj::new(true, None)?;
        let raw = ARef::into_raw(syncobj.clone());
        // SAFETY: `raw` carries the reference taken by `clone()` above.
        let owned = unsafe { SyncObj::from_raw_owned(raw.cast()) };
        // SAFETY: `owned` keeps the syncobj alive while `borrowed` is used.
        let borrowed = unsafe { SyncObj::from_raw(owned.as_raw()) };
        assert!(ptr::eq(borrowed, &*syncobj));
        assert!(submitted(borrowed, 0)?.is_signaled());
        drop(owned);
        assert!(submitted(&syncobj, 0)?.is_signaled());
        Ok(())
    }

    #[test]
    fn signalling_context() -> Result {
        let ctx = FenceContext::new(DRIVER, TIMELINE);
        let syncobj = SyncObj::new(false, None)?;
        let binary = SyncObj::new(false, None)?;
        let df1 = ctx.new_fence((), GFP_KERNEL)?;
        let df2 = ctx.new_fence((), GFP_KERNEL)?;
        let chain1 = FenceChain::new(GFP_KERNEL)?;
        let chain2 = FenceChain::new(GFP_KERNEL)?;

        // Past the point of no return: with lockdep, any allocation or fence wait in here is
        // reported.
        let guard = SignallingGuard::new();
        syncobj.add_point(chain1, &df1.unchained(), 1);
        syncobj.add_point(chain2, &df2.unchained(), 2);
        binary.replace_fence(Some(df1.fence()));
        assert!(matches!(syncobj.fence_at(2)?, SyncPoint::Submitted(_)));
        assert!(matches!(syncobj.fence_at(3)?, SyncPoint::NotSubmitted));
        df1.signal();
        df2.signal();
        assert!(submitted(&syncobj, 1)?.is_signaled());
        drop(guard);

        assert!(submitted(&syncobj, 2)?.is_signaled());
        assert!(submitted(&binary, 0)?.is_signaled());
        Ok(())
    }

    #[test]
    fn thread_safety() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<SyncObj>();
        send_sync::<ARef<SyncObj>>();
        send_sync::<SyncPoint>();
    }
}
