// SPDX-License-Identifier: GPL-2.0

//! DRM file (client) of the TAS driver and its ioctls.

use kernel::{
    drm::{
        self,
        Registered, //
    },
    prelude::*,
    uapi, //
};

use crate::driver::{
    TasDevice,
    TasDriver,
    MAX_EDGES,
    MAX_NODES,
    MAX_SIGNALS,
    MAX_WAITS,
    UAPI_VERSION, //
};

pub(crate) struct File;

impl drm::file::DriverFile for File {
    type Driver = TasDriver;

    fn open(_dev: &TasDevice) -> Result<Pin<KBox<Self>>> {
        Ok(KBox::new(Self, GFP_KERNEL)?.into())
    }
}

impl File {
    /// IOCTL: get_param: Query a parameter of the driver or of the virtual device.
    pub(crate) fn get_param(
        dev: &TasDevice<Registered>,
        _reg_data: &(),
        args: &mut uapi::drm_tas_get_param,
        _file: &drm::File<File>,
    ) -> Result<u32> {
        if args.pad != 0 {
            return Err(EINVAL);
        }

        args.value = match args.param {
            uapi::drm_tas_param_DRM_TAS_PARAM_VERSION => UAPI_VERSION,
            uapi::drm_tas_param_DRM_TAS_PARAM_NUM_RINGS => dev.num_rings.into(),
            uapi::drm_tas_param_DRM_TAS_PARAM_MAX_NODES => MAX_NODES,
            uapi::drm_tas_param_DRM_TAS_PARAM_MAX_EDGES => MAX_EDGES,
            uapi::drm_tas_param_DRM_TAS_PARAM_MAX_WAITS => MAX_WAITS,
            uapi::drm_tas_param_DRM_TAS_PARAM_MAX_SIGNALS => MAX_SIGNALS,
            _ => return Err(EINVAL),
        };

        Ok(0)
    }
}
