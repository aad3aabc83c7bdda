# SPDX-License-Identifier: MIT
"""The drm/tas uAPI for Python: devices, graphs, syncobjs, buffers and
templates (the native module, over the `tas` crate), plus two pure-Python
modules for frameworks:

- `tas.dag`: a dependency graph of timed nodes on rings, independent of any
  device, read from and written to `.tasg` files, and turned into a
  `tas.Graph` to submit or make a template of;
- `tas.capture`: PyTorch models traced into such graphs (needs PyTorch:
  `pip install drm-tas[torch]`).

Every object that holds a kernel resource (`Device`, `Bo`, `Syncobj`,
`Template`) has `close()` and is a context manager. Errors are `tas.Error`,
an `OSError` with `errno`, `op`, `array` and `index`.
"""

import asyncio
import os

from ._tas import (
    DRIVER_NAME,
    NODE_GRAPH,
    Bo,
    Device,
    Error,
    Graph,
    GraphInfo,
    GraphSummary,
    NodeInfo,
    Syncobj,
    Template,
    now_ns,
)
from ._types import Class, Range, Sync


async def wait_async(syncobj: Syncobj, point: int = 0) -> None:
    """Waits in the running `asyncio` event loop until `point` of `syncobj`
    (0: its binary fence) has signalled, through an eventfd that the kernel
    signals (`DRM_IOCTL_SYNCOBJ_EVENTFD`): no thread blocks, and other
    coroutines run meanwhile. The point may be submitted later. Raises
    `tas.Error` as `Syncobj.eventfd()` does. A cancelled wait leaves the
    kernel's registration in place (it holds the eventfd, closed here,
    until the point signals or the syncobj is destroyed)."""
    loop = asyncio.get_running_loop()
    fd = os.eventfd(0, os.EFD_CLOEXEC | os.EFD_NONBLOCK)
    try:
        done = loop.create_future()

        def ready() -> None:
            if not done.done():
                done.set_result(None)

        loop.add_reader(fd, ready)
        try:
            syncobj.eventfd(fd, point)
            await done
        finally:
            loop.remove_reader(fd)
    finally:
        os.close(fd)


__all__ = [
    "DRIVER_NAME",
    "NODE_GRAPH",
    "Bo",
    "Class",
    "Device",
    "Error",
    "Graph",
    "GraphInfo",
    "GraphSummary",
    "NodeInfo",
    "Range",
    "Sync",
    "Syncobj",
    "Template",
    "now_ns",
    "wait_async",
]
