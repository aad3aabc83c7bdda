// SPDX-License-Identifier: GPL-2.0
//! Buffer objects and their CPU mappings.

use crate::device::Device;
use crate::error::{Error, Result};
use crate::graph::BufRange;
use crate::ioctl;
use crate::uapi::drm_tas_bo_mmap_offset;
use core::ptr::NonNull;
use core::sync::atomic::{AtomicBool, Ordering};
use drm::control::Device as _;
use rustix::fd::AsFd;
use rustix::io::Errno;
use rustix::mm::{mmap, munmap, MapFlags, ProtFlags};

/// A buffer object: a zeroed shmem buffer of the device, which nodes read
/// and write through [`BufRange`]s. Its GEM handle is closed on drop
/// (`DRM_IOCTL_GEM_CLOSE`); graphs in flight keep the memory alive.
///
/// Made by [`Device::create_bo`].
#[derive(Debug)]
pub struct Bo<'d> {
    dev: &'d Device,
    handle: u32,
    size: u64,
    mapped: AtomicBool,
}

impl<'d> Bo<'d> {
    pub(crate) fn new(dev: &'d Device, handle: u32, size: u64) -> Self {
        Self {
            dev,
            handle,
            size,
            mapped: AtomicBool::new(false),
        }
    }

    /// The GEM handle, for [`BufRange::new`] and the DRM ioctls.
    pub fn handle(&self) -> u32 {
        self.handle
    }

    /// The GEM handle as the `drm` crate's type, for instance to export the
    /// buffer as a dma-buf with `drm::control::Device::buffer_to_prime_fd`.
    pub fn gem_handle(&self) -> drm::buffer::Handle {
        drm::control::from_u32(self.handle).expect("GEM handles are not zero")
    }

    /// The size that was asked for (the kernel rounds the buffer up to
    /// whole pages).
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The byte range `offset..offset + size` of the buffer. Not checked
    /// here: the kernel checks ranges at submission.
    pub fn range(&self, offset: u64, size: u64) -> BufRange {
        BufRange::new(self.handle, offset, size)
    }

    /// The whole buffer, `0..size()`.
    pub fn whole(&self) -> BufRange {
        self.range(0, self.size)
    }

    /// The fake offset to mmap() the buffer at on the device's file
    /// descriptor (`DRM_IOCTL_TAS_BO_MMAP_OFFSET`).
    ///
    /// Errors (op `"BO_MMAP_OFFSET"`): `ENOENT` for an unknown handle;
    /// `EINVAL` for non-zero padding; `ENOMEM` when no offset can be
    /// allocated; `EFAULT`.
    pub fn mmap_offset(&self) -> Result<u64> {
        let mut args = drm_tas_bo_mmap_offset {
            handle: self.handle,
            ..Default::default()
        };
        ioctl::bo_mmap_offset(self.dev.as_fd(), &mut args)?;
        Ok(args.offset)
    }

    /// Maps the buffer into the process, read-write and shared, until the
    /// returned [`Mapping`] is dropped.
    ///
    /// A buffer has at most one mapping at a time through this type, so
    /// that `&mut Mapping` is the only writer of the buffer in the process.
    ///
    /// Errors: `EBUSY` (op `"Bo::map"`) when the buffer is already mapped;
    /// those of [`Bo::mmap_offset`]; `mmap()`'s (op `"mmap"`), such as
    /// `ENOMEM`.
    pub fn map(&self) -> Result<Mapping<'_>> {
        let len = usize::try_from(self.size).map_err(|_| Error::new("mmap", Errno::NOMEM))?;
        if self.mapped.swap(true, Ordering::Acquire) {
            return Err(Error::new("Bo::map", Errno::BUSY));
        }
        let map = || -> Result<NonNull<u8>> {
            let offset = self.mmap_offset()?;
            // SAFETY: a new shared mapping at an address the kernel picks
            // (no MAP_FIXED) cannot overlap memory that Rust knows about.
            // `len` is the buffer's size (not 0: BO_CREATE rejects 0).
            let ptr = unsafe {
                mmap(
                    core::ptr::null_mut(),
                    len,
                    ProtFlags::READ | ProtFlags::WRITE,
                    MapFlags::SHARED,
                    self.dev.as_fd(),
                    offset,
                )
            }
            .map_err(|errno| Error::new("mmap", errno))?;
            NonNull::new(ptr.cast::<u8>()).ok_or(Error::new("mmap", Errno::NOMEM))
        };
        match map() {
            Ok(ptr) => Ok(Mapping {
                ptr,
                len,
                mapped: &self.mapped,
            }),
            Err(e) => {
                self.mapped.store(false, Ordering::Release);
                Err(e)
            }
        }
    }
}

impl Drop for Bo<'_> {
    fn drop(&mut self) {
        // Errors cannot be reported from drop; the handle is the kernel's
        // and goes away with the file in any case.
        let _ = self.dev.close_buffer(self.gem_handle());
    }
}

/// A CPU mapping of a [`Bo`], unmapped on drop.
///
/// The bytes are reachable only through copies ([`read`](Self::read),
/// [`read_u32`](Self::read_u32), and their writing counterparts with
/// `&mut self`), made with volatile accesses; the mapping hands out no
/// `&[u8]`, whose guarantees a writer outside the process's Rust code (the
/// device, another process) would break.
///
/// **The device writes the buffer too.** While a graph that writes the
/// buffer is queued or running, its results may land at any time, which a
/// copy made across that time would not see consistently: write the
/// inputs before submitting, and read the results after waiting for the
/// graph (a syncobj point it signals, see [`Syncobj::wait`](crate::Syncobj::wait)).
/// The same holds for other mappings of the buffer in other processes
/// (exported dma-bufs).
#[derive(Debug)]
pub struct Mapping<'b> {
    ptr: NonNull<u8>,
    len: usize,
    mapped: &'b AtomicBool,
}

// SAFETY: the mapping is plain shared memory owned by this value, like a
// `Box<[u8]>`: moving it to another thread is fine, and `&Mapping` only
// allows volatile reads of it, which any thread may do.
unsafe impl Send for Mapping<'_> {}
// SAFETY: see `Send`.
unsafe impl Sync for Mapping<'_> {}

impl Mapping<'_> {
    /// Length of the mapping in bytes (the buffer's size).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the mapping is empty (never: buffers are not empty).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Checks that `len` bytes at `offset` are within the mapping.
    fn check(&self, offset: usize, len: usize) {
        let end = offset.checked_add(len);
        assert!(
            end.is_some_and(|end| end <= self.len),
            "range {offset}+{len} beyond a mapping of {} bytes",
            self.len
        );
    }

    /// Copies the bytes at `offset` into `buf`. Results are meaningful only
    /// after the graphs that write them have completed.
    ///
    /// The mapping hands out no Rust references into the buffer, only
    /// copies made with volatile accesses: a graph that is still running
    /// (or another process that shares the buffer) may write it at any
    /// time, which would break the guarantees of a `&[u8]`.
    ///
    /// # Panics
    ///
    /// If the range is beyond the mapping.
    pub fn read(&self, offset: usize, buf: &mut [u8]) {
        self.check(offset, buf.len());
        for (i, b) in buf.iter_mut().enumerate() {
            // SAFETY: `offset + i` is within the live mapping (checked
            // above), which is readable; a volatile read of a byte is valid
            // whatever else writes the memory.
            *b = unsafe { self.ptr.as_ptr().add(offset + i).read_volatile() };
        }
    }

    /// Copies `data` to the bytes at `offset`. Write inputs before
    /// submitting the graphs that read them.
    ///
    /// # Panics
    ///
    /// If the range is beyond the mapping.
    pub fn write(&mut self, offset: usize, data: &[u8]) {
        self.check(offset, data.len());
        for (i, b) in data.iter().enumerate() {
            // SAFETY: `offset + i` is within the live mapping (checked
            // above), which is writable.
            unsafe { self.ptr.as_ptr().add(offset + i).write_volatile(*b) };
        }
    }

    /// The little-endian 32-bit word at word index `index`.
    ///
    /// # Panics
    ///
    /// If the word is beyond the mapping.
    pub fn read_u32(&self, index: usize) -> u32 {
        let offset = index.checked_mul(4).expect("word index overflows");
        self.check(offset, 4);
        // SAFETY: the word is within the live, readable mapping (checked
        // above), and aligned: the mapping starts on a page and `offset` is
        // a multiple of 4.
        let v = unsafe { self.ptr.as_ptr().add(offset).cast::<u32>().read_volatile() };
        u32::from_le(v)
    }

    /// Stores `value` little-endian at word index `index`.
    ///
    /// # Panics
    ///
    /// If the word is beyond the mapping.
    pub fn write_u32(&mut self, index: usize, value: u32) {
        let offset = index.checked_mul(4).expect("word index overflows");
        self.check(offset, 4);
        // SAFETY: as in `read_u32`, and the mapping is writable.
        unsafe {
            self.ptr
                .as_ptr()
                .add(offset)
                .cast::<u32>()
                .write_volatile(value.to_le())
        };
    }

    /// The little-endian 32-bit words of the mapping (a trailing partial
    /// word is left out), read one at a time.
    pub fn u32s(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.len / 4).map(|i| self.read_u32(i))
    }
}

impl Drop for Mapping<'_> {
    fn drop(&mut self) {
        // SAFETY: `ptr`/`len` are the mapping made by `Bo::map`, and no
        // reference into it exists (the mapping hands out none).
        let _ = unsafe { munmap(self.ptr.as_ptr().cast(), self.len) };
        self.mapped.store(false, Ordering::Release);
    }
}
