// SPDX-License-Identifier: GPL-2.0

//! Buffer objects of the TAS driver: shmem-backed GEM objects that userspace maps and the
//! virtual engine reads and writes.

use kernel::{
    drm::gem::{
        self,
        shmem, //
    },
    prelude::*,
    sync::aref::ARef, //
};

use crate::driver::{
    TasDevice,
    TasDriver, //
};

/// Driver data of a TAS buffer object.
#[pin_data]
pub(crate) struct TasObject {}

impl gem::DriverObject for TasObject {
    type Driver = TasDriver;
    type Args = ();

    fn new(_dev: &TasDevice, _size: usize, _args: Self::Args) -> impl PinInit<Self, Error> {
        try_pin_init!(TasObject {})
    }
}

/// A TAS buffer object.
pub(crate) type Bo = shmem::Object<TasObject>;

/// Creates a zeroed buffer object of `size` bytes, rounded up to whole pages.
pub(crate) fn create(dev: &TasDevice, size: usize) -> Result<ARef<Bo>> {
    let size = size
        .checked_next_multiple_of(kernel::page::PAGE_SIZE)
        .ok_or(EINVAL)?;
    // The shmem file behind the object lives on the kernel's internal shmem mount, which has no
    // size or inode limit: shmem reports a failed inode allocation as `ENOSPC`, but the cause is
    // a lack of memory.
    Bo::new(dev, size, shmem::ObjectConfig::default(), ()).map_err(|e| {
        if e == ENOSPC {
            ENOMEM
        } else {
            e
        }
    })
}
