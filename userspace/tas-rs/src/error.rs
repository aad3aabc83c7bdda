// SPDX-License-Identifier: MIT
//! The error type of the crate: an errno and the operation that failed.

use crate::uapi::{
    DRM_TAS_ERROR_BINDS, DRM_TAS_ERROR_EDGES, DRM_TAS_ERROR_NODES, DRM_TAS_ERROR_SIGNALS,
    DRM_TAS_ERROR_WAITS,
};
use core::fmt;
use rustix::io::Errno;

/// Result type of the crate.
pub type Result<T> = core::result::Result<T, Error>;

/// A failed operation: which one, and the errno it failed with.
///
/// `op` names the ioctl for kernel errors (`"SUBMIT_GRAPH"`,
/// `"SYNCOBJ_TIMELINE_WAIT"`, ...), the system call (`"open"`, `"mmap"`) or,
/// for the few checks done in Rust before calling the kernel, the method
/// (`"Graph::edge"`). The errno lists of each method are in its
/// documentation; they are those of the uAPI header.
///
/// ```
/// use tas::{Culprit, Errno, Error};
///
/// let e = Error::new("SUBMIT_GRAPH", Errno::INVAL);
/// assert!(e.is_invalid());
/// assert_eq!(e.to_string(), "SUBMIT_GRAPH: EINVAL (Invalid argument)");
/// let e = e.at(Some(Culprit::Edge(3)));
/// assert_eq!(e.to_string(), "SUBMIT_GRAPH: EINVAL (Invalid argument) at edge 3");
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Error {
    /// The operation that failed.
    pub op: &'static str,
    /// The errno it failed with.
    pub errno: Errno,
    /// The element of a rejected graph that the kernel named, if it named
    /// one (see [`Culprit`]).
    pub culprit: Option<Culprit>,
}

/// The element of a rejected graph that caused the error: the index of a
/// node, an edge, a wait or a signal in the order they were added to the
/// [`Graph`](crate::Graph) (for a launch, its waits and signals). The
/// kernel names one for `EINVAL`, `ENOENT`, `ELOOP` (an edge on the cycle)
/// and `EACCES`, where one element is at fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Culprit {
    /// The node with this index.
    Node(u32),
    /// The edge with this index.
    Edge(u32),
    /// The wait with this index.
    Wait(u32),
    /// The signal with this index.
    Signal(u32),
    /// The bind (of a template launch) with this index.
    Bind(u32),
}

impl Culprit {
    /// From the `error_array` and `error_index` of an ioctl's argument.
    pub const fn from_raw(array: u32, index: u32) -> Option<Self> {
        match array {
            DRM_TAS_ERROR_NODES => Some(Culprit::Node(index)),
            DRM_TAS_ERROR_EDGES => Some(Culprit::Edge(index)),
            DRM_TAS_ERROR_WAITS => Some(Culprit::Wait(index)),
            DRM_TAS_ERROR_SIGNALS => Some(Culprit::Signal(index)),
            DRM_TAS_ERROR_BINDS => Some(Culprit::Bind(index)),
            _ => None,
        }
    }
}

impl fmt::Display for Culprit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Culprit::Node(i) => write!(f, "node {i}"),
            Culprit::Edge(i) => write!(f, "edge {i}"),
            Culprit::Wait(i) => write!(f, "wait {i}"),
            Culprit::Signal(i) => write!(f, "signal {i}"),
            Culprit::Bind(i) => write!(f, "bind {i}"),
        }
    }
}

impl Error {
    /// An error of operation `op` with `errno`.
    pub const fn new(op: &'static str, errno: Errno) -> Self {
        Self {
            op,
            errno,
            culprit: None,
        }
    }

    /// The same error, naming `culprit` as the element at fault.
    pub const fn at(self, culprit: Option<Culprit>) -> Self {
        Self { culprit, ..self }
    }

    /// Converts an error of the `drm` crate (or of `std`) of operation `op`.
    /// An error without an OS error code becomes `EIO`.
    pub fn from_io(op: &'static str, err: &std::io::Error) -> Self {
        Self::new(op, Errno::from_io_error(err).unwrap_or(Errno::IO))
    }

    /// The operation that failed.
    pub const fn op(&self) -> &'static str {
        self.op
    }

    /// The errno.
    pub const fn errno(&self) -> Errno {
        self.errno
    }

    /// `EINVAL`: a malformed argument (see each method for the list).
    pub fn is_invalid(&self) -> bool {
        self.errno == Errno::INVAL
    }

    /// `E2BIG`: more nodes, edges, waits or signals than the limits.
    pub fn is_too_big(&self) -> bool {
        self.errno == Errno::TOOBIG
    }

    /// `ELOOP`: the edges of a graph contain a cycle.
    pub fn is_cycle(&self) -> bool {
        self.errno == Errno::LOOP
    }

    /// `EDEADLK`: a gang that can never start.
    pub fn is_deadlock(&self) -> bool {
        self.errno == Errno::DEADLK
    }

    /// `EACCES` (or `EPERM`): not allowed, such as a latency-class node
    /// without `CAP_SYS_NICE`, or a device node that cannot be opened.
    pub fn is_permission_denied(&self) -> bool {
        self.errno == Errno::ACCESS || self.errno == Errno::PERM
    }

    /// `ENOENT`: an unknown buffer, syncobj, graph or template; for
    /// [`Device::host_done`](crate::Device::host_done), a graph that is not
    /// in flight (any more) or a node it does not have.
    pub fn is_not_found(&self) -> bool {
        self.errno == Errno::NOENT
    }

    /// `ENOMEM`: out of memory, or the memory cgroup is full.
    pub fn is_out_of_memory(&self) -> bool {
        self.errno == Errno::NOMEM
    }

    /// `ENOSPC`: too many templates, or template nodes, in this file.
    pub fn is_no_space(&self) -> bool {
        self.errno == Errno::NOSPC
    }

    /// `ETIME` or `ETIMEDOUT`: a syncobj wait timed out, a node ran longer
    /// than the job timeout ([`Param::JobTimeoutNs`](crate::Param::JobTimeoutNs)),
    /// or a host node was not reported within the host timeout
    /// ([`Param::HostTimeoutNs`](crate::Param::HostTimeoutNs)).
    pub fn is_timeout(&self) -> bool {
        self.errno == Errno::TIME || self.errno == Errno::TIMEDOUT
    }

    /// `ENODEV`: no drm/tas device, or the device is not a drm/tas one.
    pub fn is_no_device(&self) -> bool {
        self.errno == Errno::NODEV
    }

    /// `EBUSY` from [`Device::host_done`](crate::Device::host_done): the
    /// host node has not been released yet (its dependencies are not
    /// done), so there is nothing to report.
    pub fn is_not_released(&self) -> bool {
        self.errno == Errno::BUSY
    }

    /// `EALREADY` from [`Device::host_done`](crate::Device::host_done): the
    /// host node has completed already (it was reported, it timed out, or
    /// the error of a dependency completed it).
    pub fn is_already_done(&self) -> bool {
        self.errno == Errno::ALREADY
    }
}

/// The symbolic name of the errnos that the TAS uAPI and its callers use.
pub fn errno_name(errno: Errno) -> Option<&'static str> {
    const NAMES: &[(Errno, &str)] = &[
        (Errno::PERM, "EPERM"),
        (Errno::NOENT, "ENOENT"),
        (Errno::SRCH, "ESRCH"),
        (Errno::INTR, "EINTR"),
        (Errno::IO, "EIO"),
        (Errno::NXIO, "ENXIO"),
        (Errno::TOOBIG, "E2BIG"),
        (Errno::AGAIN, "EAGAIN"),
        (Errno::NOMEM, "ENOMEM"),
        (Errno::ACCESS, "EACCES"),
        (Errno::FAULT, "EFAULT"),
        (Errno::BUSY, "EBUSY"),
        (Errno::NODEV, "ENODEV"),
        (Errno::INVAL, "EINVAL"),
        (Errno::NOTTY, "ENOTTY"),
        (Errno::NOSPC, "ENOSPC"),
        (Errno::DEADLK, "EDEADLK"),
        (Errno::LOOP, "ELOOP"),
        (Errno::TIME, "ETIME"),
        (Errno::OPNOTSUPP, "EOPNOTSUPP"),
        (Errno::TIMEDOUT, "ETIMEDOUT"),
        (Errno::ALREADY, "EALREADY"),
        (Errno::CANCELED, "ECANCELED"),
    ];
    NAMES.iter().find(|(e, _)| *e == errno).map(|(_, n)| *n)
}

/// The C library's description of `errno`, without std's "(os error N)".
fn describe(errno: Errno) -> String {
    let text = std::io::Error::from(errno).to_string();
    match text.rfind(" (os error ") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match errno_name(self.errno) {
            Some(name) => write!(f, "{}: {} ({})", self.op, name, describe(self.errno))?,
            None => write!(
                f,
                "{}: errno {} ({})",
                self.op,
                self.errno.raw_os_error(),
                describe(self.errno)
            )?,
        }
        match self.culprit {
            Some(c) => write!(f, " at {c}"),
            None => Ok(()),
        }
    }
}

/// `Error { op: "SUBMIT_GRAPH", errno: EINVAL }`.
impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct Name(Errno);
        impl fmt::Debug for Name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match errno_name(self.0) {
                    Some(name) => f.write_str(name),
                    None => write!(f, "{}", self.0.raw_os_error()),
                }
            }
        }
        let mut d = f.debug_struct("Error");
        d.field("op", &self.op).field("errno", &Name(self.errno));
        if let Some(c) = &self.culprit {
            d.field("culprit", c);
        }
        d.finish()
    }
}

impl std::error::Error for Error {}

impl From<Error> for std::io::Error {
    fn from(err: Error) -> Self {
        std::io::Error::from(err.errno)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::uapi::DRM_TAS_ERROR_NONE;

    #[test]
    fn display() {
        let e = Error::new("SUBMIT_GRAPH", Errno::INVAL);
        assert_eq!(e.to_string(), "SUBMIT_GRAPH: EINVAL (Invalid argument)");
        let e = Error::new("TEMPLATE_CREATE", Errno::LOOP);
        assert_eq!(
            e.to_string(),
            "TEMPLATE_CREATE: ELOOP (Too many levels of symbolic links)"
        );
        let e = Error::new("GRAPH_INFO", Errno::from_raw_os_error(1000));
        assert!(e.to_string().starts_with("GRAPH_INFO: errno 1000 ("));
        assert_eq!(
            format!("{e:?}"),
            r#"Error { op: "GRAPH_INFO", errno: 1000 }"#
        );
        let e = Error::new("SUBMIT_GRAPH", Errno::ACCESS);
        assert_eq!(
            format!("{e:?}"),
            r#"Error { op: "SUBMIT_GRAPH", errno: EACCES }"#
        );
        let e = e.at(Culprit::from_raw(DRM_TAS_ERROR_NODES, 7));
        assert_eq!(
            format!("{e:?}"),
            r#"Error { op: "SUBMIT_GRAPH", errno: EACCES, culprit: Node(7) }"#
        );
        assert!(e.to_string().ends_with(" at node 7"));
    }

    #[test]
    fn culprits() {
        assert_eq!(Culprit::from_raw(DRM_TAS_ERROR_NONE, 0), None);
        assert_eq!(
            Culprit::from_raw(DRM_TAS_ERROR_EDGES, 2),
            Some(Culprit::Edge(2))
        );
        assert_eq!(
            Culprit::from_raw(DRM_TAS_ERROR_WAITS, 0),
            Some(Culprit::Wait(0))
        );
        assert_eq!(
            Culprit::from_raw(DRM_TAS_ERROR_SIGNALS, 1),
            Some(Culprit::Signal(1))
        );
        assert_eq!(Culprit::from_raw(99, 1), None);
    }

    #[test]
    fn predicates() {
        let e = |errno| Error::new("x", errno);
        assert!(e(Errno::INVAL).is_invalid());
        assert!(!e(Errno::INVAL).is_not_found());
        assert!(e(Errno::TOOBIG).is_too_big());
        assert!(e(Errno::LOOP).is_cycle());
        assert!(e(Errno::DEADLK).is_deadlock());
        assert!(e(Errno::ACCESS).is_permission_denied());
        assert!(e(Errno::NOENT).is_not_found());
        assert!(e(Errno::NOMEM).is_out_of_memory());
        assert!(e(Errno::NOSPC).is_no_space());
        assert!(e(Errno::TIME).is_timeout());
        assert!(e(Errno::TIMEDOUT).is_timeout());
        assert!(e(Errno::NODEV).is_no_device());
        assert!(e(Errno::BUSY).is_not_released());
        assert!(e(Errno::ALREADY).is_already_done());
        assert!(!e(Errno::ALREADY).is_not_released());
    }

    #[test]
    fn host_done_errors() {
        let e = Error::new("HOST_DONE", Errno::ALREADY);
        assert!(e.to_string().starts_with("HOST_DONE: EALREADY ("));
        assert_eq!(
            format!("{e:?}"),
            r#"Error { op: "HOST_DONE", errno: EALREADY }"#
        );
        let e = Error::new("HOST_DONE", Errno::BUSY);
        assert!(e.to_string().starts_with("HOST_DONE: EBUSY ("));
    }

    #[test]
    fn conversions() {
        let io = std::io::Error::from_raw_os_error(Errno::NOENT.raw_os_error());
        let e = Error::from_io("SYNCOBJ_WAIT", &io);
        assert_eq!(e, Error::new("SYNCOBJ_WAIT", Errno::NOENT));
        let io: std::io::Error = e.into();
        assert_eq!(io.raw_os_error(), Some(Errno::NOENT.raw_os_error()));
        let other = std::io::Error::other("not an OS error");
        assert_eq!(Error::from_io("x", &other).errno, Errno::IO);
    }
}
