// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Port counters for "rdma statistic show link DEV/1".  They are read from
 * lockless atomics in process context.
 */
#include <rdma/ib_verbs.h>

#include "rxc.h"
#include "rxc_verbs.h"

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
	[RXC_STAT_RCV_QP_DROPPED].name = "rcv_qp_dropped",
	[RXC_STAT_RCV_WRONG_PEER].name = "rcv_wrong_peer",
	[RXC_STAT_RCV_DUPLICATES].name = "rcv_duplicates",
	[RXC_STAT_RCV_SEQ_ERRORS].name = "rcv_seq_errors",
	[RXC_STAT_RCV_IN_SOFTIRQ].name = "rcv_in_softirq",
	[RXC_STAT_SENT_PACKETS].name = "sent_packets",
	[RXC_STAT_LOOPBACK_PACKETS].name = "loopback_packets",
	[RXC_STAT_SENT_BATCHED].name = "sent_batched",
	[RXC_STAT_SEND_ERRORS].name = "send_errors",
	[RXC_STAT_RETRANSMITS].name = "retransmits",
	[RXC_STAT_RETRANSMIT_TIMEOUTS].name = "retransmit_timeouts",
	[RXC_STAT_RETRANSMIT_PROBES].name = "retransmit_probes",
	[RXC_STAT_RETRY_EXCEEDED].name = "retry_exceeded",
	[RXC_STAT_CWND_SHRINKS].name = "cwnd_shrinks",
	[RXC_STAT_PACE_WAITS].name = "pace_waits",
	[RXC_STAT_SEQ_NAKS_RCVD].name = "seq_naks_rcvd",
	[RXC_STAT_RESPONDERS_BEHIND].name = "responders_behind",
	[RXC_STAT_FAR_PROBES].name = "far_probes",
	[RXC_STAT_RNR_NAKS_SENT].name = "rnr_naks_sent",
	[RXC_STAT_RNR_NAKS_RCVD].name = "rnr_naks_rcvd",
	[RXC_STAT_RNR_RETRY_EXCEEDED].name = "rnr_retry_exceeded",
	[RXC_STAT_REMOTE_ACCESS_ERRORS].name = "remote_access_errors",
	[RXC_STAT_COMP_CNTR_CREATED].name = "comp_cntr_created",
	[RXC_STAT_COMP_CNTR_DESTROYED].name = "comp_cntr_destroyed",
	[RXC_STAT_COMP_CNTR_ATTACHED].name = "comp_cntr_attached",
	[RXC_STAT_COMP_CNTR_UPDATES].name = "comp_cntr_updates",
	[RXC_STAT_COMP_CNTR_NOTIFIED].name = "comp_cntr_notified",
	[RXC_STAT_STREAMED_DOORBELLS].name = "doorbells_streamed",
	[RXC_STAT_HELD_DOORBELLS].name = "doorbells_held",
	[RXC_STAT_RETIRE_HANDOFFS].name = "retire_handoffs",
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
	int i;

	for (i = 0; i < RXC_NUM_STATS; i++)
		stats->value[i] = atomic64_read(&rxc->stats[i]);
	return RXC_NUM_STATS;
}
