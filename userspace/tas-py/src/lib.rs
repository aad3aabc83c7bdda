// SPDX-License-Identifier: GPL-2.0
//! The native part of the `tas` Python module (`tas._tas`, which `tas`
//! re-exports): the drm/tas uAPI for Python, over the `tas` crate
//! (`userspace/tas-rs`).
//!
//! The module is a thin layer: every ioctl, structure and rule of the uAPI
//! stays in the `tas` crate, and this crate only converts arguments, results
//! and errors. Errors are `tas.Error`, a subclass of `OSError` whose `errno`
//! is the kernel's and whose message names the failed operation, so that
//! Python code checks `e.errno == errno.EINVAL` as for any system call.
//! Blocking calls (submissions that wait for room, syncobj waits) release
//! the GIL.
//!
//! Objects made by a `Device` (buffers, syncobjs, templates) keep it open:
//! the `tas` crate's types borrow the device, and the objects here hold the
//! device (`Arc`) beside the borrowing value (see [`Owned`]).

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks)]

use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use std::sync::Arc;
use std::time::Duration;

create_exception!(
    tas,
    Error,
    PyOSError,
    "A failed drm/tas operation: `errno` is the kernel's errno, the message names the operation."
);

/// Converts an error of the `tas` crate into `tas.Error(errno, "OP: NAME (description)")`.
fn err(e: tas::Error) -> PyErr {
    Error::new_err((e.errno.raw_os_error(), e.to_string()))
}

/// Converts a result of the `tas` crate.
fn check<T>(r: tas::Result<T>) -> PyResult<T> {
    r.map_err(err)
}

/// A value of the `tas` crate that borrows a [`tas::Device`], kept together
/// with the device it borrows.
///
/// # Invariants
///
/// `value` borrows `*dev` and nothing else; `dev` keeps the device at the
/// same address for as long as `value` exists (it is dropped after `value`,
/// fields drop in declaration order). The `'static` lifetime of `value` is
/// never handed out: [`Owned::get`] shortens it to the borrow of `self`.
struct Owned<T: 'static> {
    value: T,
    #[expect(dead_code, reason = "only held, to keep the device of `value` alive")]
    dev: Arc<tas::Device>,
}

impl<T: 'static> Owned<T> {
    /// Makes the value with `make`, from a device that lives as long as the
    /// result.
    fn new(
        dev: &Arc<tas::Device>,
        make: impl FnOnce(&'static tas::Device) -> tas::Result<T>,
    ) -> PyResult<Self> {
        // SAFETY: the reference points into the `Arc`'s allocation, which
        // does not move and which the clone stored beside the value keeps
        // alive until after the value is dropped (type invariant).
        let dev_ref: &'static tas::Device = unsafe { &*Arc::as_ptr(dev) };
        let value = check(make(dev_ref))?;
        // INVARIANT: `value` borrows `dev_ref`, which `dev` keeps alive.
        Ok(Self {
            value,
            dev: dev.clone(),
        })
    }

    fn get(&self) -> &T {
        &self.value
    }
}

/// The DRM GPU scheduler class of a node: `"normal"`, `"latency"` or
/// `"batch"`.
fn class(name: &str) -> PyResult<tas::Class> {
    match name {
        "normal" => Ok(tas::Class::Normal),
        "latency" => Ok(tas::Class::Latency),
        "batch" => Ok(tas::Class::Batch),
        _ => Err(PyValueError::new_err(format!(
            "unknown class {name:?} (normal, latency or batch)"
        ))),
    }
}

/// A buffer range argument: a `Bo` (the whole buffer) or a
/// `(handle, offset, size)` tuple such as `Bo.range()` returns.
#[derive(FromPyObject)]
enum Range<'py> {
    Bo(PyRef<'py, Bo>),
    Tuple((u32, u64, u64)),
}

impl Range<'_> {
    fn get(&self) -> tas::BufRange {
        match self {
            Range::Bo(bo) => bo.0.get().whole(),
            Range::Tuple((h, o, s)) => tas::BufRange::new(*h, *o, *s),
        }
    }
}

/// The node a wait or signal applies to: an index, or `None` for the
/// whole graph.
fn target(node: Option<u32>) -> tas::Target {
    node.map_or(tas::Target::Graph, |i| {
        tas::Target::Node(tas::NodeId::from_index(i))
    })
}

/// As [`target`]; with `on_start`, the release of host node `node`
/// (`DRM_TAS_SYNC_ON_START`), which needs a node.
fn sync_target(node: Option<u32>, on_start: bool) -> PyResult<tas::Target> {
    match (node, on_start) {
        (_, false) => Ok(target(node)),
        (Some(i), true) => Ok(tas::Target::Start(tas::NodeId::from_index(i))),
        (None, true) => Err(PyValueError::new_err(
            "on_start needs the index of a host node, not the whole graph",
        )),
    }
}

/// A wait or signal entry of `Device.launch()`: `(syncobj, point, node)`,
/// or `(syncobj, point, node, on_start)` for the start point of a host node.
#[derive(FromPyObject)]
enum SyncEntry<'py> {
    Plain((PyRef<'py, Syncobj>, u64, Option<u32>)),
    Start((PyRef<'py, Syncobj>, u64, Option<u32>, bool)),
}

impl SyncEntry<'_> {
    fn get(&self) -> PyResult<(tas::SyncPoint, tas::Target)> {
        let (s, p, n, on_start) = match self {
            SyncEntry::Plain((s, p, n)) => (s, *p, *n, false),
            SyncEntry::Start((s, p, n, on_start)) => (s, *p, *n, *on_start),
        };
        Ok((s.0.get().at(p), sync_target(n, on_start)?))
    }
}

/// An open drm/tas device file.
///
/// `Device()` opens the first drm/tas node (render nodes first, by driver
/// name, on any bus); `Device("/dev/dri/renderD128")` opens a given one.
#[pyclass(frozen, module = "tas")]
struct Device(Arc<tas::Device>);

#[pymethods]
impl Device {
    #[new]
    #[pyo3(signature = (path = None))]
    fn new(path: Option<std::path::PathBuf>) -> PyResult<Self> {
        let dev = check(match path {
            Some(p) => tas::Device::open_path(p),
            None => tas::Device::open(),
        })?;
        Ok(Self(Arc::new(dev)))
    }

    /// The path the device was opened at, or `None`.
    #[getter]
    fn path(&self) -> Option<std::path::PathBuf> {
        self.0.path().map(|p| p.to_path_buf())
    }

    /// A parameter by its name without the `DRM_TAS_PARAM_` prefix, e.g.
    /// `"NUM_RINGS"`.
    fn param(&self, name: &str) -> PyResult<u64> {
        let p = tas::Param::ALL
            .iter()
            .find(|p| p.name() == name)
            .ok_or_else(|| PyValueError::new_err(format!("unknown parameter {name:?}")))?;
        check(self.0.param(*p))
    }

    /// Every parameter this kernel knows, as a dict by name.
    fn params(&self) -> Vec<(&'static str, u64)> {
        self.0
            .params()
            .into_iter()
            .filter_map(|(p, v)| v.ok().map(|v| (p.name(), v)))
            .collect()
    }

    /// A zeroed buffer object of `size` bytes.
    fn bo(&self, size: u64) -> PyResult<Bo> {
        Ok(Bo(Owned::new(&self.0, |d| d.create_bo(size))?))
    }

    /// A syncobj, signalled already if `signalled`.
    #[pyo3(signature = (signalled = false))]
    fn syncobj(&self, signalled: bool) -> PyResult<Syncobj> {
        Ok(Syncobj(Owned::new(&self.0, |d| {
            d.create_syncobj(signalled)
        })?))
    }

    /// Submits `graph` and returns its id; `fifo` selects the stock
    /// dispatch; `keep` keeps its record until `graph_info(...,
    /// release=True)` reads it. May block (without the GIL) until the file
    /// has room.
    #[pyo3(signature = (graph, fifo = false, keep = false))]
    fn submit(&self, py: Python<'_>, graph: &Graph, fifo: bool, keep: bool) -> PyResult<u64> {
        let mut flags = tas::SubmitFlags::empty();
        flags.set(tas::SubmitFlags::FIFO, fifo);
        flags.set(tas::SubmitFlags::KEEP, keep);
        let g = &graph.0;
        check(py.detach(|| self.0.submit(g, flags)))
    }

    /// The per-node results of graph `graph_id`, which has `node_count`
    /// nodes; with `release`, the record is forgotten if the graph is done.
    #[pyo3(signature = (graph_id, node_count, release = false))]
    fn graph_info(
        &self,
        py: Python<'_>,
        graph_id: u64,
        node_count: u32,
        release: bool,
    ) -> PyResult<GraphInfo> {
        let info = if release {
            self.0.release_graph(graph_id, node_count)
        } else {
            self.0.graph_info(graph_id, node_count)
        };
        GraphInfo::new(py, check(info)?)
    }

    /// Makes `graph` (nodes and edges only) a template, launched with
    /// `launch()`.
    fn template(&self, graph: &Graph) -> PyResult<Template> {
        Ok(Template(Owned::new(&self.0, |d| {
            d.create_template(&graph.0)
        })?))
    }

    /// Launches `template` as a new graph and returns its id. `waits` and
    /// `signals` are lists of `(syncobj, point, node)`, `node` an index of
    /// the template or `None` for the whole graph; a signal
    /// `(syncobj, point, node, True)` signals when host node `node` of this
    /// launch is released (as `Graph.signal(..., on_start=True)`); `keep`
    /// as for `submit()`. `binds` maps buffer slots of the template
    /// (`Template.slots`: its distinct buffers in the order of their first
    /// use) to `(bo, offset)` pairs this launch uses instead, e.g.
    /// `{0: (x2, 0)}`; a slot left out keeps the template's buffer.
    #[pyo3(signature = (template, waits = Vec::new(), signals = Vec::new(), keep = false,
                        binds = None))]
    fn launch(
        &self,
        py: Python<'_>,
        template: &Template,
        waits: Vec<SyncEntry<'_>>,
        signals: Vec<SyncEntry<'_>>,
        keep: bool,
        binds: Option<BindTable<'_>>,
    ) -> PyResult<u64> {
        let enc = |v: &[SyncEntry<'_>]| -> PyResult<Vec<_>> { v.iter().map(|e| e.get()).collect() };
        let (w, s) = (enc(&waits)?, enc(&signals)?);
        let binds = binds.unwrap_or_default();
        let b: Vec<tas::Bind<'_>> = binds
            .iter()
            .map(|(slot, (bo, offset))| tas::Bind::new(*slot, bo.0.get(), *offset))
            .collect();
        let t = template.0.get();
        let mut flags = tas::SubmitFlags::empty();
        flags.set(tas::SubmitFlags::KEEP, keep);
        check(py.detach(|| self.0.launch_bound(t, &w, &s, &b, flags)))
    }

    /// Reports that host node `node` of graph `graph_id` has done its work,
    /// which releases its successors. `error` is 0 (or `None`) when the
    /// work succeeded, else the errno (`errno.EIO`; `-errno.EIO` is taken
    /// the same way) that the node completes with and its successors
    /// inherit. Raises `tas.Error` with `ENOENT` (the graph is not in
    /// flight, or has no such node), `EINVAL` (not a host node, or not a
    /// userspace errno, 1 to 511), `EBUSY` (the node is not released yet)
    /// or `EALREADY` (it has completed already: reported, timed out or
    /// cancelled).
    #[pyo3(signature = (graph_id, node, error = None))]
    fn host_done(&self, graph_id: u64, node: u32, error: Option<i64>) -> PyResult<()> {
        let raw = i32::try_from(error.unwrap_or(0).unsigned_abs())
            .map_err(|_| PyValueError::new_err("error is not an errno"))?;
        check(self.0.host_done_raw(graph_id, node, -raw))
    }
}

/// A buffer object; its handle is closed when it is garbage collected.
#[pyclass(frozen, module = "tas")]
struct Bo(Owned<tas::Bo<'static>>);

#[pymethods]
impl Bo {
    /// The GEM handle.
    #[getter]
    fn handle(&self) -> u32 {
        self.0.get().handle()
    }

    /// The size asked for, in bytes.
    #[getter]
    fn size(&self) -> u64 {
        self.0.get().size()
    }

    /// The range `(handle, offset, size)` for the node constructors.
    fn range(&self, offset: u64, size: u64) -> (u32, u64, u64) {
        (self.handle(), offset, size)
    }

    /// Reads `size` bytes at `offset` (through a mapping made for the call).
    fn read(&self, offset: usize, size: usize) -> PyResult<Vec<u8>> {
        let map = check(self.0.get().map())?;
        if offset.checked_add(size).is_none_or(|end| end > map.len()) {
            return Err(PyValueError::new_err("range beyond the buffer"));
        }
        let mut buf = vec![0; size];
        map.read(offset, &mut buf);
        Ok(buf)
    }

    /// Writes `data` at `offset`.
    fn write(&self, offset: usize, data: &[u8]) -> PyResult<()> {
        let mut map = check(self.0.get().map())?;
        if offset
            .checked_add(data.len())
            .is_none_or(|end| end > map.len())
        {
            return Err(PyValueError::new_err("range beyond the buffer"));
        }
        map.write(offset, data);
        Ok(())
    }

    /// The buffer as a list of 32-bit little-endian integers.
    fn u32s(&self) -> PyResult<Vec<u32>> {
        let map = check(self.0.get().map())?;
        Ok(map.u32s().collect())
    }
}

/// A DRM syncobj, binary (point 0) or timeline; destroyed when garbage
/// collected.
#[pyclass(frozen, module = "tas")]
struct Syncobj(Owned<tas::Syncobj<'static>>);

#[pymethods]
impl Syncobj {
    /// The syncobj handle.
    #[getter]
    fn handle(&self) -> u32 {
        self.0.get().raw()
    }

    /// Waits until `point` (0: the binary fence) has been submitted and has
    /// signalled, at most `timeout` seconds (`None`: no limit), without the
    /// GIL. Raises `tas.Error` with `errno.ETIME` on timeout.
    #[pyo3(signature = (point = 0, timeout = None))]
    fn wait(&self, py: Python<'_>, point: u64, timeout: Option<f64>) -> PyResult<()> {
        let timeout = match timeout {
            None => Duration::MAX,
            Some(t) => Duration::try_from_secs_f64(t)
                .map_err(|_| PyValueError::new_err("invalid timeout"))?,
        };
        let s = self.0.get();
        check(py.detach(|| s.wait(point, timeout)))
    }

    /// The last signalled timeline point.
    fn query(&self) -> PyResult<u64> {
        check(self.0.get().query())
    }

    /// The last submitted timeline point, signalled or not.
    fn last_submitted(&self) -> PyResult<u64> {
        check(self.0.get().last_submitted())
    }

    /// Signals `point` from the CPU (0: the binary fence).
    #[pyo3(signature = (point = 0))]
    fn signal(&self, point: u64) -> PyResult<()> {
        check(self.0.get().signal(point))
    }

    /// Removes the fence of a binary syncobj.
    fn reset(&self) -> PyResult<()> {
        check(self.0.get().reset())
    }
}

/// A graph validated once, launched with `Device.launch()`; destroyed when
/// garbage collected.
#[pyclass(frozen, module = "tas")]
struct Template(Owned<tas::Template<'static>>);

#[pymethods]
impl Template {
    /// The number of nodes, for `Device.graph_info()` of its launches.
    #[getter]
    fn node_count(&self) -> u32 {
        self.0.get().node_count()
    }

    /// The number of buffer slots, which `Device.launch(binds=...)` binds:
    /// the template's distinct buffers, numbered in the order of their
    /// first use (nodes in order, and in each the destination, then the
    /// sources).
    #[getter]
    fn slots(&self) -> u32 {
        self.0.get().slots()
    }
}

/// `Device.launch()`'s binds: a dict from slot to `(bo, offset)`.
type BindTable<'py> = std::collections::BTreeMap<u32, (PyRef<'py, Bo>, u64)>;

/// A dependency graph under construction.
///
/// Each node constructor returns the node's index, which `edge()`, `wait()`
/// and `signal()` take. `ring`, `duration_ns`, `cls` (`"normal"`,
/// `"latency"`, `"batch"`), `gang` (0: none) and `tag` (the caller's 64-bit
/// name for the node, reported by `graph_info()` and carried by the
/// scheduler's trace events) are common to all of them, but for `host()`,
/// which has no ring, duration or gang.
#[pyclass(module = "tas")]
#[derive(Default)]
struct Graph(tas::Graph);

impl Graph {
    fn add(
        &mut self,
        ring: u32,
        op: tas::Op,
        duration_ns: u64,
        cls: &str,
        gang: u32,
        tag: u64,
    ) -> PyResult<u32> {
        let node = tas::Node::new(ring, op)
            .duration_ns(duration_ns)
            .class(class(cls)?)
            .gang(gang)
            .tag(tag);
        Ok(self.0.add(node).index())
    }
}

#[pymethods]
impl Graph {
    #[new]
    fn new() -> Self {
        Self::default()
    }

    fn __len__(&self) -> usize {
        self.0.len()
    }

    /// A node that only takes its duration.
    #[pyo3(signature = (ring, duration_ns = 0, cls = "normal", gang = 0, tag = 0))]
    fn nop(
        &mut self,
        ring: u32,
        duration_ns: u64,
        cls: &str,
        gang: u32,
        tag: u64,
    ) -> PyResult<u32> {
        self.add(ring, tas::Op::Nop, duration_ns, cls, gang, tag)
    }

    /// A node that fills `dst` with the 32-bit `value`.
    #[pyo3(signature = (ring, dst, value, duration_ns = 0, cls = "normal", gang = 0, tag = 0))]
    #[allow(clippy::too_many_arguments)]
    fn fill(
        &mut self,
        ring: u32,
        dst: Range<'_>,
        value: u32,
        duration_ns: u64,
        cls: &str,
        gang: u32,
        tag: u64,
    ) -> PyResult<u32> {
        let op = tas::Op::Fill {
            dst: dst.get(),
            value,
        };
        self.add(ring, op, duration_ns, cls, gang, tag)
    }

    /// A node that copies `src` to `dst`.
    #[pyo3(signature = (ring, dst, src, duration_ns = 0, cls = "normal", gang = 0, tag = 0))]
    #[allow(clippy::too_many_arguments)]
    fn copy(
        &mut self,
        ring: u32,
        dst: Range<'_>,
        src: Range<'_>,
        duration_ns: u64,
        cls: &str,
        gang: u32,
        tag: u64,
    ) -> PyResult<u32> {
        let op = tas::Op::Copy {
            dst: dst.get(),
            src: src.get(),
        };
        self.add(ring, op, duration_ns, cls, gang, tag)
    }

    /// A node that adds `a` and `b` element-wise (32-bit) into `dst`.
    #[pyo3(signature = (ring, dst, a, b, duration_ns = 0, cls = "normal", gang = 0, tag = 0))]
    #[allow(clippy::too_many_arguments)]
    fn add_u32(
        &mut self,
        ring: u32,
        dst: Range<'_>,
        a: Range<'_>,
        b: Range<'_>,
        duration_ns: u64,
        cls: &str,
        gang: u32,
        tag: u64,
    ) -> PyResult<u32> {
        let op = tas::Op::Add {
            dst: dst.get(),
            a: a.get(),
            b: b.get(),
        };
        self.add(ring, op, duration_ns, cls, gang, tag)
    }

    /// A node that multiplies the 32-bit matrices `a` (`m` x `k`) and `b`
    /// (`k` x `n`) into `dst` (`m` x `n`).
    #[pyo3(signature = (ring, dst, a, b, m, n, k, duration_ns = 0, cls = "normal", gang = 0, tag = 0))]
    #[allow(clippy::too_many_arguments)]
    fn matmul(
        &mut self,
        ring: u32,
        dst: Range<'_>,
        a: Range<'_>,
        b: Range<'_>,
        m: u16,
        n: u16,
        k: u16,
        duration_ns: u64,
        cls: &str,
        gang: u32,
        tag: u64,
    ) -> PyResult<u32> {
        let op = tas::Op::MatMul {
            dst: dst.get(),
            a: a.get(),
            b: b.get(),
            m,
            n,
            k,
        };
        self.add(ring, op, duration_ns, cls, gang, tag)
    }

    /// A host node: CPU work that a thread of the caller does inside the
    /// graph (uAPI version 6). Once its dependencies are done, its
    /// `signal(..., on_start=True)` points signal, which wakes the thread
    /// waiting for them; the thread does the work and reports it with
    /// `Device.host_done()`, which releases the node's successors. A host
    /// node not reported within the `HOST_TIMEOUT_NS` parameter completes
    /// with `ETIMEDOUT`. Not with `submit(fifo=True)`.
    #[pyo3(signature = (cls = "normal", tag = 0))]
    fn host(&mut self, cls: &str, tag: u64) -> PyResult<u32> {
        self.add(0, tas::Op::Host, 0, cls, 0, tag)
    }

    /// The dependency "`to` starts after `src` has finished".
    fn edge(&mut self, src: u32, to: u32) -> PyResult<()> {
        check(
            self.0
                .edge(tas::NodeId::from_index(src), tas::NodeId::from_index(to)),
        )
    }

    /// Makes node `node` (`None`: every node) wait for `point` of
    /// `syncobj`.
    #[pyo3(signature = (syncobj, point = 0, node = None))]
    fn wait(&mut self, syncobj: &Syncobj, point: u64, node: Option<u32>) -> PyResult<()> {
        check(self.0.wait(syncobj.0.get().at(point), target(node)))
    }

    /// Signals `point` of `syncobj` when node `node` (`None`: the whole
    /// graph) has completed; with `on_start`, when host node `node` is
    /// released (its dependencies done), which is when its thread may
    /// start the work.
    #[pyo3(signature = (syncobj, point = 0, node = None, on_start = false))]
    fn signal(
        &mut self,
        syncobj: &Syncobj,
        point: u64,
        node: Option<u32>,
        on_start: bool,
    ) -> PyResult<()> {
        let target = sync_target(node, on_start)?;
        check(self.0.signal(syncobj.0.get().at(point), target))
    }
}

/// The result of one node: CLOCK_MONOTONIC timestamps in ns (0: not
/// reached), its errno or `None`, its ring and its tag. A host node's ring
/// is the `NUM_RINGS` parameter, its `started_ns` the time it was released
/// to its thread and its `finished_ns` that of the report.
#[pyclass(frozen, get_all, module = "tas")]
struct NodeInfo {
    queued_ns: u64,
    ready_ns: u64,
    started_ns: u64,
    finished_ns: u64,
    error: Option<i32>,
    ring: u32,
    tag: u64,
    exec_ns: u64,
}

impl From<&tas::NodeInfo> for NodeInfo {
    fn from(n: &tas::NodeInfo) -> Self {
        Self {
            queued_ns: n.queued_ns,
            ready_ns: n.ready_ns,
            started_ns: n.started_ns,
            finished_ns: n.finished_ns,
            error: n.error.map(|e| e.raw_os_error()),
            ring: n.ring,
            tag: n.tag,
            exec_ns: n.exec_ns(),
        }
    }
}

#[pymethods]
impl NodeInfo {
    fn __repr__(&self) -> String {
        format!(
            "NodeInfo(ring={}, exec_ns={}, error={:?})",
            self.ring, self.exec_ns, self.error
        )
    }
}

/// The results of a graph: `nodes` (a list of `NodeInfo` by node index)
/// and `done`.
#[pyclass(frozen, get_all, module = "tas")]
struct GraphInfo {
    nodes: Vec<Py<NodeInfo>>,
    done: bool,
}

impl GraphInfo {
    fn new(py: Python<'_>, info: tas::GraphInfo) -> PyResult<Self> {
        let nodes = info
            .nodes
            .iter()
            .map(|n| Py::new(py, NodeInfo::from(n)))
            .collect::<PyResult<_>>()?;
        Ok(Self {
            nodes,
            done: info.done,
        })
    }
}

/// CLOCK_MONOTONIC in nanoseconds, the clock of `NodeInfo`.
#[pyfunction]
fn now_ns() -> u64 {
    tas::now_ns()
}

/// The drm/tas uAPI: devices, graphs, syncobjs, buffers and templates.
#[pymodule]
#[pyo3(name = "_tas")]
fn tas_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("Error", m.py().get_type::<Error>())?;
    m.add_class::<Device>()?;
    m.add_class::<Graph>()?;
    m.add_class::<Bo>()?;
    m.add_class::<Syncobj>()?;
    m.add_class::<Template>()?;
    m.add_class::<GraphInfo>()?;
    m.add_class::<NodeInfo>()?;
    m.add_function(wrap_pyfunction!(now_ns, m)?)?;
    m.add("DRIVER_NAME", tas::DRIVER_NAME)?;
    m.add("NODE_GRAPH", tas::uapi::DRM_TAS_NODE_GRAPH)?;
    Ok(())
}
