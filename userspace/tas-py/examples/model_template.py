# SPDX-License-Identifier: MIT
"""A framework's loop on drm/tas: a model's step captured once as a graph,
made a template, and launched step after step, each launch one ioctl
whatever the graph's size; the same graph also goes through the stock
dispatch (drm_sched's FIFO entities) to compare.

    python model_template.py GRAPH.tasg [--launches N]
    python model_template.py --capture resnet18 [--launches N]

GRAPH.tasg is a captured graph (bench/graphs has five, from PyTorch models:
tools/export-graphs.py); --capture traces torchvision's ResNet-18 forward on
PyTorch's meta device now (needs PyTorch and torchvision). make check runs
it in the QEMU guest both ways: on bench/graphs/resnet18-dp-train.tasg, and
with --capture resnet18 on the Python of tools/export-graphs.sh's venv.
"""

import argparse
import statistics
import sys

import tas
from tas import dag as tasdag


def capture(name):
    import torch
    import torchvision

    from tas import capture

    with torch.device("meta"):
        model = getattr(torchvision.models, name)().eval()
        images = torch.zeros(32, 3, 224, 224)
    return capture.streams(name, model, images)


def run(dev, dag, args):
    need = dag.rings
    have = dev.param("NUM_RINGS")
    if have < need:
        sys.exit(f"{dag.name} needs {need} rings, the device has {have} "
                 f"(tas.num_rings=)")
    done = dev.syncobj()
    point = 0

    def finish(graph_id):
        done.wait(point, timeout=60)
        info = dev.graph_info(graph_id, len(dag))
        errors = [i for i, n in enumerate(info.nodes) if n.error]
        if errors or not info.done:
            sys.exit(f"{dag.name}: nodes {errors[:5]} failed or not done")
        return tasdag.makespan_ns(info)

    def submit(fifo):
        nonlocal point
        point += 1
        g = dag.to_graph()
        g.signal(done, point)
        t0 = tas.now_ns()
        gid = dev.submit(g, fifo=fifo)
        return tas.now_ns() - t0, finish(gid)

    submit_ns, fifo_makespan = submit(True)
    _, graph_makespan = submit(False)

    template = dev.template(dag.to_graph())
    launch_ns, makespans = [], []
    for _ in range(args.launches):
        point += 1
        t0 = tas.now_ns()
        gid = dev.launch(template, signals=[(done, point, None)])
        launch_ns.append(tas.now_ns() - t0)
        makespans.append(finish(gid))

    ms = 1e6
    print(f"{dag.name}: {len(dag)} nodes, {len(dag.edges())} edges on "
          f"{dag.rings} rings, bound {dag.bound_ns() / ms:.2f} ms "
          f"(critical path {dag.critical_path_ns() / ms:.2f} ms, work "
          f"{dag.work_ns() / ms:.2f} ms)")
    print(f"  stock dispatch (FIFO entities): makespan {fifo_makespan / ms:.2f} ms"
          f" (submit ioctl {submit_ns / 1e3:.0f} us)")
    print(f"  graph dispatch, one submit:     makespan {graph_makespan / ms:.2f} ms")
    print(f"  template, {args.launches} launches:         makespan p50 "
          f"{statistics.median(makespans) / ms:.2f} ms, launch ioctl p50 "
          f"{statistics.median(launch_ns) / 1e3:.0f} us")
    print(f"  stock / template makespan: "
          f"{fifo_makespan / statistics.median(makespans):.3f}")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("graph", nargs="?", help="a .tasg file")
    p.add_argument("--capture", metavar="MODEL",
                   help="trace a torchvision model instead (PyTorch)")
    p.add_argument("--launches", type=int, default=10)
    args = p.parse_args()
    if (args.graph is None) == (args.capture is None):
        p.error("give a .tasg file or --capture MODEL")
    dag = capture(args.capture) if args.capture else tasdag.load(args.graph)
    run(tas.Device(), dag, args)


if __name__ == "__main__":
    main()
