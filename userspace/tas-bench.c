// SPDX-License-Identifier: GPL-2.0
/*
 * tas-bench: benchmarks of the drm/tas graph dispatcher, run in one guest.
 * Every figure with a goal is a ratio of two measurements taken in this run
 * (the machines are noisy); a few absolute times (the *_us keys) come with
 * them. They are printed as a table and as one JSON line:
 *
 *   TAS-BENCH-JSON {"key": value, ...}
 *
 * and the samples behind some of them, for pictures, as
 *
 *   TAS-BENCH-DATA {"kind": ..., ...}
 *
 * Usage: tas-bench [SEED]
 *
 * With TAS_BENCH set to a comma-separated list of benchmark names (makespan,
 * models, clock, submit, template, dispatch, waits, gangs, latency, host),
 * only those run, for a quick look while working on one of them; the JSON
 * line then holds only their keys.
 */

#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tas_graphs.h"

#define MAX_JSON	4096

static char json[MAX_JSON];
static size_t json_len;
static unsigned long long seed = 0x7a5b3e11ULL;

/* A number below @n from the xorshift generator whose state is @state. */
static unsigned int rnd_from(unsigned long long *state, unsigned int n)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return (unsigned int)(*state % n);
}

static unsigned int rnd(unsigned int n)
{
	return rnd_from(&seed, n);
}

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void result(const char *key, double value, const char *goal,
		   const char *what)
{
	printf("  %-36s %10.3f   %-8s %s\n", key, value, goal, what);
	json_len += snprintf(json + json_len, MAX_JSON - json_len, "%s\"%s\": %.4f",
			     json_len > 1 ? ", " : "", key, value);
}

static void result_null(const char *key, const char *goal, const char *why)
{
	printf("  %-36s %10s   %-8s %s\n", key, "-", goal, why);
	json_len += snprintf(json + json_len, MAX_JSON - json_len, "%s\"%s\": null",
			     json_len > 1 ? ", " : "", key);
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/* The p-th percentile (0-100) of @n values, sorted in place. */
static __u64 percentile(__u64 *v, unsigned int n, unsigned int p)
{
	unsigned int i;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	i = (n * p + 99) / 100;
	return v[i ? i - 1 : 0];
}

/* A random layered DAG: each node waits for 1 to 3 nodes of the layer before. */
static void build_layered(struct tas_graph *g, unsigned int nodes,
			  unsigned int width)
{
	unsigned int v, k, prev_start = 0, start = 0;

	for (v = 0; v < nodes; v++) {
		if (v - start == width) {
			prev_start = start;
			start = v;
		}
		tas_graph_node(g, rnd(g->num_rings),
			       (1 + rnd(4)) * TAS_MSEC / 2 + rnd(500) * 1000, NULL);
		if (start == 0)
			continue;
		for (k = 0; k < 1 + rnd(3); k++) {
			unsigned int from = prev_start + rnd(start - prev_start), j;
			int dup = 0;

			for (j = g->e; j > 0 && g->edges[j - 1].to == v; j--)
				dup |= g->edges[j - 1].from == from;
			if (!dup)
				tas_graph_edge(g, from, v);
		}
	}
}

/* A chain on ring 0 whose every step fans out to 3 nodes on the other rings. */
static void build_fanout(struct tas_graph *g, unsigned int steps)
{
	unsigned int i, k, prev = 0, v;

	for (i = 0; i < steps; i++) {
		v = tas_graph_node(g, 0, 2 * TAS_MSEC, NULL);
		if (i)
			tas_graph_edge(g, prev, v);
		for (k = 0; k < 3; k++)
			tas_graph_edge(g, v, tas_graph_node(g, 1 + k % (g->num_rings - 1),
							    (1 + rnd(3)) * TAS_MSEC,
							    NULL));
		prev = v;
	}
}

static int run_graph(int fd, struct tas_graph *g, __u32 flags,
		     struct tas_graph_stats *st)
{
	struct drm_tas_node_info *info = calloc(g->n, sizeof(*info));
	int ret;

	if (!info)
		return -ENOMEM;
	ret = tas_graph_run(fd, g, flags, info, st);
	free(info);
	return ret;
}

/*
 * The makespan ratios over the suite's graphs, each against the old bound,
 * the bound, the zero-cost schedule and the schedule with the run's median
 * dependency gaps.
 */
struct makespan_suite {
	double sum[4], max[4];
	unsigned int count;
	/* The graphs with waits across rings, and the sum of their shares. */
	double on_ring_sum;
	unsigned int on_ring_count;
	double exec_sum;
	double nominal_sum, nominal_max;
};

/* Adds a graph's ratios and ends the line that describes the graph. */
static void suite_add(struct makespan_suite *suite,
		      const struct tas_graph_stats *st)
{
	const double r[4] = { st->ratio, st->bound_ratio, st->ideal_ratio,
			      st->gap_ideal_ratio };
	unsigned int i;

	for (i = 0; i < 4; i++) {
		suite->sum[i] += r[i];
		if (r[i] > suite->max[i])
			suite->max[i] = r[i];
	}
	suite->count++;
	suite->exec_sum += st->exec_sum_over_nominal;
	suite->nominal_sum += st->nominal_ideal_ratio;
	if (st->nominal_ideal_ratio > suite->nominal_max)
		suite->nominal_max = st->nominal_ideal_ratio;
	if (st->on_ring_share >= 0) {
		suite->on_ring_sum += st->on_ring_share;
		suite->on_ring_count++;
	}
	printf(", ratio %.3f, over bound %.3f, over the zero-cost schedule (%.2f ms) %.3f, gaps p50 %.1f us within / %.1f us across rings / %.1f us on a ring, over the schedule with them (%.2f ms) %.3f",
	       st->ratio, st->bound_ratio, st->ideal / 1e6, st->ideal_ratio,
	       st->dep_gap[TAS_GAP_WITHIN] / 1e3, st->dep_gap[TAS_GAP_ACROSS] / 1e3,
	       st->dep_gap[TAS_GAP_RING] / 1e3, st->gap_ideal / 1e6,
	       st->gap_ideal_ratio);
	if (st->on_ring_share >= 0)
		printf(", %.0f%% of the waits across rings on the ring",
		       st->on_ring_share * 100);
	else
		printf(", no waits across rings");
	printf(", executed %.3f of nominal, over the nominal zero-cost schedule (%.2f ms) %.3f\n",
	       st->exec_sum_over_nominal, st->nominal_ideal / 1e6,
	       st->nominal_ideal_ratio);
}

static int bench_makespan(int fd, unsigned int rings)
{
	static const struct { unsigned int nodes, rings, width; } dags[] = {
		{ 100, 4, 8 }, { 1000, 4, 16 }, { 100, 8, 12 }, { 1000, 8, 24 },
	};
	struct makespan_suite suite = { 0 };
	struct tas_graph_stats fifo, tas, st;
	struct tas_graph g;
	unsigned int i;
	int ret;

	/* Transformer forward + backward: FIFO baseline, then the dispatcher. */
	if (tas_graph_init(&g, TAS_TF_MAX_NODES, TAS_TF_MAX_EDGES,
			   rings < TAS_TF_RINGS ? rings : TAS_TF_RINGS))
		return -ENOMEM;
	tas_graph_transformer(&g, 1);
	ret = run_graph(fd, &g, DRM_TAS_SUBMIT_FIFO, &fifo);
	if (!ret)
		ret = run_graph(fd, &g, 0, &tas);
	if (ret)
		return ret;
	printf("  transformer fwd+bwd, %u nodes: FIFO %.2f ms (ratio %.3f), dispatcher %.2f ms",
	       g.n, fifo.makespan / 1e6, fifo.ratio, tas.makespan / 1e6);
	suite_add(&suite, &tas);
	result("speedup_vs_fifo_transformer", (double)fifo.makespan / tas.makespan,
	       ">= 1.15", "FIFO makespan / dispatcher makespan, transformer");
	tas_graph_free(&g);

	for (i = 0; i < sizeof(dags) / sizeof(dags[0]); i++) {
		if (dags[i].rings > rings)
			continue;
		if (tas_graph_init(&g, dags[i].nodes, 3 * dags[i].nodes, dags[i].rings))
			return -ENOMEM;
		build_layered(&g, dags[i].nodes, dags[i].width);
		ret = run_graph(fd, &g, 0, &st);
		if (ret)
			return ret;
		printf("  layered DAG %u nodes, %u rings: %.2f ms", g.n,
		       dags[i].rings, st.makespan / 1e6);
		suite_add(&suite, &st);
		tas_graph_free(&g);
	}
	if (tas_graph_init(&g, 200, 200, rings < 4 ? rings : 4))
		return -ENOMEM;
	build_fanout(&g, 50);
	ret = run_graph(fd, &g, 0, &st);
	if (ret)
		return ret;
	printf("  chain with fan-outs, %u nodes: %.2f ms", g.n, st.makespan / 1e6);
	suite_add(&suite, &st);
	tas_graph_free(&g);

	result("makespan_ratio_mean", suite.sum[0] / suite.count, "<= 1.05",
	       "makespan / max(critical path, work / rings), mean of the suite");
	result("makespan_ratio_max", suite.max[0], "<= 1.15", "the same, worst graph");
	result("makespan_over_bound_mean", suite.sum[1] / suite.count, "-",
	       "makespan / max(critical path, busiest ring), mean");
	result("makespan_over_bound_max", suite.max[1], "-", "the same, worst graph");
	result("makespan_over_ideal_mean", suite.sum[2] / suite.count, "<= 1.05",
	       "makespan / the zero-cost schedule of the same durations, mean");
	result("makespan_over_ideal_max", suite.max[2], "<= 1.10",
	       "the same, worst graph");
	result("makespan_over_gap_schedule_mean", suite.sum[3] / suite.count, "-",
	       "makespan / the schedule of the same durations with the run's median gaps (dependencies, rings), mean");
	result("makespan_over_gap_schedule_max", suite.max[3], "-",
	       "the same, worst graph");
	result("waits_on_ring_share_mean",
	       suite.on_ring_count ? suite.on_ring_sum / suite.on_ring_count : 0, "-",
	       "share of the nodes whose last predecessor ran on another ring that waited for it on their ring, mean");
	result("exec_sum_over_nominal_mean", suite.exec_sum / suite.count, "-",
	       "the nodes' executed time over their nominal time, summed per graph, mean: the engine's lateness, which the zero-cost schedule includes");
	result("makespan_over_nominal_schedule_mean", suite.nominal_sum / suite.count, "-",
	       "makespan / the zero-cost schedule of the nominal durations (the engine's lateness counted too), mean");
	result("makespan_over_nominal_schedule_max", suite.nominal_max, "-",
	       "the same, worst graph");
	return 0;
}

/* The graphs exported from real models (bench/graphs, in the guest here). */
#define TAS_MODEL_GRAPHS	"/etc/tas/graphs"

/* Runs of each exported graph under each dispatch, alternating. */
#define TAS_MODEL_RUNS	5

/*
 * Runs @g TAS_MODEL_RUNS times under the stock FIFO dispatch and as often
 * under the graph dispatcher, alternating, since the makespan of one graph
 * varies by 20 % from run to run here; gives the median FIFO makespan and
 * the dispatcher run of median makespan.
 */
static int run_model(int fd, struct tas_graph *g, __u64 *fifo_makespan,
		     struct tas_graph_stats *tas)
{
	struct tas_graph_stats st[TAS_MODEL_RUNS], fifo;
	__u64 fifo_ms[TAS_MODEL_RUNS], tas_ms[TAS_MODEL_RUNS], median;
	unsigned int r;
	int ret;

	for (r = 0; r < TAS_MODEL_RUNS; r++) {
		ret = run_graph(fd, g, DRM_TAS_SUBMIT_FIFO, &fifo);
		if (!ret)
			ret = run_graph(fd, g, 0, &st[r]);
		if (ret)
			return ret;
		fifo_ms[r] = fifo.makespan;
		tas_ms[r] = st[r].makespan;
	}
	*fifo_makespan = percentile(fifo_ms, TAS_MODEL_RUNS, 50);
	median = percentile(tas_ms, TAS_MODEL_RUNS, 50);
	for (r = 0; r < TAS_MODEL_RUNS; r++)
		if (st[r].makespan == median)
			*tas = st[r];
	return 0;
}

/*
 * Each exported graph under the stock FIFO dispatch and under the graph
 * dispatcher, against its bound and its zero-cost schedule (medians of
 * TAS_MODEL_RUNS runs). Reported apart from the synthetic suite, whose keys
 * keep their meaning.
 */
static int bench_models(int fd, unsigned int rings)
{
	struct makespan_suite suite = { 0 };
	struct tas_graph_stats tas;
	char path[512], name[TAS_NAME_LEN];
	double speedup = 0;
	struct dirent **list;
	__u64 fifo;
	int i, count, ret = 0;

	count = scandir(TAS_MODEL_GRAPHS, &list, tas_graph_file, alphasort);
	if (count <= 0) {
		printf("  no exported graphs in %s\n", TAS_MODEL_GRAPHS);
		return -ENOENT;
	}
	for (i = 0; i < count; i++) {
		struct tas_graph g;

		snprintf(path, sizeof(path), "%s/%s", TAS_MODEL_GRAPHS,
			 list[i]->d_name);
		free(list[i]);
		if (ret)
			continue;
		ret = tas_graph_load(&g, path, rings, name);
		if (ret)
			continue;
		ret = run_model(fd, &g, &fifo, &tas);
		if (!ret) {
			printf("  %s, %u nodes, medians of %u: FIFO %.2f ms, dispatcher %.2f ms",
			       name, g.n, TAS_MODEL_RUNS, fifo / 1e6,
			       tas.makespan / 1e6);
			suite_add(&suite, &tas);
			speedup += (double)fifo / tas.makespan;
		}
		tas_graph_free(&g);
	}
	free(list);
	if (ret)
		return ret;
	result("models_speedup_vs_fifo_mean", speedup / suite.count, "-",
	       "FIFO makespan / dispatcher makespan, exported model graphs, medians");
	result("models_makespan_over_bound_mean", suite.sum[1] / suite.count, "-",
	       "dispatcher makespan / max(critical path, busiest ring), mean");
	result("models_makespan_over_ideal_mean", suite.sum[2] / suite.count,
	       "<= 1.05", "dispatcher makespan / zero-cost schedule, mean");
	result("models_makespan_over_ideal_max", suite.max[2], "<= 1.10",
	       "the same, worst model graph");
	result("models_makespan_over_gap_schedule_mean", suite.sum[3] / suite.count,
	       "-", "dispatcher makespan / the schedule with the run's median gaps (dependencies, rings), mean");
	result("models_makespan_over_gap_schedule_max", suite.max[3], "-",
	       "the same, worst model graph");
	result("models_waits_on_ring_share_mean",
	       suite.on_ring_count ? suite.on_ring_sum / suite.on_ring_count : 0, "-",
	       "the same share as waits_on_ring_share_mean, exported model graphs");
	result("models_exec_sum_over_nominal_mean", suite.exec_sum / suite.count, "-",
	       "the same as exec_sum_over_nominal_mean, exported model graphs");
	result("models_makespan_over_nominal_schedule_mean", suite.nominal_sum / suite.count,
	       "-", "dispatcher makespan / the zero-cost schedule of the nominal durations, mean");
	result("models_makespan_over_nominal_schedule_max", suite.nominal_max, "-",
	       "the same, worst model graph");
	return 0;
}

/*
 * 100 nodes of each duration: the p99 of each duration is then the 99th of
 * 100 samples, and that of all durations the 495th of 500 (with 20 of each,
 * the p99 over all was the second largest of 100 samples).
 */
#define TAS_CLOCK_NODES		100
#define TAS_TIMER_SLEEPS	100

/*
 * The guest's timer floor: how late (ns) a userspace thread's sleeps of
 * 0.2 and 1 ms end, without timer slack; the p99 over both. Its hrtimer
 * expires through the same emulated timer interrupt as a ring's, and then a
 * thread wakes, as a ring's worker does.
 */
static __u64 timer_late_p99(void)
{
	static const __u64 lens[] = { 200000, 1000000 };
	__u64 late[2 * TAS_TIMER_SLEEPS];
	unsigned int l, i, n = 0;

	prctl(PR_SET_TIMERSLACK, 1UL);
	for (l = 0; l < 2; l++) {
		for (i = 0; i < TAS_TIMER_SLEEPS; i++) {
			struct timespec ts = { 0, (long)lens[l] };
			__u64 t0 = now_ns(), took;

			clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
			took = now_ns() - t0;
			late[n++] = took > lens[l] ? took - lens[l] : 0;
		}
	}
	/* Back to the default slack. */
	prctl(PR_SET_TIMERSLACK, 0UL);
	return percentile(late, n, 99);
}

/*
 * The engine's clock: nodes of 0.2-5 ms, one after the other on ring 0, each
 * executed for finished_ns - started_ns as GRAPH_INFO reports it; beside it
 * the guest's timer floor.
 */
static int bench_clock(int fd)
{
	static const __u64 durations[] = {
		200000, 500000, 1000000, 2000000, 5000000,
	};
	const unsigned int nd = sizeof(durations) / sizeof(durations[0]);
	__u64 ratio[TAS_CLOCK_NODES * sizeof(durations) / sizeof(durations[0])];
	__u64 late[TAS_CLOCK_NODES * sizeof(durations) / sizeof(durations[0])];
	__u64 p50, p99, late_p99, timer_p99;
	struct drm_tas_node_info info[TAS_CLOCK_NODES];
	struct tas_graph_stats st;
	unsigned int d, i, n = 0;
	struct tas_graph g;
	int ret;

	for (d = 0; d < nd; d++) {
		if (tas_graph_init(&g, TAS_CLOCK_NODES, 0, 1))
			return -ENOMEM;
		for (i = 0; i < TAS_CLOCK_NODES; i++)
			tas_graph_node(&g, 0, durations[d], "clock");
		ret = tas_graph_run(fd, &g, 0, info, &st);
		tas_graph_free(&g);
		if (ret)
			return ret;
		/* Ratios in thousandths, to sort them as integers. */
		for (i = 0; i < TAS_CLOCK_NODES; i++) {
			__u64 exec = tas_exec_ns(&info[i]);

			late[n] = exec > durations[d] ? exec - durations[d] : 0;
			ratio[n++] = exec * 1000 / durations[d];
		}
		printf("  %4llu us nodes: executed p50 %.3f, p99 %.3f, max %.3f of nominal\n",
		       (unsigned long long)durations[d] / 1000,
		       percentile(&ratio[n - TAS_CLOCK_NODES], TAS_CLOCK_NODES,
				  50) / 1e3,
		       percentile(&ratio[n - TAS_CLOCK_NODES], TAS_CLOCK_NODES,
				  99) / 1e3,
		       percentile(&ratio[n - TAS_CLOCK_NODES], TAS_CLOCK_NODES,
				  100) / 1e3);
	}
	p50 = percentile(ratio, n, 50);
	p99 = percentile(ratio, n, 99);
	late_p99 = percentile(late, n, 99);
	timer_p99 = timer_late_p99();
	result("exec_over_nominal_p50", p50 / 1e3, "<= 1.05",
	       "executed / nominal duration, nodes of 0.2-5 ms, p50");
	result("exec_over_nominal_p99", p99 / 1e3, "<= 1.25", "the same, p99");
	result("exec_late_p99_us", late_p99 / 1e3, "-",
	       "how late a node of 0.2-5 ms ends, p99 (us)");
	result("timer_late_p99_us", timer_p99 / 1e3, "-",
	       "how late a userspace sleep of 0.2 or 1 ms ends, without timer slack, p99 (us)");
	result("exec_late_p99_over_timer_late_p99",
	       timer_p99 ? (double)late_p99 / timer_p99 : 0, "-",
	       "the two above: the engine's tail over the guest's timer floor");
	return 0;
}

/* Submits a chain of @n zero-time nodes as one graph; returns the ioctl time. */
static int submit_chain(int fd, unsigned int n, __u64 *ns)
{
	struct tas_graph g;
	__u32 syncobj = 0;
	__u64 t0;
	unsigned int i;
	int ret;

	if (tas_graph_init(&g, n, n, 1))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		tas_graph_node(&g, i, 0, NULL);
		if (i)
			tas_graph_edge(&g, i - 1, i);
	}
	ret = tas_new_syncobj(fd, &syncobj);
	if (!ret) {
		t0 = now_ns();
		ret = tas_graph_submit(fd, &g, 0, syncobj, NULL);
		*ns = now_ns() - t0;
	}
	if (!ret)
		ret = tas_wait_syncobj(fd, syncobj, 0, 60);
	tas_graph_free(&g);
	return ret;
}

static int bench_submit(int fd)
{
	struct drm_tas_submit_graph submit;
	struct drm_tas_sync sync[2];
	struct drm_tas_node node;
	__u64 t_single, t_graph = 0, t1k[3], t10k[3];
	unsigned int i;
	__u32 timeline;
	int ret;

	/* 1000 single-node submissions, each waiting for the one before. */
	ret = tas_new_syncobj(fd, &timeline);
	if (ret)
		return ret;
	memset(&node, 0, sizeof(node));
	node.op = DRM_TAS_OP_NOP;
	t_single = now_ns();
	for (i = 0; i < 1000; i++) {
		memset(&submit, 0, sizeof(submit));
		memset(sync, 0, sizeof(sync));
		sync[0].handle = timeline;
		sync[0].node = DRM_TAS_NODE_GRAPH;
		sync[0].point = i + 1;
		sync[1] = sync[0];
		sync[1].point = i;
		submit.nodes = tas_array(&node, 1, sizeof(node));
		submit.signals = tas_array(&sync[0], 1, sizeof(sync[0]));
		submit.waits = tas_array(&sync[1], i ? 1 : 0, sizeof(sync[1]));
		/* A full queue blocks the submission until a graph completes. */
		if (ioctl(fd, DRM_IOCTL_TAS_SUBMIT_GRAPH, &submit))
			return -errno;
	}
	t_single = now_ns() - t_single;
	ret = tas_wait_syncobj(fd, timeline, 1000, 60);
	if (!ret)
		ret = submit_chain(fd, 1000, &t_graph);
	if (ret)
		return ret;
	printf("  1000 chained single-node submits: %.2f ms; one 1000-node submit: %.3f ms\n",
	       t_single / 1e6, t_graph / 1e6);
	result("submit_per_node_gain_1000", (double)t_single / t_graph, ">= 10",
	       "per-node cost, 1000 single submits / one 1000-node graph");

	for (i = 0; i < 3; i++) {
		ret = submit_chain(fd, 1000, &t1k[i]);
		if (!ret)
			ret = submit_chain(fd, 10000, &t10k[i]);
		if (ret)
			return ret;
	}
	printf("  submit of 1000 nodes: %.3f ms, of 10000 nodes: %.3f ms (medians of 3)\n",
	       percentile(t1k, 3, 50) / 1e6, percentile(t10k, 3, 50) / 1e6);
	result("submit_growth_10k_over_1k",
	       (double)percentile(t10k, 3, 50) / percentile(t1k, 3, 50), "<= 12",
	       "submit time, 10000-node / 1000-node chain");
	return 0;
}

/* Median time of one GET_PARAM ioctl, back to back, in ns. */
static __u64 empty_ioctl_p50(int fd)
{
	__u64 t[201];
	unsigned int i;

	for (i = 0; i < 201; i++) {
		t[i] = now_ns();
		tas_get_param(fd, DRM_TAS_PARAM_VERSION);
		t[i] = now_ns() - t[i];
	}
	return percentile(t, 201, 50);
}

/* The nodes of the template launches' chains (bench_template()). */
enum tpl_bufs {
	TPL_NOP,	/* NOP nodes */
	TPL_FILL,	/* each fills a word of one buffer (one slot) */
	TPL_BOUND,	/* as TPL_FILL, launched with the slot bound elsewhere */
	TPL_ORDERED,	/* NOP nodes, launched ordered after a launch in flight */
};

static const char *const tpl_bufs_name[] = {
	"nop", "fill", "fill (bound)", "nop (ordered)"
};

#define TPL_LAUNCHES 21

/* One template of bench_template()'s rounds and its launches' timings. */
struct tpl_run {
	unsigned int n;
	enum tpl_bufs bufs;
	__u32 handle, syncobj, bo[2];
	struct drm_tas_node_info *info;
	/*
	 * Per launch: the ioctl, until the driver has its instance
	 * (queued_ns), until the first node is ready (ready_ns), the rest.
	 */
	__u64 t[TPL_LAUNCHES], taken[TPL_LAUNCHES], ready[TPL_LAUNCHES];
	__u64 rest[TPL_LAUNCHES];
	/* Launches whose first node had started before the ioctl returned. */
	unsigned int started_before_return;
};

/*
 * Creates the template of an @n-node chain for @r. The first node takes
 * 20 ms, so that executing the graph does not compete with the next ioctl
 * for the CPU.
 */
static int tpl_run_init(int fd, struct tpl_run *r, unsigned int n,
			enum tpl_bufs bufs)
{
	struct tas_graph g = { 0 };
	unsigned int i;
	int ret = 0;

	memset(r, 0, sizeof(*r));
	r->n = n;
	r->bufs = bufs;
	r->info = calloc(n, sizeof(*r->info));
	if (!r->info || tas_graph_init(&g, n, n, 1)) {
		tas_graph_free(&g);
		return -ENOMEM;
	}
	if (bufs == TPL_FILL || bufs == TPL_BOUND) {
		ret = tas_bo_create(fd, 4ULL * n, &r->bo[0]);
		if (!ret)
			ret = tas_bo_create(fd, 4ULL * n, &r->bo[1]);
	}
	for (i = 0; i < n; i++) {
		tas_graph_node(&g, 0, i ? 0 : 20 * TAS_MSEC, NULL);
		if (i)
			tas_graph_edge(&g, i - 1, i);
		/* One word each of one buffer: a single slot used n times. */
		if (bufs == TPL_FILL || bufs == TPL_BOUND) {
			g.nodes[i].op = DRM_TAS_OP_FILL;
			g.nodes[i].imm = i;
			tas_buf(&g.nodes[i].dst, r->bo[0], 4ULL * i, 4);
		}
	}
	if (!ret)
		ret = tas_template_create(fd, &g, &r->handle);
	tas_graph_free(&g);
	if (!ret)
		ret = tas_new_syncobj(fd, &r->syncobj);
	return ret;
}

/*
 * Launch @i of @r, once the driver had 50 ms to prepare the next instance;
 * waits for the graph and reads its first node's timestamps. An ordered
 * launch comes after another ordered launch, made before the 50 ms and
 * still running (its first node takes 20 ms, the other 999 follow it), so
 * that the timed one has a launch to wait for.
 */
static int tpl_run_launch(int fd, struct tpl_run *r, unsigned int i)
{
	struct drm_tas_bind bind = { .slot = 0, .handle = r->bo[1] };
	__u32 flags = r->bufs == TPL_ORDERED ? DRM_TAS_LAUNCH_ORDERED : 0;
	struct drm_tas_sync sig = { 0 };
	__u64 t0, t1, graph_id = 0;
	int ret;

	if (flags) {
		ret = tas_template_launch(fd, r->handle, NULL, 0, NULL, 0,
					  NULL, 0, flags, NULL);
		if (ret)
			return ret;
	}
	usleep(50000);
	sig.handle = r->syncobj;
	sig.node = DRM_TAS_NODE_GRAPH;
	t0 = now_ns();
	ret = tas_template_launch(fd, r->handle, NULL, 0, &sig, 1, &bind,
				  r->bufs == TPL_BOUND, flags, &graph_id);
	t1 = now_ns();
	r->t[i] = t1 - t0;
	if (!ret)
		ret = tas_wait_syncobj(fd, r->syncobj, 0, 60);
	if (!ret)
		ret = tas_graph_results(fd, graph_id, r->info, r->n, NULL);
	if (ret)
		return ret;
	r->taken[i] = r->info[0].queued_ns - t0;
	r->ready[i] = r->info[0].ready_ns - r->info[0].queued_ns;
	/*
	 * An ordered launch's first node is ready only once the launch before
	 * it has completed, after the ioctl returned: nothing of the rest.
	 */
	r->rest[i] = r->info[0].ready_ns < t1 ? t1 - r->info[0].ready_ns : 0;
	r->started_before_return += r->info[0].started_ns < t1;
	return 0;
}

/* Prints where @r's launches spent their time; returns their median. */
static __u64 tpl_run_report(struct tpl_run *r)
{
	__u64 rest_in_order[TPL_LAUNCHES], p50;
	unsigned int i;

	/* percentile() sorts in place. */
	memcpy(rest_in_order, r->rest, sizeof(rest_in_order));
	p50 = percentile(r->t, TPL_LAUNCHES, 50);
	printf("  template launch, %u %s nodes: p50 %.2f us = instance %.2f us + to first node ready %.2f us + rest %.2f us (medians); first node started before the ioctl returned in %u of %u\n",
	       r->n, tpl_bufs_name[r->bufs], p50 / 1e3,
	       percentile(r->taken, TPL_LAUNCHES, 50) / 1e3,
	       percentile(r->ready, TPL_LAUNCHES, 50) / 1e3,
	       percentile(r->rest, TPL_LAUNCHES, 50) / 1e3,
	       r->started_before_return, TPL_LAUNCHES);
	/*
	 * Per launch: a cost that comes with the file's graph history (the
	 * records that a launch evicts) shows as a step, not as noise.
	 */
	if (r->n >= 10000) {
		printf("    rest per launch, in launch order (us):");
		for (i = 0; i < TPL_LAUNCHES; i++)
			printf(" %.0f", rest_in_order[i] / 1e3);
		printf("\n");
	}
	return p50;
}

static void tpl_run_fini(int fd, struct tpl_run *r)
{
	unsigned int i;

	if (r->handle)
		tas_template_destroy(fd, r->handle);
	if (r->syncobj)
		tas_destroy_syncobj(fd, r->syncobj);
	for (i = 0; i < 2; i++)
		if (r->bo[i])
			tas_bo_close(fd, r->bo[i]);
	free(r->info);
}

/*
 * Median ioctl times of the launches of templates of 1, 1000 and 10000 NOP
 * nodes, of 1000 nodes that use one buffer slot, unbound and bound, and of
 * GET_PARAM, each after a 50 ms sleep, interleaved: each of the 21 rounds
 * makes each of the six calls once, in an order drawn anew for the round, so
 * that a ratio compares calls made under the same conditions and no call
 * always follows the same other one (and pays for what that one left
 * behind). Rounds of one template after the other drift apart: two rounds of
 * 10000-node launches in one boot measured 731 and 501 us at p50, most of
 * the width of the 0.8-1.25 that the ratios are held to.
 */
static const struct {
	unsigned int n;
	enum tpl_bufs bufs;
} tpl_runs[] = {
	{ 1, TPL_NOP }, { 1000, TPL_NOP }, { 10000, TPL_NOP },
	{ 1000, TPL_FILL }, { 1000, TPL_BOUND }, { 1000, TPL_ORDERED },
};

#define TPL_RUNS ARRAY_SIZE(tpl_runs)

/*
 * The other calls of bench_template()'s rounds, each after the same 50 ms
 * sleep: the empty ioctl that the launches are held to, and what a launch
 * cannot do without, so that the ratio says how far a launch is from it:
 * DRM core's own ioctl that puts a fence into a syncobj, a system call that
 * wakes a sleeping thread (a launch wakes the worker that runs its first
 * job), and the submission of a graph of one node (the same 20 ms node that
 * starts the templates' chains), with the stock dispatch (one drm_sched job
 * prepared, armed and pushed, its fence put into the syncobj: what a C
 * drm_sched driver's submission does) and with the graph dispatcher.
 */
enum tpl_ref {
	REF_GET_PARAM,
	REF_SYNCOBJ_SIGNAL,
	REF_FUTEX_WAKE,
	REF_SUBMIT_FIFO,
	REF_SUBMIT,
	TPL_REFS
};

static const char *const tpl_ref_name[] = {
	"GET_PARAM", "SYNCOBJ_SIGNAL", "FUTEX_WAKE of a sleeping thread",
	"1-node submit, stock dispatch", "1-node submit, graph dispatcher",
};

/* The word that REF_FUTEX_WAKE's thread sleeps on; odd to stop it. */
static _Atomic unsigned int sleeper_word;

static void *sleeper(void *arg)
{
	unsigned int seen = 0;

	(void)arg;
	while (!(seen & 1)) {
		while (atomic_load(&sleeper_word) == seen)
			syscall(SYS_futex, &sleeper_word, FUTEX_WAIT, seen, NULL,
				NULL, 0);
		seen = atomic_load(&sleeper_word);
	}
	return NULL;
}

/* Call @ref of a round after a 50 ms sleep; its time to @t. */
static int tpl_ref_call(int fd, enum tpl_ref ref, __u32 syncobj,
			struct tas_graph *one, __u64 *t)
{
	struct drm_syncobj_array sig = {
		.handles = (__u64)(uintptr_t)&syncobj,
		.count_handles = 1,
	};
	__u64 t0;
	int ret = 0;

	usleep(50000);
	t0 = now_ns();
	switch (ref) {
	case REF_GET_PARAM:
		tas_get_param(fd, DRM_TAS_PARAM_VERSION);
		break;
	case REF_SYNCOBJ_SIGNAL:
		ret = ioctl(fd, DRM_IOCTL_SYNCOBJ_SIGNAL, &sig) ? -errno : 0;
		break;
	case REF_FUTEX_WAKE:
		/* The thread has slept for 50 ms: the call wakes it. */
		atomic_fetch_add(&sleeper_word, 2);
		syscall(SYS_futex, &sleeper_word, FUTEX_WAKE, 1, NULL, NULL, 0);
		break;
	case REF_SUBMIT_FIFO:
	case REF_SUBMIT:
		ret = tas_graph_submit(fd, one, ref == REF_SUBMIT_FIFO ?
					DRM_TAS_SUBMIT_FIFO : 0, syncobj, NULL);
		break;
	default:
		return -EINVAL;
	}
	*t = now_ns() - t0;
	if (!ret && ref >= REF_SUBMIT_FIFO)
		ret = tas_wait_syncobj(fd, syncobj, 0, 60);
	return ret;
}

static int bench_template(int fd)
{
	/* Its own generator: the later benchmarks' graphs stay the same. */
	unsigned long long order_seed = 0x9e3779b97f4a7c15ULL;
	__u64 p50[TPL_RUNS], ref[TPL_REFS][TPL_LAUNCHES], ref_p50[TPL_REFS];
	__u64 empty_p50, hot;
	/* The calls of a round: the templates, then the references. */
	unsigned int order[TPL_RUNS + TPL_REFS];
	struct tas_graph one = { 0 };
	struct tpl_run r[TPL_RUNS];
	unsigned int i, j, k, t;
	pthread_t sleeper_thread;
	__u32 syncobj = 0;
	int ret;

	memset(r, 0, sizeof(r));
	atomic_store(&sleeper_word, 0);
	ret = -pthread_create(&sleeper_thread, NULL, sleeper, NULL);
	if (ret)
		return ret;
	ret = tas_graph_init(&one, 1, 0, 1) ? -ENOMEM : 0;
	if (!ret) {
		tas_graph_node(&one, 0, 20 * TAS_MSEC, NULL);
		ret = tas_new_syncobj(fd, &syncobj);
	}
	for (j = 0; !ret && j < TPL_RUNS; j++)
		ret = tpl_run_init(fd, &r[j], tpl_runs[j].n, tpl_runs[j].bufs);
	for (j = 0; j < TPL_RUNS + TPL_REFS; j++)
		order[j] = j;
	for (i = 0; !ret && i < TPL_LAUNCHES; i++) {
		/* Fisher-Yates. */
		for (j = TPL_RUNS + TPL_REFS - 1; j > 0; j--) {
			k = rnd_from(&order_seed, j + 1);
			t = order[j];
			order[j] = order[k];
			order[k] = t;
		}
		for (j = 0; !ret && j < TPL_RUNS + TPL_REFS; j++) {
			if (order[j] < TPL_RUNS) {
				ret = tpl_run_launch(fd, &r[order[j]], i);
				continue;
			}
			k = order[j] - TPL_RUNS;
			ret = tpl_ref_call(fd, k, syncobj, &one, &ref[k][i]);
		}
	}
	for (j = 0; !ret && j < TPL_RUNS; j++)
		p50[j] = tpl_run_report(&r[j]);
	for (j = 0; j < TPL_RUNS; j++)
		tpl_run_fini(fd, &r[j]);
	if (syncobj)
		tas_destroy_syncobj(fd, syncobj);
	tas_graph_free(&one);
	atomic_fetch_add(&sleeper_word, 1);
	syscall(SYS_futex, &sleeper_word, FUTEX_WAKE, 1, NULL, NULL, 0);
	pthread_join(sleeper_thread, NULL);
	if (ret)
		return ret;
	for (k = 0; k < TPL_REFS; k++)
		ref_p50[k] = percentile(ref[k], TPL_LAUNCHES, 50);
	empty_p50 = ref_p50[REF_GET_PARAM];
	hot = empty_ioctl_p50(fd);
	printf("  template launch p50: 1 node %.2f us, 1000 nodes %.2f us, 10000 nodes %.2f us; GET_PARAM p50 %.2f us after a 50 ms sleep, %.2f us back to back\n",
	       p50[0] / 1e3, p50[1] / 1e3, p50[2] / 1e3, empty_p50 / 1e3,
	       hot / 1e3);
	printf("  the rounds' other calls, p50 after a 50 ms sleep:");
	for (k = 0; k < TPL_REFS; k++)
		printf("%s %s %.2f us (%.2f GET_PARAMs)", k ? ";" : "",
		       tpl_ref_name[k], ref_p50[k] / 1e3,
		       empty_p50 ? (double)ref_p50[k] / empty_p50 : 0);
	printf("\n");
	result("template_launch_over_empty_ioctl",
	       empty_p50 ? (double)p50[1] / empty_p50 : 0, "<= 3",
	       "template launch (1000 nodes) / GET_PARAM, medians, both after 50 ms sleeps, interleaved");
	result("submit_1_fifo_over_empty_ioctl",
	       empty_p50 ? (double)ref_p50[REF_SUBMIT_FIFO] / empty_p50 : 0, "-",
	       "submission of one node with the stock dispatch (one drm_sched job armed and pushed, its fence into a syncobj) / GET_PARAM, interleaved with the launches");
	result("template_launch_over_submit_1_fifo",
	       ref_p50[REF_SUBMIT_FIFO] ?
	       (double)p50[1] / ref_p50[REF_SUBMIT_FIFO] : 0, "-",
	       "template launch (1000 nodes) / submission of one node with the stock dispatch, interleaved");
	result("syncobj_signal_over_empty_ioctl",
	       empty_p50 ? (double)ref_p50[REF_SYNCOBJ_SIGNAL] / empty_p50 : 0,
	       "-", "DRM_IOCTL_SYNCOBJ_SIGNAL of one syncobj / GET_PARAM, interleaved with the launches");
	result("futex_wake_over_empty_ioctl",
	       empty_p50 ? (double)ref_p50[REF_FUTEX_WAKE] / empty_p50 : 0,
	       "-", "FUTEX_WAKE of a thread asleep for 50 ms (the waker's system call) / GET_PARAM, interleaved with the launches");
	result("template_launch_1000_over_1",
	       p50[0] ? (double)p50[1] / p50[0] : 0, "0.8-1.25",
	       "launch of a 1000-node / a 1-node template, interleaved");
	result("template_launch_10000_over_1",
	       p50[0] ? (double)p50[2] / p50[0] : 0, "0.8-1.25",
	       "launch of a 10000-node / a 1-node template, interleaved");
	result("template_launch_bound_over_unbound",
	       p50[3] ? (double)p50[4] / p50[3] : 0, "<= 1.25",
	       "launch of a 1000-node template whose nodes all use one buffer slot, with that slot bound to another buffer / without, interleaved");
	result("template_launch_ordered_over_unordered",
	       p50[1] ? (double)p50[5] / p50[1] : 0, "<= 1.25",
	       "launch of a 1000-node template with DRM_TAS_LAUNCH_ORDERED, after an ordered launch still running / without the flag, interleaved (the ordered one releases nothing in the ioctl: its first node is released when the launch before it completes)");
	return 0;
}

static _Atomic unsigned int futex_word;
static _Atomic __u64 woken_ns;
static __u64 wake_sent_ns;

static void *pong(void *arg)
{
	unsigned int i, n = *(unsigned int *)arg;

	for (i = 0; i < n; i++) {
		while (atomic_load(&futex_word) != 2 * i + 1)
			syscall(SYS_futex, &futex_word, FUTEX_WAIT, 2 * i, NULL, NULL, 0);
		atomic_store(&woken_ns, now_ns());
		atomic_store(&futex_word, 2 * i + 2);
		syscall(SYS_futex, &futex_word, FUTEX_WAKE, 1, NULL, NULL, 0);
	}
	return NULL;
}

static pthread_t floor_thread;
static unsigned int floor_rounds;

/* Starts the thread that @n calls of floor_round() wake, one each. */
static int floor_start(unsigned int n)
{
	floor_rounds = n;
	atomic_store(&futex_word, 0);
	return pthread_create(&floor_thread, NULL, pong, &floor_rounds) ? -EAGAIN : 0;
}

/*
 * Round @i (from 0, in order) of floor_start()'s thread: the futex
 * wake-to-run latency of one wake of a thread that has slept 200 us, in ns.
 * After the last round the thread has ended and floor_thread can be joined.
 */
static __u64 floor_round(unsigned int i)
{
	usleep(200);
	wake_sent_ns = now_ns();
	atomic_store(&futex_word, 2 * i + 1);
	syscall(SYS_futex, &futex_word, FUTEX_WAKE, 1, NULL, NULL, 0);
	while (atomic_load(&futex_word) != 2 * i + 2)
		syscall(SYS_futex, &futex_word, FUTEX_WAIT, 2 * i + 1, NULL, NULL, 0);
	return atomic_load(&woken_ns) - wake_sent_ns;
}

/*
 * p50 of the futex wake-to-run latency between two threads, in ns; its p99
 * into @p99 unless NULL.
 */
static __u64 wake_floor(__u64 *p99)
{
	unsigned int i, n = 200;
	__u64 lat[200];

	if (floor_start(n))
		return 0;
	for (i = 0; i < n; i++)
		lat[i] = floor_round(i);
	pthread_join(floor_thread, NULL);
	if (p99)
		*p99 = percentile(lat, n, 99);
	return percentile(lat, n, 50);
}

static __u64 dispatch_p99, hop_p50_alone;

/*
 * The duration of each node of chain_hops()'s chain: none, so that no part of
 * a hop can pass inside a node.
 */
#define HOP_NODE_NS 0

/*
 * Hop latencies of a 101-node chain alternating between rings 0 and 1 (every
 * edge crosses rings), into @lat[100]: what each edge adds to the chain, the
 * time from the predecessor's end to the successor's end less the
 * successor's duration. A ring starts a node that waited on it when the
 * predecessor ends, on the simulated clock, and its work item gets to it
 * later (see "Exact simulated time" in docs/design.md): a lag shorter than
 * the node would be part of the node's time and leave no gap between the
 * two, so the gap alone would not show it, while what the edge adds to the
 * chain does; with nodes of no duration, all of it. With @gate, the chain's
 * first node waits for binary syncobj @gate, which host node 0 of graph
 * @gate_id signals once this reports it done.
 */
static int chain_hops(int fd, unsigned int rings, __u32 gate, __u64 gate_id,
		      __u64 *lat)
{
	struct drm_tas_sync wait = { 0 };
	struct drm_tas_node_info info[101];
	__u32 done = 0;
	__u64 id = 0;
	struct tas_graph_stats st;
	struct tas_graph g;
	unsigned int i, early = 0;
	int ret;

	if (tas_graph_init(&g, 101, 100, rings < 2 ? rings : 2))
		return -ENOMEM;
	for (i = 0; i < 101; i++) {
		tas_graph_node(&g, i, HOP_NODE_NS, NULL);
		if (i)
			tas_graph_edge(&g, i - 1, i);
	}
	if (!gate) {
		ret = tas_graph_run(fd, &g, 0, info, &st);
	} else {
		wait.handle = gate;
		wait.node = 0;
		ret = tas_new_syncobj(fd, &done);
		if (!ret)
			ret = tas_graph_submit_after(fd, &g, 0, &wait, 1, done, &id);
		if (!ret)
			ret = tas_host_done(fd, gate_id, 0, 0);
		if (!ret)
			ret = tas_wait_syncobj(fd, done, 0, 60);
		if (!ret)
			ret = tas_graph_results(fd, id, info, 101, NULL);
	}
	tas_graph_free(&g);
	if (ret)
		return ret;
	for (i = 0; i < 100; i++) {
		__u64 end = info[i].finished_ns + HOP_NODE_NS;

		/* Only a node that started before its predecessor ended. */
		early += info[i + 1].finished_ns < end;
		lat[i] = info[i + 1].finished_ns > end ?
			 info[i + 1].finished_ns - end : 0;
	}
	if (early)
		printf("  %u of 100 nodes of a chain ended less than their duration after their predecessor\n",
		       early);
	return 0;
}

/*
 * The hops of five chains: 500 samples, so that the p99, the denominator of
 * gang_skew_p99_over_dispatch_p99, is not decided by one or two late hops.
 */
#define DISPATCH_CHAINS 5

static int bench_dispatch(int fd, unsigned int rings)
{
	__u64 lat[DISPATCH_CHAINS * 100], floor;
	unsigned int i;
	int ret = 0;

	for (i = 0; !ret && i < DISPATCH_CHAINS; i++)
		ret = chain_hops(fd, rings, 0, 0, lat + 100 * i);
	if (ret)
		return ret;
	hop_p50_alone = percentile(lat, DISPATCH_CHAINS * 100, 50);
	dispatch_p99 = percentile(lat, DISPATCH_CHAINS * 100, 99);
	floor = wake_floor(NULL);
	printf("  dispatch (what a cross-ring edge adds to a chain of nodes of no duration: predecessor finished -> successor finished, %u hops): p50 %.1f us, p99 %.1f us; futex wake p50 %.1f us\n",
	       DISPATCH_CHAINS * 100, hop_p50_alone / 1e3, dispatch_p99 / 1e3,
	       floor / 1e3);
	result("dispatch_p50_over_wake_floor", floor ? (double)hop_p50_alone / floor : 0,
	       "<= 3", "dispatch p50 / futex wake-to-run p50");
	result("cross_ring_hop_p50_over_wake_floor",
	       floor ? (double)hop_p50_alone / floor : 0, "<= 1.5",
	       "the same figure under the name of the one-wake goal: every edge of the chain crosses rings");
	return 0;
}

/*
 * Median latency from the completion of a node to the readiness of a node of
 * another graph that waits for it through a syncobj (both on their own
 * rings), over 21 such pairs. The second graph is submitted while the first
 * node still runs, so that its wait is a fence callback.
 */
static int wait_latency_p50(int fd, unsigned int rings, __u64 *p50)
{
	struct drm_tas_submit_graph a = { 0 }, b = { 0 };
	struct drm_tas_node_info ia, ib;
	struct drm_tas_node na, nb;
	struct drm_tas_sync sig, wait, done;
	__u32 point, end;
	__u64 lat[21];
	unsigned int i;
	int ret;

	ret = tas_new_syncobj(fd, &point);
	if (!ret)
		ret = tas_new_syncobj(fd, &end);
	if (ret)
		return ret;
	memset(&na, 0, sizeof(na));
	na.ring = 1 % rings;
	na.op = DRM_TAS_OP_NOP;
	na.duration_ns = 5 * TAS_MSEC;
	nb = na;
	nb.ring = 2 % rings;
	nb.duration_ns = 10000;
	memset(&sig, 0, sizeof(sig));
	sig.handle = point;
	sig.node = 0;
	wait = sig;
	done = sig;
	done.handle = end;
	a.nodes = tas_array(&na, 1, sizeof(na));
	a.signals = tas_array(&sig, 1, sizeof(sig));
	b.nodes = tas_array(&nb, 1, sizeof(nb));
	b.waits = tas_array(&wait, 1, sizeof(wait));
	b.signals = tas_array(&done, 1, sizeof(done));
	for (i = 0; i < 21 && !ret; i++) {
		if (ioctl(fd, DRM_IOCTL_TAS_SUBMIT_GRAPH, &a) ||
		    ioctl(fd, DRM_IOCTL_TAS_SUBMIT_GRAPH, &b))
			ret = -errno;
		if (!ret)
			ret = tas_wait_syncobj(fd, end, 0, 60);
		if (!ret)
			ret = tas_graph_results(fd, a.graph_id, &ia, 1, NULL);
		if (!ret)
			ret = tas_graph_results(fd, b.graph_id, &ib, 1, NULL);
		if (!ret && ib.ready_ns < ia.finished_ns)
			ret = -EINVAL;
		if (!ret)
			lat[i] = ib.ready_ns - ia.finished_ns;
	}
	if (!ret)
		*p50 = percentile(lat, 21, 50);
	return ret;
}

/*
 * Submits a graph of one host node that signals @gate, then 1000 graphs of
 * one zero-time node on ring 0 that wait for @gate (64 waits each), which
 * stay in flight until the host node is reported done. Returns the host
 * node's graph in @gate_id.
 */
static int submit_gated(int fd, __u32 gate, __u64 *gate_id)
{
	struct drm_tas_sync sig = { 0 }, waits[64];
	struct drm_tas_submit_graph g = { 0 };
	struct drm_tas_node node;
	unsigned int i;

	memset(&node, 0, sizeof(node));
	node.op = DRM_TAS_OP_HOST;
	sig.handle = gate;
	sig.node = DRM_TAS_NODE_GRAPH;
	g.nodes = tas_array(&node, 1, sizeof(node));
	g.signals = tas_array(&sig, 1, sizeof(sig));
	if (ioctl(fd, DRM_IOCTL_TAS_SUBMIT_GRAPH, &g))
		return -errno;
	*gate_id = g.graph_id;
	memset(waits, 0, sizeof(waits));
	for (i = 0; i < 64; i++) {
		waits[i].handle = gate;
		waits[i].node = DRM_TAS_NODE_GRAPH;
	}
	node.op = DRM_TAS_OP_NOP;
	memset(&g, 0, sizeof(g));
	g.nodes = tas_array(&node, 1, sizeof(node));
	g.waits = tas_array(waits, 64, sizeof(waits[0]));
	for (i = 0; i < 1000; i++)
		if (ioctl(fd, DRM_IOCTL_TAS_SUBMIT_GRAPH, &g))
			return -errno;
	return 0;
}

/*
 * The cost of resolving a syncobj wait and of a cross-ring hop must not grow
 * with the graphs in flight: the wait latency and the hop above, alone and
 * with 1000 graphs of the same file in flight that wait (64 waits each) for
 * a host node.
 *
 * Then the hop while those 1000 graphs are released at once on ring 0: the
 * chain's first node waits for the same host node, which the bench reports
 * done once the chain is submitted. (Until this version the first
 * measurement was close to this one by accident: the graphs waited for a
 * 5 s node on ring 0, behind which the chain's nodes on ring 0 waited, and
 * their submission took most of the 5 s.)
 */
static int bench_waits(int fd, unsigned int rings)
{
	__u64 alone = 0, loaded = 0, hops[100], storm[100], id = 0;
	__u32 gate;
	int ret;

	if (rings < 3 || !(tas_get_param(fd, DRM_TAS_PARAM_OPS) & (1u << DRM_TAS_OP_HOST))) {
		result_null("wait_latency_1000_in_flight_ratio", "<= 1.5",
			    "needs 3 rings and host nodes");
		result_null("dispatch_cost_1000_inflight_over_1", "<= 1.5",
			    "needs 3 rings and host nodes");
		result_null("hop_while_1000_released_over_1", "-",
			    "needs 3 rings and host nodes");
		return 0;
	}
	ret = wait_latency_p50(fd, rings, &alone);
	if (!ret)
		ret = tas_new_syncobj(fd, &gate);
	if (!ret)
		ret = submit_gated(fd, gate, &id);
	if (!ret)
		ret = wait_latency_p50(fd, rings, &loaded);
	if (!ret)
		ret = chain_hops(fd, rings, 0, 0, hops);
	/* Not released by the host timeout meanwhile. */
	if (!ret && tas_wait_syncobj(fd, gate, 0, 0) != -ETIME) {
		printf("  the 1000 graphs were released before the measurement ended\n");
		ret = -EAGAIN;
	}
	if (!ret)
		ret = chain_hops(fd, rings, gate, id, storm);
	if (ret)
		return ret;
	printf("  syncobj wait resolution p50: %.1f us alone, %.1f us with 1000 graphs (64 waits each) in flight\n",
	       alone / 1e3, loaded / 1e3);
	printf("  cross-ring hop p50: %.1f us alone, %.1f us with the 1000 graphs in flight, %.1f us while they are released\n",
	       hop_p50_alone / 1e3, percentile(hops, 100, 50) / 1e3,
	       percentile(storm, 100, 50) / 1e3);
	result("dispatch_cost_1000_inflight_over_1",
	       hop_p50_alone ? (double)percentile(hops, 100, 50) / hop_p50_alone : 0, "<= 1.5",
	       "cross-ring hop p50 with 1000 waiting graphs in flight / alone");
	result("hop_while_1000_released_over_1",
	       hop_p50_alone ? (double)percentile(storm, 100, 50) / hop_p50_alone : 0, "-",
	       "cross-ring hop p50 while 1000 waiting graphs are released on one of its rings / alone");
	result("wait_latency_1000_in_flight_ratio",
	       alone ? (double)loaded / alone : 0, "<= 1.5",
	       "wait latency with 1000 graphs waiting / alone");
	return 0;
}

static int bench_gangs(int fd, unsigned int rings)
{
	/*
	 * 300 gangs: the p99 of their skews is the fourth largest, not the
	 * largest, so one late wake-up does not decide it.
	 */
	unsigned int i, k, layer, n_gangs = 300, partial = 0, members = rings < 4 ? rings : 4;
	struct drm_tas_node_info *info;
	struct tas_graph_stats st;
	unsigned int *first;
	__u64 *skew;
	struct tas_graph g;
	int ret;

	if (members < 2)
		return 0;
	if (tas_graph_init(&g, n_gangs * (members + 4), n_gangs * 16, rings))
		return -ENOMEM;
	first = calloc(n_gangs, sizeof(*first));
	skew = calloc(n_gangs, sizeof(*skew));
	info = calloc(g.max_n, sizeof(*info));
	if (!first || !skew || !info)
		return -ENOMEM;
	for (layer = 0; layer < n_gangs; layer++) {
		unsigned int fill = g.n;

		/* Four filler nodes of random length on random rings. */
		for (k = 0; k < 4; k++) {
			tas_graph_node(&g, rnd(rings), (1 + rnd(6)) * TAS_MSEC / 2, NULL);
			if (layer)
				tas_graph_edge(&g, first[layer - 1] + rnd(members), g.n - 1);
		}
		first[layer] = g.n;
		for (k = 0; k < members; k++) {
			unsigned int v = tas_graph_node(&g, k, TAS_MSEC, NULL);

			g.nodes[v].gang = layer + 1;
			/* Each member waits for a different filler. */
			tas_graph_edge(&g, fill + k, v);
		}
	}
	ret = tas_graph_run(fd, &g, 0, info, &st);
	if (!ret) {
		unsigned int late = 0, whole = 0;

		for (i = 0; i < n_gangs; i++) {
			__u64 s0 = ~0ULL, s1 = 0, f0 = ~0ULL;
			unsigned int ran = 0;

			for (k = 0; k < members; k++) {
				const struct drm_tas_node_info *m = &info[first[i] + k];

				ran += m->started_ns && !m->error;
				s0 = m->started_ns < s0 ? m->started_ns : s0;
				s1 = m->started_ns > s1 ? m->started_ns : s1;
				f0 = m->finished_ns < f0 ? m->finished_ns : f0;
			}
			/*
			 * All or nothing: a gang some of whose members ran while
			 * others did not run or failed. A member whose worker
			 * stamped its start only after another member finished
			 * (a loaded guest's wake-up) is late, not partial: every
			 * member held its ring from the barrier on.
			 */
			partial += ran && ran < members;
			if (ran < members)
				continue;
			late += s1 >= f0;
			skew[whole++] = s1 - s0;
		}
		printf("  %u gangs of %u: skew p50 %.1f us, p99 %.1f us over %u whole gangs; %u partial starts, %u started after a member finished\n",
		       n_gangs, members, percentile(skew, whole, 50) / 1e3,
		       percentile(skew, whole, 99) / 1e3, whole, partial, late);
		result("gang_partial_starts", partial, "0",
		       "gangs with members that ran and members that did not run or failed");
		result("gang_late_starts", late, "-",
		       "whole gangs with a member that stamped its start after another finished");
		result("gang_skew_p99_over_dispatch_p99",
		       dispatch_p99 ? (double)percentile(skew, whole, 99) / dispatch_p99 : 0,
		       "<= 1", "gang start skew p99 / dispatch latency p99");
	}
	free(first);
	free(skew);
	free(info);
	tas_graph_free(&g);
	return ret;
}

/* The probes' and the batch nodes' durations. */
#define PROBE_NS	(TAS_MSEC / 2)
#define BATCH_NS	(4 * TAS_MSEC)

/* p99 latency (queued -> finished) of small probes under batch saturation. */
static int latency_probes(int fd, unsigned int rings, int classes, __u64 *p99)
{
	unsigned int i, n_probes = 40, per_ring = 12;
	__u64 lat[40], ids[40], batch_id;
	struct drm_tas_node_info info;
	struct tas_graph g, probe;
	__u32 batch_sync = 0, done = 0;
	int ret;

	if (tas_graph_init(&g, rings * per_ring, 0, rings) ||
	    tas_graph_init(&probe, 1, 0, rings))
		return -ENOMEM;
	for (i = 0; i < rings * per_ring; i++) {
		tas_graph_node(&g, i, BATCH_NS, NULL);
		g.nodes[i].class = classes ? DRM_TAS_CLASS_BATCH : DRM_TAS_CLASS_NORMAL;
	}
	ret = tas_new_syncobj(fd, &batch_sync);
	if (!ret)
		ret = tas_graph_submit(fd, &g, 0, batch_sync, &batch_id);
	for (i = 0; !ret && i < n_probes; i++) {
		probe.n = 0;
		tas_graph_node(&probe, rnd(rings), PROBE_NS, NULL);
		probe.nodes[0].class = classes ? DRM_TAS_CLASS_LATENCY : DRM_TAS_CLASS_NORMAL;
		ret = tas_graph_submit(fd, &probe, 0, 0, &ids[i]);
		usleep(1000);
	}
	if (!ret)
		ret = tas_wait_syncobj(fd, batch_sync, 0, 60);
	for (i = 0; !ret && i < n_probes; i++) {
		do {
			ret = tas_graph_results(fd, ids[i], &info, 1, &done);
			if (!ret && !done)
				usleep(1000);
		} while (!ret && !done);
		lat[i] = info.finished_ns - info.queued_ns;
	}
	if (!ret) {
		*p99 = percentile(lat, n_probes, 99);
		/* The samples, sorted, for tools/tas_viz.py --bench. */
		printf("TAS-BENCH-DATA {\"kind\": \"latency_probes\", \"classes\": %s, \"rings\": %u, \"probe_ns\": %llu, \"batch_ns\": %llu, \"latency_ns\": [",
		       classes ? "true" : "false", rings,
		       (unsigned long long)PROBE_NS,
		       (unsigned long long)BATCH_NS);
		for (i = 0; i < n_probes; i++)
			printf("%s%llu", i ? ", " : "", (unsigned long long)lat[i]);
		printf("]}\n");
	}
	tas_graph_free(&g);
	tas_graph_free(&probe);
	return ret;
}

static int bench_latency(int fd, unsigned int rings)
{
	__u64 without = 0, with = 0;
	int ret;

	rings = rings < 4 ? rings : 4;
	ret = latency_probes(fd, rings, 0, &without);
	if (!ret)
		ret = latency_probes(fd, rings, 1, &with);
	if (ret)
		return ret;
	printf("  0.5 ms probes under batch saturation: p99 %.2f ms without classes, %.2f ms with\n",
	       without / 1e6, with / 1e6);
	result("latency_class_p99_gain", with ? (double)without / with : 0, ">= 5",
	       "probe p99 without classes / with classes");
	return 0;
}

/* The GPU nodes around the host nodes, and the samples of each figure. */
#define HOST_GPU_NS	(TAS_MSEC / 2)
#define HOST_GRAPHS	200
#define HOST_CHAINS	51

/*
 * Submits a GPU node (ring 0) -> a host node, and with @second -> a GPU node
 * (ring 1), as one graph: the host node (node 1) signals point @start_point
 * of @start (0: a binary syncobj) when it is released, the graph point
 * @point of @done when it completes.
 */
static int submit_host_graph(int fd, unsigned int rings, int second,
			     __u32 start, __u64 start_point, __u32 done,
			     __u64 point, __u64 *graph_id)
{
	struct drm_tas_edge edges[2] = { { .from = 0, .to = 1 },
					 { .from = 1, .to = 2 } };
	struct drm_tas_submit_graph submit = { 0 };
	struct drm_tas_node nodes[3];
	struct drm_tas_sync sig[2];

	memset(nodes, 0, sizeof(nodes));
	memset(sig, 0, sizeof(sig));
	nodes[0].op = DRM_TAS_OP_NOP;
	nodes[0].duration_ns = HOST_GPU_NS;
	nodes[1].op = DRM_TAS_OP_HOST;
	nodes[2] = nodes[0];
	nodes[2].ring = 1 % rings;
	sig[0].handle = start;
	sig[0].node = 1;
	sig[0].point = start_point;
	sig[0].flags = DRM_TAS_SYNC_ON_START;
	sig[1].handle = done;
	sig[1].node = DRM_TAS_NODE_GRAPH;
	sig[1].point = point;
	submit.nodes = tas_array(nodes, second ? 3 : 2, sizeof(nodes[0]));
	submit.edges = tas_array(edges, second ? 2 : 1, sizeof(edges[0]));
	submit.signals = tas_array(sig, 2, sizeof(sig[0]));
	if (ioctl(fd, DRM_IOCTL_TAS_SUBMIT_GRAPH, &submit))
		return -errno;
	*graph_id = submit.graph_id;
	return 0;
}

/*
 * One wake of a host node's thread: a graph of a 0.5 ms GPU node -> a host
 * node, the thread waiting for the host node's start point, timeline point
 * @point of @start, or @start as a binary syncobj if @point is 0. Into
 * @lat, from the GPU node's finished_ns to the thread running after its wait
 * returned; into @release, from finished_ns to the host node's release (its
 * started_ns). Returns 1 with a sample, 0 without one (the thread reached
 * its wait only after the GPU node had finished, which measures no wake),
 * or a negative errno.
 */
static int host_wake_one(int fd, unsigned int rings, __u32 start, __u64 point,
			 __u32 done, __u64 done_point, __u64 *lat, __u64 *release)
{
	struct drm_tas_node_info info[2];
	__u64 id, waiting, woke;
	int ret;

	ret = submit_host_graph(fd, rings, 0, start, point, done, done_point, &id);
	waiting = now_ns();
	if (!ret)
		ret = tas_wait_syncobj(fd, start, point, 60);
	woke = now_ns();
	if (!ret)
		ret = tas_host_done(fd, id, 1, 0);
	if (!ret)
		ret = tas_wait_syncobj(fd, done, done_point, 60);
	if (!ret)
		ret = tas_graph_results(fd, id, info, 2, NULL);
	if (!ret && (info[0].error || info[1].error || woke < info[0].finished_ns))
		ret = -EINVAL;
	if (ret || waiting >= info[0].finished_ns)
		return ret;
	*lat = woke - info[0].finished_ns;
	*release = info[1].started_ns > info[0].finished_ns ?
		   info[1].started_ns - info[0].finished_ns : 0;
	return 1;
}

/*
 * The wake of a host node's thread, HOST_GRAPHS times each way, alternating:
 * the thread waits for a point of a timeline syncobj (as a framework that
 * launches a template does), and for a binary syncobj, a new one per graph.
 * Into @lat and @release the samples of the timeline waits (host_wake_one()),
 * their count in @n; into @lat_bin those of the binary waits, their count in
 * @n_bin. Into @floor, a futex wake-to-run latency before each pair
 * (floor_round()): the floor's p50 under TCG moves between about 25 and
 * 70 us from one series of wakes to the next, so it is sampled in the same
 * period as the wakes it is compared with.
 */
static int host_wake(int fd, unsigned int rings, __u64 *lat, __u64 *release,
		     unsigned int *n, __u64 *lat_bin, unsigned int *n_bin,
		     __u64 *floor)
{
	__u32 start, done, bin = 0;
	__u64 unused;
	unsigned int i;
	int ret;

	*n = 0;
	*n_bin = 0;
	ret = floor_start(HOST_GRAPHS);
	if (ret)
		return ret;
	ret = tas_new_syncobj(fd, &start);
	if (!ret)
		ret = tas_new_syncobj(fd, &done);
	for (i = 0; i < HOST_GRAPHS; i++) {
		/* Every round, after an error too: then the floor's thread ends. */
		floor[i] = floor_round(i);
		if (ret < 0)
			continue;
		ret = host_wake_one(fd, rings, start, i + 1, done, 2 * i + 1,
				    &lat[*n], &release[*n]);
		if (ret > 0)
			(*n)++;
		if (ret >= 0)
			ret = tas_new_syncobj(fd, &bin);
		if (ret < 0)
			continue;
		ret = host_wake_one(fd, rings, bin, 0, done, 2 * i + 2,
				    &lat_bin[*n_bin], &unused);
		if (ret > 0)
			(*n_bin)++;
		tas_destroy_syncobj(fd, bin);
	}
	pthread_join(floor_thread, NULL);
	return ret < 0 ? ret : 0;
}

/*
 * GPU (0.5 ms, ring 0) -> CPU -> GPU (0.5 ms, ring 1), from the first submit
 * to the thread seeing the end, HOST_CHAINS times each way, alternating:
 * as one graph with a host node (wait for its start point, report it done,
 * wait for the graph), and driven from userspace (submit the first GPU node,
 * wait for it, submit the second, wait for it). The CPU work itself takes no
 * time. Medians into @graph and @user.
 */
static int host_chain(int fd, unsigned int rings, __u64 *graph, __u64 *user)
{
	__u64 tg[HOST_CHAINS], tu[HOST_CHAINS], t0, id = 0;
	struct drm_tas_submit_graph submit;
	struct drm_tas_node_info info[3];
	struct drm_tas_node node;
	struct drm_tas_sync sig;
	__u32 start, done, step;
	unsigned int i, k;
	int ret;

	ret = tas_new_syncobj(fd, &start);
	if (!ret)
		ret = tas_new_syncobj(fd, &done);
	if (!ret)
		ret = tas_new_syncobj(fd, &step);
	memset(&node, 0, sizeof(node));
	node.op = DRM_TAS_OP_NOP;
	node.duration_ns = HOST_GPU_NS;
	memset(&sig, 0, sizeof(sig));
	sig.handle = step;
	sig.node = DRM_TAS_NODE_GRAPH;
	for (i = 0; !ret && i < HOST_CHAINS; i++) {
		t0 = now_ns();
		ret = submit_host_graph(fd, rings, 1, start, i + 1, done, i + 1, &id);
		if (!ret)
			ret = tas_wait_syncobj(fd, start, i + 1, 60);
		if (!ret)
			ret = tas_host_done(fd, id, 1, 0);
		if (!ret)
			ret = tas_wait_syncobj(fd, done, i + 1, 60);
		tg[i] = now_ns() - t0;
		if (!ret)
			ret = tas_graph_results(fd, id, info, 3, NULL);
		if (!ret && (info[0].error || info[1].error || info[2].error))
			ret = -EINVAL;

		t0 = now_ns();
		for (k = 0; !ret && k < 2; k++) {
			node.ring = k % rings;
			sig.point = 2 * i + k + 1;
			memset(&submit, 0, sizeof(submit));
			submit.nodes = tas_array(&node, 1, sizeof(node));
			submit.signals = tas_array(&sig, 1, sizeof(sig));
			if (ioctl(fd, DRM_IOCTL_TAS_SUBMIT_GRAPH, &submit))
				ret = -errno;
			if (!ret)
				ret = tas_wait_syncobj(fd, step, sig.point, 60);
		}
		tu[i] = now_ns() - t0;
	}
	if (ret)
		return ret;
	*graph = percentile(tg, HOST_CHAINS, 50);
	*user = percentile(tu, HOST_CHAINS, 50);
	return 0;
}

/* Host nodes (uAPI version 6): CPU work inside a graph. */
static int bench_host(int fd, unsigned int rings)
{
	__u64 lat[HOST_GRAPHS], release[HOST_GRAPHS], floor, floor99, p50, p99;
	__u64 alone, alone99 = 0;
	__u64 lat_bin[HOST_GRAPHS], floors[HOST_GRAPHS], graph = 0, user = 0;
	unsigned int n, n_bin;
	int ret;

	if (!(tas_get_param(fd, DRM_TAS_PARAM_OPS) & (1u << DRM_TAS_OP_HOST))) {
		result_null("host_wake_p50_us", "-", "needs host nodes (uAPI version 6)");
		result_null("host_wake_p99_us", "-", "needs host nodes");
		result_null("host_wake_p50_over_wake_floor", "<= 2", "needs host nodes");
		result_null("host_wake_p99_over_wake_floor", "<= 2", "needs host nodes");
		result_null("host_wake_timeline_over_binary", "-", "needs host nodes");
		result_null("host_chain_graph_us", "-", "needs host nodes");
		result_null("host_chain_userspace_us", "-", "needs host nodes");
		result_null("host_chain_graph_over_userspace", "<= 1", "needs host nodes");
		return 0;
	}
	ret = host_wake(fd, rings, lat, release, &n, lat_bin, &n_bin, floors);
	if (!ret)
		ret = host_chain(fd, rings, &graph, &user);
	if (ret)
		return ret;
	/* The floor of the wakes: sampled between them (host_wake()). */
	floor = percentile(floors, HOST_GRAPHS, 50);
	floor99 = percentile(floors, HOST_GRAPHS, 99);
	p50 = percentile(lat, n, 50);
	p99 = percentile(lat, n, 99);
	printf("  host node wake (GPU node finished -> thread running): p50 %.1f us, p99 %.1f us"
	       " over %u of %d graphs; host node released p50 %.1f us after; futex wake between them p50 %.1f us, p99 %.1f us\n",
	       p50 / 1e3, p99 / 1e3, n, HOST_GRAPHS,
	       percentile(release, n, 50) / 1e3, floor / 1e3, floor99 / 1e3);
	/* The same floor measured on its own, for comparison. */
	alone = wake_floor(&alone99);
	printf("  futex wake measured on its own after them: p50 %.1f us, p99 %.1f us\n",
	       alone / 1e3, alone99 / 1e3);
	printf("  GPU -> CPU -> GPU, 0.5 ms nodes: p50 %.1f us as one graph with a host node, %.1f us driven from userspace\n",
	       graph / 1e3, user / 1e3);
	if (n) {
		result("host_wake_p50_us", p50 / 1e3, "-",
		       "GPU node finished -> thread waiting for the host node's start point running, p50");
		result("host_wake_p99_us", p99 / 1e3, "-", "the same, p99");
		result("host_wake_p50_over_wake_floor", floor ? (double)p50 / floor : 0,
		       "<= 2", "host node wake p50 / futex wake-to-run p50, sampled between them");
		result("host_wake_p99_over_wake_floor", floor99 ? (double)p99 / floor99 : 0,
		       "<= 2", "host node wake p99 / futex wake-to-run p99, the same");
	} else {
		result_null("host_wake_p50_us", "-",
			    "the thread never waited before the GPU node finished");
		result_null("host_wake_p99_us", "-", "the same");
		result_null("host_wake_p50_over_wake_floor", "<= 2", "the same");
		result_null("host_wake_p99_over_wake_floor", "<= 2", "the same");
	}
	if (n && n_bin) {
		__u64 bin50 = percentile(lat_bin, n_bin, 50);

		printf("  host node wake through a binary syncobj: p50 %.1f us over %u graphs\n",
		       bin50 / 1e3, n_bin);
		result("host_wake_timeline_over_binary", bin50 ? (double)p50 / bin50 : 0, "-",
		       "host node wake p50, thread waiting for a timeline point / for a binary syncobj");
	} else {
		result_null("host_wake_timeline_over_binary", "-",
			    "the thread never waited before the GPU node finished");
	}
	result("host_chain_graph_us", graph / 1e3, "-",
	       "GPU -> CPU -> GPU as one graph with a host node, submit to end, p50");
	result("host_chain_userspace_us", user / 1e3, "-",
	       "the same chain driven from userspace (submit, wait, submit, wait), p50");
	result("host_chain_graph_over_userspace", user ? (double)graph / user : 0,
	       "<= 1", "the chain as one graph / driven from userspace, medians");
	return 0;
}

static const char *const bench_names[] = {
	"makespan", "models", "clock", "submit", "template",
	"dispatch", "waits", "gangs", "latency", "host",
};

#define NUM_BENCHES	(sizeof(bench_names) / sizeof(bench_names[0]))

/* The benchmarks that run, a bit per entry of bench_names[]. */
static unsigned int benches_wanted = (1U << NUM_BENCHES) - 1;

/*
 * Takes the benchmarks to run from TAS_BENCH, if it names some; false if it
 * names one that does not exist.
 */
static bool parse_bench_list(void)
{
	const char *list = getenv("TAS_BENCH"), *p, *end;
	unsigned int i;

	if (!list || !*list)
		return true;
	benches_wanted = 0;
	for (p = list; *p; p = *end ? end + 1 : end) {
		end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		for (i = 0; i < NUM_BENCHES; i++)
			if (strlen(bench_names[i]) == (size_t)(end - p) &&
			    !strncmp(p, bench_names[i], end - p))
				break;
		if (i == NUM_BENCHES) {
			printf("tas-bench: unknown benchmark '%.*s' in TAS_BENCH\n",
			       (int)(end - p), p);
			return false;
		}
		benches_wanted |= 1U << i;
	}
	return true;
}

/* Whether benchmark @name (an entry of bench_names[]) runs. */
static bool bench_wanted(const char *name)
{
	unsigned int i;

	for (i = 0; i < NUM_BENCHES; i++)
		if (!strcmp(name, bench_names[i]))
			return benches_wanted & (1U << i);
	return false;
}

int main(int argc, char **argv)
{
	char path[PATH_MAX];
	unsigned int rings;
	int fd, ret = 0;

	if (argc > 1)
		seed = strtoull(argv[1], NULL, 0) | 1;
	if (!parse_bench_list())
		return 1;
	fd = tas_open_render(path, sizeof(path));
	if (fd < 0) {
		printf("no tas render node\n");
		return 1;
	}
	rings = tas_get_param(fd, DRM_TAS_PARAM_NUM_RINGS);
	json_len = snprintf(json, sizeof(json), "{");
	printf("tas-bench: %u rings, empty ioctl (GET_PARAM) %.2f us\n", rings,
	       empty_ioctl_p50(fd) / 1e3);
	printf("  %-36s %10s   %-8s %s\n", "key", "value", "goal", "measures");

	if (!ret && bench_wanted("makespan"))
		ret = bench_makespan(fd, rings);
	if (!ret && bench_wanted("models"))
		ret = bench_models(fd, rings);
	/*
	 * After the makespans and the models, as in every full run: right
	 * after boot the clock's tail is noisier (docs/history.md, "The tail of the engine's clock").
	 */
	if (!ret && bench_wanted("clock"))
		ret = bench_clock(fd);
	if (!ret && bench_wanted("submit"))
		ret = bench_submit(fd);
	if (!ret && bench_wanted("template"))
		ret = bench_template(fd);
	if (!ret && bench_wanted("dispatch"))
		ret = bench_dispatch(fd, rings);
	if (!ret && bench_wanted("waits"))
		ret = bench_waits(fd, rings);
	if (!ret && bench_wanted("gangs"))
		ret = bench_gangs(fd, rings);
	if (!ret && bench_wanted("latency"))
		ret = bench_latency(fd, rings);
	if (!ret && bench_wanted("host"))
		ret = bench_host(fd, rings);
	if (benches_wanted == (1U << NUM_BENCHES) - 1)
		result_null("trace_disabled_overhead_pct", "<= 1",
			    "measured by make bench with tools/bench-trace.sh");
	snprintf(json + json_len, MAX_JSON - json_len, "}");
	if (ret)
		printf("tas-bench: failed: %s\n", strerror(-ret));
	printf("TAS-BENCH-JSON %s\n", json);
	close(fd);
	return ret ? 1 : 0;
}
