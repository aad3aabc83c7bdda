// SPDX-License-Identifier: GPL-2.0

//! TAS, a virtual DRM driver for whole-graph GPU submission.
//!
//! The driver creates a faux device and registers a DRM device with a render node on top of it.
//! Userspace creates buffers and submits whole dependency graphs of nodes, which the virtual
//! engine (see [`engine`]) executes on its rings through the DRM GPU scheduler.

use core::ptr;

use kernel::{
    device::{
        self,
        Bound, //
    },
    drm,
    faux,
    prelude::*,
    time::Delta,
    workqueue::{
        OwnedQueue,
        Queue,
        QueueFlags, //
    }, //
};

use crate::{
    dispatch::GangGate,
    driver::{
        TasData,
        TasDriver,
        MAX_RINGS,
        MAX_RING_DEPTH, //
    },
    engine::{
        Reaper,
        Ring, //
    },
};

mod dispatch;
mod driver;
mod engine;
mod file;
mod gem;
mod graph;
mod template;

module! {
    type: TasModule,
    name: "tas",
    authors: ["TAS Developers"],
    description: "Virtual DRM driver for whole-graph GPU submission",
    license: "GPL",
    params: {
        num_rings: u32 {
            default: 4,
            description: "Number of rings of the virtual engine (1-16, default 4)",
        },
        ring_depth: u32 {
            default: 4,
            description: "Nodes a ring runs at once, its credit limit (1-64, default 4)",
        },
        job_timeout_ms: u32 {
            default: 1000,
            description: "Running time after which a node fails (10-60000 ms, default 1000)",
        },
        host_timeout_ms: u32 {
            default: 10000,
            description: "Time a released host node may take (10-600000 ms, default 10000)",
        },
    },
}

struct TasModule {
    // Fields are dropped in declaration order: the DRM device must be unregistered before its
    // parent, the faux device, goes away.
    _drm: drm::Registration<'static, TasDriver>,
    _faux: faux::Registration,
}

impl kernel::Module for TasModule {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let num_rings = module_parameters::num_rings.value();
        if !(1..=MAX_RINGS).contains(&num_rings) {
            pr_err!("num_rings must be between 1 and {MAX_RINGS}, not {num_rings}\n");
            return Err(EINVAL);
        }

        let ring_depth = module_parameters::ring_depth.value();
        if !(1..=MAX_RING_DEPTH).contains(&ring_depth) {
            pr_err!("ring_depth must be between 1 and {MAX_RING_DEPTH}, not {ring_depth}\n");
            return Err(EINVAL);
        }
        let job_timeout_ms = module_parameters::job_timeout_ms.value();
        if !(10..=60_000).contains(&job_timeout_ms) {
            pr_err!("job_timeout_ms must be between 10 and 60000, not {job_timeout_ms}\n");
            return Err(EINVAL);
        }
        let host_timeout_ms = module_parameters::host_timeout_ms.value();
        if !(10..=600_000).contains(&host_timeout_ms) {
            pr_err!("host_timeout_ms must be between 10 and 600000, not {host_timeout_ms}\n");
            return Err(EINVAL);
        }
        let faux = faux::Registration::new(c"tas", None)?;

        // SAFETY: `faux.as_ref()` points to the `struct faux_device` allocated by the faux bus,
        // not into `faux` itself, so moving `faux` into `TasModule` does not invalidate it; the
        // device stays registered and bound until `faux` is dropped. Beyond this function, the
        // `'static` lifetime is only kept by the DRM registration in `TasModule::_drm`, which is
        // declared before `_faux` and hence dropped first; neither is ever forgotten.
        let fdev: &'static faux::Device<Bound> = unsafe { &*ptr::from_ref(faux.as_ref()) };

        // The driver's work items, on queues of its own: dropping them waits for all of them,
        // which the system workqueues cannot do. The work items that signal fences, which memory
        // reclaim may wait for, have a queue with a rescuer, which nothing that allocates or
        // waits for a fence may hold up, so the templates' and the reaper's work items have the
        // other queue.
        // The first is per CPU, as `system_long_wq` was: on an unbound queue, the members of a
        // gang, released together, started up to 1.4 ms apart at p99 (`make bench`), against
        // 0.2 ms on a per-CPU one.
        let signal_wq_owner = OwnedQueue::new(
            c"tas-signal",
            QueueFlags::PERCPU | QueueFlags::MEM_RECLAIM,
            0,
        )?;
        let bg_wq_owner = OwnedQueue::new(c"tas-bg", QueueFlags::UNBOUND, 0)?;
        // SAFETY: Each owner dereferences to its C workqueue, not into the owner itself, so
        // moving the owners into the device data below does not invalidate the references. The
        // workqueues are destroyed when the device data is dropped, as its last fields, once the
        // rings' schedulers are torn down (see `TasData::drop`). Only the driver's objects use
        // the references, and they queue work only while a client, a job or a work item of the
        // driver is alive: the clients are gone before the device data is dropped and the jobs
        // before the teardowns end; `destroy_workqueue()` lets the work items of its queue, with
        // what they queue on it, finish first, and the work items of `signal_wq` (which queue
        // the reaper on `bg_wq`) are all done before `bg_wq` goes. The rings' schedulers run
        // their work items on `signal_wq` too and are torn down before it goes:
        // `TasData::drop` waits for their teardowns, and never runs in one of their work items:
        // the last reference to the DRM device is the registration's, dropped at module exit
        // (open files and exported buffers keep the module loaded), and no job holds one.
        // Work items queued with a delay on `bg_wq` (a template's, an evicted history entry's)
        // are not on the queue while their timer is pending, and `destroy_workqueue()` does not
        // wait for them: a client's close flushes its templates' and waits for its evicted
        // entries', so no timer is left once the clients are gone.
        let (signal_wq, bg_wq): (&'static Queue, &'static Queue) = unsafe {
            (
                &*ptr::from_ref::<Queue>(&*signal_wq_owner),
                &*ptr::from_ref::<Queue>(&*bg_wq_owner),
            )
        };

        // The rings' schedulers name the device in messages and trace events and hold a
        // reference to it.
        let dev: &device::Device = fdev.as_ref();
        let mut rings = KVec::with_capacity(num_rings as usize, GFP_KERNEL)?;
        for index in 0..num_rings {
            let timeout = Delta::from_millis(job_timeout_ms.into());
            let ring = Ring::new(dev, signal_wq, index, ring_depth, timeout)?;
            rings.push(ring, GFP_KERNEL)?;
        }
        let graph_ring = Ring::new_graph(dev, signal_wq, num_rings)?;

        let drm = drm::UnregisteredDevice::<TasDriver>::new(
            fdev,
            Ok(TasData {
                num_rings,
                ring_depth,
                job_timeout_ms,
                host_timeout_ms,
                rings,
                graph_ring,
                gate: GangGate::new()?,
                reaper: Reaper::new(bg_wq)?,
                signal_wq,
                bg_wq,
                _signal_wq_owner: signal_wq_owner,
                _bg_wq_owner: bg_wq_owner,
            }),
        )?;

        // SAFETY: The registration is stored in `TasModule` and dropped when the module is
        // unloaded; it is never forgotten.
        let reg = unsafe { drm::Registration::new(fdev.as_ref(), drm, (), 0)? };

        dev_info!(
            fdev.as_ref(),
            "virtual device with {num_rings} rings registered\n"
        );

        Ok(Self {
            _drm: reg,
            _faux: faux,
        })
    }
}
