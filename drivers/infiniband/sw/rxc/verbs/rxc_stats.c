// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Port counters for "rdma statistic show link DEV/1".  They are read from
 * lockless atomics in process context.
 */
#include <rdma/ib_verbs.h>

#include "rxc.h"
#include "rxc_verbs.h"

enum rxc_stat {
	RXC_STAT_COMPLETIONS,
	RXC_STAT_UNSIGNALED,
	RXC_STAT_FLUSHED,
	RXC_STAT_CQ_OVERFLOWS,
	RXC_NUM_STATS
};

static const struct rdma_stat_desc rxc_stat_descs[RXC_NUM_STATS] = {
	[RXC_STAT_COMPLETIONS].name = "completions",
	[RXC_STAT_UNSIGNALED].name = "completions_unsignaled",
	[RXC_STAT_FLUSHED].name = "completions_flushed",
	[RXC_STAT_CQ_OVERFLOWS].name = "cq_overflows",
};

struct rdma_hw_stats *rxc_alloc_hw_port_stats(struct ib_device *ibdev,
					      u32 port)
{
	return rdma_alloc_hw_stats_struct(rxc_stat_descs, RXC_NUM_STATS,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

int rxc_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		     u32 port, int index)
{
	struct rxc_dev *rxc = to_rdev(ibdev);

	stats->value[RXC_STAT_COMPLETIONS] =
		atomic64_read(&rxc->stats.completions);
	stats->value[RXC_STAT_UNSIGNALED] =
		atomic64_read(&rxc->stats.unsignaled);
	stats->value[RXC_STAT_FLUSHED] = atomic64_read(&rxc->stats.flushed);
	stats->value[RXC_STAT_CQ_OVERFLOWS] =
		atomic64_read(&rxc->stats.cq_overflows);
	return RXC_NUM_STATS;
}
