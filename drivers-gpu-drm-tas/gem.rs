// SPDX-License-Identifier: GPL-2.0

//! GEM objects of the TAS driver.

use kernel::{
    drm::gem,
    prelude::*, //
};

use crate::driver::{
    TasDevice,
    TasDriver, //
};

/// Driver data of a TAS GEM object.
///
/// The driver does not create buffers yet; this is the object type its DRM device is declared
/// with.
#[pin_data]
pub(crate) struct TasObject {}

impl gem::DriverObject for TasObject {
    type Driver = TasDriver;
    type Args = ();

    fn new(_dev: &TasDevice, _size: usize, _args: Self::Args) -> impl PinInit<Self, Error> {
        try_pin_init!(TasObject {})
    }
}
