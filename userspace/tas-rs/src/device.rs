// SPDX-License-Identifier: MIT
//! The device: opening it, parameters, and the graph ioctls.

use crate::bo::Bo;
use crate::error::{Culprit, Error, Result};
use crate::graph::{array, array_mut, Graph, NodeId, SubmitFlags, SyncPoint, Target};
use crate::ioctl::{self, retry_io};
use crate::syncobj::Syncobj;
use crate::sysfs;
use crate::uapi::*;
use core::marker::PhantomData;
use core::mem::ManuallyDrop;
use rustix::fd::{AsFd, BorrowedFd, OwnedFd};
use rustix::io::Errno;
use std::path::{Path, PathBuf};

/// Name of the drm/tas driver, as `DRM_IOCTL_VERSION` reports it.
pub const DRIVER_NAME: &str = "tas";

/// The directory of the DRM device nodes.
const DRI_DIR: &str = "/dev/dri";

/// A parameter of [`Device::param`] (`enum drm_tas_param`).
///
/// New parameters are only ever appended; querying one that the kernel
/// does not know fails with `EINVAL` (see [`Param::MaxNodesInFlight`]).
/// [`Device::param_raw`] queries parameters newer than this crate.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Param {
    /// Version of the TAS uAPI, incremented whenever an ioctl, a parameter
    /// or a flag is added. Currently 6 (host nodes).
    Version = DRM_TAS_PARAM_VERSION,
    /// Number of rings of the virtual engine, 1 to 16.
    NumRings = DRM_TAS_PARAM_NUM_RINGS,
    /// Maximum number of nodes in one graph. Currently 16384.
    MaxNodes = DRM_TAS_PARAM_MAX_NODES,
    /// Maximum number of edges in one graph. Currently 65536.
    MaxEdges = DRM_TAS_PARAM_MAX_EDGES,
    /// Maximum number of syncobj waits of one submission. Currently 64.
    MaxWaits = DRM_TAS_PARAM_MAX_WAITS,
    /// Maximum number of syncobj signals of one submission. Currently 64.
    MaxSignals = DRM_TAS_PARAM_MAX_SIGNALS,
    /// Bit mask of the supported operations, bit n for
    /// [`Op::code`](crate::Op::code) n (bit 5: host nodes,
    /// [`Op::Host`](crate::Op::Host), since version 6).
    Ops = DRM_TAS_PARAM_OPS,
    /// Largest size of a buffer object in bytes. Currently 64 MiB.
    MaxBoSize = DRM_TAS_PARAM_MAX_BO_SIZE,
    /// Largest simulated duration of a node in ns. Currently 10 s.
    MaxDurationNs = DRM_TAS_PARAM_MAX_DURATION_NS,
    /// Time after which a running node is aborted with `ETIMEDOUT` (not
    /// for host nodes: see [`Param::HostTimeoutNs`]).
    JobTimeoutNs = DRM_TAS_PARAM_JOB_TIMEOUT_NS,
    /// Number of nodes a ring executes at once.
    RingDepth = DRM_TAS_PARAM_RING_DEPTH,
    /// Largest stride of a `drm_tas_array`. Currently 4096.
    MaxStride = DRM_TAS_PARAM_MAX_STRIDE,
    /// Largest number of nodes of one file's graphs in flight. Currently
    /// 65536. Since version 4.
    MaxNodesInFlight = DRM_TAS_PARAM_MAX_NODES_IN_FLIGHT,
    /// Largest number of nodes of one file's templates together. Currently
    /// 65536. Since version 4.
    MaxTemplateNodes = DRM_TAS_PARAM_MAX_TEMPLATE_NODES,
    /// Largest number of nodes of one file's graphs kept until they are
    /// read ([`SubmitFlags::KEEP`](crate::SubmitFlags::KEEP)) together.
    /// Currently 65536. Since version 5.
    MaxKeptNodes = DRM_TAS_PARAM_MAX_KEPT_NODES,
    /// Largest number of one file's graphs kept until they are read.
    /// Currently 1024. Since version 5.
    MaxKeptGraphs = DRM_TAS_PARAM_MAX_KEPT_GRAPHS,
    /// Time after which a released host node ([`Op::Host`](crate::Op::Host))
    /// that was not reported with [`Device::host_done`] completes with
    /// `ETIMEDOUT` (module parameter `host_timeout_ms`, 10 s by default).
    /// Since version 6.
    HostTimeoutNs = DRM_TAS_PARAM_HOST_TIMEOUT_NS,
}

impl Param {
    /// Every parameter this crate knows, in the header's order.
    pub const ALL: [Param; 17] = [
        Param::Version,
        Param::NumRings,
        Param::MaxNodes,
        Param::MaxEdges,
        Param::MaxWaits,
        Param::MaxSignals,
        Param::Ops,
        Param::MaxBoSize,
        Param::MaxDurationNs,
        Param::JobTimeoutNs,
        Param::RingDepth,
        Param::MaxStride,
        Param::MaxNodesInFlight,
        Param::MaxTemplateNodes,
        Param::MaxKeptNodes,
        Param::MaxKeptGraphs,
        Param::HostTimeoutNs,
    ];

    /// The `DRM_TAS_PARAM_*` value.
    pub const fn to_raw(self) -> u32 {
        self as u32
    }

    /// The name without the `DRM_TAS_PARAM_` prefix, e.g. `"NUM_RINGS"`.
    pub const fn name(self) -> &'static str {
        match self {
            Param::Version => "VERSION",
            Param::NumRings => "NUM_RINGS",
            Param::MaxNodes => "MAX_NODES",
            Param::MaxEdges => "MAX_EDGES",
            Param::MaxWaits => "MAX_WAITS",
            Param::MaxSignals => "MAX_SIGNALS",
            Param::Ops => "OPS",
            Param::MaxBoSize => "MAX_BO_SIZE",
            Param::MaxDurationNs => "MAX_DURATION_NS",
            Param::JobTimeoutNs => "JOB_TIMEOUT_NS",
            Param::RingDepth => "RING_DEPTH",
            Param::MaxStride => "MAX_STRIDE",
            Param::MaxNodesInFlight => "MAX_NODES_IN_FLIGHT",
            Param::MaxTemplateNodes => "MAX_TEMPLATE_NODES",
            Param::MaxKeptNodes => "MAX_KEPT_NODES",
            Param::MaxKeptGraphs => "MAX_KEPT_GRAPHS",
            Param::HostTimeoutNs => "HOST_TIMEOUT_NS",
        }
    }
}

/// The result of one node of a graph, from [`Device::graph_info`].
///
/// Timestamps are `CLOCK_MONOTONIC` nanoseconds (see
/// [`now_ns`](crate::now_ns)); 0 means that the node has not reached that
/// stage, or never will (a node cancelled by an error).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeInfo {
    /// When the node was pushed to its ring's scheduler.
    pub queued_ns: u64,
    /// When its last dependency signalled, or when it was queued if later.
    pub ready_ns: u64,
    /// When the ring started executing it; for a host node, when it was
    /// released to its thread.
    pub started_ns: u64,
    /// When its fences signalled, also for a node that did not run; for a
    /// host node, when it was reported done (or timed out).
    pub finished_ns: u64,
    /// The error the node completed with: `ETIMEDOUT` when it ran too long
    /// (a host node: was not reported within [`Param::HostTimeoutNs`]);
    /// `ECANCELED` when another member of its gang failed; `ECANCELED` or
    /// `ESRCH` when its file was closed before it ran (a host node: `ESRCH`
    /// when its file was closed before it was reported); the error a host
    /// node's thread reported; or the error of a failed predecessor or
    /// waited-for fence.
    pub error: Option<Errno>,
    /// The ring of the node; [`Param::NumRings`] for a host node.
    pub ring: u32,
    /// The node's tag, as submitted.
    pub tag: u64,
}

impl NodeInfo {
    /// Converts the uAPI form.
    pub fn from_raw(raw: &drm_tas_node_info) -> Self {
        Self {
            queued_ns: raw.queued_ns,
            ready_ns: raw.ready_ns,
            started_ns: raw.started_ns,
            finished_ns: raw.finished_ns,
            error: (raw.error != 0)
                .then(|| Errno::from_raw_os_error(raw.error.unsigned_abs() as i32)),
            ring: raw.ring,
            tag: raw.tag,
        }
    }

    /// How long the node executed (started to finished), 0 if it did not;
    /// for a host node, from its release to its report.
    pub fn exec_ns(&self) -> u64 {
        if self.started_ns == 0 {
            0
        } else {
            self.finished_ns.saturating_sub(self.started_ns)
        }
    }
}

/// The results of a graph, from [`Device::graph_info`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphInfo {
    /// One entry per node, indexed by [`NodeId::index`](crate::NodeId::index).
    pub nodes: Vec<NodeInfo>,
    /// Whether every node of the graph has finished.
    pub done: bool,
    /// The node that failed first and its error (see
    /// [`GraphSummary::failed`]).
    pub failed: Option<(NodeId, Errno)>,
}

/// Whether a graph is done and its first error, from
/// [`Device::graph_summary`], which copies nothing per node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GraphSummary {
    /// Whether every node of the graph has finished.
    pub done: bool,
    /// The number of nodes of the graph.
    pub node_count: u32,
    /// The node that failed first and its error: of the nodes that have
    /// finished with an error, the one that finished first (the lowest
    /// index among equals), which is the node that failed rather than a
    /// successor that inherited its error; `None` if no node has failed.
    pub failed: Option<(NodeId, Errno)>,
}

/// The first failed node of a `GRAPH_INFO` result.
fn failed(args: &drm_tas_graph_info) -> Option<(NodeId, Errno)> {
    (args.error_node != DRM_TAS_NODE_GRAPH && args.error != 0).then(|| {
        (
            NodeId::from_index(args.error_node),
            Errno::from_raw_os_error(args.error.wrapping_neg()),
        )
    })
}

impl GraphInfo {
    /// The error of the lowest-indexed failed node, in node order; see
    /// [`GraphInfo::failed`] for the one that finished first.
    pub fn first_error(&self) -> Option<Errno> {
        self.nodes.iter().find_map(|n| n.error)
    }
}

/// The failed node that finished first (the lowest index among equal
/// times), from the nodes, as the kernel computes it for a kernel that
/// does not fill in `error_node` (its `node_count` is left 0).
fn earliest_failed(nodes: &[NodeInfo]) -> Option<(NodeId, Errno)> {
    let (i, n) = nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.error.is_some())
        .min_by_key(|(i, n)| {
            let at = if n.finished_ns == 0 {
                u64::MAX
            } else {
                n.finished_ns
            };
            (at, *i)
        })?;
    Some((NodeId::from_index(i as u32), n.error?))
}

/// The `error` of `struct drm_tas_host_done`: 0, or the negative errno.
fn host_error(error: Option<Errno>) -> i32 {
    error.map_or(0, |e| e.raw_os_error().wrapping_neg())
}

/// An open drm/tas device file (render node or primary node).
///
/// Implements [`drm::Device`] and [`drm::control::Device`], so that the
/// `drm` crate's ioctls (syncobjs, PRIME, `get_driver`, ...) work on it.
/// Buffer objects, syncobjs, templates and graphs belong to the file: they
/// borrow the `Device` and cannot outlive it.
#[derive(Debug)]
pub struct Device {
    fd: OwnedFd,
    path: Option<PathBuf>,
}

impl AsFd for Device {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

impl drm::Device for Device {}
impl drm::control::Device for Device {}

/// The DRM nodes of `/dev/dri` whose name is `prefix` and a number, in
/// numeric order: every candidate, when sysfs cannot tell which nodes are
/// drm/tas's (see [`Device::open`]).
fn nodes(prefix: &str) -> Vec<PathBuf> {
    let Ok(dir) = std::fs::read_dir(DRI_DIR) else {
        return Vec::new();
    };
    let mut found: Vec<(u32, PathBuf)> = dir
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name();
            let minor = name.to_str()?.strip_prefix(prefix)?.parse().ok()?;
            Some((minor, e.path()))
        })
        .collect();
    found.sort();
    found.into_iter().map(|(_, p)| p).collect()
}

impl Device {
    /// Opens the first drm/tas device: the render nodes
    /// (`/dev/dri/renderD*`) first, then the primary nodes
    /// (`/dev/dri/card*`), each in numeric order.
    ///
    /// The nodes are chosen in sysfs, as libdrm's `drmGetDevices2()` does,
    /// so that the nodes of other drivers are not opened (which would wake
    /// a runtime-suspended GPU, or make this process DRM master of its
    /// primary node): a node of `/sys/class/drm` belongs to drm/tas when
    /// its `device` is the faux device `tas` (`/sys/devices/faux/tas`, on
    /// bus `faux`). Only those nodes are opened, and each is still asked
    /// for its driver name (`DRM_IOCTL_VERSION`) and skipped unless it is
    /// `tas`. Without sysfs (`/sys/class/drm` cannot be read, e.g. `/sys`
    /// is not mounted), every node of `/dev/dri` is opened and asked
    /// instead.
    ///
    /// Errors: `ENODEV` (op `"find drm/tas device in /dev/dri"`) when no
    /// node that can be opened belongs to drm/tas (the module is not
    /// loaded, or the nodes are not accessible).
    pub fn open() -> Result<Self> {
        let candidates: Vec<PathBuf> = match sysfs::tas_minors(Path::new(sysfs::SYSFS)) {
            Ok(names) => names
                .into_iter()
                .map(|name| Path::new(DRI_DIR).join(name))
                .collect(),
            Err(_) => ["renderD", "card"].into_iter().flat_map(nodes).collect(),
        };
        for path in candidates {
            if let Ok(dev) = Self::open_path(&path) {
                return Ok(dev);
            }
        }
        Err(Error::new("find drm/tas device in /dev/dri", Errno::NODEV))
    }

    /// Opens the DRM node `path`, which must belong to drm/tas.
    ///
    /// Errors: `open()`'s (op `"open"`), such as `ENOENT` or `EACCES`;
    /// those of [`Device::from_fd`].
    pub fn open_path(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(|e| Error::from_io("open", &e))?;
        let mut dev = Self::from_fd(file.into())?;
        dev.path = Some(path.to_path_buf());
        Ok(dev)
    }

    /// Takes an open DRM file descriptor, which must belong to drm/tas.
    ///
    /// Errors: `DRM_IOCTL_VERSION`'s (op `"VERSION"`), such as `ENOTTY` for
    /// a file that is not a DRM node; `ENODEV` (op `"open: not a drm/tas
    /// device"`) for a node of another driver.
    pub fn from_fd(fd: OwnedFd) -> Result<Self> {
        let dev = Self { fd, path: None };
        let driver = retry_io("VERSION", || drm::Device::get_driver(&dev))?;
        if driver.name() != DRIVER_NAME {
            return Err(Error::new("open: not a drm/tas device", Errno::NODEV));
        }
        Ok(dev)
    }

    /// The path the device was opened at, if it was opened by path.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Queries a parameter (`DRM_IOCTL_TAS_GET_PARAM`).
    ///
    /// Errors (op `"GET_PARAM"`): `EINVAL` if the parameter is unknown to
    /// this kernel; `EFAULT`.
    pub fn param(&self, param: Param) -> Result<u64> {
        self.param_raw(param.to_raw())
    }

    /// Queries parameter `param` by its `DRM_TAS_PARAM_*` value, for
    /// parameters newer than this crate. Errors: as [`Device::param`].
    pub fn param_raw(&self, param: u32) -> Result<u64> {
        let mut args = drm_tas_get_param {
            param,
            ..Default::default()
        };
        ioctl::get_param(self.as_fd(), &mut args)?;
        Ok(args.value)
    }

    /// Queries every parameter of [`Param::ALL`]; older kernels fail the
    /// newer ones with `EINVAL`.
    pub fn params(&self) -> Vec<(Param, Result<u64>)> {
        Param::ALL.iter().map(|&p| (p, self.param(p))).collect()
    }

    /// Creates a zeroed buffer object of `size` bytes, from 1 to
    /// [`Param::MaxBoSize`] (`DRM_IOCTL_TAS_BO_CREATE`). The kernel rounds
    /// the size up to whole pages.
    ///
    /// Errors (op `"BO_CREATE"`): `EINVAL` for a size of 0 or above the
    /// limit; `ENOMEM`; `EFAULT`.
    pub fn create_bo(&self, size: u64) -> Result<Bo<'_>> {
        let mut args = drm_tas_bo_create {
            size,
            ..Default::default()
        };
        ioctl::bo_create(self.as_fd(), &mut args)?;
        Ok(Bo::new(self, args.handle, size))
    }

    /// Creates a syncobj, already signalled if `signalled`
    /// (`DRM_IOCTL_SYNCOBJ_CREATE`, through the `drm` crate).
    ///
    /// Errors (op `"SYNCOBJ_CREATE"`): `ENOMEM`; `EOPNOTSUPP` if the
    /// driver has no syncobjs.
    pub fn create_syncobj(&self, signalled: bool) -> Result<Syncobj<'_>> {
        let handle = retry_io("SYNCOBJ_CREATE", || {
            drm::control::Device::create_syncobj(self, signalled)
        })?;
        Ok(Syncobj::new(self, handle))
    }

    /// Submits a whole dependency graph (`DRM_IOCTL_TAS_SUBMIT_GRAPH`) and
    /// returns its id for [`Device::graph_info`].
    ///
    /// The graph is validated completely before anything is queued: on
    /// error nothing runs and no syncobj is touched. A node becomes ready
    /// once its predecessors have finished and its waits and the graph's
    /// waits have signalled; a node whose predecessor failed completes with
    /// its error without running. A file has at most 1024 graphs (not
    /// counting FIFO ones) and [`Param::MaxNodesInFlight`] nodes in flight;
    /// a submission beyond that blocks until enough complete.
    ///
    /// Errors (op `"SUBMIT_GRAPH"`):
    /// - `EINVAL`: no nodes; non-zero flags, padding, reserved fields or
    ///   extensions; a stride below the structure size or above the limit,
    ///   or non-zero bytes beyond the known structure; an empty array with
    ///   a non-zero ptr or stride; unknown op, ring, class or flag; two
    ///   members of a gang on one ring; a duration above the limit; buffer
    ///   ranges that are empty, out of bounds, overflowing, of the wrong
    ///   size for the operation, or set for an operation that does not use
    ///   them; an edge endpoint out of range, a self-loop or a duplicate
    ///   edge; a wait or signal node out of range; a wait point that does
    ///   not match the syncobj's use or is not submitted yet; a signal point
    ///   not above the syncobj's last point; the same syncobj point
    ///   signalled twice; a host node with a ring, a duration or a gang, or
    ///   with [`SubmitFlags::FIFO`]; a [`Target::Start`] on a wait, or on a
    ///   signal of anything but a host node.
    /// - `E2BIG`: more nodes, edges, waits or signals than the limits.
    /// - `ELOOP`: the edges contain a cycle.
    /// - `EDEADLK`: a gang that can never start: a member depends on
    ///   another member, or gangs depend on each other in a cycle.
    /// - `EACCES`: a node of [`Class::Latency`](crate::Class::Latency)
    ///   without `CAP_SYS_NICE` (not checked with [`SubmitFlags::FIFO`]).
    /// - `ENOENT`: an unknown buffer or syncobj handle.
    /// - `EFAULT`: the argument or an array that cannot be read.
    /// - `ENOMEM`: out of memory (or the memory cgroup is full).
    /// - `ENOSPC`: [`SubmitFlags::KEEP`] when the file keeps 1024 graphs
    ///   or [`Param::MaxKeptNodes`] nodes already.
    /// - `EINTR`: a signal ended the wait for a free place; this crate
    ///   restarts the call, as libdrm's `drmIoctl()` does, unless the check
    ///   of [`set_interrupt_check`](crate::set_interrupt_check) ends it.
    pub fn submit(&self, graph: &Graph, flags: SubmitFlags) -> Result<u64> {
        let mut args = graph.submit_args(flags)?;
        // SAFETY: the arrays of `args` point into `graph`'s vectors, with
        // their lengths and element sizes, and `graph` is borrowed for the
        // call; the kernel only reads them.
        let r = unsafe { ioctl::submit_graph(self.as_fd(), &mut args) };
        r.map_err(|e| e.at(Culprit::from_raw(args.error_array, args.error_index)))?;
        Ok(args.graph_id)
    }

    /// Reads the per-node timestamps and errors of graph `graph_id`, which
    /// has `node_count` nodes (`DRM_IOCTL_TAS_GRAPH_INFO`).
    ///
    /// Errors (op `"GRAPH_INFO"`): `ENOENT` for an unknown graph (a file
    /// keeps the results of its last 64 graphs, and of those only the
    /// latest ones with at most 65536 nodes together, besides those kept
    /// with [`SubmitFlags::KEEP`]); `EINVAL` for a `node_count` that
    /// differs from the graph's node count; `EFAULT`.
    pub fn graph_info(&self, graph_id: u64, node_count: u32) -> Result<GraphInfo> {
        self.read_graph(graph_id, node_count, 0)
    }

    /// As [`Device::graph_info`], and forgets the graph's record if the
    /// graph is done ([`GraphInfo::done`]); the record of a graph still
    /// running stays. This is how a graph submitted with
    /// [`SubmitFlags::KEEP`](crate::SubmitFlags::KEEP) is released; any
    /// other graph's record can be forgotten early the same way.
    ///
    /// Errors: as [`Device::graph_info`]; a failed call releases nothing.
    pub fn release_graph(&self, graph_id: u64, node_count: u32) -> Result<GraphInfo> {
        self.read_graph(graph_id, node_count, DRM_TAS_GRAPH_INFO_RELEASE)
    }

    fn read_graph(&self, graph_id: u64, node_count: u32, flags: u32) -> Result<GraphInfo> {
        let mut infos = vec![drm_tas_node_info::default(); node_count as usize];
        let mut args = drm_tas_graph_info {
            graph_id,
            nodes: array_mut("GRAPH_INFO", &mut infos)?,
            flags,
            ..Default::default()
        };
        // SAFETY: the nodes array points to `infos`, `node_count` elements of
        // `drm_tas_node_info` that this function owns and does not touch
        // during the call; the kernel writes at most `count` of them, each
        // within its `stride`.
        unsafe { ioctl::graph_info(self.as_fd(), &mut args) }?;
        let nodes: Vec<NodeInfo> = infos.iter().map(NodeInfo::from_raw).collect();
        let failed = match args.node_count {
            0 => earliest_failed(&nodes),
            _ => failed(&args),
        };
        Ok(GraphInfo {
            nodes,
            done: args.done != 0,
            failed,
        })
    }

    /// Whether graph `graph_id` is done, and which node failed first with
    /// which error (`DRM_IOCTL_TAS_GRAPH_INFO` with
    /// `DRM_TAS_GRAPH_INFO_SUMMARY`): what a runtime checks after each
    /// step, without the per-node copy of [`Device::graph_info`] and
    /// without knowing the node count. With `release`, the record is
    /// forgotten if the graph is done, as [`Device::release_graph`] does.
    ///
    /// Errors (op `"GRAPH_INFO"`): `ENOENT` for an unknown graph (as for
    /// [`Device::graph_info`]); `EINVAL` from a kernel without the summary.
    pub fn graph_summary(&self, graph_id: u64, release: bool) -> Result<GraphSummary> {
        let mut args = drm_tas_graph_info {
            graph_id,
            flags: DRM_TAS_GRAPH_INFO_SUMMARY
                | if release {
                    DRM_TAS_GRAPH_INFO_RELEASE
                } else {
                    0
                },
            ..Default::default()
        };
        // SAFETY: the nodes array is empty (all zero): the kernel reads and
        // writes no element.
        unsafe { ioctl::graph_info(self.as_fd(), &mut args) }?;
        Ok(GraphSummary {
            done: args.done != 0,
            node_count: args.node_count,
            failed: failed(&args),
        })
    }

    /// Validates the nodes and edges of `graph` once and keeps them as a
    /// template (`DRM_IOCTL_TAS_TEMPLATE_CREATE`), destroyed when the
    /// returned [`Template`] is dropped. Waits and signals are given per
    /// launch, so `graph` must have none.
    ///
    /// Errors: `EINVAL` (op `"create_template"`) when `graph` has waits or
    /// signals. Op `"TEMPLATE_CREATE"`: those of [`Device::submit`] for its
    /// nodes and edges (`EINVAL`, `E2BIG`, `ELOOP`, `EDEADLK`, `EACCES`,
    /// `ENOENT`, `EFAULT`, `ENOMEM`), and `ENOSPC` when the file has 64
    /// templates or its templates would have more than
    /// [`Param::MaxTemplateNodes`] nodes together.
    pub fn create_template(&self, graph: &Graph) -> Result<Template<'_>> {
        if !graph.waits().is_empty() || !graph.signals().is_empty() {
            return Err(Error::new("create_template", Errno::INVAL));
        }
        let mut args = graph.template_args()?;
        // SAFETY: the arrays of `args` point into `graph`'s vectors, with
        // their lengths and element sizes, and `graph` is borrowed for the
        // call; the kernel only reads them.
        let r = unsafe { ioctl::template_create(self.as_fd(), &mut args) };
        r.map_err(|e| e.at(Culprit::from_raw(args.error_array, args.error_index)))?;
        Ok(Template {
            dev: self,
            handle: args.handle,
            node_count: graph.node_count(),
            slots: args.slots,
        })
    }

    /// Runs `template` as a new graph that waits for `waits` and signals
    /// `signals` (`DRM_IOCTL_TAS_TEMPLATE_LAUNCH`); returns the graph id for
    /// [`Device::graph_info`] (with [`Template::node_count`] nodes).
    ///
    /// Errors: `EINVAL` (op `"launch"`) for a template of another `Device`
    /// or a node target beyond the template's nodes. Op
    /// `"TEMPLATE_LAUNCH"`: those of [`Device::submit`] for its waits,
    /// signals and flags (`EINVAL`, `E2BIG`, `ENOENT`, `EFAULT`, `ENOMEM`;
    /// `EINTR` as there), and `ENOENT` for an unknown template.
    ///
    /// Each launch is a graph of its own: a host node of the template is
    /// reported with the launch's id, and a [`Target::Start`] signal of it
    /// gives the launch its own start point.
    pub fn launch(
        &self,
        template: &Template<'_>,
        waits: &[(SyncPoint, Target)],
        signals: &[(SyncPoint, Target)],
    ) -> Result<u64> {
        self.launch_with(template, waits, signals, SubmitFlags::empty())
    }

    /// As [`Device::launch`], with `flags`: [`SubmitFlags::KEEP`] keeps the
    /// launch's record until [`Device::release_graph`] reads it;
    /// [`SubmitFlags::ORDERED`] starts the launch after the template's
    /// previous ordered launch has completed.
    ///
    /// Errors: as [`Device::launch`]; `EINVAL` for
    /// [`SubmitFlags::FIFO`], which launches do not take; `ENOSPC` (op
    /// `"TEMPLATE_LAUNCH"`) with [`SubmitFlags::KEEP`] when the file keeps
    /// 1024 graphs or [`Param::MaxKeptNodes`] nodes already.
    pub fn launch_with(
        &self,
        template: &Template<'_>,
        waits: &[(SyncPoint, Target)],
        signals: &[(SyncPoint, Target)],
        flags: SubmitFlags,
    ) -> Result<u64> {
        self.launch_bound(template, waits, signals, &[], flags)
    }

    /// As [`Device::launch_with`], on other buffers: each [`Bind`] makes
    /// the launch use its buffer in place of the template's buffer of its
    /// slot (see [`Template::slots`]). A rejected launch runs nothing.
    ///
    /// ```no_run
    /// use tas::{Bind, Device, Graph, Node, Op, SubmitFlags};
    ///
    /// let dev = Device::open()?;
    /// let (x, y) = (dev.create_bo(4096)?, dev.create_bo(4096)?);
    /// let mut g = Graph::new();
    /// // Slot 0: y (the destination is used first), slot 1: x.
    /// g.add(Node::new(0, Op::Copy { dst: y.whole(), src: x.whole() }));
    /// let t = dev.create_template(&g)?;
    /// assert_eq!(t.slots(), 2);
    /// let (x2, y2) = (dev.create_bo(8192)?, dev.create_bo(4096)?);
    /// // This launch copies the second page of x2 to y2.
    /// let binds = [Bind::new(0, &y2, 0), Bind::new(1, &x2, 4096)];
    /// dev.launch_bound(&t, &[], &[], &binds, SubmitFlags::empty())?;
    /// # Ok::<(), tas::Error>(())
    /// ```
    ///
    /// Errors: as [`Device::launch_with`], and op `"TEMPLATE_LAUNCH"` with
    /// [`Culprit::Bind`]: `EINVAL` for a slot out of range or bound twice, or
    /// a buffer that does not hold the slot's extent at the offset; `ENOENT`
    /// for a buffer of another device; `E2BIG` (no culprit) for more binds
    /// than slots.
    pub fn launch_bound(
        &self,
        template: &Template<'_>,
        waits: &[(SyncPoint, Target)],
        signals: &[(SyncPoint, Target)],
        binds: &[Bind<'_>],
        flags: SubmitFlags,
    ) -> Result<u64> {
        const OP: &str = "TEMPLATE_LAUNCH";
        if !core::ptr::eq(template.dev, self) {
            return Err(Error::new("launch", Errno::INVAL));
        }
        let encode = |entries: &[(SyncPoint, Target)]| -> Result<Vec<drm_tas_sync>> {
            entries
                .iter()
                .map(|&(point, target)| match target.node() {
                    Some(id) if id.index() >= template.node_count => {
                        Err(Error::new("launch", Errno::INVAL))
                    }
                    _ => Ok(point.to_raw(target)),
                })
                .collect()
        };
        let waits = encode(waits)?;
        let signals = encode(signals)?;
        let binds: Vec<drm_tas_bind> = binds.iter().copied().map(Bind::to_raw).collect();
        let bind_flag = if binds.is_empty() {
            0
        } else {
            DRM_TAS_LAUNCH_BINDS
        };
        let mut args = drm_tas_template_launch {
            handle: template.handle,
            flags: flags.bits() | bind_flag,
            waits: array(OP, &waits)?,
            signals: array(OP, &signals)?,
            binds: array(OP, &binds)?,
            ..Default::default()
        };
        // SAFETY: the arrays of `args` point into `waits`, `signals` and
        // `binds`, with their lengths and element sizes, alive for the call;
        // the kernel only reads them.
        let r = unsafe { ioctl::template_launch(self.as_fd(), &mut args) };
        r.map_err(|e| e.at(Culprit::from_raw(args.error_array, args.error_index)))?;
        Ok(args.graph_id)
    }

    /// Reports that the host node `node` of graph `graph_id` (an
    /// [`Op::Host`](crate::Op::Host) node, as returned by
    /// [`Device::submit`] or [`Device::launch`]) has done its work
    /// (`DRM_IOCTL_TAS_HOST_DONE`): `None` when it succeeded, or the error
    /// that the node completes with and its successors inherit. The node's
    /// fences signal and its successors are released.
    ///
    /// The thread learns that the node was released by waiting for a
    /// [`Target::Start`] point of it ([`Syncobj::wait`]). A host node not
    /// reported within [`Param::HostTimeoutNs`] of its release completes
    /// with `ETIMEDOUT` (its thread then gets `EALREADY` while the rest of
    /// the graph runs, `ENOENT` after); closing the device completes its
    /// host nodes with `ESRCH`, as every node the close cancels.
    ///
    /// ```no_run
    /// use std::time::Duration;
    /// use tas::{Device, Graph, Node, Op, SubmitFlags, Target};
    ///
    /// let dev = Device::open()?;
    /// let (start, done) = (dev.create_syncobj(false)?, dev.create_syncobj(false)?);
    /// let mut g = Graph::new();
    /// let gpu = g.add(Node::new(0, Op::Nop).duration_ns(500_000));
    /// let cpu = g.add(Node::host());
    /// let next = g.add(Node::new(1, Op::Nop).duration_ns(500_000));
    /// g.edge(gpu, cpu)?;
    /// g.edge(cpu, next)?;
    /// g.signal(start.at(1), Target::Start(cpu))?;
    /// g.signal(done.at(1), Target::Graph)?;
    /// let id = dev.submit(&g, SubmitFlags::empty())?;
    /// start.wait(1, Duration::from_secs(10))?; // `gpu` has finished
    /// // ... the CPU work ...
    /// dev.host_done(id, cpu, None)?; // releases `next`
    /// done.wait(1, Duration::from_secs(10))?;
    /// # Ok::<(), tas::Error>(())
    /// ```
    ///
    /// Errors (op `"HOST_DONE"`, see [`Error`]'s predicates):
    /// - `ENOENT` ([`Error::is_not_found`]): no graph of this device file
    ///   with that id is in flight (it may have completed), or it has no
    ///   such node.
    /// - `EINVAL` ([`Error::is_invalid`]): the node is not a host node, or
    ///   the error is not a userspace errno (1 to 511).
    /// - `EBUSY` ([`Error::is_not_released`]): the node has not been
    ///   released yet (its dependencies are not done).
    /// - `EALREADY` ([`Error::is_already_done`]): the node has completed
    ///   already (reported, timed out, or cancelled by the error of a
    ///   dependency).
    /// - `EFAULT`.
    pub fn host_done(&self, graph_id: u64, node: NodeId, error: Option<Errno>) -> Result<()> {
        self.host_done_raw(graph_id, node.index(), host_error(error))
    }

    /// As [`Device::host_done`], with the node's index and the error as
    /// the uAPI has them: 0, or a negative errno (-511 to -1; the kernel
    /// rejects anything else with `EINVAL`).
    ///
    /// Errors: as [`Device::host_done`].
    pub fn host_done_raw(&self, graph_id: u64, node: u32, error: i32) -> Result<()> {
        let args = drm_tas_host_done {
            graph_id,
            node,
            error,
            flags: 0,
            pad: 0,
        };
        ioctl::host_done(self.as_fd(), &args)
    }

    fn destroy_template(&self, handle: u32) -> Result<()> {
        let mut args = drm_tas_template_destroy {
            handle,
            ..Default::default()
        };
        ioctl::template_destroy(self.as_fd(), &mut args)
    }
}

/// A graph validated once by the kernel, to be launched any number of times
/// with [`Device::launch`]; destroyed on drop (launches in flight complete
/// normally).
///
/// Made by [`Device::create_template`]. The [`NodeId`](crate::NodeId)s of
/// the graph it was made from name its nodes in launch waits and signals.
#[derive(Debug)]
pub struct Template<'d> {
    dev: &'d Device,
    handle: u32,
    node_count: u32,
    slots: u32,
}

/// A buffer that a launch uses in place of the template's buffer of a slot
/// ([`Device::launch_bound`]): every range that the template's nodes use in
/// the slot, at offset `o` of the template's buffer, is at `offset + o` of
/// `bo` in that launch.
#[derive(Debug, Clone, Copy)]
pub struct Bind<'b> {
    slot: u32,
    handle: u32,
    offset: u64,
    _bo: PhantomData<&'b Bo<'b>>,
}

impl<'b> Bind<'b> {
    /// Binds `bo` at `offset` to slot `slot`.
    pub fn new(slot: u32, bo: &'b Bo<'_>, offset: u64) -> Self {
        Bind {
            slot,
            handle: bo.handle(),
            offset,
            _bo: PhantomData,
        }
    }

    fn to_raw(self) -> drm_tas_bind {
        drm_tas_bind {
            slot: self.slot,
            handle: self.handle,
            offset: self.offset,
        }
    }
}

impl Template<'_> {
    /// The template's handle in its file.
    pub fn handle(&self) -> u32 {
        self.handle
    }

    /// Number of nodes, as [`Device::graph_info`] takes it for launches.
    pub fn node_count(&self) -> u32 {
        self.node_count
    }

    /// Number of buffer slots: the distinct buffers of the template's
    /// nodes, numbered in the order of their first use (nodes in index
    /// order, and in each node the destination, then the sources), as
    /// [`Bind`] refers to them. 0 on a kernel older than uAPI version 7.
    pub fn slots(&self) -> u32 {
        self.slots
    }

    /// Destroys the template now, reporting errors
    /// (`DRM_IOCTL_TAS_TEMPLATE_DESTROY`).
    ///
    /// Errors (op `"TEMPLATE_DESTROY"`): `ENOENT` for an unknown template;
    /// `EINVAL` for non-zero padding; `EFAULT`.
    pub fn destroy(self) -> Result<()> {
        let this = ManuallyDrop::new(self);
        this.dev.destroy_template(this.handle)
    }
}

impl Drop for Template<'_> {
    fn drop(&mut self) {
        // Errors cannot be reported from drop; see `Template::destroy`.
        let _ = self.dev.destroy_template(self.handle);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params() {
        assert_eq!(Param::ALL.len(), 17);
        for (i, p) in Param::ALL.iter().enumerate() {
            assert_eq!(p.to_raw(), i as u32);
        }
        assert_eq!(Param::NumRings.name(), "NUM_RINGS");
        assert_eq!(Param::MaxTemplateNodes.to_raw(), 13);
        assert_eq!(Param::HostTimeoutNs.to_raw(), 16);
        assert_eq!(Param::HostTimeoutNs.name(), "HOST_TIMEOUT_NS");
    }

    #[test]
    fn node_info() {
        let raw = drm_tas_node_info {
            queued_ns: 1,
            ready_ns: 2,
            started_ns: 3,
            finished_ns: 10,
            error: -(Errno::TIMEDOUT.raw_os_error()),
            ring: 2,
            tag: u64::MAX - 1,
        };
        let n = NodeInfo::from_raw(&raw);
        assert_eq!(n.error, Some(Errno::TIMEDOUT));
        assert_eq!(n.ring, 2);
        assert_eq!(n.tag, u64::MAX - 1);
        assert_eq!(n.exec_ns(), 7);
        let ok = NodeInfo::from_raw(&drm_tas_node_info::default());
        assert_eq!(ok.error, None);
        assert_eq!(ok.exec_ns(), 0);
        let g = GraphInfo {
            nodes: vec![ok, n],
            done: true,
            failed: None,
        };
        assert_eq!(g.first_error(), Some(Errno::TIMEDOUT));
    }

    #[test]
    fn failed_node() {
        let mut args = drm_tas_graph_info {
            error_node: DRM_TAS_NODE_GRAPH,
            ..Default::default()
        };
        assert_eq!(failed(&args), None);
        args.error_node = 3;
        args.error = -5;
        assert_eq!(failed(&args), Some((NodeId::from_index(3), Errno::IO)));
        // Without the kernel's answer: the earliest finish, then the index.
        let node = |finished_ns, error| NodeInfo {
            finished_ns,
            error,
            ..NodeInfo::from_raw(&drm_tas_node_info::default())
        };
        let nodes = [
            node(30, Some(Errno::IO)),
            node(10, None),
            node(20, Some(Errno::TIMEDOUT)),
            node(20, Some(Errno::CANCELED)),
        ];
        assert_eq!(
            earliest_failed(&nodes),
            Some((NodeId::from_index(2), Errno::TIMEDOUT))
        );
        assert_eq!(
            earliest_failed(&nodes[..2]),
            Some((NodeId::from_index(0), Errno::IO))
        );
        assert_eq!(earliest_failed(&nodes[1..2]), None);
    }

    #[test]
    fn host_errors() {
        assert_eq!(host_error(None), 0);
        assert_eq!(host_error(Some(Errno::IO)), -5);
        assert_eq!(host_error(Some(Errno::CANCELED)), -125);
        let raw = drm_tas_node_info {
            error: host_error(Some(Errno::IO)),
            ..Default::default()
        };
        assert_eq!(NodeInfo::from_raw(&raw).error, Some(Errno::IO));
    }

    #[test]
    fn open_missing_path() {
        let e = Device::open_path("/nonexistent/tas-rs-test").unwrap_err();
        assert_eq!(e, Error::new("open", Errno::NOENT));
    }

    #[test]
    fn from_fd_rejects_non_drm() {
        let file = std::fs::File::open("/dev/null").unwrap();
        let e = Device::from_fd(file.into()).unwrap_err();
        assert_eq!(e.op, "VERSION");
    }
}
