// SPDX-License-Identifier: GPL-2.0
/*
 * Load for the module unload test: several processes submit large graphs to
 * the tas render node, with the graph dispatcher and with the stock dispatch,
 * and are then taken down while their nodes run: some are killed, the others
 * close their file with graphs in flight and exit.
 *
 *   tas-stress PROCS NODES MSEC
 *
 * Each of PROCS processes submits graphs of NODES nodes (chains spread over
 * the rings, with edges across rings). MSEC milliseconds of wall time after
 * every process has its first graph in flight (or after 60 s, if one never
 * has), the parent kills every other process (SIGKILL) and tells the rest
 * to close their file at once (SIGUSR1). Processes 2 and 3 of every 4 launch a
 * template instead (acc += ones on one ring, then a copy of acc on another,
 * in one buffer), up to 64 launches in flight, each waiting for the previous
 * one on a timeline. Exits 0 when every process that was not killed
 * submitted at least one graph and saw no error.
 */
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>

#include "tas_graphs.h"

#define TAS_STRESS_RINGS	4
#define TAS_STRESS_MAX_PROCS	16

static volatile sig_atomic_t stop;

/* The write end of the pipe on which each client reports its first graph. */
static int ready_fd = -1;

/* When the clients were started, for report_ready(). */
static struct timespec started;

/*
 * Client @index reports its first graph; one that took more than 5 s (the
 * parent waits at most 60 s for all of them) says how long.
 */
static void report_ready(int index)
{
	struct timespec now;
	double s;
	char c = 0;

	clock_gettime(CLOCK_MONOTONIC, &now);
	s = now.tv_sec - started.tv_sec + (now.tv_nsec - started.tv_nsec) / 1e9;
	if (s > 5)
		fprintf(stderr, "tas-stress: client %d: first graph after %.1f s\n", index, s);
	if (write(ready_fd, &c, 1) != 1)
		perror("tas-stress: ready");
}

/*
 * Waits until @procs clients have reported their first graph on @fd, or for
 * 60 s: a slow kernel (KASAN under TCG) may take longer than MSEC to start
 * them, and a client that never submits fails when it exits.
 */
static void wait_ready(int fd, unsigned int procs)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct timespec start, now;
	unsigned int seen = 0;
	long left;
	char c;

	clock_gettime(CLOCK_MONOTONIC, &start);
	while (seen < procs) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		left = 60000 - ((now.tv_sec - start.tv_sec) * 1000 +
				(now.tv_nsec - start.tv_nsec) / 1000000);
		if (left <= 0 || poll(&pfd, 1, left) <= 0)
			break;
		if (read(fd, &c, 1) != 1)
			break;
		seen++;
	}
	if (seen < procs)
		fprintf(stderr, "tas-stress: %u of %u clients had a graph in flight after 60 s\n",
			seen, procs);
}

static void on_usr1(int sig)
{
	(void)sig;
	stop = 1;
}

/* Chains of nodes, one per ring, with an edge to the next ring every 8 nodes. */
static int build(struct tas_graph *g, unsigned int nodes)
{
	unsigned int prev[TAS_STRESS_RINGS];
	unsigned int i, ring;

	if (tas_graph_init(g, nodes, 2 * nodes, TAS_STRESS_RINGS))
		return -ENOMEM;
	for (i = 0; i < nodes; i++) {
		ring = i % TAS_STRESS_RINGS;
		tas_graph_node(g, ring, 20000, "stress");
		if (i >= TAS_STRESS_RINGS)
			tas_graph_edge(g, prev[ring], i);
		if (i % 8 == 7 && i >= TAS_STRESS_RINGS)
			tas_graph_edge(g, prev[(ring + 1) % TAS_STRESS_RINGS], i);
		prev[ring] = i;
	}
	return 0;
}

/* Waits for @point of @handle: 0 when done, 1 when told to stop meanwhile, -1 on error. */
static int wait_or_stop(int fd, __u32 handle, __u64 point, int index)
{
	int ret = tas_wait_syncobj(fd, handle, point, 60);

	if (ret == -EINTR || stop)
		return 1;
	if (ret)
		fprintf(stderr, "tas-stress: client %d: wait: %s\n", index, strerror(-ret));
	return ret ? -1 : 0;
}

#define TAS_STRESS_WORDS	1024
#define TAS_STRESS_TPL_IN_FLIGHT	64

/* The template of the template clients: acc += ones, then copy = acc. */
static int template_create(int fd, __u32 *handle)
{
	const __u64 range = TAS_STRESS_WORDS * sizeof(__u32);
	struct drm_tas_node *add, *copy;
	struct tas_graph g;
	__u32 bo = 0;
	int ret;

	ret = tas_bo_create(fd, 3 * range, &bo);
	if (ret)
		return ret;
	if (tas_graph_init(&g, 2, 1, 2))
		return -ENOMEM;
	add = &g.nodes[tas_graph_node(&g, 0, 20000, "add")];
	add->op = DRM_TAS_OP_ADD;
	tas_buf(&add->dst, bo, 0, range);
	tas_buf(&add->src[0], bo, 0, range);
	tas_buf(&add->src[1], bo, range, range);
	copy = &g.nodes[tas_graph_node(&g, 1, 20000, "copy")];
	copy->op = DRM_TAS_OP_COPY;
	tas_buf(&copy->dst, bo, 2 * range, range);
	tas_buf(&copy->src[0], bo, 0, range);
	tas_graph_edge(&g, 0, 1);
	ret = tas_template_create(fd, &g, handle);
	tas_graph_free(&g);
	return ret;
}

/* Launch @n of the template waits for point @n of @timeline and signals n + 1. */
static int template_launch(int fd, __u32 handle, __u32 timeline, __u64 n)
{
	struct drm_tas_sync wait = { 0 }, signal = { 0 };

	wait.handle = timeline;
	wait.node = DRM_TAS_NODE_GRAPH;
	wait.point = n;
	signal.handle = timeline;
	signal.node = DRM_TAS_NODE_GRAPH;
	signal.point = n + 1;
	return tas_template_launch(fd, handle, &wait, n ? 1 : 0, &signal, 1,
				   NULL, 0, 0, NULL);
}

/* A template client: launches until told to stop, then closes its file. */
static int template_client(int index)
{
	unsigned long launched = 0;
	__u32 handle = 0, timeline = 0;
	char path[512];
	int fd, ret;

	signal(SIGUSR1, on_usr1);
	fd = tas_open_render(path, sizeof(path));
	if (fd < 0 || template_create(fd, &handle) || tas_new_syncobj(fd, &timeline))
		return 2;
	while (!stop) {
		if (launched >= TAS_STRESS_TPL_IN_FLIGHT) {
			ret = wait_or_stop(fd, timeline, launched - TAS_STRESS_TPL_IN_FLIGHT + 1,
					   index);
			if (ret > 0)
				break;
			if (ret)
				return 3;
		}
		ret = template_launch(fd, handle, timeline, launched);
		if (ret) {
			fprintf(stderr, "tas-stress: client %d: launch: %s\n", index,
				strerror(-ret));
			return 3;
		}
		if (!launched++)
			report_ready(index);
	}
	/* Launches are still in flight: the file goes with the template. */
	close(fd);
	return launched ? 0 : 5;
}

/*
 * A client: submits until told to stop, with at most TAS_STRESS_IN_FLIGHT
 * graphs in flight (each signals a syncobj that is waited for before it is
 * used again), then closes its file with graphs in flight and exits.
 */
#define TAS_STRESS_IN_FLIGHT	4

static int client(unsigned int nodes, int index)
{
	__u32 done[TAS_STRESS_IN_FLIGHT];
	unsigned long submitted = 0;
	struct tas_graph g;
	char path[512];
	unsigned int slot;
	__u32 flags;
	int fd, ret;

	signal(SIGUSR1, on_usr1);
	fd = tas_open_render(path, sizeof(path));
	if (fd < 0 || build(&g, nodes))
		return 2;
	for (slot = 0; slot < TAS_STRESS_IN_FLIGHT; slot++)
		if (tas_new_syncobj(fd, &done[slot]))
			return 2;
	while (!stop) {
		slot = submitted % TAS_STRESS_IN_FLIGHT;
		if (submitted >= TAS_STRESS_IN_FLIGHT) {
			ret = wait_or_stop(fd, done[slot], 0, index);
			if (ret > 0)
				break;
			if (ret)
				return 3;
		}
		/* Every third graph of odd clients takes the stock dispatch. */
		flags = (index & 1) && submitted % 3 == 0 ? DRM_TAS_SUBMIT_FIFO : 0;
		ret = tas_graph_submit(fd, &g, flags, done[slot], NULL);
		if (ret) {
			fprintf(stderr, "tas-stress: client %d: submit: %s\n", index,
				strerror(-ret));
			return 3;
		}
		if (!submitted++)
			report_ready(index);
	}
	/* Graphs are still in flight: closing the file cancels what has not run. */
	close(fd);
	tas_graph_free(&g);
	return submitted ? 0 : 5;
}

int main(int argc, char **argv)
{
	pid_t pids[TAS_STRESS_MAX_PROCS];
	unsigned int procs, nodes, msec, i;
	int status, bad = 0, killed = 0, ready[2];

	if (argc != 4) {
		fprintf(stderr, "usage: %s PROCS NODES MSEC\n", argv[0]);
		return 2;
	}
	procs = strtoul(argv[1], NULL, 0);
	nodes = strtoul(argv[2], NULL, 0);
	msec = strtoul(argv[3], NULL, 0);
	if (!procs || procs > TAS_STRESS_MAX_PROCS || !nodes) {
		fprintf(stderr, "tas-stress: 1-%d processes, at least one node\n",
			TAS_STRESS_MAX_PROCS);
		return 2;
	}
	if (pipe(ready)) {
		perror("tas-stress: pipe");
		return 1;
	}
	ready_fd = ready[1];
	clock_gettime(CLOCK_MONOTONIC, &started);
	for (i = 0; i < procs; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			perror("tas-stress: fork");
			return 1;
		}
		if (!pids[i]) {
			close(ready[0]);
			_exit(i % 4 >= 2 ? template_client(i) : client(nodes, i));
		}
	}
	close(ready[1]);
	wait_ready(ready[0], procs);
	close(ready[0]);
	usleep(msec * 1000);
	for (i = 0; i < procs; i++) {
		if (i % 2 == 0) {
			kill(pids[i], SIGKILL);
			killed++;
		} else {
			kill(pids[i], SIGUSR1);
		}
	}
	for (i = 0; i < procs; i++) {
		if (waitpid(pids[i], &status, 0) < 0) {
			perror("tas-stress: waitpid");
			return 1;
		}
		if (i % 2 == 0) {
			if (!WIFSIGNALED(status) && !(WIFEXITED(status) && !WEXITSTATUS(status)))
				bad++;
		} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "tas-stress: client %u failed (status %#x)\n", i, status);
			bad++;
		}
	}
	printf("tas-stress: %u clients (%d killed), %u nodes per graph, %s\n", procs, killed,
	       nodes, bad ? "FAILED" : "ok");
	return bad ? 1 : 0;
}
