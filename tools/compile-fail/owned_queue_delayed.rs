// SPDX-License-Identifier: GPL-2.0

//! expect: error[E0597] enqueue_delayed
//!
//! Delayed work cannot be queued on an `OwnedQueue`: the timer of a delayed
//! work item is not waited for when the queue is destroyed, and would queue
//! the item on the freed workqueue. `Queue::enqueue_delayed()` takes only a
//! `'static` queue, so with `--cfg tas_fail` the module must not compile
//! (E0597: `queue` does not live long enough). Without it, the control
//! queues work on the `OwnedQueue` now and delayed work on a system
//! workqueue, and must build.

use kernel::prelude::*;
use kernel::sync::Arc;
use kernel::workqueue::{
    self, impl_has_delayed_work, new_delayed_work, DelayedWork, OwnedQueue, QueueFlags, WorkItem,
};

module! {
    type: Case,
    name: "owned_queue_delayed",
    authors: ["TAS"],
    description: "compile-fail: delayed work on an OwnedQueue",
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
        let queue = OwnedQueue::new(c"owned_queue_delayed", QueueFlags::UNBOUND, 0)?;
        let _ = queue.enqueue(new_item()?);
        #[cfg(not(tas_fail))]
        let _ = workqueue::system().enqueue_delayed(new_item()?, 100);
        #[cfg(tas_fail)]
        let _ = queue.enqueue_delayed(new_item()?, 100);
        Ok(Case)
    }
}
