// SPDX-License-Identifier: GPL-2.0

//! expect: ok
//!
//! The control of `owned_queue_delayed.rs`, the same module without its error:
//! work is queued on an `OwnedQueue` now, and delayed on a system workqueue.

use kernel::prelude::*;
use kernel::sync::Arc;
use kernel::workqueue::{
    self, impl_has_delayed_work, new_delayed_work, DelayedWork, OwnedQueue, QueueFlags, WorkItem,
};

module! {
    type: Case,
    name: "owned_queue_ok",
    authors: ["TAS"],
    description: "compile-fail control: queueing that must compile",
    license: "GPL",
}

#[pin_data]
struct Item {
    #[pin]
    work: DelayedWork<Item>,
}

impl_has_delayed_work! {
    impl HasDelayedWork<Self> for Item { self.work }
}

impl WorkItem for Item {
    type Pointer = Arc<Item>;

    fn run(_this: Arc<Item>) {}
}

fn new_item() -> Result<Arc<Item>> {
    Arc::pin_init(
        pin_init!(Item {
            work <- new_delayed_work!("Item::work"),
        }),
        GFP_KERNEL,
    )
}

struct Case;

impl kernel::Module for Case {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let queue = OwnedQueue::new(c"owned_queue_ok", QueueFlags::UNBOUND, 0)?;
        let _ = queue.enqueue(new_item()?);
        let _ = workqueue::system().enqueue_delayed(new_item()?, 100);
        Ok(Case)
    }
}
