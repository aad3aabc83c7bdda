// SPDX-License-Identifier: GPL-2.0

//! Memory cgroups: charging allocations to a task's memory cgroup from elsewhere.
//!
//! C header: [`include/linux/memcontrol.h`](srctree/include/linux/memcontrol.h),
//! [`include/linux/sched/mm.h`](srctree/include/linux/sched/mm.h).
//!
//! Memory allocated with `__GFP_ACCOUNT` (`GFP_KERNEL_ACCOUNT`) is charged to the memory cgroup
//! of the allocating task. Work that a driver does later on behalf of a task, in a work item or
//! a kernel thread, would be charged to no one: [`MemCgroup::current`] takes a reference to the
//! task's memory cgroup when the work is requested, and [`MemCgroup::charge`] runs the work with
//! its accounted allocations charged to that cgroup.

use crate::bindings;
use core::ptr::NonNull;

/// A reference to a memory cgroup (`struct mem_cgroup`).
///
/// # Invariants
///
/// `ptr` points to a memory cgroup on which the instance holds a reference.
pub struct MemCgroup {
    ptr: NonNull<bindings::mem_cgroup>,
}

// SAFETY: A memory cgroup reference may be dropped, and the cgroup used for charging, on any
// thread: its reference count is atomic and charging to it is thread-safe.
unsafe impl Send for MemCgroup {}

// SAFETY: The only operation through a shared reference, `charge`, changes state of the calling
// task (or CPU) only, so it may run on several threads at once.
unsafe impl Sync for MemCgroup {}

impl MemCgroup {
    /// Returns a reference to the memory cgroup of the current task.
    ///
    /// Returns `None` when memory cgroups are not in use (`CONFIG_MEMCG` is off or the
    /// controller is disabled); accounted allocations are then charged to no one anyway.
    pub fn current() -> Option<Self> {
        // SAFETY: `get_mem_cgroup_from_current()` may be called from any context that has a
        // current task; it returns a new reference, or NULL.
        let ptr = unsafe { bindings::get_mem_cgroup_from_current() };
        // INVARIANT: The reference returned above is now owned by the instance.
        NonNull::new(ptr).map(|ptr| Self { ptr })
    }

    /// Runs `f` with the memory that the current task allocates with `__GFP_ACCOUNT` charged to
    /// this memory cgroup, and returns its result.
    ///
    /// Scopes nest: the cgroup that was active before is active again when `f` returns. Can be
    /// called from any context; in an interrupt, the scope is that of the CPU.
    ///
    /// # Examples
    ///
    /// ```
    /// use kernel::memcg::MemCgroup;
    ///
    /// // The cgroup of the task that asked for the work, taken when it asked.
    /// let memcg = MemCgroup::current();
    ///
    /// // Later, in a work item:
    /// let build = || KVec::<u64>::with_capacity(1024, GFP_KERNEL_ACCOUNT);
    /// let v = match &memcg {
    ///     Some(memcg) => memcg.charge(build)?,
    ///     None => build()?,
    /// };
    /// assert!(v.capacity() >= 1024);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn charge<R>(&self, f: impl FnOnce() -> R) -> R {
        // SAFETY: The cgroup stays alive while `f` runs: `self` holds a reference to it (type
        // invariant) and is borrowed until this function returns, after the previous cgroup is
        // active again.
        let old = unsafe { bindings::set_active_memcg(self.ptr.as_ptr()) };
        let ret = f();
        // SAFETY: `old` was the active cgroup when this scope started; scopes nest, so it is
        // still alive (its owner's scope has not ended) or NULL.
        unsafe { bindings::set_active_memcg(old) };
        ret
    }
}

impl Drop for MemCgroup {
    fn drop(&mut self) {
        // SAFETY: The instance owns a reference to the cgroup (type invariant).
        unsafe { bindings::mem_cgroup_put(self.ptr.as_ptr()) };
    }
}
