// SPDX-License-Identifier: GPL-2.0

#include <linux/memcontrol.h>
#include <linux/sched/mm.h>

#ifndef CONFIG_MEMCG
__rust_helper struct mem_cgroup *rust_helper_get_mem_cgroup_from_current(void)
{
	return get_mem_cgroup_from_current();
}
#endif

__rust_helper void rust_helper_mem_cgroup_put(struct mem_cgroup *memcg)
{
	mem_cgroup_put(memcg);
}

__rust_helper struct mem_cgroup *
rust_helper_set_active_memcg(struct mem_cgroup *memcg)
{
	return set_active_memcg(memcg);
}
