// SPDX-License-Identifier: MIT
//! DRM syncobjs, through the `drm` crate's `control::Device` trait.

use crate::device::Device;
use crate::error::Result;
use crate::graph::SyncPoint;
use crate::ioctl::retry_io;
use core::time::Duration;
use drm::control::{syncobj, Device as _};
use rustix::fd::BorrowedFd;

/// `CLOCK_MONOTONIC` in nanoseconds: the clock of the timestamps of
/// [`Device::graph_info`] and of syncobj wait deadlines.
pub fn now_ns() -> u64 {
    let ts = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    (ts.tv_sec as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add(ts.tv_nsec as u64)
}

/// The absolute `CLOCK_MONOTONIC` deadline `timeout` from now, as the
/// syncobj wait ioctls take it (saturated to `i64::MAX`: wait forever).
fn deadline(timeout: Duration) -> i64 {
    let ns = u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX);
    i64::try_from(now_ns().saturating_add(ns)).unwrap_or(i64::MAX)
}

/// A DRM syncobj of the device, destroyed on drop.
///
/// A syncobj is used as a binary one (point 0: its fence is replaced on
/// signal) or as a timeline (points above 0); [`Syncobj::binary`] and
/// [`Syncobj::at`] make the [`SyncPoint`]s that graphs wait for and signal.
/// Made by [`Device::create_syncobj`]. The kernel-side ioctls are those of
/// the `drm` crate, which [`Device`] implements.
#[derive(Debug)]
pub struct Syncobj<'d> {
    dev: &'d Device,
    handle: syncobj::Handle,
}

impl<'d> Syncobj<'d> {
    pub(crate) fn new(dev: &'d Device, handle: syncobj::Handle) -> Self {
        Self { dev, handle }
    }

    /// The handle, as the `drm` crate's type.
    pub fn handle(&self) -> syncobj::Handle {
        self.handle
    }

    /// The raw handle.
    pub fn raw(&self) -> u32 {
        self.handle.into()
    }

    /// The syncobj as a binary one (point 0).
    pub fn binary(&self) -> SyncPoint {
        SyncPoint::binary(self.raw())
    }

    /// Point `point` of the syncobj as a timeline (0: binary use).
    pub fn at(&self, point: u64) -> SyncPoint {
        SyncPoint::timeline(self.raw(), point)
    }

    /// Waits until `point` (0: the binary fence) has signalled, at most
    /// `timeout` (`Duration::MAX`: no limit). Waits for the point to be
    /// submitted first (`WAIT_FOR_SUBMIT`), so it may be called before the
    /// submission that signals it. Interrupted waits are restarted, unless
    /// the check of [`set_interrupt_check`](crate::set_interrupt_check) ends
    /// them with `EINTR`.
    ///
    /// A binary point carries the error of what signalled it, a timeline
    /// point does not; either way the wait itself succeeds: read errors
    /// with [`Device::graph_info`].
    ///
    /// Errors (op `"SYNCOBJ_WAIT"` for point 0, `"SYNCOBJ_TIMELINE_WAIT"`
    /// otherwise): `ETIME` when the timeout expired ([`Error::is_timeout`](crate::Error::is_timeout));
    /// `ENOENT` for a destroyed syncobj; `EINVAL`.
    pub fn wait(&self, point: u64, timeout: Duration) -> Result<()> {
        let deadline = deadline(timeout);
        let h = [self.handle];
        if point == 0 {
            retry_io("SYNCOBJ_WAIT", || {
                self.dev.syncobj_wait(&h, deadline, true, true)
            })?;
        } else {
            retry_io("SYNCOBJ_TIMELINE_WAIT", || {
                self.dev
                    .syncobj_timeline_wait(&h, &[point], deadline, true, true, false)
            })?;
        }
        Ok(())
    }

    /// The last signalled timeline point (`DRM_IOCTL_SYNCOBJ_QUERY`).
    ///
    /// Errors (op `"SYNCOBJ_QUERY"`): `ENOENT`; `EINVAL`.
    pub fn query(&self) -> Result<u64> {
        self.query_flags(false)
    }

    /// The last submitted timeline point, signalled or not
    /// (`DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED`).
    ///
    /// Errors (op `"SYNCOBJ_QUERY"`): `ENOENT`; `EINVAL`.
    pub fn last_submitted(&self) -> Result<u64> {
        self.query_flags(true)
    }

    fn query_flags(&self, last_submitted: bool) -> Result<u64> {
        let mut points = [0u64];
        retry_io("SYNCOBJ_QUERY", || {
            self.dev
                .syncobj_timeline_query(&[self.handle], &mut points, last_submitted)
        })?;
        Ok(points[0])
    }

    /// Signals `point` from the CPU: the binary fence for 0, else a new
    /// timeline point (which must be above the last one).
    ///
    /// Errors (op `"SYNCOBJ_SIGNAL"` or `"SYNCOBJ_TIMELINE_SIGNAL"`):
    /// `ENOENT`; `EINVAL`.
    pub fn signal(&self, point: u64) -> Result<()> {
        let h = [self.handle];
        if point == 0 {
            retry_io("SYNCOBJ_SIGNAL", || self.dev.syncobj_signal(&h))
        } else {
            retry_io("SYNCOBJ_TIMELINE_SIGNAL", || {
                self.dev.syncobj_timeline_signal(&h, &[point])
            })
        }
    }

    /// Has the kernel signal `eventfd` when `point` (0: the binary fence)
    /// has signalled (`DRM_IOCTL_SYNCOBJ_EVENTFD`), so that an event loop
    /// (epoll, Python's `asyncio`, tokio) waits for it beside other files.
    /// A point that has signalled already signals `eventfd` at once; one
    /// not submitted yet is waited for. The registration is used once and
    /// holds no reference on `eventfd`'s file after it fired.
    ///
    /// Errors (op `"SYNCOBJ_EVENTFD"`): `ENOENT` for a destroyed syncobj;
    /// `EINVAL` for a file that is not an eventfd; `ENOMEM`.
    pub fn eventfd(&self, point: u64, eventfd: BorrowedFd<'_>) -> Result<()> {
        retry_io("SYNCOBJ_EVENTFD", || {
            self.dev.syncobj_eventfd(self.handle, point, eventfd, false)
        })
    }

    /// Removes the syncobj's fence (`DRM_IOCTL_SYNCOBJ_RESET`).
    ///
    /// Errors (op `"SYNCOBJ_RESET"`): `ENOENT`; `EINVAL`.
    pub fn reset(&self) -> Result<()> {
        retry_io("SYNCOBJ_RESET", || self.dev.syncobj_reset(&[self.handle]))
    }
}

impl Drop for Syncobj<'_> {
    fn drop(&mut self) {
        // Errors cannot be reported from drop; the handle goes away with
        // the file in any case.
        let _ = self.dev.destroy_syncobj(self.handle);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deadlines() {
        let now = now_ns();
        assert!(now > 0);
        let d = deadline(Duration::from_secs(1));
        assert!(d as u64 >= now + 1_000_000_000);
        assert_eq!(deadline(Duration::MAX), i64::MAX);
    }
}
