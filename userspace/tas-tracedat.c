// SPDX-License-Identifier: GPL-2.0
/*
 * tas-tracedat: the figures of bpftrace/drm_sched_waits.bt,
 * drm_sched_chain_depth.bt and tas_ring_waits.bt, read back from a trace-cmd
 * recording (trace.dat) of the drm_sched latency trace events and drm/tas's
 * tas_node_start with libtracecmd and libtraceevent.
 *
 *   trace-cmd record -e gpu_scheduler:drm_sched_job_dispatch \
 *       -e gpu_scheduler:drm_sched_job_deps_resolved \
 *       -e tas:tas_node_start ./my-workload
 *   tas-tracedat trace.dat
 *
 * Prints, in the format bpftrace prints its maps in, per ring (the
 * scheduler's name) and entity priority a power-of-two histogram of the
 * dependency wait (@deps_us, deps_ns) and of the ring wait (@ring_us,
 * ready_ns) of the dispatched jobs, per ring a histogram of the chain depth
 * at drm_sched_job_deps_resolved (@depth), and the number of events of each
 * (@jobs, @resolved). If the recording has tas_node_start, also what
 * tas_ring_waits.bt prints: per drm/tas ring (its index) and whether the
 * node came early, reaching the ring until starting there (@on_ring_us),
 * per ring the early nodes' wait for their dependencies on the ring
 * (@ring_wait_us) and the number of those that had none (@ready_first),
 * and the number of node starts (@starts).
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
#define MAX_RINGS	64

struct hist_key {
	char ring[NAME_LEN];
	long long prio;		/* -1: per ring only */
	unsigned long long deps[LOG2_BUCKETS];
	unsigned long long ready[LOG2_BUCKETS];
	unsigned long long depth[MAX_DEPTH + 1];
};

/* tas_node_start's figures of one drm/tas ring, as tas_ring_waits.bt's maps. */
struct ring_starts {
	/* Reaching the ring until the start, by early (1) or not (0). */
	unsigned long long on_ring[2][LOG2_BUCKETS];
	/* The early nodes: their wait on the ring, or none. */
	unsigned long long wait[LOG2_BUCKETS];
	unsigned long long ready_first;
};

struct state {
	struct tep_event *dispatch, *resolved, *start;
	struct hist_key keys[MAX_KEYS];
	unsigned int nkeys;
	unsigned long long jobs, resolved_jobs, dropped;
	struct ring_starts rings[MAX_RINGS];
	unsigned long long starts;
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

/* A tas_node_start: tas_ring_waits.bt's probe. */
static void on_start(struct state *st, struct tep_event *event,
		     struct tep_record *record)
{
	unsigned long long ring, early, on_ring, ready, start;
	struct ring_starts *r;

	if (field(event, record, "ring", &ring) ||
	    field(event, record, "early", &early) ||
	    field(event, record, "on_ring_ns", &on_ring) ||
	    field(event, record, "ready_ns", &ready) ||
	    field(event, record, "start_ns", &start) ||
	    ring >= MAX_RINGS || start < on_ring) {
		st->dropped++;
		return;
	}
	r = &st->rings[ring];
	early = !!early;
	r->on_ring[early][log2_bucket((long long)((start - on_ring) / 1000))]++;
	if (early) {
		if (ready >= on_ring) {
			r->wait[log2_bucket((long long)((ready - on_ring) / 1000))]++;
		} else {
			r->ready_first++;
		}
	}
	st->starts++;
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
	if (event && event == st->start) {
		on_start(st, event, record);
		return 0;
	}
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

/* A histogram @map[@key], as bpftrace prints hist(); nothing if empty. */
static void print_log2(const char *map, const char *key,
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
	printf("%s[%s]:\n", map, key);
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

/* A histogram of @k, keyed by its ring and priority. */
static void print_key_log2(const char *map, const struct hist_key *k,
			   const unsigned long long *h)
{
	char key[NAME_LEN + 24];

	snprintf(key, sizeof(key), "%s, %lld", k->ring, k->prio);
	print_log2(map, key, h);
}

/* tas_ring_waits.bt's maps, from the recording's tas_node_start events. */
static void print_starts(const struct state *st)
{
	const struct ring_starts *r;
	unsigned int i, early;
	char key[32];

	for (i = 0; i < MAX_RINGS; i++)
		for (early = 0; early < 2; early++) {
			snprintf(key, sizeof(key), "%u, %u", i, early);
			print_log2("@on_ring_us", key, st->rings[i].on_ring[early]);
		}
	for (i = 0; i < MAX_RINGS; i++) {
		r = &st->rings[i];
		if (r->ready_first)
			printf("@ready_first[%u]: %llu\n", i, r->ready_first);
	}
	for (i = 0; i < MAX_RINGS; i++) {
		snprintf(key, sizeof(key), "%u", i);
		print_log2("@ring_wait_us", key, st->rings[i].wait);
	}
	printf("@starts: %llu\n", st->starts);
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
	/* Optional: drm/tas's own event, in a recording that has it. */
	st.start = tep_find_event_by_name(tep, "tas", "tas_node_start");
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
			print_key_log2("@deps_us", &st.keys[i], st.keys[i].deps);
	for (i = 0; i < st.nkeys; i++)
		if (st.keys[i].prio >= 0)
			print_key_log2("@ring_us", &st.keys[i], st.keys[i].ready);
	for (i = 0; i < st.nkeys; i++)
		if (st.keys[i].prio < 0)
			print_depth(&st.keys[i]);
	printf("@jobs: %llu\n", st.jobs);
	printf("@resolved: %llu\n", st.resolved_jobs);
	if (st.start)
		print_starts(&st);
	tracecmd_close(handle);
	if (st.dropped) {
		fprintf(stderr, "%s: %llu events without the expected fields\n",
			argv[0], st.dropped);
		return 1;
	}
	return 0;
}
