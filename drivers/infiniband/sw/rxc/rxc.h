/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rxc: a soft-RoCE device with completion counters.
 *
 * This header holds what every layer needs: the device, its limits and the
 * logging helpers.  Object types live with their layer (verbs/rxc_verbs.h).
 */
#ifndef RXC_H
#define RXC_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

struct rxc_udp;

#define RXC_DRV_NAME		"rxc"
#define RXC_LINK_TYPE		"rxc"

/* librxe (rdma-core) accepts ABI 1-2 on 64-bit hosts and only 2 on 32-bit. */
#define RXC_UVERBS_ABI_VERSION	2

#define RXC_PORT		1
#define RXC_GID_TABLE_LEN	1024
#define RXC_PKEY_TABLE_LEN	1
#define RXC_DEFAULT_PKEY	0xffff

/*
 * The longest message (port attribute max_msg_sz).  At the smallest path
 * MTU (256) it spans 2^23 PSNs, half the PSN space, so a message never
 * meets its own PSNs again.
 */
#define RXC_MAX_MSG_SIZE	0x80000000U

/*
 * Memory whose size a user picks (rings, their private copies, page
 * lists): charged to the caller's memory cgroup, and when that or the
 * machine runs short, the verb fails with ENOMEM, with no OOM kill and
 * no warning in the kernel log.  Smaller objects a user causes use plain
 * GFP_KERNEL_ACCOUNT.
 */
#define RXC_GFP_USER_SIZED (GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | \
			    __GFP_NOWARN)

/* QPN 0 and 1 are the special QPs; IB reserves QPNs below 16 for them. */
#define RXC_MIN_QPN		16
#define RXC_MAX_QPN		0xffffff

/* Objects whose number each device limits (see rxc_param.c). */
enum rxc_res {
	RXC_RES_PD,
	RXC_RES_AH,
	RXC_RES_MR,
	RXC_RES_MW,
	RXC_RES_CQ,
	RXC_RES_QP,
	RXC_RES_SRQ,
	RXC_RES_COMP_CNTR,
	RXC_RES_MAX
};

/* Port counters, shown by "rdma statistic" (verbs/rxc_stats.c). */
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
	RXC_STAT_RCV_QP_DROPPED,
	RXC_STAT_RCV_WRONG_PEER,
	RXC_STAT_RCV_DUPLICATES,
	RXC_STAT_RCV_SEQ_ERRORS,
	RXC_STAT_RCV_IN_SOFTIRQ,
	RXC_STAT_SENT_PACKETS,
	RXC_STAT_LOOPBACK_PACKETS,
	RXC_STAT_SENT_BATCHED,
	RXC_STAT_SEND_ERRORS,
	RXC_STAT_RETRANSMITS,
	RXC_STAT_RETRANSMIT_TIMEOUTS,
	RXC_STAT_RETRANSMIT_PROBES,
	RXC_STAT_RETRY_EXCEEDED,
	RXC_STAT_CWND_SHRINKS,
	RXC_STAT_PACE_WAITS,
	RXC_STAT_SEQ_NAKS_RCVD,
	RXC_STAT_RESPONDERS_BEHIND,
	RXC_STAT_FAR_PROBES,
	RXC_STAT_RNR_NAKS_SENT,
	RXC_STAT_RNR_NAKS_RCVD,
	RXC_STAT_RNR_RETRY_EXCEEDED,
	RXC_STAT_REMOTE_ACCESS_ERRORS,
	RXC_STAT_COMP_CNTR_CREATED,
	RXC_STAT_COMP_CNTR_DESTROYED,
	RXC_STAT_COMP_CNTR_ATTACHED,
	RXC_STAT_COMP_CNTR_UPDATES,
	RXC_STAT_COMP_CNTR_NOTIFIED,
	RXC_STAT_STREAMED_DOORBELLS,
	RXC_STAT_HELD_DOORBELLS,
	RXC_STAT_RETIRE_HANDOFFS,
	RXC_NUM_STATS
};

/**
 * struct rxc_limits - per-device limits, fixed when the device is created
 *
 * They are snapshots of the module parameters so that a device never sees
 * its limits change under live objects.
 */
struct rxc_limits {
	u32 max_qp;
	u32 max_qp_wr;
	u32 max_sge;
	u32 max_inline;
	u32 max_cq;
	u32 max_cqe;
	u32 max_mr;
	u32 max_mw;
	u64 max_mr_size;
	u32 max_pd;
	u32 max_ah;
	u32 max_srq;
	u32 max_srq_wr;
	u32 max_rd_atomic;
	u32 max_comp_cntr;
	u64 cntr_max_value;
};

/**
 * struct rxc_dev - one rxc device, bound to one Ethernet netdev
 * @ib_dev: the core device; core allocates rxc_dev around it
 * @ndev: the netdev, referenced for the device's lifetime
 * @list: entry on rxc_dev_list (rxc_main.c, under rxc_dev_list_lock)
 * @limits: object limits reported by query_device and enforced on create
 * @res: live objects of each kind, bounded by @limits
 * @qp_xa: QPN -> QP, for the receive path; xa_lock protects it
 * @next_qpn: cursor of the cyclic QPN allocator, under qp_xa's lock
 * @qp_serial: the serial of the newest QP; unlike QPNs, never reused
 * @key_xa: key index -> MR or MW (a pointer tagged with enum rxc_key_type),
 *	    for the data path; xa_lock protects it
 * @next_key: cursor of the cyclic key index allocator, under key_xa's lock
 * @ah_xa: AH number -> AH, for UD sends from user space; xa_lock protects it
 * @srq_xa: SRQ number -> SRQ; xa_lock protects it
 * @udp: the RoCEv2 sockets of the netdev's namespace (net/rxc_udp.c)
 * @port_active: last port state reported to core, swapped atomically by
 *		 the netdev notifier so each change raises one event
 * @stats: port counters (enum rxc_stat), updated locklessly
 * @cntr_lock: protects @cntr_list
 * @cntr_list: the device's completion counters, for debugfs
 * @cntr_dying: the device is being unregistered: counter WAITs return
 * @debugfs: the device's debugfs directory (counters/rxc_cntr_debugfs.c)
 */
struct rxc_dev {
	struct ib_device ib_dev;
	struct net_device *ndev;
	struct list_head list;
	struct rxc_limits limits;
	atomic_t res[RXC_RES_MAX];
	struct xarray qp_xa;
	u32 next_qpn;
	atomic64_t qp_serial;
	struct xarray key_xa;
	u32 next_key;
	struct xarray ah_xa;
	struct xarray srq_xa;
	struct rxc_udp *udp;
	int port_active;
	atomic64_t stats[RXC_NUM_STATS];
	/* Protects cntr_list; process context. */
	struct mutex cntr_lock;
	struct list_head cntr_list;
	bool cntr_dying;
	struct dentry *debugfs;
};

static inline struct rxc_dev *to_rdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct rxc_dev, ib_dev);
}

/* Every message names the device; user-triggerable ones are ratelimited. */
#define rxc_err(rxc, fmt, ...) \
	ibdev_err_ratelimited(&(rxc)->ib_dev, fmt, ##__VA_ARGS__)
#define rxc_warn(rxc, fmt, ...) \
	ibdev_warn_ratelimited(&(rxc)->ib_dev, fmt, ##__VA_ARGS__)
#define rxc_dbg(rxc, fmt, ...) \
	ibdev_dbg(&(rxc)->ib_dev, fmt, ##__VA_ARGS__)

/* Object-scoped debug lines carry the object's number. */
#define rxc_dbg_qp(qp, fmt, ...)					\
	do {								\
		const struct ib_qp *__ibqp = &(qp)->ibqp;		\
									\
		ibdev_dbg(__ibqp->device, "qp#%u: " fmt,		\
			  __ibqp->qp_num, ##__VA_ARGS__);		\
	} while (0)
#define rxc_dbg_cq(cq, fmt, ...)					\
	do {								\
		const struct ib_cq *__ibcq = &(cq)->ibcq;		\
									\
		ibdev_dbg(__ibcq->device, "cq %p: " fmt, __ibcq,	\
			  ##__VA_ARGS__);				\
	} while (0)

static inline void rxc_stat_inc(struct rxc_dev *rxc, enum rxc_stat stat)
{
	atomic64_inc(&rxc->stats[stat]);
}

static inline void rxc_stat_add(struct rxc_dev *rxc, enum rxc_stat stat,
				unsigned int n)
{
	atomic64_add(n, &rxc->stats[stat]);
}

int rxc_res_get(struct rxc_dev *rxc, enum rxc_res res);
void rxc_res_put(struct rxc_dev *rxc, enum rxc_res res);

/* rxc_param.c */
void rxc_param_limits(struct rxc_limits *limits);

/* rxc_main.c */
struct rxc_dev *rxc_dev_get_by_netdev(struct net_device *ndev);

#endif /* RXC_H */
