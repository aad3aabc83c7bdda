// SPDX-License-Identifier: GPL-2.0
//! The error type of the crate: an errno and the operation that failed.

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
/// use tas::{Errno, Error};
///
/// let e = Error { op: "SUBMIT_GRAPH", errno: Errno::INVAL };
/// assert!(e.is_invalid());
/// assert_eq!(e.to_string(), "SUBMIT_GRAPH: EINVAL (Invalid argument)");
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Error {
    /// The operation that failed.
    pub op: &'static str,
    /// The errno it failed with.
    pub errno: Errno,
}

impl Error {
    /// An error of operation `op` with `errno`.
    pub const fn new(op: &'static str, errno: Errno) -> Self {
        Self { op, errno }
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

    /// `ENOENT`: an unknown buffer, syncobj, graph or template.
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

    /// `ETIME` or `ETIMEDOUT`: a syncobj wait timed out, or a node ran
    /// longer than the job timeout.
    pub fn is_timeout(&self) -> bool {
        self.errno == Errno::TIME || self.errno == Errno::TIMEDOUT
    }

    /// `ENODEV`: no drm/tas device, or the device is not a drm/tas one.
    pub fn is_no_device(&self) -> bool {
        self.errno == Errno::NODEV
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
            Some(name) => write!(f, "{}: {} ({})", self.op, name, describe(self.errno)),
            None => write!(
                f,
                "{}: errno {} ({})",
                self.op,
                self.errno.raw_os_error(),
                describe(self.errno)
            ),
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
        f.debug_struct("Error")
            .field("op", &self.op)
            .field("errno", &Name(self.errno))
            .finish()
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
