// SPDX-License-Identifier: GPL-2.0

//! expect: error[E0599] wait
//!
//! A fence callback handler runs while the fence is signalled, with the
//! fence lock held by the code that signals it, possibly with interrupts
//! off: `Fence::wait()` or `Fence::error()` (which takes the lock through
//! `dma_fence_get_status()`) called from there would spin forever on that
//! lock. The handler is handed a `SignaledFence`, which has what it may
//! read there and no wait, so with `--cfg tas_fail` the module must not
//! compile (E0599: no method named `wait`). Without it, the control reads
//! the error and the timestamp of the fence in the handler, and must build.

use kernel::dma_fence::{FenceCallback, FenceCallbackHandler, FenceContext, SignaledFence};
use kernel::prelude::*;
use kernel::sync::atomic::{Atomic, Relaxed};

module! {
    type: Case,
    name: "fence_callback_wait",
    authors: ["TAS"],
    description: "compile-fail: a fence wait in a fence callback",
    license: "GPL",
}

struct Handler(Atomic<i32>);

impl FenceCallbackHandler for Handler {
    fn fence_signaled(&self, fence: &SignaledFence) {
        #[cfg(not(tas_fail))]
        self.0.store(
            fence.error().map_or(0, |e| e.to_errno()) + i32::from(fence.timestamp() == 0),
            Relaxed,
        );
        #[cfg(tas_fail)]
        let _ = fence.wait(false, None);
    }
}

struct Case;

impl kernel::Module for Case {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let ctx = FenceContext::new(c"fence_callback_wait", c"test");
        let fence = ctx.new_fence((), GFP_KERNEL)?;
        let cb = KBox::pin_init(
            FenceCallback::new(fence.fence(), Handler(Atomic::new(0))),
            GFP_KERNEL,
        )?;
        fence.signal_with_error(EIO);
        drop(cb);
        Ok(Case)
    }
}
