# SPDX-License-Identifier: GPL-2.0
"""The drm/tas uAPI for Python: devices, graphs, syncobjs, buffers and
templates (the native module, over the `tas` crate), plus two pure-Python
modules for frameworks:

- `tas.dag`: a dependency graph of timed nodes on rings, independent of any
  device, read from and written to `.tasg` files, and turned into a
  `tas.Graph` to submit or make a template of;
- `tas.capture`: PyTorch models traced into such graphs (needs PyTorch).
"""

from ._tas import (
    DRIVER_NAME,
    NODE_GRAPH,
    Bo,
    Device,
    Error,
    Graph,
    GraphInfo,
    NodeInfo,
    Syncobj,
    Template,
    now_ns,
)

__all__ = [
    "DRIVER_NAME",
    "NODE_GRAPH",
    "Bo",
    "Device",
    "Error",
    "Graph",
    "GraphInfo",
    "NodeInfo",
    "Syncobj",
    "Template",
    "now_ns",
]
