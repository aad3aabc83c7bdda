# SPDX-License-Identifier: MIT
"""Dependency graphs of timed nodes on rings, without a device.

A `Dag` is what a framework hands the kernel: nodes with a ring, a duration
and a name, and edges. It reads and writes the `.tasg` text format (the
graphs in bench/graphs, which tas_graph_load() in userspace/tas_graphs.h
reads in C too):

  # comment lines
  tas-graph 1 <name> <rings> <nodes> <edges>
  n <ring> <duration_ns> <name>      one per node, in a topological order
  e <from> <to>                      one per edge, from < to

`Dag.to_graph()` makes the `tas.Graph` of it (a `nop` node per node, which
the virtual engine runs for its duration), to submit or make a template of.
The module needs no device and no PyTorch: `tas.capture` makes Dags from
PyTorch models.
"""

import errno

MAGIC = "tas-graph"
VERSION = 1
NAME_LEN = 23
# The limits of tas_graph_load() in userspace/tas_graphs.h.
MAX_RINGS = 16
MAX_NODES = 100000
MAX_EDGES = 1000000


def _check_name(name):
    if not name or len(name.split()) != 1 or name != name.strip():
        raise ValueError(f"{name!r}: a name is one word")


class Dag:
    """Nodes ([ring, duration_ns, name]) and their predecessors (sets of
    node indices), the nodes in the order they are added."""

    def __init__(self, name, rings=0):
        _check_name(name)
        if len(name) > NAME_LEN:
            raise ValueError(f"{name!r}: a graph's name has at most {NAME_LEN} characters")
        self.name = name
        self.rings = rings
        self.nodes = []
        self.preds = []

    def __len__(self):
        return len(self.nodes)

    def add(self, ring, ns, name, preds=()):
        """Adds a node after its predecessors; returns its index."""
        _check_name(name)
        preds = set(preds)
        if any(not 0 <= p < len(self.nodes) for p in preds):
            raise ValueError(f"{name}: a predecessor is not an earlier node")
        if not 0 <= int(ring) < MAX_RINGS or int(ns) < 0:
            raise ValueError(f"{name}: ring {ring}, duration {ns}")
        self.nodes.append([int(ring), int(ns), name[:NAME_LEN]])
        self.preds.append(preds)
        self.rings = max(self.rings, int(ring) + 1)
        return len(self.nodes) - 1

    def edges(self):
        """The edges (from, to), by destination, then source."""
        return [(p, i) for i, ps in enumerate(self.preds) for p in sorted(ps)]

    def work_ns(self):
        return sum(n[1] for n in self.nodes)

    def critical_path_ns(self):
        """The longest chain of durations."""
        end = []
        for (ring, ns, _), preds in zip(self.nodes, self.preds):
            end.append(max((end[p] for p in preds), default=0) + ns)
        return max(end, default=0)

    def bound_ns(self):
        """A lower bound of any schedule's makespan: the critical path or
        the busiest ring's work (nodes are bound to their rings)."""
        ring_work = {}
        for ring, ns, _ in self.nodes:
            ring_work[ring] = ring_work.get(ring, 0) + ns
        return max([self.critical_path_ns(), *ring_work.values()])

    def to_graph(self, graph=None, cls="normal"):
        """Adds the nodes and edges to `graph` (a new `tas.Graph` if None)
        as duration-only nodes tagged with their index; returns it."""
        import tas

        g = tas.Graph() if graph is None else graph
        base = len(g)
        for i, (ring, ns, _) in enumerate(self.nodes):
            g.nop(ring, duration_ns=ns, cls=cls, tag=i)
        for a, b in self.edges():
            g.edge(base + a, base + b)
        return g

    def dumps(self, comment=None):
        """The graph in the .tasg format."""
        edges = self.edges()
        lines = [f"# {comment}"] if comment else []
        lines.append(f"{MAGIC} {VERSION} {self.name} {self.rings} "
                     f"{len(self.nodes)} {len(edges)}")
        lines += [f"n {r} {ns} {name}" for r, ns, name in self.nodes]
        lines += [f"e {a} {b}" for a, b in edges]
        return "\n".join(lines) + "\n"

    def save(self, path, comment=None):
        with open(path, "w") as f:
            f.write(self.dumps(comment))


def loads(text):
    """Parses a .tasg graph; a file that tas_graph_load() in
    userspace/tas_graphs.h would refuse, or that has an edge twice (which
    the kernel refuses), raises OSError(EINVAL)."""

    def bad(why):
        return OSError(errno.EINVAL, f".tasg: {why}")

    def number(word):
        if not word.isdigit():
            raise bad(f"{word!r} is not a number")
        return int(word)

    lines = [line.split() for line in text.splitlines()
             if line.strip() and not line.startswith("#")]
    if not lines or lines[0][:2] != [MAGIC, str(VERSION)] or len(lines[0]) != 6:
        raise bad(f"no '{MAGIC} {VERSION} NAME RINGS NODES EDGES' header")
    name = lines[0][2]
    rings, n, m = (number(x) for x in lines[0][3:])
    if len(name) > NAME_LEN or not 1 <= rings <= MAX_RINGS or \
            not 1 <= n <= MAX_NODES or m > MAX_EDGES:
        raise bad(f"header {' '.join(lines[0])!r} out of bounds")
    if len(lines) != 1 + n + m:
        raise bad(f"{len(lines) - 1} lines for {n} nodes and {m} edges")
    dag = Dag(name, rings)
    for f in lines[1:1 + n]:
        if f[0] != "n" or len(f) != 4 or number(f[1]) >= rings:
            raise bad(f"bad node line {' '.join(f)!r}")
        dag.nodes.append([number(f[1]), number(f[2]), f[3][:NAME_LEN]])
        dag.preds.append(set())
    for f in lines[1 + n:]:
        if f[0] != "e" or len(f) != 3:
            raise bad(f"bad edge line {' '.join(f)!r}")
        a, b = number(f[1]), number(f[2])
        if not a < b < n or a in dag.preds[b]:
            raise bad(f"bad or repeated edge {a} -> {b}")
        dag.preds[b].add(a)
    return dag


def load(path):
    with open(path) as f:
        return loads(f.read())


def makespan_ns(info):
    """Makespan of a completed graph from its `tas.GraphInfo`: the first
    node's start to the last node's finish."""
    nodes = info.nodes
    return max(n.finished_ns for n in nodes) - min(n.started_ns for n in nodes)
