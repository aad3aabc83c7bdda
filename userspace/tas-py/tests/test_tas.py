# SPDX-License-Identifier: MIT
"""Tests of the tas Python module.

GraphTest needs no device and runs anywhere. DeviceTest submits real work:
it runs where a drm/tas device exists (the QEMU guest of make check, with
the host's root file system and this module installed in the project's
venv); with TAS_PY_NO_DEVICE=1 it is skipped, as on the host.
"""

import asyncio
import errno
import os
import signal
import struct
import threading
import time
import unittest

import tas
from tas import dag as tasdag

MS = 1_000_000
NO_DEVICE = os.environ.get("TAS_PY_NO_DEVICE") == "1"


def first_existing(*paths):
    for p in paths:
        if os.path.exists(p):
            return p
    raise FileNotFoundError(paths[0])


class GraphTest(unittest.TestCase):
    def test_nodes_are_numbered(self):
        g = tas.Graph()
        self.assertEqual([g.nop(0), g.nop(1, 2 * MS), g.nop(0, cls="batch")], [0, 1, 2])
        self.assertEqual(len(g), 3)

    def test_edge_out_of_range(self):
        g = tas.Graph()
        a = g.nop(0)
        with self.assertRaises(tas.Error) as cm:
            g.edge(a, 1)
        self.assertEqual(cm.exception.errno, errno.EINVAL)
        self.assertIn("Graph::edge", str(cm.exception))
        self.assertIsInstance(cm.exception, OSError)

    def test_tag_is_64_bit(self):
        g = tas.Graph()
        self.assertEqual(g.nop(0, tag=2**64 - 1), 0)
        with self.assertRaises(OverflowError):
            g.nop(0, tag=2**64)
        with self.assertRaises(OverflowError):
            g.nop(0, tag=-1)
        self.assertEqual(len(g), 1)

    def test_unknown_class(self):
        with self.assertRaises(ValueError):
            tas.Graph().nop(0, cls="urgent")

    def test_host_nodes_are_numbered(self):
        g = tas.Graph()
        self.assertEqual([g.nop(0, MS), g.host(), g.host(cls="latency", tag=7)], [0, 1, 2])
        self.assertEqual(len(g), 3)
        g.edge(0, 1)
        with self.assertRaises(ValueError):
            g.host(cls="urgent")
        with self.assertRaises(TypeError):
            g.host(0)

    def test_open_missing_path(self):
        with self.assertRaises(tas.Error) as cm:
            tas.Device("/nonexistent/tas-py-test")
        self.assertEqual(cm.exception.errno, errno.ENOENT)

    def test_clock(self):
        a = tas.now_ns()
        self.assertGreater(tas.now_ns(), a - 1)
        self.assertEqual(tas.NODE_GRAPH, 0xFFFFFFFF)


def diamond():
    """0 -> {1, 2} -> 3; rings 0, 1, 1, 0; 1 + 3 + 2 + 1 ms."""
    d = tasdag.Dag("diamond")
    a = d.add(0, MS, "a")
    b = d.add(1, 3 * MS, "b", [a])
    c = d.add(1, 2 * MS, "c", [a])
    d.add(0, MS, "d", [b, c])
    return d


class TypesTest(unittest.TestCase):
    def test_class_enum(self):
        # Enum members and plain strings name the same classes.
        self.assertEqual(tas.Class("batch"), tas.Class.BATCH)
        self.assertEqual(tas.Class.LATENCY, "latency")
        g = tas.Graph()
        self.assertEqual([g.nop(0, cls=tas.Class.BATCH), g.host(cls=tas.Class.LATENCY)], [0, 1])

    def test_named_tuples(self):
        r = tas.Range(3, 4096, 64)
        self.assertEqual((r.handle, r.offset, r.size), (3, 4096, 64))
        self.assertEqual(r, (3, 4096, 64))
        # A Range is taken wherever a buffer range is.
        g = tas.Graph()
        self.assertEqual(g.fill(0, r, 7), 0)
        self.assertEqual(tas.Sync(None, 2)._fields, ("syncobj", "point", "node", "on_start"))
        self.assertEqual(tas.Sync(None, 2)[1:], (2, None, False))

    def test_error_attributes(self):
        # Errors made in Python have the attributes too, as None.
        e = tas.Error(errno.EINVAL, "x")
        self.assertEqual((e.errno, e.op, e.array, e.index), (errno.EINVAL, None, None, None))
        with self.assertRaises(tas.Error) as cm:
            tas.Device("/nonexistent/tas")
        self.assertEqual((cm.exception.errno, cm.exception.op), (errno.ENOENT, "open"))
        self.assertIsNone(cm.exception.array)

    def test_readme_example(self):
        # The README's example is examples/quickstart.py as it runs in
        # make check (in the repository, or as the guest lays them out).
        here = os.path.dirname(os.path.abspath(__file__))
        readme = first_existing(os.path.join(here, "..", "README.md"), os.path.join(here, "README.md"))
        example = first_existing(
            os.path.join(here, "..", "examples", "quickstart.py"), os.path.join(here, "quickstart.py")
        )
        with open(readme) as f:
            text = f.read()
        block = text.split("```python\n", 1)[1].split("```", 1)[0]
        with open(example) as f:
            code = f.read()
        self.assertTrue(code.endswith(block), "README.md's first example differs from examples/quickstart.py")

    def test_typed(self):
        # The package ships its stubs (checked against the module by
        # mypy.stubtest) and says so.
        pkg = os.path.dirname(tas.__file__)
        self.assertTrue(os.path.exists(os.path.join(pkg, "py.typed")))
        self.assertTrue(os.path.exists(os.path.join(pkg, "_tas.pyi")))


class DagTest(unittest.TestCase):
    def test_bounds(self):
        d = diamond()
        self.assertEqual((d.rings, len(d), d.edges()), (2, 4, [(0, 1), (0, 2), (1, 3), (2, 3)]))
        self.assertEqual(d.critical_path_ns(), 5 * MS)
        self.assertEqual(d.work_ns(), 7 * MS)
        # Both the critical path (a, b, d) and ring 1's work (b, c) are 5 ms.
        self.assertEqual(d.bound_ns(), 5 * MS)

    def test_round_trip(self):
        d = diamond()
        text = d.dumps("a comment")
        self.assertTrue(text.startswith("# a comment\ntas-graph 1 diamond 2 4 4\nn 0 1000000 a\n"))
        e = tasdag.loads(text)
        self.assertEqual((e.name, e.rings, e.nodes, e.preds), (d.name, d.rings, d.nodes, d.preds))

    def test_malformed(self):
        good = diamond().dumps()
        bad = [
            "",
            good.replace("tas-graph 1", "tas-graph 2"),
            good.replace(" 2 4 4", " 2 5 4"),               # a node missing
            good.replace("n 1 3000000 b", "n 2 3000000 b"),  # ring beyond the header's
            good.replace("e 1 3", "e 3 1"),                  # backwards edge
            good.replace("e 1 3", "e 1 x"),
            good.replace("n 0 1000000 a", "x 0 1000000 a"),
            good.replace("n 0 1000000 a", "n 0 -1000000 a"),
            good.replace(" 2 4 4", " 0 4 4"),                # no rings
            good.replace(" 2 4 4", " 17 4 4"),               # more than 16
            good.replace("diamond", "d" * 24),                # name too long
            good.replace("e 0 2", "e 0 1"),                  # an edge twice
        ]
        for text in bad:
            with self.assertRaises(OSError, msg=text) as cm:
                tasdag.loads(text)
            self.assertEqual(cm.exception.errno, errno.EINVAL)

    def test_add_checks(self):
        d = tasdag.Dag("x")
        for ring, ns, name, preds in [(0, MS, "a", [0]), (16, MS, "a", []),
                                      (0, -1, "a", []), (0, MS, "two words", [])]:
            with self.assertRaises(ValueError):
                d.add(ring, ns, name, preds)
        self.assertEqual(len(d), 0)
        with self.assertRaises(ValueError):
            tasdag.Dag("x" * 24)

    def test_to_graph(self):
        g = tas.Graph()
        g.nop(0)
        self.assertIs(diamond().to_graph(g), g)
        self.assertEqual(len(g), 5)


@unittest.skipIf(NO_DEVICE, "TAS_PY_NO_DEVICE=1: no drm/tas device")
class DeviceTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dev = tas.Device()
        cls.rings = cls.dev.param("NUM_RINGS")

    def test_params(self):
        params = self.dev.params()
        self.assertGreaterEqual(params["VERSION"], 4)
        self.assertEqual(params["NUM_RINGS"], self.rings)
        self.assertGreaterEqual(self.rings, 2)
        if params["VERSION"] >= 6:
            self.assertGreater(params["HOST_TIMEOUT_NS"], 0)
        with self.assertRaises(ValueError):
            self.dev.param("NO_SUCH_PARAM")

    def test_chain_across_rings(self):
        bo = self.dev.bo(8192)
        done = self.dev.syncobj()
        g = tas.Graph()
        fill = g.fill(0, bo.range(0, 4096), 7, duration_ns=MS)
        copy = g.copy(1, bo.range(4096, 4096), bo.range(0, 4096), duration_ns=MS)
        g.edge(fill, copy)
        g.signal(done, 1)
        gid = self.dev.submit(g)
        done.wait(1, timeout=30)
        self.assertEqual(done.query(), 1)
        self.assertEqual(set(bo.u32s()), {7})
        info = self.dev.graph_info(gid, len(g))
        self.assertTrue(info.done)
        a, b = info.nodes
        self.assertEqual((a.ring, b.ring), (0, 1))
        self.assertEqual((a.error, b.error), (None, None))
        self.assertGreaterEqual(a.exec_ns, MS)
        self.assertLessEqual(a.finished_ns, b.started_ns)

    def test_tags(self):
        # A framework names its nodes by op id; GRAPH_INFO gives the names back.
        done = self.dev.syncobj()
        g = tas.Graph()
        a = g.nop(0, MS, tag=2**64 - 1)
        b = g.nop(1, MS, tag=0x7A5)
        g.nop(0)
        g.edge(a, b)
        g.signal(done)
        gid = self.dev.submit(g)
        done.wait(timeout=30)
        info = self.dev.graph_info(gid, len(g))
        self.assertEqual([n.tag for n in info.nodes], [2**64 - 1, 0x7A5, 0])

    def test_matmul(self):
        bo = self.dev.bo(4096)
        # a = [[1, 2], [3, 4]], b = [[5, 6], [7, 8]] at 0 and 16, dst at 32.
        bo.write(0, struct.pack("<8I", 1, 2, 3, 4, 5, 6, 7, 8))
        done = self.dev.syncobj()
        g = tas.Graph()
        g.matmul(0, bo.range(32, 16), bo.range(0, 16), bo.range(16, 16), 2, 2, 2)
        g.signal(done)
        self.dev.submit(g)
        done.wait(timeout=30)
        self.assertEqual(struct.unpack("<4I", bytes(bo.read(32, 16))), (19, 22, 43, 50))

    def test_rejected_graphs(self):
        g = tas.Graph()
        a, b = g.nop(0), g.nop(1)
        g.edge(a, b)
        g.edge(b, a)
        with self.assertRaises(tas.Error) as cm:
            self.dev.submit(g)
        self.assertEqual(cm.exception.errno, errno.ELOOP)
        self.assertRegex(str(cm.exception), r" at edge [01]$")
        g = tas.Graph()
        g.nop(0)
        g.nop(self.rings)
        with self.assertRaises(tas.Error) as cm:
            self.dev.submit(g)
        self.assertEqual(cm.exception.errno, errno.EINVAL)
        self.assertIn("SUBMIT_GRAPH", str(cm.exception))
        # The kernel names the node at fault.
        self.assertTrue(str(cm.exception).endswith(" at node 1"), str(cm.exception))

    def test_wait_for_a_point_not_submitted(self):
        # No wait-before-signal: the point must exist at submit.
        g = tas.Graph()
        g.nop(0)
        s = self.dev.syncobj()
        g.wait(s, 5)
        with self.assertRaises(tas.Error) as cm:
            self.dev.submit(g)
        self.assertEqual(cm.exception.errno, errno.EINVAL)

    def test_wait_times_out(self):
        s = self.dev.syncobj()
        with self.assertRaises(tas.Error) as cm:
            s.wait(timeout=0.05)
        self.assertEqual(cm.exception.errno, errno.ETIME)

    def test_cpu_thread_woken_by_gpu_work(self):
        # A Python thread blocks on the point the graph signals (without the
        # GIL) while this thread submits; it wakes when the node completes.
        s = self.dev.syncobj()
        woke = []

        def waiter():
            s.wait(3, timeout=30)
            woke.append(tas.now_ns())

        t = threading.Thread(target=waiter)
        t.start()
        g = tas.Graph()
        n = g.nop(0, 2 * MS)
        g.signal(s, 3, node=n)
        gid = self.dev.submit(g)
        t.join(40)
        self.assertFalse(t.is_alive())
        info = self.dev.graph_info(gid, 1)
        self.assertEqual(len(woke), 1)
        self.assertGreaterEqual(woke[0], info.nodes[0].finished_ns)

    def test_template_launches(self):
        g = tas.Graph()
        a = g.nop(0, MS)
        b = g.nop(1, MS)
        g.edge(a, b)
        t = self.dev.template(g)
        self.assertEqual(t.node_count, 2)
        s = self.dev.syncobj()
        ids = [self.dev.launch(t, signals=[(s, p, None)]) for p in (1, 2)]
        s.wait(2, timeout=30)
        for gid in ids:
            info = self.dev.graph_info(gid, t.node_count)
            self.assertTrue(info.done)
            self.assertLessEqual(info.nodes[0].finished_ns, info.nodes[1].started_ns)
        with self.assertRaises(tas.Error) as cm:
            self.dev.launch(t, signals=[(s, 1, None)])
        self.assertEqual(cm.exception.errno, errno.EINVAL)

    def test_template_binds(self):
        # One template, many inputs: each launch fills and copies the
        # buffers it binds, the template's own stay as they were.
        if self.dev.param("VERSION") < 7:
            self.skipTest("binds need uAPI version 7")
        src, dst = self.dev.bo(4096), self.dev.bo(4096)
        g = tas.Graph()
        fill = g.fill(0, src.range(0, 4096), 1)
        copy = g.copy(1, dst.range(0, 4096), src.range(0, 4096))
        g.edge(fill, copy)
        t = self.dev.template(g)
        self.assertEqual(t.slots, 2)  # src (first used by the fill), dst
        s = self.dev.syncobj()
        outs = []
        for value in (2, 3):
            src2, dst2 = self.dev.bo(8192), self.dev.bo(4096)
            # The fill's value is the template's; the buffers are new.
            self.dev.launch(t, signals=[(s, 0, None)], binds={0: (src2, 4096), 1: (dst2, 0)})
            s.wait(timeout=30)
            outs.append((src2, dst2))
        for src2, dst2 in outs:
            words = src2.u32s()
            self.assertEqual(set(words[:1024]), {0})
            self.assertEqual(set(words[1024:]), {1})
            self.assertEqual(set(dst2.u32s()), {1})
        self.assertEqual(set(src.u32s()), {0})
        self.assertEqual(set(dst.u32s()), {0})
        small = self.dev.bo(4096)
        with self.assertRaises(tas.Error) as cm:
            self.dev.launch(t, binds={0: (small, 4096)})
        self.assertEqual(cm.exception.errno, errno.EINVAL)

    def test_keep_and_release(self):
        # A kept graph outlives 70 later ones (the history keeps 64) until
        # it is read with release=True.
        self.assertEqual(self.dev.param("MAX_KEPT_NODES"), 65536)
        self.assertEqual(self.dev.param("MAX_KEPT_GRAPHS"), 1024)
        g = tas.Graph()
        g.nop(0)
        kept = self.dev.submit(g, keep=True)
        s = self.dev.syncobj()
        t = self.dev.template(g)
        kept_launch = self.dev.launch(t, keep=True)
        first = self.dev.submit(g)
        for _ in range(68):
            self.dev.submit(g)
        g.signal(s)
        self.dev.submit(g)
        s.wait(timeout=30)
        with self.assertRaises(tas.Error) as cm:
            self.dev.graph_info(first, 1)
        self.assertEqual(cm.exception.errno, errno.ENOENT)
        for gid in (kept, kept_launch):
            deadline = tas.now_ns() + 30 * 10**9
            while not self.dev.graph_info(gid, 1).done:
                self.assertLess(tas.now_ns(), deadline)
                time.sleep(0.001)
            info = self.dev.graph_info(gid, 1, release=True)
            self.assertTrue(info.done)
            with self.assertRaises(tas.Error) as cm:
                self.dev.graph_info(gid, 1)
            self.assertEqual(cm.exception.errno, errno.ENOENT)

    def test_fifo_dispatch(self):
        s = self.dev.syncobj()
        g = tas.Graph()
        for ring in range(self.rings):
            g.nop(ring, MS)
        g.signal(s)
        gid = self.dev.submit(g, fifo=True)
        s.wait(timeout=30)
        info = self.dev.graph_info(gid, len(g))
        self.assertEqual([n.ring for n in info.nodes], list(range(self.rings)))

    def host_chain(self, second_ns):
        """GPU (ring 0, 20 ms) -> host -> GPU (ring 1, `second_ns`) as one
        graph: the host node signals point 1 of `start` when it is
        released, the graph point 1 of `done`."""
        start, done = self.dev.syncobj(), self.dev.syncobj()
        g = tas.Graph()
        gpu = g.nop(0, 20 * MS)
        host = g.host()
        nxt = g.nop(1, second_ns)
        g.edge(gpu, host)
        g.edge(host, nxt)
        g.signal(start, 1, node=host, on_start=True)
        g.signal(done, 1)
        return g, (gpu, host, nxt), start, done

    def test_host_node_between_gpu_nodes(self):
        # The thread is woken by the host node's start point once the first
        # GPU node has finished; the last one starts after its report.
        g, (gpu, host, nxt), start, done = self.host_chain(20 * MS)
        gid = self.dev.submit(g)
        start.wait(1, timeout=30)
        woke = tas.now_ns()
        info = self.dev.graph_info(gid, len(g))
        self.assertFalse(info.done)
        self.assertIsNone(info.nodes[gpu].error)
        self.assertNotEqual(info.nodes[gpu].finished_ns, 0)
        self.assertLessEqual(info.nodes[gpu].finished_ns, woke)
        self.assertEqual(info.nodes[nxt].started_ns, 0)
        with self.assertRaises(tas.Error) as cm:
            self.dev.host_done(gid, gpu)        # not a host node
        self.assertEqual(cm.exception.errno, errno.EINVAL)
        reported = tas.now_ns()
        self.dev.host_done(gid, host)
        done.wait(1, timeout=30)
        info = self.dev.graph_info(gid, len(g))
        self.assertTrue(info.done)
        a, h, b = info.nodes
        self.assertEqual((a.error, h.error, b.error), (None, None, None))
        self.assertEqual((a.ring, h.ring, b.ring), (0, self.rings, 1))
        self.assertLessEqual(a.finished_ns, h.started_ns)
        self.assertLessEqual(h.started_ns, woke)
        self.assertGreaterEqual(h.finished_ns, reported)
        self.assertLessEqual(h.finished_ns, b.started_ns)
        with self.assertRaises(tas.Error) as cm:
            self.dev.host_done(gid, host)       # the graph has completed
        self.assertEqual(cm.exception.errno, errno.ENOENT)

    def test_host_done_errors(self):
        # Host node 1 waits for host node 0: it is not released before node
        # 0 is reported, and the graph is in flight until node 1 is, whatever
        # the timing of the guest.
        start, done = self.dev.syncobj(), self.dev.syncobj()
        g = tas.Graph()
        first, second = g.host(), g.host()
        g.edge(first, second)
        g.signal(start, 1, node=first, on_start=True)
        g.signal(start, 2, node=second, on_start=True)
        g.signal(done, 1)
        gid = self.dev.submit(g)
        start.wait(1, timeout=30)
        with self.assertRaises(tas.Error) as cm:
            self.dev.host_done(gid, second)     # not released yet
        self.assertEqual(cm.exception.errno, errno.EBUSY)
        with self.assertRaises(tas.Error) as cm:
            self.dev.host_done(gid, first, 512)     # not a userspace errno
        self.assertEqual(cm.exception.errno, errno.EINVAL)
        self.dev.host_done(gid, first)
        with self.assertRaises(tas.Error) as cm:
            self.dev.host_done(gid, first)      # reported already
        self.assertEqual(cm.exception.errno, errno.EALREADY)
        start.wait(2, timeout=30)
        self.dev.host_done(gid, second)
        done.wait(1, timeout=30)
        with self.assertRaises(tas.Error) as cm:
            self.dev.host_done(gid, second)     # the graph has completed
        self.assertEqual(cm.exception.errno, errno.ENOENT)

    def test_host_node_error_reaches_successors(self):
        g, (gpu, host, nxt), start, done = self.host_chain(MS)
        gid = self.dev.submit(g)
        start.wait(1, timeout=30)
        self.dev.host_done(gid, host, errno.EIO)
        done.wait(1, timeout=30)
        info = self.dev.graph_info(gid, len(g))
        self.assertTrue(info.done)
        a, h, b = info.nodes
        self.assertIsNone(a.error)
        self.assertEqual((h.error, b.error), (errno.EIO, errno.EIO))
        # The successor did not run.
        self.assertEqual(b.started_ns, 0)
        self.assertNotEqual(b.finished_ns, 0)

    def test_graph_summary(self):
        # The first failed node and its errno, without the nodes: the host
        # node's error, not its successor's inherited one.
        start, done = self.dev.syncobj(), self.dev.syncobj()
        g = tas.Graph()
        gpu = g.nop(0, MS)
        host = g.host()
        nxt = g.nop(1, MS)
        g.edge(gpu, host)
        g.edge(host, nxt)
        g.signal(start, 1, node=host, on_start=True)
        g.signal(done, 1)
        gid = self.dev.submit(g)
        start.wait(1, timeout=30)
        s = self.dev.graph_summary(gid)
        self.assertEqual((s.done, s.node_count, s.error_node, s.error), (False, 3, None, None))
        self.dev.host_done(gid, host, errno.EIO)
        done.wait(1, timeout=30)
        s = self.dev.graph_summary(gid, release=True)
        self.assertEqual((s.done, s.node_count, s.error_node, s.error), (True, 3, host, errno.EIO))
        with self.assertRaises(tas.Error) as cm:
            self.dev.graph_summary(gid)
        self.assertEqual(cm.exception.errno, errno.ENOENT)

    def test_host_node_rejected(self):
        # The stock dispatch has no release step; a start point is only for
        # a host node. The kernel names the node or the signal.
        s = self.dev.syncobj()
        for fifo, on_gpu, culprit in [(True, False, "node 1"), (False, True, "signal 0")]:
            g = tas.Graph()
            gpu = g.nop(0)
            host = g.host()
            g.signal(s, 1, node=gpu if on_gpu else host, on_start=True)
            with self.assertRaises(tas.Error) as cm:
                self.dev.submit(g, fifo=fifo)
            self.assertEqual(cm.exception.errno, errno.EINVAL)
            self.assertTrue(str(cm.exception).endswith(" at " + culprit), str(cm.exception))
        with self.assertRaises(ValueError):
            tas.Graph().signal(s, 1, on_start=True)

    def test_host_node_template(self):
        # Each launch has its own graph id and its own start point.
        g = tas.Graph()
        gpu = g.nop(0, MS)
        host = g.host()
        g.edge(gpu, host)
        t = self.dev.template(g)
        start, done = self.dev.syncobj(), self.dev.syncobj()
        for p in (1, 2):
            gid = self.dev.launch(t, signals=[(start, p, host, True), (done, p, None)])
            start.wait(p, timeout=30)
            self.assertEqual(done.query(), p - 1)
            self.dev.host_done(gid, host)
            done.wait(p, timeout=30)
            info = self.dev.graph_info(gid, t.node_count)
            self.assertTrue(info.done)
            self.assertEqual([n.error for n in info.nodes], [None, None])

    def test_ordered_launches(self):
        # An ordered launch is released once the previous ordered one has
        # completed, even though it failed; an unordered one at once.
        g = tas.Graph()
        host = g.host()
        g.edge(host, g.nop(0, MS))
        t = self.dev.template(g)
        start = [self.dev.syncobj() for _ in range(3)]
        done = [self.dev.syncobj() for _ in range(3)]
        ids = [
            self.dev.launch(t, signals=[(start[i], 1, host, True), (done[i], 1, None)],
                            ordered=i < 2)
            for i in range(3)
        ]
        start[0].wait(1, timeout=30)
        start[2].wait(1, timeout=30)
        with self.assertRaises(tas.Error) as e:
            self.dev.host_done(ids[1], host)
        self.assertEqual(e.exception.errno, errno.EBUSY)
        self.dev.host_done(ids[0], host, errno.EIO)
        start[1].wait(1, timeout=30)
        self.dev.host_done(ids[1], host)
        self.dev.host_done(ids[2], host)
        for d in done:
            d.wait(1, timeout=30)
        self.assertEqual(self.dev.graph_summary(ids[0]).error, errno.EIO)
        self.assertIsNone(self.dev.graph_summary(ids[1]).error)

    def test_signal_ends_wait(self):
        # PEP 475: a signal whose handler returns lets a blocked wait go on;
        # one whose handler raises ends it with that exception (Ctrl-C:
        # KeyboardInterrupt). A thread sends each signal once the main
        # thread sleeps in the wait's ioctl, and signals the syncobj after 60 s so
        # that a wait the signals cannot end returns instead of hanging.
        s = self.dev.syncobj()
        main, tid = threading.get_ident(), threading.get_native_id()
        seen = []

        def sleeping():
            # Asleep in an ioctl (x86_64's system call 16), not on a lock.
            with open(f"/proc/self/task/{tid}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
            with open(f"/proc/self/task/{tid}/syscall") as f:
                return state == "S" and f.read().split()[0] == "16"

        def until(cond):
            deadline = time.monotonic() + 60
            while not cond() and time.monotonic() < deadline:
                time.sleep(0.01)

        def signaller():
            until(sleeping)
            signal.pthread_kill(main, signal.SIGUSR1)
            until(lambda: seen and sleeping())
            time.sleep(0.2)
            until(sleeping)
            signal.pthread_kill(main, signal.SIGINT)

        rescue = threading.Timer(60, s.signal)
        rescue.start()
        old = signal.signal(signal.SIGUSR1, lambda *_: seen.append(1))
        thread = threading.Thread(target=signaller)
        try:
            thread.start()
            t0 = time.monotonic()
            with self.assertRaises(KeyboardInterrupt):
                s.wait()
            self.assertLess(time.monotonic() - t0, 50)
            self.assertEqual(seen, [1])
            # The syncobj was not signalled; the same wait still waits.
            with self.assertRaises(tas.Error) as cm:
                s.wait(timeout=0.05)
            self.assertEqual(cm.exception.errno, errno.ETIME)
        finally:
            thread.join()
            rescue.cancel()
            signal.signal(signal.SIGUSR1, old)

    def test_objects_of_another_device(self):
        # Handles belong to their file.
        other = tas.Device(self.dev.path)
        g = tas.Graph()
        g.nop(0)
        t = self.dev.template(g)
        with self.assertRaises(ValueError):
            other.launch(t)
        t2 = other.template(g)
        with self.assertRaises(ValueError):
            other.launch(t2, signals=[tas.Sync(self.dev.syncobj(), 1)])
        with self.assertRaises(ValueError):
            other.launch(t2, binds={0: (self.dev.bo(4096), 0)})
        other.close()

    def test_error_names_culprit(self):
        # The kernel's error_array and error_index reach the exception.
        s = self.dev.syncobj()
        g = tas.Graph()
        g.nop(0)
        g.nop(1)
        g.wait(s, 3, node=1)
        s.close()
        with self.assertRaises(tas.Error) as cm:
            self.dev.submit(g)
        e = cm.exception
        self.assertEqual((e.errno, e.op, e.array, e.index), (errno.ENOENT, "SUBMIT_GRAPH", "wait", 0))

    def test_close(self):
        # close() releases the kernel object at once; the object then
        # raises ValueError, as a closed file does.
        with self.dev.syncobj() as s:
            s.signal()
        self.assertIsNone(s.close())
        with self.assertRaises(ValueError):
            s.query()
        with self.assertRaises(ValueError):
            tas.Graph().wait(s)
        with self.dev.bo(4096) as bo:
            self.assertEqual(bo.size, 4096)
        with self.assertRaises(ValueError):
            bo.range(0, 4)
        g = tas.Graph()
        g.nop(0)
        t = self.dev.template(g)
        t.close()
        with self.assertRaises(ValueError):
            self.dev.launch(t)
        # A closed device refuses calls; what it made keeps the file open.
        dev = tas.Device(self.dev.path)
        keep = dev.syncobj()
        with dev:
            self.assertGreater(dev.param("NUM_RINGS"), 0)
        with self.assertRaises(ValueError):
            dev.param("NUM_RINGS")
        keep.signal()
        keep.wait(timeout=1)

    def test_mmap(self):
        # A mapping with the buffer protocol: what a node wrote is seen
        # through it, what the CPU writes through it is seen by nodes, and
        # it outlives the buffer's handle.
        bo = self.dev.bo(8192)
        m = bo.mmap()
        self.assertEqual(len(m), 8192)
        m[4096:4100] = struct.pack("<I", 11)
        done = self.dev.syncobj()
        g = tas.Graph()
        fill = g.fill(0, bo.range(0, 4096), 7)
        copy = g.copy(1, bo.range(4100, 4), bo.range(4096, 4))
        g.edge(fill, copy)
        g.signal(done)
        self.dev.submit(g)
        done.wait(timeout=30)
        view = memoryview(m).cast("I")
        self.assertEqual(list(view[:1024]), [7] * 1024)
        self.assertEqual(view[1025], 11)
        view.release()
        bo.close()
        self.assertEqual(m[0:4], struct.pack("<I", 7))
        m.close()
        with self.assertRaises(ValueError):
            bo.read(0, 4)

    def test_read_write(self):
        bo = self.dev.bo(4096)
        bo.write(8, b"\x01\x02\x03\x04")
        self.assertEqual(bo.read(8, 4), b"\x01\x02\x03\x04")
        self.assertEqual(bo.u32s()[2], 0x04030201)
        with self.assertRaises(ValueError):
            bo.read(4094, 4)

    def test_wait_async(self):
        # Two points waited for in one event loop, without a thread each:
        # one signalled already, one by a graph submitted after the wait
        # began.
        s = self.dev.syncobj()
        s.signal(1)

        async def main():
            first = asyncio.ensure_future(tas.wait_async(s, 1))
            second = asyncio.ensure_future(tas.wait_async(s, 2))
            await asyncio.wait_for(first, 10)
            self.assertFalse(second.done())
            g = tas.Graph()
            g.nop(0, 10 * MS)
            g.signal(s, 2)
            self.dev.submit(g)
            await asyncio.wait_for(second, 30)

        asyncio.run(main())
        self.assertEqual(s.query(), 2)

    def test_launch_sync_entries(self):
        # tas.Sync entries, as plain tuples are.
        g = tas.Graph()
        g.nop(0, MS)
        t = self.dev.template(g)
        start, done = self.dev.syncobj(), self.dev.syncobj()
        start.signal(1)
        self.dev.launch(t, waits=[tas.Sync(start, 1)], signals=[tas.Sync(done, 1, 0)])
        done.wait(1, timeout=30)

    def test_dag_makespan(self):
        d = diamond()
        done = self.dev.syncobj()
        g = d.to_graph()
        g.signal(done)
        gid = self.dev.submit(g)
        done.wait(timeout=30)
        info = self.dev.graph_info(gid, len(g))
        self.assertEqual([n.tag for n in info.nodes], [0, 1, 2, 3])
        self.assertGreaterEqual(tasdag.makespan_ns(info), d.bound_ns())


if __name__ == "__main__":
    unittest.main()
