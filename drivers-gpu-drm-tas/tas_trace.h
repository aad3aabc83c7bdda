/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Trace events of the TAS virtual DRM driver.
 */

#undef TRACE_SYSTEM
#undef TRACE_INCLUDE_FILE
#undef TRACE_INCLUDE_PATH
#define TRACE_SYSTEM tas
#define TRACE_INCLUDE_FILE tas_trace
#define TRACE_INCLUDE_PATH .

#if !defined(_TAS_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TAS_TRACE_H

#include <linux/tracepoint.h>
#include <linux/types.h>

/**
 * tas_gang_start - every member of a gang has started
 * @rings: the rings of the members, bit r for ring r
 * @members: the number of members
 * @first_ns: when the first member started (CLOCK_MONOTONIC)
 * @skew_ns: how much later the last member started than the first
 *
 * Emitted by the ring whose member starts last. The start times are those
 * GRAPH_INFO reports as started_ns. A gang that was cancelled has no event.
 */
TRACE_EVENT(tas_gang_start,
	    TP_PROTO(u64 rings, u32 members, u64 first_ns, u64 skew_ns),
	    TP_ARGS(rings, members, first_ns, skew_ns),
	    TP_STRUCT__entry(
			     __field(u64, rings)
			     __field(u32, members)
			     __field(u64, first_ns)
			     __field(u64, skew_ns)
			     ),

	    TP_fast_assign(
			   __entry->rings = rings;
			   __entry->members = members;
			   __entry->first_ns = first_ns;
			   __entry->skew_ns = skew_ns;
			   ),
	    TP_printk("rings=0x%llx members=%u first_ns=%llu skew_ns=%llu",
		      __entry->rings, __entry->members, __entry->first_ns,
		      __entry->skew_ns)
);

/**
 * tas_node_start - a node started on its ring
 * @ring: the ring
 * @fence_context: the context of the node's scheduler fence, as the
 *	gpu_scheduler events print it (fence=context:seqno); 0 if the node's
 *	job was freed meanwhile
 * @fence_seqno: the seqno of that fence
 * @early: the node was handed to its ring before its dependencies had
 *	signalled, to wait for them there (an early node)
 * @on_ring_ns: when the node reached its ring, in the job's run_job
 *	(CLOCK_MONOTONIC)
 * @ready_ns: when it became ready, the time GRAPH_INFO reports as ready_ns:
 *	for an early node, when its wait on the ring ended; for another, when
 *	its dependencies had signalled and the driver had found it ready
 * @start_ns: when it started, the time GRAPH_INFO reports as started_ns:
 *	on the ring's simulated clock, or for a gang member or a node that
 *	preempts another, when the ring started it
 *
 * Emitted by the ring for every node it starts, including gang members and
 * a node that preempts another. The scheduler's events end at run_job, which
 * hands an early node to its ring long before it can start: its wait there
 * is ready_ns - on_ring_ns where ready_ns is the later (its dependencies may
 * also have signalled before run_job), and its wait for the ring after that
 * (behind the running node) start_ns - max(ready_ns, on_ring_ns).
 */
TRACE_EVENT(tas_node_start,
	    TP_PROTO(u32 ring, u64 fence_context, u64 fence_seqno, bool early,
		     u64 on_ring_ns, u64 ready_ns, u64 start_ns),
	    TP_ARGS(ring, fence_context, fence_seqno, early, on_ring_ns, ready_ns,
		    start_ns),
	    TP_STRUCT__entry(
			     __field(u64, fence_context)
			     __field(u64, fence_seqno)
			     __field(u64, on_ring_ns)
			     __field(u64, ready_ns)
			     __field(u64, start_ns)
			     __field(u32, ring)
			     __field(bool, early)
			     ),

	    TP_fast_assign(
			   __entry->fence_context = fence_context;
			   __entry->fence_seqno = fence_seqno;
			   __entry->on_ring_ns = on_ring_ns;
			   __entry->ready_ns = ready_ns;
			   __entry->start_ns = start_ns;
			   __entry->ring = ring;
			   __entry->early = early;
			   ),
	    TP_printk("ring=%u fence=%llu:%llu early=%u on_ring_ns=%llu ready_ns=%llu start_ns=%llu",
		      __entry->ring, __entry->fence_context,
		      __entry->fence_seqno, __entry->early,
		      __entry->on_ring_ns, __entry->ready_ns,
		      __entry->start_ns)
);

#endif /* _TAS_TRACE_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
