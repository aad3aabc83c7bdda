# SPDX-License-Identifier: MIT
"""The named types of the `tas` module's arguments and results."""

import enum
from typing import TYPE_CHECKING, NamedTuple, Optional

if TYPE_CHECKING:
    from ._tas import Syncobj


class Class(str, enum.Enum):
    """The priority class of a node (`cls=` of the node constructors).

    A `str` enum: `tas.Class.LATENCY == "latency"`, and the plain strings
    are accepted where a class is.
    """

    NORMAL = "normal"
    """Scheduled as the file's other work."""
    LATENCY = "latency"
    """Dispatched before normal and batch work (needs `CAP_SYS_NICE`,
    except with `submit(fifo=True)`)."""
    BATCH = "batch"
    """Dispatched after latency and normal work."""

    def __str__(self) -> str:
        return self.value


class Range(NamedTuple):
    """A byte range of a buffer object, as `Bo.range()` makes it."""

    handle: int
    offset: int
    size: int


class Sync(NamedTuple):
    """A wait or signal of `Device.launch()`: `point` of `syncobj` (0: its
    binary fence), for node `node` of the template (`None`: the whole
    graph); a signal with `on_start` signals when host node `node` is
    released."""

    syncobj: "Syncobj"
    point: int = 0
    node: Optional[int] = None
    on_start: bool = False
