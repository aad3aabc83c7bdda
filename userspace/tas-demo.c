// SPDX-License-Identifier: GPL-2.0
/*
 * tas-demo: show what the TAS virtual DRM driver reports, run a
 * transformer-block-like graph through it with the stock dispatch and with
 * the graph dispatcher and print their per-ring timelines and makespans,
 * then the gpu_scheduler trace events recorded in tracefs with a per-job
 * summary of their latency fields (every field whose name ends in "_ns").
 * The events are read from the top trace instance's binary ring buffers
 * (which consumes them) and decoded with libtracefs and libtraceevent, with
 * the event formats the kernel exports.
 *
 * Built statically against the kernel's uAPI headers, no libdrm:
 *   cc -static -isystem $KOUT/usr/include -o tas-demo tas-demo.c \
 *      $(pkg-config --static --cflags --libs libtracefs)
 *
 * Usage: tas-demo [--no-trace]
 *   --no-trace   the device and the graph runs only, no events
 *
 * After the timelines it prints the graph and both runs as "TAS-DATA" lines
 * of JSON, which tools/tas_viz.py turns into pictures and a Perfetto trace.
 */

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <drm/drm.h>
#include <drm/tas_drm.h>

#include <event-parse.h>
#include <tracefs.h>

#include "tas_graphs.h"

#define MAX_SHOWN_EVENTS	100
#define MAX_JOBS		512
#define MAX_FIELDS		8
#define MAX_EVENT_TYPES		16

static const struct {
	__u32 param;
	const char *name;
} params[] = {
	{ DRM_TAS_PARAM_VERSION, "VERSION" },
	{ DRM_TAS_PARAM_NUM_RINGS, "NUM_RINGS" },
	{ DRM_TAS_PARAM_MAX_NODES, "MAX_NODES" },
	{ DRM_TAS_PARAM_MAX_EDGES, "MAX_EDGES" },
	{ DRM_TAS_PARAM_MAX_WAITS, "MAX_WAITS" },
	{ DRM_TAS_PARAM_MAX_SIGNALS, "MAX_SIGNALS" },
	{ DRM_TAS_PARAM_OPS, "OPS" },
	{ DRM_TAS_PARAM_MAX_BO_SIZE, "MAX_BO_SIZE" },
	{ DRM_TAS_PARAM_MAX_DURATION_NS, "MAX_DURATION_NS" },
	{ DRM_TAS_PARAM_JOB_TIMEOUT_NS, "JOB_TIMEOUT_NS" },
	{ DRM_TAS_PARAM_RING_DEPTH, "RING_DEPTH" },
	{ DRM_TAS_PARAM_MAX_STRIDE, "MAX_STRIDE" },
	{ DRM_TAS_PARAM_MAX_NODES_IN_FLIGHT, "MAX_NODES_IN_FLIGHT" },
	{ DRM_TAS_PARAM_MAX_TEMPLATE_NODES, "MAX_TEMPLATE_NODES" },
};

struct job {
	char fence[48];		/* "context:seqno" */
	char ring[32];
	unsigned long long tag;	/* the node's tag: its index + 1 in the graph */
	int nevents;
	int nfields;
	struct {
		char name[32];
		long long value;
	} fields[MAX_FIELDS];
};

static struct job jobs[MAX_JOBS];
static int njobs;

/* The names of the transformer's nodes, by tag - 1, for the per-job summary. */
static char (*node_names)[TAS_NAME_LEN];
static unsigned int num_node_names;

static struct {
	char name[48];
	int count;
} event_types[MAX_EVENT_TYPES];
static int nevent_types;

/* Copy a string, truncated to the destination. */
static void copy_str(char *dst, size_t size, const char *src)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

static int show_device(void)
{
	char path[PATH_MAX], name[64], date[64], desc[64];
	struct drm_version ver;
	unsigned int i;
	int fd;

	fd = tas_open_render(path, sizeof(path));
	if (fd < 0) {
		printf("no tas render node found in /dev/dri\n");
		return -1;
	}
	memset(&ver, 0, sizeof(ver));
	memset(name, 0, sizeof(name));
	memset(date, 0, sizeof(date));
	memset(desc, 0, sizeof(desc));
	ver.name = name;
	ver.name_len = sizeof(name) - 1;
	ver.date = date;
	ver.date_len = sizeof(date) - 1;
	ver.desc = desc;
	ver.desc_len = sizeof(desc) - 1;
	if (ioctl(fd, DRM_IOCTL_VERSION, &ver)) {
		printf("DRM_IOCTL_VERSION failed: %s\n", strerror(errno));
		close(fd);
		return -1;
	}

	printf("== TAS device\n");
	printf("node:    %s\n", path);
	printf("driver:  %s %d.%d.%d (%s)\n", name, ver.version_major,
	       ver.version_minor, ver.version_patchlevel, desc);
	for (i = 0; i < ARRAY_SIZE(params); i++) {
		struct drm_tas_get_param gp = { .param = params[i].param };

		if (ioctl(fd, DRM_IOCTL_TAS_GET_PARAM, &gp))
			printf("param %-12s error: %s\n", params[i].name,
			       strerror(errno));
		else
			printf("param %-12s %llu\n", params[i].name,
			       (unsigned long long)gp.value);
	}
	close(fd);
	return 0;
}

static struct job *find_job(const char *fence)
{
	int i;

	for (i = 0; i < njobs; i++)
		if (!strcmp(jobs[i].fence, fence))
			return &jobs[i];
	if (njobs == MAX_JOBS)
		return NULL;
	copy_str(jobs[njobs].fence, sizeof(jobs[njobs].fence), fence);
	return &jobs[njobs++];
}

static void count_event(const char *name)
{
	int i;

	for (i = 0; i < nevent_types; i++) {
		if (!strcmp(event_types[i].name, name)) {
			event_types[i].count++;
			return;
		}
	}
	if (nevent_types < MAX_EVENT_TYPES) {
		copy_str(event_types[nevent_types].name,
			 sizeof(event_types[0].name), name);
		event_types[nevent_types++].count = 1;
	}
}

static void record_field(struct job *job, const char *key, long long value)
{
	int i;

	for (i = 0; i < job->nfields; i++) {
		if (!strcmp(job->fields[i].name, key)) {
			job->fields[i].value = value;
			return;
		}
	}
	if (job->nfields < MAX_FIELDS) {
		copy_str(job->fields[i].name, sizeof(job->fields[i].name), key);
		job->fields[job->nfields++].value = value;
	}
}

struct trace_ctx {
	struct tep_handle *tep;
	struct trace_seq seq;
	int nevents;
};

static int on_event(struct tep_event *event, struct tep_record *record,
		    int cpu, void *data)
{
	unsigned long long context, seqno, val;
	struct trace_ctx *ctx = data;
	struct tep_format_field **fields;
	char fence[48];
	const char *raw;
	struct job *job;
	int i, len;

	(void)cpu;
	if (strcmp(event->system, "gpu_scheduler"))
		return 0;
	if (ctx->nevents++ < MAX_SHOWN_EVENTS) {
		trace_seq_reset(&ctx->seq);
		tep_print_event(ctx->tep, &ctx->seq, record,
				"%16s-%-7d [%03d] %6.1000d: %s: %s\n", TEP_PRINT_COMM,
				TEP_PRINT_PID, TEP_PRINT_CPU, TEP_PRINT_TIME,
				TEP_PRINT_NAME, TEP_PRINT_INFO);
		trace_seq_do_printf(&ctx->seq);
	}
	count_event(event->name);

	/* The job's finished fence; add_dep names others in ctx:seqno. */
	if (tep_get_field_val(NULL, event, "fence_context", record, &context, 0) ||
	    tep_get_field_val(NULL, event, "fence_seqno", record, &seqno, 0))
		return 0;
	snprintf(fence, sizeof(fence), "%llu:%llu", context, seqno);
	job = find_job(fence);
	if (!job)
		return 0;
	job->nevents++;
	raw = tep_get_field_raw(NULL, event, "name", record, &len, 0);
	if (raw && len > 0)
		snprintf(job->ring, sizeof(job->ring), "%.*s", len, raw);
	if (!tep_get_field_val(NULL, event, "tag", record, &val, 0) && val)
		job->tag = val;
	fields = tep_event_fields(event);
	for (i = 0; fields && fields[i]; i++) {
		size_t klen = strlen(fields[i]->name);

		if (klen <= 3 || strcmp(fields[i]->name + klen - 3, "_ns"))
			continue;
		if (!tep_read_number_field(fields[i], record->data, &val))
			record_field(job, fields[i]->name,
				     (long long)(fields[i]->size == 4 ?
						 (int)val : (long long)val));
	}
	free(fields);
	return 0;
}

static int show_trace(void)
{
	static const char * const systems[] = { "gpu_scheduler", NULL };
	struct trace_ctx ctx = { 0 };
	int i, j, err, with_ns = 0;

	printf("\n== gpu_scheduler trace events (tracefs, read with libtracefs)\n");
	ctx.tep = tracefs_local_events_system(NULL, systems);
	if (!ctx.tep) {
		printf("cannot read the event formats from tracefs: %s\n",
		       strerror(errno));
		return -1;
	}
	trace_seq_init(&ctx.seq);
	err = tracefs_iterate_raw_events(ctx.tep, NULL, NULL, 0, on_event, &ctx) ?
	      errno : 0;
	trace_seq_destroy(&ctx.seq);
	tep_free(ctx.tep);
	if (err) {
		printf("cannot read the trace buffers: %s\n", strerror(err));
		return -1;
	}

	if (!ctx.nevents) {
		printf("the trace holds no gpu_scheduler events: no DRM scheduler job ran\n"
		       "while the events were enabled (boot with trace_event=gpu_scheduler:*\n"
		       "and run the drm_sched KUnit tests, or submit work to a\n"
		       "scheduler-based driver)\n");
		return 0;
	}
	if (ctx.nevents > MAX_SHOWN_EVENTS)
		printf("... %d more events not shown\n", ctx.nevents - MAX_SHOWN_EVENTS);

	printf("\n== %d events:", ctx.nevents);
	for (i = 0; i < nevent_types; i++)
		printf(" %s=%d", event_types[i].name, event_types[i].count);
	printf("\n");

	printf("\n== per-job summary (%d jobs, keyed by finished fence context:seqno)\n",
	       njobs);
	for (i = 0; i < njobs; i++) {
		if (jobs[i].nfields)
			with_ns++;
		printf("job %-12s ring=%-16s events=%d", jobs[i].fence,
		       jobs[i].ring[0] ? jobs[i].ring : "?", jobs[i].nevents);
		if (jobs[i].tag)
			printf(" tag=%llu (%s)", jobs[i].tag,
			       jobs[i].tag <= num_node_names ?
			       node_names[jobs[i].tag - 1] : "?");
		for (j = 0; j < jobs[i].nfields; j++)
			printf(" %s=%lld", jobs[i].fields[j].name,
			       jobs[i].fields[j].value);
		printf("\n");
	}
	if (!with_ns)
		printf("no event carried a field named *_ns: this kernel lacks the\n"
		       "latency trace events\n");
	return 0;
}

#define DEMO_COLUMNS		60

static const char * const demo_ring_names[TAS_TF_RINGS] = {
	"compute0", "compute1", "copy", "comm",
};

static void print_timelines(const struct tas_graph *g,
			    const struct drm_tas_node_info *info)
{
	__u64 t0 = ~0ULL, t1 = 0;
	unsigned int i, r, c;

	for (i = 0; i < g->n; i++) {
		if (info[i].queued_ns < t0)
			t0 = info[i].queued_ns;
		if (info[i].finished_ns > t1)
			t1 = info[i].finished_ns;
	}
	printf("per-ring timelines (%d columns = %.1f ms):\n", DEMO_COLUMNS,
	       (t1 - t0) / 1e6);
	for (r = 0; r < g->num_rings; r++) {
		char bar[DEMO_COLUMNS + 1];
		__u64 busy = 0;

		memset(bar, '.', DEMO_COLUMNS);
		bar[DEMO_COLUMNS] = '\0';
		for (i = 0; i < g->n; i++) {
			__u64 a, b;

			if (g->nodes[i].ring != r || !info[i].started_ns)
				continue;
			a = (info[i].started_ns - t0) * DEMO_COLUMNS / (t1 - t0);
			b = (info[i].finished_ns - t0) * DEMO_COLUMNS / (t1 - t0);
			for (c = a; c <= b && c < DEMO_COLUMNS; c++)
				bar[c] = '#';
			busy += tas_exec_ns(&info[i]);
		}
		printf("  ring %u %-8s |%s| busy %6.1f ms\n", r,
		       r < TAS_TF_RINGS ? demo_ring_names[r] : "", bar, busy / 1e6);
	}
}

static void print_nodes(const struct tas_graph *g,
			const struct drm_tas_node_info *info)
{
	__u64 t0 = ~0ULL;
	unsigned int i;

	for (i = 0; i < g->n; i++)
		if (info[i].queued_ns < t0)
			t0 = info[i].queued_ns;
	printf("nodes (ms from submission: ready, start, end):\n");
	for (i = 0; i < g->n; i++)
		printf("  %-16s ring %u  ready %7.2f  start %7.2f  end %7.2f%s\n",
		       g->names[i], g->nodes[i].ring,
		       (info[i].ready_ns - t0) / 1e6,
		       (info[i].started_ns - t0) / 1e6,
		       (info[i].finished_ns - t0) / 1e6,
		       info[i].error ? "  (error)" : "");
}

/*
 * The graph and the node times of one or both runs, one JSON object per line
 * behind a "TAS-DATA " tag, for tools/tas_viz.py on the host: it draws them
 * and converts them into a Perfetto trace. Lines stay short, so that kernel
 * messages on the same console cannot split one.
 */
static void print_records(const struct tas_graph *g, const char *run,
			  const struct drm_tas_node_info *info)
{
	unsigned int i, r;

	if (!info) {
		printf("TAS-DATA {\"graph\":\"transformer\",\"nodes\":%u,\"edges\":%u,\"rings\":[",
		       g->n, g->e);
		for (r = 0; r < g->num_rings; r++)
			printf("%s\"%s\"", r ? "," : "",
			       r < TAS_TF_RINGS ? demo_ring_names[r] : "ring");
		printf("]}\n");
		for (i = 0; i < g->n; i++)
			printf("TAS-DATA {\"node\":%u,\"name\":\"%s\",\"ring\":%u,\"class\":%u,\"gang\":%u,\"duration_ns\":%llu}\n",
			       i, g->names[i], g->nodes[i].ring, g->nodes[i].class,
			       g->nodes[i].gang,
			       (unsigned long long)g->nodes[i].duration_ns);
		for (i = 0; i < g->e; i++)
			printf("TAS-DATA {\"edge\":[%u,%u]}\n", g->edges[i].from,
			       g->edges[i].to);
		return;
	}
	for (i = 0; i < g->n; i++)
		printf("TAS-DATA {\"run\":\"%s\",\"node\":%u,\"queued_ns\":%llu,\"ready_ns\":%llu,\"started_ns\":%llu,\"finished_ns\":%llu,\"error\":%d,\"tag\":%llu}\n",
		       run, i, (unsigned long long)info[i].queued_ns,
		       (unsigned long long)info[i].ready_ns,
		       (unsigned long long)info[i].started_ns,
		       (unsigned long long)info[i].finished_ns, info[i].error,
		       (unsigned long long)info[i].tag);
}

/*
 * Runs the transformer forward + backward graph twice, with the stock FIFO
 * dispatch and with the graph dispatcher, and prints both.
 */
static void print_stats(const char *name, const struct tas_graph_stats *st)
{
	printf("%-12s %7.2f ms %11.2f ms %10.2f ms %9.2f ms %11.3f %15.3f\n",
	       name, st->makespan / 1e6, st->critical_path / 1e6,
	       st->busiest_ring / 1e6, st->ideal / 1e6, st->bound_ratio,
	       st->ideal_ratio);
}

static int run_transformer(int fd)
{
	static struct drm_tas_node_info fifo_info[TAS_TF_MAX_NODES];
	static struct drm_tas_node_info info[TAS_TF_MAX_NODES];
	__u64 rings = tas_get_param(fd, DRM_TAS_PARAM_NUM_RINGS);
	struct tas_graph_stats fifo, tas;
	struct tas_graph g;
	int ret;

	if (!rings)
		return -EINVAL;
	ret = tas_graph_init(&g, TAS_TF_MAX_NODES, TAS_TF_MAX_EDGES,
			     rings < TAS_TF_RINGS ? rings : TAS_TF_RINGS);
	if (ret)
		return ret;
	tas_graph_transformer(&g, 1);
	ret = tas_graph_run(fd, &g, DRM_TAS_SUBMIT_FIFO, fifo_info, &fifo);
	if (!ret)
		ret = tas_graph_run(fd, &g, 0, info, &tas);
	if (ret) {
		tas_graph_free(&g);
		return ret;
	}

	printf("\n== Transformer block, forward + backward: %u nodes, %u edges, %u rings\n",
	       g.n, g.e, g.num_rings);
	printf("-- stock dispatch (DRM_TAS_SUBMIT_FIFO: topological push into FIFO entities)\n");
	print_timelines(&g, fifo_info);
	printf("-- graph dispatcher (ready nodes by class and critical-path rank)\n");
	print_timelines(&g, info);
	print_nodes(&g, info);
	printf("node times as executed (simulated durations plus the engine's wake-up latency);\n"
	       "bound: max(critical path, busiest ring); zero-cost: the dispatcher's order\n"
	       "simulated with the same node times and no dispatch cost\n");
	printf("%-12s %10s %14s %13s %12s %11s %15s\n", "dispatch", "makespan",
	       "critical path", "busiest ring", "zero-cost", "over bound",
	       "over zero-cost");
	print_stats("stock FIFO", &fifo);
	print_stats("dispatcher", &tas);
	printf("speedup of the dispatcher over the stock dispatch: %.3f\n",
	       (double)fifo.makespan / tas.makespan);
	print_records(&g, NULL, NULL);
	print_records(&g, "fifo", fifo_info);
	print_records(&g, "dispatcher", info);
	/* Kept for the trace's per-job summary, which names jobs by their tag. */
	node_names = g.names;
	num_node_names = g.n;
	g.names = NULL;
	tas_graph_free(&g);
	return 0;
}

int main(int argc, char **argv)
{
	char path[PATH_MAX];
	int ret = 0, err, fd;

	if (argc > 2 || (argc == 2 && strcmp(argv[1], "--no-trace"))) {
		fprintf(stderr, "usage: %s [--no-trace]\n", argv[0]);
		return 2;
	}
	if (show_device())
		ret = 1;
	fd = tas_open_render(path, sizeof(path));
	err = fd < 0 ? -ENODEV : run_transformer(fd);
	if (err) {
		printf("transformer graph failed: %s\n", strerror(-err));
		ret = 1;
	}
	if (fd >= 0)
		close(fd);
	/* "--no-trace": the graph only, for a kernel booted without events. */
	if (argc == 2) {
		free(node_names);
		return ret;
	}
	if (show_trace())
		ret = 1;
	free(node_names);
	return ret;
}
