// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the scheduler latency trace events.
 *
 * Probes are attached to drm_sched_job_queue, drm_sched_job_deps_resolved and
 * drm_sched_job_dispatch. The tests check the order of the events and bound
 * the durations they carry by timestamps taken around known delays.
 */

#include <linux/delay.h>
#include <linux/dma-fence.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/tracepoint.h>

#include "sched_tests.h"
#include "../gpu_scheduler_trace.h"

#define TRACE_TEST_DELAY_MS	20
#define TRACE_TEST_MAX_RECS	16

enum trace_test_kind {
	TRACE_QUEUE,
	TRACE_DEPS_RESOLVED,
	TRACE_DISPATCH,
};

struct trace_test_rec {
	enum trace_test_kind kind;
	struct drm_sched_job *job;
	u64 client_id;
	int prio;
	u32 chain_depth;
	u64 tag;
	s64 deps_ns;
	s64 wait_ns;
	s64 ready_ns;
};

struct trace_test_log {
	spinlock_t lock; /* protects the fields below */
	unsigned int count;
	bool overflow;
	struct trace_test_rec recs[TRACE_TEST_MAX_RECS];
};

static void trace_test_record(struct trace_test_log *log,
			      enum trace_test_kind kind,
			      struct drm_sched_job *job)
{
	struct trace_test_rec *rec;
	unsigned long flags;

	spin_lock_irqsave(&log->lock, flags);
	if (log->count == TRACE_TEST_MAX_RECS) {
		log->overflow = true;
		goto out;
	}
	rec = &log->recs[log->count++];
	rec->kind = kind;
	rec->job = job;
	rec->client_id = job->s_fence->drm_client_id;
	rec->prio = job->s_priority;
	rec->chain_depth = job->chain_depth;
	rec->tag = job->tag;
	rec->deps_ns = drm_sched_job_deps_ns(job);
	rec->wait_ns = drm_sched_job_wait_ns(job);
	rec->ready_ns = ktime_to_ns(ktime_sub(job->dispatch_ts, job->deps_resolved_ts));
out:
	spin_unlock_irqrestore(&log->lock, flags);
}

static void trace_test_probe_queue(void *data, struct drm_sched_job *job,
				   struct drm_sched_entity *entity)
{
	trace_test_record(data, TRACE_QUEUE, job);
}

static void trace_test_probe_deps(void *data, struct drm_sched_job *job)
{
	trace_test_record(data, TRACE_DEPS_RESOLVED, job);
}

static void trace_test_probe_dispatch(void *data, struct drm_sched_job *job)
{
	trace_test_record(data, TRACE_DISPATCH, job);
}

static void trace_test_unregister(struct trace_test_log *log)
{
	unregister_trace_drm_sched_job_dispatch(trace_test_probe_dispatch, log);
	unregister_trace_drm_sched_job_deps_resolved(trace_test_probe_deps, log);
	unregister_trace_drm_sched_job_queue(trace_test_probe_queue, log);
	tracepoint_synchronize_unregister();
}

static void trace_test_register(struct kunit *test, struct trace_test_log *log)
{
	int ret;

	ret = register_trace_drm_sched_job_queue(trace_test_probe_queue, log);
	KUNIT_ASSERT_EQ(test, ret, 0);
	ret = register_trace_drm_sched_job_deps_resolved(trace_test_probe_deps, log);
	KUNIT_ASSERT_EQ(test, ret, 0);
	ret = register_trace_drm_sched_job_dispatch(trace_test_probe_dispatch, log);
	KUNIT_ASSERT_EQ(test, ret, 0);
}

static int drm_sched_trace_init(struct kunit *test)
{
	struct trace_test_log *log;

	log = kunit_kzalloc(test, sizeof(*log), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, log);
	spin_lock_init(&log->lock);
	/* Set first so that the exit callback unregisters what was registered. */
	test->priv = log;

	if (!IS_ENABLED(CONFIG_TRACEPOINTS))
		kunit_skip(test, "tracepoints are not enabled");

	trace_test_register(test, log);

	return 0;
}

static void drm_sched_trace_exit(struct kunit *test)
{
	struct trace_test_log *log = test->priv;

	if (log)
		trace_test_unregister(log);
}

/* Returns the index of the event @kind of @job in the log, or -1. */
static int trace_test_find(struct trace_test_log *log,
			   enum trace_test_kind kind,
			   struct drm_sched_job *job)
{
	unsigned long flags;
	unsigned int i;
	int found = -1;

	spin_lock_irqsave(&log->lock, flags);
	for (i = 0; i < log->count; i++) {
		if (log->recs[i].kind == kind && log->recs[i].job == job) {
			found = i;
			break;
		}
	}
	spin_unlock_irqrestore(&log->lock, flags);

	return found;
}

/* Asserts the three events of @job are present, in order, and consistent. */
static void trace_test_check_job(struct kunit *test, struct trace_test_log *log,
				 struct drm_mock_sched_job *job)
{
	struct trace_test_rec *deps, *dispatch;
	int q, d, s;

	KUNIT_ASSERT_FALSE(test, log->overflow);

	q = trace_test_find(log, TRACE_QUEUE, &job->base);
	d = trace_test_find(log, TRACE_DEPS_RESOLVED, &job->base);
	s = trace_test_find(log, TRACE_DISPATCH, &job->base);
	KUNIT_ASSERT_GE(test, q, 0);
	KUNIT_ASSERT_GT(test, d, q);
	KUNIT_ASSERT_GT(test, s, d);

	deps = &log->recs[d];
	dispatch = &log->recs[s];
	KUNIT_EXPECT_EQ(test, dispatch->client_id, 1);
	KUNIT_EXPECT_EQ(test, dispatch->prio, DRM_SCHED_PRIORITY_NORMAL);

	/* deps_resolved_ts is final once the job left its entity. */
	KUNIT_EXPECT_EQ(test, deps->deps_ns, dispatch->deps_ns);
	KUNIT_EXPECT_GE(test, dispatch->deps_ns, 0);
	KUNIT_EXPECT_GE(test, dispatch->ready_ns, 0);
	KUNIT_EXPECT_EQ(test, dispatch->wait_ns,
			dispatch->deps_ns + dispatch->ready_ns);
}

static const char *trace_test_fence_name(struct dma_fence *fence)
{
	return "drm_sched_trace_test";
}

static const struct dma_fence_ops trace_test_fence_ops = {
	.get_driver_name = trace_test_fence_name,
	.get_timeline_name = trace_test_fence_name,
};

struct trace_test_fence {
	struct dma_fence base;
	spinlock_t lock; /* fence lock */
};

static struct dma_fence *trace_test_fence_new(struct kunit *test)
{
	struct trace_test_fence *f;

	/* Freed by the default dma_fence release when the last ref is gone. */
	f = kzalloc_obj(*f);
	KUNIT_ASSERT_NOT_NULL(test, f);
	spin_lock_init(&f->lock);
	dma_fence_init(&f->base, &trace_test_fence_ops, &f->lock,
		       dma_fence_context_alloc(1), 1);

	return &f->base;
}

/*
 * Runs one job, with @dep as its dependency if not NULL, and checks that it
 * resolved exactly at push time.
 */
static void trace_test_resolved_at_push(struct kunit *test, struct dma_fence *dep)
{
	struct drm_mock_scheduler *sched = drm_mock_sched_new(test, MAX_SCHEDULE_TIMEOUT);
	struct trace_test_log *log = test->priv;
	struct drm_mock_sched_entity *entity;
	struct drm_mock_sched_job *job;

	entity = drm_mock_sched_entity_new(test, DRM_SCHED_PRIORITY_NORMAL, sched);
	job = drm_mock_sched_job_new(test, entity);
	if (dep)
		KUNIT_ASSERT_EQ(test, drm_sched_job_add_dependency(&job->base,
								   dma_fence_get(dep)), 0);
	drm_mock_sched_job_submit(job);
	KUNIT_ASSERT_TRUE(test, drm_mock_sched_job_wait_scheduled(job, HZ));

	trace_test_check_job(test, log, job);
	KUNIT_EXPECT_EQ(test, log->recs[trace_test_find(log, TRACE_DISPATCH,
							&job->base)].deps_ns, 0);
	/* A driver that sets no tag: drm_sched_job_init() zeroed it. */
	KUNIT_EXPECT_EQ(test, log->recs[trace_test_find(log, TRACE_DISPATCH,
							&job->base)].tag, 0);
	KUNIT_EXPECT_EQ(test, ktime_compare(job->base.deps_resolved_ts,
					    job->base.submit_ts), 0);

	drm_mock_sched_advance(sched, 1);
	KUNIT_ASSERT_TRUE(test, drm_mock_sched_job_wait_finished(job, HZ));
	drm_mock_sched_entity_free(entity);
	drm_mock_sched_fini(sched);
}

/* Nothing to wait for: resolved at push time. */
static void drm_sched_trace_no_deps(struct kunit *test)
{
	trace_test_resolved_at_push(test, NULL);
}

/* A dependency that signalled before the push is not waited for. */
static void drm_sched_trace_signaled_dep(struct kunit *test)
{
	struct dma_fence *fence = trace_test_fence_new(test);

	dma_fence_signal(fence);
	trace_test_resolved_at_push(test, fence);
	dma_fence_put(fence);
}

/*
 * Job A waits for a fence signalled TRACE_TEST_DELAY_MS after the push; job B,
 * queued behind A on the same entity, has no dependency. A's deps_ns covers
 * the delay; B is resolved at once but its ready_ns shows the time it was
 * held behind A (head-of-line blocking in the entity's FIFO).
 */
static void drm_sched_trace_dep_delay(struct kunit *test)
{
	struct drm_mock_scheduler *sched = drm_mock_sched_new(test, MAX_SCHEDULE_TIMEOUT);
	struct trace_test_log *log = test->priv;
	struct drm_mock_sched_entity *entity;
	struct drm_mock_sched_job *a, *b;
	struct trace_test_rec *ra, *rb;
	ktime_t t0, ta, tb, ts, t1;
	struct dma_fence *fence;

	fence = trace_test_fence_new(test);

	entity = drm_mock_sched_entity_new(test, DRM_SCHED_PRIORITY_NORMAL, sched);
	a = drm_mock_sched_job_new(test, entity);
	b = drm_mock_sched_job_new(test, entity);
	KUNIT_ASSERT_EQ(test, drm_sched_job_add_dependency(&a->base,
							   dma_fence_get(fence)), 0);

	t0 = ktime_get();
	drm_mock_sched_job_submit(a);
	ta = ktime_get();
	drm_mock_sched_job_submit(b);
	tb = ktime_get();

	msleep(TRACE_TEST_DELAY_MS);
	KUNIT_EXPECT_FALSE(test, dma_fence_is_signaled(&a->base.s_fence->scheduled));
	KUNIT_EXPECT_LT(test, trace_test_find(log, TRACE_DEPS_RESOLVED, &a->base), 0);
	ts = ktime_get();
	dma_fence_signal(fence);
	t1 = ktime_get();
	/* The clock, not the nominal sleep, is what the events measure. */
	KUNIT_ASSERT_GT(test, ktime_to_ns(ktime_sub(ts, tb)), 0);

	KUNIT_ASSERT_TRUE(test, drm_mock_sched_job_wait_scheduled(a, HZ));
	KUNIT_ASSERT_TRUE(test, drm_mock_sched_job_wait_scheduled(b, HZ));

	trace_test_check_job(test, log, a);
	trace_test_check_job(test, log, b);

	ra = &log->recs[trace_test_find(log, TRACE_DISPATCH, &a->base)];
	rb = &log->recs[trace_test_find(log, TRACE_DISPATCH, &b->base)];
	KUNIT_EXPECT_LT(test, trace_test_find(log, TRACE_DISPATCH, &a->base),
			trace_test_find(log, TRACE_DISPATCH, &b->base));

	/* A: pushed in [t0, ta], its fence signalled in [ts, t1]. */
	KUNIT_EXPECT_GE(test, ra->deps_ns, ktime_to_ns(ktime_sub(ts, ta)));
	KUNIT_EXPECT_LE(test, ra->deps_ns, ktime_to_ns(ktime_sub(t1, t0)));
	KUNIT_EXPECT_EQ(test, ktime_compare(a->base.deps_resolved_ts,
					    fence->timestamp), 0);

	/* B: nothing to wait for, but dispatched only after A's dependency. */
	KUNIT_EXPECT_EQ(test, rb->deps_ns, 0);
	KUNIT_EXPECT_GE(test, rb->ready_ns, ktime_to_ns(ktime_sub(ts, tb)));
	KUNIT_EXPECT_TRUE(test, ktime_after(b->base.dispatch_ts, fence->timestamp));

	drm_mock_sched_advance(sched, 2);
	KUNIT_ASSERT_TRUE(test, drm_mock_sched_job_wait_finished(b, HZ));
	drm_mock_sched_entity_free(entity);
	drm_mock_sched_fini(sched);
	dma_fence_put(fence);
}

/* A dependency on another scheduler's job resolves when that job finishes. */
static void drm_sched_trace_cross_sched_dep(struct kunit *test)
{
	struct drm_mock_scheduler *s1 = drm_mock_sched_new(test, MAX_SCHEDULE_TIMEOUT);
	struct drm_mock_scheduler *s2 = drm_mock_sched_new(test, MAX_SCHEDULE_TIMEOUT);
	struct trace_test_log *log = test->priv;
	struct drm_mock_sched_entity *e1, *e2;
	struct drm_mock_sched_job *a, *b;
	struct trace_test_rec *rb;
	struct dma_fence *a_done;
	ktime_t tb, ts;

	e1 = drm_mock_sched_entity_new(test, DRM_SCHED_PRIORITY_NORMAL, s1);
	e2 = drm_mock_sched_entity_new(test, DRM_SCHED_PRIORITY_NORMAL, s2);
	a = drm_mock_sched_job_new(test, e1);
	b = drm_mock_sched_job_new(test, e2);

	drm_mock_sched_job_submit(a);
	/* Kept until the end: the scheduler drops a's s_fence once it is done. */
	a_done = dma_fence_get(&a->base.s_fence->finished);
	KUNIT_ASSERT_EQ(test, drm_sched_job_add_dependency(&b->base,
							   dma_fence_get(a_done)), 0);
	drm_mock_sched_job_submit(b);
	tb = ktime_get();
	KUNIT_ASSERT_TRUE(test, drm_mock_sched_job_wait_scheduled(a, HZ));

	msleep(TRACE_TEST_DELAY_MS);
	KUNIT_EXPECT_FALSE(test, dma_fence_is_signaled(&b->base.s_fence->scheduled));
	ts = ktime_get();
	KUNIT_EXPECT_EQ(test, drm_mock_sched_advance(s1, 1), 1);
	KUNIT_ASSERT_TRUE(test, drm_mock_sched_job_wait_scheduled(b, HZ));

	trace_test_check_job(test, log, b);
	rb = &log->recs[trace_test_find(log, TRACE_DISPATCH, &b->base)];
	KUNIT_EXPECT_GE(test, rb->deps_ns, ktime_to_ns(ktime_sub(ts, tb)));
	KUNIT_EXPECT_EQ(test, ktime_compare(b->base.deps_resolved_ts,
					    a_done->timestamp), 0);

	drm_mock_sched_advance(s2, 1);
	KUNIT_ASSERT_TRUE(test, drm_mock_sched_job_wait_finished(b, HZ));
	drm_mock_sched_entity_free(e2);
	drm_mock_sched_entity_free(e1);
	drm_mock_sched_fini(s2);
	drm_mock_sched_fini(s1);
	dma_fence_put(a_done);
}

/*
 * A job its driver held back: queued 3 * TRACE_TEST_DELAY_MS before the push
 * and ready TRACE_TEST_DELAY_MS before it, at chain depth 7, with a tag. The
 * events measure from the driver's queueing: deps_ns is exactly the driver's
 * wait for the dependencies, ready_ns at least the time from ready to push.
 */
static void drm_sched_trace_graph_info(struct kunit *test)
{
	struct drm_mock_scheduler *sched = drm_mock_sched_new(test, MAX_SCHEDULE_TIMEOUT);
	struct trace_test_log *log = test->priv;
	struct drm_mock_sched_entity *entity;
	struct drm_mock_sched_job *job;
	struct trace_test_rec *rec;
	ktime_t now = ktime_get();
	s64 delay = TRACE_TEST_DELAY_MS * NSEC_PER_MSEC;

	entity = drm_mock_sched_entity_new(test, DRM_SCHED_PRIORITY_NORMAL, sched);
	job = drm_mock_sched_job_new(test, entity);
	drm_sched_job_set_graph_info(&job->base, ktime_sub_ns(now, 3 * delay),
				     ktime_sub_ns(now, delay), 7);
	job->base.tag = 0xfeedfacecafef00dULL;
	drm_mock_sched_job_submit(job);
	KUNIT_ASSERT_TRUE(test, drm_mock_sched_job_wait_scheduled(job, HZ));

	trace_test_check_job(test, log, job);
	rec = &log->recs[trace_test_find(log, TRACE_DISPATCH, &job->base)];
	KUNIT_EXPECT_EQ(test, rec->chain_depth, 7);
	KUNIT_EXPECT_EQ(test, rec->tag, 0xfeedfacecafef00dULL);
	KUNIT_EXPECT_EQ(test, rec->deps_ns, 2 * delay);
	KUNIT_EXPECT_GE(test, rec->ready_ns, delay);
	KUNIT_EXPECT_GE(test, rec->wait_ns, 3 * delay);

	drm_mock_sched_advance(sched, 1);
	KUNIT_ASSERT_TRUE(test, drm_mock_sched_job_wait_finished(job, HZ));
	drm_mock_sched_entity_free(entity);
	drm_mock_sched_fini(sched);
}

/*
 * The timestamps are kept only while an event is enabled. Jobs A (waiting for
 * a fence) and C (nothing to wait for, queued behind A) are pushed with both
 * events off; then the events are enabled, job B is pushed and the fence
 * signalled. A is reported, its dependency wait measured from its push (the
 * fence signalled while the events were on); C is not: nothing set its
 * deps_resolved_ts. B is reported in full.
 */
static void drm_sched_trace_enabled_late(struct kunit *test)
{
	struct drm_mock_scheduler *sched = drm_mock_sched_new(test, MAX_SCHEDULE_TIMEOUT);
	struct trace_test_log *log = test->priv;
	struct drm_mock_sched_entity *entity;
	struct drm_mock_sched_job *a, *b, *c;
	struct dma_fence *fence;
	ktime_t ta, ts;
	int i;

	trace_test_unregister(log);
	if (trace_drm_sched_job_deps_resolved_enabled() ||
	    trace_drm_sched_job_dispatch_enabled()) {
		trace_test_register(test, log);
		kunit_skip(test, "the events are enabled outside the test");
	}

	fence = trace_test_fence_new(test);
	entity = drm_mock_sched_entity_new(test, DRM_SCHED_PRIORITY_NORMAL, sched);
	a = drm_mock_sched_job_new(test, entity);
	c = drm_mock_sched_job_new(test, entity);
	b = drm_mock_sched_job_new(test, entity);
	KUNIT_ASSERT_EQ(test, drm_sched_job_add_dependency(&a->base,
							   dma_fence_get(fence)), 0);
	drm_mock_sched_job_submit(a);
	ta = ktime_get();
	drm_mock_sched_job_submit(c);
	KUNIT_EXPECT_EQ(test, c->base.deps_resolved_ts, 0);

	trace_test_register(test, log);
	drm_mock_sched_job_submit(b);
	msleep(TRACE_TEST_DELAY_MS);
	ts = ktime_get();
	dma_fence_signal(fence);
	KUNIT_ASSERT_TRUE(test, drm_mock_sched_job_wait_scheduled(b, HZ));

	i = trace_test_find(log, TRACE_DISPATCH, &a->base);
	KUNIT_ASSERT_GE(test, i, 0);
	KUNIT_EXPECT_GE(test, log->recs[i].deps_ns, ktime_to_ns(ktime_sub(ts, ta)));
	KUNIT_EXPECT_LT(test, trace_test_find(log, TRACE_DEPS_RESOLVED, &c->base), 0);
	KUNIT_EXPECT_LT(test, trace_test_find(log, TRACE_DISPATCH, &c->base), 0);
	trace_test_check_job(test, log, b);
	KUNIT_EXPECT_EQ(test, log->recs[trace_test_find(log, TRACE_DISPATCH,
							&b->base)].deps_ns, 0);

	drm_mock_sched_advance(sched, 3);
	KUNIT_ASSERT_TRUE(test, drm_mock_sched_job_wait_finished(b, HZ));
	drm_mock_sched_entity_free(entity);
	drm_mock_sched_fini(sched);
	dma_fence_put(fence);
}

static struct kunit_case drm_sched_trace_tests[] = {
	KUNIT_CASE(drm_sched_trace_no_deps),
	KUNIT_CASE(drm_sched_trace_signaled_dep),
	KUNIT_CASE(drm_sched_trace_dep_delay),
	KUNIT_CASE(drm_sched_trace_cross_sched_dep),
	KUNIT_CASE(drm_sched_trace_graph_info),
	KUNIT_CASE(drm_sched_trace_enabled_late),
	{}
};

static struct kunit_suite drm_sched_trace = {
	.name = "drm_sched_trace",
	.init = drm_sched_trace_init,
	.exit = drm_sched_trace_exit,
	.test_cases = drm_sched_trace_tests,
};

kunit_test_suite(drm_sched_trace);
