// SPDX-License-Identifier: GPL-2.0

//! Dependency graphs of scheduler jobs: ranks, a ready set, priority classes and gangs.
//!
//! A scheduler [`Entity`](super::Entity) is a FIFO: a job that waits for its dependencies holds
//! up every job pushed after it, even ready ones, and the scheduler knows nothing of how urgent
//! a job is for the graph it belongs to. This module is the graph layer a driver puts in front
//! of its entities instead:
//!
//! - A [`Plan`] is a validated graph: per node its ring, [`Class`], gang and estimated cost,
//!   and the edges between nodes. Building it checks the graph (cycles, gangs that could never
//!   start together) and computes, per node, the critical-path *rank* (the longest remaining
//!   path by cost, the node included) and the *chain depth* (the number of nodes on the longest
//!   dependency chain ending at the node). A plan is immutable and can be launched many times.
//! - A [`Run`] is one launch of a plan: the count of unfinished dependencies of each node and
//!   of unready members of each gang. It reports nodes and gangs as they become ready.
//! - A [`ReadySet`] holds the ready nodes of any number of runs, one heap per ring and class,
//!   and decides what each ring gets next. A ring is given at most `window` nodes of a class
//!   and the classes more urgent than it at a time (just in time), so a node that becomes ready
//!   later but is more urgent never waits behind queued, less urgent work, not even for a place
//!   in the window, and a node that is not ready never holds up a ready one.
//!
//! The driver moves a node's job into its entity only when the ready set releases it, and
//! reports the job's completion back; see the drm/tas driver for a user.
//!
//! # Order
//!
//! On each ring, the next node is the one of the most urgent class ([`Class::Latency`], then
//! [`Class::Normal`], then [`Class::Batch`]) with the highest rank, ties broken by readiness order.
//! Classes do not starve: once a ready class has been passed over [`STARVATION_LIMIT`] times on a
//! ring by more urgent classes, its best node goes before any more urgent one (the least urgent
//! such class first): if the ring's window has no room for its class, the ring releases nothing
//! more urgent until it has. Within a class, nodes do not starve either: after [`STARVATION_LIMIT`]
//! releases of a ring and class that left other nodes of it waiting, its oldest ready node goes
//! next, so later nodes of a higher rank (the next links of a long chain, the nodes of graphs
//! launched again and again) cannot hold an older node out. A ready node therefore waits for at
//! most `STARVATION_LIMIT + 2` releases of more urgent classes on its ring per release of its own
//! class, counted while its class has room in the ring's window (while the nodes of its class in
//! flight fill it, the more urgent classes go on), and for at most
//! `(k + 1) * (STARVATION_LIMIT + 1)` releases of its class on its ring, where `k` is the number of
//! nodes of its class and ring that became ready before it and are still waiting.
//!
//! # Gangs
//!
//! The members of a gang are on different rings and start together or not at all. A gang is
//! ready when every member's dependencies are done (the union of them), and ready gangs are
//! admitted strictly in the order they became ready, one at a time: the oldest ready gang
//! reserves its rings (nothing else is released to them) until none of them runs a node of at
//! least the gang's class ([`Plan::gang_class`], which its members pass the others with), and
//! then all of its members are released at once. As only the gang at the head holds reservations,
//! two gangs can never each hold part of what the other needs, and a gang waits for at most the
//! gangs ahead of it and the work already on its rings. A gang whose members depend on each
//! other, or gangs that depend on each other in a cycle, can never start and are rejected when
//! the plan is built.
//!
//! Clients share the rings, each with its own ready set. A [`GangOrder`] shared by all of them
//! extends the order to the whole device: a released gang holds its rings until its members
//! have started, gangs that hold rings at the same time share none, and gangs that have to wait
//! are admitted in the order they asked. The driver's rings start a gang member only once all
//! members are at the head of their rings, so gangs of different clients never hold each other
//! up either.
//!
//! # Cost
//!
//! Building a plan is O(E log E + V) (the edges are sorted to reject duplicates), a run is
//! O(V + E) over its lifetime, and each insertion is O(log V), each release O(log V) and, once
//! in `STARVATION_LIMIT + 1` releases of a ring and class, O(n) in the nodes of that ring and
//! class that are ready (the search for the oldest). Memory is O(V + E)
//! per plan and O(V) per run; the ready set grows only outside of its user's lock (see
//! [`ReadySet::shortfall`]), so that releasing and completing nodes never allocates.
//!
//! The arrays of plans, runs and ready sets grow with the graphs, which usually come from
//! userspace: they are allocated with the caller's [`Flags`] (e.g. [`GFP_KERNEL_ACCOUNT`], to
//! charge them to the submitter's memory cgroup) and may be `vmalloc`ed, so they must be
//! dropped where the caller may sleep.

use crate::{
    alloc::Flags,
    drm::sched::Priority,
    prelude::*, //
};

/// Consecutive releases of more urgent classes on a ring after which a ready, less urgent class
/// is served; and releases of a ring and class after which its oldest ready node is.
pub const STARVATION_LIMIT: u32 = 4;

/// The most rings a [`ReadySet`] can serve (gangs are kept as bit masks of rings).
pub const MAX_RINGS: u32 = 64;

/// The priority class of a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum Class {
    /// Latency-sensitive work, served first.
    Latency = 0,
    /// Normal work.
    Normal = 1,
    /// Throughput work, served last but never starved.
    Batch = 2,
}

impl Class {
    /// The number of classes.
    pub const COUNT: usize = 3;

    fn index(self) -> usize {
        self as usize
    }

    /// The entity priority that stands for the class between clients.
    pub fn priority(self) -> Priority {
        match self {
            Class::Latency => Priority::High,
            Class::Normal => Priority::Normal,
            Class::Batch => Priority::Low,
        }
    }
}

/// A node as the driver describes it to [`Plan::new`].
#[derive(Clone, Copy, Debug)]
pub struct NodeDesc {
    /// The ring (scheduler) that executes the node, below the plan's ring count.
    pub ring: u32,
    /// The priority class of the node.
    pub class: Class,
    /// The gang of the node; 0 for none. Nodes with the same non-zero value form a gang.
    pub gang: u32,
    /// The estimated cost of the node (e.g. its duration in nanoseconds), for the ranks.
    pub cost: u64,
}

/// No gang, as a dense gang index.
const NO_GANG: u32 = u32::MAX;

struct PlanNode {
    ring: u32,
    class: Class,
    /// Dense gang index or [`NO_GANG`].
    gang: u32,
    indegree: u32,
    /// The number of predecessors on pipelined edges.
    pipelined_preds: u32,
    rank: u64,
    depth: u32,
}

/// A gang of a plan.
struct PlanGang {
    /// The members are `Plan::gang_members[first..first + len]`.
    first: u32,
    len: u32,
    /// The most urgent class of the members.
    class: Class,
    /// The highest rank of the members.
    rank: u64,
    /// Bit `r` is set if a member is on ring `r`.
    rings: u64,
}

/// A validated and ranked graph; see the [module documentation](self).
pub struct Plan {
    nodes: KVVec<PlanNode>,
    succ_start: KVVec<u32>,
    succ: KVVec<u32>,
    gangs: KVVec<PlanGang>,
    gang_members: KVVec<u32>,
    /// Nodes outside of gangs per ring and class, at `ring * Class::COUNT + class`.
    counts: KVVec<u32>,
    /// The nodes without predecessors.
    sources: KVVec<u32>,
    /// The nodes in a topological order.
    order: KVVec<u32>,
    num_rings: u32,
    critical_path: u64,
}

impl Plan {
    /// Validates and ranks a graph of `nodes` on `num_rings` rings, allocating with `flags`.
    ///
    /// An edge `(from, to)` makes node `to` wait for node `from`. Fails with `EINVAL` for a ring
    /// out of range, an edge endpoint out of range, a self-loop, a duplicate edge or a gang with
    /// two members on one ring; `ELOOP` if the edges contain a cycle; `EDEADLK` if a member of a
    /// gang depends on another member of its gang, or gangs depend on each other in a cycle;
    /// `ENOMEM`.
    pub fn new(
        nodes: &[NodeDesc],
        edges: &[(u32, u32)],
        num_rings: u32,
        flags: Flags,
    ) -> Result<Self> {
        let n = nodes.len();
        if n >= u32::MAX as usize || num_rings == 0 || num_rings > MAX_RINGS {
            return Err(EINVAL);
        }
        if nodes.iter().any(|d| d.ring >= num_rings) {
            return Err(EINVAL);
        }

        // Edges: checked, sorted, without duplicates, as successor lists.
        let mut sorted = KVVec::with_capacity(edges.len(), flags)?;
        for &(from, to) in edges {
            if from as usize >= n || to as usize >= n || from == to {
                return Err(EINVAL);
            }
            sorted.push((from, to), flags)?;
        }
        sorted.sort_unstable();
        if sorted.windows(2).any(|w| w[0] == w[1]) {
            return Err(EINVAL);
        }
        let mut succ_start = KVVec::from_elem(0u32, n + 1, flags)?;
        let mut succ = KVVec::with_capacity(sorted.len(), flags)?;
        let mut indegree = KVVec::from_elem(0u32, n, flags)?;
        for &(from, to) in sorted.iter() {
            succ_start[from as usize + 1] += 1;
            indegree[to as usize] += 1;
            succ.push(to, flags)?;
        }
        for v in 0..n {
            succ_start[v + 1] += succ_start[v];
        }
        drop(sorted);

        let mut plan = Plan {
            nodes: KVVec::with_capacity(n, flags)?,
            succ_start,
            succ,
            gangs: KVVec::new(),
            gang_members: KVVec::new(),
            counts: KVVec::from_elem(0u32, num_rings as usize * Class::COUNT, flags)?,
            sources: KVVec::new(),
            order: KVVec::new(),
            num_rings,
            critical_path: 0,
        };
        for (d, &indegree) in nodes.iter().zip(indegree.iter()) {
            plan.nodes.push(
                PlanNode {
                    ring: d.ring,
                    class: d.class,
                    gang: NO_GANG,
                    indegree,
                    pipelined_preds: 0,
                    rank: 0,
                    depth: 1,
                },
                flags,
            )?;
        }

        // Topological order (Kahn), O(V + E).
        let mut topo = KVVec::with_capacity(n, flags)?;
        for (v, &d) in indegree.iter().enumerate() {
            if d == 0 {
                topo.push(v as u32, flags)?;
            }
        }
        let mut head = 0;
        while head < topo.len() {
            let v = topo[head] as usize;
            head += 1;
            for i in plan.succ_start[v]..plan.succ_start[v + 1] {
                let w = plan.succ[i as usize] as usize;
                indegree[w] -= 1;
                if indegree[w] == 0 {
                    topo.push(w as u32, flags)?;
                }
            }
        }
        if topo.len() != n {
            return Err(ELOOP);
        }
        for (v, node) in plan.nodes.iter().enumerate() {
            if node.indegree == 0 {
                plan.sources.push(v as u32, flags)?;
            }
        }

        // Chain depths forwards, ranks backwards.
        for &v in topo.iter() {
            let v = v as usize;
            let depth = plan.nodes[v].depth.saturating_add(1);
            for i in plan.succ_start[v]..plan.succ_start[v + 1] {
                let node = &mut plan.nodes[plan.succ[i as usize] as usize];
                node.depth = node.depth.max(depth);
            }
        }
        for &v in topo.iter().rev() {
            let v = v as usize;
            let tail = plan
                .succ(v as u32)
                .iter()
                .map(|&w| plan.nodes[w as usize].rank)
                .max()
                .unwrap_or(0);
            let rank = tail.saturating_add(nodes[v].cost);
            plan.nodes[v].rank = rank;
            plan.critical_path = plan.critical_path.max(rank);
        }

        plan.build_gangs(nodes, flags)?;
        plan.order = topo;
        for node in plan.nodes.iter() {
            if node.gang == NO_GANG {
                plan.counts[node.ring as usize * Class::COUNT + node.class.index()] += 1;
            }
        }
        for u in 0..n as u32 {
            for i in plan.succ_start[u as usize]..plan.succ_start[u as usize + 1] {
                let w = plan.succ[i as usize];
                if plan.pipelined(u, w) {
                    plan.nodes[w as usize].pipelined_preds += 1;
                }
            }
        }
        Ok(plan)
    }

    /// Groups the gang members and checks that every gang can start.
    fn build_gangs(&mut self, nodes: &[NodeDesc], flags: Flags) -> Result {
        let mut members = KVVec::new();
        for (v, d) in nodes.iter().enumerate() {
            if d.gang != 0 {
                members.push((d.gang, v as u32), flags)?;
            }
        }
        if members.is_empty() {
            return Ok(());
        }
        members.sort_unstable();
        let mut i = 0;
        while i < members.len() {
            let id = members[i].0;
            let first = self.gang_members.len() as u32;
            let gang = self.gangs.len() as u32;
            let mut g = PlanGang {
                first,
                len: 0,
                class: Class::Batch,
                rank: 0,
                rings: 0,
            };
            while i < members.len() && members[i].0 == id {
                let v = members[i].1;
                let node = &mut self.nodes[v as usize];
                let bit = 1u64 << node.ring;
                if g.rings & bit != 0 {
                    return Err(EINVAL);
                }
                g.rings |= bit;
                g.len += 1;
                g.class = g.class.min(node.class);
                g.rank = g.rank.max(node.rank);
                node.gang = gang;
                self.gang_members.push(v, flags)?;
                i += 1;
            }
            self.gangs.push(g, flags)?;
        }

        // Every gang contracted into one node must leave the graph acyclic: Kahn's algorithm
        // over the representatives (a gang's first member, or the node itself).
        let rep = |plan: &Self, v: u32| match plan.nodes[v as usize].gang {
            NO_GANG => v,
            g => plan.gang_members[plan.gangs[g as usize].first as usize],
        };
        let n = self.nodes.len();
        let mut indegree = KVVec::from_elem(0u32, n, flags)?;
        for v in 0..n as u32 {
            let rv = rep(self, v);
            for &w in self.succ(v) {
                let rw = rep(self, w);
                if rv == rw {
                    return Err(EDEADLK);
                }
                indegree[rw as usize] += 1;
            }
        }
        let mut scratch = KVVec::with_capacity(n, flags)?;
        let mut reps = 0;
        for v in 0..n as u32 {
            if rep(self, v) == v {
                reps += 1;
                if indegree[v as usize] == 0 {
                    scratch.push_within_capacity(v).map_err(|_| ENOMEM)?;
                }
            }
        }
        let mut head = 0;
        while head < scratch.len() {
            let r = scratch[head];
            head += 1;
            let single = [r];
            let group = match self.nodes[r as usize].gang {
                NO_GANG => &single[..],
                g => self.gang(g),
            };
            for &m in group {
                for &w in self.succ(m) {
                    let rw = rep(self, w) as usize;
                    indegree[rw] -= 1;
                    if indegree[rw] == 0 {
                        scratch
                            .push_within_capacity(rw as u32)
                            .map_err(|_| ENOMEM)?;
                    }
                }
            }
        }
        if scratch.len() != reps {
            return Err(EDEADLK);
        }
        Ok(())
    }

    fn gang(&self, g: u32) -> &[u32] {
        let g = &self.gangs[g as usize];
        &self.gang_members[g.first as usize..(g.first + g.len) as usize]
    }

    /// The number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the plan has no nodes.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The number of rings the plan was built for.
    pub fn num_rings(&self) -> u32 {
        self.num_rings
    }

    /// The successors of node `v`.
    pub fn succ(&self, v: u32) -> &[u32] {
        let v = v as usize;
        &self.succ[self.succ_start[v] as usize..self.succ_start[v + 1] as usize]
    }

    /// The nodes in a topological order: every node after its predecessors.
    pub fn topo_order(&self) -> &[u32] {
        &self.order
    }

    /// The nodes without predecessors, in node order.
    pub fn sources(&self) -> &[u32] {
        &self.sources
    }

    /// The number of predecessors of node `v`.
    pub fn indegree(&self, v: u32) -> u32 {
        self.nodes[v as usize].indegree
    }

    /// The ring of node `v`.
    pub fn ring(&self, v: u32) -> u32 {
        self.nodes[v as usize].ring
    }

    /// The class of node `v`.
    pub fn class(&self, v: u32) -> Class {
        self.nodes[v as usize].class
    }

    /// The critical-path rank of node `v`: the longest path by cost from `v` to a sink, `v`
    /// included.
    pub fn rank(&self, v: u32) -> u64 {
        self.nodes[v as usize].rank
    }

    /// The chain depth of node `v`: the number of nodes on the longest chain ending at `v`.
    pub fn depth(&self, v: u32) -> u32 {
        self.nodes[v as usize].depth
    }

    /// The length of the critical path of the whole graph, by cost.
    pub fn critical_path(&self) -> u64 {
        self.critical_path
    }

    /// The number of gangs.
    pub fn num_gangs(&self) -> usize {
        self.gangs.len()
    }

    /// The members of gang `g` (below [`Plan::num_gangs`]), in node order.
    pub fn gang_members(&self, g: u32) -> &[u32] {
        self.gang(g)
    }

    /// The rings of the members of gang `g` (below [`Plan::num_gangs`]), as a bit mask.
    pub fn gang_rings(&self, g: u32) -> u64 {
        self.gangs[g as usize].rings
    }

    /// The class whose priority the members of gang `g` (below [`Plan::num_gangs`]) are to be
    /// pushed with: the most urgent class of its members, and at least [`Class::Normal`].
    ///
    /// An admitted gang holds its rings for every client of a [`GangOrder`] until all of its
    /// members have started, and a member that reaches the head of its ring waits there for the
    /// others. The priorities between clients are strict: with the batch class, a member would
    /// wait for as long as other clients kept normal work coming, and every ring of the gang,
    /// and every gang after it, with it. At the normal priority, which every client may use, it
    /// waits for the work queued before it at that priority and for latency work only.
    pub fn gang_class(&self, g: u32) -> Class {
        self.gangs[g as usize].class.min(Class::Normal)
    }

    /// Whether the edge from `u` to `w` is pipelined: both nodes are on one ring, of one class
    /// and outside of gangs, so that their jobs go to one entity, which runs them in order.
    pub fn pipelined(&self, u: u32, w: u32) -> bool {
        let (a, b) = (&self.nodes[u as usize], &self.nodes[w as usize]);
        a.ring == b.ring && a.class == b.class && a.gang == NO_GANG && b.gang == NO_GANG
    }

    /// The number of predecessors of node `v` on pipelined edges (see [`Plan::pipelined`]).
    pub fn pipelined_preds(&self, v: u32) -> u32 {
        self.nodes[v as usize].pipelined_preds
    }

    /// The gang of node `v`, if any.
    pub fn gang_of(&self, v: u32) -> Option<u32> {
        match self.nodes[v as usize].gang {
            NO_GANG => None,
            g => Some(g),
        }
    }
}

/// What became ready in a [`Run`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ready {
    /// A node outside of gangs.
    Node(u32),
    /// A gang, all of whose members are ready.
    Gang(u32),
}

/// One launch of a [`Plan`]: the dependencies each node still waits for.
///
/// A node is ready once every predecessor has finished, except predecessors over
/// [pipelined](Plan::pipelined) edges, which only need to have been released to the ring: a
/// ring runs the jobs of one entity in order, so the node runs after them without the
/// dispatcher waiting for them to finish (as the stock scheduler pipelines jobs of one entity).
pub struct Run {
    waiting: KVVec<u32>,
    gang_waiting: KVVec<u32>,
    released: KVVec<bool>,
    /// Per node, the predecessors that were neither released (also early) nor completed, and
    /// the events added with [`Run::add_wait`] that did not happen yet.
    off_rings: KVVec<u32>,
    /// Per node, whether it was released early (see [`Run::release_early`]).
    early: KVVec<bool>,
    left: usize,
}

impl Run {
    /// Creates a launch of `plan` in which no node has finished, allocating with `flags`.
    pub fn new(plan: &Plan, flags: Flags) -> Result<Self> {
        let mut waiting = KVVec::with_capacity(plan.len(), flags)?;
        for node in plan.nodes.iter() {
            waiting.push(node.indegree, flags)?;
        }
        let mut gang_waiting = KVVec::with_capacity(plan.gangs.len(), flags)?;
        for g in plan.gangs.iter() {
            gang_waiting.push(g.len, flags)?;
        }
        let mut off_rings = KVVec::with_capacity(plan.len(), flags)?;
        for node in plan.nodes.iter() {
            off_rings.push(node.indegree, flags)?;
        }
        Ok(Self {
            waiting,
            gang_waiting,
            released: KVVec::from_elem(false, plan.len(), flags)?,
            off_rings,
            early: KVVec::from_elem(false, plan.len(), flags)?,
            left: plan.len(),
        })
    }

    /// Makes node `v` wait for one more event outside of the graph (e.g. a fence), to be
    /// reported with [`Run::resolve`]. Only before [`Run::start`].
    pub fn add_wait(&mut self, v: u32) {
        self.waiting[v as usize] = self.waiting[v as usize].saturating_add(1);
        self.off_rings[v as usize] = self.off_rings[v as usize].saturating_add(1);
    }

    /// Reports the nodes and gangs that are ready from the start to `ready`.
    ///
    /// O(number of sources): only sources can be ready before anything has finished.
    pub fn start(&mut self, plan: &Plan, mut ready: impl FnMut(Ready)) {
        for &v in plan.sources() {
            if self.waiting[v as usize] == 0 {
                self.became_ready(plan, v, &mut ready);
            }
        }
    }

    fn became_ready(&mut self, plan: &Plan, v: u32, ready: &mut impl FnMut(Ready)) {
        match plan.nodes[v as usize].gang {
            NO_GANG => ready(Ready::Node(v)),
            g => {
                let left = &mut self.gang_waiting[g as usize];
                *left -= 1;
                if *left == 0 {
                    ready(Ready::Gang(g));
                }
            }
        }
    }

    fn release_one(&mut self, plan: &Plan, v: u32, ready: &mut impl FnMut(Ready)) {
        let waiting = &mut self.waiting[v as usize];
        if *waiting > 0 {
            *waiting -= 1;
            if *waiting == 0 {
                self.became_ready(plan, v, ready);
            }
        }
    }

    /// Reports that an event added with [`Run::add_wait`] for node `v` happened.
    pub fn resolve(&mut self, plan: &Plan, v: u32, mut ready: impl FnMut(Ready)) {
        self.off_rings[v as usize] = self.off_rings[v as usize].saturating_sub(1);
        self.release_one(plan, v, &mut ready);
    }

    /// Reports that node `v` was handed to its ring; its successors over pipelined edges that
    /// became ready are reported to `ready`. The driver must make them run after `v` (they go
    /// to the same entity after it, and carry its finished fence for its errors).
    ///
    /// A node that completes without being handed to its ring (e.g. with the error of a
    /// predecessor) is not released: [`Run::complete`] alone reports it.
    pub fn release(&mut self, plan: &Plan, v: u32, mut ready: impl FnMut(Ready)) {
        if core::mem::replace(&mut self.released[v as usize], true) {
            return;
        }
        for &w in plan.succ(v) {
            self.off_rings[w as usize] = self.off_rings[w as usize].saturating_sub(1);
            if plan.pipelined(v, w) {
                self.release_one(plan, w, &mut ready);
            }
        }
    }

    /// Reports that node `v` finished; its successors that became ready are reported to
    /// `ready`. Returns whether every node of the run has finished.
    pub fn complete(&mut self, plan: &Plan, v: u32, mut ready: impl FnMut(Ready)) -> bool {
        let released = core::mem::replace(&mut self.released[v as usize], true);
        for &w in plan.succ(v) {
            if !released && !self.early[v as usize] {
                self.off_rings[w as usize] = self.off_rings[w as usize].saturating_sub(1);
            }
            // A pipelined successor was counted when `v` was released.
            if !(released && plan.pipelined(v, w)) {
                self.release_one(plan, w, &mut ready);
            }
        }
        self.left = self.left.saturating_sub(1);
        self.left == 0
    }

    /// The number of nodes that have not finished.
    pub fn left(&self) -> usize {
        self.left
    }

    /// Whether node `v` is not ready yet, but waits only for predecessors that were released to
    /// their rings (see [`Run::release`]): they will finish without the driver, which may then
    /// hand `v` to its ring ahead of time, for the ring to start it once they have finished, as
    /// hardware that waits on a semaphore would. Never for a gang member (its gang starts
    /// together) or for a node that waits for an event added with [`Run::add_wait`].
    ///
    /// O(1). The driver asks after it released a node, for that node's successors.
    pub fn on_rings(&self, plan: &Plan, v: u32) -> bool {
        let v = v as usize;
        self.off_rings[v] == 0
            && self.waiting[v] > 0
            && !self.released[v]
            && !self.early[v]
            && plan.nodes[v].gang == NO_GANG
    }

    /// Reports that node `v`, for which [`Run::on_rings`] held, was handed to its ring ahead of
    /// its predecessors: its successors count it as on its ring. It is not released, though:
    /// the successors over pipelined edges still wait for it to finish, as it does not go to
    /// their entity, and it is still reported ready once its predecessors have finished.
    pub fn release_early(&mut self, plan: &Plan, v: u32) {
        if self.released[v as usize] || core::mem::replace(&mut self.early[v as usize], true) {
            return;
        }
        for &w in plan.succ(v) {
            self.off_rings[w as usize] = self.off_rings[w as usize].saturating_sub(1);
        }
    }
}

/// An entry of a [`ReadySet`] heap or gang queue.
pub struct Entry<I> {
    rank: u64,
    seq: u64,
    rings: u64,
    /// For a gang, [`Plan::gang_class`]; for a node, its class.
    class: Class,
    item: I,
}

impl<I> Entry<I> {
    /// Whether `self` goes before `other`: higher rank first, then older first.
    fn before(&self, other: &Self) -> bool {
        (self.rank, other.seq) > (other.rank, self.seq)
    }
}

/// A binary max-heap by [`Entry::before`] that never allocates.
struct Heap<I> {
    v: KVVec<Entry<I>>,
    /// The most entries the users of the set have admitted.
    budget: usize,
    /// Pops that left other entries waiting since the oldest entry was last taken (see
    /// [`Heap::pop_aged`]).
    passed: u32,
}

impl<I> Heap<I> {
    fn push(&mut self, e: Entry<I>) -> core::result::Result<(), I> {
        self.v.push_within_capacity(e).map_err(|e| e.0.item)?;
        let last = self.v.len() - 1;
        sift_up(&mut self.v, last);
        Ok(())
    }

    /// Removes the entry at `i`.
    fn remove(&mut self, i: usize) -> Option<Entry<I>> {
        let last = self.v.len().checked_sub(1)?;
        if i > last {
            return None;
        }
        self.v.swap(i, last);
        let e = self.v.pop();
        if i < self.v.len() {
            sift_down(&mut self.v, i);
            sift_up(&mut self.v, i);
        }
        e
    }

    /// Pops the first entry by [`Entry::before`], or the oldest one after [`STARVATION_LIMIT`]
    /// pops in a row that left other entries waiting.
    ///
    /// Finding the oldest entry is a scan, O(n) once in `STARVATION_LIMIT + 1` pops while the
    /// heap holds more than one entry; a second heap by age would make it O(log n) at the price
    /// of a position index per entry and twice the storage.
    fn pop_aged(&mut self) -> Option<Entry<I>> {
        if self.passed >= STARVATION_LIMIT {
            self.passed = 0;
            let oldest = (0..self.v.len()).min_by_key(|&i| self.v[i].seq)?;
            return self.remove(oldest);
        }
        let top = self.remove(0)?;
        if !self.v.is_empty() {
            self.passed += 1;
        }
        Some(top)
    }
}

/// Moves the entry at `i` up the heap `v` to its place.
fn sift_up<I>(v: &mut [Entry<I>], mut i: usize) {
    while i > 0 {
        let p = (i - 1) / 2;
        if !v[i].before(&v[p]) {
            break;
        }
        v.swap(i, p);
        i = p;
    }
}

/// Moves the entry at `i` down the heap `v` to its place.
fn sift_down<I>(v: &mut [Entry<I>], mut i: usize) {
    loop {
        let (l, r) = (2 * i + 1, 2 * i + 2);
        let mut best = i;
        if l < v.len() && v[l].before(&v[best]) {
            best = l;
        }
        if r < v.len() && v[r].before(&v[best]) {
            best = r;
        }
        if best == i {
            return;
        }
        v.swap(i, best);
        i = best;
    }
}

/// Per-ring state of a [`ReadySet`].
#[derive(Clone, Copy, Default)]
struct RingState {
    /// Nodes released to the ring and not finished, per class, gang members not included.
    in_flight: [u32; Class::COUNT],
    /// Gang members released to the ring and not finished.
    gang: u32,
    passed_over: [u32; Class::COUNT],
    /// Nodes handed to the ring outside of the set (see [`ReadySet::released_outside`]).
    outside: u32,
}

impl RingState {
    /// The nodes released to the ring and not finished.
    fn total(&self) -> u32 {
        self.in_flight.iter().sum::<u32>() + self.gang
    }

    /// The nodes released to the ring and not finished that a node of class `c` waits for in
    /// the window: gang members and the nodes of class `c` and the more urgent classes.
    fn ahead_of(&self, c: usize) -> u32 {
        self.in_flight[..=c].iter().sum::<u32>() + self.gang
    }
}

/// What [`ReadySet::next_release`] releases.
#[derive(Debug, PartialEq, Eq)]
pub enum Release<I> {
    /// A node for `ring`.
    Node {
        /// The ring of the node.
        ring: u32,
        /// The item the node was inserted with.
        item: I,
    },
    /// A gang: every ring it uses is idle and now counts one node in flight.
    Gang {
        /// The rings of the gang's members, as a bit mask.
        rings: u64,
        /// The item the gang was inserted with.
        item: I,
    },
}

/// The ready nodes and gangs of a client, and the rings' share of them; see the
/// [module documentation](self).
///
/// `I` is the driver's handle of a ready node or gang.
pub struct ReadySet<I> {
    /// At `ring * Class::COUNT + class`, then the gang queue (kept in readiness order).
    heaps: KVec<Heap<I>>,
    rings: KVec<RingState>,
    window: u32,
    seq: u64,
}

impl<I> ReadySet<I> {
    /// Creates a ready set for `num_rings` rings (at most [`MAX_RINGS`]), each of which is
    /// given at most `window` (at least 1) nodes of a class and the more urgent classes at a
    /// time. Allocates with `flags`.
    pub fn new(num_rings: u32, window: u32, flags: Flags) -> Result<Self> {
        if num_rings == 0 || num_rings > MAX_RINGS || window == 0 {
            return Err(EINVAL);
        }
        let count = num_rings as usize * Class::COUNT + 1;
        let mut heaps = KVec::with_capacity(count, flags)?;
        for _ in 0..count {
            heaps.push(
                Heap {
                    v: KVVec::new(),
                    budget: 0,
                    passed: 0,
                },
                flags,
            )?;
        }
        Ok(Self {
            heaps,
            rings: KVec::from_elem(RingState::default(), num_rings as usize, flags)?,
            window,
            seq: 0,
        })
    }

    fn gang_queue(&self) -> usize {
        self.heaps.len() - 1
    }

    fn need(&self, plan: &Plan, idx: usize) -> usize {
        let extra = if idx == self.gang_queue() {
            plan.gangs.len()
        } else {
            plan.counts.get(idx).map_or(0, |&c| c as usize)
        };
        self.heaps[idx].budget + extra
    }

    /// The first heap that is too small to admit `plan`: its index and the capacity it needs.
    ///
    /// The caller allocates that much with [`KVVec::with_capacity`] outside of its lock, hands
    /// it over with [`ReadySet::install`] and asks again, until this returns `None`; then it
    /// calls [`ReadySet::admit`]. Nothing else allocates.
    pub fn shortfall(&self, plan: &Plan) -> Option<(usize, usize)> {
        if plan.num_rings as usize > self.rings.len() {
            return None;
        }
        (0..self.heaps.len())
            .map(|idx| (idx, self.need(plan, idx)))
            .find(|&(idx, need)| self.heaps[idx].v.capacity() < need)
    }

    /// Replaces the storage of heap `idx` with `storage` (empty) if that is larger.
    pub fn install(&mut self, idx: usize, mut storage: KVVec<Entry<I>>) {
        let Some(heap) = self.heaps.get_mut(idx) else {
            return;
        };
        if storage.capacity() <= heap.v.capacity() || storage.capacity() < heap.v.len() {
            return;
        }
        storage.clear();
        for e in heap.v.drain_all() {
            // Cannot fail: the capacity is larger than the length.
            let _ = storage.push_within_capacity(e);
        }
        heap.v = storage;
    }

    /// Accounts for the nodes and gangs of a launch of `plan`; fails with `ENOSPC` if
    /// [`ReadySet::shortfall`] is not `None`, and with `EINVAL` if the plan has more rings.
    pub fn admit(&mut self, plan: &Plan) -> Result {
        if plan.num_rings as usize > self.rings.len() {
            return Err(EINVAL);
        }
        if self.shortfall(plan).is_some() {
            return Err(ENOSPC);
        }
        for idx in 0..self.heaps.len() {
            self.heaps[idx].budget = self.need(plan, idx);
        }
        Ok(())
    }

    /// Undoes [`ReadySet::admit`] once a launch of `plan` has no node left in the set.
    pub fn retire(&mut self, plan: &Plan) {
        let gq = self.gang_queue();
        for idx in 0..self.heaps.len() {
            let extra = if idx == gq {
                plan.gangs.len()
            } else {
                plan.counts.get(idx).map_or(0, |&c| c as usize)
            };
            let heap = &mut self.heaps[idx];
            heap.budget = heap.budget.saturating_sub(extra);
        }
    }

    /// Inserts what became ready in a launch of `plan`, with the driver's handle `item`.
    ///
    /// Fails, returning `item`, only if the launch was not admitted.
    pub fn insert(&mut self, plan: &Plan, ready: Ready, item: I) -> core::result::Result<(), I> {
        self.seq += 1;
        let (idx, rank, rings, class) = match ready {
            Ready::Node(v) => {
                let node = &plan.nodes[v as usize];
                let idx = node.ring as usize * Class::COUNT + node.class.index();
                (idx, node.rank, 1u64 << node.ring, node.class)
            }
            Ready::Gang(g) => {
                let gang = &plan.gangs[g as usize];
                (self.gang_queue(), gang.rank, gang.rings, plan.gang_class(g))
            }
        };
        let entry = Entry {
            rank,
            seq: self.seq,
            rings,
            class,
            item,
        };
        if idx == self.gang_queue() {
            // Gangs are admitted in readiness order: a FIFO, not a heap.
            self.heaps[idx]
                .v
                .push_within_capacity(entry)
                .map_err(|e| e.0.item)
        } else {
            self.heaps[idx].push(entry)
        }
    }

    /// Releases the next node or gang that a ring can take now, if any.
    ///
    /// Call it until it returns `None` after inserting and after [`ReadySet::finished`]. This
    /// is for a set whose rings no other set releases gangs to; otherwise see
    /// [`ReadySet::next_release_gated`].
    pub fn next_release(&mut self) -> Option<Release<I>> {
        self.next_release_gated(|_| true)
    }

    /// Releases the next node or gang that a ring can take now, if any, asking `admit` whether
    /// the gang at the head of the gang queue, whose rings (a bit mask) run no node of the set
    /// that its members would not pass, may go now.
    ///
    /// If `admit` says no, the gang keeps its place and its reservation, and is asked for again
    /// by the next call; see [`GangOrder`].
    pub fn next_release_gated(&mut self, mut admit: impl FnMut(u64) -> bool) -> Option<Release<I>> {
        let gq = self.gang_queue();
        let (reserved, class) = self.heaps[gq]
            .v
            .first()
            .map_or((0, 0), |e| (e.rings, e.class.index()));
        if reserved != 0 {
            // Its members pass the less urgent nodes in flight (see `Plan::gang_class()`).
            let idle = (0..self.rings.len())
                .filter(|r| reserved & (1u64 << r) != 0)
                .all(|r| self.rings[r].ahead_of(class) == 0 && self.rings[r].outside == 0);
            if idle && admit(reserved) {
                let e = self.heaps[gq].v.remove(0).ok()?;
                for r in 0..self.rings.len() {
                    if reserved & (1u64 << r) != 0 {
                        self.rings[r].gang += 1;
                    }
                }
                return Some(Release::Gang {
                    rings: reserved,
                    item: e.item,
                });
            }
        }
        for r in 0..self.rings.len() {
            if reserved & (1u64 << r) != 0 {
                continue;
            }
            if let Some((c, item)) = self.pop_ring(r) {
                self.rings[r].in_flight[c] += 1;
                return Some(Release::Node {
                    ring: r as u32,
                    item,
                });
            }
        }
        None
    }

    /// Pops the next node of ring `r` that its window has room for, by class, rank and the
    /// starvation limit, with its class.
    ///
    /// A class has room while fewer than `window` nodes of it and of the more urgent classes are
    /// in flight: a released node that waits (e.g. a batch node in its entity, behind other
    /// clients' work of a higher priority) holds up the less urgent classes of its client on
    /// the ring, never the more urgent ones. A ready class that only the more urgent classes'
    /// nodes in flight keep out counts as passed over, and once it is due, nothing more urgent
    /// is released to the ring until it has room.
    fn pop_ring(&mut self, r: usize) -> Option<(usize, I)> {
        let base = r * Class::COUNT;
        let state = self.rings[r];
        let ready = |set: &Self, c: usize| !set.heaps[base + c].v.is_empty();
        let can = |set: &Self, c: usize| ready(set, c) && state.ahead_of(c) < set.window;
        // Kept out only by more urgent nodes in flight, not by its own.
        let waits =
            |set: &Self, c: usize| ready(set, c) && state.in_flight[c] + state.gang < set.window;
        let first = (0..Class::COUNT).find(|&c| ready(self, c))?;
        let starved = (first + 1..Class::COUNT)
            .rev()
            .find(|&c| waits(self, c) && state.passed_over[c] >= STARVATION_LIMIT);
        let chosen = match starved {
            Some(c) if can(self, c) => c,
            // Due but without room: what is in flight of the more urgent classes makes room.
            Some(_) => return None,
            None => (0..Class::COUNT).find(|&c| can(self, c))?,
        };
        for c in chosen + 1..Class::COUNT {
            if waits(self, c) {
                self.rings[r].passed_over[c] += 1;
            }
        }
        self.rings[r].passed_over[chosen] = 0;
        self.heaps[base + chosen]
            .pop_aged()
            .map(|e| (chosen, e.item))
    }

    /// Reports that node `v` of a launch of `plan`, released alone or with its gang, finished
    /// (or will never run).
    pub fn finished(&mut self, plan: &Plan, v: u32) {
        let Some(node) = plan.nodes.get(v as usize) else {
            return;
        };
        let Some(state) = self.rings.get_mut(node.ring as usize) else {
            return;
        };
        let count = if node.gang == NO_GANG {
            &mut state.in_flight[node.class.index()]
        } else {
            &mut state.gang
        };
        *count = count.saturating_sub(1);
    }

    /// The number of nodes released to `ring` and not finished.
    pub fn in_flight(&self, ring: u32) -> u32 {
        self.rings.get(ring as usize).map_or(0, RingState::total)
    }

    /// Whether a node of `class` handed to `ring` now, outside of the set, would pass no ready
    /// node: the ring's window has room for the class and no ready node of any class waits for
    /// the ring. A driver that hands nodes to their rings before they are ready
    /// ([`Run::on_rings`]) asks first, so that they only fill what would otherwise be an idle
    /// ring.
    ///
    /// Never while the gang at the head of the gang queue waits for the ring: a gang starts on
    /// idle rings, which a node handed over outside of the set keeps busy until it finished.
    pub fn has_room(&self, ring: u32, class: Class) -> bool {
        let r = ring as usize;
        let Some(state) = self.rings.get(r) else {
            return false;
        };
        let gang_waits = self.heaps[self.gang_queue()]
            .v
            .first()
            .is_some_and(|e| e.rings & (1u64 << r) != 0);
        state.ahead_of(class.index()) < self.window
            && !gang_waits
            && (0..Class::COUNT).all(|c| self.heaps[r * Class::COUNT + c].v.is_empty())
    }

    /// Counts a node handed to `ring` outside of the set, until [`ReadySet::finished_outside`]:
    /// it takes no window of the ring, but a gang waits for it like for a node in flight.
    pub fn released_outside(&mut self, ring: u32) {
        if let Some(state) = self.rings.get_mut(ring as usize) {
            state.outside += 1;
        }
    }

    /// A node handed to `ring` outside of the set finished.
    pub fn finished_outside(&mut self, ring: u32) {
        if let Some(state) = self.rings.get_mut(ring as usize) {
            state.outside = state.outside.saturating_sub(1);
        }
    }

    /// Removes every entry for which `f` returns `true`, e.g. those of a cancelled launch.
    pub fn remove_if(&mut self, mut f: impl FnMut(&I) -> bool) {
        let gq = self.gang_queue();
        for (idx, heap) in self.heaps.iter_mut().enumerate() {
            if heap.v.iter().all(|e| !f(&e.item)) {
                continue;
            }
            heap.v.retain(|e| !f(&e.item));
            if idx != gq {
                // Restore the heap order, bottom-up, O(n).
                for i in (0..heap.v.len() / 2).rev() {
                    sift_down(&mut heap.v, i);
                }
            }
        }
    }
}

/// A client waiting in a [`GangOrder`].
pub struct Waiter<K> {
    client: K,
    /// The rings of the client's gang, as a bit mask.
    rings: u64,
    /// Whether the gang has been admitted and holds its rings, until the client asks again.
    granted: bool,
}

/// The device-wide order in which the gangs of all clients of a set of rings are admitted.
///
/// A [`ReadySet`] admits the gangs of one client in order, but clients share the rings: if two
/// clients released gangs onto the same rings at the same time, one ring could run a member of
/// the first and hold the second behind it while another ring does the opposite, and neither
/// gang would ever start. A `GangOrder`, shared by the ready sets of all clients under a lock of
/// the driver, admits gangs in one order for the whole device:
///
/// - An admitted gang *holds* its rings until all of its members have started or it has been
///   cancelled ([`GangOrder::started`]). Gangs that hold rings at the same time share none, so
///   each of them reaches the head of each of its rings after a finite amount of work that does
///   not wait for a gang, and starts. For that amount to be finite, the driver pushes the
///   members with the priority of [`Plan::gang_class`], which no work of a less urgent class
///   passes.
/// - A gang that cannot be admitted when its client asks ([`GangOrder::admit`]) waits, and
///   waiting gangs are admitted strictly in the order they asked, each as soon as its rings
///   are no longer held; the client is then told to ask again, and its gang holds the rings
///   from then on. No gang waits for a gang that asked after it, so none starves.
///
/// A client waits with at most one gang at a time (the head of its ready set's gang queue,
/// which keeps its reservation while it waits, see [`ReadySet::next_release_gated`]). `K`
/// identifies a client. Nothing allocates: the room for the clients to wait is allocated by the
/// caller, outside of its lock (see [`GangOrder::add_client`]), so that gangs can be started and
/// cancelled from the fence signalling path.
pub struct GangOrder<K> {
    /// The rings held by admitted gangs that have not started.
    held: u64,
    /// In the order the clients asked.
    waiting: KVec<Waiter<K>>,
    clients: usize,
}

impl<K> Default for GangOrder<K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K> GangOrder<K> {
    /// Creates an order without clients.
    pub const fn new() -> Self {
        Self {
            held: 0,
            waiting: KVec::new(),
            clients: 0,
        }
    }

    /// The rings held by admitted gangs that have not started, as a bit mask.
    pub fn held(&self) -> u64 {
        self.held
    }

    /// The number of clients waiting (or admitted and not asked again).
    pub fn waiting(&self) -> usize {
        self.waiting.len()
    }

    /// Adds a client if there is room for it to wait; otherwise returns the room needed.
    ///
    /// The caller then allocates storage of at least that capacity with
    /// [`KVec::with_capacity`] outside of its lock, hands it over with [`GangOrder::grow`] and
    /// tries again.
    pub fn add_client(&mut self) -> core::result::Result<(), usize> {
        let clients = self.clients.saturating_add(1);
        if self.waiting.capacity() < clients {
            return Err(clients);
        }
        self.clients = clients;
        Ok(())
    }

    /// Replaces the storage of the waiting clients with `storage` (empty) if that is larger.
    pub fn grow(&mut self, mut storage: KVec<Waiter<K>>) {
        if storage.capacity() <= self.waiting.capacity() {
            return;
        }
        storage.clear();
        for w in self.waiting.drain_all() {
            // Cannot fail: the capacity is larger than the length.
            let _ = storage.push_within_capacity(w);
        }
        self.waiting = storage;
    }

    /// Removes a client that was added and does not wait (see [`GangOrder::withdraw`]).
    pub fn remove_client(&mut self) {
        self.clients = self.clients.saturating_sub(1);
    }

    /// Gives the rings of an admitted gang back: it started, or it will never start (it was
    /// cancelled). `granted` is called for each client whose gang is admitted as a result.
    pub fn started(&mut self, rings: u64, granted: impl FnMut(&K)) {
        self.held &= !rings;
        self.grant(granted);
    }

    /// Admits the gangs that wait, in order, as long as their rings are free.
    fn grant(&mut self, mut granted: impl FnMut(&K)) {
        let Self { held, waiting, .. } = self;
        for w in waiting.iter_mut().filter(|w| !w.granted) {
            if *held & w.rings != 0 {
                break;
            }
            *held |= w.rings;
            w.granted = true;
            granted(&w.client);
        }
    }
}

impl<K: PartialEq> GangOrder<K> {
    fn position(&self, client: &K) -> Option<usize> {
        self.waiting.iter().position(|w| w.client == *client)
    }

    /// Asks whether a gang of `client` on `rings` (a bit mask) may be released now.
    ///
    /// Returns `true` if it is admitted: it then holds its rings until the driver calls
    /// [`GangOrder::started`]. Returns `false` if it has to wait: `client` is told through the
    /// `granted` callback of a later call once it may ask again, and must then do so.
    pub fn admit(&mut self, client: K, rings: u64) -> bool {
        match self.position(&client) {
            Some(i) if self.waiting[i].granted => {
                // The rings were set aside for the gang that asked; normally it asks again.
                let granted = self.waiting[i].rings;
                self.held &= !granted;
                if self.held & rings == 0 {
                    self.held |= rings;
                    let _ = self.waiting.remove(i);
                    return true;
                }
                // Another gang asks than the one admitted: it goes first of the waiting ones.
                let w = &mut self.waiting[i];
                w.rings = rings;
                w.granted = false;
                self.waiting[..=i].rotate_right(1);
                false
            }
            Some(i) => {
                self.waiting[i].rings = rings;
                false
            }
            None => {
                let first = self.waiting.iter().all(|w| w.granted);
                if first && self.held & rings == 0 {
                    self.held |= rings;
                    return true;
                }
                // Cannot fail: there is room for every client that was added.
                let _ = self.waiting.push_within_capacity(Waiter {
                    client,
                    rings,
                    granted: false,
                });
                false
            }
        }
    }

    /// Withdraws the gang `client` waits with, if any (the client goes away); `granted` is
    /// called as for [`GangOrder::started`].
    pub fn withdraw(&mut self, client: &K, granted: impl FnMut(&K)) {
        if let Some(i) = self.position(client) {
            if let Ok(w) = self.waiting.remove(i) {
                if w.granted {
                    self.held &= !w.rings;
                }
            }
        }
        self.grant(granted);
    }
}

#[kunit_tests(rust_drm_sched_graph)]
mod tests {
    use super::*;

    fn node(ring: u32, class: Class, gang: u32, cost: u64) -> NodeDesc {
        NodeDesc {
            ring,
            class,
            gang,
            cost,
        }
    }

    fn normal(ring: u32, cost: u64) -> NodeDesc {
        node(ring, Class::Normal, 0, cost)
    }

    /// A ready set sized for `plan`, and `plan` admitted to it.
    fn ready_set(plan: &Plan, window: u32) -> Result<ReadySet<Ready>> {
        let mut set = ReadySet::new(plan.num_rings(), window, GFP_KERNEL)?;
        while let Some((idx, need)) = set.shortfall(plan) {
            set.install(idx, KVVec::with_capacity(need, GFP_KERNEL)?);
        }
        set.admit(plan)?;
        Ok(set)
    }

    /// What [`ReadySet::next_release`] returns when it releases node `v` of ring 0.
    fn released_on_0(v: u32) -> Option<Release<Ready>> {
        Some(Release::Node {
            ring: 0,
            item: Ready::Node(v),
        })
    }

    /// The result of [`simulate`].
    struct Sim {
        start: KVec<u64>,
        finish: KVec<u64>,
        released_at: KVec<u64>,
        /// Nodes in the order the ready set released them.
        released: KVec<u32>,
        makespan: u64,
    }

    /// Runs `plan` on simulated rings that execute the nodes they are given in order, node `v`
    /// taking `cost[v]` units of time.
    fn simulate(plan: &Plan, cost: &[u64], window: u32) -> Result<Sim> {
        let n = plan.len();
        let rings = plan.num_rings() as usize;
        let mut set = ready_set(plan, window)?;
        let mut run = Run::new(plan, GFP_KERNEL)?;
        let mut sim = Sim {
            start: KVec::from_elem(u64::MAX, n, GFP_KERNEL)?,
            finish: KVec::from_elem(u64::MAX, n, GFP_KERNEL)?,
            released_at: KVec::from_elem(u64::MAX, n, GFP_KERNEL)?,
            released: KVec::with_capacity(n, GFP_KERNEL)?,
            makespan: 0,
        };
        let mut pending = KVec::with_capacity(n, GFP_KERNEL)?;
        let mut queues = KVec::with_capacity(rings, GFP_KERNEL)?;
        for _ in 0..rings {
            queues.push((KVec::with_capacity(n, GFP_KERNEL)?, 0usize), GFP_KERNEL)?;
        }
        let mut running: KVec<Option<(u32, u64)>> = KVec::from_elem(None, rings, GFP_KERNEL)?;
        let mut t = 0;
        run.start(plan, |r| {
            let _ = pending.push_within_capacity(r);
        });
        loop {
            for r in pending.drain_all() {
                set.insert(plan, r, r).map_err(|_| ENOSPC)?;
            }
            while let Some(release) = set.next_release() {
                let mut give = |v: u32| -> Result {
                    let (queue, _): &mut (KVec<u32>, usize) = &mut queues[plan.ring(v) as usize];
                    queue.push_within_capacity(v).map_err(|_| ENOSPC)?;
                    sim.released_at[v as usize] = t;
                    run.release(plan, v, |r| {
                        let _ = pending.push_within_capacity(r);
                    });
                    sim.released.push_within_capacity(v).map_err(|_| ENOSPC)
                };
                match release {
                    Release::Node {
                        item: Ready::Node(v),
                        ring,
                    } => {
                        assert_eq!(ring, plan.ring(v));
                        give(v)?;
                    }
                    Release::Gang {
                        item: Ready::Gang(g),
                        ..
                    } => {
                        for &m in plan.gang_members(g) {
                            give(m)?;
                        }
                    }
                    _ => return Err(EINVAL),
                }
            }
            // Idle rings start their heads; a gang starts once all its members are heads, as
            // the driver's start barrier has them.
            for r in 0..rings {
                let (queue, head) = &queues[r];
                let Some(&v) = queue.get(*head) else {
                    continue;
                };
                if running[r].is_some() {
                    continue;
                }
                let members: &[u32] = match plan.gang_of(v) {
                    Some(g) => plan.gang_members(g),
                    None => core::slice::from_ref(&v),
                };
                let all_there = members.iter().all(|&m| {
                    let mr = plan.ring(m) as usize;
                    running[mr].is_none() && queues[mr].0.get(queues[mr].1) == Some(&m)
                });
                if !all_there {
                    continue;
                }
                for &m in members {
                    let mr = plan.ring(m) as usize;
                    queues[mr].1 += 1;
                    sim.start[m as usize] = t;
                    running[mr] = Some((m, t + cost[m as usize]));
                }
            }
            let Some(next) = running.iter().flatten().map(|&(_, end)| end).min() else {
                break;
            };
            t = next;
            for r in 0..rings {
                if let Some((v, end)) = running[r] {
                    if end == t {
                        running[r] = None;
                        sim.finish[v as usize] = t;
                        set.finished(plan, v);
                        run.complete(plan, v, |r| {
                            let _ = pending.push_within_capacity(r);
                        });
                    }
                }
            }
        }
        sim.makespan = t;
        assert_eq!(run.left(), 0);
        set.retire(plan);
        Ok(sim)
    }

    #[test]
    fn ranks_and_depths() -> Result {
        // 0 -> 1 -> 3, 0 -> 2 -> 3
        let nodes = [normal(0, 1), normal(0, 5), normal(1, 2), normal(1, 1)];
        let plan = Plan::new(&nodes, &[(0, 1), (0, 2), (1, 3), (2, 3)], 2, GFP_KERNEL)?;
        assert_eq!(
            [plan.rank(0), plan.rank(1), plan.rank(2), plan.rank(3)],
            [7, 6, 3, 1]
        );
        assert_eq!(
            [plan.depth(0), plan.depth(1), plan.depth(2), plan.depth(3)],
            [1, 2, 2, 3]
        );
        assert_eq!(plan.critical_path(), 7);
        assert_eq!(plan.indegree(3), 2);
        assert_eq!(plan.succ(0), &[1, 2]);
        assert_eq!(plan.sources(), &[0]);
        assert_eq!(plan.topo_order(), &[0, 1, 2, 3]);

        // A chain with a fan-out: the rank follows the longer branch.
        let nodes = [normal(0, 3), normal(0, 1), normal(0, 10), normal(0, 2)];
        let plan = Plan::new(&nodes, &[(0, 1), (0, 2), (2, 3)], 1, GFP_KERNEL)?;
        assert_eq!(plan.rank(0), 15);
        assert_eq!(plan.depth(3), 3);
        Ok(())
    }

    #[test]
    fn rejects_bad_graphs() -> Result {
        let two = [normal(0, 1), normal(1, 1)];
        let err = |r: Result<Plan>| r.err().map(|e| e.to_errno());
        assert_eq!(
            err(Plan::new(&two, &[(0, 0)], 2, GFP_KERNEL)),
            Some(EINVAL.to_errno())
        );
        assert_eq!(
            err(Plan::new(&two, &[(0, 1), (0, 1)], 2, GFP_KERNEL)),
            Some(EINVAL.to_errno())
        );
        assert_eq!(
            err(Plan::new(&two, &[(0, 2)], 2, GFP_KERNEL)),
            Some(EINVAL.to_errno())
        );
        assert_eq!(
            err(Plan::new(&two, &[], 1, GFP_KERNEL)),
            Some(EINVAL.to_errno())
        );
        assert_eq!(
            err(Plan::new(&two, &[(0, 1), (1, 0)], 2, GFP_KERNEL)),
            Some(ELOOP.to_errno())
        );

        // Two members of a gang on one ring.
        let same = [node(0, Class::Normal, 7, 1), node(0, Class::Normal, 7, 1)];
        assert_eq!(
            err(Plan::new(&same, &[], 2, GFP_KERNEL)),
            Some(EINVAL.to_errno())
        );

        // A member waits for another member of its gang, through a third node.
        let nodes = [
            node(0, Class::Normal, 1, 1),
            normal(2, 1),
            node(1, Class::Normal, 1, 1),
        ];
        assert_eq!(
            err(Plan::new(&nodes, &[(0, 1), (1, 2)], 3, GFP_KERNEL)),
            Some(EDEADLK.to_errno())
        );

        // Two gangs wait for each other.
        let nodes = [
            node(0, Class::Normal, 1, 1),
            node(1, Class::Normal, 1, 1),
            node(0, Class::Normal, 2, 1),
            node(1, Class::Normal, 2, 1),
        ];
        assert_eq!(
            err(Plan::new(&nodes, &[(0, 2), (3, 1)], 2, GFP_KERNEL)),
            Some(EDEADLK.to_errno())
        );
        // The same gangs in one direction are fine.
        let plan = Plan::new(&nodes, &[(0, 2), (1, 3)], 2, GFP_KERNEL)?;
        assert_eq!(plan.num_gangs(), 2);
        assert_eq!(plan.gang_members(1), &[2, 3]);
        Ok(())
    }

    #[test]
    fn urgent_node_overtakes_queued_work() -> Result {
        // Ring 0 has two short, independent nodes (0, 1) and node 2, which waits for node 3 on
        // ring 1 and heads a long chain (node 4). Pushed in this order into a FIFO, node 2 would
        // start after node 1; released by rank it starts as soon as it is ready.
        let nodes = [
            normal(0, 1),
            normal(0, 1),
            normal(0, 1),
            normal(1, 1),
            normal(1, 100),
        ];
        let plan = Plan::new(&nodes, &[(3, 2), (2, 4)], 2, GFP_KERNEL)?;
        let sim = simulate(&plan, &[1, 1, 1, 1, 100], 1)?;
        assert_eq!(sim.start[2], 1);
        assert_eq!(sim.start[1], 2);
        assert_eq!(sim.makespan, 102);
        assert_eq!(sim.released[..2], [0, 3]);
        Ok(())
    }

    #[test]
    fn blocked_node_blocks_nothing() -> Result {
        // Node 0 on ring 0 waits for node 1 (ring 1, long); node 2 on ring 0 is independent.
        let nodes = [normal(0, 1), normal(1, 10), normal(0, 5)];
        let plan = Plan::new(&nodes, &[(1, 0)], 2, GFP_KERNEL)?;
        let sim = simulate(&plan, &[1, 10, 5], 2)?;
        assert_eq!(sim.start[2], 0);
        assert_eq!(sim.start[0], 10);
        assert_eq!(sim.makespan, plan.critical_path());
        Ok(())
    }

    #[test]
    fn pipelined_chain() -> Result {
        // A chain on ring 0: node 1 (same class) is released with node 0 and runs right after
        // it; node 2 (another class) waits until node 1 has finished.
        let nodes = [
            normal(0, 5),
            normal(0, 5),
            node(0, Class::Batch, 0, 5),
            normal(1, 1),
        ];
        let plan = Plan::new(&nodes, &[(0, 1), (1, 2), (3, 1)], 2, GFP_KERNEL)?;
        assert!(plan.pipelined(0, 1));
        assert!(!plan.pipelined(1, 2));
        assert!(!plan.pipelined(3, 1));
        assert_eq!(plan.pipelined_preds(1), 1);
        assert_eq!(plan.pipelined_preds(2), 0);
        let sim = simulate(&plan, &[5, 5, 5, 1], 2)?;
        // Node 1 also waits for node 3 on ring 1, which finishes at 1.
        assert_eq!(sim.released_at[1], 1);
        assert_eq!(sim.start[1], 5);
        assert_eq!(sim.released_at[2], 10);
        assert_eq!(sim.start[2], 10);
        assert_eq!(sim.makespan, 15);
        Ok(())
    }

    #[test]
    fn on_rings() -> Result {
        // Node 1 (ring 1) waits for nodes 0 (ring 0) and 2 (ring 2); node 3 (ring 1) for node 0
        // and an outside event; node 4 follows node 0 on its ring (pipelined); node 5, a gang
        // member with node 6, waits for node 0.
        let nodes = [
            normal(0, 5),
            normal(1, 5),
            normal(2, 5),
            normal(1, 5),
            normal(0, 5),
            node(1, Class::Normal, 1, 5),
            node(2, Class::Normal, 1, 5),
        ];
        let plan = Plan::new(
            &nodes,
            &[(0, 1), (2, 1), (0, 3), (0, 4), (0, 5)],
            3,
            GFP_KERNEL,
        )?;
        let mut run = Run::new(&plan, GFP_KERNEL)?;
        run.add_wait(3);
        let mut ready = KVec::new();
        let mut collect = |r| {
            let _ = ready.push(r, GFP_KERNEL);
        };
        run.start(&plan, &mut collect);
        let on_rings = |run: &Run| (0..7).filter(|&v| run.on_rings(&plan, v)).count();
        // Sources and ready nodes are never on their rings' waits; nothing else is yet.
        assert_eq!(on_rings(&run), 0);

        run.release(&plan, 0, &mut collect);
        // Node 4 is ready behind node 0; node 1 still waits for node 2, node 3 for its event,
        // and node 5 starts with its gang.
        assert_eq!(on_rings(&run), 0);
        run.release(&plan, 2, &mut collect);
        assert!(run.on_rings(&plan, 1));
        run.resolve(&plan, 3, &mut collect);
        assert!(run.on_rings(&plan, 3));
        assert_eq!(on_rings(&run), 2);

        // Completing node 2 leaves node 1 waiting for node 0, which is on its ring.
        run.complete(&plan, 2, &mut collect);
        assert!(run.on_rings(&plan, 1));
        // Once node 0 has finished, nodes 1 and 3 are ready instead.
        run.complete(&plan, 0, &mut collect);
        assert_eq!(on_rings(&run), 0);
        assert_eq!(
            ready.as_slice(),
            &[
                Ready::Node(0),
                Ready::Node(2),
                Ready::Node(4),
                Ready::Node(1),
                Ready::Node(3),
                Ready::Gang(0),
            ]
        );
        Ok(())
    }

    #[test]
    fn on_rings_after_early_release() -> Result {
        // A chain over three rings, and node 3 after node 1 on its ring (pipelined).
        let nodes = [normal(0, 5), normal(1, 5), normal(2, 5), normal(1, 5)];
        let plan = Plan::new(&nodes, &[(0, 1), (1, 2), (1, 3)], 3, GFP_KERNEL)?;
        let mut run = Run::new(&plan, GFP_KERNEL)?;
        let mut ready = KVec::new();
        let mut collect = |r| {
            let _ = ready.push(r, GFP_KERNEL);
        };
        run.start(&plan, &mut collect);
        run.release(&plan, 0, &mut collect);
        assert!(run.on_rings(&plan, 1));
        run.release_early(&plan, 1);
        // Node 2 waits only for node 1, which is on its ring now, node 3 too; node 1 is not a
        // candidate any more.
        assert!(!run.on_rings(&plan, 1));
        assert!(run.on_rings(&plan, 2));
        assert!(run.on_rings(&plan, 3));
        // Node 1 is ready once node 0 has finished, and its successors once it has, the
        // pipelined one included, as it was not released.
        run.complete(&plan, 0, &mut collect);
        run.complete(&plan, 1, &mut collect);
        assert!(!run.on_rings(&plan, 2) && !run.on_rings(&plan, 3));
        assert_eq!(
            ready.as_slice(),
            &[
                Ready::Node(0),
                Ready::Node(1),
                Ready::Node(2),
                Ready::Node(3)
            ]
        );
        Ok(())
    }

    #[test]
    fn room_for_early_nodes() -> Result {
        // Three ready nodes on ring 0, with a window of two.
        let nodes = [normal(0, 5), normal(0, 5), normal(0, 5), normal(1, 5)];
        let plan = Plan::new(&nodes, &[], 2, GFP_KERNEL)?;
        let mut set = ready_set(&plan, 2)?;
        assert!(set.has_room(0, Class::Normal) && set.has_room(1, Class::Normal));
        assert!(!set.has_room(2, Class::Normal));
        for v in 0..3 {
            set.insert(&plan, Ready::Node(v), Ready::Node(v))
                .map_err(|_| EINVAL)?;
        }
        // Ready nodes wait for ring 0.
        assert!(!set.has_room(0, Class::Normal));
        assert!(set.next_release().is_some());
        assert!(set.next_release().is_some());
        // The window is full, and one node still waits.
        assert!(!set.has_room(0, Class::Normal));
        set.finished(&plan, 0);
        assert!(set.next_release().is_some());
        // Nothing waits, but the window is full again.
        assert!(!set.has_room(0, Class::Normal));
        set.finished(&plan, 1);
        assert!(set.has_room(0, Class::Normal));
        assert!(set.has_room(1, Class::Normal));
        Ok(())
    }

    #[test]
    fn gang_waits_for_nodes_outside() -> Result {
        // A gang on rings 0 and 1; ring 1 runs a node handed to it outside of the set.
        let nodes = [node(0, Class::Normal, 1, 5), node(1, Class::Normal, 1, 5)];
        let plan = Plan::new(&nodes, &[], 3, GFP_KERNEL)?;
        let mut set = ready_set(&plan, 2)?;
        set.released_outside(1);
        set.insert(&plan, Ready::Gang(0), Ready::Gang(0))
            .map_err(|_| EINVAL)?;
        // The gang waits for ring 1 to be idle, and no node goes outside onto its rings
        // meanwhile; ring 2 is not the gang's.
        assert!(set.next_release().is_none());
        assert!(!set.has_room(0, Class::Normal) && !set.has_room(1, Class::Normal));
        assert!(set.has_room(2, Class::Normal));
        set.finished_outside(1);
        assert_eq!(
            set.next_release(),
            Some(Release::Gang {
                rings: 0b11,
                item: Ready::Gang(0)
            })
        );
        Ok(())
    }

    #[test]
    fn on_rings_after_unreleased_completion() -> Result {
        // A predecessor that completes without being released to its ring (e.g. with the error
        // of its own predecessor) no longer holds its successor off its ring.
        let nodes = [normal(0, 5), normal(1, 5), normal(2, 5)];
        let plan = Plan::new(&nodes, &[(0, 1), (2, 1)], 3, GFP_KERNEL)?;
        let mut run = Run::new(&plan, GFP_KERNEL)?;
        run.start(&plan, |_| {});
        run.complete(&plan, 0, |_| {});
        assert!(!run.on_rings(&plan, 1));
        run.release(&plan, 2, |_| {});
        assert!(run.on_rings(&plan, 1));
        // Released later all the same, the completed node is not counted twice.
        run.release(&plan, 0, |_| {});
        assert!(run.on_rings(&plan, 1));
        run.complete(&plan, 2, |_| {});
        assert!(!run.on_rings(&plan, 1));
        Ok(())
    }

    #[test]
    fn class_order() -> Result {
        // Independent nodes on one ring; the batch ones have the highest ranks.
        let nodes = [
            node(0, Class::Batch, 0, 50),
            node(0, Class::Batch, 0, 40),
            node(0, Class::Normal, 0, 2),
            node(0, Class::Latency, 0, 1),
            node(0, Class::Normal, 0, 3),
        ];
        let plan = Plan::new(&nodes, &[], 1, GFP_KERNEL)?;
        let cost = [50, 40, 2, 1, 3];
        let sim = simulate(&plan, &cost, 1)?;
        assert_eq!(sim.released[..], [3, 4, 2, 0, 1]);
        Ok(())
    }

    #[test]
    fn no_starvation() -> Result {
        // A steady supply of latency work (and normal work) on one ring: each batch node is
        // still released within `STARVATION_LIMIT + 2` releases of becoming ready, counted
        // while its class has room in the window; while a batch node is in flight, the more
        // urgent classes fill theirs.
        for with_normal in [false, true] {
            let mut nodes = KVec::new();
            nodes.push(node(0, Class::Batch, 0, 1), GFP_KERNEL)?;
            nodes.push(node(0, Class::Batch, 0, 1), GFP_KERNEL)?;
            for i in 0..40 {
                let class = if with_normal && i % 2 == 1 {
                    Class::Normal
                } else {
                    Class::Latency
                };
                nodes.push(node(0, class, 0, 1), GFP_KERNEL)?;
            }
            let plan = Plan::new(&nodes, &[], 1, GFP_KERNEL)?;
            let cost = KVec::from_elem(1u64, nodes.len(), GFP_KERNEL)?;
            let sim = simulate(&plan, &cost, 1)?;
            let first = sim.released.iter().position(|&v| v < 2).ok_or(EINVAL)?;
            let second = sim.released.iter().rposition(|&v| v < 2).ok_or(EINVAL)?;
            let bound = (STARVATION_LIMIT + 2) as usize;
            assert!(first <= bound);
            // At most one release of each more urgent class while the first is in flight.
            let in_flight = Class::COUNT - 1;
            assert!(second - first <= bound + in_flight);
            if !with_normal {
                assert_eq!(first, STARVATION_LIMIT as usize);
            }
            // The latency work still comes first.
            assert!(Class::Latency == plan.class(sim.released[0]));
        }
        Ok(())
    }

    #[test]
    fn no_starvation_within_a_class() -> Result {
        // Node 0 (rank 1) is ready from the start; a chain of 40 nodes of its class on its ring
        // has higher ranks, and each link becomes ready as the one before it is released. By
        // rank alone node 0 would go last; by age it goes once `STARVATION_LIMIT` links passed
        // it, in every class and with more older nodes waiting before it.
        for class in [Class::Latency, Class::Normal, Class::Batch] {
            for older in 0..3usize {
                let mut nodes = KVec::new();
                let mut edges = KVec::new();
                for _ in 0..=older {
                    nodes.push(node(0, class, 0, 1), GFP_KERNEL)?;
                }
                for i in 0..40 {
                    let v = nodes.len() as u32;
                    nodes.push(node(0, class, 0, 1), GFP_KERNEL)?;
                    if i > 0 {
                        edges.push((v - 1, v), GFP_KERNEL)?;
                    }
                }
                let plan = Plan::new(&nodes, &edges, 1, GFP_KERNEL)?;
                let cost = KVec::from_elem(1u64, nodes.len(), GFP_KERNEL)?;
                let sim = simulate(&plan, &cost, 1)?;
                let last = (0..=older as u32)
                    .filter_map(|v| sim.released.iter().position(|&w| w == v))
                    .max()
                    .ok_or(EINVAL)?;
                let bound = (older + 1) * (STARVATION_LIMIT as usize + 1);
                assert!(last < bound);
            }
        }
        Ok(())
    }

    #[test]
    fn waiting_nodes_hold_up_no_more_urgent_class() -> Result {
        // Two batch nodes fill ring 0's window and stay in flight: their jobs wait, e.g. in a
        // low-priority entity behind other clients' work.
        let nodes = [
            node(0, Class::Batch, 0, 5),
            node(0, Class::Batch, 0, 5),
            node(0, Class::Normal, 0, 5),
            node(0, Class::Latency, 0, 5),
            node(0, Class::Batch, 0, 5),
        ];
        let plan = Plan::new(&nodes, &[], 1, GFP_KERNEL)?;
        let mut set = ready_set(&plan, 2)?;
        for v in 0..2 {
            set.insert(&plan, Ready::Node(v), Ready::Node(v))
                .map_err(|_| EINVAL)?;
        }
        assert_eq!(set.next_release(), released_on_0(0));
        assert_eq!(set.next_release(), released_on_0(1));
        assert_eq!(set.next_release(), None);
        for v in 2..5 {
            set.insert(&plan, Ready::Node(v), Ready::Node(v))
                .map_err(|_| EINVAL)?;
        }
        // The more urgent classes still have room; the third batch node waits for its own.
        assert_eq!(set.next_release(), released_on_0(3));
        assert_eq!(set.next_release(), released_on_0(2));
        assert_eq!(set.next_release(), None);
        assert_eq!(set.in_flight(0), 4);
        // Batch nodes wait for the more urgent nodes in flight too.
        set.finished(&plan, 0);
        set.finished(&plan, 1);
        assert_eq!(set.next_release(), None);
        set.finished(&plan, 3);
        assert_eq!(set.next_release(), released_on_0(4));
        Ok(())
    }

    #[test]
    fn gang_passes_less_urgent_nodes_in_flight() -> Result {
        // A batch node in flight on ring 0 (waiting, e.g., in its entity behind other clients'
        // work), then a gang of batch members on rings 0 and 1, whose members are pushed with
        // the normal class and pass it; a normal node in flight holds the gang back.
        let nodes = [
            node(0, Class::Batch, 0, 5),
            node(0, Class::Batch, 1, 5),
            node(1, Class::Batch, 1, 5),
            node(1, Class::Normal, 0, 5),
        ];
        let plan = Plan::new(&nodes, &[], 2, GFP_KERNEL)?;
        assert_eq!(plan.gang_class(0), Class::Normal);
        let mut set = ready_set(&plan, 2)?;
        for r in [Ready::Node(0), Ready::Node(3)] {
            set.insert(&plan, r, r).map_err(|_| EINVAL)?;
        }
        assert!(set.next_release().is_some());
        assert!(set.next_release().is_some());
        set.insert(&plan, Ready::Gang(0), Ready::Gang(0))
            .map_err(|_| EINVAL)?;
        assert_eq!(set.next_release(), None);
        set.finished(&plan, 3);
        assert_eq!(
            set.next_release(),
            Some(Release::Gang {
                rings: 0b11,
                item: Ready::Gang(0)
            })
        );
        assert_eq!(set.in_flight(0), 2);
        Ok(())
    }

    #[test]
    fn due_class_waits_for_room_not_for_ever() -> Result {
        // A normal node in flight and a stream of latency nodes, one always in flight, fill
        // ring 0's window of two for the batch node; once it is due, the latency nodes wait
        // until it has room.
        let mut nodes = KVec::with_capacity(2 + 16, GFP_KERNEL)?;
        nodes.push(node(0, Class::Normal, 0, 5), GFP_KERNEL)?;
        nodes.push(node(0, Class::Batch, 0, 5), GFP_KERNEL)?;
        for _ in 0..16 {
            nodes.push(node(0, Class::Latency, 0, 5), GFP_KERNEL)?;
        }
        let plan = Plan::new(&nodes, &[], 1, GFP_KERNEL)?;
        let mut set = ready_set(&plan, 2)?;
        for v in [0, 1, 2] {
            set.insert(&plan, Ready::Node(v), Ready::Node(v))
                .map_err(|_| EINVAL)?;
        }
        // Both pass the batch node.
        assert_eq!(set.next_release(), released_on_0(2));
        assert_eq!(set.next_release(), released_on_0(0));
        let (mut passed, mut last) = (2, 2);
        for v in 3..18 {
            set.insert(&plan, Ready::Node(v), Ready::Node(v))
                .map_err(|_| EINVAL)?;
            match set.next_release() {
                None => break,
                r => assert_eq!(r, released_on_0(v)),
            }
            set.finished(&plan, last);
            (passed, last) = (passed + 1, v);
        }
        assert_eq!(passed, STARVATION_LIMIT);
        // The latency node in flight finishes: the batch node goes, before the waiting one.
        set.finished(&plan, last);
        assert_eq!(set.next_release(), released_on_0(1));
        Ok(())
    }

    /// A seeded xorshift64 generator.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        /// A number below `n`, 0 if `n` is 0: without the division's panic path, which
        /// objtool does not know as a no-return call.
        fn below(&mut self, n: u64) -> u64 {
            self.next().checked_rem(n).unwrap_or(0)
        }
    }

    /// A plan, its edges and the cost of each node.
    type PlanEdgesCost = (Plan, KVec<(u32, u32)>, KVec<u64>);

    /// A random layered graph on `rings` rings with gangs over the first rings of some layers.
    fn random_plan(rng: &mut Rng, rings: u32) -> Result<PlanEdgesCost> {
        let layers = 2 + rng.below(4) as usize;
        let mut nodes = KVec::new();
        let mut layer_of = KVec::new();
        let mut next_gang = 1;
        for layer in 0..layers {
            let width = 1 + rng.below(4) as u32;
            // Maybe a gang over the first rings of this layer.
            let gang_size = if rng.below(2) == 0 {
                2 + rng.below(u64::from(rings) - 1) as u32
            } else {
                0
            };
            for i in 0..width.max(gang_size) {
                let (ring, gang) = if i < gang_size {
                    (i, next_gang)
                } else {
                    (rng.below(u64::from(rings)) as u32, 0)
                };
                let class = match rng.below(3) {
                    0 => Class::Latency,
                    1 => Class::Normal,
                    _ => Class::Batch,
                };
                nodes.push(node(ring, class, gang, 1 + rng.below(10)), GFP_KERNEL)?;
                layer_of.push(layer, GFP_KERNEL)?;
            }
            if gang_size > 0 {
                next_gang += 1;
            }
        }
        let mut edges = KVec::new();
        for v in 0..nodes.len() {
            for w in 0..nodes.len() {
                if layer_of[v] < layer_of[w] && rng.below(4) == 0 {
                    edges.push((v as u32, w as u32), GFP_KERNEL)?;
                }
            }
        }
        let mut cost = KVec::with_capacity(nodes.len(), GFP_KERNEL)?;
        for d in nodes.iter() {
            cost.push(d.cost, GFP_KERNEL)?;
        }
        Ok((Plan::new(&nodes, &edges, rings, GFP_KERNEL)?, edges, cost))
    }

    #[test]
    fn random_gangs_start_together() -> Result {
        const CASES: u32 = 2000;
        let mut rng = Rng(0x7a5_9e37_79b9_7f4a);
        let mut gangs_seen = 0;
        for _ in 0..CASES {
            let rings = 2 + rng.below(3) as u32;
            let (plan, edges, cost) = random_plan(&mut rng, rings)?;
            let window = 1 + rng.below(2) as u32;
            let sim = simulate(&plan, &cost, window)?;

            // Everything ran, after its dependencies.
            assert!(sim.finish.iter().all(|&f| f != u64::MAX));
            for &(v, w) in edges.iter() {
                assert!(sim.start[w as usize] >= sim.finish[v as usize]);
            }
            assert!(sim.makespan >= plan.critical_path());
            // All members of a gang started at the same time.
            for g in 0..plan.num_gangs() as u32 {
                let members = plan.gang_members(g);
                let t = sim.start[members[0] as usize];
                assert!(members.iter().all(|&m| sim.start[m as usize] == t));
                gangs_seen += 1;
            }
        }
        assert!(gangs_seen > CASES as usize / 2);
        Ok(())
    }

    /// A client of [`simulate_clients`].
    struct Client {
        plan: Plan,
        edges: KVec<(u32, u32)>,
        cost: KVec<u64>,
        set: ReadySet<Ready>,
        run: Run,
        pending: KVec<Ready>,
        start: KVec<u64>,
        finish: KVec<u64>,
    }

    /// Runs the plans of several clients on shared simulated rings, each client with its own
    /// ready set, and gangs ordered by a [`GangOrder`] if `gated`. A ring executes what it is
    /// given in order, except that a gang member at its head waits (and holds the ring) until
    /// every member of its gang is at the head of its ring; the members of a gang released at
    /// the same time as other nodes are pushed to their rings in an order picked by `rng`, as
    /// concurrent clients would. Returns whether everything completed: `false` if the rings
    /// came to a halt with work left.
    fn simulate_clients(
        clients: &mut [Client],
        rings: usize,
        gated: bool,
        rng: &mut Rng,
    ) -> Result<bool> {
        let mut order = GangOrder::<usize>::new();
        order.grow(KVec::with_capacity(clients.len(), GFP_KERNEL)?);
        for client in clients.iter_mut() {
            order.add_client().map_err(|_| ENOMEM)?;
            let c = client;
            c.run.start(&c.plan, |r| {
                let _ = c.pending.push_within_capacity(r);
            });
        }
        let mut queues = KVec::with_capacity(rings, GFP_KERNEL)?;
        for _ in 0..rings {
            queues.push((KVec::new(), 0usize), GFP_KERNEL)?;
        }
        let mut running: KVec<Option<(usize, u32, u64)>> =
            KVec::from_elem(None, rings, GFP_KERNEL)?;
        let mut t = 0;
        loop {
            // Every client releases what it can.
            let mut pushes: KVec<(usize, u32)> = KVec::new();
            for (ci, c) in clients.iter_mut().enumerate() {
                for r in c.pending.drain_all() {
                    c.set.insert(&c.plan, r, r).map_err(|_| ENOSPC)?;
                }
                loop {
                    let release = if gated {
                        c.set.next_release_gated(|rings| order.admit(ci, rings))
                    } else {
                        c.set.next_release()
                    };
                    let Some(release) = release else {
                        break;
                    };
                    let mut give = |v: u32| -> Result {
                        pushes.push((ci, v), GFP_KERNEL)?;
                        c.run.release(&c.plan, v, |r| {
                            let _ = c.pending.push_within_capacity(r);
                        });
                        Ok(())
                    };
                    match release {
                        Release::Node {
                            item: Ready::Node(v),
                            ..
                        } => give(v)?,
                        Release::Gang {
                            item: Ready::Gang(g),
                            ..
                        } => {
                            for &m in c.plan.gang_members(g) {
                                give(m)?;
                            }
                        }
                        _ => return Err(EINVAL),
                    }
                }
            }
            // In an order picked at random.
            for i in (1..pushes.len()).rev() {
                pushes.swap(i, rng.below(i as u64 + 1) as usize);
            }
            for &(ci, v) in pushes.iter() {
                let ring = clients[ci].plan.ring(v) as usize;
                queues[ring].0.push((ci, v), GFP_KERNEL)?;
            }
            if !pushes.is_empty() {
                continue;
            }

            // Idle rings start their heads; a gang starts once all its members are heads.
            let head = |queues: &KVec<(KVec<(usize, u32)>, usize)>, r: usize| {
                let (queue, h) = &queues[r];
                queue.get(*h).copied()
            };
            let mut started = false;
            for r in 0..rings {
                if running[r].is_some() {
                    continue;
                }
                let Some((ci, v)) = head(&queues, r) else {
                    continue;
                };
                let plan = &clients[ci].plan;
                let members: &[u32] = match plan.gang_of(v) {
                    Some(g) => plan.gang_members(g),
                    None => core::slice::from_ref(&v),
                };
                let all_there = members.iter().all(|&m| {
                    let mr = plan.ring(m) as usize;
                    running[mr].is_none() && head(&queues, mr) == Some((ci, m))
                });
                if !all_there {
                    continue;
                }
                let mut gang_rings = 0;
                for &m in members {
                    let mr = plan.ring(m) as usize;
                    queues[mr].1 += 1;
                    running[mr] = Some((ci, m, t + clients[ci].cost[m as usize]));
                    clients[ci].start[m as usize] = t;
                    gang_rings |= 1u64 << mr;
                }
                if members.len() > 1 {
                    order.started(gang_rings, |_| {});
                }
                started = true;
            }
            if started {
                continue;
            }

            let Some(next) = running.iter().flatten().map(|&(_, _, end)| end).min() else {
                // Nothing runs: either everything is done or the rings are stuck.
                return Ok(clients.iter().all(|c| c.run.left() == 0));
            };
            t = next;
            for r in 0..rings {
                if let Some((ci, v, end)) = running[r] {
                    if end == t {
                        running[r] = None;
                        let c = &mut clients[ci];
                        c.finish[v as usize] = t;
                        c.set.finished(&c.plan, v);
                        c.run.complete(&c.plan, v, |r| {
                            let _ = c.pending.push_within_capacity(r);
                        });
                    }
                }
            }
        }
    }

    #[test]
    fn gang_order() -> Result {
        let mut order = GangOrder::<u32>::new();
        assert_eq!(order.add_client(), Err(1));
        order.grow(KVec::with_capacity(2, GFP_KERNEL)?);
        assert_eq!(order.add_client(), Ok(()));
        assert_eq!(order.add_client(), Ok(()));
        assert_eq!(order.add_client(), Err(3));
        order.grow(KVec::with_capacity(3, GFP_KERNEL)?);
        assert_eq!(order.add_client(), Ok(()));
        let mut granted = KVec::with_capacity(8, GFP_KERNEL)?;
        let mut note = |c: &u32| {
            let _ = granted.push_within_capacity(*c);
        };
        assert!(order.admit(1, 0b011));
        assert!(!order.admit(2, 0b110));
        // Ring 2 is free, but client 2 asked first.
        assert!(!order.admit(3, 0b100));
        assert_eq!(order.waiting(), 2);
        order.started(0b011, &mut note);
        // Client 2 is admitted and holds its rings until it asks again; client 3 still waits.
        assert_eq!(order.held(), 0b110);
        assert!(!order.admit(3, 0b100));
        assert!(order.admit(2, 0b110));
        assert_eq!(order.waiting(), 1);
        // Client 2's gang starts: client 3 is admitted, but goes away before it asks again.
        order.started(0b110, &mut note);
        assert_eq!(order.held(), 0b100);
        assert!(!order.admit(1, 0b101));
        order.withdraw(&3, &mut note);
        assert_eq!(order.held(), 0b101);
        assert!(order.admit(1, 0b101));
        assert_eq!(order.waiting(), 0);
        // A gang on free rings goes at once when nobody waits.
        assert!(order.admit(2, 0b010));
        assert_eq!(order.held(), 0b111);
        assert_eq!(&granted[..], &[2, 3, 1]);
        Ok(())
    }

    #[test]
    fn gangs_of_many_clients_start_together() -> Result {
        const CASES: u32 = 500;
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let mut halted_without_order = 0;
        let mut gangs_seen = 0;
        for _ in 0..CASES {
            let rings = 2 + rng.below(3) as u32;
            let num_clients = 2 + rng.below(3) as usize;
            let window = 1 + rng.below(2) as u32;
            let seed = rng.next();
            // The same clients and push orders with and without the order.
            for gated in [false, true] {
                let mut gen = Rng(seed);
                let mut clients = KVec::with_capacity(num_clients, GFP_KERNEL)?;
                for _ in 0..num_clients {
                    let (plan, edges, cost) = random_plan(&mut gen, rings)?;
                    let n = plan.len();
                    clients.push(
                        Client {
                            set: ready_set(&plan, window)?,
                            run: Run::new(&plan, GFP_KERNEL)?,
                            pending: KVec::with_capacity(n, GFP_KERNEL)?,
                            start: KVec::from_elem(u64::MAX, n, GFP_KERNEL)?,
                            finish: KVec::from_elem(u64::MAX, n, GFP_KERNEL)?,
                            plan,
                            edges,
                            cost,
                        },
                        GFP_KERNEL,
                    )?;
                }
                let completed = simulate_clients(&mut clients, rings as usize, gated, &mut gen)?;
                if !gated {
                    if !completed {
                        halted_without_order += 1;
                    }
                    continue;
                }
                assert!(completed);
                for c in clients.iter() {
                    for &(v, w) in c.edges.iter() {
                        assert!(c.start[w as usize] >= c.finish[v as usize]);
                    }
                    for g in 0..c.plan.num_gangs() as u32 {
                        let members = c.plan.gang_members(g);
                        let t = c.start[members[0] as usize];
                        assert!(members.iter().all(|&m| c.start[m as usize] == t));
                        gangs_seen += 1;
                    }
                }
            }
        }
        // The simulation does catch gangs of different clients holding each other up.
        assert!(halted_without_order > 0);
        assert!(gangs_seen > CASES as usize);
        Ok(())
    }

    #[test]
    fn storage_and_cancellation() -> Result {
        let nodes = [normal(0, 1), normal(0, 2), normal(1, 3)];
        let plan = Plan::new(&nodes, &[], 2, GFP_KERNEL)?;
        let mut set = ReadySet::<u32>::new(2, 1, GFP_KERNEL)?;
        assert_eq!(
            set.admit(&plan).err().map(|e| e.to_errno()),
            Some(ENOSPC.to_errno())
        );
        let mut grown = 0;
        while let Some((idx, need)) = set.shortfall(&plan) {
            set.install(idx, KVVec::with_capacity(need, GFP_KERNEL)?);
            grown += 1;
        }
        assert_eq!(grown, 2);
        set.admit(&plan)?;
        for v in 0..3 {
            assert!(set.insert(&plan, Ready::Node(v), v).is_ok());
        }
        // Not admitted twice: a fourth node has no room.
        assert_eq!(set.insert(&plan, Ready::Node(0), 9), Err(9));
        set.remove_if(|&v| v == 1);
        assert_eq!(set.next_release(), Some(Release::Node { ring: 0, item: 0 }));
        assert_eq!(set.next_release(), Some(Release::Node { ring: 1, item: 2 }));
        assert_eq!(set.next_release(), None);
        assert_eq!(set.in_flight(0), 1);
        set.finished(&plan, 0);
        assert_eq!(set.next_release(), None);
        set.retire(&plan);
        assert!(set.shortfall(&plan).is_none());
        Ok(())
    }
}
