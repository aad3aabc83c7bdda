// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark of the cost of the drm_sched latency trace events (not part of the
 * series; tools/bench-trace.sh builds it into the base and the patched kernel).
 *
 * Each round pushes BENCH_JOBS dependency-free jobs through the mock scheduler
 * and times push -> last job scheduled: the path where the series records its
 * timestamps and emits its events. Rounds alternate between the events off
 * and on (where the kernel has them), so the on/off ratio is measured in one
 * run. The per-round results are printed for the script; nothing is asserted
 * about time.
 */

#include <linux/ktime.h>
#include <linux/sort.h>
#include <linux/trace_events.h>

#include "sched_tests.h"

#define BENCH_JOBS	2000
#define BENCH_ROUNDS	15

static const char * const bench_events[] = {
	"drm_sched_job_deps_resolved",
	"drm_sched_job_dispatch",
};

static int bench_set_events(bool on)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(bench_events); i++) {
		ret = trace_set_clr_event("gpu_scheduler", bench_events[i], on);
		if (ret)
			return ret;
	}
	return 0;
}

static s64 bench_round(struct kunit *test)
{
	struct drm_mock_scheduler *sched = drm_mock_sched_new(test, MAX_SCHEDULE_TIMEOUT);
	struct drm_mock_sched_entity *entity;
	struct drm_mock_sched_job **jobs;
	ktime_t t0, t1;
	int i;

	jobs = kunit_kcalloc(test, BENCH_JOBS, sizeof(*jobs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, jobs);
	entity = drm_mock_sched_entity_new(test, DRM_SCHED_PRIORITY_NORMAL, sched);
	for (i = 0; i < BENCH_JOBS; i++)
		jobs[i] = drm_mock_sched_job_new(test, entity);

	t0 = ktime_get();
	for (i = 0; i < BENCH_JOBS; i++)
		drm_mock_sched_job_submit(jobs[i]);
	KUNIT_ASSERT_TRUE(test, drm_mock_sched_job_wait_scheduled(jobs[BENCH_JOBS - 1],
								  10 * HZ));
	t1 = ktime_get();

	KUNIT_ASSERT_EQ(test, drm_mock_sched_advance(sched, BENCH_JOBS), BENCH_JOBS);
	KUNIT_ASSERT_TRUE(test, drm_mock_sched_job_wait_finished(jobs[BENCH_JOBS - 1], 10 * HZ));
	drm_mock_sched_entity_free(entity);
	drm_mock_sched_fini(sched);

	return ktime_to_ns(ktime_sub(t1, t0)) / BENCH_JOBS;
}

static int bench_cmp(const void *a, const void *b)
{
	s64 x = *(const s64 *)a, y = *(const s64 *)b;

	return x < y ? -1 : x > y;
}

static void drm_sched_trace_bench(struct kunit *test)
{
	s64 off[BENCH_ROUNDS], on[BENCH_ROUNDS];
	bool have_events = bench_set_events(false) == 0;
	int r;

	bench_round(test); /* warm-up */
	for (r = 0; r < BENCH_ROUNDS; r++) {
		/* Alternate which mode goes first, so that neither always follows. */
		if (r % 2 == 0)
			off[r] = bench_round(test);
		if (have_events) {
			KUNIT_ASSERT_EQ(test, bench_set_events(true), 0);
			on[r] = bench_round(test);
			KUNIT_ASSERT_EQ(test, bench_set_events(false), 0);
		}
		if (r % 2 == 1)
			off[r] = bench_round(test);
	}
	sort(off, BENCH_ROUNDS, sizeof(s64), bench_cmp, NULL);
	kunit_info(test, "tas-bench: events=off ns_per_job_median=%lld min=%lld max=%lld\n",
		   off[BENCH_ROUNDS / 2], off[0], off[BENCH_ROUNDS - 1]);
	if (have_events) {
		sort(on, BENCH_ROUNDS, sizeof(s64), bench_cmp, NULL);
		kunit_info(test, "tas-bench: events=on ns_per_job_median=%lld min=%lld max=%lld\n",
			   on[BENCH_ROUNDS / 2], on[0], on[BENCH_ROUNDS - 1]);
	} else {
		kunit_info(test, "tas-bench: events=absent\n");
	}
}

static struct kunit_case drm_sched_trace_bench_cases[] = {
	KUNIT_CASE_SLOW(drm_sched_trace_bench),
	{}
};

static struct kunit_suite drm_sched_trace_bench_suite = {
	.name = "drm_sched_trace_bench",
	.test_cases = drm_sched_trace_bench_cases,
};

kunit_test_suite(drm_sched_trace_bench_suite);
