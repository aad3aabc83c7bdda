// SPDX-License-Identifier: GPL-2.0

//! The DRM driver of the TAS virtual device.

use kernel::{
    alloc::Flags,
    device::DeviceContext,
    drm::{
        self,
        ioctl, //
    },
    faux,
    prelude::*,
    sync::Arc,
    workqueue::{
        OwnedQueue,
        Queue, //
    }, //
};

use crate::{
    dispatch::GangGate,
    engine::{
        Reaper,
        Ring, //
    },
    file::File,
    gem::Bo, //
};

/// Version of the uAPI, reported by `DRM_TAS_PARAM_VERSION`.
pub(crate) const UAPI_VERSION: u64 = 7;

/// Largest number of rings the virtual engine can have.
pub(crate) const MAX_RINGS: u32 = 16;

/// Largest number of nodes in one submitted graph.
pub(crate) const MAX_NODES: u64 = 16384;

/// Largest number of dependency edges in one submitted graph.
pub(crate) const MAX_EDGES: u64 = 65536;

/// Largest number of syncobj waits in one graph submission.
pub(crate) const MAX_WAITS: u64 = 64;

/// Largest number of syncobj signals in one graph submission.
pub(crate) const MAX_SIGNALS: u64 = 64;

/// Largest size of a buffer object.
pub(crate) const MAX_BO_SIZE: u64 = 64 << 20;

/// Largest simulated duration of a node.
pub(crate) const MAX_DURATION_NS: u64 = 10_000_000_000;

/// Largest stride of a user array.
pub(crate) const MAX_STRIDE: u32 = 4096;

/// Largest ring depth (credit limit of a ring's scheduler, without the credits of the early
/// nodes).
pub(crate) const MAX_RING_DEPTH: u32 = 64;

/// Number of graphs whose results a file keeps for `GRAPH_INFO`.
pub(crate) const GRAPH_HISTORY: usize = 64;

/// Largest number of nodes of the graphs whose results a file keeps for `GRAPH_INFO` (older
/// graphs are forgotten first).
pub(crate) const GRAPH_HISTORY_NODES: usize = 65536;

/// Largest number of nodes of one file's graphs in flight (submitted or launched, not
/// completed); a submission that would exceed it waits.
pub(crate) const MAX_NODES_IN_FLIGHT: u64 = 65536;

/// Largest number of nodes of one file's templates together.
pub(crate) const MAX_TEMPLATE_NODES: u64 = 65536;

/// Largest number of graphs a file keeps until they are read (`DRM_TAS_SUBMIT_KEEP`).
pub(crate) const MAX_KEPT: usize = 1024;

/// Largest number of nodes of the graphs a file keeps until they are read.
pub(crate) const MAX_KEPT_NODES: usize = 65536;

/// Allocation flags for memory whose amount a client decides (the graphs it submits or keeps):
/// charged to the client's memory cgroup, and failing with `ENOMEM`, without an OOM kill or a
/// warning, when the cgroup or the system has no room for it.
pub(crate) fn client_gfp() -> Flags {
    GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN
}

/// How long after an ioctl the work items that it leaves to `tas-bg` start (a template's next
/// instance, the history entries it evicted), in jiffies: after the ioctl has returned, so that
/// their workers do not compete with the calling thread for the CPU. Two, so that at least one
/// whole tick passes.
pub(crate) const BG_DELAY: kernel::time::Jiffies = 2;

pub(crate) struct TasDriver;

/// Convenience type alias for the DRM device type of this driver.
pub(crate) type TasDevice<Ctx = drm::Normal> = drm::Device<TasDriver, Ctx>;

/// Data of the TAS DRM device.
pub(crate) struct TasData {
    /// Number of rings of the virtual engine, within `1..=MAX_RINGS`.
    pub(crate) num_rings: u32,
    /// Number of nodes a ring executes at once.
    pub(crate) ring_depth: u32,
    /// Time after which a running node is aborted.
    pub(crate) job_timeout_ms: u32,
    /// Time after which a released host node that was not reported completes with `ETIMEDOUT`.
    pub(crate) host_timeout_ms: u32,
    /// The rings, `num_rings` of them.
    pub(crate) rings: KVec<Arc<Ring>>,
    /// The ring that completes whole graphs; it executes no node.
    pub(crate) graph_ring: Arc<Ring>,
    /// The admission order of all clients' gangs.
    pub(crate) gate: Arc<GangGate>,
    /// Releases the buffer mappings of node operations.
    pub(crate) reaper: Arc<Reaper>,
    /// The workqueue of the work items that signal fences: the rings', their schedulers' and
    /// the dispatchers'.
    pub(crate) signal_wq: &'static Queue,
    /// The workqueue of the work items that allocate or wait for fences, off the signalling
    /// path: the templates' and the reaper's.
    pub(crate) bg_wq: &'static Queue,
    /// Owns `signal_wq`. Dropped after the other fields, when it waits for its work items.
    pub(crate) _signal_wq_owner: OwnedQueue,
    /// Owns `bg_wq`. Dropped last: the work items of `signal_wq` queue the reaper.
    pub(crate) _bg_wq_owner: OwnedQueue,
}

impl Drop for TasData {
    fn drop(&mut self) {
        // Every client is gone, so no node can be queued any more. Node jobs hold their ring, so
        // the last of them to be freed (by the scheduler, or from the system workqueue for killed
        // entities) may hold the last reference to it, and the ring's scheduler is then torn down
        // after this returns. Wait for those teardowns: the jobs run this module's code until
        // they are freed. (The graph ring's jobs hold no ring: dropping the field after this
        // tears it down in place.)
        let mut waiters = [const { None }; MAX_RINGS as usize];
        for (waiter, ring) in waiters.iter_mut().zip(self.rings.iter()) {
            *waiter = Some(ring.sched.teardown_waiter());
        }
        drop(core::mem::take(&mut self.rings));
        for waiter in waiters.into_iter().flatten() {
            // Does not wait only in a work item of that very scheduler, whose teardown then waits
            // for the work item instead.
            let _waited = waiter.wait();
        }
        // The fields go next: the graph ring's scheduler is torn down in place, and the two
        // workqueues, last, wait for every work item of the driver (those that signal fences,
        // then the templates and the reaper) and for what they queue meanwhile. A node or
        // template dropped in one of them (the last reference to a node can be a ring's, to a
        // template its work item's) hands its buffer mappings to the reaper, which then still
        // runs: the buffers are all released before the DRM device's memory manager is taken
        // down, and no code of the module runs once the data is gone.
    }
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
    type Object = Bo;
    type ParentDevice<Ctx: DeviceContext> = faux::Device<Ctx>;

    const INFO: drm::DriverInfo = INFO;
    const FEAT_RENDER: bool = true;
    const FEAT_SYNCOBJ: bool = true;
    const FEAT_SYNCOBJ_TIMELINE: bool = true;

    kernel::declare_drm_ioctls! {
        (TAS_GET_PARAM, drm_tas_get_param, ioctl::RENDER_ALLOW, File::get_param),
        (TAS_BO_CREATE, drm_tas_bo_create, ioctl::RENDER_ALLOW, File::bo_create),
        (TAS_BO_MMAP_OFFSET, drm_tas_bo_mmap_offset, ioctl::RENDER_ALLOW, File::bo_mmap_offset),
        (TAS_SUBMIT_GRAPH, drm_tas_submit_graph, ioctl::RENDER_ALLOW, File::submit_graph),
        (TAS_GRAPH_INFO, drm_tas_graph_info, ioctl::RENDER_ALLOW, File::graph_info),
        (TAS_TEMPLATE_CREATE, drm_tas_template_create, ioctl::RENDER_ALLOW,
            File::template_create),
        (TAS_TEMPLATE_LAUNCH, drm_tas_template_launch, ioctl::RENDER_ALLOW,
            File::template_launch),
        (TAS_TEMPLATE_DESTROY, drm_tas_template_destroy, ioctl::RENDER_ALLOW,
            File::template_destroy),
        (TAS_HOST_DONE, drm_tas_host_done, ioctl::RENDER_ALLOW, File::host_done),
    }
}
