# SPDX-License-Identifier: MIT
"""The example of userspace/tas-py/README.md: a fill on ring 0, then a copy
on ring 1, one graph in one ioctl; a CPU thread waits for the graph's
timeline point and reads the buffer. make check runs it in the QEMU guest."""

import errno

import tas

dev = tas.Device()                      # the first drm/tas render node
bo = dev.bo(8192)
done = dev.syncobj()

g = tas.Graph()
fill = g.fill(0, bo.range(0, 4096), 7, duration_ns=1_000_000)   # ring 0
copy = g.copy(1, bo.range(4096, 4096), bo.range(0, 4096))       # ring 1
g.edge(fill, copy)
g.signal(done, 1)                       # timeline point 1, whole graph

gid = dev.submit(g)                     # or dev.submit(g, fifo=True)
done.wait(1, timeout=10)                # releases the GIL while it waits
assert set(bo.u32s()) == {7}
for n in dev.graph_info(gid, len(g)).nodes:
    print(n.ring, n.exec_ns, n.error)

try:
    dev.submit(tas.Graph())             # no nodes
    raise SystemExit("an empty graph was accepted")
except tas.Error as e:                  # a subclass of OSError
    assert e.errno == errno.EINVAL
    print("empty graph:", e)
