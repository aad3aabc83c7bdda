// SPDX-License-Identifier: GPL-2.0

//! DRM file (client) of the TAS driver and its ioctls.

use core::{
    mem::size_of,
    slice, //
};

use kernel::{
    drm::{
        self,
        gem::BaseObject,
        sched::{
            Entity,
            Priority, //
        },
        Registered, //
    },
    new_mutex,
    prelude::*,
    sync::{
        atomic::Relaxed,
        Arc,
        Mutex, //
    },
    uaccess::{
        UserPtr,
        UserSlice, //
    },
    uapi,
};

use crate::{
    driver::{
        TasDevice,
        TasDriver,
        GRAPH_HISTORY,
        MAX_BO_SIZE,
        MAX_DURATION_NS,
        MAX_EDGES,
        MAX_NODES,
        MAX_SIGNALS,
        MAX_STRIDE,
        MAX_WAITS,
        UAPI_VERSION, //
    },
    engine::NodeJob,
    gem::{
        self,
        Bo, //
    },
    graph::{
        self,
        GraphRecord, //
    },
};

/// Bit mask of the operations the engine supports (`DRM_TAS_PARAM_OPS`).
const OPS_MASK: u64 = (1 << uapi::drm_tas_op_DRM_TAS_OP_NOP)
    | (1 << uapi::drm_tas_op_DRM_TAS_OP_FILL)
    | (1 << uapi::drm_tas_op_DRM_TAS_OP_COPY)
    | (1 << uapi::drm_tas_op_DRM_TAS_OP_ADD)
    | (1 << uapi::drm_tas_op_DRM_TAS_OP_MATMUL);

/// The graphs a file submitted, the last [`GRAPH_HISTORY`] of them.
struct Graphs {
    next_id: u64,
    list: KVec<(u64, Arc<GraphRecord>)>,
}

/// A client of the driver: one scheduler entity per ring and its graphs.
#[pin_data]
pub(crate) struct File {
    entities: KVec<Pin<KBox<Entity<NodeJob>>>>,
    graph_entity: Pin<KBox<Entity<NodeJob>>>,
    #[pin]
    graphs: Mutex<Graphs>,
}

impl drm::file::DriverFile for File {
    type Driver = TasDriver;

    fn open(dev: &TasDevice) -> Result<Pin<KBox<Self>>> {
        let mut entities = KVec::with_capacity(dev.rings.len(), GFP_KERNEL)?;
        for ring in dev.rings.iter() {
            entities.push(
                KBox::pin_init(Entity::new(&ring.sched, Priority::Normal), GFP_KERNEL)?,
                GFP_KERNEL,
            )?;
        }
        let graph_entity = KBox::pin_init(
            Entity::new(&dev.graph_ring.sched, Priority::Normal),
            GFP_KERNEL,
        )?;
        let list = KVec::with_capacity(GRAPH_HISTORY, GFP_KERNEL)?;
        KBox::pin_init(
            try_pin_init!(Self {
                entities,
                graph_entity,
                graphs <- new_mutex!(Graphs { next_id: 1, list }),
            }? Error),
            GFP_KERNEL,
        )
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
            uapi::drm_tas_param_DRM_TAS_PARAM_OPS => OPS_MASK,
            uapi::drm_tas_param_DRM_TAS_PARAM_MAX_BO_SIZE => MAX_BO_SIZE,
            uapi::drm_tas_param_DRM_TAS_PARAM_MAX_DURATION_NS => MAX_DURATION_NS,
            uapi::drm_tas_param_DRM_TAS_PARAM_JOB_TIMEOUT_NS => {
                u64::from(dev.job_timeout_ms) * 1_000_000
            }
            uapi::drm_tas_param_DRM_TAS_PARAM_RING_DEPTH => dev.ring_depth.into(),
            uapi::drm_tas_param_DRM_TAS_PARAM_MAX_STRIDE => MAX_STRIDE.into(),
            _ => return Err(EINVAL),
        };

        Ok(0)
    }

    /// IOCTL: bo_create: Create a zeroed shmem buffer object.
    pub(crate) fn bo_create(
        dev: &TasDevice<Registered>,
        _reg_data: &(),
        args: &mut uapi::drm_tas_bo_create,
        file: &drm::File<File>,
    ) -> Result<u32> {
        if args.flags != 0 || args.size == 0 || args.size > MAX_BO_SIZE {
            return Err(EINVAL);
        }
        let size = usize::try_from(args.size).map_err(|_| EINVAL)?;
        let bo = gem::create(dev, size)?;
        args.handle = bo.create_handle(file)?;
        Ok(0)
    }

    /// IOCTL: bo_mmap_offset: Get the offset to mmap() a buffer object.
    pub(crate) fn bo_mmap_offset(
        _dev: &TasDevice<Registered>,
        _reg_data: &(),
        args: &mut uapi::drm_tas_bo_mmap_offset,
        file: &drm::File<File>,
    ) -> Result<u32> {
        if args.pad != 0 {
            return Err(EINVAL);
        }
        let bo = Bo::lookup_handle(file, args.handle)?;
        args.offset = bo.create_mmap_offset()?;
        Ok(0)
    }

    /// IOCTL: submit_graph: Validate a dependency graph and queue its nodes.
    pub(crate) fn submit_graph(
        dev: &TasDevice<Registered>,
        _reg_data: &(),
        args: &mut uapi::drm_tas_submit_graph,
        file: &drm::File<File>,
    ) -> Result<u32> {
        let this = file.inner();
        // Submissions of one file are serialised, so that graph ids and syncobj points follow
        // submission order.
        let mut graphs = this.graphs.lock();
        let record = Arc::new(
            graph::submit(dev, file, &this.entities, &this.graph_entity, args)?,
            GFP_KERNEL,
        )?;
        let id = graphs.next_id;
        graphs.next_id += 1;
        if graphs.list.len() == GRAPH_HISTORY {
            let _ = graphs.list.remove(0);
        }
        graphs
            .list
            .push_within_capacity((id, record))
            .map_err(|_| ENOMEM)?;
        args.graph_id = id;
        Ok(0)
    }

    /// IOCTL: graph_info: Read the per-node timestamps and errors of a graph.
    pub(crate) fn graph_info(
        _dev: &TasDevice<Registered>,
        _reg_data: &(),
        args: &mut uapi::drm_tas_graph_info,
        file: &drm::File<File>,
    ) -> Result<u32> {
        if args.flags != 0 {
            return Err(EINVAL);
        }
        let this = file.inner();
        let record = {
            let graphs = this.graphs.lock();
            let found = graphs.list.iter().find(|(id, _)| *id == args.graph_id);
            found.map(|(_, record)| record.clone()).ok_or(ENOENT)?
        };
        let info_size = size_of::<uapi::drm_tas_node_info>();
        if args.nodes.count as usize != record.nodes.len()
            || (args.nodes.stride as usize) < info_size
            || args.nodes.stride > MAX_STRIDE
        {
            return Err(EINVAL);
        }
        let base = usize::try_from(args.nodes.ptr).map_err(|_| EFAULT)?;
        let mut done = 1;
        for (i, node) in record.nodes.iter().enumerate() {
            let finished_ns = node.finished.timestamp().unwrap_or(0);
            if finished_ns == 0 {
                done = 0;
            }
            let info = uapi::drm_tas_node_info {
                queued_ns: node.exec.queued_ns.load(Relaxed),
                ready_ns: node.exec.ready_ns.load(Relaxed),
                started_ns: node.exec.started_ns.load(Relaxed),
                finished_ns,
                error: node.finished.error().map_or(0, |e| e.to_errno()),
                ring: node.exec.ring,
            };
            // SAFETY: `drm_tas_node_info` is a plain structure of integers without padding.
            let bytes = unsafe {
                slice::from_raw_parts(core::ptr::from_ref(&info).cast::<u8>(), info_size)
            };
            let addr = i
                .checked_mul(args.nodes.stride as usize)
                .and_then(|off| base.checked_add(off))
                .ok_or(EFAULT)?;
            UserSlice::new(UserPtr::from_addr(addr), info_size)
                .writer()
                .write_slice(bytes)?;
        }
        args.done = done;
        Ok(0)
    }
}
