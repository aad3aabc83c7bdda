// SPDX-License-Identifier: GPL-2.0
/*
 * tas-tracedat: the figures of bpftrace/drm_sched_waits.bt and
 * drm_sched_chain_depth.bt, read back from a trace-cmd recording (trace.dat)
 * of the drm_sched latency trace events with libtracecmd and libtraceevent.
 *
 *   trace-cmd record -e gpu_scheduler:drm_sched_job_dispatch \
 *       -e gpu_scheduler:drm_sched_job_deps_resolved ./my-workload
 *   tas-tracedat trace.dat
 *
 * Prints, in the format bpftrace prints its maps in, per ring (the
 * scheduler's name) and entity priority a power-of-two histogram of the
 * dependency wait (@deps_us, deps_ns) and of the ring wait (@ring_us,
 * ready_ns) of the dispatched jobs, per ring a histogram of the chain depth
 * at drm_sched_job_deps_resolved (@depth), and the number of events of each
 * (@jobs, @resolved).
 *
 * Built on the host: cc -o tas-tracedat tas-tracedat.c $(pkg-config --cflags
 * --libs libtracecmd)
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <trace-cmd.h>
#include <event-parse.h>

#define MAX_KEYS	64
#define NAME_LEN	32
#define LOG2_BUCKETS	40
#define MAX_DEPTH	64

struct hist_key {
	char ring[NAME_LEN];
	long long prio;		/* -1: per ring only */
	unsigned long long deps[LOG2_BUCKETS];
	unsigned long long ready[LOG2_BUCKETS];
	unsigned long long depth[MAX_DEPTH + 1];
};

struct state {
	struct tep_event *dispatch, *resolved;
	struct hist_key keys[MAX_KEYS];
	unsigned int nkeys;
	unsigned long long jobs, resolved_jobs, dropped;
};

static struct hist_key *key(struct state *st, const char *ring, long long prio)
{
	unsigned int i;

	for (i = 0; i < st->nkeys; i++)
		if (st->keys[i].prio == prio && !strcmp(st->keys[i].ring, ring))
			return &st->keys[i];
	if (st->nkeys == MAX_KEYS)
		return NULL;
	snprintf(st->keys[st->nkeys].ring, NAME_LEN, "%s", ring);
	st->keys[st->nkeys].prio = prio;
	return &st->keys[st->nkeys++];
}

/* bpftrace's hist(): bucket 0 for 0 (and below), 1 for 1, k+1 for [2^k, 2^(k+1)). */
static unsigned int log2_bucket(long long v)
{
	unsigned int b = 1;

	if (v <= 0)
		return 0;
	while (v > 1 && b < LOG2_BUCKETS - 1) {
		v >>= 1;
		b++;
	}
	return b;
}

static int field(struct tep_event *event, struct tep_record *record,
		 const char *name, unsigned long long *val)
{
	return tep_get_field_val(NULL, event, name, record, val, 0);
}

static int ring_name(struct tep_event *event, struct tep_record *record,
		     char *buf)
{
	int len;
	const char *raw = tep_get_field_raw(NULL, event, "name", record, &len, 0);

	if (!raw || len <= 0)
		return -1;
	snprintf(buf, NAME_LEN, "%.*s", len, raw);
	return 0;
}

static int on_record(struct tracecmd_input *handle, struct tep_record *record,
		     int cpu, void *data)
{
	struct tep_handle *tep = tracecmd_get_tep(handle);
	struct tep_event *event = tep_find_event_by_record(tep, record);
	unsigned long long prio, deps, ready, depth;
	struct state *st = data;
	char ring[NAME_LEN];
	struct hist_key *k;

	(void)cpu;
	if (!event || (event != st->dispatch && event != st->resolved))
		return 0;
	if (ring_name(event, record, ring)) {
		st->dropped++;
		return 0;
	}
	if (event == st->resolved) {
		k = key(st, ring, -1);
		if (!k || field(event, record, "chain_depth", &depth)) {
			st->dropped++;
			return 0;
		}
		k->depth[depth < MAX_DEPTH ? depth : MAX_DEPTH]++;
		st->resolved_jobs++;
		return 0;
	}
	if (field(event, record, "prio", &prio) ||
	    field(event, record, "deps_ns", &deps) ||
	    field(event, record, "ready_ns", &ready)) {
		st->dropped++;
		return 0;
	}
	k = key(st, ring, (long long)(int)prio);
	if (!k) {
		st->dropped++;
		return 0;
	}
	k->deps[log2_bucket((long long)deps / 1000)]++;
	k->ready[log2_bucket((long long)ready / 1000)]++;
	st->jobs++;
	return 0;
}

static void print_bar(unsigned long long n, unsigned long long max)
{
	char bar[53];
	unsigned int w = max ? (unsigned int)(n * 52 / max) : 0;

	memset(bar, ' ', 52);
	memset(bar, '@', w);
	bar[52] = '\0';
	printf("|%s|\n", bar);
}

static void print_log2(const char *map, const struct hist_key *k,
		       const unsigned long long *h)
{
	unsigned long long max = 0;
	int first = -1, last = -1, b;

	for (b = 0; b < LOG2_BUCKETS; b++) {
		if (!h[b])
			continue;
		if (first < 0)
			first = b;
		last = b;
		if (h[b] > max)
			max = h[b];
	}
	if (first < 0)
		return;
	printf("%s[%s, %lld]:\n", map, k->ring, k->prio);
	for (b = first; b <= last; b++) {
		char range[48];

		if (b < 2)
			snprintf(range, sizeof(range), "[%d]", b);
		else
			snprintf(range, sizeof(range), "[%llu, %llu)",
				 1ULL << (b - 1), 1ULL << b);
		printf("%-20s %8llu ", range, h[b]);
		print_bar(h[b], max);
	}
	printf("\n");
}

static void print_depth(const struct hist_key *k)
{
	unsigned long long max = 0;
	int first = -1, last = -1, d;

	for (d = 0; d <= MAX_DEPTH; d++) {
		if (!k->depth[d])
			continue;
		if (first < 0)
			first = d;
		last = d;
		if (k->depth[d] > max)
			max = k->depth[d];
	}
	if (first < 0)
		return;
	printf("@depth[%s]:\n", k->ring);
	for (d = first; d <= last; d++) {
		char range[48];

		if (d == MAX_DEPTH)
			snprintf(range, sizeof(range), "[%d, ...)", d);
		else
			snprintf(range, sizeof(range), "[%d, %d)", d, d + 1);
		printf("%-20s %8llu ", range, k->depth[d]);
		print_bar(k->depth[d], max);
	}
	printf("\n");
}

int main(int argc, char **argv)
{
	static struct state st;
	struct tracecmd_input *handle;
	struct tep_handle *tep;
	unsigned int i;

	if (argc != 2) {
		fprintf(stderr, "usage: %s TRACE.DAT\n", argv[0]);
		return 2;
	}
	handle = tracecmd_open(argv[1], 0);
	if (!handle) {
		fprintf(stderr, "%s: cannot open %s as a trace-cmd recording\n",
			argv[0], argv[1]);
		return 1;
	}
	tep = tracecmd_get_tep(handle);
	st.dispatch = tep_find_event_by_name(tep, "gpu_scheduler",
					     "drm_sched_job_dispatch");
	st.resolved = tep_find_event_by_name(tep, "gpu_scheduler",
					     "drm_sched_job_deps_resolved");
	if (!st.dispatch || !st.resolved) {
		fprintf(stderr, "%s: %s has no drm_sched latency events (record them with -e gpu_scheduler)\n",
			argv[0], argv[1]);
		tracecmd_close(handle);
		return 1;
	}
	if (tracecmd_iterate_events(handle, NULL, 0, on_record, &st) < 0) {
		fprintf(stderr, "%s: reading %s failed\n", argv[0], argv[1]);
		tracecmd_close(handle);
		return 1;
	}
	for (i = 0; i < st.nkeys; i++)
		if (st.keys[i].prio >= 0)
			print_log2("@deps_us", &st.keys[i], st.keys[i].deps);
	for (i = 0; i < st.nkeys; i++)
		if (st.keys[i].prio >= 0)
			print_log2("@ring_us", &st.keys[i], st.keys[i].ready);
	for (i = 0; i < st.nkeys; i++)
		if (st.keys[i].prio < 0)
			print_depth(&st.keys[i]);
	printf("@jobs: %llu\n", st.jobs);
	printf("@resolved: %llu\n", st.resolved_jobs);
	tracecmd_close(handle);
	if (st.dropped) {
		fprintf(stderr, "%s: %llu events without the expected fields\n",
			argv[0], st.dropped);
		return 1;
	}
	return 0;
}
