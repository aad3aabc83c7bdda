// SPDX-License-Identifier: GPL-2.0
/*
 * tas-graphs-test: tests of the graph measures that tas-bench and tas-demo
 * report (tas_graphs.h), on graphs whose schedules are worked out by hand.
 * Runs on the host; needs no device. Prints TAP.
 */

#include "tas_graphs.h"

static unsigned int tests, failures;

static void expect(int ok, const char *what, unsigned long long got,
		   unsigned long long want)
{
	tests++;
	if (ok) {
		printf("ok %u - %s\n", tests, what);
		return;
	}
	failures++;
	printf("not ok %u - %s: got %llu, want %llu\n", tests, what, got, want);
}

#define EXPECT_EQ(what, got, want) \
	expect((got) == (want), what, (unsigned long long)(got), \
	       (unsigned long long)(want))

/* Node @i ran for @ns. */
static void ran(struct drm_tas_node_info *info, unsigned int i, __u64 ns)
{
	info[i].queued_ns = 1000;
	info[i].started_ns = 1000;
	info[i].finished_ns = 1000 + ns;
}

/* Adds a node of @ns on @ring to @g that ran for its duration in @info. */
static void node(struct tas_graph *g, struct drm_tas_node_info *info,
		 unsigned int ring, __u64 ns, const char *name)
{
	ran(info, tas_graph_node(g, ring, ns, name), ns);
}

/*
 * Builds the graph of test_two_rings() into @g, each node run for its
 * duration in @info.
 */
static void two_rings(struct tas_graph *g, struct drm_tas_node_info *info)
{
	if (tas_graph_init(g, 4, 1, 2))
		abort();
	node(g, info, 0, 10, "A");
	node(g, info, 1, 10, "B");
	node(g, info, 1, 5, "C");
	node(g, info, 0, 30, "D");
	tas_graph_edge(g, 0, 1);
}

/*
 * Builds the graph of test_zero_time_chain() into @g, each node run for its
 * duration in @info.
 */
static void zero_time_chain(struct tas_graph *g, struct drm_tas_node_info *info)
{
	unsigned int i;

	if (tas_graph_init(g, 4, 3, 1))
		abort();
	for (i = 0; i < 4; i++)
		node(g, info, 0, i == 3 ? 7 : 0, "z");
	for (i = 0; i < 3; i++)
		tas_graph_edge(g, i, i + 1);
}

/*
 * Two rings. A (ring 0, 10) -> B (ring 1, 10); C (ring 1, 5) and D (ring 0,
 * 30) independent. Longest paths to the end: A 20, B 10, C 5, D 30. Ring 0
 * runs D first (0-30), then A (30-40); B runs 40-50; C 0-5 on ring 1. In
 * index order it would take 40: what is simulated is the dispatcher's
 * policy without its cost, not the best schedule.
 */
static void test_two_rings(void)
{
	struct drm_tas_node_info info[4] = { 0 };
	struct tas_graph_stats st;
	struct tas_graph g;

	two_rings(&g, info);
	EXPECT_EQ("two rings: zero-cost schedule", tas_graph_simulate(&g, info), 50ULL);
	/* As if ring 0 had run A first: B at 10-20, D at 10-40, makespan 40. */
	info[3].started_ns = 1010;
	info[3].finished_ns = 1040;
	info[1].started_ns = 1010;
	info[1].finished_ns = 1020;
	tas_graph_measure(&g, info, 2, &st);
	EXPECT_EQ("two rings: makespan", st.makespan, 40ULL);
	EXPECT_EQ("two rings: critical path", st.critical_path, 30ULL);
	EXPECT_EQ("two rings: busiest ring", st.busiest_ring, 40ULL);
	EXPECT_EQ("two rings: work", st.work, 55ULL);
	EXPECT_EQ("two rings: makespan / bound (x1000)",
		  (unsigned long long)(st.bound_ratio * 1000 + 0.5), 1000ULL);
	EXPECT_EQ("two rings: executed / nominal (x1000)",
		  (unsigned long long)(st.exec_sum_over_nominal * 1000 + 0.5), 1000ULL);
	/* C ends 5 late: 60 executed against 55 nominal. */
	info[2].finished_ns += 5;
	tas_graph_measure(&g, info, 2, &st);
	EXPECT_EQ("two rings: a late node, executed / nominal (x1000)",
		  (unsigned long long)(st.exec_sum_over_nominal * 1000 + 0.5), 1091ULL);
	/* The schedule of the nominal durations does not see it. */
	EXPECT_EQ("two rings: a late node, nominal zero-cost schedule",
		  st.nominal_ideal, 50ULL);
	tas_graph_free(&g);
}

/*
 * The graph of test_two_rings() with dependency gaps of 1 within a ring and
 * 4 across, and a ring gap of 2: ring 0 runs D (0-30), then A (32-42); B is
 * released at 46 and runs 46-56. The chain of test_zero_time_chain() with a
 * gap of 2 within its ring, which the ring gap of 1 does not add to: its
 * nodes start at 0, 2 and 4, the last at 6, ending at 13.
 */
static void test_gaps_schedule(void)
{
	static const __u64 gaps[TAS_GAPS] = { 1, 4, 2 };
	static const __u64 chain_gaps[TAS_GAPS] = { 2, 100, 1 };
	struct drm_tas_node_info info[4] = { 0 };
	struct tas_graph g;

	two_rings(&g, info);
	EXPECT_EQ("gaps: two rings", tas_graph_simulate_gaps(&g, info, gaps), 56ULL);
	tas_graph_free(&g);

	memset(info, 0, sizeof(info));
	zero_time_chain(&g, info);
	EXPECT_EQ("gaps: chain within a ring",
		  tas_graph_simulate_gaps(&g, info, chain_gaps), 13ULL);
	tas_graph_free(&g);
}

/* Node @i of a run started at @start and finished at @end. */
static void ran_at(struct drm_tas_node_info *info, unsigned int i, __u64 start,
		   __u64 end)
{
	info[i].queued_ns = 1000;
	info[i].started_ns = start;
	info[i].finished_ns = end;
}

/*
 * The gaps of a run. A (ring 0) ends at 1010. B (ring 1) starts 7 later: a
 * dependency gap of 7 across rings. C (ring 0) starts 3 later: 3 within a
 * ring. F (ring 2) starts 3 later too, but waited for E on its ring, which
 * ended at 1012, not for A: a ring gap of 1. E, the first on its ring and
 * without predecessors, has none. H (ring 3) waits for A and C, and starts
 * 6 after C, its last predecessor: 6 across rings. I (ring 3) waits for B,
 * which ended at 1027, and starts 3 after H, which ended later: a ring gap
 * of 3. The medians of two are the upper ones, of the sorted gaps: 7 across
 * rings (of 7 and 6), 3 on a ring (of 1 and 3).
 */
static void test_dep_gaps(void)
{
	struct drm_tas_node_info info[7] = { 0 };
	struct tas_graph g;
	__u64 gap[TAS_GAPS];

	if (tas_graph_init(&g, 7, 6, 4))
		abort();
	tas_graph_node(&g, 0, 10, "A");
	tas_graph_node(&g, 1, 10, "B");
	tas_graph_node(&g, 0, 7, "C");
	tas_graph_node(&g, 2, 12, "E");
	tas_graph_node(&g, 2, 2, "F");
	tas_graph_node(&g, 3, 1, "H");
	tas_graph_node(&g, 3, 1, "I");
	ran_at(info, 0, 1000, 1010);
	ran_at(info, 1, 1017, 1027);
	ran_at(info, 2, 1013, 1020);
	ran_at(info, 3, 1000, 1012);
	ran_at(info, 4, 1013, 1015);
	ran_at(info, 5, 1026, 1028);
	ran_at(info, 6, 1031, 1032);
	tas_graph_edge(&g, 0, 1);
	tas_graph_edge(&g, 0, 2);
	tas_graph_edge(&g, 0, 4);
	tas_graph_edge(&g, 0, 5);
	tas_graph_edge(&g, 2, 5);
	tas_graph_edge(&g, 1, 6);
	EXPECT_EQ("gaps: computed", tas_graph_dep_gaps(&g, info, gap), 0);
	EXPECT_EQ("dependency gaps: within a ring", gap[TAS_GAP_WITHIN], 3ULL);
	EXPECT_EQ("dependency gaps: across rings", gap[TAS_GAP_ACROSS], 7ULL);
	EXPECT_EQ("ring gaps", gap[TAS_GAP_RING], 3ULL);
	/*
	 * B, F, H and I had their last predecessor on another ring; B became
	 * ready at A's end, the others later.
	 */
	info[1].ready_ns = 1010;
	info[4].ready_ns = 1011;
	info[5].ready_ns = 1021;
	info[6].ready_ns = 1031;
	EXPECT_EQ("waits on the ring: one in four",
		  (__u64)(tas_graph_on_ring_share(&g, info) * 100), 25ULL);
	tas_graph_free(&g);
}

/* A chain of three zero-time nodes, then one of 7: the chain costs nothing. */
static void test_zero_time_chain(void)
{
	struct drm_tas_node_info info[4] = { 0 };
	struct tas_graph g;

	zero_time_chain(&g, info);
	EXPECT_EQ("zero-time chain: zero-cost schedule", tas_graph_simulate(&g, info), 7ULL);
	tas_graph_free(&g);
}

/*
 * Fan-in across rings: X (ring 0, 4) and Y (ring 1, 6) both before Z (ring
 * 2, 3); W (ring 2, 5) independent. Ring 2 runs W at 0-5, the only one of
 * its nodes ready then, and Z at 6-9, once Y has finished.
 */
static void test_fan_in(void)
{
	struct drm_tas_node_info info[4] = { 0 };
	struct tas_graph g;

	if (tas_graph_init(&g, 4, 2, 3))
		abort();
	node(&g, info, 0, 4, "X");
	node(&g, info, 1, 6, "Y");
	node(&g, info, 2, 3, "Z");
	node(&g, info, 2, 5, "W");
	tas_graph_edge(&g, 0, 2);
	tas_graph_edge(&g, 1, 2);
	EXPECT_EQ("fan-in: zero-cost schedule", tas_graph_simulate(&g, info), 9ULL);
	EXPECT_EQ("fan-in: critical path", tas_graph_critical_path(&g, info), 9ULL);
	tas_graph_free(&g);
}

/*
 * The transformer of the demo and the bench, every node run for its nominal
 * duration: the zero-cost schedule lies between the lower bound and the sum
 * of all work.
 */
static void test_transformer(void)
{
	struct drm_tas_node_info info[TAS_TF_MAX_NODES] = { 0 };
	struct tas_graph_stats st;
	struct tas_graph g;
	unsigned int i;
	__u64 lower;

	if (tas_graph_init(&g, TAS_TF_MAX_NODES, TAS_TF_MAX_EDGES, TAS_TF_RINGS))
		abort();
	tas_graph_transformer(&g, 1);
	for (i = 0; i < g.n; i++)
		ran(info, i, g.nodes[i].duration_ns);
	tas_graph_measure(&g, info, g.num_rings, &st);
	lower = st.busiest_ring > st.critical_path ? st.busiest_ring :
						     st.critical_path;
	expect(st.ideal >= lower && st.ideal <= st.work,
	       "transformer: bound <= zero-cost schedule <= work", st.ideal,
	       lower);
	tas_graph_free(&g);
}

/*
 * The graphs exported from real models (tools/export-graphs.py) in @dir:
 * each loads, and with every node run for its nominal duration the
 * zero-cost schedule lies between the lower bound and the sum of all work.
 */
static void test_exported(const char *dir)
{
	struct dirent **list;
	char path[512], name[TAS_NAME_LEN];
	int i, count;

	count = scandir(dir, &list, tas_graph_file, alphasort);
	expect(count > 0, "exported graphs: found", count > 0 ? count : 0, 1);
	for (i = 0; i < count; i++) {
		struct drm_tas_node_info *info;
		struct tas_graph_stats st;
		struct tas_graph g;
		unsigned int j;
		__u64 lower;
		int ret;

		snprintf(path, sizeof(path), "%s/%s", dir, list[i]->d_name);
		free(list[i]);
		ret = tas_graph_load(&g, path, TAS_MAX_RINGS, name);
		expect(!ret, path, -ret, 0);
		if (ret)
			continue;
		info = calloc(g.n, sizeof(*info));
		if (!info)
			abort();
		for (j = 0; j < g.n; j++)
			ran(info, j, g.nodes[j].duration_ns);
		tas_graph_measure(&g, info, g.num_rings, &st);
		lower = st.busiest_ring > st.critical_path ? st.busiest_ring :
							     st.critical_path;
		printf("# %s: %u nodes, %u edges, bound %.2f ms, zero-cost schedule %.2f ms, work %.2f ms\n",
		       name, g.n, g.e, lower / 1e6, st.ideal / 1e6, st.work / 1e6);
		snprintf(path, sizeof(path),
			 "%s: bound <= zero-cost schedule <= work", name);
		expect(st.ideal >= lower && st.ideal <= st.work, path, st.ideal,
		       lower);
		free(info);
		tas_graph_free(&g);
	}
	if (count > 0)
		free(list);
}

/* A file that does not follow the format is refused with -EINVAL. */
static void test_load_errors(void)
{
	static const char * const bad[] = {
		"tas-graph 1 x 2 1 0\nn 2 1000 a\n",		/* ring */
		"tas-graph 1 x 2 2 1\nn 0 1 a\nn 1 1 b\ne 1 0\n",	/* order */
		"tas-graph 1 x 2 2 0\nn 0 1 a\n",		/* count */
		"tas-graph 1 x 99 1 0\nn 0 1 a\n",		/* rings */
		"n 0 1 a\n",					/* header */
	};
	char path[] = "/tmp/tas-graphs-test-XXXXXX", name[TAS_NAME_LEN];
	struct tas_graph g;
	unsigned int i;
	int fd, ret;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		strcpy(path, "/tmp/tas-graphs-test-XXXXXX");
		fd = mkstemp(path);
		if (fd < 0 || write(fd, bad[i], strlen(bad[i])) < 0)
			abort();
		close(fd);
		ret = tas_graph_load(&g, path, TAS_MAX_RINGS, name);
		unlink(path);
		EXPECT_EQ("load: malformed file refused", -ret, EINVAL);
	}
}

/* Usage: tas-graphs-test [DIR of exported graphs, e.g. bench/graphs] */
int main(int argc, char **argv)
{
	test_two_rings();
	test_zero_time_chain();
	test_fan_in();
	test_gaps_schedule();
	test_dep_gaps();
	test_transformer();
	test_load_errors();
	if (argc > 1)
		test_exported(argv[1]);
	printf("1..%u\n", tests);
	printf("tas-graphs-test: %u passed, %u failed\n", tests - failures,
	       failures);
	return failures ? 1 : 0;
}
