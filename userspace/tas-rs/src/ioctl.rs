// SPDX-License-Identifier: MIT
//! The driver-specific ioctls, through `rustix::ioctl`, and the retry loop
//! that libdrm's `drmIoctl()` has.

use crate::error::{Error, Result};
use crate::uapi::*;
use rustix::fd::BorrowedFd;
use rustix::io::Errno;
use rustix::ioctl::{ioctl, Setter, Updater};
use std::sync::RwLock;

/// The function that [`retry`] asks whether an interrupted call is to end
/// with `EINTR` (see [`set_interrupt_check`]).
static INTERRUPT_CHECK: RwLock<Option<fn() -> bool>> = RwLock::new(None);

/// Sets the function that decides, each time a signal interrupts a call of
/// this crate, whether the call ends with `EINTR` (`true`) or is restarted
/// (`false`); `None`, the default, restarts every call as libdrm's
/// `drmIoctl()` does.
///
/// This is for a runtime that handles signals itself between system calls:
/// Python's, for one, runs its signal handlers when a system call returns
/// `EINTR` and retries the call only if no handler raised (PEP 475), so
/// that Ctrl-C ends a blocked wait. The check runs on the interrupted
/// thread, with no lock of this crate held. Every call may block on a
/// signal this way: submissions and launches waiting for room, syncobj
/// waits.
///
/// ```
/// fn interrupted() -> bool {
///     true
/// }
/// tas::set_interrupt_check(Some(interrupted));
/// tas::set_interrupt_check(None);
/// ```
pub fn set_interrupt_check(check: Option<fn() -> bool>) {
    // A poisoned lock still holds a valid `Option<fn>`.
    *INTERRUPT_CHECK.write().unwrap_or_else(|e| e.into_inner()) = check;
}

/// Whether an interrupted call ends (see [`set_interrupt_check`]).
fn interrupted() -> bool {
    let check = *INTERRUPT_CHECK.read().unwrap_or_else(|e| e.into_inner());
    check.is_some_and(|f| f())
}

/// Runs `f` until it fails with something else than `EINTR` or `EAGAIN`,
/// as `drmIoctl()` does, or with `EINTR` when the function set with
/// [`set_interrupt_check`] says so; maps the errno to an [`Error`] of `op`.
pub(crate) fn retry<T>(
    op: &'static str,
    mut f: impl FnMut() -> core::result::Result<T, Errno>,
) -> Result<T> {
    loop {
        match f() {
            Err(Errno::INTR) if !interrupted() => continue,
            Err(Errno::AGAIN) => continue,
            r => return r.map_err(|errno| Error::new(op, errno)),
        }
    }
}

/// As [`retry`], for the `std::io::Result`s of the `drm` crate.
pub(crate) fn retry_io<T>(
    op: &'static str,
    mut f: impl FnMut() -> std::io::Result<T>,
) -> Result<T> {
    retry(op, || {
        f().map_err(|e| Errno::from_io_error(&e).unwrap_or(Errno::IO))
    })
}

/// Defines `fn $name(fd, &mut $ty) -> Result<()>` for one `DRM_IOWR` ioctl;
/// `unsafe fn` for the ioctls whose argument points to user arrays; and
/// `fn $name(fd, &$ty) -> Result<()>` for a `DRM_IOW` one (`write`), whose
/// argument the kernel only reads.
macro_rules! tas_ioctl {
    (safe $name:ident, $opcode:ident, $ty:ty, $op:literal) => {
        pub(crate) fn $name(fd: BorrowedFd<'_>, arg: &mut $ty) -> Result<()> {
            retry($op, || {
                // SAFETY: `$opcode` is `DRM_IOWR(DRM_COMMAND_BASE + nr, $ty)`
                // as in the header (checked by tests/layout.rs), so the
                // kernel reads and writes exactly one `$ty` at `arg`, a
                // valid and exclusively borrowed `$ty` that holds no
                // pointer.
                unsafe { ioctl(fd, Updater::<{ $opcode }, $ty>::new(arg)) }
            })
        }
    };
    (unsafe $name:ident, $opcode:ident, $ty:ty, $op:literal) => {
        /// # Safety
        ///
        /// Every `drm_tas_array` in `arg` must be empty (all zero) or point
        /// to `count` elements `stride` bytes apart that stay alive for the
        /// call; the kernel writes the elements of the arrays that the
        /// header marks `[out]`, so those must be exclusively borrowed.
        pub(crate) unsafe fn $name(fd: BorrowedFd<'_>, arg: &mut $ty) -> Result<()> {
            retry($op, || {
                // SAFETY: `$opcode` is `DRM_IOWR(DRM_COMMAND_BASE + nr, $ty)`
                // as in the header (checked by tests/layout.rs), so the
                // kernel reads and writes exactly one `$ty` at `arg`, a
                // valid and exclusively borrowed `$ty`; the caller
                // guarantees that the arrays it points to are valid.
                unsafe { ioctl(fd, Updater::<{ $opcode }, $ty>::new(arg)) }
            })
        }
    };
    (write $name:ident, $opcode:ident, $ty:ty, $op:literal) => {
        pub(crate) fn $name(fd: BorrowedFd<'_>, arg: &$ty) -> Result<()> {
            retry($op, || {
                // SAFETY: `$opcode` is `DRM_IOW(DRM_COMMAND_BASE + nr, $ty)`
                // as in the header (checked by tests/layout.rs), so the
                // kernel reads exactly one `$ty` from the copy that the
                // `Setter` holds, a `$ty` that holds no pointer, and writes
                // nothing back.
                unsafe { ioctl(fd, Setter::<{ $opcode }, $ty>::new(*arg)) }
            })
        }
    };
}

tas_ioctl!(safe get_param, DRM_IOCTL_TAS_GET_PARAM, drm_tas_get_param, "GET_PARAM");
tas_ioctl!(safe bo_create, DRM_IOCTL_TAS_BO_CREATE, drm_tas_bo_create, "BO_CREATE");
tas_ioctl!(safe bo_mmap_offset, DRM_IOCTL_TAS_BO_MMAP_OFFSET, drm_tas_bo_mmap_offset, "BO_MMAP_OFFSET");
tas_ioctl!(unsafe submit_graph, DRM_IOCTL_TAS_SUBMIT_GRAPH, drm_tas_submit_graph, "SUBMIT_GRAPH");
tas_ioctl!(unsafe graph_info, DRM_IOCTL_TAS_GRAPH_INFO, drm_tas_graph_info, "GRAPH_INFO");
tas_ioctl!(unsafe template_create, DRM_IOCTL_TAS_TEMPLATE_CREATE, drm_tas_template_create, "TEMPLATE_CREATE");
tas_ioctl!(unsafe template_launch, DRM_IOCTL_TAS_TEMPLATE_LAUNCH, drm_tas_template_launch, "TEMPLATE_LAUNCH");
tas_ioctl!(safe template_destroy, DRM_IOCTL_TAS_TEMPLATE_DESTROY, drm_tas_template_destroy, "TEMPLATE_DESTROY");
tas_ioctl!(write host_done, DRM_IOCTL_TAS_HOST_DONE, drm_tas_host_done, "HOST_DONE");
