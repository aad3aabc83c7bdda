// SPDX-License-Identifier: MIT
//! The native part of the `tas` Python module (`tas._tas`, which `tas`
//! re-exports): the drm/tas uAPI for Python, over the `tas` crate
//! (`userspace/tas-rs`).
//!
//! The module is a thin layer: every ioctl, structure and rule of the uAPI
//! stays in the `tas` crate, and this crate only converts arguments, results
//! and errors. Errors are `tas.Error`, a subclass of `OSError` whose `errno`
//! is the kernel's and whose message names the failed operation, so that
//! Python code checks `e.errno == errno.EINVAL` as for any system call; its
//! `op`, `array` and `index` attributes name the operation and the element
//! of a rejected graph at fault. Blocking calls (submissions that wait for
//! room, syncobj waits) release the GIL, and a signal ends them when its
//! Python handler raises (PEP 475: Ctrl-C raises `KeyboardInterrupt` out of
//! a blocked `wait()`); otherwise they go on.
//!
//! Objects made by a `Device` (buffers, syncobjs, templates) keep it open:
//! the `tas` crate's types borrow the device, and the objects here hold the
//! device (`Arc`) beside the borrowing value (see [`Owned`]). Every object
//! has `close()` and is a context manager; a closed object raises
//! `ValueError`, as a closed Python file does.

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks)]

use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::cell::RefCell;
use std::os::fd::{AsFd, AsRawFd};
use std::sync::{Arc, Mutex};
use std::time::Duration;

create_exception!(
    tas,
    Error,
    PyOSError,
    "A failed drm/tas operation: `errno` is the kernel's errno, `op` the operation (an ioctl \
     such as \"SUBMIT_GRAPH\", or a method), `array` and `index` the element of a rejected \
     graph or launch at fault (\"node\", \"edge\", \"wait\", \"signal\" or \"bind\", and its \
     index), or None."
);

thread_local! {
    /// The exception that a signal handler raised in [`interrupted`], which
    /// the call that the signal interrupted raises instead of `EINTR`.
    static PENDING: RefCell<Option<PyErr>> = const { RefCell::new(None) };
}

/// The thread that imported the module, if it is Python's main thread: the
/// only one on which Python runs signal handlers.
static MAIN_THREAD: std::sync::OnceLock<std::thread::ThreadId> = std::sync::OnceLock::new();

/// The check of [`tas::set_interrupt_check`]: on Python's main thread, runs
/// the Python signal handlers of the signals that arrived, as Python does
/// when a system call returns `EINTR` (PEP 475). The call ends if a handler
/// raised, and raises that exception (see [`check`]); else, and on every
/// other thread, or when the interpreter is going away, it is restarted.
fn interrupted() -> bool {
    if MAIN_THREAD.get() != Some(&std::thread::current().id()) {
        return false;
    }
    Python::try_attach(|py| match py.check_signals() {
        Ok(()) => false,
        Err(e) => {
            PENDING.with(|p| *p.borrow_mut() = Some(e));
            true
        }
    })
    .unwrap_or(false)
}

/// The exception a signal handler raised during the last call, if any.
fn take_pending() -> Option<PyErr> {
    PENDING.with(|p| p.borrow_mut().take())
}

/// Converts an error of the `tas` crate into `tas.Error(errno, "OP: NAME
/// (description)")` with its `op`, `array` and `index`.
fn err(e: tas::Error) -> PyErr {
    let (array, index) = match e.culprit {
        None => (None, None),
        Some(tas::Culprit::Node(i)) => (Some("node"), Some(i)),
        Some(tas::Culprit::Edge(i)) => (Some("edge"), Some(i)),
        Some(tas::Culprit::Wait(i)) => (Some("wait"), Some(i)),
        Some(tas::Culprit::Signal(i)) => (Some("signal"), Some(i)),
        Some(tas::Culprit::Bind(i)) => (Some("bind"), Some(i)),
    };
    let pyerr = Error::new_err((e.errno.raw_os_error(), e.to_string()));
    Python::attach(|py| {
        let value = pyerr.value(py);
        let set = value
            .setattr("op", e.op)
            .and_then(|()| value.setattr("array", array))
            .and_then(|()| value.setattr("index", index));
        match set {
            Ok(()) => pyerr,
            Err(other) => other,
        }
    })
}

/// `ValueError` for a `what` made by another `Device` than the one it is
/// used with: its handle means nothing, or something else, in this file.
fn foreign(what: &str) -> PyErr {
    PyValueError::new_err(format!("{what} of another Device"))
}

/// `ValueError` for an object used after its `close()`.
fn closed() -> PyErr {
    PyValueError::new_err("operation on a closed object")
}

/// Converts a result of the `tas` crate. The exception that a signal
/// handler raised during the call comes first: it ended the call (with
/// `EINTR`), or one of the calls it is made of that the `tas` crate does
/// not report (trying one device node after another, say).
fn check<T>(r: tas::Result<T>) -> PyResult<T> {
    match take_pending() {
        Some(pending) => Err(pending),
        None => r.map_err(err),
    }
}

/// A value of the `tas` crate that borrows a [`tas::Device`], together with
/// the device it borrows.
///
/// # Invariants
///
/// `value` borrows `*dev` and nothing else; `dev` keeps the device at the
/// same address for as long as `value` exists: it is dropped after `value`
/// (fields drop in declaration order), and whoever holds the `Held` (an
/// `Arc` of it, however long it lives) holds both. The `'static` lifetime
/// of `value` is not handed out: `Deref` shortens it to the borrow of the
/// `Held`.
struct Held<T: 'static> {
    value: T,
    dev: Arc<tas::Device>,
}

impl<T: 'static> std::ops::Deref for Held<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T: 'static> Held<T> {
    /// Whether the value belongs to `dev`.
    fn of(&self, dev: &Arc<tas::Device>) -> bool {
        Arc::ptr_eq(&self.dev, dev)
    }
}

/// A [`Held`] value until `close()` drops it. A call holds its own `Arc`
/// of the value, so a `close()` on another thread meanwhile drops the value
/// (and the kernel object) when that call is done with it.
struct Owned<T: 'static>(Mutex<Option<Arc<Held<T>>>>);

impl<T: 'static> Owned<T> {
    /// Makes the value with `make`, from a device that lives as long as the
    /// result.
    fn new(
        dev: &Arc<tas::Device>,
        make: impl FnOnce(&'static tas::Device) -> tas::Result<T>,
    ) -> PyResult<Self> {
        // SAFETY: the reference points into the `Arc`'s allocation, which
        // does not move and which the clone stored beside the value keeps
        // alive until after the value is dropped (`Held`'s invariant).
        let dev_ref: &'static tas::Device = unsafe { &*Arc::as_ptr(dev) };
        let value = check(make(dev_ref))?;
        // INVARIANT: `value` borrows `dev_ref`, which `dev` keeps alive.
        let held = Held {
            value,
            dev: dev.clone(),
        };
        Ok(Self(Mutex::new(Some(Arc::new(held)))))
    }

    /// The value, or `ValueError` after [`Owned::close`].
    fn get(&self) -> PyResult<Arc<Held<T>>> {
        self.slot().clone().ok_or_else(closed)
    }

    /// Drops this object's reference to the value (a second call does
    /// nothing).
    fn close(&self) {
        let value = self.slot().take();
        drop(value);
    }

    fn slot(&self) -> std::sync::MutexGuard<'_, Option<Arc<Held<T>>>> {
        // A poisoned lock still holds a valid `Option`.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
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
/// `(handle, offset, size)` tuple such as `Bo.range()` returns (a
/// `tas.Range`).
#[derive(FromPyObject)]
enum Range<'py> {
    Bo(PyRef<'py, Bo>),
    Tuple((u32, u64, u64)),
}

impl Range<'_> {
    fn get(&self) -> PyResult<tas::BufRange> {
        Ok(match self {
            Range::Bo(bo) => bo.0.get()?.whole(),
            Range::Tuple((h, o, s)) => tas::BufRange::new(*h, *o, *s),
        })
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

/// A wait or signal entry of `Device.launch()`: a `tas.Sync(syncobj,
/// point, node, on_start)`, or the plain tuple `(syncobj, point, node)` or
/// `(syncobj, point, node, on_start)`.
#[derive(FromPyObject)]
enum SyncEntry<'py> {
    Plain((PyRef<'py, Syncobj>, u64, Option<u32>)),
    Start((PyRef<'py, Syncobj>, u64, Option<u32>, bool)),
}

impl SyncEntry<'_> {
    /// The entry, for a launch on `dev`.
    fn get(&self, dev: &Arc<tas::Device>) -> PyResult<(tas::SyncPoint, tas::Target)> {
        let (s, p, n, on_start) = match self {
            SyncEntry::Plain((s, p, n)) => (s, *p, *n, false),
            SyncEntry::Start((s, p, n, on_start)) => (s, *p, *n, *on_start),
        };
        let s = s.0.get()?;
        if !s.of(dev) {
            return Err(foreign("syncobj"));
        }
        Ok((s.at(p), sync_target(n, on_start)?))
    }
}

/// The open device file of a [`Device`], until `close()`.
struct DeviceSlot(Mutex<Option<Arc<tas::Device>>>);

impl DeviceSlot {
    fn get(&self) -> PyResult<Arc<tas::Device>> {
        // A poisoned lock still holds a valid `Option`.
        let slot = self.0.lock().unwrap_or_else(|e| e.into_inner());
        slot.clone().ok_or_else(closed)
    }

    fn close(&self) {
        let dev = self.0.lock().unwrap_or_else(|e| e.into_inner()).take();
        drop(dev);
    }
}

/// An open drm/tas device file.
///
/// `Device()` opens the first drm/tas node (render nodes first, found in
/// sysfs without opening other drivers' nodes);
/// `Device("/dev/dri/renderD128")` opens a given one.
/// `close()` (or the end of a `with` block) lets go of the file; the
/// buffers, syncobjs and templates made by it keep it open until they are
/// closed too.
#[pyclass(frozen, module = "tas")]
struct Device(DeviceSlot);

#[pymethods]
impl Device {
    /// Lets go of the device file now rather than when the object is
    /// garbage collected; its methods then raise `ValueError`. A second
    /// call does nothing. Its buffers, syncobjs and templates keep the file
    /// open until they are closed too.
    fn close(&self) {
        self.0.close();
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, _exc: &Bound<'_, PyTuple>) -> bool {
        self.0.close();
        false
    }

    #[new]
    #[pyo3(signature = (path = None))]
    fn new(path: Option<std::path::PathBuf>) -> PyResult<Self> {
        let dev = check(match path {
            Some(p) => tas::Device::open_path(p),
            None => tas::Device::open(),
        })?;
        Ok(Self(DeviceSlot(Mutex::new(Some(Arc::new(dev))))))
    }

    /// The path the device was opened at, or `None`.
    #[getter]
    fn path(&self) -> PyResult<Option<std::path::PathBuf>> {
        Ok(self.0.get()?.path().map(|p| p.to_path_buf()))
    }

    /// The file descriptor, e.g. for `Bo.mmap()`'s `mmap.mmap` or
    /// `select`; it stays the device's.
    fn fileno(&self) -> PyResult<i32> {
        Ok(self.0.get()?.as_fd().as_raw_fd())
    }

    /// A parameter by its name without the `DRM_TAS_PARAM_` prefix, e.g.
    /// `"NUM_RINGS"`.
    fn param(&self, name: &str) -> PyResult<u64> {
        let p = tas::Param::ALL
            .iter()
            .find(|p| p.name() == name)
            .ok_or_else(|| PyValueError::new_err(format!("unknown parameter {name:?}")))?;
        check(self.0.get()?.param(*p))
    }

    /// Every parameter this kernel knows, as a dict by name.
    fn params(&self) -> PyResult<std::collections::BTreeMap<&'static str, u64>> {
        let params = self
            .0
            .get()?
            .params()
            .into_iter()
            .filter_map(|(p, v)| v.ok().map(|v| (p.name(), v)))
            .collect();
        check(Ok(params))
    }

    /// A zeroed buffer object of `size` bytes.
    fn bo(&self, size: u64) -> PyResult<Bo> {
        Ok(Bo(Owned::new(&self.0.get()?, |d| d.create_bo(size))?))
    }

    /// A syncobj, signalled already if `signalled`.
    #[pyo3(signature = (signalled = false))]
    fn syncobj(&self, signalled: bool) -> PyResult<Syncobj> {
        Ok(Syncobj(Owned::new(&self.0.get()?, |d| {
            d.create_syncobj(signalled)
        })?))
    }

    /// Submits `graph` and returns its id; `fifo` selects the stock
    /// dispatch; `keep` keeps its record until `graph_info(...,
    /// release=True)` reads it. May block (without the GIL) until the file
    /// has room; a signal whose handler raises ends the wait.
    #[pyo3(signature = (graph, fifo = false, keep = false))]
    fn submit(&self, py: Python<'_>, graph: &Graph, fifo: bool, keep: bool) -> PyResult<u64> {
        let mut flags = tas::SubmitFlags::empty();
        flags.set(tas::SubmitFlags::FIFO, fifo);
        flags.set(tas::SubmitFlags::KEEP, keep);
        let (dev, g) = (self.0.get()?, &graph.0);
        check(py.detach(|| dev.submit(g, flags)))
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
        let dev = self.0.get()?;
        let info = if release {
            dev.release_graph(graph_id, node_count)
        } else {
            dev.graph_info(graph_id, node_count)
        };
        GraphInfo::new(py, check(info)?)
    }

    /// Whether graph `graph_id` is done and which node failed first, without
    /// its nodes (`GRAPH_INFO` with `DRM_TAS_GRAPH_INFO_SUMMARY`): the
    /// check a runtime makes after each step. With `release`, the record is
    /// forgotten if the graph is done.
    #[pyo3(signature = (graph_id, release = false))]
    fn graph_summary(&self, graph_id: u64, release: bool) -> PyResult<GraphSummary> {
        let s = check(self.0.get()?.graph_summary(graph_id, release))?;
        Ok(GraphSummary {
            done: s.done,
            node_count: s.node_count,
            error_node: s.failed.map(|(n, _)| n.index()),
            error: s.failed.map(|(_, e)| e.raw_os_error()),
        })
    }

    /// Makes `graph` (nodes and edges only) a template, launched with
    /// `launch()`.
    fn template(&self, graph: &Graph) -> PyResult<Template> {
        Ok(Template(Owned::new(&self.0.get()?, |d| {
            d.create_template(&graph.0)
        })?))
    }

    /// Launches `template` as a new graph and returns its id. `waits` and
    /// `signals` are lists of `tas.Sync(syncobj, point, node, on_start)`
    /// (or plain tuples `(syncobj, point, node)`), `node` an index of the
    /// template or `None` for the whole graph; a signal with `on_start`
    /// signals when host node `node` of this launch is released (as
    /// `Graph.signal(..., on_start=True)`); `keep` as for `submit()`.
    /// `binds` maps buffer slots of the template (`Template.slots`: its
    /// distinct buffers in the order of their first use) to `(bo, offset)`
    /// pairs this launch uses instead, e.g. `{0: (x2, 0)}`; a slot left out
    /// keeps the template's buffer. With `ordered`, the launch starts once
    /// the template's previous `ordered` launch has completed (whatever its
    /// outcome: check it with `graph_summary()`), as on a CUDA stream;
    /// launches without it may overlap. Blocks as `submit()` does. Raises
    /// `ValueError` for a template, syncobj or buffer of another `Device`.
    #[pyo3(signature = (template, waits = Vec::new(), signals = Vec::new(), keep = false,
                        binds = None, ordered = false))]
    #[allow(clippy::too_many_arguments)]
    fn launch(
        &self,
        py: Python<'_>,
        template: &Template,
        waits: Vec<SyncEntry<'_>>,
        signals: Vec<SyncEntry<'_>>,
        keep: bool,
        binds: Option<BindTable<'_>>,
        ordered: bool,
    ) -> PyResult<u64> {
        let dev = self.0.get()?;
        let enc =
            |v: &[SyncEntry<'_>]| -> PyResult<Vec<_>> { v.iter().map(|e| e.get(&dev)).collect() };
        let (w, s) = (enc(&waits)?, enc(&signals)?);
        let binds = binds.unwrap_or_default();
        let bos = binds
            .iter()
            .map(|(slot, (bo, offset))| {
                let bo = bo.0.get()?;
                match bo.of(&dev) {
                    true => Ok((*slot, bo, *offset)),
                    false => Err(foreign("buffer")),
                }
            })
            .collect::<PyResult<Vec<_>>>()?;
        let b: Vec<tas::Bind<'_>> = bos
            .iter()
            .map(|(slot, bo, offset)| tas::Bind::new(*slot, bo, *offset))
            .collect();
        let t = template.0.get()?;
        if !t.of(&dev) {
            return Err(foreign("template"));
        }
        let mut flags = tas::SubmitFlags::empty();
        flags.set(tas::SubmitFlags::KEEP, keep);
        flags.set(tas::SubmitFlags::ORDERED, ordered);
        check(py.detach(|| dev.launch_bound(&t, &w, &s, &b, flags)))
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
        check(self.0.get()?.host_done_raw(graph_id, node, -raw))
    }
}

/// A buffer object; its handle is closed by `close()` or when it is
/// garbage collected.
#[pyclass(frozen, module = "tas")]
struct Bo(Owned<tas::Bo<'static>>);

impl Bo {
    /// Checks that `size` bytes at `offset` lie inside a mapping of `len`.
    fn check_range(offset: usize, size: usize, len: usize) -> PyResult<()> {
        if offset.checked_add(size).is_none_or(|end| end > len) {
            return Err(PyValueError::new_err("range beyond the buffer"));
        }
        Ok(())
    }
}

#[pymethods]
impl Bo {
    /// Releases the buffer's handle now rather than when the object is garbage
    /// collected; its methods then raise `ValueError`. A second call does
    /// nothing. A call in progress on another thread (a `wait()`) keeps
    /// the object until it returns.
    fn close(&self) {
        self.0.close();
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, _exc: &Bound<'_, PyTuple>) -> bool {
        self.0.close();
        false
    }

    /// The GEM handle.
    #[getter]
    fn handle(&self) -> PyResult<u32> {
        Ok(self.0.get()?.handle())
    }

    /// The size asked for, in bytes.
    #[getter]
    fn size(&self) -> PyResult<u64> {
        Ok(self.0.get()?.size())
    }

    /// The range `tas.Range(handle, offset, size)` for the node
    /// constructors.
    fn range<'py>(&self, py: Python<'py>, offset: u64, size: u64) -> PyResult<Bound<'py, PyAny>> {
        let range = py.import("tas._types")?.getattr("Range")?;
        range.call1((self.handle()?, offset, size))
    }

    /// Reads `size` bytes at `offset` (through a mapping made for the call).
    fn read(&self, offset: usize, size: usize) -> PyResult<Vec<u8>> {
        let bo = self.0.get()?;
        let map = check(bo.map())?;
        Self::check_range(offset, size, map.len())?;
        let mut buf = vec![0; size];
        map.read(offset, &mut buf);
        Ok(buf)
    }

    /// Writes `data` at `offset`.
    fn write(&self, offset: usize, data: &[u8]) -> PyResult<()> {
        let bo = self.0.get()?;
        let mut map = check(bo.map())?;
        Self::check_range(offset, data.len(), map.len())?;
        map.write(offset, data);
        Ok(())
    }

    /// The buffer as a list of 32-bit little-endian integers.
    fn u32s(&self) -> PyResult<Vec<u32>> {
        let bo = self.0.get()?;
        let map = check(bo.map())?;
        Ok(map.u32s().collect())
    }

    /// A shared, writable mapping of the buffer: a standard `mmap.mmap`
    /// of `size` bytes, which supports the buffer protocol
    /// (`memoryview(m)`, `numpy.frombuffer(m, numpy.uint32)`), slicing and
    /// `close()`. It maps the buffer's pages, which the GPU rings and the
    /// other mappings read and write meanwhile: read results after the
    /// graph's out-fence signalled. The mapping keeps the buffer's memory
    /// after `close()` of the buffer or the device, until it is closed
    /// itself.
    fn mmap<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let bo = self.0.get()?;
        let offset = check(bo.mmap_offset())?;
        let fd = bo.dev.as_fd().as_raw_fd();
        let kwargs = PyDict::new(py);
        kwargs.set_item("offset", offset)?;
        py.import("mmap")?
            .getattr("mmap")?
            .call((fd, bo.size()), Some(&kwargs))
    }
}

/// A DRM syncobj, binary (point 0) or timeline; destroyed by `close()` or
/// when garbage collected.
#[pyclass(frozen, module = "tas")]
struct Syncobj(Owned<tas::Syncobj<'static>>);

#[pymethods]
impl Syncobj {
    /// Releases the syncobj now rather than when the object is garbage
    /// collected; its methods then raise `ValueError`. A second call does
    /// nothing. A call in progress on another thread (a `wait()`) keeps
    /// the object until it returns.
    fn close(&self) {
        self.0.close();
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, _exc: &Bound<'_, PyTuple>) -> bool {
        self.0.close();
        false
    }

    /// The syncobj handle.
    #[getter]
    fn handle(&self) -> PyResult<u32> {
        Ok(self.0.get()?.raw())
    }

    /// Waits until `point` (0: the binary fence) has been submitted and has
    /// signalled, at most `timeout` seconds (`None`: no limit), without the
    /// GIL. Raises `tas.Error` with `errno.ETIME` on timeout, and what a
    /// signal handler raises (`KeyboardInterrupt` for Ctrl-C) when a signal
    /// arrives; a handler that does not raise lets the wait go on.
    /// `tas.wait_async()` waits in an `asyncio` event loop instead.
    #[pyo3(signature = (point = 0, timeout = None))]
    fn wait(&self, py: Python<'_>, point: u64, timeout: Option<f64>) -> PyResult<()> {
        let timeout = match timeout {
            None => Duration::MAX,
            Some(t) => Duration::try_from_secs_f64(t)
                .map_err(|_| PyValueError::new_err("invalid timeout"))?,
        };
        let s = self.0.get()?;
        check(py.detach(|| s.wait(point, timeout)))
    }

    /// Has the kernel signal the eventfd `fd` (from `os.eventfd()`) when
    /// `point` has signalled (`DRM_IOCTL_SYNCOBJ_EVENTFD`), at once if it
    /// has already; what `tas.wait_async()` waits for.
    #[pyo3(signature = (fd, point = 0))]
    fn eventfd(&self, fd: i32, point: u64) -> PyResult<()> {
        if fd < 0 {
            return Err(PyValueError::new_err("not a file descriptor"));
        }
        // SAFETY: the descriptor is only used for the ioctl, within this
        // call; the kernel checks that it is an open eventfd.
        let fd = unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) };
        check(self.0.get()?.eventfd(point, fd))
    }

    /// The last signalled timeline point.
    fn query(&self) -> PyResult<u64> {
        check(self.0.get()?.query())
    }

    /// The last submitted timeline point, signalled or not.
    fn last_submitted(&self) -> PyResult<u64> {
        check(self.0.get()?.last_submitted())
    }

    /// Signals `point` from the CPU (0: the binary fence).
    #[pyo3(signature = (point = 0))]
    fn signal(&self, point: u64) -> PyResult<()> {
        check(self.0.get()?.signal(point))
    }

    /// Removes the fence of a binary syncobj.
    fn reset(&self) -> PyResult<()> {
        check(self.0.get()?.reset())
    }
}

/// A graph validated once, launched with `Device.launch()`; destroyed by
/// `close()` or when garbage collected.
#[pyclass(frozen, module = "tas")]
struct Template(Owned<tas::Template<'static>>);

#[pymethods]
impl Template {
    /// Releases the template now rather than when the object is garbage
    /// collected; its methods then raise `ValueError`. A second call does
    /// nothing. A call in progress on another thread (a `wait()`) keeps
    /// the object until it returns.
    fn close(&self) {
        self.0.close();
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, _exc: &Bound<'_, PyTuple>) -> bool {
        self.0.close();
        false
    }

    /// The number of nodes, for `Device.graph_info()` of its launches.
    #[getter]
    fn node_count(&self) -> PyResult<u32> {
        Ok(self.0.get()?.node_count())
    }

    /// The number of buffer slots, which `Device.launch(binds=...)` binds:
    /// the template's distinct buffers, numbered in the order of their
    /// first use (nodes in order, and in each the destination, then the
    /// sources).
    #[getter]
    fn slots(&self) -> PyResult<u32> {
        Ok(self.0.get()?.slots())
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
            dst: dst.get()?,
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
            dst: dst.get()?,
            src: src.get()?,
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
            dst: dst.get()?,
            a: a.get()?,
            b: b.get()?,
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
            dst: dst.get()?,
            a: a.get()?,
            b: b.get()?,
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
        check(self.0.wait(syncobj.0.get()?.at(point), target(node)))
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
        check(self.0.signal(syncobj.0.get()?.at(point), target))
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

/// Whether a graph is done, its node count, and the node that failed first
/// (of the failed nodes, the one that finished first: the node that failed
/// rather than a successor that inherited its error) with its errno, or
/// `None` for both.
#[pyclass(frozen, get_all, module = "tas")]
struct GraphSummary {
    done: bool,
    node_count: u32,
    error_node: Option<u32>,
    error: Option<i32>,
}

#[pymethods]
impl GraphSummary {
    fn __repr__(&self) -> String {
        format!(
            "GraphSummary(done={}, node_count={}, error_node={:?}, error={:?})",
            self.done, self.node_count, self.error_node, self.error
        )
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
    // Ctrl-C and other signals whose handlers raise end blocked calls of
    // the main thread.
    let threading = m.py().import("threading")?;
    let main = threading.call_method0("main_thread")?;
    if threading.call_method0("current_thread")?.is(&main) {
        let _ = MAIN_THREAD.set(std::thread::current().id());
    }
    tas::set_interrupt_check(Some(interrupted));
    let error = m.py().get_type::<Error>();
    for attr in ["op", "array", "index"] {
        error.setattr(attr, m.py().None())?;
    }
    m.add("Error", error)?;
    m.add_class::<Device>()?;
    m.add_class::<Graph>()?;
    m.add_class::<Bo>()?;
    m.add_class::<Syncobj>()?;
    m.add_class::<Template>()?;
    m.add_class::<GraphInfo>()?;
    m.add_class::<GraphSummary>()?;
    m.add_class::<NodeInfo>()?;
    m.add_function(wrap_pyfunction!(now_ns, m)?)?;
    m.add("DRIVER_NAME", tas::DRIVER_NAME)?;
    m.add("NODE_GRAPH", tas::uapi::DRM_TAS_NODE_GRAPH)?;
    Ok(())
}
