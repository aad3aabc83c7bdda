// SPDX-License-Identifier: GPL-2.0

//! The DRM driver of the TAS virtual device.

use kernel::{
    device::DeviceContext,
    drm::{
        self,
        gem,
        ioctl, //
    },
    faux,
    prelude::*, //
};

use crate::{
    file::File,
    gem::TasObject, //
};

/// Version of the uAPI, reported by `DRM_TAS_PARAM_VERSION`.
pub(crate) const UAPI_VERSION: u64 = 1;

/// Largest number of rings the virtual engine can have.
pub(crate) const MAX_RINGS: u32 = 16;

/// Largest number of nodes in one submitted graph.
pub(crate) const MAX_NODES: u64 = 4096;

/// Largest number of dependency edges in one submitted graph.
pub(crate) const MAX_EDGES: u64 = 16384;

/// Largest number of syncobj waits in one graph submission.
pub(crate) const MAX_WAITS: u64 = 64;

/// Largest number of syncobj signals in one graph submission.
pub(crate) const MAX_SIGNALS: u64 = 64;

pub(crate) struct TasDriver;

/// Convenience type alias for the DRM device type of this driver.
pub(crate) type TasDevice<Ctx = drm::Normal> = drm::Device<TasDriver, Ctx>;

/// Data of the TAS DRM device.
pub(crate) struct TasData {
    /// Number of rings of the virtual engine, within `1..=MAX_RINGS`.
    pub(crate) num_rings: u32,
}

const INFO: drm::DriverInfo = drm::DriverInfo {
    major: 0,
    minor: 1,
    patchlevel: 0,
    name: c"tas",
    desc: c"TAS virtual graph scheduler",
};

#[vtable]
impl drm::Driver for TasDriver {
    type Data = TasData;
    type RegistrationData<'a> = ();
    type File = File;
    type Object = gem::Object<TasObject>;
    type ParentDevice<Ctx: DeviceContext> = faux::Device<Ctx>;

    const INFO: drm::DriverInfo = INFO;
    const FEAT_RENDER: bool = true;

    kernel::declare_drm_ioctls! {
        (TAS_GET_PARAM, drm_tas_get_param, ioctl::RENDER_ALLOW, File::get_param),
    }
}
