#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Pictures and a Perfetto trace of a tas-demo run.

Usage: tools/tas_viz.py [--check [--bpftrace] [--tracedat FILE]] LOG OUTDIR
       tools/tas_viz.py --bench LOG OUTDIR

LOG is a console log (or any text) with the "TAS-DATA" lines that tas-demo
prints: the transformer graph (rings, nodes, edges) and the per-node times
that DRM_IOCTL_TAS_GRAPH_INFO returned for each run ("fifo": the stock
drm_sched dispatch, "dispatcher": the graph dispatcher). Writes to OUTDIR:

  transformer-gantt.png, .svg   one Gantt chart per run, one above the other
                                on the same time axis (ms from submission),
                                one row per ring, the executed critical path
                                outlined in red
  transformer-waits.png, .svg   histograms of the time from a node's
                                dependencies being done to its start
  transformer.pftrace           a Perfetto trace (open it in the Perfetto UI):
                                per run one track per ring with a slice per
                                node (name, class, gang and waits as
                                arguments), a flow per edge, and a counter per
                                ring of the nodes that are ready or running

--check reads the trace back with Perfetto's own protobuf schema and checks
its structure against the graph: one ring track per ring and run, a matched
begin and end per node that ran, a flow per edge between nodes that ran, a
counter per ring that returns to zero. With --bpftrace it also checks the
maps that the project's bpftrace scripts (bpftrace/) printed into LOG, and
with --tracedat FILE those of userspace/tas-tracedat (FILE) read from a
trace-cmd recording: each recorded one more run of the graph in the guest,
and every histogram must count every job of it once. Exits 1 if a check
fails.

With --bench, LOG is the console log of tools/bench.sh instead, and the
picture is that of the samples tas-bench prints as "TAS-BENCH-DATA" lines:

  latency-classes.png, .svg     the latency (queued to finished) of the small
                                probes submitted under batch saturation, with
                                and without priority classes, as distribution
                                functions with their p99 marked: the samples
                                of latency_class_p99_gain

Needs matplotlib and perfetto (with protobuf), which tools/setup.sh installs
into the tools' virtual environment.
"""

import argparse
import json
import os
import sys
from collections import defaultdict

CLASSES = {0: "normal", 1: "latency", 2: "batch"}
CLASS_COLOURS = {0: "tab:blue", 1: "tab:orange", 2: "tab:gray"}
RUNS = (("fifo", "stock dispatch (DRM_TAS_SUBMIT_FIFO)"),
        ("dispatcher", "graph dispatcher"))


class VizError(Exception):
    pass


def records(path, tag):
    """The JSON objects of the lines of @path that carry @tag (anywhere in the
    line, as console lines may begin with other output)."""
    with open(path, errors="replace") as f:
        for line in f:
            pos = line.find(tag + " ")
            if pos < 0:
                continue
            try:
                yield json.loads(line[pos + len(tag) + 1:].strip())
            except json.JSONDecodeError as e:
                raise VizError(f"{path}: a {tag} line is not JSON ({e}): {line.strip()}")


def parse(path):
    """The graph and its runs from the TAS-DATA lines of @path."""
    graph, nodes, edges = None, {}, []
    runs = defaultdict(dict)
    for rec in records(path, "TAS-DATA"):
        if "graph" in rec:
            graph = rec
        elif "edge" in rec:
            edges.append(tuple(rec["edge"]))
        elif "run" in rec:
            runs[rec["run"]][rec["node"]] = rec
        elif "node" in rec:
            nodes[rec["node"]] = rec
    if graph is None:
        raise VizError(f"{path}: no TAS-DATA graph line (a tas-demo run prints it)")
    if len(nodes) != graph["nodes"] or len(edges) != graph["edges"]:
        raise VizError(f"{path}: {len(nodes)} nodes and {len(edges)} edges, "
                       f"the graph line says {graph['nodes']} and {graph['edges']}")
    for name, _ in RUNS:
        if len(runs.get(name, {})) != graph["nodes"]:
            raise VizError(f"{path}: run '{name}' has times for "
                           f"{len(runs.get(name, {}))} of {graph['nodes']} nodes")
    return graph, [nodes[i] for i in range(graph["nodes"])], edges, runs


def ran(t):
    return t["started_ns"] != 0 and t["finished_ns"] >= t["started_ns"]


def critical_path(nodes, edges, times):
    """The executed critical path: from the node that finished last, back
    through the predecessor that finished last before it (the one that made
    it ready)."""
    preds = defaultdict(list)
    for a, b in edges:
        preds[b].append(a)
    done = [i for i in range(len(nodes)) if ran(times[i])]
    if not done:
        return set()
    cur = max(done, key=lambda i: times[i]["finished_ns"])
    path = {cur}
    while True:
        p = [a for a in preds[cur] if ran(times[a])]
        if not p:
            return path
        cur = max(p, key=lambda a: times[a]["finished_ns"])
        path.add(cur)


def pyplot():
    """matplotlib's pyplot, drawing into files only (no display)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def save(fig, outdir, stem):
    """Writes @fig as OUTDIR/STEM.png and .svg, closes it, returns the paths."""
    out = []
    for ext in ("png", "svg"):
        p = os.path.join(outdir, f"{stem}.{ext}")
        fig.savefig(p, dpi=110)
        out.append(p)
    pyplot().close(fig)
    return out


def draw(graph, nodes, edges, runs, outdir):
    plt = pyplot()
    from matplotlib.patches import Patch

    rings = graph["rings"]
    fig, axes = plt.subplots(len(RUNS), 1, sharex=True,
                             figsize=(11, 1.4 + 0.9 * len(rings) * len(RUNS)))
    for ax, (name, title) in zip(axes, RUNS):
        times = runs[name]
        t0 = min(t["queued_ns"] for t in times.values())
        crit = critical_path(nodes, edges, times)
        end = 0.0
        for i, node in enumerate(nodes):
            t = times[i]
            if not ran(t):
                continue
            start = (t["started_ns"] - t0) / 1e6
            width = (t["finished_ns"] - t["started_ns"]) / 1e6
            end = max(end, start + width)
            on_path = i in crit
            ax.broken_barh([(start, width)], (node["ring"] - 0.4, 0.8),
                           facecolors=CLASS_COLOURS.get(node["class"], "tab:purple"),
                           edgecolors="red" if on_path else "white",
                           linewidth=1.6 if on_path else 0.4,
                           zorder=3 if on_path else 2)
        ax.set_yticks(range(len(rings)))
        ax.set_yticklabels([f"{r} {n}" for r, n in enumerate(rings)])
        ax.set_ylim(len(rings) - 0.5, -0.5)
        ax.axvline(end, color="black", linewidth=0.8, linestyle="--")
        ax.set_title(f"{title}: makespan {end:.1f} ms", fontsize=10, loc="left")
        ax.grid(axis="x", linewidth=0.3)
    axes[-1].set_xlabel("ms from submission")
    used = sorted({n["class"] for n in nodes})
    handles = [Patch(facecolor=CLASS_COLOURS.get(c, "tab:purple"),
                     label=f"{CLASSES.get(c, c)} class") for c in used]
    handles.append(Patch(facecolor="white", edgecolor="red", label="critical path"))
    fig.legend(handles=handles, loc="upper right", fontsize=8, ncol=len(handles))
    fig.suptitle(f"Transformer block, forward + backward: {len(nodes)} nodes, "
                 f"{len(edges)} edges, {len(rings)} rings", fontsize=11, x=0.01,
                 ha="left")
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    out = save(fig, outdir, "transformer-gantt")

    fig, ax = plt.subplots(figsize=(8, 3.6))
    waits = {}
    for name, title in RUNS:
        times = runs[name]
        waits[name] = [(t["started_ns"] - t["ready_ns"]) / 1e3
                       for t in times.values() if ran(t) and t["ready_ns"]]
    top = max((max(w) for w in waits.values() if w), default=1.0)
    bins = [top * k / 40 for k in range(41)]
    for name, title in RUNS:
        w = sorted(waits[name])
        p50 = w[len(w) // 2] if w else 0
        ax.hist(w, bins=bins, alpha=0.6, label=f"{title}, p50 {p50:.0f} µs")
    ax.set_xlabel("ready to started (µs): time a node waited after its dependencies were done")
    ax.set_ylabel("nodes")
    ax.legend(fontsize=8)
    fig.tight_layout()
    out += save(fig, outdir, "transformer-waits")
    return out


def parse_bench(path):
    """The latency probe samples of a tas-bench run, by classes (True/False)."""
    probes = {}
    for rec in records(path, "TAS-BENCH-DATA"):
        if rec.get("kind") == "latency_probes":
            probes[bool(rec["classes"])] = rec
    for classes in (False, True):
        if classes not in probes:
            raise VizError(f"{path}: no latency probes {'with' if classes else 'without'} classes")
        if not probes[classes]["latency_ns"]:
            raise VizError(f"{path}: no samples in the latency probes")
    return probes


def p99(samples):
    """The 99th percentile as tas-bench computes it (nearest rank)."""
    v = sorted(samples)
    i = (len(v) * 99 + 99) // 100
    return v[i - 1 if i else 0]


def draw_bench(probes, outdir):
    fig, ax = pyplot().subplots(figsize=(8, 3.8))
    rec = probes[False]
    p99s = {}
    for classes, label, colour in ((False, "without classes (all normal)", "tab:gray"),
                                   (True, "with classes (probes latency, load batch)",
                                    "tab:orange")):
        ms = sorted(x / 1e6 for x in probes[classes]["latency_ns"])
        p99s[classes] = p99(ms)
        ys = [(i + 1) / len(ms) for i in range(len(ms))]
        ax.step(ms, ys, where="post", color=colour,
                label=f"{label}: p99 {p99s[classes]:.2f} ms")
        ax.axvline(p99s[classes], color=colour, linestyle="--", linewidth=0.8)
    ax.axvline(rec["probe_ns"] / 1e6, color="black", linewidth=0.8, linestyle=":",
               label=f"a probe's own run time, {rec['probe_ns'] / 1e6:g} ms")
    ax.set_xscale("log")
    ax.set_xlabel("probe latency, queued to finished (ms, log scale)")
    ax.set_ylabel("fraction of probes")
    gain = p99s[False] / p99s[True] if p99s[True] else 0
    ax.set_title(f"{len(rec['latency_ns'])} probes of {rec['probe_ns'] / 1e6:g} ms under "
                 f"{rec['batch_ns'] / 1e6:g} ms batch nodes on {rec['rings']} rings: "
                 f"p99 gain {gain:.1f}x", fontsize=10, loc="left")
    ax.legend(fontsize=8, loc="lower right")
    ax.grid(linewidth=0.3)
    fig.tight_layout()
    out = save(fig, outdir, "latency-classes")
    return out, gain


def lanes(items):
    """Splits (start, end, i) intervals into lanes in which they do not
    overlap, so that every track holds properly nested slices (a ring may
    start a latency-class node between two chunks of a long one)."""
    ends, lane_of = [], {}
    for start, end, i in sorted(items):
        for k, e in enumerate(ends):
            if e <= start:
                ends[k] = end
                lane_of[i] = k
                break
        else:
            lane_of[i] = len(ends)
            ends.append(end)
    return lane_of, len(ends)


def perfetto_trace(graph, nodes, edges, runs):
    from perfetto.protos.perfetto.trace.perfetto_trace_pb2 import (
        TracePacket, TrackEvent)
    from perfetto.trace_builder.proto_builder import TraceProtoBuilder

    builder = TraceProtoBuilder()
    seq = 1
    uuid = iter(range(1000, 1 << 62))
    first = True

    def packet(ts=None):
        nonlocal first
        p = builder.add_packet()
        p.trusted_packet_sequence_id = seq
        if first:
            p.sequence_flags = TracePacket.SEQ_INCREMENTAL_STATE_CLEARED
            first = False
        if ts is not None:
            p.timestamp = ts
        return p

    events = []
    flow_base = 1
    for name, title in RUNS:
        times = runs[name]
        run_uuid = next(uuid)
        p = packet()
        p.track_descriptor.uuid = run_uuid
        p.track_descriptor.name = title
        by_ring = defaultdict(list)
        for i, node in enumerate(nodes):
            if ran(times[i]):
                by_ring[node["ring"]].append((times[i]["started_ns"],
                                              times[i]["finished_ns"], i))
        track_of = {}
        for r, ring in enumerate(graph["rings"]):
            lane_of, n = lanes(by_ring[r])
            ring_tracks = []
            for k in range(max(n, 1)):
                u = next(uuid)
                p = packet()
                p.track_descriptor.uuid = u
                p.track_descriptor.parent_uuid = run_uuid
                p.track_descriptor.name = f"ring {r} {ring}" + (f" #{k}" if k else "")
                ring_tracks.append(u)
            for i, k in lane_of.items():
                track_of[i] = ring_tracks[k]
            u = next(uuid)
            p = packet()
            p.track_descriptor.uuid = u
            p.track_descriptor.parent_uuid = run_uuid
            p.track_descriptor.name = f"ring {r} {ring}: ready or running"
            p.track_descriptor.counter.SetInParent()
            # Occupancy: +1 when a node of the ring is ready, -1 when it ends.
            steps = []
            for i, node in enumerate(nodes):
                t = times[i]
                if node["ring"] == r and ran(t):
                    steps.append((t["ready_ns"] or t["started_ns"], 1))
                    steps.append((t["finished_ns"], -1))
            level = 0
            steps.sort(key=lambda s: (s[0], s[1]))
            for ts, d in steps:
                level += d
                events.append((ts, 0, ("counter", u, level)))
            if not steps:
                events.append((min(t["queued_ns"] for t in times.values()), 0,
                               ("counter", u, 0)))
        out_flows, in_flows = defaultdict(list), defaultdict(list)
        for k, (a, b) in enumerate(edges):
            if ran(times[a]) and ran(times[b]):
                out_flows[a].append(flow_base + k)
                in_flows[b].append(flow_base + k)
        flow_base += len(edges)
        for i, node in enumerate(nodes):
            t = times[i]
            if not ran(t):
                continue
            args = {
                "graph": f"transformer ({name})",
                "node": i,
                "class": CLASSES.get(node["class"], str(node["class"])),
                "gang": node["gang"],
                "duration_ns (nominal)": node["duration_ns"],
                "dependency wait_ns": max(0, t["ready_ns"] - t["queued_ns"]),
                "ring wait_ns": max(0, t["started_ns"] - t["ready_ns"]),
                "error": t["error"],
            }
            if "tag" in t:
                # The node's tag as GRAPH_INFO reported it (a framework's op
                # id), as text: a tag may not fit Perfetto's signed integers.
                args["tag"] = str(t["tag"])
            events.append((t["started_ns"], 2, ("begin", track_of[i], node["name"],
                                                args, out_flows[i], in_flows[i])))
            events.append((t["finished_ns"], 1, ("end", track_of[i])))

    # Ends before begins at one timestamp, so back-to-back slices on a track
    # stay siblings; counters first.
    events.sort(key=lambda e: (e[0], e[1]))
    for ts, _, ev in events:
        p = packet(ts)
        te = p.track_event
        if ev[0] == "counter":
            te.type = TrackEvent.TYPE_COUNTER
            te.track_uuid = ev[1]
            te.counter_value = ev[2]
        elif ev[0] == "begin":
            _, track, name, args, outs, ins = ev
            te.type = TrackEvent.TYPE_SLICE_BEGIN
            te.track_uuid = track
            te.name = name
            for key, value in args.items():
                da = te.debug_annotations.add()
                da.name = key
                if isinstance(value, str):
                    da.string_value = value
                else:
                    da.int_value = value
            te.flow_ids.extend(outs)
            te.terminating_flow_ids.extend(ins)
        else:
            te.type = TrackEvent.TYPE_SLICE_END
            te.track_uuid = ev[1]
    return builder.serialize()


def check_trace(data, graph, nodes, edges, runs):
    """Reads @data back with Perfetto's schema and checks it against the
    graph; returns a summary or raises VizError."""
    from perfetto.protos.perfetto.trace.perfetto_trace_pb2 import Trace, TrackEvent

    trace = Trace.FromString(data)
    tracks, counters, parents = {}, set(), set()
    stack = defaultdict(list)
    slices, begun_flows, ended_flows = 0, [], []
    counter_last = {}
    last_ts = 0
    for p in trace.packet:
        if p.trusted_packet_sequence_id != 1:
            raise VizError("a packet without the trace's sequence id")
        if p.HasField("track_descriptor"):
            td = p.track_descriptor
            if td.uuid in tracks:
                raise VizError(f"track uuid {td.uuid} described twice")
            tracks[td.uuid] = td
            if td.HasField("counter"):
                counters.add(td.uuid)
            if not td.parent_uuid:
                parents.add(td.uuid)
            continue
        if not p.HasField("track_event"):
            raise VizError("a packet that is neither a track nor an event")
        te = p.track_event
        if p.timestamp < last_ts:
            raise VizError("events out of timestamp order")
        last_ts = p.timestamp
        if te.track_uuid not in tracks:
            raise VizError(f"an event on undescribed track {te.track_uuid}")
        if te.type == TrackEvent.TYPE_COUNTER:
            if te.track_uuid not in counters:
                raise VizError("a counter value on a slice track")
            counter_last[te.track_uuid] = te.counter_value
        elif te.type == TrackEvent.TYPE_SLICE_BEGIN:
            if te.track_uuid in counters:
                raise VizError("a slice on a counter track")
            stack[te.track_uuid].append(p.timestamp)
            begun_flows.extend(te.flow_ids)
            ended_flows.extend(te.terminating_flow_ids)
            slices += 1
        elif te.type == TrackEvent.TYPE_SLICE_END:
            if not stack[te.track_uuid]:
                raise VizError("a slice end without a begin on its track")
            stack[te.track_uuid].pop()
        else:
            raise VizError(f"unexpected event type {te.type}")
    if any(stack.values()):
        raise VizError("slices left open at the end of the trace")
    nran = sum(ran(runs[name][i]) for name, _ in RUNS for i in range(len(nodes)))
    nflows = sum(ran(runs[name][a]) and ran(runs[name][b])
                 for name, _ in RUNS for a, b in edges)
    if slices != nran:
        raise VizError(f"{slices} slices for {nran} nodes that ran")
    if len(set(begun_flows)) != len(begun_flows) or sorted(begun_flows) != sorted(ended_flows):
        raise VizError("flows that do not start and end exactly once")
    if len(begun_flows) != nflows:
        raise VizError(f"{len(begun_flows)} flows for {nflows} edges between nodes that ran")
    rings = len(graph["rings"])
    if len(parents) != len(RUNS) or len(counters) != rings * len(RUNS):
        raise VizError(f"{len(parents)} run tracks and {len(counters)} counter tracks "
                       f"for {len(RUNS)} runs of {rings} rings")
    if any(v != 0 for v in counter_last.values()) or len(counter_last) != len(counters):
        raise VizError("a ring counter without values or not back at zero")
    ring_tracks = len(tracks) - len(parents) - len(counters)
    if ring_tracks < rings * len(RUNS):
        raise VizError(f"{ring_tracks} ring tracks for {len(RUNS)} runs of {rings} rings")
    return (f"{len(RUNS)} runs, {ring_tracks} ring tracks, {slices} slices, "
            f"{len(begun_flows)} flows, {len(counters)} counters")


def parse_maps(lines):
    """bpftrace's printed maps in @lines: {map key: value}, where a
    histogram's value is the sum of its buckets' counts."""
    maps, key = {}, None
    for line in lines:
        line = line.rstrip("\n")
        if line.startswith("@"):
            name, _, rest = line.partition(":")
            rest = rest.strip()
            if rest:
                maps[name] = int(rest)
                key = None
            else:
                key = name
                maps[key] = 0
        elif key and line.startswith("[") and "|" in line:
            # "[4, 8)      12 |@@@@@   |": the count before the bar.
            maps[key] += int(line.split("|")[0].split()[-1])
    return maps


def parse_bpftrace(path):
    """The maps that each bpftrace script printed between TAS-BPFTRACE-START
    NAME and TAS-BPFTRACE-END lines of @path: {script: maps}."""
    scripts, cur = {}, None
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("TAS-BPFTRACE-START "):
                cur = scripts.setdefault(line.split(" ", 1)[1].strip(), [])
            elif line.startswith("TAS-BPFTRACE-END"):
                cur = None
            elif cur is not None:
                cur.append(line)
    return {name: parse_maps(lines) for name, lines in scripts.items()}


# The maps each source prints and the histograms that count each job once:
# the three bpftrace scripts, and tas-tracedat's reading of a trace-cmd
# recording (all their histograms). tas_ring_waits.bt's @ring_wait_us and
# @ready_first count only the early nodes, together once each (check_maps()),
# and so do tas-tracedat's.
FAMILIES = {
    "drm_sched_waits.bt": (("@jobs", ("@deps_us[", "@ring_us[")),),
    "drm_sched_chain_depth.bt": (("@jobs", ("@depth[",)),),
    "tas_ring_waits.bt": (("@starts", ("@on_ring_us[",)),),
    "trace.dat": (("@jobs", ("@deps_us[", "@ring_us[")),
                  ("@resolved", ("@depth[",)),
                  ("@starts", ("@on_ring_us[",))),
}

# The sources with tas_node_start's maps.
NODE_STARTS = ("tas_ring_waits.bt", "trace.dat")


def map_ring(key):
    """The ring of a map key: the scheduler's name, as in "@ring_us[tas-ring0, 2]",
    or drm/tas's index of the ring, as in "@on_ring_us[0, 1]"."""
    return key.split("[", 1)[1].split(",")[0].rstrip("]").strip()


def ring_of_nodes(ring):
    """Whether @ring (map_ring()) runs nodes: one of drm/tas's rings, not its
    graph ring ("tas-graph"), which only completes FIFO submissions. A ring
    index (tas_node_start) is always one of the former: the graph ring
    starts no node, so it emits no tas_node_start."""
    return ring.startswith("tas-ring") or ring.isdigit()


def check_maps(source, maps, graph):
    """Checks the maps of one source, which recorded one more tas-demo run
    (both dispatch modes): each histogram family counts every event once
    (its sum is the count), and the rings' jobs are the two runs' nodes.
    Jobs of drm/tas's graph ring ("tas-graph", which completes a FIFO
    submission and runs no node) are counted, but are not nodes. Returns a
    summary."""
    jobs = 2 * graph["nodes"]
    out = []
    if source not in FAMILIES:
        raise VizError(f"unknown source of maps {source}")
    # Rings named by their scheduler (drm_sched's events) and by drm/tas's
    # index (tas_node_start), apart.
    schedulers, rings = set(), set()
    for count, family in FAMILIES[source]:
        for prefix in family:
            hist = {k: v for k, v in maps.items() if k.startswith(prefix)}
            nodes = sum(v for k, v in hist.items() if ring_of_nodes(map_ring(k)))
            for k in hist:
                (rings if map_ring(k).isdigit() else schedulers).add(map_ring(k))
            if maps.get(count) != sum(hist.values()):
                raise VizError(f"{source}: the {prefix}...] histograms count "
                               f"{sum(hist.values())} events, {count} is {maps.get(count)}")
            if nodes != jobs:
                raise VizError(f"{source}: the {prefix}...] histograms of the rings count "
                               f"{nodes} jobs, the demo's two runs have {jobs} nodes")
        out.append(f"{count} {maps[count]}")
    if source in NODE_STARTS:
        early = sum(v for k, v in maps.items()
                    if k.startswith("@on_ring_us[") and k.rstrip("]").endswith(", 1"))
        waited = sum(v for k, v in maps.items()
                     if k.startswith(("@ring_wait_us[", "@ready_first[")))
        if waited != early:
            raise VizError(f"{source}: @ring_wait_us and @ready_first count {waited} "
                           f"early nodes, @on_ring_us {early}")
        out.append(f"{early} early")
    where = []
    if schedulers:
        where.append(f"{len(schedulers)} schedulers")
    if rings:
        where.append(f"{len(rings)} rings")
    return f"{source}: {', '.join(out)} ({jobs} nodes), {', '.join(where)}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="read the Perfetto trace back and check it")
    ap.add_argument("--bpftrace", action="store_true",
                    help="with --check: LOG must hold the bpftrace scripts' maps")
    ap.add_argument("--tracedat", metavar="FILE",
                    help="with --check: check tas-tracedat's output FILE too")
    ap.add_argument("--bench", action="store_true",
                    help="LOG is a tools/bench.sh log: draw its latency probes")
    ap.add_argument("log")
    ap.add_argument("outdir")
    a = ap.parse_args()
    if a.bench:
        try:
            probes = parse_bench(a.log)
            os.makedirs(a.outdir, exist_ok=True)
            pictures, gain = draw_bench(probes, a.outdir)
        except VizError as e:
            print(f"tas-viz: {e}", file=sys.stderr)
            return 1
        for p in pictures:
            print(f"tas-viz: {p} (latency-class p99 gain {gain:.2f})")
        return 0
    try:
        graph, nodes, edges, runs = parse(a.log)
        os.makedirs(a.outdir, exist_ok=True)
        data = perfetto_trace(graph, nodes, edges, runs)
        trace = os.path.join(a.outdir, "transformer.pftrace")
        with open(trace, "wb") as f:
            f.write(data)
        pictures = draw(graph, nodes, edges, runs, a.outdir)
        summary = ""
        if a.check:
            with open(trace, "rb") as f:
                summary = ": " + check_trace(f.read(), graph, nodes, edges, runs) + ", ok"
            scripts = parse_bpftrace(a.log)
            if a.bpftrace:
                for script in ("drm_sched_waits.bt", "drm_sched_chain_depth.bt",
                               "tas_ring_waits.bt"):
                    if script not in scripts:
                        raise VizError(f"no output of bpftrace {script} in {a.log}")
                    summary += ("\ntas-viz: bpftrace " +
                                check_maps(script, scripts[script], graph) + ", ok")
            if a.tracedat:
                with open(a.tracedat) as f:
                    summary += ("\ntas-viz: trace-cmd + tas-tracedat " +
                                check_maps("trace.dat", parse_maps(f), graph) + ", ok")
    except VizError as e:
        print(f"tas-viz: {e}", file=sys.stderr)
        return 1
    print(f"tas-viz: {trace} ({len(data)} bytes){summary}")
    for p in pictures:
        print(f"tas-viz: {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
