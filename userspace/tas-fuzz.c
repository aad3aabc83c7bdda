// SPDX-License-Identifier: GPL-2.0
/*
 * A seeded random-ioctl run against the tas render node.
 *
 *   tas-fuzz [-s SEED] [-t SECONDS] [-p PROCS] [-j THREADS] [-e TABLE] [-q]
 *   tas-fuzz -S GRAPHS [-s SEED] [-t SECONDS] [-p PROCS] [-e TABLE] [-q]
 *   tas-fuzz -L [-B FACTOR] [-s SEED] [-t SECONDS] [-p PROCS] [-e TABLE] [-q]
 *
 * PROCS processes (default 4) with THREADS threads each (default 3) call
 * every tas ioctl and the core syncobj, GEM close and PRIME ioctls with
 * valid and mutated arguments: boundary counts and strides, unmapped and
 * partly mapped arrays, stale handles, binary / timeline mix-ups, cycles,
 * self-loops and duplicate edges, gangs that cannot start, non-zero pad and
 * reserved bits, overflowing offset + size. The threads of a process share
 * a file; each also opens files of its own now and then and closes them with
 * graphs in flight, creates templates and destroys them while launched.
 * The parent kills a random process with SIGKILL every second or so and
 * starts another in its place, until SECONDS (default 30) have passed.
 *
 * Two things are checked:
 * - every errno an ioctl returns is one that its row of TABLE (default
 *   /etc/tas/uapi-errors.md, the project's docs/uapi-errors.md) lists;
 * - every graph the kernel accepted completes: each submission and launch
 *   also signals a timeline point of a syncobj of the thread's own that the
 *   parent holds too, and after a process has been killed or has exited
 *   the parent waits for that syncobj's last accepted point.
 * And the nodes of graphs read back with GRAPH_INFO have only the errors the
 * header names.
 *
 * With -S (the concurrent clients soak of the benchmarks), each of PROCS
 * processes submits only valid graphs and launches, one thread each, each
 * waiting for a random point of another process's timeline, until it has
 * GRAPHS accepted ones; processes are killed and restarted as above, and
 * SECONDS bounds the whole. A rejected graph fails the soak, and so does a
 * process that has not reached GRAPHS in time.
 *
 * With -L (load), each process runs three threads of valid work that keep
 * every ring busy, and each completion is timed against a bound (see
 * load_waiter()).
 *
 * Each thread draws from its own generator, seeded from SEED, the process
 * slot, the number of processes started in that slot before and the thread
 * number, so a thread's sequence of calls is reproducible; the interleaving
 * of threads and the moments of the kills are not. Prints one line per
 * violation, then the counts per ioctl and a summary; exits 0 only when
 * there was no violation.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "tas_graphs.h"

#define FUZZ_MAX_PROCS		16
#define FUZZ_MAX_THREADS	8
#define FUZZ_SYNCOBJS		24
#define FUZZ_BOS		8
#define FUZZ_TEMPLATES		6
#define FUZZ_GRAPHS		16
/* Graphs a thread has in flight, about (see accepted()). */
#define FUZZ_IN_FLIGHT		64
/* The arenas the uAPI arrays are built in, each followed by a guard page. */
#define FUZZ_NODE_ARENA		(2u << 20)
#define FUZZ_EDGE_ARENA		(1u << 20)
#define FUZZ_SYNC_ARENA		(64u << 10)
#define FUZZ_INFO_ARENA		(2u << 20)
/* How long the parent waits for the last point of a finished process. */
#define FUZZ_DRAIN_SECONDS	300

/* The ioctls called, with the errnos their row of the table allows. */
enum {
	IOC_GET_PARAM, IOC_BO_CREATE, IOC_BO_MMAP_OFFSET, IOC_SUBMIT_GRAPH,
	IOC_GRAPH_INFO, IOC_TEMPLATE_CREATE, IOC_TEMPLATE_LAUNCH,
	IOC_TEMPLATE_DESTROY, IOC_GEM_CLOSE, IOC_PRIME_HANDLE_TO_FD,
	IOC_PRIME_FD_TO_HANDLE, IOC_SYNCOBJ_CREATE, IOC_SYNCOBJ_DESTROY,
	IOC_SYNCOBJ_HANDLE_TO_FD, IOC_SYNCOBJ_FD_TO_HANDLE, IOC_SYNCOBJ_WAIT,
	IOC_SYNCOBJ_TIMELINE_WAIT, IOC_SYNCOBJ_RESET, IOC_SYNCOBJ_SIGNAL,
	IOC_SYNCOBJ_TIMELINE_SIGNAL, IOC_SYNCOBJ_QUERY, IOC_SYNCOBJ_TRANSFER,
	IOC_SYNCOBJ_EVENTFD, IOC_COUNT
};

#define IOC(n) { #n, n }
static const struct {
	const char *name;
	unsigned long cmd;
} iocs[IOC_COUNT] = {
	IOC(DRM_IOCTL_TAS_GET_PARAM), IOC(DRM_IOCTL_TAS_BO_CREATE),
	IOC(DRM_IOCTL_TAS_BO_MMAP_OFFSET), IOC(DRM_IOCTL_TAS_SUBMIT_GRAPH),
	IOC(DRM_IOCTL_TAS_GRAPH_INFO), IOC(DRM_IOCTL_TAS_TEMPLATE_CREATE),
	IOC(DRM_IOCTL_TAS_TEMPLATE_LAUNCH), IOC(DRM_IOCTL_TAS_TEMPLATE_DESTROY),
	IOC(DRM_IOCTL_GEM_CLOSE), IOC(DRM_IOCTL_PRIME_HANDLE_TO_FD),
	IOC(DRM_IOCTL_PRIME_FD_TO_HANDLE), IOC(DRM_IOCTL_SYNCOBJ_CREATE),
	IOC(DRM_IOCTL_SYNCOBJ_DESTROY), IOC(DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD),
	IOC(DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE), IOC(DRM_IOCTL_SYNCOBJ_WAIT),
	IOC(DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT), IOC(DRM_IOCTL_SYNCOBJ_RESET),
	IOC(DRM_IOCTL_SYNCOBJ_SIGNAL), IOC(DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL),
	IOC(DRM_IOCTL_SYNCOBJ_QUERY), IOC(DRM_IOCTL_SYNCOBJ_TRANSFER),
	IOC(DRM_IOCTL_SYNCOBJ_EVENTFD),
};

/* " EINVAL EFAULT " for each ioctl, from the table. */
static char allowed[IOC_COUNT][272];

/* Shared by the parent and all processes (MAP_SHARED). */
struct fuzz_shared {
	atomic_ulong calls[IOC_COUNT];
	atomic_ulong ok[IOC_COUNT];
	atomic_ulong errno_violations;
	atomic_ulong node_error_violations;
	atomic_ulong blame_violations;
	atomic_ulong graphs;		/* accepted submissions and launches */
	atomic_ulong fds_closed_busy;	/* files closed with graphs in flight */
	atomic_ulong templates_destroyed;
	atomic_ulong bound_launches;	/* launches with binds that the kernel took */
	atomic_int stop;
	/* Soak: accepted graphs and last point of each slot's public syncobj. */
	atomic_ulong soak_done[FUZZ_MAX_PROCS];
	_Atomic __u64 pub_point[FUZZ_MAX_PROCS];
	atomic_ulong soak_rejected;
	atomic_ulong soak_waits;
	/* Last accepted tracking point of each thread of each process slot. */
	_Atomic __u64 last_point[FUZZ_MAX_PROCS][FUZZ_MAX_THREADS];
	/* Load mode: work accepted and not seen complete, per slot (ns). */
	_Atomic __u64 load_cost[FUZZ_MAX_PROCS];
	/* Work each process has accepted since the start, by urgency (LOAD_URGENCY). */
	_Atomic __u64 load_accepted_cost[FUZZ_MAX_PROCS][3];
	atomic_ulong load_done, load_over;
	_Atomic __u64 load_worst_ns, load_worst_ratio;	/* ratio in 1/1000 */
};

static struct fuzz_shared *sh;
static unsigned int nprocs = 4, nthreads = 3;
static unsigned long long seed;
static bool quiet;
/* Soak mode: graphs per process slot, 0 for the random-ioctl run. */
static unsigned long soak_graphs;
/* Load mode (-L). */
static bool load_mode;

/* Device limits, read once by the parent. */
static __u32 num_rings, max_nodes, max_edges, max_waits, max_signals, max_stride;
static __u64 max_bo_size, max_duration;

/* xorshift64*, one per thread. */
static __u64 rnd_next(__u64 *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

static __u64 mix(__u64 a, __u64 b)
{
	__u64 s = a ^ (b + 0x9e3779b97f4a7c15ULL + (a << 6) + (a >> 2));

	return s ? s : 1;
}

/* The state of one of a thread's files: the shared one or a private one. */
struct fuzz_file {
	int fd;
	__u32 track;			/* the tracking syncobj in this file */
	__u32 sync[FUZZ_SYNCOBJS];
	bool timeline[FUZZ_SYNCOBJS];	/* how this thread uses it */
	__u64 last[FUZZ_SYNCOBJS];	/* last point (or 1 for a fence) it added */
	unsigned int nsync;
	__u32 bo[FUZZ_BOS];
	__u64 bo_size[FUZZ_BOS];
	unsigned int nbo;
	__u32 tpl[FUZZ_TEMPLATES];
	__u32 tpl_nodes[FUZZ_TEMPLATES];
	__u32 tpl_slots[FUZZ_TEMPLATES];
	unsigned int ntpl;
	__u64 graph[FUZZ_GRAPHS];
	__u32 graph_nodes[FUZZ_GRAPHS];
	unsigned int ngraph;
};

struct fuzz_thread {
	pthread_t tid;
	unsigned int slot, index;
	__u64 rng;
	int track_fd;			/* the tracking syncobj, as a file */
	__u64 point;			/* its last point this thread accepted */
	struct fuzz_file shared, priv;
	struct fuzz_file *cur;
	const __u32 *avoid;		/* tracking handles in the shared file */
	unsigned long step;
	const char *what;		/* the mutation of the current call */
	char *node_arena, *edge_arena, *sync_arena[2], *info_arena;
	char *scratch;			/* FUZZ_NODE_ARENA bytes */
	/* Staging for the arrays before they are placed in the arenas. */
	struct drm_tas_node *nodes;
	struct drm_tas_edge *edges;
	struct load_log *load;		/* load mode */
};

static __u32 track_shared[FUZZ_MAX_THREADS];

static __u64 rnd(struct fuzz_thread *t)
{
	return rnd_next(&t->rng);
}

/* True with probability 1 / @n. */
static bool one_in(struct fuzz_thread *t, unsigned int n)
{
	return rnd(t) % n == 0;
}

static __u64 rnd_below(struct fuzz_thread *t, __u64 n)
{
	return n ? rnd(t) % n : 0;
}

/* Calls @id on the thread's current file and checks the errno. */
static int xioctl(struct fuzz_thread *t, int id, void *arg)
{
	const char *name;
	char word[40];
	int e;

	atomic_fetch_add_explicit(&sh->calls[id], 1, memory_order_relaxed);
	if (!ioctl(t->cur->fd, iocs[id].cmd, arg)) {
		atomic_fetch_add_explicit(&sh->ok[id], 1, memory_order_relaxed);
		return 0;
	}
	e = errno;
	name = strerrorname_np(e);
	snprintf(word, sizeof(word), " %s ", name ? name : "?");
	if (!strstr(allowed[id], word)) {
		atomic_fetch_add(&sh->errno_violations, 1);
		fprintf(stderr,
			"tas-fuzz: VIOLATION: %s returned %s (%d), not in its row of the errno table (seed %llu, process slot %u, thread %u, step %lu, case %s)\n",
			iocs[id].name, name ? name : "?", e, seed, t->slot, t->index, t->step,
			t->what ? t->what : "valid");
	}
	return -e;
}

/*
 * What a submission, template creation or launch that returned @err blamed
 * (error_array, error_index) must be one element of its arrays, whose
 * counts are @counts by enum drm_tas_error_array, and only for the errors
 * that one element causes; nothing otherwise.
 */
static void check_blame(struct fuzz_thread *t, int id, int err, __u32 array,
			__u32 index, const __u32 counts[DRM_TAS_ERROR_BINDS + 1])
{
	bool element = err == -EINVAL || err == -ENOENT || err == -ELOOP ||
		       err == -EACCES;

	if (array == DRM_TAS_ERROR_NONE ? index == 0 :
	    array <= DRM_TAS_ERROR_BINDS && element && index < counts[array])
		return;
	atomic_fetch_add(&sh->blame_violations, 1);
	fprintf(stderr,
		"tas-fuzz: VIOLATION: %s returned %d blaming array %u index %u (seed %llu, process slot %u, thread %u, step %lu, case %s)\n",
		iocs[id].name, err, array, index, seed, t->slot, t->index, t->step,
		t->what ? t->what : "valid");
}

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* A region of @size bytes followed by an inaccessible guard page. */
static char *arena(size_t size)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, size + page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (mprotect(p + size, page, PROT_NONE))
		return NULL;
	return p;
}

static bool is_tracking(struct fuzz_thread *t, __u32 h)
{
	unsigned int i;

	if (t->cur == &t->priv)
		return h == t->priv.track;
	for (i = 0; i < nthreads; i++)
		if (h == t->avoid[i])
			return true;
	return false;
}

/*
 * A syncobj handle: mostly one of the thread's, else a stale or made-up
 * one, never a tracking syncobj. Returns the pool index in @idx, or -1.
 */
static __u32 pick_syncobj(struct fuzz_thread *t, int *idx)
{
	struct fuzz_file *f = t->cur;
	__u32 h;

	*idx = -1;
	if (f->nsync && !one_in(t, 8)) {
		*idx = rnd_below(t, f->nsync);
		return f->sync[*idx];
	}
	switch (rnd_below(t, 3)) {
	case 0:
		h = 0;
		break;
	case 1:
		h = 0xffffffff;
		break;
	default:
		h = 1 + rnd_below(t, 64);
		break;
	}
	return is_tracking(t, h) ? 0 : h;
}

static __u32 pick_bo(struct fuzz_thread *t, __u64 *size)
{
	struct fuzz_file *f = t->cur;
	unsigned int i;

	*size = 0;
	if (f->nbo && !one_in(t, 16)) {
		i = rnd_below(t, f->nbo);
		*size = f->bo_size[i];
		return f->bo[i];
	}
	return one_in(t, 2) ? 0 : 1 + rnd_below(t, 32);
}

/*
 * Places @count elements of @size bytes from @src in @arena (of @cap bytes,
 * followed by a guard page) with the stride the uAPI expects, or with a
 * mutated stride or placement when @mutate, and describes them in @a.
 */
static void place(struct fuzz_thread *t, char *arena, size_t cap, const void *src,
		  __u32 count, __u32 size, struct drm_tas_array *a, bool mutate)
{
	int m = mutate ? (int)rnd_below(t, 9) : -1;
	__u32 stride = size, i;
	size_t len, mapped;
	char *dst = arena;

	memset(a, 0, sizeof(*a));
	if (m == 0) {		/* valid: a larger stride, zero beyond the structure */
		stride = size + 8 * (1 + rnd_below(t, 4));
	} else if (m == 1) {
		t->what = "stride below the structure";
		stride = size - 4;
	} else if (m == 2) {
		t->what = "stride above the limit";
		stride = max_stride + 8;
	} else if (m == 3) {
		t->what = "non-zero bytes beyond the structure";
		stride = size + 8;
	}
	if (!count) {
		if (m == 4) {
			t->what = "empty array with a pointer";
			a->ptr = (__u64)(uintptr_t)arena;
		} else if (m == 5) {
			t->what = "empty array with a stride";
			a->stride = size;
		}
		return;
	}
	a->count = count;
	a->stride = stride;
	a->ptr = (__u64)(uintptr_t)arena;
	len = (size_t)count * stride;
	if (len > cap)
		return;	/* over the kernel's limits: it must not read it */
	if (m == 6) {
		t->what = "array in an unmapped page";
		a->ptr = (__u64)(uintptr_t)(arena + cap);
		return;
	}
	if (m == 7) {
		t->what = "null array";
		a->ptr = 0;
		return;
	}
	mapped = len;
	if (m == 8 && len > 1) {
		/* The second half of the array is in the guard page. */
		t->what = "partly mapped array";
		mapped = len / 2;
		dst = arena + cap - mapped;
		a->ptr = (__u64)(uintptr_t)dst;
	}
	memset(t->scratch, 0, len);
	for (i = 0; i < count; i++) {
		memcpy(t->scratch + (size_t)i * stride, (const char *)src + (size_t)i * size, size);
		if (m == 3)
			t->scratch[(size_t)i * stride + size + rnd_below(t, 8)] = 1 + rnd_below(t, 255);
	}
	memcpy(dst, t->scratch, mapped);
}

/* A node, valid unless @mutate; operations on buffers where it has some. */
static void gen_node(struct fuzz_thread *t, struct drm_tas_node *n, bool mutate)
{
	__u64 size, m_, n_, k_;
	__u32 bo;

	memset(n, 0, sizeof(*n));
	n->ring = rnd_below(t, num_rings);
	n->class = one_in(t, 20) ? DRM_TAS_CLASS_LATENCY :
		   one_in(t, 3) ? DRM_TAS_CLASS_BATCH : DRM_TAS_CLASS_NORMAL;
	n->duration_ns = rnd_below(t, 200000);
	/* Any tag is valid: the kernel does not interpret it. */
	n->tag = rnd(t);
	bo = pick_bo(t, &size);
	if (size >= 16384 && !one_in(t, 3)) {
		switch (rnd_below(t, 4)) {
		case 0:
			n->op = DRM_TAS_OP_FILL;
			tas_buf(&n->dst, bo, 4 * rnd_below(t, 1024), 4 * (1 + rnd_below(t, 1024)));
			n->imm = (__u32)rnd(t);
			break;
		case 1:
			n->op = DRM_TAS_OP_COPY;
			size = 4 * (1 + rnd_below(t, 1024));
			tas_buf(&n->dst, bo, 0, size);
			tas_buf(&n->src[0], bo, 8192, size);
			break;
		case 2:
			n->op = DRM_TAS_OP_ADD;
			size = 4 * (1 + rnd_below(t, 512));
			tas_buf(&n->dst, bo, 0, size);
			tas_buf(&n->src[0], bo, 4096, size);
			tas_buf(&n->src[1], bo, 8192, size);
			break;
		default:
			n->op = DRM_TAS_OP_MATMUL;
			m_ = 1 + rnd_below(t, 16);
			n_ = 1 + rnd_below(t, 16);
			k_ = 1 + rnd_below(t, 16);
			n->imm = m_ | n_ << 16 | k_ << 32;
			tas_buf(&n->src[0], bo, 0, 4 * m_ * k_);
			tas_buf(&n->src[1], bo, 4096, 4 * k_ * n_);
			tas_buf(&n->dst, bo, 8192, 4 * m_ * n_);
			break;
		}
	}
	if (!mutate)
		return;
	switch (rnd_below(t, 14)) {
	case 0:
		t->what = "ring out of range";
		n->ring = num_rings + rnd_below(t, 4);
		break;
	case 1:
		t->what = "unknown op";
		n->op = DRM_TAS_OP_HOST + 1 + rnd_below(t, 100);
		break;
	case 2:
		t->what = "unknown class";
		n->class = 3 + rnd_below(t, 10);
		break;
	case 3:
		t->what = "node flags";
		n->flags = 1u << rnd_below(t, 32);
		break;
	case 4:
		t->what = "node pad";
		n->pad = 1 + rnd_below(t, 100);
		break;
	case 5:
		t->what = "duration above the limit";
		n->duration_ns = max_duration + 1 + rnd_below(t, 1000);
		break;
	case 6:
		t->what = "overflowing offset + size";
		n->op = DRM_TAS_OP_FILL;
		tas_buf(&n->dst, bo, ~0ULL - rnd_below(t, 64), 8);
		break;
	case 7:
		t->what = "range beyond the buffer";
		n->op = DRM_TAS_OP_FILL;
		tas_buf(&n->dst, bo, size ? size - 4 * rnd_below(t, 2) : 0, 8);
		break;
	case 8:
		t->what = "empty range";
		n->op = DRM_TAS_OP_FILL;
		tas_buf(&n->dst, bo, 0, 0);
		break;
	case 9:
		t->what = "range set for a NOP";
		n->op = DRM_TAS_OP_NOP;
		tas_buf(&n->src[1], bo, 0, 4);
		break;
	case 10:
		t->what = "unused imm bits";
		n->op = DRM_TAS_OP_FILL;
		tas_buf(&n->dst, bo, 0, 4);
		n->imm = 1ULL << (32 + rnd_below(t, 32));
		break;
	case 11:
		t->what = "matmul dimensions";
		n->op = DRM_TAS_OP_MATMUL;
		n->imm = rnd(t);
		tas_buf(&n->src[0], bo, 0, 64);
		tas_buf(&n->src[1], bo, 64, 64);
		tas_buf(&n->dst, bo, 128, 64);
		break;
	case 12:
		t->what = "buffer pad";
		n->dst.pad = 1;
		break;
	default:
		t->what = "copy onto itself";
		n->op = DRM_TAS_OP_COPY;
		tas_buf(&n->dst, bo, 0, 64);
		tas_buf(&n->src[0], bo, 32, 64);
		break;
	}
}

/* Node count: mostly small, sometimes large, rarely at or over the limit. */
static __u32 gen_count(struct fuzz_thread *t)
{
	__u64 r = rnd_below(t, 1000);

	/* One in 8000 at the limit, one in 500 over it. */
	if (r < 700)
		return 1 + rnd_below(t, 8);
	if (r < 970)
		return 9 + rnd_below(t, 56);
	if (r < 997)
		return 65 + rnd_below(t, 960);
	if (r < 998 && one_in(t, 8))
		return max_nodes;
	if (r < 998)
		return 1;
	t->what = "more nodes than the limit";
	return max_nodes + 1 + rnd_below(t, 2);
}

/* Builds nodes and edges in t->nodes / t->edges; returns the edge count. */
static __u32 gen_graph(struct fuzz_thread *t, __u32 n, int mut)
{
	__u32 e = 0, i, cap = n * 3 < max_edges ? n * 3 : max_edges;
	__u32 gang_rings;
	__u32 gn = n <= max_nodes ? n : max_nodes;

	for (i = 0; i < gn; i++)
		gen_node(t, &t->nodes[i], false);
	if (mut == 0 && gn)
		gen_node(t, &t->nodes[rnd_below(t, gn)], true);
	/* A gang of up to num_rings members on distinct rings (valid), or not. */
	if (gn >= 2 && one_in(t, 12)) {
		gang_rings = 0;
		for (i = 0; i < gn && i < num_rings; i++) {
			__u32 k = rnd_below(t, gn);

			t->nodes[k].gang = 1;
			t->nodes[k].ring = i;
			gang_rings++;
		}
		if (one_in(t, 3)) {
			t->what = "gang members on one ring";
			t->nodes[0].gang = 2;
			t->nodes[1].gang = 2;
			t->nodes[1].ring = t->nodes[0].ring;
		}
		(void)gang_rings;
	}
	for (i = 1; i < gn && e < cap; i++) {
		unsigned int k, deg = rnd_below(t, 3);

		for (k = 0; k < deg && e < cap; k++) {
			__u32 from = rnd_below(t, i), j;
			bool dup = false;

			for (j = e > 8 ? e - 8 : 0; j < e; j++)
				if (t->edges[j].from == from && t->edges[j].to == i)
					dup = true;
			if (dup)
				continue;
			t->edges[e].from = from;
			t->edges[e].to = i;
			e++;
		}
	}
	if (mut == 1 && gn) {
		switch (rnd_below(t, 6)) {
		case 0:
			t->what = "self-loop";
			t->edges[e].from = t->edges[e].to = rnd_below(t, gn);
			e++;
			break;
		case 1:
			if (!e)
				break;
			t->what = "duplicate edge";
			t->edges[e] = t->edges[rnd_below(t, e)];
			e++;
			break;
		case 2:
			if (!e)
				break;
			t->what = "cycle";
			i = rnd_below(t, e);
			t->edges[e].from = t->edges[i].to;
			t->edges[e].to = t->edges[i].from;
			e++;
			break;
		case 3:
			t->what = "edge endpoint out of range";
			t->edges[e].from = rnd_below(t, gn);
			t->edges[e].to = one_in(t, 2) ? gn : 0xffffffff;
			e++;
			break;
		case 4:
			if (gn < 2)
				break;
			t->what = "gang member depends on a member";
			t->nodes[0].gang = 3;
			t->nodes[1].gang = 3;
			t->nodes[1].ring = (t->nodes[0].ring + 1) % num_rings;
			t->edges[e].from = 0;
			t->edges[e].to = 1;
			e++;
			break;
		default:
			t->what = "more edges than the limit";
			e = max_edges + 1;
			break;
		}
	}
	return e;
}

/* A wait entry on one of the thread's syncobjs at a point it has added. */
static void gen_wait(struct fuzz_thread *t, struct drm_tas_sync *s, __u32 n)
{
	int i;

	memset(s, 0, sizeof(*s));
	s->handle = pick_syncobj(t, &i);
	s->node = one_in(t, 3) && n ? rnd_below(t, n) : DRM_TAS_NODE_GRAPH;
	if (i >= 0 && t->cur->timeline[i] && t->cur->last[i])
		s->point = 1 + rnd_below(t, t->cur->last[i]);
	else if (i >= 0 && !t->cur->timeline[i])
		s->point = 0;
	else
		s->point = rnd_below(t, 4);
}

/*
 * The signal entries: the tracking point first, then up to two of the
 * thread's syncobjs. @idx gets the pool index of each (-1 if none).
 */
static __u32 gen_signals(struct fuzz_thread *t, struct drm_tas_sync *s, int *idx, __u32 n)
{
	__u32 count = 1 + rnd_below(t, 3), i;

	memset(s, 0, sizeof(*s) * count);
	s[0].handle = t->cur->track;
	s[0].node = DRM_TAS_NODE_GRAPH;
	s[0].point = t->point + 1;
	idx[0] = -1;
	for (i = 1; i < count; i++) {
		int k;

		s[i].handle = pick_syncobj(t, &k);
		idx[i] = k;
		s[i].node = one_in(t, 3) && n ? rnd_below(t, n) : DRM_TAS_NODE_GRAPH;
		if (k >= 0 && t->cur->timeline[k])
			s[i].point = t->cur->last[k] + 1 + rnd_below(t, 3);
		else if (k >= 0)
			s[i].point = 0;
		else
			s[i].point = rnd_below(t, 3);
	}
	return count;
}

/* Mutates one wait or signal entry. */
static void mutate_sync(struct fuzz_thread *t, struct drm_tas_sync *s, __u32 n, bool signal)
{
	switch (rnd_below(t, 6)) {
	case 0:
		t->what = "sync node out of range";
		s->node = n + rnd_below(t, 4);
		break;
	case 1:
		t->what = "sync flags";
		s->flags = 1u << rnd_below(t, 32);
		break;
	case 2:
		t->what = "sync pad";
		s->pad = 1;
		break;
	case 3:
		t->what = signal ? "signal point not above the last" : "wait point not submitted";
		s->point = signal ? 1 : ~0ULL - rnd_below(t, 16);
		break;
	case 4:
		t->what = "binary/timeline mix-up";
		s->point = s->point ? 0 : 1 + rnd_below(t, 8);
		break;
	default:
		t->what = "stale syncobj";
		s->handle = 0x7fff0000 + rnd_below(t, 16);
		break;
	}
	/* Never corrupt the tracking point into one that could be accepted. */
	if (signal && s->handle == t->cur->track && s->point != t->point + 1)
		s->handle = 0;
}

/* Records what an accepted submission or launch added. */
static void accepted(struct fuzz_thread *t, const struct drm_tas_sync *sig, const int *idx,
		     __u32 nsig, __u64 graph_id, __u32 nodes)
{
	struct fuzz_file *f = t->cur;
	__u32 i;

	t->point++;
	atomic_store(&sh->last_point[t->slot][t->index], t->point);
	atomic_fetch_add_explicit(&sh->graphs, 1, memory_order_relaxed);
	for (i = 1; i < nsig; i++) {
		if (idx[i] < 0)
			continue;
		if (f->timeline[idx[i]] && sig[i].point > f->last[idx[i]])
			f->last[idx[i]] = sig[i].point;
		else if (!f->timeline[idx[i]])
			f->last[idx[i]] = 1;
	}
	i = f->ngraph < FUZZ_GRAPHS ? f->ngraph++ : rnd_below(t, FUZZ_GRAPHS);
	f->graph[i] = graph_id;
	f->graph_nodes[i] = nodes;
	/*
	 * Pace as a client would: at most about FUZZ_IN_FLIGHT graphs of the
	 * thread in flight. Every file may hold 65536 nodes in flight, and the
	 * threads' files together would otherwise fill the guest's memory
	 * faster than the rings drain it.
	 */
	if (t->point % 16 == 0 && t->point > FUZZ_IN_FLIGHT)
		tas_wait_syncobj(f->fd, f->track, t->point - FUZZ_IN_FLIGHT, 60);
}

static void do_submit(struct fuzz_thread *t, bool tpl_create)
{
	struct drm_tas_submit_graph s = { 0 };
	struct drm_tas_template_create c = { 0 };
	struct drm_tas_sync waits[4], sigs[4];
	int idx[4], err, mut = one_in(t, 3) ? (int)rnd_below(t, 8) : -1;
	__u32 n = gen_count(t), e, nw, ns, i;
	struct drm_tas_array *na, *ea;

	e = gen_graph(t, n, mut);
	na = tpl_create ? &c.nodes : &s.nodes;
	ea = tpl_create ? &c.edges : &s.edges;
	place(t, t->node_arena, FUZZ_NODE_ARENA, t->nodes, n > max_nodes ? max_nodes : n,
	      sizeof(struct drm_tas_node), na, mut == 2);
	if (n > max_nodes)
		na->count = n;
	place(t, t->edge_arena, FUZZ_EDGE_ARENA, t->edges, e > max_edges ? 0 : e,
	      sizeof(struct drm_tas_edge), ea, mut == 3);
	if (e > max_edges) {
		ea->count = e;
		ea->stride = sizeof(struct drm_tas_edge);
		ea->ptr = (__u64)(uintptr_t)t->edge_arena;
	}
	if (mut == 4) {
		t->what = "extensions";
		if (tpl_create)
			c.extensions = 1 + rnd_below(t, 1000);
		else
			s.extensions = (__u64)(uintptr_t)t->sync_arena[0];
	} else if (mut == 5) {
		t->what = "flags";
		if (tpl_create)
			c.flags = 1u << rnd_below(t, 32);
		else
			s.flags = 2u << rnd_below(t, 31);
	} else if (mut == 6 && !tpl_create) {
		t->what = "pad";
		s.pad = 1;
	}
	if (tpl_create) {
		__u32 counts[] = { 0, c.nodes.count, c.edges.count, 0, 0, 0 };
		int err = xioctl(t, IOC_TEMPLATE_CREATE, &c);

		check_blame(t, IOC_TEMPLATE_CREATE, err, c.error_array,
			    c.error_index, counts);
		if (!err) {
			struct fuzz_file *f = t->cur;
			struct drm_tas_template_destroy d = { 0 };

			if (f->ntpl < FUZZ_TEMPLATES) {
				i = f->ntpl++;
			} else {
				/* The one it replaces goes, launched or not. */
				i = rnd_below(t, FUZZ_TEMPLATES);
				d.handle = f->tpl[i];
				if (!xioctl(t, IOC_TEMPLATE_DESTROY, &d))
					atomic_fetch_add_explicit(&sh->templates_destroyed, 1,
								  memory_order_relaxed);
			}
			f->tpl[i] = c.handle;
			f->tpl_nodes[i] = n;
			f->tpl_slots[i] = c.slots;
		}
		return;
	}
	if (one_in(t, 4))
		s.flags |= DRM_TAS_SUBMIT_FIFO;
	nw = rnd_below(t, 3);
	for (i = 0; i < nw; i++)
		gen_wait(t, &waits[i], n);
	ns = gen_signals(t, sigs, idx, n);
	if (mut == 7) {
		if (nw && one_in(t, 2))
			mutate_sync(t, &waits[rnd_below(t, nw)], n, false);
		else if (ns > 1)
			mutate_sync(t, &sigs[1 + rnd_below(t, ns - 1)], n, true);
	}
	place(t, t->sync_arena[0], FUZZ_SYNC_ARENA, waits, nw, sizeof(waits[0]), &s.waits,
	      mut == 6 && one_in(t, 2));
	place(t, t->sync_arena[1], FUZZ_SYNC_ARENA, sigs, ns, sizeof(sigs[0]), &s.signals, false);
	if (mut == 0 && one_in(t, 8)) {
		t->what = "more waits than the limit";
		s.waits.count = max_waits + 1;
		s.waits.stride = sizeof(waits[0]);
		s.waits.ptr = (__u64)(uintptr_t)t->sync_arena[0];
	}
	err = xioctl(t, IOC_SUBMIT_GRAPH, &s);
	check_blame(t, IOC_SUBMIT_GRAPH, err, s.error_array, s.error_index,
		    (__u32[]){ 0, s.nodes.count, s.edges.count, s.waits.count,
			       s.signals.count, 0 });
	if (!err)
		accepted(t, sigs, idx, ns, s.graph_id, n);
}

static void do_launch(struct fuzz_thread *t)
{
	struct drm_tas_template_launch l = { 0 };
	struct fuzz_file *f = t->cur;
	struct drm_tas_sync waits[4], sigs[4];
	struct drm_tas_bind binds[3];
	__u32 n = 1, nw, ns, nb = 0, slots = 0, i;
	int idx[4], err;

	if (f->ntpl && !one_in(t, 10)) {
		i = rnd_below(t, f->ntpl);
		l.handle = f->tpl[i];
		n = f->tpl_nodes[i];
		slots = f->tpl_slots[i];
	} else {
		t->what = "unknown template";
		l.handle = rnd_below(t, 100);
	}
	nw = rnd_below(t, 3);
	for (i = 0; i < nw; i++)
		gen_wait(t, &waits[i], n);
	ns = gen_signals(t, sigs, idx, n);
	if (one_in(t, 5)) {
		if (nw && one_in(t, 2))
			mutate_sync(t, &waits[rnd_below(t, nw)], n, false);
		else if (ns > 1)
			mutate_sync(t, &sigs[1 + rnd_below(t, ns - 1)], n, true);
		else if (one_in(t, 2)) {
			t->what = "launch flags";
			l.flags = 1u << rnd_below(t, 32);
		}
	}
	place(t, t->sync_arena[0], FUZZ_SYNC_ARENA, waits, nw, sizeof(waits[0]), &l.waits,
	      one_in(t, 10));
	place(t, t->sync_arena[1], FUZZ_SYNC_ARENA, sigs, ns, sizeof(sigs[0]), &l.signals,
	      false);
	/*
	 * Binds: a slot of the template (or one past them), a buffer of the
	 * file (or an unknown handle) and an offset within it, or past it.
	 */
	if (one_in(t, 3)) {
		nb = 1 + rnd_below(t, 3);
		for (i = 0; i < nb; i++) {
			__u64 size;

			memset(&binds[i], 0, sizeof(binds[i]));
			binds[i].slot = rnd_below(t, slots + 1);
			binds[i].handle = pick_bo(t, &size);
			binds[i].offset = one_in(t, 8) ? ~0ULL - rnd_below(t, 4096) :
					  4 * rnd_below(t, size / 8 + 1);
		}
		t->what = "binds";
		if (one_in(t, 10))
			t->what = "binds without their flag";
		else
			l.flags |= DRM_TAS_LAUNCH_BINDS;
	}
	place(t, t->info_arena, FUZZ_INFO_ARENA, binds, nb, sizeof(binds[0]), &l.binds,
	      nb && one_in(t, 10));
	/* After the template's last ordered launch, which may be in flight. */
	if (one_in(t, 4))
		l.flags |= DRM_TAS_LAUNCH_ORDERED;
	err = xioctl(t, IOC_TEMPLATE_LAUNCH, &l);
	check_blame(t, IOC_TEMPLATE_LAUNCH, err, l.error_array, l.error_index,
		    (__u32[]){ 0, 0, 0, l.waits.count, l.signals.count, l.binds.count });
	if (!err && l.binds.count)
		atomic_fetch_add_explicit(&sh->bound_launches, 1, memory_order_relaxed);
	if (!err)
		accepted(t, sigs, idx, ns, l.graph_id, n);
}

static void do_template_destroy(struct fuzz_thread *t)
{
	struct drm_tas_template_destroy d = { 0 };
	struct fuzz_file *f = t->cur;
	unsigned int i = 0;

	if (f->ntpl && !one_in(t, 5)) {
		i = rnd_below(t, f->ntpl);
		d.handle = f->tpl[i];
	} else {
		d.handle = rnd_below(t, 100);
	}
	if (one_in(t, 20)) {
		t->what = "destroy pad";
		d.pad = 1;
	}
	if (!xioctl(t, IOC_TEMPLATE_DESTROY, &d)) {
		atomic_fetch_add_explicit(&sh->templates_destroyed, 1, memory_order_relaxed);
		if (f->ntpl && f->tpl[i] == d.handle) {
			f->tpl[i] = f->tpl[--f->ntpl];
			f->tpl_nodes[i] = f->tpl_nodes[f->ntpl];
			f->tpl_slots[i] = f->tpl_slots[f->ntpl];
		}
	}
}

/* The errors GRAPH_INFO may report for a node (see the header). */
static bool node_error_ok(__s32 err)
{
	return !err || err == -ECANCELED || err == -ETIMEDOUT || err == -ESRCH;
}

static void do_graph_info(struct fuzz_thread *t)
{
	struct drm_tas_graph_info gi = { 0 };
	struct fuzz_file *f = t->cur;
	__u32 n = 1, i, stride = sizeof(struct drm_tas_node_info);
	bool check;

	if (f->ngraph && !one_in(t, 8)) {
		i = rnd_below(t, f->ngraph);
		gi.graph_id = f->graph[i];
		n = f->graph_nodes[i];
	} else {
		gi.graph_id = rnd(t) % 4 ? rnd_below(t, 5000) : rnd(t);
	}
	if ((size_t)n * stride > FUZZ_INFO_ARENA)
		return;
	gi.nodes.ptr = (__u64)(uintptr_t)t->info_arena;
	gi.nodes.count = n;
	gi.nodes.stride = stride;
	check = true;
	switch (one_in(t, 4) ? rnd_below(t, 7) : 7) {
	case 0:
		t->what = "info count";
		gi.nodes.count = n + 1 + rnd_below(t, 3);
		check = false;
		break;
	case 1:
		t->what = "info stride";
		gi.nodes.stride = one_in(t, 2) ? stride - 8 : max_stride + 8;
		break;
	case 2:
		t->what = "info flags";
		gi.flags = 1;
		break;
	case 3:
		t->what = "info array unmapped";
		gi.nodes.ptr = (__u64)(uintptr_t)(t->info_arena + FUZZ_INFO_ARENA);
		check = false;
		break;
	case 4:
		t->what = "info array partly mapped";
		gi.nodes.ptr = (__u64)(uintptr_t)(t->info_arena + FUZZ_INFO_ARENA -
						  (n * stride) / 2);
		check = false;
		break;
	case 5:
		t->what = "info larger stride";
		gi.nodes.stride = stride + 16;
		check = false;
		break;
	case 6:
		t->what = "info summary";
		gi.flags = DRM_TAS_GRAPH_INFO_SUMMARY;
		memset(&gi.nodes, 0, sizeof(gi.nodes));
		n = 0;
		break;
	default:
		break;
	}
	if (xioctl(t, IOC_GRAPH_INFO, &gi) || !check)
		return;
	/* The first failed node: an error the header names, or none. */
	if (!node_error_ok(gi.error) || !gi.error != (gi.error_node == DRM_TAS_NODE_GRAPH) ||
	    (gi.error && gi.error_node >= gi.node_count) || (check && n && gi.node_count != n)) {
		atomic_fetch_add(&sh->node_error_violations, 1);
		fprintf(stderr,
			"tas-fuzz: VIOLATION: GRAPH_INFO: graph %llu first error %d at node %u (seed %llu, slot %u, thread %u)\n",
			(unsigned long long)gi.graph_id, gi.error, gi.error_node, seed, t->slot,
			t->index);
		return;
	}
	for (i = 0; i < n; i++) {
		struct drm_tas_node_info *ni = (void *)(t->info_arena + (size_t)i * stride);

		if (!node_error_ok(ni->error)) {
			atomic_fetch_add(&sh->node_error_violations, 1);
			fprintf(stderr,
				"tas-fuzz: VIOLATION: GRAPH_INFO: graph %llu node %u error %d is not one the header names (seed %llu, slot %u, thread %u)\n",
				(unsigned long long)gi.graph_id, i, ni->error, seed, t->slot,
				t->index);
			break;
		}
	}
}

static void do_bo(struct fuzz_thread *t)
{
	struct fuzz_file *f = t->cur;
	struct drm_tas_bo_create c = { 0 };
	struct drm_tas_bo_mmap_offset mo = { 0 };
	struct drm_gem_close gc = { 0 };
	struct drm_prime_handle ph = { 0 };
	unsigned int i;
	__u64 size;
	void *p;

	switch (rnd_below(t, 5)) {
	case 0:
	case 1:
		switch (rnd_below(t, 8)) {
		case 0:
			t->what = "bo size 0";
			c.size = 0;
			break;
		case 1:
			t->what = "bo size above the limit";
			c.size = one_in(t, 2) ? max_bo_size + 1 : ~0ULL - rnd_below(t, 4096);
			break;
		case 2:
			t->what = "bo flags";
			c.size = 4096;
			c.flags = 1u << rnd_below(t, 32);
			break;
		case 3:
			c.size = one_in(t, 8) ? max_bo_size : 1 + rnd_below(t, 65536);
			break;
		default:
			c.size = 16384 + 4096 * rnd_below(t, 4);
			break;
		}
		if (xioctl(t, IOC_BO_CREATE, &c))
			return;
		if (c.size > (1u << 20) || f->nbo == FUZZ_BOS) {
			/* Large buffers go at once; so does the oldest in a full pool. */
			gc.handle = c.size > (1u << 20) ? c.handle : f->bo[0];
			xioctl(t, IOC_GEM_CLOSE, &gc);
			if (c.size > (1u << 20))
				return;
			f->bo[0] = f->bo[--f->nbo];
			f->bo_size[0] = f->bo_size[f->nbo];
		}
		f->bo[f->nbo] = c.handle;
		f->bo_size[f->nbo++] = (c.size + 4095) & ~4095ULL;
		return;
	case 2:
		mo.handle = pick_bo(t, &size);
		if (one_in(t, 20)) {
			t->what = "mmap offset pad";
			mo.pad = 1;
		}
		if (xioctl(t, IOC_BO_MMAP_OFFSET, &mo) || !size)
			return;
		p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd, mo.offset);
		if (p != MAP_FAILED) {
			((volatile char *)p)[rnd_below(t, 4096)] = 1;
			munmap(p, 4096);
		}
		return;
	case 3:
		gc.handle = pick_bo(t, &size);
		if (one_in(t, 20)) {
			t->what = "gem close pad";
			gc.pad = 1;
		}
		if (xioctl(t, IOC_GEM_CLOSE, &gc))
			return;
		for (i = 0; i < f->nbo; i++) {
			if (f->bo[i] == gc.handle) {
				f->bo[i] = f->bo[--f->nbo];
				f->bo_size[i] = f->bo_size[f->nbo];
				break;
			}
		}
		return;
	default:
		/* A PRIME round trip on the same file, or a foreign fd. */
		ph.handle = pick_bo(t, &size);
		ph.flags = one_in(t, 20) ? 1u << rnd_below(t, 32) : DRM_CLOEXEC | DRM_RDWR;
		if (xioctl(t, IOC_PRIME_HANDLE_TO_FD, &ph))
			ph.fd = one_in(t, 2) ? -1 : t->track_fd;
		ph.handle = 0;
		ph.flags = 0;
		xioctl(t, IOC_PRIME_FD_TO_HANDLE, &ph);
		if (ph.fd >= 0 && ph.fd != t->track_fd)
			close(ph.fd);
		return;
	}
}

/* Wait flags: mostly valid combinations, sometimes an unknown bit. */
static __u32 wait_flags(struct fuzz_thread *t)
{
	__u32 flags = rnd_below(t, 8);

	if (one_in(t, 20)) {
		t->what = "wait flags";
		flags |= 1u << (3 + rnd_below(t, 29));
	}
	return flags;
}

static void do_syncobj(struct fuzz_thread *t)
{
	struct fuzz_file *f = t->cur;
	__u32 handles[8], count = 1 + rnd_below(t, 4), i;
	__u64 points[8];
	int k;

	for (i = 0; i < count; i++) {
		handles[i] = pick_syncobj(t, &k);
		points[i] = k >= 0 && f->timeline[k] ? rnd_below(t, f->last[k] + 2) : 0;
	}
	switch (rnd_below(t, 12)) {
	case 0: {
		struct drm_syncobj_create c = { 0 };

		c.flags = one_in(t, 3) ? DRM_SYNCOBJ_CREATE_SIGNALED : 0;
		if (one_in(t, 20)) {
			t->what = "create flags";
			c.flags = 2u << rnd_below(t, 31);
		}
		if (xioctl(t, IOC_SYNCOBJ_CREATE, &c))
			return;
		if (f->nsync == FUZZ_SYNCOBJS) {
			struct drm_syncobj_destroy d = { .handle = c.handle };

			xioctl(t, IOC_SYNCOBJ_DESTROY, &d);
			return;
		}
		f->sync[f->nsync] = c.handle;
		f->timeline[f->nsync] = one_in(t, 2);
		f->last[f->nsync++] = c.flags ? 1 : 0;
		return;
	}
	case 1: {
		struct drm_syncobj_destroy d = { .handle = handles[0] };

		if (one_in(t, 20)) {
			t->what = "destroy pad";
			d.pad = 1;
		}
		if (xioctl(t, IOC_SYNCOBJ_DESTROY, &d))
			return;
		for (i = 0; i < f->nsync; i++) {
			if (f->sync[i] == d.handle) {
				f->nsync--;
				f->sync[i] = f->sync[f->nsync];
				f->timeline[i] = f->timeline[f->nsync];
				f->last[i] = f->last[f->nsync];
				break;
			}
		}
		return;
	}
	case 2:
	case 3: {
		struct drm_syncobj_timeline_wait w = { 0 };
		bool timeline = rnd_below(t, 2);

		w.handles = (__u64)(uintptr_t)handles;
		w.points = (__u64)(uintptr_t)points;
		w.count_handles = count;
		w.flags = wait_flags(t);
		w.timeout_nsec = one_in(t, 2) ? 0 : now_ns() + rnd_below(t, 2000000);
		if (one_in(t, 30)) {
			t->what = "huge handle count";
			w.count_handles = one_in(t, 2) ? 1u << 21 : ~0u - rnd_below(t, 16);
		} else if (one_in(t, 30)) {
			t->what = "unmapped handle array";
			w.handles = (__u64)(uintptr_t)(t->sync_arena[0] + FUZZ_SYNC_ARENA);
		} else if (one_in(t, 40)) {
			t->what = "zero handles";
			w.count_handles = 0;
		}
		if (timeline) {
			xioctl(t, IOC_SYNCOBJ_TIMELINE_WAIT, &w);
		} else {
			struct drm_syncobj_wait bw = { 0 };

			bw.handles = w.handles;
			bw.count_handles = w.count_handles;
			bw.timeout_nsec = w.timeout_nsec;
			bw.flags = w.flags & ~DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE;
			if (one_in(t, 20))
				bw.pad = 1;
			xioctl(t, IOC_SYNCOBJ_WAIT, &bw);
		}
		return;
	}
	case 4: {
		struct drm_syncobj_array a = { 0 };

		a.handles = (__u64)(uintptr_t)handles;
		a.count_handles = count;
		if (one_in(t, 30)) {
			/*
			 * Up to 2^21 (8 MiB arrays), or past what kvmalloc
			 * takes: counts in between make the kernel try to
			 * vmalloc up to 2 GiB, which fails without the OOM
			 * killer but squeezes the other processes of the guest
			 * while it tries.
			 */
			t->what = "huge handle count";
			a.count_handles = one_in(t, 4) ? ~0u - rnd_below(t, 16) :
				1u << (16 + rnd_below(t, 6));
		}
		xioctl(t, one_in(t, 2) ? IOC_SYNCOBJ_RESET : IOC_SYNCOBJ_SIGNAL, &a);
		return;
	}
	case 5:
	case 6: {
		struct drm_syncobj_timeline_array a = { 0 };
		bool query = rnd_below(t, 2);

		a.handles = (__u64)(uintptr_t)handles;
		a.points = (__u64)(uintptr_t)points;
		a.count_handles = count;
		if (query) {
			a.flags = one_in(t, 2) ? DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED : 0;
			if (one_in(t, 20))
				a.flags = 2;
			xioctl(t, IOC_SYNCOBJ_QUERY, &a);
			return;
		}
		for (i = 0; i < count; i++)
			points[i] = rnd_below(t, 64);
		if (one_in(t, 20))
			a.flags = 1;
		if (xioctl(t, IOC_SYNCOBJ_TIMELINE_SIGNAL, &a))
			return;
		for (i = 0; i < count; i++)
			for (k = 0; k < (int)f->nsync; k++)
				if (f->sync[k] == handles[i] && points[i] > f->last[k])
					f->last[k] = points[i];
		return;
	}
	case 7: {
		struct drm_syncobj_transfer tr = { 0 };
		int d;

		tr.src_handle = handles[0];
		tr.src_point = points[0];
		tr.dst_handle = pick_syncobj(t, &d);
		tr.dst_point = d >= 0 && f->timeline[d] ? f->last[d] + 1 : 0;
		if (one_in(t, 20)) {
			t->what = "transfer pad";
			tr.pad = 1;
		} else if (one_in(t, 20)) {
			t->what = "transfer flags";
			tr.flags = 1u << (3 + rnd_below(t, 29));
		}
		if (!xioctl(t, IOC_SYNCOBJ_TRANSFER, &tr) && d >= 0)
			f->last[d] = tr.dst_point ? tr.dst_point : 1;
		return;
	}
	case 8:
	case 9: {
		/* Export as a syncobj file or a sync_file, import it back. */
		struct drm_syncobj_handle h = { 0 };
		bool sync_file = rnd_below(t, 2);
		int d;

		h.handle = handles[0];
		h.point = sync_file ? points[0] : 0;
		h.flags = sync_file ? DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE : 0;
		if (one_in(t, 20)) {
			t->what = "export flags";
			h.flags |= 2u << rnd_below(t, 31);
		}
		if (xioctl(t, IOC_SYNCOBJ_HANDLE_TO_FD, &h))
			h.fd = one_in(t, 2) ? -1 : t->track_fd;
		{
			int fd = h.fd;

			h.handle = sync_file ? pick_syncobj(t, &d) : 0;
			h.point = 0;
			if (sync_file && d >= 0 && f->timeline[d])
				h.point = f->last[d] + 1;
			h.flags = sync_file ? DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE : 0;
			if (!sync_file && fd == t->track_fd)
				h.fd = -1;	/* never a second handle of the tracking one */
			if (!xioctl(t, IOC_SYNCOBJ_FD_TO_HANDLE, &h)) {
				if (sync_file && d >= 0)
					f->last[d] = h.point ? h.point : 1;
				if (!sync_file) {
					struct drm_syncobj_destroy dd = { .handle = h.handle };

					xioctl(t, IOC_SYNCOBJ_DESTROY, &dd);
				}
			}
			if (fd >= 0 && fd != t->track_fd)
				close(fd);
		}
		return;
	}
	default: {
		struct drm_syncobj_eventfd ev = { 0 };
		__u64 v;

		ev.handle = handles[0];
		ev.point = points[0];
		ev.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		ev.flags = one_in(t, 2) ? DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE : 0;
		if (one_in(t, 20)) {
			t->what = "eventfd flags";
			ev.flags = 1u << rnd_below(t, 32);
		} else if (one_in(t, 20)) {
			t->what = "not an eventfd";
			close(ev.fd);
			ev.fd = one_in(t, 2) ? -1 : t->track_fd;
		}
		xioctl(t, IOC_SYNCOBJ_EVENTFD, &ev);
		if (ev.fd >= 0 && ev.fd != t->track_fd) {
			if (read(ev.fd, &v, sizeof(v)) < 0)
				v = 0;
			close(ev.fd);
		}
		return;
	}
	}
}

static void do_get_param(struct fuzz_thread *t)
{
	struct drm_tas_get_param p = { 0 };

	p.param = one_in(t, 4) ? rnd_below(t, 64) : rnd_below(t, 14);
	if (one_in(t, 20)) {
		t->what = "param pad";
		p.pad = 1;
	}
	xioctl(t, IOC_GET_PARAM, &p);
}

/* Imports the thread's tracking syncobj into @f. */
static int file_open(struct fuzz_thread *t, struct fuzz_file *f, int fd)
{
	struct drm_syncobj_handle h = { 0 };

	memset(f, 0, sizeof(*f));
	f->fd = fd;
	h.fd = t->track_fd;
	if (ioctl(fd, DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &h))
		return -errno;
	f->track = h.handle;
	return 0;
}

/* Opens a file of the thread's own, or closes it with graphs in flight. */
static void do_private_file(struct fuzz_thread *t)
{
	char path[512];
	int fd;

	if (t->cur == &t->priv) {
		if (t->priv.ngraph)
			atomic_fetch_add_explicit(&sh->fds_closed_busy, 1, memory_order_relaxed);
		close(t->priv.fd);
		t->cur = &t->shared;
		return;
	}
	fd = tas_open_render(path, sizeof(path));
	if (fd < 0)
		return;
	if (file_open(t, &t->priv, fd)) {
		close(fd);
		return;
	}
	t->cur = &t->priv;
}

static void *thread_main(void *arg)
{
	struct fuzz_thread *t = arg;

	while (!atomic_load(&sh->stop)) {
		__u64 r = rnd_below(t, 1000);

		t->step++;
		t->what = NULL;
		if (r < 300)
			do_submit(t, false);
		else if (r < 330)
			do_submit(t, true);
		else if (r < 450)
			do_launch(t);
		else if (r < 470)
			do_template_destroy(t);
		else if (r < 550)
			do_graph_info(t);
		else if (r < 650)
			do_bo(t);
		else if (r < 960)
			do_syncobj(t);
		else if (r < 997)
			do_get_param(t);
		else
			do_private_file(t);
	}
	return NULL;
}

/*
 * Soak mode: one thread per process submits valid graphs (some as launches
 * of a template), each waiting for a random point of another process's
 * public timeline and signalling its own, until its slot has SOAK_GRAPHS
 * accepted graphs. Every rejection is a violation, and so is a node error
 * that GRAPH_INFO reports and the header does not name.
 */
static __u32 pub_local[FUZZ_MAX_PROCS];

static void soak_check_info(struct fuzz_thread *t, __u64 graph_id, __u32 n)
{
	struct drm_tas_graph_info gi = { 0 };
	struct drm_tas_node_info *info = (void *)t->info_arena;
	__u32 i;

	gi.graph_id = graph_id;
	gi.nodes = tas_array(info, n, sizeof(*info));
	if (xioctl(t, IOC_GRAPH_INFO, &gi) || !gi.done)
		return;
	for (i = 0; i < n; i++) {
		if (!node_error_ok(info[i].error)) {
			atomic_fetch_add(&sh->node_error_violations, 1);
			fprintf(stderr,
				"tas-fuzz: VIOLATION: soak: graph %llu node %u error %d is not one the header names\n",
				(unsigned long long)graph_id, i, info[i].error);
			return;
		}
	}
}

static void soak(struct fuzz_thread *t, __u32 tpl, __u32 tpl_nodes)
{
	struct drm_tas_sync waits[2], sigs[2];
	__u64 recent[16] = { 0 };
	__u32 recent_n[16] = { 0 };
	unsigned long k = 0;

	while (!atomic_load(&sh->stop) &&
	       atomic_load(&sh->soak_done[t->slot]) < soak_graphs) {
		struct drm_tas_submit_graph s = { 0 };
		struct drm_tas_template_launch l = { 0 };
		__u32 n, e = 0, i, nw = 0, o;
		__u64 id, p;
		int ret;

		t->step++;
		t->what = "soak";
		n = tpl && one_in(t, 4) ? 0 : 1 + rnd_below(t, 16);
		for (i = 0; i < n; i++) {
			gen_node(t, &t->nodes[i], false);
			t->nodes[i].op = DRM_TAS_OP_NOP;
			memset(&t->nodes[i].dst, 0, 3 * sizeof(t->nodes[i].dst));
			t->nodes[i].imm = 0;
			t->nodes[i].duration_ns = rnd_below(t, 100000);
			if (i && one_in(t, 2)) {
				t->edges[e].from = rnd_below(t, i);
				t->edges[e++].to = i;
			}
		}
		o = rnd_below(t, nprocs);
		p = atomic_load(&sh->pub_point[o]);
		if (o != t->slot && p && !one_in(t, 4)) {
			memset(&waits[0], 0, sizeof(waits[0]));
			waits[0].handle = pub_local[o];
			waits[0].node = DRM_TAS_NODE_GRAPH;
			waits[0].point = 1 + rnd_below(t, p);
			nw = 1;
			atomic_fetch_add_explicit(&sh->soak_waits, 1, memory_order_relaxed);
		}
		memset(sigs, 0, sizeof(sigs));
		sigs[0].handle = t->cur->track;
		sigs[0].node = DRM_TAS_NODE_GRAPH;
		sigs[0].point = t->point + 1;
		sigs[1].handle = pub_local[t->slot];
		sigs[1].node = DRM_TAS_NODE_GRAPH;
		sigs[1].point = atomic_load(&sh->pub_point[t->slot]) + 1;
		if (n) {
			s.nodes = tas_array(t->nodes, n, sizeof(t->nodes[0]));
			s.edges = tas_array(t->edges, e, sizeof(t->edges[0]));
			s.waits = tas_array(waits, nw, sizeof(waits[0]));
			s.signals = tas_array(sigs, 2, sizeof(sigs[0]));
			s.flags = one_in(t, 4) ? DRM_TAS_SUBMIT_FIFO : 0;
			ret = xioctl(t, IOC_SUBMIT_GRAPH, &s);
			id = s.graph_id;
		} else {
			n = tpl_nodes;
			l.handle = tpl;
			l.waits = tas_array(waits, nw, sizeof(waits[0]));
			l.signals = tas_array(sigs, 2, sizeof(sigs[0]));
			ret = xioctl(t, IOC_TEMPLATE_LAUNCH, &l);
			id = l.graph_id;
		}
		if (ret) {
			atomic_fetch_add(&sh->soak_rejected, 1);
			fprintf(stderr, "tas-fuzz: VIOLATION: soak: slot %u: a valid graph was rejected: %s\n",
				t->slot, strerror(-ret));
			continue;
		}
		t->point++;
		atomic_store(&sh->last_point[t->slot][t->index], t->point);
		atomic_store(&sh->pub_point[t->slot], sigs[1].point);
		atomic_fetch_add(&sh->soak_done[t->slot], 1);
		atomic_fetch_add_explicit(&sh->graphs, 1, memory_order_relaxed);
		/* The graph submitted 16 graphs ago is probably done: check its nodes. */
		if (recent_n[k % 16])
			soak_check_info(t, recent[k % 16], recent_n[k % 16]);
		recent[k % 16] = id;
		recent_n[k % 16] = n;
		k++;
	}
}

/* The template of soak mode: a chain over the rings. */
static int soak_template(struct fuzz_thread *t, __u32 *handle, __u32 *n)
{
	struct drm_tas_template_create c = { 0 };
	__u32 i;

	*n = 4;
	for (i = 0; i < *n; i++) {
		memset(&t->nodes[i], 0, sizeof(t->nodes[i]));
		t->nodes[i].ring = i % num_rings;
		t->nodes[i].duration_ns = 20000;
		if (i) {
			t->edges[i - 1].from = i - 1;
			t->edges[i - 1].to = i;
		}
	}
	c.nodes = tas_array(t->nodes, *n, sizeof(t->nodes[0]));
	c.edges = tas_array(t->edges, *n - 1, sizeof(t->edges[0]));
	if (xioctl(t, IOC_TEMPLATE_CREATE, &c))
		return -1;
	*handle = c.handle;
	return 0;
}

/*
 * Load mode (-L): saturating valid work from every process, to find graphs
 * that wait too long or forever (docs/design.md, "How long a graph
 * waits"). Thread 0 of each process floods every ring with graphs of mixed
 * classes, a third of them with a gang across rings (sometimes two gangs in
 * a graph of 512-767 nodes), some waiting for another process's public
 * timeline; thread 1 launches templates of 1024-4096 NOP nodes on one ring
 * again and again and destroys them while launched; thread 2 submits graphs
 * with a host node and reports it done once it is released. Every graph
 * signals its thread's tracking timeline, which a waiter thread of its own
 * follows: each completion's latency (accepted to signalled) is compared
 * with the graph's own work plus the work that all processes had accepted
 * and not yet seen complete when it was accepted (each node costing its
 * duration plus the per-node cost measured at start), plus the work of a
 * class at least as urgent as the graph's least urgent one that other
 * processes accepted while it waited (drm_sched's priorities between clients
 * are strict, and within one it serves jobs by the time they were pushed,
 * which for the dispatcher is when a node is released: such work can pass
 * it), and the worst ratio is the run's figure;
 * one above -B (default 4) fails the run, as does any lost completion,
 * rejected valid graph or host node never released. A third of the flood's
 * graphs and half of the templates have one class for all of their nodes,
 * so that the bound is tested without the classes' leeway too.
 */
#define LOAD_LOG		256	/* per thread: > LOAD_IN_FLIGHT */
#define LOAD_IN_FLIGHT		16
#define LOAD_SLACK_NS		(2000ULL * 1000000ULL)

/* Urgency of a class: 0 for the latency class, 1 normal, 2 batch. */
#define LOAD_URGENCY(class)	((class) == DRM_TAS_CLASS_LATENCY ? 0 : \
				 (class) == DRM_TAS_CLASS_BATCH ? 2 : 1)

struct load_log {
	_Atomic __u64 accept_ns[LOAD_LOG];
	__u64 own[LOAD_LOG], ahead[LOAD_LOG];
	/* The least urgent class of the graph, and the more urgent work of other processes then. */
	__u32 urgency[LOAD_LOG];
	__u64 passing_base[LOAD_LOG];
	__u64 graph_id[LOAD_LOG];
	__u32 nodes[LOAD_LOG], gangs[LOAD_LOG];
	const char *kind[LOAD_LOG];
	_Atomic __u64 accepted;		/* last accepted point */
	_Atomic __u64 seen;		/* last point the waiter has measured */
	pthread_t waiter;
};

static unsigned int load_bound = 4;

/*
 * Where a slow graph's nodes are: finished, started, ready and not started
 * (per ring; the last entry is the host nodes), not ready. For the log.
 */
static void load_where(struct fuzz_thread *t, __u64 graph_id, __u32 n)
{
	struct drm_tas_node_info *info = (void *)t->info_arena;
	struct drm_tas_graph_info gi = { .graph_id = graph_id };
	unsigned int ready[TAS_MAX_RINGS + 1] = { 0 }, started = 0, finished = 0, waiting = 0;
	char line[256];
	int len = 0;
	__u32 i;

	if (!info || n > FUZZ_INFO_ARENA / sizeof(*info))
		return;
	gi.nodes = tas_array(info, n, sizeof(*info));
	if (ioctl(t->shared.fd, DRM_IOCTL_TAS_GRAPH_INFO, &gi))
		return;
	for (i = 0; i < n; i++) {
		if (info[i].finished_ns)
			finished++;
		else if (info[i].started_ns)
			started++;
		else if (info[i].ready_ns)
			ready[info[i].ring < num_rings ? info[i].ring : num_rings]++;
		else
			waiting++;
	}
	for (i = 0; i <= num_rings && i <= TAS_MAX_RINGS; i++)
		len += snprintf(line + len, sizeof(line) - len, " %u", ready[i]);
	fprintf(stderr,
		"tas-fuzz: load:   graph %llu: %u finished, %u started, ready and not started per ring (then host):%s, %u not ready\n",
		(unsigned long long)graph_id, finished, started, line, waiting);
}

static __u64 load_node_cost = 100000;

static __u64 load_ahead(void)
{
	__u64 sum = 0;
	unsigned int i;

	for (i = 0; i < FUZZ_MAX_PROCS; i++)
		sum += atomic_load(&sh->load_cost[i]);
	return sum;
}

/*
 * The work of a class at least as urgent as @urgency that the processes
 * other than @slot have accepted since the start: drm_sched serves a
 * priority by the age of each entity's first job, and the dispatcher pushes
 * a node's job when it releases it, so such work, accepted while a graph
 * waits, can start before the graph's later nodes.
 */
static __u64 load_passing(unsigned int slot, __u32 urgency)
{
	__u64 sum = 0;
	unsigned int i, u;

	for (i = 0; i < FUZZ_MAX_PROCS; i++)
		for (u = 0; u <= urgency && i != slot; u++)
			sum += atomic_load(&sh->load_accepted_cost[i][u]);
	return sum;
}

/* Raises *@v to @x unless it is larger already (waiters of all processes race). */
static void atomic_max(_Atomic __u64 *v, __u64 x)
{
	__u64 cur = atomic_load(v);

	while (cur < x && !atomic_compare_exchange_weak(v, &cur, x))
		;
}

/* Follows the thread's tracking timeline and measures each completion. */
static void *load_waiter(void *arg)
{
	struct fuzz_thread *t = arg;
	struct load_log *lg = t->load;
	__u64 k = 1;

	while (!atomic_load(&sh->stop) || k <= atomic_load(&lg->accepted)) {
		__u64 lat, i = k % LOAD_LOG, bound, ratio, passing;
		bool slow_said = false;

		if (k > atomic_load(&lg->accepted)) {
			usleep(1000);
			continue;
		}
		while (tas_wait_syncobj(t->shared.fd, t->shared.track, k, 10)) {
			lat = now_ns() - atomic_load(&lg->accept_ns[i]);
			/* The parent reports it lost; the process must end. */
			if (atomic_load(&sh->stop) && lat > FUZZ_DRAIN_SECONDS * 1000000000ULL)
				return NULL;
			if (lat > 60000000000ULL && !slow_said) {
				slow_said = true;
				fprintf(stderr,
					"tas-fuzz: load: slot %u thread %u: %s graph of %u nodes, %u gangs, least urgent class %u, not complete after %.0f s (own work %.3f s, ahead %.3f s, passing it since %.3f s)\n",
					t->slot, t->index, lg->kind[i], lg->nodes[i], lg->gangs[i],
					lg->urgency[i], lat / 1e9, lg->own[i] / 1e9,
					lg->ahead[i] / 1e9,
					(load_passing(t->slot, lg->urgency[i]) -
					 lg->passing_base[i]) / 1e9);
				load_where(t, lg->graph_id[i], lg->nodes[i]);
			}
		}
		lat = now_ns() - atomic_load(&lg->accept_ns[i]);
		atomic_fetch_sub(&sh->load_cost[t->slot], lg->own[i]);
		passing = load_passing(t->slot, lg->urgency[i]) - lg->passing_base[i];
		bound = load_bound * (lg->own[i] + lg->ahead[i] + passing) + LOAD_SLACK_NS;
		ratio = lat * 1000 / (lg->own[i] + lg->ahead[i] + passing + 1);
		atomic_fetch_add(&sh->load_done, 1);
		atomic_max(&sh->load_worst_ns, lat);
		atomic_max(&sh->load_worst_ratio, ratio);
		if (lat > bound) {
			atomic_fetch_add(&sh->load_over, 1);
			fprintf(stderr,
				"tas-fuzz: VIOLATION: load: slot %u thread %u: %s graph of %u nodes, %u gangs, least urgent class %u took %.3f s, over %u x (own work %.3f s + ahead %.3f s + passing %.3f s) + %.0f s\n",
				t->slot, t->index, lg->kind[i], lg->nodes[i], lg->gangs[i],
				lg->urgency[i], lat / 1e9, load_bound, lg->own[i] / 1e9,
				lg->ahead[i] / 1e9, passing / 1e9, LOAD_SLACK_NS / 1e9);
		}
		atomic_store(&lg->seen, k);
		k++;
	}
	return NULL;
}

/*
 * Cost of the nodes in t->nodes[0..n): their durations plus the per-node
 * cost, in all and by urgency (host nodes in neither: they take no ring).
 */
struct load_work {
	__u64 own, cost[3];
	__u32 urgency;		/* of the least urgent class */
};

static void load_cost(struct fuzz_thread *t, __u32 n, struct load_work *w)
{
	__u32 i, u;

	memset(w, 0, sizeof(*w));
	for (i = 0; i < n; i++) {
		w->own += t->nodes[i].duration_ns + load_node_cost;
		if (t->nodes[i].op == DRM_TAS_OP_HOST)
			continue;
		u = LOAD_URGENCY(t->nodes[i].class);
		/* Gang members run at least at the normal priority. */
		if (t->nodes[i].gang && u > 1)
			u = 1;
		w->cost[u] += t->nodes[i].duration_ns + load_node_cost;
		if (u > w->urgency)
			w->urgency = u;
	}
}

/* Records an accepted graph of the thread. */
static void load_accepted(struct fuzz_thread *t, const char *kind, __u64 graph_id, __u32 n,
			  __u32 gangs, const struct load_work *w, __u64 ahead, __u64 passing_base,
			  __u64 at)
{
	struct load_log *lg = t->load;
	__u64 i = (t->point + 1) % LOAD_LOG;

	lg->graph_id[i] = graph_id;
	lg->own[i] = w->own;
	lg->ahead[i] = ahead;
	lg->urgency[i] = w->urgency;
	lg->passing_base[i] = passing_base;
	lg->nodes[i] = n;
	lg->gangs[i] = gangs;
	lg->kind[i] = kind;
	atomic_store(&lg->accept_ns[i], at);
	t->point++;
	atomic_store(&lg->accepted, t->point);
	atomic_store(&sh->last_point[t->slot][t->index], t->point);
	atomic_fetch_add_explicit(&sh->graphs, 1, memory_order_relaxed);
}

/*
 * At most LOAD_IN_FLIGHT graphs of the thread in flight and not measured by
 * its waiter, whose log entries must not be overwritten before it read them.
 */
static void load_pace(struct fuzz_thread *t)
{
	while (t->point > LOAD_IN_FLIGHT &&
	       atomic_load(&t->load->seen) < t->point - LOAD_IN_FLIGHT &&
	       !atomic_load(&sh->stop))
		usleep(1000);
}

static void load_rejected(struct fuzz_thread *t, const char *kind, int ret)
{
	if (ret == -EINTR || atomic_load(&sh->stop))
		return;
	atomic_fetch_add(&sh->soak_rejected, 1);
	fprintf(stderr, "tas-fuzz: VIOLATION: load: slot %u thread %u: a valid %s was rejected: %s\n",
		t->slot, t->index, kind, strerror(-ret));
}

/*
 * Submits or launches (@id, @arg) of work @w: counts it as work ahead of
 * later graphs from before the call, and sets @ahead to the work ahead of
 * it, @passing_base to the more urgent work of other processes so far and
 * @at to the time of the call. A refusal is reported as @kind.
 */
static int load_submit(struct fuzz_thread *t, int id, void *arg, const char *kind,
		       const struct load_work *w, __u64 *ahead, __u64 *passing_base, __u64 *at)
{
	unsigned int u;
	int ret;

	*ahead = load_ahead();
	*passing_base = load_passing(t->slot, w->urgency);
	atomic_fetch_add(&sh->load_cost[t->slot], w->own);
	*at = now_ns();
	ret = xioctl(t, id, arg);
	if (ret) {
		atomic_fetch_sub(&sh->load_cost[t->slot], w->own);
		load_rejected(t, kind, ret);
		return ret;
	}
	for (u = 0; u < 3; u++)
		atomic_fetch_add(&sh->load_accepted_cost[t->slot][u], w->cost[u]);
	return 0;
}

/* A NOP node on @ring of a random class. */
static void load_node(struct fuzz_thread *t, struct drm_tas_node *n, __u32 ring, __u64 dur)
{
	memset(n, 0, sizeof(*n));
	n->ring = ring;
	n->class = one_in(t, 10) ? DRM_TAS_CLASS_LATENCY :
		   one_in(t, 3) ? DRM_TAS_CLASS_BATCH : DRM_TAS_CLASS_NORMAL;
	n->duration_ns = rnd_below(t, dur);
}

/* Gives the @n nodes of t->nodes one random class, one time in @one_in_n. */
static void load_one_class(struct fuzz_thread *t, __u32 n, unsigned int one_in_n)
{
	__u32 class, i;

	if (!one_in(t, one_in_n))
		return;
	class = one_in(t, 4) ? DRM_TAS_CLASS_LATENCY :
		one_in(t, 3) ? DRM_TAS_CLASS_BATCH : DRM_TAS_CLASS_NORMAL;
	for (i = 0; i < n; i++)
		t->nodes[i].class = class;
}

/*
 * A flood graph: gang members are sources (a second gang's members depend
 * only on the first gang's), so no gang can deadlock.
 */
static void load_flood(struct fuzz_thread *t)
{
	struct drm_tas_submit_graph s = { 0 };
	struct drm_tas_sync waits[1], sigs[2];
	__u32 n, e = 0, i, gangs = 0, members, o;
	__u64 ahead, at, p, base;
	struct load_work w;

	n = one_in(t, 50) ? 512 + rnd_below(t, 256) : 8 + rnd_below(t, 56);
	for (i = 0; i < n; i++)
		load_node(t, &t->nodes[i], rnd_below(t, num_rings), 100000);
	load_one_class(t, n, 3);
	if (num_rings >= 2 && (n >= 512 || one_in(t, 3))) {
		gangs = n >= 512 ? 2 : 1;
		for (i = 0; i < gangs; i++) {
			__u32 g, base = i * num_rings;

			members = 2 + rnd_below(t, num_rings - 1);
			for (g = 0; g < members; g++) {
				t->nodes[base + g].gang = i + 1;
				t->nodes[base + g].ring = (g + i) % num_rings;
			}
		}
	}
	for (i = 1; i < n; i++) {
		unsigned int k, deg = 1 + rnd_below(t, 2);

		if (t->nodes[i].gang == 1)
			continue;
		for (k = 0; k < deg; k++) {
			__u32 from = t->nodes[i].gang == 2 ? rnd_below(t, num_rings) : rnd_below(t, i);

			if (t->nodes[i].gang == 2 && t->nodes[from].gang != 1)
				continue;
			if (e && t->edges[e - 1].from == from && t->edges[e - 1].to == i)
				continue;
			t->edges[e].from = from;
			t->edges[e++].to = i;
		}
	}
	/* Only thread 0 signals the process's public timeline: points go up. */
	memset(sigs, 0, sizeof(sigs));
	sigs[0].handle = t->shared.track;
	sigs[0].node = DRM_TAS_NODE_GRAPH;
	sigs[0].point = t->point + 1;
	sigs[1].handle = pub_local[t->slot];
	sigs[1].node = DRM_TAS_NODE_GRAPH;
	sigs[1].point = atomic_load(&sh->pub_point[t->slot]) + 1;
	o = rnd_below(t, nprocs);
	p = atomic_load(&sh->pub_point[o]);
	s.waits = tas_array(waits, 0, sizeof(waits[0]));
	if (o != t->slot && p && one_in(t, 4)) {
		memset(waits, 0, sizeof(waits));
		waits[0].handle = pub_local[o];
		waits[0].node = DRM_TAS_NODE_GRAPH;
		waits[0].point = 1 + rnd_below(t, p);
		s.waits = tas_array(waits, 1, sizeof(waits[0]));
		atomic_fetch_add_explicit(&sh->soak_waits, 1, memory_order_relaxed);
	}
	s.nodes = tas_array(t->nodes, n, sizeof(t->nodes[0]));
	s.edges = tas_array(t->edges, e, sizeof(t->edges[0]));
	s.signals = tas_array(sigs, t->index ? 1 : 2, sizeof(sigs[0]));
	s.flags = !gangs && one_in(t, 8) ? DRM_TAS_SUBMIT_FIFO : 0;
	load_cost(t, n, &w);
	if (s.flags & DRM_TAS_SUBMIT_FIFO) {
		/* The stock dispatch pushes every node at the normal priority. */
		w.cost[1] = w.own;
		w.cost[0] = w.cost[2] = 0;
		w.urgency = 1;
	}
	if (load_submit(t, IOC_SUBMIT_GRAPH, &s, "graph", &w, &ahead, &base, &at))
		return;
	if (!t->index)
		atomic_store(&sh->pub_point[t->slot], sigs[1].point);
	load_accepted(t, gangs ? "gang" : s.flags ? "fifo" : "flood", s.graph_id, n, gangs, &w,
		      ahead, base, at);
	load_pace(t);
}

/* Launches of a long template on one ring, destroyed and made again. */
static void load_template(struct fuzz_thread *t, __u32 *tpl, __u32 *tpl_n,
			  struct load_work *tpl_work)
{
	struct drm_tas_template_launch l = { 0 };
	struct drm_tas_sync sig = { 0 };
	__u64 ahead, at, base;
	int ret;

	if (*tpl && one_in(t, 40)) {
		struct drm_tas_template_destroy d = { .handle = *tpl };

		t->what = "load: destroy while launched";
		xioctl(t, IOC_TEMPLATE_DESTROY, &d);
		atomic_fetch_add_explicit(&sh->templates_destroyed, 1, memory_order_relaxed);
		*tpl = 0;
	}
	if (!*tpl) {
		struct drm_tas_template_create c = { 0 };
		__u32 i, ring = rnd_below(t, num_rings), e = 0;
		bool chain = one_in(t, 2);

		*tpl_n = 1024 + rnd_below(t, 3073);
		for (i = 0; i < *tpl_n; i++) {
			load_node(t, &t->nodes[i], ring, 20000);
			if (chain && i) {
				t->edges[e].from = i - 1;
				t->edges[e++].to = i;
			}
		}
		load_one_class(t, *tpl_n, 2);
		c.nodes = tas_array(t->nodes, *tpl_n, sizeof(t->nodes[0]));
		c.edges = tas_array(t->edges, e, sizeof(t->edges[0]));
		t->what = "load: template";
		ret = xioctl(t, IOC_TEMPLATE_CREATE, &c);
		if (ret) {
			load_rejected(t, "template", ret);
			return;
		}
		*tpl = c.handle;
		load_cost(t, *tpl_n, tpl_work);
	}
	sig.handle = t->shared.track;
	sig.node = DRM_TAS_NODE_GRAPH;
	sig.point = t->point + 1;
	l.handle = *tpl;
	l.signals = tas_array(&sig, 1, sizeof(sig));
	t->what = "load: launch";
	if (load_submit(t, IOC_TEMPLATE_LAUNCH, &l, "launch", tpl_work, &ahead, &base, &at))
		return;
	load_accepted(t, "launch", l.graph_id, *tpl_n, 0, tpl_work, ahead, base, at);
	load_pace(t);
}

/* A node before and after a host node, which this thread reports done. */
static void load_host(struct fuzz_thread *t, __u32 host_sync, __u64 *host_point)
{
	struct drm_tas_submit_graph s = { 0 };
	struct drm_tas_edge edges[2] = { { .from = 0, .to = 1 }, { .from = 1, .to = 2 } };
	struct drm_tas_sync sigs[2];
	__u64 ahead, at, base, stopped = 0;
	struct load_work w;
	bool said = false;
	int ret, i;

	for (i = 0; i < 3; i++)
		load_node(t, &t->nodes[i], rnd_below(t, num_rings), 100000);
	t->nodes[1].op = DRM_TAS_OP_HOST;
	t->nodes[1].ring = 0;
	t->nodes[1].duration_ns = 0;
	memset(sigs, 0, sizeof(sigs));
	sigs[0].handle = t->shared.track;
	sigs[0].node = DRM_TAS_NODE_GRAPH;
	sigs[0].point = t->point + 1;
	sigs[1].handle = host_sync;
	sigs[1].node = 1;
	sigs[1].point = *host_point + 1;
	sigs[1].flags = DRM_TAS_SYNC_ON_START;
	s.nodes = tas_array(t->nodes, 3, sizeof(t->nodes[0]));
	s.edges = tas_array(edges, 2, sizeof(edges[0]));
	s.signals = tas_array(sigs, 2, sizeof(sigs[0]));
	load_cost(t, 3, &w);
	t->what = "load: host";
	if (load_submit(t, IOC_SUBMIT_GRAPH, &s, "host graph", &w, &ahead, &base, &at))
		return;
	(*host_point)++;
	load_accepted(t, "host", s.graph_id, 3, 0, &w, ahead, base, at);
	/*
	 * Released once node 0 finished, which is within the graph's bound;
	 * waited for also once the run stops (as long as the parent waits for
	 * the graphs), as an unreported node would wait for its timeout.
	 */
	while ((ret = tas_wait_syncobj(t->shared.fd, host_sync, *host_point, 10))) {
		__u64 waited = now_ns() - at;
		__u64 passing = load_passing(t->slot, w.urgency) - base;

		if (ret != -ETIME && ret != -EINTR)
			return;
		if (atomic_load(&sh->stop) && !stopped)
			stopped = now_ns();
		if (stopped && now_ns() - stopped > FUZZ_DRAIN_SECONDS * 1000000000ULL)
			return;
		if (!said && waited > load_bound * (w.own + ahead + passing) + LOAD_SLACK_NS) {
			said = true;
			atomic_fetch_add(&sh->load_over, 1);
			fprintf(stderr,
				"tas-fuzz: VIOLATION: load: slot %u: host node of graph %llu not released after %.0f s, over %u x (own work %.3f s + ahead %.3f s + passing %.3f s) + %.0f s\n",
				t->slot, (unsigned long long)s.graph_id, waited / 1e9, load_bound,
				w.own / 1e9, ahead / 1e9, passing / 1e9, LOAD_SLACK_NS / 1e9);
		}
	}
	if (one_in(t, 4))
		usleep(rnd_below(t, 2000));
	ret = tas_host_done(t->shared.fd, s.graph_id, 1, 0);
	if (ret)
		load_rejected(t, "host report", ret);
	load_pace(t);
}

static void *load_main(void *arg)
{
	struct fuzz_thread *t = arg;
	__u32 tpl = 0, tpl_n = 0, host_sync = 0;
	struct load_work tpl_work = { 0 };
	__u64 host_point = 0;

	if (t->index == 2 && tas_new_syncobj(t->shared.fd, &host_sync))
		return NULL;
	while (!atomic_load(&sh->stop)) {
		t->step++;
		t->what = "load";
		if (t->index == 1 && !one_in(t, 4))
			load_template(t, &tpl, &tpl_n, &tpl_work);
		else if (t->index == 2 && !one_in(t, 4))
			load_host(t, host_sync, &host_point);
		else
			load_flood(t);
	}
	return NULL;
}

/* The per-node cost: 256 independent zero-length NOPs over all rings. */
static __u64 load_calibrate(int fd)
{
	struct drm_tas_node *nodes = calloc(256, sizeof(*nodes));
	struct drm_tas_submit_graph s = { 0 };
	struct drm_tas_sync sig = { 0 };
	__u64 best = ~0ULL, at;
	__u32 sync, i, round;

	if (!nodes || tas_new_syncobj(fd, &sync))
		return 0;
	for (i = 0; i < 256; i++)
		nodes[i].ring = i % num_rings;
	for (round = 1; round <= 3; round++) {
		sig.handle = sync;
		sig.node = DRM_TAS_NODE_GRAPH;
		sig.point = round;
		s.nodes = tas_array(nodes, 256, sizeof(*nodes));
		s.signals = tas_array(&sig, 1, sizeof(sig));
		at = now_ns();
		if (ioctl(fd, DRM_IOCTL_TAS_SUBMIT_GRAPH, &s) || tas_wait_syncobj(fd, sync, round, 60))
			return 0;
		if (now_ns() - at < best)
			best = now_ns() - at;
	}
	tas_destroy_syncobj(fd, sync);
	free(nodes);
	return best * num_rings / 256;
}

/* A process killed after a submission but before recording its point. */
static int pub_sync_point(int fd, unsigned int slot)
{
	struct drm_syncobj_timeline_array q = { 0 };
	__u64 last = 0;

	q.handles = (__u64)(uintptr_t)&pub_local[slot];
	q.points = (__u64)(uintptr_t)&last;
	q.count_handles = 1;
	q.flags = DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED;
	if (ioctl(fd, DRM_IOCTL_SYNCOBJ_QUERY, &q))
		return -errno;
	if (last > atomic_load(&sh->pub_point[slot]))
		atomic_store(&sh->pub_point[slot], last);
	return 0;
}

/* One process: nthreads threads on one file, each with its tracking syncobj. */
static int child(unsigned int slot, unsigned int gen, const int *track_fds, const int *pub_fds)
{
	struct fuzz_thread *th = calloc(nthreads, sizeof(*th));
	char path[512];
	unsigned int i;
	int fd;

	fd = tas_open_render(path, sizeof(path));
	if (fd < 0 || !th)
		return 2;
	for (i = 0; i < nthreads; i++) {
		struct fuzz_thread *t = &th[i];

		t->slot = slot;
		t->index = i;
		t->rng = mix(mix(mix(seed, slot), gen), i);
		t->track_fd = track_fds[i];
		t->avoid = track_shared;
		t->cur = &t->shared;
		t->node_arena = arena(FUZZ_NODE_ARENA);
		t->edge_arena = arena(FUZZ_EDGE_ARENA);
		t->sync_arena[0] = arena(FUZZ_SYNC_ARENA);
		t->sync_arena[1] = arena(FUZZ_SYNC_ARENA);
		t->info_arena = arena(FUZZ_INFO_ARENA);
		t->scratch = malloc(FUZZ_NODE_ARENA);
		t->nodes = calloc(max_nodes + 1, sizeof(*t->nodes));
		t->edges = calloc(max_edges + 8, sizeof(*t->edges));
		if (!t->node_arena || !t->edge_arena || !t->sync_arena[0] ||
		    !t->sync_arena[1] || !t->info_arena || !t->scratch || !t->nodes || !t->edges)
			return 2;
		if (file_open(t, &t->shared, fd))
			return 2;
		track_shared[i] = t->shared.track;
	}
	if (soak_graphs || load_mode) {
		for (i = 0; i < nprocs; i++) {
			struct drm_syncobj_handle h = { .fd = pub_fds[i] };

			if (ioctl(fd, DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &h))
				return 2;
			pub_local[i] = h.handle;
		}
		if (pub_sync_point(fd, slot))
			return 2;
	}
	if (load_mode) {
		for (i = 0; i < nthreads; i++) {
			th[i].load = calloc(1, sizeof(*th[i].load));
			if (!th[i].load ||
			    pthread_create(&th[i].load->waiter, NULL, load_waiter, &th[i]) ||
			    pthread_create(&th[i].tid, NULL, load_main, &th[i]))
				return 2;
		}
		for (i = 0; i < nthreads; i++) {
			pthread_join(th[i].tid, NULL);
			pthread_join(th[i].load->waiter, NULL);
		}
		return 0;
	}
	if (soak_graphs) {
		__u32 tpl = 0, tpl_nodes = 0;

		if (soak_template(&th[0], &tpl, &tpl_nodes))
			return 2;
		soak(&th[0], tpl, tpl_nodes);
		return 0;
	}
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&th[i].tid, NULL, thread_main, &th[i]))
			return 2;
	for (i = 0; i < nthreads; i++)
		pthread_join(th[i].tid, NULL);
	/* Graphs may still be in flight: the parent checks that they complete. */
	return 0;
}

/* The parent's copy of each slot's tracking syncobjs. */
static int parent_fd;
static __u32 track_handle[FUZZ_MAX_PROCS][FUZZ_MAX_THREADS];
static int track_fd[FUZZ_MAX_PROCS][FUZZ_MAX_THREADS];
/* Soak mode: the public timeline of each slot, which other slots wait for. */
static __u32 pub_handle[FUZZ_MAX_PROCS];
static int pub_fd[FUZZ_MAX_PROCS];
static unsigned long lost;

static int slot_setup(unsigned int slot)
{
	unsigned int i;

	for (i = 0; i < nthreads; i++) {
		struct drm_syncobj_handle h = { 0 };

		if (tas_new_syncobj(parent_fd, &track_handle[slot][i]))
			return -1;
		h.handle = track_handle[slot][i];
		if (ioctl(parent_fd, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &h))
			return -1;
		track_fd[slot][i] = h.fd;
		atomic_store(&sh->last_point[slot][i], 0);
	}
	return 0;
}

/* After the slot's process is gone: every point it had accepted signals. */
static void slot_check(unsigned int slot)
{
	unsigned int i;

	for (i = 0; i < nthreads; i++) {
		__u64 point = atomic_load(&sh->last_point[slot][i]);
		struct drm_syncobj_destroy d = { .handle = track_handle[slot][i] };
		int ret = 0;

		if (point)
			ret = tas_wait_syncobj(parent_fd, track_handle[slot][i], point,
					       FUZZ_DRAIN_SECONDS);
		if (ret) {
			lost++;
			fprintf(stderr,
				"tas-fuzz: VIOLATION: slot %u thread %u: point %llu (its last accepted graph) did not signal within %d s: %s\n",
				slot, i, (unsigned long long)point, FUZZ_DRAIN_SECONDS,
				strerror(-ret));
		}
		close(track_fd[slot][i]);
		ioctl(parent_fd, DRM_IOCTL_SYNCOBJ_DESTROY, &d);
	}
}

static pid_t spawn(unsigned int slot, unsigned int gen)
{
	pid_t pid;

	if (slot_setup(slot))
		return -1;
	pid = fork();
	if (!pid) {
		close(parent_fd);
		_exit(child(slot, gen, track_fd[slot], pub_fd));
	}
	return pid;
}

/* Reads the errno table: the rows "| DRM_IOCTL_... | E... |". */
static int read_table(const char *path)
{
	char line[512];
	FILE *f = fopen(path, "r");
	int i, missing = 0;

	if (!f) {
		fprintf(stderr, "tas-fuzz: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char name[64], errs[256];

		if (sscanf(line, "| %63[A-Z0-9_] | %255[A-Z0-9 ] |", name, errs) != 2)
			continue;
		for (i = 0; i < IOC_COUNT; i++)
			if (!strcmp(name, iocs[i].name))
				snprintf(allowed[i], sizeof(allowed[i]), " %s ", errs);
	}
	fclose(f);
	for (i = 0; i < IOC_COUNT; i++) {
		if (!allowed[i][0]) {
			fprintf(stderr, "tas-fuzz: %s has no row for %s\n", path, iocs[i].name);
			missing++;
		}
	}
	return missing ? -1 : 0;
}

/* Prints the guest's memory figures, to see whether a long run accumulates. */
static void meminfo(__u64 start)
{
	char line[128], out[512] = "";
	FILE *f = fopen("/proc/meminfo", "r");
	unsigned long calls = 0;
	int i;

	if (!f)
		return;
	for (i = 0; i < IOC_COUNT; i++)
		calls += atomic_load(&sh->calls[i]);
	while (fgets(line, sizeof(line), f)) {
		char key[64];
		unsigned long kb;

		if (sscanf(line, "%63[^:]: %lu", key, &kb) != 2)
			continue;
		if (!strcmp(key, "MemAvailable") || !strcmp(key, "Slab") ||
		    !strcmp(key, "VmallocUsed") || !strcmp(key, "Shmem"))
			snprintf(out + strlen(out), sizeof(out) - strlen(out), " %s %lu MiB",
				 key, kb >> 10);
	}
	fclose(f);
	printf("tas-fuzz: at %.0f s, %lu ioctls:%s\n", (now_ns() - start) / 1e9, calls, out);
	fflush(stdout);
}

static __u64 param(int fd, __u32 p)
{
	struct drm_tas_get_param gp = { .param = p };

	return ioctl(fd, DRM_IOCTL_TAS_GET_PARAM, &gp) ? 0 : gp.value;
}

int main(int argc, char **argv)
{
	const char *table = "/etc/tas/uapi-errors.md";
	pid_t pids[FUZZ_MAX_PROCS];
	unsigned int gens[FUZZ_MAX_PROCS], seconds = 30, i, crashed = 0, killed = 0;
	unsigned long total = 0, ok = 0, unfinished = 0;
	__u64 start, deadline, rng, next_report;
	char path[512];
	int opt, status, bad;

	seed = time(NULL);
	while ((opt = getopt(argc, argv, "s:t:p:j:e:qS:LB:")) != -1) {
		switch (opt) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 't':
			seconds = strtoul(optarg, NULL, 0);
			break;
		case 'p':
			nprocs = strtoul(optarg, NULL, 0);
			break;
		case 'j':
			nthreads = strtoul(optarg, NULL, 0);
			break;
		case 'e':
			table = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		case 'S':
			soak_graphs = strtoul(optarg, NULL, 0);
			break;
		case 'L':
			load_mode = true;
			break;
		case 'B':
			load_bound = strtoul(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr,
				"usage: %s [-s SEED] [-t SECONDS] [-p PROCS] [-j THREADS] [-e TABLE] [-q] [-S GRAPHS | -L [-B FACTOR]]\n",
				argv[0]);
			return 2;
		}
	}
	if (!nprocs || nprocs > FUZZ_MAX_PROCS || !nthreads || nthreads > FUZZ_MAX_THREADS) {
		fprintf(stderr, "tas-fuzz: 1-%d processes of 1-%d threads\n", FUZZ_MAX_PROCS,
			FUZZ_MAX_THREADS);
		return 2;
	}
	if (read_table(table))
		return 2;
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 2;
	parent_fd = tas_open_render(path, sizeof(path));
	if (parent_fd < 0) {
		fprintf(stderr, "tas-fuzz: no tas render node\n");
		return 2;
	}
	num_rings = param(parent_fd, DRM_TAS_PARAM_NUM_RINGS);
	max_nodes = param(parent_fd, DRM_TAS_PARAM_MAX_NODES);
	max_edges = param(parent_fd, DRM_TAS_PARAM_MAX_EDGES);
	max_waits = param(parent_fd, DRM_TAS_PARAM_MAX_WAITS);
	max_signals = param(parent_fd, DRM_TAS_PARAM_MAX_SIGNALS);
	max_stride = param(parent_fd, DRM_TAS_PARAM_MAX_STRIDE);
	max_bo_size = param(parent_fd, DRM_TAS_PARAM_MAX_BO_SIZE);
	max_duration = param(parent_fd, DRM_TAS_PARAM_MAX_DURATION_NS);
	if (!num_rings || !max_nodes || !max_edges || !max_stride) {
		fprintf(stderr, "tas-fuzz: GET_PARAM failed\n");
		return 2;
	}
	(void)max_signals;
	if (load_mode) {
		nthreads = 3;
		load_node_cost = load_calibrate(parent_fd);
		if (!load_node_cost) {
			fprintf(stderr, "tas-fuzz: load: calibration failed\n");
			return 2;
		}
	}
	if (soak_graphs || load_mode) {
		if (soak_graphs)
			nthreads = 1;
		for (i = 0; i < nprocs; i++) {
			struct drm_syncobj_handle h = { 0 };

			if (tas_new_syncobj(parent_fd, &pub_handle[i]))
				return 2;
			h.handle = pub_handle[i];
			if (ioctl(parent_fd, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &h))
				return 2;
			pub_fd[i] = h.fd;
		}
	}
	if (soak_graphs) {
		printf("tas-fuzz: soak, seed %llu, %u processes x %lu graphs, at most %u s, %s\n",
		       seed, nprocs, soak_graphs, seconds, path);
	} else if (load_mode) {
		printf("tas-fuzz: load, seed %llu, %u s, %u processes x 3 threads, node cost %.3f ms, bound %u x (own + ahead) + %.0f s, %s\n",
		       seed, seconds, nprocs, load_node_cost / 1e6, load_bound, LOAD_SLACK_NS / 1e9,
		       path);
	} else {
		printf("tas-fuzz: seed %llu, %u s, %u processes x %u threads, %s\n", seed,
		       seconds, nprocs, nthreads, path);
	}
	fflush(stdout);

	start = now_ns();
	deadline = start + seconds * 1000000000ULL;
	next_report = start + 60000000000ULL;
	rng = mix(seed, 0xf022);
	for (i = 0; i < nprocs; i++) {
		gens[i] = 0;
		pids[i] = spawn(i, 0);
		if (pids[i] < 0) {
			perror("tas-fuzz: spawn");
			return 2;
		}
	}
	/*
	 * Kill a random process every 0.5-1.5 s and start another in its slot;
	 * in soak mode until every slot has its graphs (a slot that has them
	 * ends by itself).
	 */
	while (now_ns() < deadline) {
		usleep(load_mode ? 3000000 + rnd_next(&rng) % 4000000 :
			500000 + rnd_next(&rng) % 1000000);
		if (now_ns() >= deadline)
			break;
		if (now_ns() >= next_report) {
			meminfo(start);
			next_report += 60000000000ULL;
		}
		if (soak_graphs) {
			for (i = 0; i < nprocs; i++)
				if (atomic_load(&sh->soak_done[i]) < soak_graphs)
					break;
			if (i == nprocs)
				break;
		}
		i = rnd_next(&rng) % nprocs;
		if (soak_graphs && atomic_load(&sh->soak_done[i]) >= soak_graphs)
			continue;
		kill(pids[i], SIGKILL);
		waitpid(pids[i], &status, 0);
		if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) {
			fprintf(stderr, "tas-fuzz: slot %u process ended with status %#x\n", i,
				status);
			crashed++;
		}
		killed++;
		slot_check(i);
		atomic_store(&sh->load_cost[i], 0);
		pids[i] = spawn(i, ++gens[i]);
		if (pids[i] < 0) {
			perror("tas-fuzz: spawn");
			return 2;
		}
	}
	atomic_store(&sh->stop, 1);
	for (i = 0; i < nprocs; i++) {
		waitpid(pids[i], &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "tas-fuzz: slot %u process ended with status %#x\n", i,
				status);
			crashed++;
		}
		slot_check(i);
	}
	for (i = 0; i < nprocs && soak_graphs; i++)
		if (sh->soak_done[i] < soak_graphs)
			unfinished += soak_graphs - sh->soak_done[i];
	for (i = 0; i < IOC_COUNT; i++) {
		total += sh->calls[i];
		ok += sh->ok[i];
		if (!quiet)
			printf("tas-fuzz: %-34s %9lu calls, %9lu ok\n", iocs[i].name,
			       (unsigned long)sh->calls[i], (unsigned long)sh->ok[i]);
	}
	bad = sh->errno_violations || sh->node_error_violations || sh->blame_violations ||
	      lost || crashed ||
	      sh->soak_rejected || unfinished || sh->load_over;
	if (soak_graphs)
		printf("tas-fuzz: soak: %lu graphs of %lu accepted in %.1f s, %.0f graphs/s, %lu waiting for another process; %lu rejected, %lu missing\n",
		       (unsigned long)sh->graphs, soak_graphs * nprocs, (now_ns() - start) / 1e9,
		       sh->graphs / ((now_ns() - start) / 1e9), (unsigned long)sh->soak_waits,
		       (unsigned long)sh->soak_rejected, unfinished);
	if (load_mode)
		printf("tas-fuzz: load: %lu graphs completed and measured, worst %.3f s, worst latency / (own work + work ahead) %.2f (bound %u), %lu over the bound or host nodes not released, %lu rejected\n",
		       (unsigned long)sh->load_done, sh->load_worst_ns / 1e9,
		       sh->load_worst_ratio / 1000.0, load_bound, (unsigned long)sh->load_over,
		       (unsigned long)sh->soak_rejected);
	printf("tas-fuzz: %lu ioctls (%lu ok) in %.1f s, %.0f/s; %lu graphs accepted, %u processes killed, %lu files closed with graphs in flight, %lu templates destroyed, %lu launches with binds; %lu errno violations, %lu node error violations, %lu blame violations, %lu lost completions, %u processes failed: %s\n",
	       total, ok, (now_ns() - start) / 1e9, total / ((now_ns() - start) / 1e9),
	       (unsigned long)sh->graphs, killed, (unsigned long)sh->fds_closed_busy,
	       (unsigned long)sh->templates_destroyed, (unsigned long)sh->bound_launches,
	       (unsigned long)sh->errno_violations,
	       (unsigned long)sh->node_error_violations, (unsigned long)sh->blame_violations,
	       lost, crashed, bad ? "FAILED" : "ok");
	printf("TAS-FUZZ-JSON {\"mode\": \"%s\", \"seed\": %llu, \"processes\": %u, \"threads\": %u, \"seconds\": %.1f, \"ioctls\": %lu, \"ioctls_per_s\": %.0f, \"graphs\": %lu, \"graphs_per_s\": %.0f, \"killed\": %u, \"cross_process_waits\": %lu, \"errno_violations\": %lu, \"node_error_violations\": %lu, \"rejected\": %lu, \"lost_completions\": %lu, \"failed_processes\": %u, \"missing\": %lu, \"load_worst_s\": %.3f, \"load_worst_ratio\": %.2f, \"load_over\": %lu}\n",
	       soak_graphs ? "soak" : load_mode ? "load" : "fuzz", seed, nprocs, nthreads, (now_ns() - start) / 1e9,
	       total, total / ((now_ns() - start) / 1e9), (unsigned long)sh->graphs,
	       sh->graphs / ((now_ns() - start) / 1e9), killed, (unsigned long)sh->soak_waits,
	       (unsigned long)sh->errno_violations, (unsigned long)sh->node_error_violations,
	       (unsigned long)sh->soak_rejected, lost, crashed, unfinished,
	       sh->load_worst_ns / 1e9, sh->load_worst_ratio / 1000.0,
	       (unsigned long)sh->load_over);
	return bad ? 1 : 0;
}
