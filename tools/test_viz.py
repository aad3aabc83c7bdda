#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of tools/tas_viz.py: the Perfetto trace it writes for a small graph,
read back with Perfetto's schema, and the check failing on broken traces
(run by tools/qemu-test.sh before it converts the guest's real run)."""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tas_viz  # noqa: E402
from perfetto.protos.perfetto.trace.perfetto_trace_pb2 import (  # noqa: E402
    Trace, TrackEvent)

MS = 1000000
T0 = 1000 * MS

# Four nodes on two rings: 0 -> 1, 0 -> 2, 2 -> 3. In the dispatcher run,
# node 3 (latency class) starts while node 1 still runs on ring 0, as a ring
# that preempts between chunks does, and in the FIFO run node 3 never ran.
LOG = """\
[    1.0] some kernel message
TAS-DATA {"graph":"transformer","nodes":4,"edges":3,"rings":["compute0","copy"]}
TAS-DATA {"node":0,"name":"a","ring":1,"class":0,"gang":0,"duration_ns":1000000}
TAS-DATA {"node":1,"name":"b","ring":0,"class":2,"gang":0,"duration_ns":4000000}
TAS-DATA {"node":2,"name":"c","ring":1,"class":0,"gang":0,"duration_ns":1000000}
TAS-DATA {"node":3,"name":"d","ring":0,"class":1,"gang":0,"duration_ns":1000000}
TAS-DATA {"edge":[0,1]}
TAS-DATA {"edge":[0,2]}
TAS-DATA {"edge":[2,3]}
"""


def run(name, times):
    """Run records; times are from T0 (CLOCK_MONOTONIC), 0 for "never"."""
    def t(x):
        return T0 + x if x else 0
    return "".join(
        f'TAS-DATA {{"run":"{name}","node":{i},"queued_ns":{T0 + q},"ready_ns":{t(r)},'
        f'"started_ns":{t(s)},"finished_ns":{t(f)},"error":{e},"tag":{(i + 1) << 40}}}\r\n'
        for i, (q, r, s, f, e) in enumerate(times))


FIFO = run("fifo", [(0, 1, 1, MS, 0), (0, MS, MS, 5 * MS, 0),
                    (0, MS, MS, 2 * MS, 0), (0, 2 * MS, 0, 0, -125)])
DISPATCHER = run("dispatcher", [(0, 1, 1, MS, 0), (0, MS, MS, 6 * MS, 0),
                                (0, MS, MS, 2 * MS, 0), (0, 2 * MS, 2 * MS, 3 * MS, 0)])


class VizTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.log = os.path.join(self.dir.name, "console.log")
        with open(self.log, "w") as f:
            f.write(LOG + FIFO + DISPATCHER)
        self.parsed = tas_viz.parse(self.log)

    def tearDown(self):
        self.dir.cleanup()

    def trace(self):
        return Trace.FromString(tas_viz.perfetto_trace(*self.parsed))

    def check(self, trace):
        return tas_viz.check_trace(trace.SerializeToString(), *self.parsed)

    def test_trace_structure(self):
        # 7 slices (node 3 did not run in the FIFO run), flows 0->1, 0->2
        # in both runs and 2->3 in the dispatcher run only; ring 0 of the
        # dispatcher run needs a second lane for the overlapping node 3.
        summary = self.check(self.trace())
        self.assertEqual(summary, "2 runs, 5 ring tracks, 7 slices, 5 flows, 4 counters")

    def test_slices_carry_tags(self):
        # Each slice names its node's tag from GRAPH_INFO, as text (a tag
        # can exceed Perfetto's signed integers).
        tags = set()
        for p in self.trace().packet:
            if p.track_event.type == TrackEvent.TYPE_SLICE_BEGIN:
                args = {a.name: a for a in p.track_event.debug_annotations}
                tags.add((args["node"].int_value, args["tag"].string_value))
        self.assertEqual(tags, {(i, str((i + 1) << 40)) for i in range(4)})

    def test_critical_path(self):
        graph, nodes, edges, runs = self.parsed
        self.assertEqual(tas_viz.critical_path(nodes, edges, runs["dispatcher"]), {0, 1})
        self.assertEqual(tas_viz.critical_path(nodes, edges, runs["fifo"]), {0, 1})

    def test_missing_end_fails(self):
        trace = self.trace()
        ends = [i for i, p in enumerate(trace.packet)
                if p.track_event.type == TrackEvent.TYPE_SLICE_END]
        del trace.packet[ends[-1]]
        with self.assertRaisesRegex(tas_viz.VizError, "left open"):
            self.check(trace)

    def test_missing_flow_fails(self):
        trace = self.trace()
        for p in trace.packet:
            if p.track_event.terminating_flow_ids:
                del p.track_event.terminating_flow_ids[0]
                break
        with self.assertRaisesRegex(tas_viz.VizError, "flows"):
            self.check(trace)

    def test_missing_slice_fails(self):
        trace = self.trace()
        kept = [p for p in trace.packet
                if not (p.track_event.name == "a" or
                        (p.track_event.type == TrackEvent.TYPE_SLICE_END and
                         p.timestamp == T0 + MS and p.track_event.track_uuid ==
                         next(q.track_event.track_uuid for q in trace.packet
                              if q.track_event.name == "a")))]
        del trace.packet[:]
        trace.packet.extend(kept)
        with self.assertRaisesRegex(tas_viz.VizError, "slice"):
            self.check(trace)

    def test_truncated_log_fails(self):
        with open(self.log, "w") as f:
            f.write(LOG + FIFO)
        with self.assertRaisesRegex(tas_viz.VizError, "dispatcher"):
            tas_viz.parse(self.log)

    # What bpftrace prints for drm_sched_waits.bt on exit, for the 4-node
    # graph: 8 jobs in its two runs, and the graph ring's job that completes
    # the FIFO run.
    WAITS = """\
Attaching 1 probe...
@deps_us[tas-graph, 2]:
[256K, 512K)           1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@deps_us[tas-ring0, 2]:
[0]                    3 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[1]                    0 |                                                    |
[2, 4)                 1 |@@@@@@@@@@@@@@@@@                                   |

@deps_us[tas-ring1, 1]:
[16, 32)               4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@jobs: 9
@ring_us[tas-graph, 2]:
[256, 512)             1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@ring_us[tas-ring0, 2]:
[1K, 2K)               4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@ring_us[tas-ring1, 1]:
[0]                    4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

"""

    def assert_check_fails(self, source, text, old, new, regex):
        """check_maps() of @source on @text with @old replaced by @new (an
        event lost, a count off) fails with an error that matches @regex."""
        maps = tas_viz.parse_maps(text.replace(old, new).splitlines())
        with self.assertRaisesRegex(tas_viz.VizError, regex):
            tas_viz.check_maps(source, maps, self.parsed[0])

    def test_bpftrace_maps(self):
        graph = self.parsed[0]
        with open(self.log, "a") as f:
            f.write("TAS-BPFTRACE-START drm_sched_waits.bt\n" + self.WAITS +
                    "TAS-BPFTRACE-END\n")
        maps = tas_viz.parse_bpftrace(self.log)["drm_sched_waits.bt"]
        self.assertEqual(maps["@jobs"], 9)
        self.assertEqual(maps["@deps_us[tas-ring0, 2]"], 4)
        self.assertEqual(tas_viz.check_maps("drm_sched_waits.bt", maps, graph),
                         "drm_sched_waits.bt: @jobs 9 (8 nodes), 3 schedulers")

    # What bpftrace prints for tas_ring_waits.bt on exit, for the 4-node
    # graph: 8 node starts in its two runs, 2 of them early (one of which
    # was ready before it reached its ring), and no start on the graph ring.
    RING_WAITS = """\
Attaching 1 probe...
@on_ring_us[0, 0]:
[0]                    3 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[1]                    0 |                                                    |
[2, 4)                 1 |@@@@@@@@@@@@@@@@@                                   |

@on_ring_us[1, 0]:
[1K, 2K)               2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@on_ring_us[1, 1]:
[1K, 2K)               2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@ready_first[1]: 1
@ring_wait_us[1]:
[1K, 2K)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@starts: 8
"""

    def test_ring_waits_maps(self):
        graph = self.parsed[0]
        maps = tas_viz.parse_maps(self.RING_WAITS.splitlines())
        self.assertEqual(maps["@on_ring_us[1, 1]"], 2)
        self.assertEqual(tas_viz.check_maps("tas_ring_waits.bt", maps, graph),
                         "tas_ring_waits.bt: @starts 8, 2 early (8 nodes), 2 rings")
        self.assert_check_fails("tas_ring_waits.bt", self.RING_WAITS,
                                "[0]                    3", "[0]                    2",
                                "@on_ring_us")
        self.assert_check_fails("tas_ring_waits.bt", self.RING_WAITS,
                                "@ready_first[1]: 1\n", "",
                                "count 1 early nodes")

    # What tas-tracedat prints for a trace-cmd recording of one more run of
    # the 4-node graph: drm_sched_waits.bt's maps, drm_sched_chain_depth.bt's
    # and, as the recording has tas_node_start, tas_ring_waits.bt's.
    TRACEDAT = (WAITS.replace("Attaching 1 probe...\n", "") + """\
@depth[tas-graph]:
[0, 1)                      1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@depth[tas-ring0]:
[0, 1)                      4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@depth[tas-ring1]:
[1, 2)                      4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@resolved: 9
""" + RING_WAITS.replace("Attaching 1 probe...\n", ""))

    def test_tracedat_maps(self):
        graph = self.parsed[0]
        maps = tas_viz.parse_maps(self.TRACEDAT.splitlines())
        self.assertEqual(tas_viz.check_maps("trace.dat", maps, graph),
                         "trace.dat: @jobs 9, @resolved 9, @starts 8, 2 early (8 nodes), "
                         "3 schedulers, 2 rings")
        # A recording without tas_node_start, or a lost start.
        self.assert_check_fails("trace.dat", self.TRACEDAT,
                                "@starts: 8\n", "",
                                "@starts is None")
        self.assert_check_fails("trace.dat", self.TRACEDAT,
                                "@ready_first[1]: 1\n", "",
                                "count 1 early nodes")

    def test_bpftrace_lost_job_fails(self):
        self.assert_check_fails("drm_sched_waits.bt", self.WAITS,
                                "[0]                    4", "[0]                    3",
                                "@ring_us")
        self.assert_check_fails("drm_sched_waits.bt", self.WAITS,
                                "@jobs: 9", "@jobs: 7",
                                "@jobs is 7")

    def test_pictures(self):
        out = tas_viz.draw(*self.parsed, self.dir.name)
        self.assertEqual(len(out), 4)
        for p in out:
            self.assertGreater(os.path.getsize(p), 1000, p)

    # The two TAS-BENCH-DATA lines of tools/bench.sh's latency probes (fewer
    # samples than tas-bench's 40).
    BENCH = """\
TAS-BENCH-DATA {"kind": "latency_probes", "classes": false, "rings": 4, \
"probe_ns": 500000, "batch_ns": 4000000, "latency_ns": [9000000, 600000, 12000000, 4100000]}
noise TAS-BENCH-DATA {"kind": "latency_probes", "classes": true, "rings": 4, \
"probe_ns": 500000, "batch_ns": 4000000, "latency_ns": [700000, 550000, 2000000, 800000]}
"""

    def test_bench_latency_classes(self):
        with open(self.log, "w") as f:
            f.write(self.BENCH)
        probes = tas_viz.parse_bench(self.log)
        self.assertEqual(tas_viz.p99(probes[False]["latency_ns"]), 12000000)
        out, gain = tas_viz.draw_bench(probes, self.dir.name)
        self.assertAlmostEqual(gain, 6.0)
        self.assertEqual([os.path.basename(p) for p in out],
                         ["latency-classes.png", "latency-classes.svg"])
        for p in out:
            self.assertGreater(os.path.getsize(p), 1000, p)

    def test_bench_missing_run_fails(self):
        with open(self.log, "w") as f:
            f.write(self.BENCH.splitlines()[0] + "\n")
        with self.assertRaisesRegex(tas_viz.VizError, "with classes"):
            tas_viz.parse_bench(self.log)


if __name__ == "__main__":
    unittest.main()
