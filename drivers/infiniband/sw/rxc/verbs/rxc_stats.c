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
	RXC_STAT_RCV_PACKETS,
	RXC_STAT_RCV_TRUNCATED,
	RXC_STAT_RCV_MALFORMED,
	RXC_STAT_RCV_ICRC_ERRORS,
	RXC_STAT_RCV_NO_QP,
	RXC_STAT_RCV_UNHANDLED,
	RXC_NUM_STATS
};

static const struct rdma_stat_desc rxc_stat_descs[RXC_NUM_STATS] = {
	[RXC_STAT_COMPLETIONS].name = "completions",
	[RXC_STAT_UNSIGNALED].name = "completions_unsignaled",
	[RXC_STAT_FLUSHED].name = "completions_flushed",
	[RXC_STAT_CQ_OVERFLOWS].name = "cq_overflows",
	[RXC_STAT_RCV_PACKETS].name = "rcv_packets",
	[RXC_STAT_RCV_TRUNCATED].name = "rcv_truncated",
	[RXC_STAT_RCV_MALFORMED].name = "rcv_malformed",
	[RXC_STAT_RCV_ICRC_ERRORS].name = "rcv_icrc_errors",
	[RXC_STAT_RCV_NO_QP].name = "rcv_no_qp",
	[RXC_STAT_RCV_UNHANDLED].name = "rcv_unhandled",
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
	stats->value[RXC_STAT_RCV_PACKETS] =
		atomic64_read(&rxc->stats.rcv_packets);
	stats->value[RXC_STAT_RCV_TRUNCATED] =
		atomic64_read(&rxc->stats.rcv_truncated);
	stats->value[RXC_STAT_RCV_MALFORMED] =
		atomic64_read(&rxc->stats.rcv_malformed);
	stats->value[RXC_STAT_RCV_ICRC_ERRORS] =
		atomic64_read(&rxc->stats.rcv_icrc_errors);
	stats->value[RXC_STAT_RCV_NO_QP] = atomic64_read(&rxc->stats.rcv_no_qp);
	stats->value[RXC_STAT_RCV_UNHANDLED] =
		atomic64_read(&rxc->stats.rcv_unhandled);
	return RXC_NUM_STATS;
}
