// SPDX-License-Identifier: GPL-2.0

//! expect: error[E0308] add_point
//!
//! A timeline point cannot contain another timeline point: a chain node
//! links chains only through its previous point, and a chain as its fence
//! makes signalling and release recurse once per level of nesting (C warns
//! in `dma_fence_chain_init()`). `SyncObj::add_point()` takes an
//! `UnchainedFence`, so with `--cfg tas_fail`, which passes the fence of
//! point 1 itself, the module must not compile (E0308: mismatched types).
//! Without it, the control checks that fence at run time, where
//! `UnchainedFence::new()` would reject it, and must build.

use kernel::dma_fence::{FenceChain, FenceContext, UnchainedFence};
use kernel::drm::syncobj::{SyncObj, SyncPoint};
use kernel::prelude::*;

module! {
    type: Case,
    name: "syncobj_point_chain",
    authors: ["TAS"],
    description: "compile-fail: a timeline point as the fence of another",
    license: "GPL",
}

struct Case;

impl kernel::Module for Case {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let ctx = FenceContext::new(c"syncobj_point_chain", c"timeline");
        let syncobj = SyncObj::new(false, None)?;
        let job = ctx.new_fence((), GFP_KERNEL)?;
        syncobj.add_point(FenceChain::new(GFP_KERNEL)?, &job.unchained(), 1);
        let SyncPoint::Submitted(point) = syncobj.fence_at(1)? else {
            return Err(EINVAL);
        };
        #[cfg(not(tas_fail))]
        syncobj.add_point(
            FenceChain::new(GFP_KERNEL)?,
            &UnchainedFence::new(point)?,
            2,
        );
        #[cfg(tas_fail)]
        syncobj.add_point(FenceChain::new(GFP_KERNEL)?, &point, 2);
        job.signal();
        Ok(Case)
    }
}
