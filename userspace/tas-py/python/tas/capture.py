# SPDX-License-Identifier: MIT
"""PyTorch models traced into dependency graphs of timed nodes (`tas.dag`).

A model is built from its configuration on PyTorch's meta device (no
weights, nothing computed), traced to ATen operations with make_fx, and each
operation is costed on a modelled accelerator from its FLOPs
(torch.utils.flop_counter) and the bytes it reads and writes. Views cost
nothing and are looked through; a node shorter than MIN_NS is fused with a
neighbour on its ring, as a compiler fuses elementwise operations into their
producers, so that every node is a kernel of 0.2 ms or more on the virtual
engine. The layouts place the operations on the rings of drm/tas as
frameworks do:

  streams()          a forward pass over two compute rings, each operation
                     where it can finish first (two streams);
  data_parallel()    a training step on two replicas, one compute ring each,
                     DDP's gradient buckets all-reduced on the comm ring
                     during the backward pass, then Adam;
  tensor_parallel()  a forward pass split Megatron style over two compute
                     rings, all-reduces on the comm ring;
  expert_parallel()  a mixture-of-experts forward over two devices, the
                     experts' all-to-alls on the comm ring.

Rings: 0 and 1 compute, 2 copy (host to device), 3 communication.

    import tas
    from tas import capture
    dag = capture.streams("resnet18", model, images)   # model on "meta"
    graph = dag.to_graph()                             # a tas.Graph

Needs PyTorch (and the model libraries); `tas.dag` and the rest of the
module do not.
"""

import torch
from torch.fx.experimental.proxy_tensor import make_fx
from torch.utils.flop_counter import FlopCounterMode

from .dag import Dag

# The modelled accelerator (bf16 tensor cores, HBM, a 2-GPU NVLink, PCIe).
FLOPS = 150e12
MEM_BW = 1.5e12
LINK_BW = 100e9
PCIE_BW = 25e9
# Expert parallelism spans nodes: its all-to-alls go over a 200 Gb/s NIC.
EP_LINK_BW = 25e9
KERNEL_NS = 5000
# The virtual engine runs the modelled times this many times slower, so that
# its simulated clock (about 0.1 ms per tick of work) stays small beside them.
SLOWDOWN = 4
MIN_NS = 200000
COMPUTE = (0, 1)
COPY, COMM = 2, 3
RINGS = 4
BUCKET_BYTES = 25 << 20

VIEWS = {
    "view", "_unsafe_view", "reshape", "transpose", "t", "permute", "expand",
    "unsqueeze", "squeeze", "slice", "select", "alias", "detach", "split",
    "split_with_sizes", "as_strided", "lift_fresh_copy", "clone",
    "empty_like", "empty", "zeros", "ones", "arange", "full", "scalar_tensor",
    "new_zeros", "new_empty", "zeros_like", "ones_like", "_to_copy",
}


def nbytes(v):
    if isinstance(v, torch.Tensor):
        return v.numel() * v.element_size()
    if isinstance(v, (list, tuple)):
        return sum(nbytes(x) for x in v)
    return 0


class Costs(torch.fx.Interpreter):
    """Runs a traced graph on meta tensors; records each node's cost (ns)."""

    def __init__(self, gm):
        super().__init__(gm)
        self.ns = {}
        self.out_bytes = {}

    def run_node(self, n):
        if n.op != "call_function":
            return super().run_node(n)
        with FlopCounterMode(display=False) as fc:
            out = super().run_node(n)
        name = getattr(n.target, "__name__", str(n.target)).split(".")[0]
        if n.target.__module__ == "_operator" or name in VIEWS:
            self.ns[n] = 0
            return out
        args = [self.env[a] for a in n.all_input_nodes if a in self.env]
        moved = nbytes(args) + nbytes(out)
        t = max(fc.get_total_flops() / FLOPS, moved / MEM_BW)
        self.ns[n] = int(t * 1e9) + KERNEL_NS
        self.out_bytes[n] = nbytes(out)
        return out


def trace(fn, *args):
    """Traces fn to ATen operations on meta tensors and costs them."""
    gm = make_fx(fn)(*args)
    costs = Costs(gm)
    costs.run(*args)
    return gm, costs


def compute_graph(gm, costs):
    """The traced operations that cost something, as [op name, ns (on the
    virtual engine), predecessors, output bytes] in graph order, views
    bypassed; plus a map from every fx node to the set of costed operations
    its value depends on directly."""
    ns = costs.ns
    ops, index, deps = [], {}, {}
    for n in gm.graph.nodes:
        direct = set()
        for a in n.all_input_nodes:
            direct |= deps.get(a, set())
        if ns.get(n, 0) > 0:
            index[n] = len(ops)
            name = getattr(n.target, "__name__", str(n.target)).split(".")[0]
            ops.append([name, ns[n] * SLOWDOWN, direct, costs.out_bytes[n]])
            deps[n] = {index[n]}
        else:
            deps[n] = direct
    return ops, deps


def fuse(ops, ring_of):
    """Fuses every op shorter than MIN_NS, shortest first, with the
    predecessor or successor on its ring that makes the shortest fused node
    and keeps the graph acyclic (no other path between the two). Returns
    (ops in a topological order, mapping of old index to fused index)."""
    n = len(ops)
    parent = list(range(n))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    ns = [o[1] for o in ops]
    preds = [set(o[2]) for o in ops]
    succs = [set() for _ in ops]
    for i, p in enumerate(preds):
        for j in p:
            succs[j].add(i)

    def reaches(a, b):
        """Whether b is reachable from a other than by the edge a -> b."""
        stack = [s for s in succs[a] if s != b]
        seen = set(stack)
        while stack:
            x = stack.pop()
            if x == b:
                return True
            for s in succs[x]:
                if s not in seen:
                    seen.add(s)
                    stack.append(s)
        return False

    def merge(a, b):    # a before b: b goes into a
        parent[b] = a
        ns[a] += ns[b]
        for p in preds[b]:
            succs[p].discard(b)
            if p != a:
                succs[p].add(a)
                preds[a].add(p)
        for s in succs[b]:
            preds[s].discard(b)
            preds[s].add(a)
            succs[a].add(s)
        succs[a].discard(b)
        succs[a].discard(a)
        preds[a].discard(a)
        preds[b], succs[b] = set(), set()

    changed = True
    while changed:
        changed = False
        for i in sorted((i for i in range(n) if find(i) == i),
                        key=lambda i: ns[i]):
            if find(i) != i or ns[i] >= MIN_NS:
                continue
            cands = [(p, i) for p in preds[i] if ring_of[p] == ring_of[i]]
            cands += [(i, s) for s in succs[i] if ring_of[s] == ring_of[i]]
            cands.sort(key=lambda c: ns[c[0]] + ns[c[1]])
            for a, b in cands:
                if not reaches(a, b):
                    merge(a, b)
                    changed = True
                    break
    # A fused node keeps the place of its first op, but may have taken over
    # predecessors that come after it: order the nodes topologically again
    # (Kahn's, the lowest original index first).
    live = [i for i in range(n) if find(i) == i]
    left = {i: len(preds[i]) for i in live}
    ready = [i for i in live if not left[i]]
    order = []
    while ready:
        ready.sort(reverse=True)
        i = ready.pop()
        order.append(i)
        for s_ in succs[i]:
            left[s_] -= 1
            if not left[s_]:
                ready.append(s_)
    assert len(order) == len(live), "fusing made a cycle"
    live = order
    new = {old: k for k, old in enumerate(live)}
    out = []
    for old in live:
        out.append([ops[old][0], ns[old], {new[p] for p in preds[old]},
                    ring_of[old]])
    return out, {i: new[find(i)] for i in range(n)}


def place(g, ops, ring, prefix, first_preds=()):
    """Adds fused ops to g on their rings (ring given per op); returns the
    index in g of each op."""
    idx = []
    for name, ns, preds, r in ops:
        p = {idx[q] for q in preds}
        if not preds:
            p |= set(first_preds)
        idx.append(g.add(r if ring is None else ring, ns, f"{prefix}{name}", p))
    return idx


def data_parallel(name, model, example, loss_fn):
    """A training step on two replicas with DDP buckets and Adam."""
    params = [p for p in model.parameters() if p.requires_grad]

    def step(x, *ps):
        loss = loss_fn(model, x)
        return torch.autograd.grad(loss, ps)

    gm, costs = trace(step, example, *params)
    ops, deps = compute_graph(gm, costs)
    out_node = next(n for n in gm.graph.nodes if n.op == "output")
    grads = out_node.args[0]
    fused, where = fuse(ops, [COMPUTE[0]] * len(ops))
    g = Dag(name, RINGS)
    in_bytes = nbytes(example)
    replicas = []
    for r, ring in enumerate(COMPUTE):
        h2d = g.add(COPY, transfer_ns(in_bytes, PCIE_BW), f"h2d.r{r}")
        replicas.append(place(g, fused, ring, f"r{r}.", (h2d,)))
    # DDP: buckets in reverse parameter order, about as the backward pass
    # produces the gradients.
    buckets, cur, size = [], [], 0
    for i in reversed(range(len(params))):
        cur.append(i)
        size += params[i].numel() * 2
        if size >= BUCKET_BYTES:
            buckets.append((cur, size))
            cur, size = [], 0
    if cur:
        buckets.append((cur, size))
    prev, ars = None, []
    for b, (members, size) in enumerate(buckets):
        p = set() if prev is None else {prev}
        for i in members:
            for op in deps.get(grads[i], set()):
                for rep in replicas:
                    p.add(rep[where[op]])
        prev = g.add(COMM, transfer_ns(size, LINK_BW), f"allreduce.b{b}", p)
        ars.append(prev)
    total = sum(p.numel() for p in params)
    for r, ring in enumerate(COMPUTE):
        # Adam reads and writes the weights, gradients and two moments.
        g.add(ring, transfer_ns(total * 4 * 4 * 2, MEM_BW), f"adam.r{r}", ars)
    return g


def tensor_parallel(name, model, example):
    """A forward pass over two compute rings, Megatron style: a layer norm
    ends a replicated stretch; the second addmm after it (the attention's or
    the MLP's output projection) ends a sharded one, whose partial sums are
    all-reduced on the comm ring before the residual add. Fused per ring
    afterwards."""
    gm, costs = trace(lambda x: model(input_ids=x).logits, example)
    ops, _ = compute_graph(gm, costs)
    tp, rings = [["h2d", transfer_ns(nbytes(example), PCIE_BW), set(), 0]], [COPY]

    def add(op, ring, t, preds):
        tp.append([op, t, preds, 0])
        rings.append(ring)
        return len(tp) - 1

    sharded, addmms = False, 0
    copies = []         # per op: its node on each compute ring
    for op, t, preds, out_bytes in ops:
        p = [{0} if not preds else set() for _ in COMPUTE]
        for q in preds:
            for r in range(len(COMPUTE)):
                p[r].add(copies[q][r])
        cost = t / 2 if sharded and op != "native_layer_norm" else t
        pair = tuple(add(op, ring, cost, p[r]) for r, ring in enumerate(COMPUTE))
        if op == "native_layer_norm":
            sharded, addmms = True, 0
        elif sharded and op == "addmm":
            addmms += 1
            if addmms == 2:
                ar = add("allreduce", COMM, transfer_ns(out_bytes, LINK_BW),
                         set(pair))
                pair = (ar, ar)
                sharded = False
        copies.append(pair)
    fused, _ = fuse(tp, rings)
    g = Dag(name, RINGS)
    place(g, fused, None, "")
    return g


def transfer_ns(size, bandwidth):
    """A transfer of size bytes on the virtual engine."""
    return size / bandwidth * 1e9 * SLOWDOWN + KERNEL_NS


def streams(name, model, example):
    """A forward pass on two compute rings, each op where it can finish
    first (list scheduling in graph order), as a framework with a stream
    per ring places it, then fused per ring."""
    gm, costs = trace(lambda x: model(x), example)
    ops, _ = compute_graph(gm, costs)
    g = Dag(name, RINGS)
    loaded = transfer_ns(nbytes(example), PCIE_BW)
    h2d = g.add(COPY, loaded, "h2d")
    free = {ring: 0.0 for ring in COMPUTE}
    ring_of, finish = [], []
    for _, t, preds, _ in ops:
        ready = max([finish[q] for q in preds] or [loaded])
        ring = min(COMPUTE, key=lambda r: (max(ready, free[r]) + t, r))
        free[ring] = max(ready, free[ring]) + t
        ring_of.append(ring)
        finish.append(free[ring])
    fused, _ = fuse(ops, ring_of)
    place(g, fused, None, "", (h2d,))
    return g


@torch.library.custom_op("tas_capture::experts", mutates_args=())
def experts_op(hidden: torch.Tensor, index: torch.Tensor,
               weights: torch.Tensor) -> torch.Tensor:
    """Stands for a layer's routed experts in the trace: expert_parallel()
    replaces it by the all-to-alls and the experts of both devices."""
    return torch.empty_like(hidden)


@experts_op.register_fake
def _(hidden, index, weights):
    return torch.empty_like(hidden)


def expert_parallel(name, model, example, micro_batches=2, seed=1):
    """A forward pass of a mixture-of-experts model on two devices, one
    compute ring each, expert parallel over them.

    The routed experts are data dependent (which token goes where), and meta
    tensors carry no data, so the trace stops at each layer's experts
    (experts_op) and the exchange is built here: the dispatch all-to-all on
    the comm ring after both devices' routers, each expert on its device's
    ring with the tokens routed to it, the combine all-to-all, then both
    devices' next layer. How many tokens an expert gets is drawn (seeded)
    around the balanced load, as a router with an auxiliary balancing loss
    leaves it; an expert's time is that of its traced MLP on that many
    tokens."""
    cfg = model.config
    layers = model.model.layers
    for layer in layers:
        layer.mlp.experts.forward = lambda h, i, w: experts_op(h, i, w)
    gm, costs = trace(lambda x: model(input_ids=x).logits, example)
    ops, _ = compute_graph(gm, costs)
    experts_at = [i for i, o in enumerate(ops) if o[0] == "experts"]
    assert len(experts_at) == len(layers), (len(experts_at), len(layers))

    exp = layers[0].mlp.experts

    def expert_ns(tokens):
        x = torch.empty(tokens, cfg.hidden_size, device="meta")

        def mlp(x, gate_up, down):
            gate, up = torch.nn.functional.linear(x, gate_up).chunk(2, dim=-1)
            return torch.nn.functional.linear(exp.act_fn(gate) * up, down)

        _, costs_e = trace(mlp, x, exp.gate_up_proj[0], exp.down_proj[0])
        return sum(costs_e.ns.values()) * SLOWDOWN

    tokens = example.numel()            # per device and micro-batch
    k, n_exp = cfg.num_experts_per_tok, cfg.num_local_experts
    per_ring = n_exp // len(COMPUTE)
    # All-to-all: half of a device's token copies go to the other device's
    # experts, both directions at once.
    elem = torch.empty((), dtype=torch.get_default_dtype()).element_size()
    a2a = transfer_ns(tokens * k * cfg.hidden_size * elem // 2, EP_LINK_BW)
    gen = torch.Generator().manual_seed(seed)

    g = Dag(name, RINGS)
    h2d = g.add(COPY, transfer_ns(nbytes(example) * micro_batches * len(COMPUTE),
                                  PCIE_BW), "h2d")
    # Dense stretches: between two layers' experts, per device and
    # micro-batch; fused per stretch (they run on one ring).
    bounds = [-1] + experts_at + [len(ops)]
    stretches = []
    for a, b in zip(bounds, bounds[1:]):
        part = []
        for op, t, preds, _ in ops[a + 1:b]:
            part.append([op, t, {q - a - 1 for q in preds if q > a}, 0])
        stretches.append(fuse(part, [0] * len(part))[0])
    sinks = [[i for i in range(len(part))
              if not any(i in later[2] for later in part[i + 1:])]
             for part in stretches]
    # In the order a framework overlapping two micro-batches issues them:
    # both micro-batches' dense stretch, then their exchanges.
    tails = {(r, m): [h2d] for r in range(len(COMPUTE)) for m in range(micro_batches)}
    for s, part in enumerate(stretches):
        for m in range(micro_batches):
            for r, ring in enumerate(COMPUTE):
                idx = place(g, part, ring, f"l{s}.m{m}.d{r}.", tails[r, m])
                tails[r, m] = [idx[i] for i in sinks[s]]
        if s == len(layers):
            break
        for m in range(micro_batches):
            d = g.add(COMM, a2a, f"l{s}.m{m}.dispatch",
                      [t for r in range(len(COMPUTE)) for t in tails[r, m]])
            skew = torch.randn(n_exp, generator=gen).mul(0.35).softmax(0)
            picks = torch.multinomial(skew, tokens * len(COMPUTE) * k,
                                      replacement=True, generator=gen)
            counts = torch.bincount(picks, minlength=n_exp).tolist()
            done = [g.add(COMPUTE[e // per_ring], expert_ns(max(counts[e], 1)),
                          f"l{s}.m{m}.expert{e}", [d]) for e in range(n_exp)]
            c = g.add(COMM, a2a, f"l{s}.m{m}.combine", done)
            for r in range(len(COMPUTE)):
                tails[r, m] = [c]
    return g


