// SPDX-License-Identifier: GPL-2.0
/*
 * tas-demo: show what the TAS virtual DRM driver reports, run a
 * transformer-block-like graph through it with the stock dispatch and with
 * the graph dispatcher and print their per-ring timelines and makespans,
 * then the gpu_scheduler trace events recorded in tracefs with
 * a per-job summary of their latency fields (every field whose name ends in
 * "_ns").
 *
 * Built statically against the kernel's uAPI headers, no libdrm:
 *   cc -static -isystem $KOUT/usr/include -o tas-demo tas-demo.c
 *
 * Usage: tas-demo [TRACE_FILE | --no-trace]
 *   TRACE_FILE   default /sys/kernel/tracing/trace
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

#include "tas_graphs.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Field separators of a trace line; the newline ends the last field. */
#define SEPARATORS		", \t\n"

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
	int nevents;
	int nfields;
	struct {
		char name[32];
		long long value;
	} fields[MAX_FIELDS];
};

static struct job jobs[MAX_JOBS];
static int njobs;

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

/*
 * A trace line looks like
 *   task-123 [000] ..... 1.234567: drm_sched_job_run: dev=..., fence=1:2, ...
 * Fields are "key=value" separated by ", ".
 */
static void parse_event(char *line)
{
	char event[48], fence[48] = "", ring[32] = "", *p, *tok, *save;
	struct {
		char key[32];
		long long value;
	} ns[MAX_FIELDS];
	int nns = 0, i;
	struct job *job;

	p = strstr(line, ": drm_sched_");
	if (!p)
		return;
	p += 2;
	tok = strchr(p, ':');
	if (!tok || (size_t)(tok - p) >= sizeof(event))
		return;
	memcpy(event, p, tok - p);
	event[tok - p] = '\0';
	count_event(event);

	for (tok = strtok_r(tok + 1, SEPARATORS, &save); tok;
	     tok = strtok_r(NULL, SEPARATORS, &save)) {
		char *eq = strchr(tok, '=');
		size_t klen;

		if (!eq)
			continue;
		*eq = '\0';
		klen = strlen(tok);
		if (!strcmp(tok, "fence")) {
			/* The first one is the job's, add_dep names more. */
			if (!fence[0])
				copy_str(fence, sizeof(fence), eq + 1);
		} else if (!strcmp(tok, "ring")) {
			copy_str(ring, sizeof(ring), eq + 1);
		} else if (klen > 3 && !strcmp(tok + klen - 3, "_ns") &&
			   nns < MAX_FIELDS) {
			copy_str(ns[nns].key, sizeof(ns[nns].key), tok);
			ns[nns++].value = strtoll(eq + 1, NULL, 10);
		}
	}

	if (!fence[0])
		return;
	job = find_job(fence);
	if (!job)
		return;
	job->nevents++;
	if (ring[0])
		copy_str(job->ring, sizeof(job->ring), ring);
	for (i = 0; i < nns; i++)
		record_field(job, ns[i].key, ns[i].value);
}

static int show_trace(const char *path)
{
	int nevents = 0, i, j, with_ns = 0;
	char line[1024];
	FILE *f;

	printf("\n== gpu_scheduler trace events (%s)\n", path);
	f = fopen(path, "r");
	if (!f) {
		printf("cannot open %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || !strstr(line, ": drm_sched_"))
			continue;
		if (nevents < MAX_SHOWN_EVENTS)
			fputs(line, stdout);
		nevents++;
		parse_event(line);
	}
	fclose(f);

	if (!nevents) {
		printf("the trace holds no gpu_scheduler events: no DRM scheduler job ran\n"
		       "while the events were enabled (boot with trace_event=gpu_scheduler:*\n"
		       "and run the drm_sched KUnit tests, or submit work to a\n"
		       "scheduler-based driver)\n");
		return 0;
	}
	if (nevents > MAX_SHOWN_EVENTS)
		printf("... %d more events not shown\n", nevents - MAX_SHOWN_EVENTS);

	printf("\n== %d events:", nevents);
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
			busy += info[i].finished_ns - info[i].started_ns;
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
		printf("TAS-DATA {\"run\":\"%s\",\"node\":%u,\"queued_ns\":%llu,\"ready_ns\":%llu,\"started_ns\":%llu,\"finished_ns\":%llu,\"error\":%d}\n",
		       run, i, (unsigned long long)info[i].queued_ns,
		       (unsigned long long)info[i].ready_ns,
		       (unsigned long long)info[i].started_ns,
		       (unsigned long long)info[i].finished_ns, info[i].error);
}

/*
 * Runs the transformer forward + backward graph twice, with the stock FIFO
 * dispatch and with the graph dispatcher, and prints both.
 */
static int run_transformer(int fd)
{
	static struct drm_tas_node_info fifo_info[TAS_TF_MAX_NODES];
	static struct drm_tas_node_info info[TAS_TF_MAX_NODES];
	struct drm_tas_get_param gp = { .param = DRM_TAS_PARAM_NUM_RINGS };
	struct tas_graph_stats fifo, tas;
	struct tas_graph g;
	int ret;

	if (ioctl(fd, DRM_IOCTL_TAS_GET_PARAM, &gp))
		return -errno;
	ret = tas_graph_init(&g, TAS_TF_MAX_NODES, TAS_TF_MAX_EDGES,
			     gp.value < TAS_TF_RINGS ? gp.value : TAS_TF_RINGS);
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
	printf("node times as executed (simulated durations plus the engine's wake-up latency)\n");
	printf("%-12s %10s %14s %16s %22s\n", "dispatch", "makespan", "critical path",
	       "work / rings", "makespan / bound");
	printf("%-12s %7.2f ms %11.2f ms %13.2f ms %22.3f\n", "stock FIFO",
	       fifo.makespan / 1e6, fifo.critical_path / 1e6,
	       fifo.work / 1e6 / g.num_rings, fifo.ratio);
	printf("%-12s %7.2f ms %11.2f ms %13.2f ms %22.3f\n", "dispatcher",
	       tas.makespan / 1e6, tas.critical_path / 1e6,
	       tas.work / 1e6 / g.num_rings, tas.ratio);
	printf("speedup of the dispatcher over the stock dispatch: %.3f\n",
	       (double)fifo.makespan / tas.makespan);
	print_records(&g, NULL, NULL);
	print_records(&g, "fifo", fifo_info);
	print_records(&g, "dispatcher", info);
	tas_graph_free(&g);
	return 0;
}

int main(int argc, char **argv)
{
	char path[PATH_MAX];
	int ret = 0, err, fd;

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
	if (argc > 1 && !strcmp(argv[1], "--no-trace"))
		return ret;
	if (show_trace(argc > 1 ? argv[1] : "/sys/kernel/tracing/trace"))
		ret = 1;
	return ret;
}
