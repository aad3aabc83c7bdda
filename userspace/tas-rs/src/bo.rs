// SPDX-License-Identifier: MIT
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
    /// that `&mut Mapping` is the only writer of the buffer in the process
    /// (two mappings could be written by two threads at once, a data race
    /// that no volatile access makes defined). To read from several threads
    /// at once, share one `&Mapping` (it is `Sync`), e.g. with
    /// [`std::thread::scope`]; to write from several, split the work or
    /// put the mapping in a `Mutex`. Mapping again after the mapping is
    /// dropped is fine.
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
/// [`read_u32`](Self::read_u32), [`read_u32s`](Self::read_u32s),
/// [`read_f32s`](Self::read_f32s), and their writing counterparts with
/// `&mut self`), made with volatile accesses; the mapping hands out no
/// `&[u8]`, whose guarantees a writer outside the process's Rust code (the
/// device, another process) would break.
///
/// **Bulk copies are volatile too.** The memory is shared with the device
/// and with other processes, which write it without synchronising with
/// this process: it does not behave like the "normal" memory of a Rust
/// allocation, and the only accesses Rust defines on such memory are
/// volatile ones. A plain `ptr::copy_nonoverlapping` (memcpy) would be a
/// data race, and undefined behaviour, whenever a graph wrote the buffer
/// during the copy, which safe code cannot rule out. So bulk copies are
/// loops of volatile loads and stores of the widest aligned unit: 8 bytes
/// for [`read`](Self::read) and [`write`](Self::write), the element for the
/// typed slices. They run at memory speed in practice; what they lose is
/// only vectorisation.
///
/// **One mapping per buffer** in the process ([`Bo::map`] fails with
/// `EBUSY` while one exists), so that `&mut Mapping` is the process's only
/// writer. Reads from several threads share one `&Mapping`.
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

    /// The address of byte `offset` of the mapping, which the caller has
    /// checked to be within it.
    fn at(&self, offset: usize) -> *mut u8 {
        // Not `add`: the mapping is not a Rust allocation (see the type's
        // documentation), and the address is only used by volatile
        // accesses.
        self.ptr.as_ptr().wrapping_add(offset)
    }

    /// Copies the bytes at `offset` into `buf`. Results are meaningful only
    /// after the graphs that write them have completed.
    ///
    /// The mapping hands out no Rust references into the buffer, only
    /// copies made with volatile accesses: a graph that is still running
    /// (or another process that shares the buffer) may write it at any
    /// time, which would break the guarantees of a `&[u8]`. The copy loads
    /// 8 bytes at a time where `offset` allows.
    ///
    /// # Panics
    ///
    /// If the range is beyond the mapping.
    pub fn read(&self, offset: usize, buf: &mut [u8]) {
        self.check(offset, buf.len());
        // Bytes up to the first 8-byte boundary of the mapping (which
        // starts on a page), then whole words, then the rest.
        let head = offset.wrapping_neg() % 8;
        let (head, rest) = buf.split_at_mut(head.min(buf.len()));
        let mut words = rest.chunks_exact_mut(8);
        let mut pos = offset;
        for b in head {
            // SAFETY: `pos` is within the live mapping (checked above),
            // which is readable; a volatile load of a byte is defined
            // whatever else writes the memory meanwhile.
            *b = unsafe { self.at(pos).read_volatile() };
            pos += 1;
        }
        for w in &mut words {
            // SAFETY: as above, and the word is aligned: the mapping starts
            // on a page and `pos` is a multiple of 8 here.
            let v = unsafe { self.at(pos).cast::<u64>().read_volatile() };
            w.copy_from_slice(&v.to_ne_bytes());
            pos += 8;
        }
        for b in words.into_remainder() {
            // SAFETY: as for the head.
            *b = unsafe { self.at(pos).read_volatile() };
            pos += 1;
        }
    }

    /// Copies `data` to the bytes at `offset`. Write inputs before
    /// submitting the graphs that read them. The copy stores 8 bytes at a
    /// time where `offset` allows.
    ///
    /// # Panics
    ///
    /// If the range is beyond the mapping.
    pub fn write(&mut self, offset: usize, data: &[u8]) {
        self.check(offset, data.len());
        let head = offset.wrapping_neg() % 8;
        let (head, rest) = data.split_at(head.min(data.len()));
        let mut words = rest.chunks_exact(8);
        let mut pos = offset;
        for &b in head {
            // SAFETY: `pos` is within the live mapping (checked above),
            // which is writable; `&mut self` makes this the only writer in
            // the process (one `Mapping` per `Bo`).
            unsafe { self.at(pos).write_volatile(b) };
            pos += 1;
        }
        for w in &mut words {
            let v = u64::from_ne_bytes(w.try_into().expect("8 bytes"));
            // SAFETY: as above, and the word is aligned: the mapping starts
            // on a page and `pos` is a multiple of 8 here.
            unsafe { self.at(pos).cast::<u64>().write_volatile(v) };
            pos += 8;
        }
        for &b in words.remainder() {
            // SAFETY: as for the head.
            unsafe { self.at(pos).write_volatile(b) };
            pos += 1;
        }
    }

    /// The byte offset of 32-bit word `index` after checking that `count`
    /// words from there are within the mapping.
    fn words(&self, index: usize, count: usize) -> usize {
        let offset = index.checked_mul(4).expect("word index overflows");
        let len = count.checked_mul(4).expect("word count overflows");
        self.check(offset, len);
        offset
    }

    /// Copies the little-endian 32-bit words from word index `index` on
    /// into `out`, one volatile load each (see [`read_u32`](Self::read_u32)).
    ///
    /// ```no_run
    /// # let dev = tas::Device::open()?;
    /// let bo = dev.create_bo(4096)?;
    /// // ... a graph writes the buffer; wait for it ...
    /// let mut out = vec![0u32; 1024];
    /// bo.map()?.read_u32s(0, &mut out);
    /// # Ok::<(), tas::Error>(())
    /// ```
    ///
    /// # Panics
    ///
    /// If the words are beyond the mapping.
    pub fn read_u32s(&self, index: usize, out: &mut [u32]) {
        self.load_words(index, out, |w| w);
    }

    /// Stores `data` little-endian from word index `index` on, one
    /// volatile store each (see [`write_u32`](Self::write_u32)).
    ///
    /// # Panics
    ///
    /// If the words are beyond the mapping.
    pub fn write_u32s(&mut self, index: usize, data: &[u32]) {
        self.store_words(index, data, |v| v);
    }

    /// Copies the little-endian IEEE 754 single-precision numbers from
    /// word index `index` on into `out`, bit for bit (NaN payloads
    /// included), as [`read_u32s`](Self::read_u32s) does.
    ///
    /// # Panics
    ///
    /// If the words are beyond the mapping.
    pub fn read_f32s(&self, index: usize, out: &mut [f32]) {
        self.load_words(index, out, f32::from_bits);
    }

    /// Stores `data` as little-endian IEEE 754 single-precision numbers
    /// from word index `index` on, bit for bit, as
    /// [`write_u32s`](Self::write_u32s) does.
    ///
    /// # Panics
    ///
    /// If the words are beyond the mapping.
    pub fn write_f32s(&mut self, index: usize, data: &[f32]) {
        self.store_words(index, data, f32::to_bits);
    }

    /// Fills `out` from the little-endian 32-bit words from word index
    /// `index` on, one volatile load each, each word converted by `from`.
    fn load_words<T>(&self, index: usize, out: &mut [T], from: impl Fn(u32) -> T) {
        let offset = self.words(index, out.len());
        for (i, v) in out.iter_mut().enumerate() {
            // SAFETY: the word is within the live, readable mapping
            // (checked above), and aligned: the mapping starts on a page and
            // its offset is a multiple of 4.
            let w = unsafe { self.at(offset + 4 * i).cast::<u32>().read_volatile() };
            *v = from(u32::from_le(w));
        }
    }

    /// Stores `data` little-endian from word index `index` on, one
    /// volatile store each, each value converted by `to`.
    fn store_words<T: Copy>(&mut self, index: usize, data: &[T], to: impl Fn(T) -> u32) {
        let offset = self.words(index, data.len());
        for (i, &v) in data.iter().enumerate() {
            // SAFETY: as in `load_words`; the mapping is writable, and
            // `&mut self` is the process's only writer.
            unsafe {
                self.at(offset + 4 * i)
                    .cast::<u32>()
                    .write_volatile(to(v).to_le())
            };
        }
    }

    /// The little-endian 32-bit word at word index `index`.
    ///
    /// # Panics
    ///
    /// If the word is beyond the mapping.
    pub fn read_u32(&self, index: usize) -> u32 {
        let offset = self.words(index, 1);
        // SAFETY: the word is within the live, readable mapping (checked
        // above), and aligned: the mapping starts on a page and `offset` is
        // a multiple of 4.
        let v = unsafe { self.at(offset).cast::<u32>().read_volatile() };
        u32::from_le(v)
    }

    /// Stores `value` little-endian at word index `index`.
    ///
    /// # Panics
    ///
    /// If the word is beyond the mapping.
    pub fn write_u32(&mut self, index: usize, value: u32) {
        let offset = self.words(index, 1);
        // SAFETY: as in `read_u32`, and the mapping is writable.
        unsafe { self.at(offset).cast::<u32>().write_volatile(value.to_le()) };
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

#[cfg(test)]
mod tests {
    use super::*;
    use rustix::mm::mmap_anonymous;

    /// A mapping of `len` bytes of anonymous shared memory, as `Bo::map`
    /// makes one of a buffer (page-aligned, read-write, shared), with the
    /// flag that it clears on drop.
    fn anon(len: usize, flag: &AtomicBool) -> Mapping<'_> {
        flag.store(true, Ordering::Relaxed);
        // SAFETY: a new mapping at an address the kernel picks.
        let ptr = unsafe {
            mmap_anonymous(
                core::ptr::null_mut(),
                len,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::SHARED,
            )
        }
        .unwrap();
        Mapping {
            ptr: NonNull::new(ptr.cast()).unwrap(),
            len,
            mapped: flag,
        }
    }

    #[test]
    fn bytes_round_trip_at_every_alignment() {
        let flag = AtomicBool::new(false);
        let mut m = anon(4096, &flag);
        let mut model = vec![0u8; 4096];
        let mut n = 0u8;
        for offset in 0..17 {
            for len in [0, 1, 7, 8, 9, 15, 16, 17, 63, 100] {
                let data: Vec<u8> = (0..len)
                    .map(|_| {
                        n = n.wrapping_mul(31).wrapping_add(7);
                        n
                    })
                    .collect();
                m.write(offset, &data);
                model[offset..offset + len].copy_from_slice(&data);
                let mut back = vec![0xa5; len];
                m.read(offset, &mut back);
                assert_eq!(back, data, "offset {offset} len {len}");
            }
        }
        let mut all = vec![0; 4096];
        m.read(0, &mut all);
        assert_eq!(all, model);
        drop(m);
        assert!(!flag.load(Ordering::Relaxed), "drop clears the mapped flag");
    }

    #[test]
    fn words_little_endian() {
        let flag = AtomicBool::new(false);
        let mut m = anon(4096, &flag);
        m.write_u32s(1, &[0x0403_0201, 0x0807_0605]);
        let mut bytes = [0; 12];
        m.read(0, &mut bytes);
        assert_eq!(bytes, [0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8]);
        let mut words = [0; 3];
        m.read_u32s(0, &mut words);
        assert_eq!(words, [0, 0x0403_0201, 0x0807_0605]);
        assert_eq!(m.read_u32(2), 0x0807_0605);
        let last = 4096 / 4 - 2;
        m.write_u32s(last, &[u32::MAX, 7]);
        assert_eq!(m.u32s().skip(last).collect::<Vec<_>>(), [u32::MAX, 7]);
        m.write_u32s(0, &[]);
        m.read_u32s(1024, &mut []);
    }

    #[test]
    fn floats_bit_for_bit() {
        let flag = AtomicBool::new(false);
        let mut m = anon(4096, &flag);
        let nan = f32::from_bits(0x7fc0_1234);
        let data = [1.0f32, -0.0, 3.5e-38, f32::INFINITY, nan];
        m.write_f32s(10, &data);
        assert_eq!(m.read_u32(10), 1.0f32.to_bits());
        let mut back = [0f32; 5];
        m.read_f32s(10, &mut back);
        let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&back), bits(&data));
    }

    #[test]
    fn readers_share_one_mapping() {
        let flag = AtomicBool::new(false);
        let mut m = anon(8192, &flag);
        let data: Vec<u32> = (0..2048).collect();
        m.write_u32s(0, &data);
        let m = &m;
        std::thread::scope(|s| {
            let halves: Vec<_> = (0..2)
                .map(|h| {
                    s.spawn(move || {
                        let mut out = vec![0; 1024];
                        m.read_u32s(h * 1024, &mut out);
                        out
                    })
                })
                .collect();
            let got: Vec<u32> = halves.into_iter().flat_map(|t| t.join().unwrap()).collect();
            assert_eq!(got, data);
        });
    }

    #[test]
    #[should_panic(expected = "beyond a mapping")]
    fn words_beyond_the_end() {
        let flag = AtomicBool::new(false);
        let m = anon(4096, &flag);
        m.read_u32s(1023, &mut [0; 2]);
    }

    #[test]
    #[should_panic(expected = "beyond a mapping")]
    fn bytes_beyond_the_end() {
        let flag = AtomicBool::new(false);
        let mut m = anon(4096, &flag);
        m.write(4090, &[0; 7]);
    }

    #[test]
    #[should_panic(expected = "word index overflows")]
    fn word_index_overflow() {
        let flag = AtomicBool::new(false);
        let mut m = anon(4096, &flag);
        m.write_f32s(usize::MAX / 2, &[1.0]);
    }
}
