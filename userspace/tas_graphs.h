/* SPDX-License-Identifier: MIT */
/*
 * The C programs' one set of drm/tas wrappers (tas-demo, tas-bench,
 * tas-stress, tas-fuzz, tas-graphs-test): opening the render node, syncobjs,
 * parameters, buffers, graphs, templates and host nodes, and building,
 * submitting and measuring graphs, without libdrm. Frameworks use the Rust
 * library (userspace/tas-rs) or the Python module on top of it instead; the
 * kselftests stay self-contained, as kselftests are.
 */
#ifndef TAS_GRAPHS_H
#define TAS_GRAPHS_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <drm/drm.h>
#include <drm/tas_drm.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

#define TAS_MSEC		1000000ULL
#define TAS_NAME_LEN		24
/* The most rings drm/tas has (its num_rings parameter). */
#define TAS_MAX_RINGS		16

/* A graph being built: nodes are added in a topological order. */
struct tas_graph {
	struct drm_tas_node *nodes;
	struct drm_tas_edge *edges;
	char (*names)[TAS_NAME_LEN];
	unsigned int n, e, max_n, max_e;
	unsigned int num_rings;
};

static inline int tas_graph_init(struct tas_graph *g, unsigned int max_n,
				 unsigned int max_e, unsigned int num_rings)
{
	memset(g, 0, sizeof(*g));
	g->nodes = calloc(max_n, sizeof(*g->nodes));
	g->edges = calloc(max_e ? max_e : 1, sizeof(*g->edges));
	g->names = calloc(max_n, sizeof(*g->names));
	g->max_n = max_n;
	g->max_e = max_e;
	g->num_rings = num_rings ? num_rings : 1;
	return g->nodes && g->edges && g->names ? 0 : -ENOMEM;
}

static inline void tas_graph_free(struct tas_graph *g)
{
	free(g->nodes);
	free(g->edges);
	free(g->names);
	memset(g, 0, sizeof(*g));
}

/*
 * Adds a NOP node; the ring is taken modulo the graph's ring count. Its tag is
 * its index + 1, so that GRAPH_INFO and the trace events name it (0: untagged).
 */
static inline unsigned int tas_graph_node(struct tas_graph *g, unsigned int ring,
					  __u64 duration_ns, const char *name)
{
	struct drm_tas_node *node = &g->nodes[g->n];

	if (g->n == g->max_n)
		abort();
	memset(node, 0, sizeof(*node));
	node->ring = ring % g->num_rings;
	node->op = DRM_TAS_OP_NOP;
	node->duration_ns = duration_ns;
	node->tag = g->n + 1;
	snprintf(g->names[g->n], TAS_NAME_LEN, "%s", name ? name : "");
	return g->n++;
}

static inline void tas_graph_edge(struct tas_graph *g, unsigned int from,
				  unsigned int to)
{
	if (g->e == g->max_e)
		abort();
	g->edges[g->e].from = from;
	g->edges[g->e].to = to;
	g->e++;
}

/* A scandir() filter: the exported graph files, *.tasg. */
static inline int tas_graph_file(const struct dirent *de)
{
	size_t len = strlen(de->d_name);

	return len > 5 && !strcmp(de->d_name + len - 5, ".tasg");
}

/*
 * Loads a graph exported by tools/export-graphs.py (a .tasg file in
 * bench/graphs):
 *
 *   # comments
 *   tas-graph 1 <name> <rings> <nodes> <edges>
 *   n <ring> <duration_ns> <name>	(nodes in a topological order)
 *   e <from> <to>			(from < to)
 *
 * into @g (initialised here; tas_graph_free() it) and its name into @name.
 * Returns 0, -ENOMEM, -ENOENT, or -EINVAL for a file that does not follow
 * the format, has more rings than @max_rings or TAS_MAX_RINGS, or counts
 * that do not match its header.
 */
static inline int tas_graph_load(struct tas_graph *g, const char *path,
				 unsigned int max_rings, char name[TAS_NAME_LEN])
{
	unsigned int rings, nodes, edges, a, b;
	unsigned long long ns;
	char line[256], word[TAS_NAME_LEN];
	int ret = -EINVAL, header = 0;
	FILE *f = fopen(path, "r");

	memset(g, 0, sizeof(*g));
	if (!f)
		return -ENOENT;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (!header) {
			if (sscanf(line, "tas-graph 1 %23s %u %u %u", word, &rings,
				   &nodes, &edges) != 4 || !rings ||
			    rings > max_rings || rings > TAS_MAX_RINGS ||
			    !nodes || nodes > 100000 || edges > 1000000)
				goto out;
			snprintf(name, TAS_NAME_LEN, "%s", word);
			if (tas_graph_init(g, nodes, edges, rings)) {
				ret = -ENOMEM;
				goto out;
			}
			header = 1;
		} else if (sscanf(line, "n %u %llu %23s", &a, &ns, word) == 3) {
			if (a >= rings || g->n == g->max_n || g->e)
				goto out;
			tas_graph_node(g, a, ns, word);
		} else if (sscanf(line, "e %u %u", &a, &b) == 2) {
			if (a >= b || b >= g->n || g->e == g->max_e)
				goto out;
			tas_graph_edge(g, a, b);
		} else {
			goto out;
		}
	}
	if (header && g->n == g->max_n && g->e == g->max_e)
		ret = 0;
out:
	fclose(f);
	if (ret)
		tas_graph_free(g);
	return ret;
}

/*
 * A transformer block, two micro-batches, tensor parallel over two compute
 * rings: per micro-batch and shard an attention part (QKV projection,
 * attention, output projection) and an MLP part (layer norm, up projection,
 * activation, down projection), each followed by an all-reduce-like chain on
 * the communication ring, with the input and output copies and a weight
 * prefetch on the copy ring. With @backward, the backward pass follows each
 * micro-batch (gradients of the MLP and attention parts, twice the forward
 * work, with a gradient all-reduce that overlaps the next micro-batch).
 * Ring indices: compute0, compute1, copy, comm.
 */
#define TAS_TF_MICRO_BATCHES	2
#define TAS_TF_SHARDS		2
#define TAS_TF_AR_STEPS		3
#define TAS_TF_MAX_NODES	160
#define TAS_TF_MAX_EDGES	320

enum { TAS_RING_COMPUTE0, TAS_RING_COMPUTE1, TAS_RING_COPY, TAS_RING_COMM,
       TAS_TF_RINGS };

static inline unsigned int tas_tf_node(struct tas_graph *g, unsigned int ring,
				       __u64 duration_ns, const char *name,
				       int mb, int shard)
{
	char n[TAS_NAME_LEN];

	if (shard >= 0)
		snprintf(n, sizeof(n), "%s.mb%d.s%d", name, mb, shard);
	else if (mb >= 0)
		snprintf(n, sizeof(n), "%s.mb%d", name, mb);
	else
		snprintf(n, sizeof(n), "%s", name);
	return tas_graph_node(g, ring, duration_ns, n);
}

/* An all-reduce-like chain after the given nodes; returns its last step. */
static inline unsigned int tas_tf_allreduce(struct tas_graph *g,
					    const unsigned int *after, int mb,
					    const char *name)
{
	unsigned int prev = 0, step;
	int i, s;

	for (i = 0; i < TAS_TF_AR_STEPS; i++) {
		char n[16];

		snprintf(n, sizeof(n), "%s%d", name, i);
		step = tas_tf_node(g, TAS_RING_COMM, 3 * TAS_MSEC / 2, n, mb, -1);
		if (i == 0)
			for (s = 0; s < TAS_TF_SHARDS; s++)
				tas_graph_edge(g, after[s], step);
		else
			tas_graph_edge(g, prev, step);
		prev = step;
	}
	return prev;
}

/* A chain of steps on each shard after @after; fills @last per shard. */
static inline void tas_tf_chain(struct tas_graph *g, unsigned int after,
				const char * const *names, const __u64 *ms,
				unsigned int len, int mb, unsigned int *last)
{
	unsigned int i, v, prev;
	int s;

	for (s = 0; s < TAS_TF_SHARDS; s++) {
		prev = after;
		for (i = 0; i < len; i++) {
			v = tas_tf_node(g, s, ms[i] * TAS_MSEC, names[i], mb, s);
			tas_graph_edge(g, prev, v);
			prev = v;
		}
		last[s] = prev;
	}
}

static inline void tas_graph_transformer(struct tas_graph *g, int backward)
{
	static const char * const attn[] = { "qkv", "attn", "proj" };
	static const char * const mlp[] = { "ln", "up", "act", "down" };
	static const char * const dmlp[] = { "d-down", "d-up", "d-ln" };
	static const char * const dattn[] = { "d-proj", "d-attn", "d-qkv" };
	static const __u64 attn_ms[] = { 4, 6, 3 }, mlp_ms[] = { 1, 6, 1, 5 };
	static const __u64 dmlp_ms[] = { 10, 12, 2 }, dattn_ms[] = { 6, 12, 8 };
	unsigned int in, last[TAS_TF_SHARDS], ar, out;
	int mb;

	tas_tf_node(g, TAS_RING_COPY, 8 * TAS_MSEC, "prefetch-w", -1, -1);
	for (mb = 0; mb < TAS_TF_MICRO_BATCHES; mb++) {
		in = tas_tf_node(g, TAS_RING_COPY, 2 * TAS_MSEC, "h2d", mb, -1);
		tas_tf_chain(g, in, attn, attn_ms, 3, mb, last);
		ar = tas_tf_allreduce(g, last, mb, "ar-attn");
		tas_tf_chain(g, ar, mlp, mlp_ms, 4, mb, last);
		ar = tas_tf_allreduce(g, last, mb, "ar-mlp");
		if (backward) {
			tas_tf_chain(g, ar, dmlp, dmlp_ms, 3, mb, last);
			ar = tas_tf_allreduce(g, last, mb, "ar-dmlp");
			tas_tf_chain(g, ar, dattn, dattn_ms, 3, mb, last);
			ar = tas_tf_allreduce(g, last, mb, "ar-grad");
		}
		out = tas_tf_node(g, TAS_RING_COPY, 2 * TAS_MSEC, "d2h", mb, -1);
		tas_graph_edge(g, ar, out);
	}
}

/* How long a node executed: started to finished. */
static inline __u64 tas_exec_ns(const struct drm_tas_node_info *info)
{
	return info->finished_ns - info->started_ns;
}

static inline int tas_edge_cmp_to(const void *a, const void *b)
{
	const struct drm_tas_edge *x = a, *y = b;

	return x->to < y->to ? -1 : x->to > y->to;
}

/*
 * Longest path through the graph, in ns, each node weighted by the time it
 * actually executed (started to finished); edges must go from lower to higher
 * node indices. Sorts the edges by target.
 */
static inline __u64 tas_graph_critical_path(struct tas_graph *g,
					    const struct drm_tas_node_info *info)
{
	__u64 *finish = calloc(g->n, sizeof(*finish)), best = 0;
	unsigned int i, j = 0;

	if (!finish)
		return 0;
	qsort(g->edges, g->e, sizeof(*g->edges), tas_edge_cmp_to);
	for (i = 0; i < g->n; i++) {
		__u64 start = 0;

		for (; j < g->e && g->edges[j].to == i; j++)
			if (finish[g->edges[j].from] > start)
				start = finish[g->edges[j].from];
		finish[i] = start + tas_exec_ns(&info[i]);
		if (finish[i] > best)
			best = finish[i];
	}
	free(finish);
	return best;
}

/*
 * The gaps of a schedule, in ns: a dependency's, from the end of a node's
 * last predecessor to the node's start, within a ring or across rings; a
 * ring's, from the end of one node to the start of the next one, whose
 * predecessors had all ended by then.
 */
enum { TAS_GAP_WITHIN, TAS_GAP_ACROSS, TAS_GAP_RING, TAS_GAPS };

/* The delay of edge @j of @g in @gap (TAS_GAP_WITHIN or TAS_GAP_ACROSS). */
static inline __u64 tas_edge_gap(const struct tas_graph *g, unsigned int j,
				 const __u64 gap[TAS_GAPS])
{
	return gap[g->nodes[g->edges[j].from].ring != g->nodes[g->edges[j].to].ring];
}

/*
 * The makespan of @g scheduled as the dispatcher schedules it, with the gaps
 * of @gap (TAS_GAP_*) and no other cost: each node takes the time it executed
 * in @info; an edge is released its dependency gap after its predecessor
 * ended; a ring is free its ring gap after its last node ended, and then
 * starts, of its nodes whose edges have all been released, the one with the
 * longest path to the end of the graph. Edges must go from lower to higher
 * node indices. 0 if out of memory.
 */
static inline __u64 tas_graph_simulate_gaps(struct tas_graph *g,
					    const struct drm_tas_node_info *info,
					    const __u64 gap[TAS_GAPS])
{
	__u64 *level = calloc(g->n, sizeof(*level));
	__u64 *done = calloc(g->n, sizeof(*done));
	__u64 ring_free[TAS_MAX_RINGS] = { 0 }, now = 0, end = 0;
	unsigned int *preds = calloc(g->n, sizeof(*preds));
	unsigned char *released = calloc(g->e ? g->e : 1, 1);
	unsigned int i, j, left = g->n;

	if (!level || !done || !preds || !released) {
		end = 0;
		goto out;
	}
	/* Longest path from each node to the end, the node included. */
	for (i = g->n; i-- > 0;) {
		__u64 after = 0;

		for (j = 0; j < g->e; j++)
			if (g->edges[j].from == i && level[g->edges[j].to] > after)
				after = level[g->edges[j].to];
		level[i] = after + tas_exec_ns(&info[i]);
	}
	for (j = 0; j < g->e; j++)
		preds[g->edges[j].to]++;
	/* done[i]: 0 not started, else its finish time + 1. */
	while (left) {
		__u64 next = ~0ULL;
		int started = 0;

		/* Predecessors that finished a gap ago release their successors. */
		for (j = 0; j < g->e; j++) {
			unsigned int from = g->edges[j].from;

			if (done[from] && !released[j] &&
			    done[from] - 1 + tas_edge_gap(g, j, gap) <= now) {
				released[j] = 1;
				preds[g->edges[j].to]--;
			}
		}
		for (i = 0; i < TAS_MAX_RINGS; i++) {
			unsigned int k, best = g->n;

			if (ring_free[i] > now)
				continue;
			for (k = 0; k < g->n; k++)
				if (!done[k] && !preds[k] &&
				    g->nodes[k].ring == i &&
				    (best == g->n || level[k] > level[best]))
					best = k;
			if (best == g->n)
				continue;
			done[best] = now + tas_exec_ns(&info[best]) + 1;
			ring_free[i] = done[best] - 1 + gap[TAS_GAP_RING];
			if (done[best] - 1 > end)
				end = done[best] - 1;
			left--;
			started = 1;
		}
		if (started)
			continue;
		/* Nothing startable now: on to the next finish, free ring or release. */
		for (i = 0; i < g->n; i++)
			if (done[i] && done[i] - 1 > now && done[i] - 1 < next)
				next = done[i] - 1;
		for (i = 0; i < TAS_MAX_RINGS; i++)
			if (ring_free[i] > now && ring_free[i] < next)
				next = ring_free[i];
		for (j = 0; j < g->e; j++) {
			unsigned int from = g->edges[j].from;
			__u64 at;

			if (!done[from] || released[j])
				continue;
			at = done[from] - 1 + tas_edge_gap(g, j, gap);
			if (at > now && at < next)
				next = at;
		}
		if (next == ~0ULL)
			break;	/* a cycle: cannot happen with sorted edges */
		now = next;
	}
out:
	free(level);
	free(done);
	free(preds);
	free(released);
	return end;
}

/*
 * The makespan of @g scheduled with no dispatch cost at all: the schedule of
 * tas_graph_simulate_gaps() without gaps (what the dispatcher does, less its
 * own cost). 0 if out of memory.
 */
static inline __u64 tas_graph_simulate(struct tas_graph *g,
				       const struct drm_tas_node_info *info)
{
	static const __u64 none[TAS_GAPS] = { 0 };

	return tas_graph_simulate_gaps(g, info, none);
}

static inline int tas_u64_cmp(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * The predecessor of node @v that finished last in the run in @info (of those
 * that finished together, the first edge's), or @g->n if @v has none.
 */
static inline unsigned int tas_graph_last_pred(const struct tas_graph *g,
					       const struct drm_tas_node_info *info,
					       unsigned int v)
{
	unsigned int j, u, last = g->n;

	for (j = 0; j < g->e; j++) {
		u = g->edges[j].from;
		if (g->edges[j].to == v &&
		    (last == g->n || info[u].finished_ns > info[last].finished_ns))
			last = u;
	}
	return last;
}

/*
 * The median gaps of a run of @g in @info (TAS_GAP_*), in ns, into @gap (the
 * upper median of an even count). A node's gap is the time from the later of
 * the end of its last predecessor and the end of the node before it on its
 * ring to its start: a ring gap if the ring's node ended last, else a
 * dependency gap. A ring gap also holds what a dependency that had ended
 * before it still took to release the node, which the timestamps do not
 * tell apart. 0 where no node had such a gap; -ENOMEM if out of memory.
 */
static inline int tas_graph_dep_gaps(const struct tas_graph *g,
				     const struct drm_tas_node_info *info,
				     __u64 gap[TAS_GAPS])
{
	unsigned int count[TAS_GAPS] = { 0 }, v, u, c;
	__u64 *gaps[TAS_GAPS];
	int ret = 0;

	for (c = 0; c < TAS_GAPS; c++) {
		gap[c] = 0;
		gaps[c] = calloc(g->n ? g->n : 1, sizeof(__u64));
		if (!gaps[c])
			ret = -ENOMEM;
	}
	for (v = 0; !ret && v < g->n; v++) {
		unsigned int last = tas_graph_last_pred(g, info, v);
		__u64 pred_end = 0, ring_end = 0;

		if (last != g->n)
			pred_end = info[last].finished_ns;
		for (u = 0; u < g->n; u++)
			if (u != v && g->nodes[u].ring == g->nodes[v].ring &&
			    info[u].finished_ns <= info[v].started_ns &&
			    info[u].finished_ns > ring_end)
				ring_end = info[u].finished_ns;
		if (ring_end > pred_end) {
			c = TAS_GAP_RING;
			gaps[c][count[c]++] = info[v].started_ns - ring_end;
		} else if (pred_end && info[v].started_ns >= pred_end) {
			c = g->nodes[last].ring == g->nodes[v].ring ? TAS_GAP_WITHIN :
								      TAS_GAP_ACROSS;
			gaps[c][count[c]++] = info[v].started_ns - pred_end;
		}
	}
	for (c = 0; c < TAS_GAPS; c++) {
		if (!ret && count[c]) {
			qsort(gaps[c], count[c], sizeof(__u64), tas_u64_cmp);
			gap[c] = gaps[c][count[c] / 2];
		}
		free(gaps[c]);
	}
	return ret;
}

/*
 * The share of the nodes of a run of @g in @info whose last predecessor
 * (tas_graph_last_pred()) ran on another ring that became ready at that
 * predecessor's fence timestamp: the nodes that waited for it on their
 * rings, which the dispatcher had handed them to early, rather than being
 * released by the dispatcher once it had learnt of the completion, later. -1
 * if no node's last predecessor ran on another ring.
 */
static inline double tas_graph_on_ring_share(const struct tas_graph *g,
					     const struct drm_tas_node_info *info)
{
	unsigned int v, across = 0, on_ring = 0;

	for (v = 0; v < g->n; v++) {
		unsigned int last = tas_graph_last_pred(g, info, v);

		if (last == g->n || g->nodes[last].ring == g->nodes[v].ring)
			continue;
		across++;
		if (info[v].ready_ns == info[last].finished_ns)
			on_ring++;
	}
	return across ? (double)on_ring / across : -1;
}

static inline int tas_wait_syncobj(int fd, __u32 handle, __u64 point,
				   int seconds)
{
	struct drm_syncobj_timeline_wait wait = {
		.handles = (__u64)(uintptr_t)&handle,
		.points = (__u64)(uintptr_t)&point,
		.count_handles = 1,
		.flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
	};
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	wait.timeout_nsec = (now.tv_sec + seconds) * 1000000000LL + now.tv_nsec;
	return ioctl(fd, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &wait) ? -errno : 0;
}

static inline int tas_new_syncobj(int fd, __u32 *handle)
{
	struct drm_syncobj_create create = { 0 };

	if (ioctl(fd, DRM_IOCTL_SYNCOBJ_CREATE, &create))
		return -errno;
	*handle = create.handle;
	return 0;
}

static inline void tas_destroy_syncobj(int fd, __u32 handle)
{
	struct drm_syncobj_destroy destroy = { .handle = handle };

	ioctl(fd, DRM_IOCTL_SYNCOBJ_DESTROY, &destroy);
}

/* The value of parameter @param (DRM_TAS_PARAM_*), or 0 if it fails. */
static inline __u64 tas_get_param(int fd, __u32 param)
{
	struct drm_tas_get_param gp = { .param = param };

	return ioctl(fd, DRM_IOCTL_TAS_GET_PARAM, &gp) ? 0 : gp.value;
}

/* Creates a zeroed buffer object of @size bytes; writes its handle to @handle. */
static inline int tas_bo_create(int fd, __u64 size, __u32 *handle)
{
	struct drm_tas_bo_create bo = { .size = size };

	if (ioctl(fd, DRM_IOCTL_TAS_BO_CREATE, &bo))
		return -errno;
	*handle = bo.handle;
	return 0;
}

/* Closes the GEM handle @handle of a buffer object. */
static inline int tas_bo_close(int fd, __u32 handle)
{
	struct drm_gem_close close = { .handle = handle };

	return ioctl(fd, DRM_IOCTL_GEM_CLOSE, &close) ? -errno : 0;
}

/* Sets @b to @size bytes at @offset of buffer object @handle. */
static inline void tas_buf(struct drm_tas_buf *b, __u32 handle, __u64 offset,
			   __u64 size)
{
	b->handle = handle;
	b->offset = offset;
	b->size = size;
}

/* A uAPI array of @count elements of @stride bytes at @ptr; all zero if empty. */
static inline struct drm_tas_array tas_array(const void *ptr, __u32 count,
					     __u32 stride)
{
	struct drm_tas_array a = { 0 };

	if (count) {
		a.ptr = (__u64)(uintptr_t)ptr;
		a.count = count;
		a.stride = stride;
	}
	return a;
}

/*
 * Submits @g after the @num_waits syncobj points of @waits; the whole graph
 * signals binary syncobj @signal if not 0.
 */
static inline int tas_graph_submit_after(int fd, const struct tas_graph *g,
					 __u32 flags,
					 const struct drm_tas_sync *waits,
					 __u32 num_waits, __u32 signal,
					 __u64 *graph_id)
{
	struct drm_tas_submit_graph submit = { 0 };
	struct drm_tas_sync sig = { 0 };

	sig.handle = signal;
	sig.node = DRM_TAS_NODE_GRAPH;
	submit.flags = flags;
	submit.nodes = tas_array(g->nodes, g->n, sizeof(g->nodes[0]));
	submit.edges = tas_array(g->edges, g->e, sizeof(g->edges[0]));
	submit.waits = tas_array(waits, num_waits, sizeof(waits[0]));
	submit.signals = tas_array(&sig, signal ? 1 : 0, sizeof(sig));
	if (ioctl(fd, DRM_IOCTL_TAS_SUBMIT_GRAPH, &submit))
		return -errno;
	if (graph_id)
		*graph_id = submit.graph_id;
	return 0;
}

/* Submits @g; the whole graph signals binary syncobj @signal if not 0. */
static inline int tas_graph_submit(int fd, const struct tas_graph *g,
				   __u32 flags, __u32 signal, __u64 *graph_id)
{
	return tas_graph_submit_after(fd, g, flags, NULL, 0, signal, graph_id);
}

/* Creates a template of @g; writes its handle to @handle. */
static inline int tas_template_create(int fd, const struct tas_graph *g,
				      __u32 *handle)
{
	struct drm_tas_template_create create = { 0 };

	create.nodes = tas_array(g->nodes, g->n, sizeof(g->nodes[0]));
	create.edges = tas_array(g->edges, g->e, sizeof(g->edges[0]));
	if (ioctl(fd, DRM_IOCTL_TAS_TEMPLATE_CREATE, &create))
		return -errno;
	*handle = create.handle;
	return 0;
}

/*
 * Launches template @handle with @nwaits waits and @nsignals signals, on the
 * buffers of @nbinds @binds (none: the template's own); writes the new
 * graph's id to @graph_id if not NULL.
 */
static inline int tas_template_launch(int fd, __u32 handle,
				      const struct drm_tas_sync *waits,
				      __u32 nwaits,
				      const struct drm_tas_sync *signals,
				      __u32 nsignals,
				      const struct drm_tas_bind *binds,
				      __u32 nbinds, __u32 flags,
				      __u64 *graph_id)
{
	struct drm_tas_template_launch launch = { 0 };

	launch.handle = handle;
	launch.flags = flags | (nbinds ? DRM_TAS_LAUNCH_BINDS : 0);
	launch.waits = tas_array(waits, nwaits, sizeof(*waits));
	launch.signals = tas_array(signals, nsignals, sizeof(*signals));
	launch.binds = tas_array(binds, nbinds, sizeof(*binds));
	if (ioctl(fd, DRM_IOCTL_TAS_TEMPLATE_LAUNCH, &launch))
		return -errno;
	if (graph_id)
		*graph_id = launch.graph_id;
	return 0;
}

/* Destroys template @handle; its launches in flight complete. */
static inline int tas_template_destroy(int fd, __u32 handle)
{
	struct drm_tas_template_destroy destroy = { .handle = handle };

	return ioctl(fd, DRM_IOCTL_TAS_TEMPLATE_DESTROY, &destroy) ? -errno : 0;
}

/*
 * Reports host node @node of graph @graph_id done, with @error (0 or a
 * negative errno from -1 to -511, which the node's successors inherit; the
 * kernel rejects anything else with -EINVAL). flags and pad stay zero.
 */
static inline int tas_host_done(int fd, __u64 graph_id, __u32 node,
				__s32 error)
{
	struct drm_tas_host_done done = {
		.graph_id = graph_id,
		.node = node,
		.error = error,
	};

	return ioctl(fd, DRM_IOCTL_TAS_HOST_DONE, &done) ? -errno : 0;
}

/*
 * Opens the first render node of the tas driver (other DRM drivers, such as
 * vkms or virtio-gpu, may own lower minors) and writes its path to @path.
 * Returns the fd, or -ENODEV.
 */
static inline int tas_open_render(char *path, size_t len)
{
	struct drm_version ver;
	struct dirent *de;
	char name[16];
	DIR *dir;
	int fd;

	dir = opendir("/dev/dri");
	if (!dir)
		return -ENODEV;
	while ((de = readdir(dir))) {
		if (strncmp(de->d_name, "renderD", 7))
			continue;
		snprintf(path, len, "/dev/dri/%s", de->d_name);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		memset(&ver, 0, sizeof(ver));
		memset(name, 0, sizeof(name));
		ver.name = name;
		ver.name_len = sizeof(name) - 1;
		if (!ioctl(fd, DRM_IOCTL_VERSION, &ver) && !strcmp(name, "tas")) {
			closedir(dir);
			return fd;
		}
		close(fd);
	}
	closedir(dir);
	return -ENODEV;
}

static inline int tas_graph_results(int fd, __u64 graph_id,
				    struct drm_tas_node_info *info,
				    unsigned int n, __u32 *done)
{
	struct drm_tas_graph_info gi = { 0 };

	gi.graph_id = graph_id;
	gi.nodes.ptr = (__u64)(uintptr_t)info;
	gi.nodes.count = n;
	gi.nodes.stride = sizeof(info[0]);
	if (ioctl(fd, DRM_IOCTL_TAS_GRAPH_INFO, &gi))
		return -errno;
	if (done)
		*done = gi.done;
	return 0;
}

/* Timing of a finished graph. */
struct tas_graph_stats {
	__u64 makespan, critical_path, work, busiest_ring;
	/* The makespan of tas_graph_simulate(): no dispatch cost. */
	__u64 ideal;
	double ideal_ratio;	/* makespan / ideal */
	/* The median gaps of the run (tas_graph_dep_gaps(), TAS_GAP_*). */
	__u64 dep_gap[TAS_GAPS];
	/* The makespan of tas_graph_simulate_gaps() with those gaps. */
	__u64 gap_ideal;
	double gap_ideal_ratio;	/* makespan / gap_ideal */
	/* tas_graph_on_ring_share() */
	double on_ring_share;
	/*
	 * The nodes' executed time over their nominal time, summed over the
	 * graph: the zero-cost schedule takes the executed durations, so what
	 * the engine runs late (its timer's lateness, or a ring's work item that
	 * got to a node later than the node lasts) is charged to that schedule,
	 * not to the dispatch, and shows here, weighted by the nodes' durations.
	 */
	double exec_sum_over_nominal;
	/*
	 * The makespan of tas_graph_simulate() with the nodes' nominal
	 * durations: no dispatch cost and an exact engine. Over it, the makespan
	 * counts the engine's lateness as well as the dispatch.
	 */
	__u64 nominal_ideal;
	double nominal_ideal_ratio;	/* makespan / nominal_ideal */
	double ratio;	/* makespan / max(critical path, work / rings) */
	/*
	 * makespan / max(critical path, busiest ring's work): nodes are pinned
	 * to their rings, so no schedule beats the busiest ring.
	 */
	double bound_ratio;
};

static inline void tas_graph_measure(struct tas_graph *g,
				     const struct drm_tas_node_info *info,
				     unsigned int rings,
				     struct tas_graph_stats *st)
{
	__u64 t0 = ~0ULL, t1 = 0, lower, ring_work[TAS_MAX_RINGS] = { 0 };
	struct drm_tas_node_info *nom;
	__u64 nominal = 0;
	unsigned int i;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < g->n; i++) {
		__u64 exec = tas_exec_ns(&info[i]);

		nominal += g->nodes[i].duration_ns;

		if (info[i].queued_ns < t0)
			t0 = info[i].queued_ns;
		if (info[i].finished_ns > t1)
			t1 = info[i].finished_ns;
		st->work += exec;
		ring_work[g->nodes[i].ring % TAS_MAX_RINGS] += exec;
	}
	for (i = 0; i < TAS_MAX_RINGS; i++)
		if (ring_work[i] > st->busiest_ring)
			st->busiest_ring = ring_work[i];
	st->exec_sum_over_nominal = nominal ? (double)st->work / nominal : 0;
	st->makespan = t1 - t0;
	st->critical_path = tas_graph_critical_path(g, info);
	lower = st->work / rings > st->critical_path ? st->work / rings :
						      st->critical_path;
	st->ratio = lower ? (double)st->makespan / lower : 0;
	lower = st->busiest_ring > st->critical_path ? st->busiest_ring :
						       st->critical_path;
	st->bound_ratio = lower ? (double)st->makespan / lower : 0;
	st->ideal = tas_graph_simulate(g, info);
	st->ideal_ratio = st->ideal ? (double)st->makespan / st->ideal : 0;
	if (!tas_graph_dep_gaps(g, info, st->dep_gap))
		st->gap_ideal = tas_graph_simulate_gaps(g, info, st->dep_gap);
	st->gap_ideal_ratio = st->gap_ideal ? (double)st->makespan / st->gap_ideal : 0;
	st->on_ring_share = tas_graph_on_ring_share(g, info);
	nom = calloc(g->n, sizeof(*nom));
	if (nom) {
		for (i = 0; i < g->n; i++)
			nom[i].finished_ns = g->nodes[i].duration_ns;
		st->nominal_ideal = tas_graph_simulate(g, nom);
		free(nom);
	}
	st->nominal_ideal_ratio = st->nominal_ideal ?
				  (double)st->makespan / st->nominal_ideal : 0;
}

/* Submits @g, waits for it and measures it; returns 0 or -errno. */
static inline int tas_graph_run(int fd, struct tas_graph *g, __u32 flags,
				struct drm_tas_node_info *info,
				struct tas_graph_stats *st)
{
	__u32 syncobj = 0, done = 0;
	__u64 id = 0;
	int ret;

	ret = tas_new_syncobj(fd, &syncobj);
	if (!ret)
		ret = tas_graph_submit(fd, g, flags, syncobj, &id);
	if (!ret)
		ret = tas_wait_syncobj(fd, syncobj, 0, 60);
	if (!ret)
		ret = tas_graph_results(fd, id, info, g->n, &done);
	if (!ret && !done)
		ret = -EBUSY;
	if (!ret)
		tas_graph_measure(g, info, g->num_rings, st);
	return ret;
}

#endif /* TAS_GRAPHS_H */
