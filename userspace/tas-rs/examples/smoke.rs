// SPDX-License-Identifier: MIT
//! Smoke test of the `tas` crate against a real drm/tas device (as root,
//! e.g. in a QEMU guest with the driver loaded).
//!
//! Prints one line per check, `ok N - description` or
//! `not ok N - description`, comments starting with `#`, and at the end
//! `N passed, N failed`; exits with 1 if a check failed (or no device was
//! found), 2 on a usage error.
//!
//! Usage: smoke [--check-latency]
//!   --check-latency  also check that a latency-class node fails with EACCES
//!                    exactly when CAP_SYS_NICE is missing (skipped by
//!                    default)

use std::fmt::Display;
use std::process::ExitCode;
use std::time::Duration;
use tas::{
    Bind, Class, Culprit, Device, Errno, Error, Graph, GraphInfo, Node, NodeInfo, Op, Param,
    SubmitFlags, Target,
};

/// How long any wait may take; the nodes run for a few ms.
const TIMEOUT: Duration = Duration::from_secs(10);
/// Simulated duration of the nodes.
const NODE_NS: u64 = 1_000_000;
/// Bytes per half of the test buffer.
const HALF: u64 = 4096;

/// The checks done so far.
#[derive(Default)]
struct Checks {
    passed: u32,
    failed: u32,
}

impl Checks {
    fn check(&mut self, ok: bool, what: impl Display) -> bool {
        let n = self.passed + self.failed + 1;
        if ok {
            self.passed += 1;
            println!("ok {n} - {what}");
        } else {
            self.failed += 1;
            println!("not ok {n} - {what}");
        }
        ok
    }

    /// Checks that `r` is `Ok`, printing the error otherwise.
    fn ok<T>(&mut self, r: Result<T, Error>, what: impl Display) -> Option<T> {
        match r {
            Ok(v) => {
                self.check(true, what);
                Some(v)
            }
            Err(e) => {
                self.check(false, format!("{what}: {e}"));
                None
            }
        }
    }

    fn finish(&self) -> ExitCode {
        println!("{} passed, {} failed", self.passed, self.failed);
        if self.failed == 0 {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        }
    }
}

/// Whether the timestamps of a node are set and in order.
fn ordered(n: &NodeInfo) -> bool {
    n.queued_ns != 0
        && n.queued_ns <= n.ready_ns
        && n.ready_ns <= n.started_ns
        && n.started_ns <= n.finished_ns
}

fn describe(info: &GraphInfo) -> String {
    info.nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            format!(
                "node {i}: ring {} queued {} ready {} started {} finished {} error {:?}",
                n.ring, n.queued_ns, n.ready_ns, n.started_ns, n.finished_ns, n.error
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The result of a submission, in words.
fn outcome(r: &Result<u64, Error>) -> String {
    match r {
        Ok(id) => format!("submitted as graph {id}"),
        Err(e) => e.to_string(),
    }
}

/// The fill -> copy chain on rings 0 and `ring1`, with its results checked
/// through a mapping and GRAPH_INFO.
fn fill_copy(
    c: &mut Checks,
    dev: &Device,
    ring1: u32,
    flags: SubmitFlags,
    value: u32,
) -> Result<(), Error> {
    let name = if flags.contains(SubmitFlags::FIFO) {
        "FIFO"
    } else {
        "graph dispatch"
    };
    let bo = dev.create_bo(2 * HALF)?;
    let (first, second) = (bo.range(0, HALF), bo.range(HALF, HALF));
    {
        let map = bo.map()?;
        c.check(
            map.len() == 2 * HALF as usize && map.u32s().all(|w| w == 0),
            format!("{name}: new buffer is mapped and zeroed"),
        );
    }
    let sync = dev.create_syncobj(false)?;

    let mut g = Graph::new();
    let fill = g.add(Node::new(0, Op::Fill { dst: first, value }).duration_ns(NODE_NS));
    let copy = g.add(
        Node::new(
            ring1,
            Op::Copy {
                dst: second,
                src: first,
            },
        )
        .duration_ns(NODE_NS),
    );
    g.edge(fill, copy)?;
    g.signal(sync.at(1), Target::Graph)?;

    let Some(id) = c.ok(
        dev.submit(&g, flags),
        format!("{name}: submit fill (ring 0) -> copy (ring {ring1}) signalling timeline point 1"),
    ) else {
        return Ok(());
    };
    if c.ok(
        sync.wait(1, TIMEOUT),
        format!("{name}: wait for timeline point 1"),
    )
    .is_none()
    {
        return Ok(());
    }
    let point = sync.query()?;
    c.check(
        point == 1,
        format!("{name}: syncobj query reports point {point} (1)"),
    );

    let map = bo.map()?;
    let words = map.u32s().collect::<Vec<_>>();
    let bad = words.iter().position(|&w| w != value);
    c.check(
        bad.is_none(),
        format!(
            "{name}: both halves hold {value:#x} after the graph{}",
            bad.map_or(String::new(), |i| format!(" (word {i} is {:#x})", words[i]))
        ),
    );
    drop(map);

    let Some(info) = c.ok(
        dev.graph_info(id, g.node_count()),
        format!("{name}: GRAPH_INFO of graph {id}"),
    ) else {
        return Ok(());
    };
    let rings: Vec<u32> = info.nodes.iter().map(|n| n.ring).collect();
    c.check(
        info.done && info.first_error().is_none() && rings == [0, ring1],
        format!(
            "{name}: graph done without errors on rings {rings:?} ({})",
            describe(&info)
        ),
    );
    c.check(
        info.nodes.iter().all(ordered),
        format!(
            "{name}: queued <= ready <= started <= finished for each node ({})",
            describe(&info)
        ),
    );
    let (f, cp) = (
        &info.nodes[fill.index() as usize],
        &info.nodes[copy.index() as usize],
    );
    c.check(
        f.finished_ns <= cp.started_ns,
        format!(
            "{name}: copy started ({}) after fill finished ({})",
            cp.started_ns, f.finished_ns
        ),
    );
    Ok(())
}

/// A self-loop is rejected by the kernel with EINVAL, which names the edge.
fn self_loop(c: &mut Checks, dev: &Device) -> Result<(), Error> {
    let mut g = Graph::new();
    let a = g.add(Node::new(0, Op::Nop).duration_ns(NODE_NS));
    let n = g.add(Node::new(0, Op::Nop).duration_ns(NODE_NS));
    g.edge(a, n)?;
    g.edge(n, n)?;
    let r = dev.submit(&g, SubmitFlags::empty());
    c.check(
        matches!(r, Err(e) if e.op == "SUBMIT_GRAPH" && e.is_invalid()
            && e.culprit == Some(Culprit::Edge(1))),
        format!(
            "graph with a self-loop edge (edge 1) fails with EINVAL at edge 1 ({})",
            outcome(&r)
        ),
    );
    Ok(())
}

/// Three launches of a template, chained through timeline points.
fn template(c: &mut Checks, dev: &Device, ring1: u32) -> Result<(), Error> {
    let mut g = Graph::new();
    let a = g.add(Node::new(0, Op::Nop).duration_ns(NODE_NS));
    let b = g.add(Node::new(ring1, Op::Nop).duration_ns(NODE_NS));
    g.edge(a, b)?;
    let Some(t) = c.ok(dev.create_template(&g), "create a template of 2 nodes") else {
        return Ok(());
    };
    let sync = dev.create_syncobj(false)?;

    let mut ids = Vec::new();
    for k in 1..=3u64 {
        let waits = if k == 1 {
            vec![]
        } else {
            vec![(sync.at(k - 1), Target::Graph)]
        };
        let signals = [(sync.at(k), Target::Graph)];
        let what = if k == 1 {
            "launch 1 signalling point 1".to_string()
        } else {
            format!(
                "launch {k} waiting for point {} and signalling point {k}",
                k - 1
            )
        };
        match c.ok(dev.launch(&t, &waits, &signals), what) {
            Some(id) => ids.push(id),
            None => return Ok(()),
        }
    }
    if c.ok(sync.wait(3, TIMEOUT), "wait for timeline point 3")
        .is_none()
    {
        return Ok(());
    }
    let point = sync.query()?;
    c.check(
        point == 3,
        format!("syncobj query reports point {point} (3)"),
    );

    let mut infos = Vec::new();
    for &id in &ids {
        infos.push(dev.graph_info(id, t.node_count())?);
    }
    c.check(
        infos
            .iter()
            .all(|i| i.done && i.first_error().is_none() && i.nodes.iter().all(ordered)),
        "3 launches done without errors, timestamps in order",
    );
    let chained = infos.windows(2).all(|w| {
        let prev_end = w[0].nodes.iter().map(|n| n.finished_ns).max().unwrap_or(0);
        let next_start = w[1].nodes.iter().map(|n| n.started_ns).min().unwrap_or(0);
        prev_end <= next_start
    });
    c.check(
        chained,
        format!(
            "each launch started after the previous one finished ({})",
            infos.iter().map(describe).collect::<Vec<_>>().join(" | ")
        ),
    );
    c.ok(t.destroy(), "destroy the template");
    Ok(())
}

/// A fill -> copy template launched on buffers of its own, and a bad bind.
fn template_binds(c: &mut Checks, dev: &Device, ring1: u32) -> Result<(), Error> {
    let (src, dst) = (dev.create_bo(HALF)?, dev.create_bo(HALF)?);
    let mut g = Graph::new();
    let fill = g.add(Node::new(
        0,
        Op::Fill {
            dst: src.whole(),
            value: 0x600d,
        },
    ));
    let copy = g.add(Node::new(
        ring1,
        Op::Copy {
            dst: dst.whole(),
            src: src.whole(),
        },
    ));
    g.edge(fill, copy)?;
    let Some(t) = c.ok(dev.create_template(&g), "create a fill -> copy template") else {
        return Ok(());
    };
    c.check(
        t.slots() == 2,
        format!("the template has {} buffer slots (2)", t.slots()),
    );
    // Slot 0 (the fill's buffer) at the second half of a new buffer.
    let (src2, dst2) = (dev.create_bo(2 * HALF)?, dev.create_bo(HALF)?);
    let sync = dev.create_syncobj(false)?;
    let binds = [Bind::new(0, &src2, HALF), Bind::new(1, &dst2, 0)];
    let signals = [(sync.at(1), Target::Graph)];
    let flags = SubmitFlags::empty();
    if c.ok(
        dev.launch_bound(&t, &[], &signals, &binds, flags),
        "launch it on two other buffers",
    )
    .is_none()
        || c.ok(sync.wait(1, TIMEOUT), "wait for the bound launch")
            .is_none()
    {
        return Ok(());
    }
    let (m_src2, m_dst2) = (src2.map()?, dst2.map()?);
    let (m_src, m_dst) = (src.map()?, dst.map()?);
    let n = (HALF / 4) as usize;
    c.check(
        m_src2.u32s().take(n).all(|w| w == 0)
            && m_src2.u32s().skip(n).all(|w| w == 0x600d)
            && m_dst2.u32s().all(|w| w == 0x600d),
        "the launch filled the bound half and copied it to the bound buffer",
    );
    c.check(
        m_src.u32s().chain(m_dst.u32s()).all(|w| w == 0),
        "the template's own buffers are untouched",
    );
    let small = dev.create_bo(HALF)?;
    let bad = [Bind::new(0, &small, 4)];
    match dev.launch_bound(&t, &[], &[], &bad, flags) {
        Err(e) => c.check(
            e.errno() == Errno::INVAL && e.culprit == Some(Culprit::Bind(0)),
            format!("a bind past the end of its buffer is rejected: {e}"),
        ),
        Ok(_) => c.check(false, "a bind past the end of its buffer is rejected"),
    };
    c.ok(t.destroy(), "destroy the template");
    Ok(())
}

/// Simulated duration of the GPU nodes around a host node.
const HOST_GPU_NS: u64 = 20_000_000;

/// GPU (ring 0) -> host node -> GPU (ring `ring1`) -> host node in one
/// graph: the thread is woken by the first host node's start point after
/// the first GPU node finished, reports the node done, and the GPU node
/// after it starts after that. The last host node keeps the graph in flight
/// until the checks that need it are done, and is not released before the
/// first is reported, whatever the timing of the guest.
fn host_chain(c: &mut Checks, dev: &Device, ring1: u32, rings: u32) -> Result<(), Error> {
    let (start, done) = (dev.create_syncobj(false)?, dev.create_syncobj(false)?);
    let mut g = Graph::new();
    let gpu = g.add(Node::new(0, Op::Nop).duration_ns(HOST_GPU_NS));
    let host = g.add(Node::host());
    let next = g.add(Node::new(ring1, Op::Nop).duration_ns(HOST_GPU_NS));
    let last = g.add(Node::host());
    g.edge(gpu, host)?;
    g.edge(host, next)?;
    g.edge(next, last)?;
    g.signal(start.at(1), Target::Start(host))?;
    g.signal(start.at(2), Target::Start(last))?;
    g.signal(done.at(1), Target::Graph)?;
    let Some(id) = c.ok(
        dev.submit(&g, SubmitFlags::empty()),
        format!("submit GPU (ring 0) -> host -> GPU (ring {ring1}), host start at point 1"),
    ) else {
        return Ok(());
    };
    let r = dev.host_done(id, last, None);
    c.check(
        matches!(r, Err(e) if e.op == "HOST_DONE" && e.is_not_released()),
        format!("HOST_DONE before the host node is released fails with EBUSY ({r:?})"),
    );
    let r = dev.host_done(id, gpu, None);
    c.check(
        matches!(r, Err(e) if e.is_invalid()),
        format!("HOST_DONE of a GPU node fails with EINVAL ({r:?})"),
    );
    let r = dev.host_done_raw(id, last.index(), -512);
    c.check(
        matches!(r, Err(e) if e.is_invalid()),
        format!("HOST_DONE with error -512 (not a userspace errno) fails with EINVAL ({r:?})"),
    );
    if c.ok(
        start.wait(1, TIMEOUT),
        "wait for the host node's start point",
    )
    .is_none()
    {
        return Ok(());
    }
    let woke = tas::now_ns();
    let info = dev.graph_info(id, g.node_count())?;
    let first = &info.nodes[gpu.index() as usize];
    c.check(
        first.error.is_none() && first.finished_ns != 0 && first.finished_ns <= woke,
        format!(
            "woken at {woke} after the first GPU node finished ({})",
            describe(&info)
        ),
    );
    let reported = tas::now_ns();
    c.ok(dev.host_done(id, host, None), "HOST_DONE of the host node");
    let r = dev.host_done(id, host, None);
    c.check(
        matches!(r, Err(e) if e.is_already_done()),
        format!("a second HOST_DONE fails with EALREADY ({r:?})"),
    );
    if c.ok(
        start.wait(2, TIMEOUT),
        "wait for the last host node's start point",
    )
    .is_none()
    {
        return Ok(());
    }
    c.ok(
        dev.host_done(id, last, None),
        "HOST_DONE of the last host node",
    );
    if c.ok(done.wait(1, TIMEOUT), "wait for the graph's point 1")
        .is_none()
    {
        return Ok(());
    }
    let info = dev.graph_info(id, g.node_count())?;
    let (f, h, n) = (
        &info.nodes[gpu.index() as usize],
        &info.nodes[host.index() as usize],
        &info.nodes[next.index() as usize],
    );
    c.check(
        info.done
            && info.first_error().is_none()
            && h.ring == rings
            && f.finished_ns <= h.started_ns
            && h.started_ns <= woke
            && reported <= h.finished_ns
            && h.finished_ns <= n.started_ns,
        format!(
            "host node on ring {rings}, released after the first GPU node, \
             the last one started after the report ({})",
            describe(&info)
        ),
    );
    let r = dev.host_done(id, last, None);
    c.check(
        matches!(r, Err(e) if e.is_not_found()),
        format!("HOST_DONE once the graph completed fails with ENOENT ({r:?})"),
    );
    Ok(())
}

/// Whether the process has CAP_SYS_NICE in its effective set.
fn has_cap_sys_nice() -> Option<bool> {
    const CAP_SYS_NICE: u32 = 23;
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let hex = status.lines().find_map(|l| l.strip_prefix("CapEff:"))?;
    let caps = u64::from_str_radix(hex.trim(), 16).ok()?;
    Some(caps & (1 << CAP_SYS_NICE) != 0)
}

/// A latency-class node fails with EACCES exactly without CAP_SYS_NICE.
fn latency(c: &mut Checks, dev: &Device) -> Result<(), Error> {
    let Some(cap) = has_cap_sys_nice() else {
        c.check(false, "read CapEff from /proc/self/status");
        return Ok(());
    };
    let mut g = Graph::new();
    g.add(
        Node::new(0, Op::Nop)
            .duration_ns(NODE_NS)
            .class(Class::Latency),
    );
    let r = dev.submit(&g, SubmitFlags::empty());
    let ok = match &r {
        Ok(_) => cap,
        Err(e) => !cap && e.errno == Errno::ACCESS,
    };
    c.check(
        ok,
        format!(
            "latency-class node {} CAP_SYS_NICE: {}",
            if cap { "with" } else { "without" },
            outcome(&r)
        ),
    );
    Ok(())
}

/// Runs `f`; an error that it returns (not one of its checks) fails a check.
fn section(c: &mut Checks, name: &str, f: impl FnOnce(&mut Checks) -> Result<(), Error>) {
    if let Err(e) = f(c) {
        c.check(false, format!("{name}: {e}"));
    }
}

fn main() -> ExitCode {
    let mut check_latency = false;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--check-latency" => check_latency = true,
            _ => {
                eprintln!("usage: smoke [--check-latency]");
                return ExitCode::from(2);
            }
        }
    }

    let mut c = Checks::default();
    let dev = match Device::open() {
        Ok(dev) => {
            let path = dev.path().map(|p| p.display().to_string());
            c.check(
                true,
                format!("open drm/tas device {}", path.unwrap_or_default()),
            );
            dev
        }
        Err(e) => {
            c.check(false, format!("open drm/tas device: {e}"));
            eprintln!(
                "smoke: no drm/tas device found ({e}): load the tas driver \
                 (CONFIG_DRM_TAS) and run as root"
            );
            return c.finish();
        }
    };

    let mut values = std::collections::HashMap::new();
    for (p, r) in dev.params() {
        match &r {
            Ok(v) => println!("# param {:<20} {v}", p.name()),
            Err(e) => println!("# param {:<20} error: {e}", p.name()),
        }
        values.insert(p, r);
    }
    let get = |p: Param| values.get(&p).and_then(|r| r.as_ref().ok()).copied();
    let version = get(Param::Version).unwrap_or(0);
    let rings = get(Param::NumRings).unwrap_or(0);
    let ops = get(Param::Ops).unwrap_or(0);
    let need_ops =
        1 << Op::Nop.code() | 1 << tas::uapi::DRM_TAS_OP_FILL | 1 << tas::uapi::DRM_TAS_OP_COPY;
    c.check(
        values.values().all(|r| r.is_ok())
            && version >= 4
            && (1..=16).contains(&rings)
            && ops & need_ops == need_ops,
        format!(
            "parameters: all readable, VERSION {version} >= 4, NUM_RINGS {rings} in 1..=16, \
             OPS {ops:#x} has nop, fill and copy"
        ),
    );
    // The second ring of the chains (ring 0 again on a one-ring device).
    let ring1 = if rings > 1 { 1 } else { 0 };

    section(&mut c, "graph dispatch", |c| {
        fill_copy(c, &dev, ring1, SubmitFlags::empty(), 0xc0ff_ee11)
    });
    section(&mut c, "FIFO", |c| {
        fill_copy(c, &dev, ring1, SubmitFlags::FIFO, 0x5a5a_0042)
    });
    section(&mut c, "self-loop", |c| self_loop(c, &dev));
    section(&mut c, "template", |c| template(c, &dev, ring1));
    if version >= 7 {
        section(&mut c, "template binds", |c| template_binds(c, &dev, ring1));
    } else {
        println!("# skipped: template binds (uAPI version {version})");
    }
    if version >= 6 && ops & 1 << Op::Host.code() != 0 {
        section(&mut c, "host node", |c| {
            host_chain(c, &dev, ring1, rings as u32)
        });
    } else {
        println!("# skipped: host nodes (uAPI version {version}, OPS {ops:#x})");
    }
    if check_latency {
        section(&mut c, "latency class", |c| latency(c, &dev));
    } else {
        println!("# skipped: latency-class node vs CAP_SYS_NICE (run with --check-latency)");
    }
    c.finish()
}
