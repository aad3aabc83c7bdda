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

#endif /* _TAS_TRACE_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
