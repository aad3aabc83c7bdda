// SPDX-License-Identifier: MIT
#![doc = include_str!("../README.md")]
#![warn(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks)]

mod bo;
mod device;
mod error;
mod graph;
mod ioctl;
mod syncobj;
mod sysfs;
pub mod uapi;

pub use bo::{Bo, Mapping};
pub use device::{Bind, Device, GraphInfo, GraphSummary, NodeInfo, Param, Template, DRIVER_NAME};
pub use error::{errno_name, Culprit, Error, Result};
pub use graph::{
    BufRange, Class, Graph, Node, NodeId, Op, OpFields, SubmitFlags, SyncPoint, Target,
};
pub use ioctl::set_interrupt_check;
pub use syncobj::{now_ns, Syncobj};

/// The `drm` crate, whose `Device` traits [`Device`] implements.
pub use drm;
/// The errno type of [`Error`] and [`NodeInfo::error`] (`rustix::io::Errno`).
pub use rustix::io::Errno;
