// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Module parameters: the limits each new device reports and enforces.
 *
 * A value outside its range is refused with -EINVAL and a message that
 * names the range, so "modprobe rdma_rxc max_qp=0" fails loudly instead of
 * creating a device that cannot hold a single QP.  The parameters are
 * read-only once the module is loaded; a device copies them when it is
 * created (rxc_param_limits()).
 */
#include <linux/kernel.h>
#include <linux/moduleparam.h>

#include "rxc.h"
#include "counters/rxc_cntr.h"

struct rxc_uint_param {
	unsigned int val;
	unsigned int min;
	unsigned int max;
};

static int rxc_uint_param_set(const char *val, const struct kernel_param *kp)
{
	struct rxc_uint_param *p = kp->arg;
	unsigned int v;

	if (kstrtouint(val, 0, &v)) {
		pr_err("rdma_rxc: %s: \"%s\" is not an unsigned integer\n",
		       kp->name, val);
		return -EINVAL;
	}
	if (v < p->min || v > p->max) {
		pr_err("rdma_rxc: %s=%u is outside [%u, %u]\n",
		       kp->name, v, p->min, p->max);
		return -EINVAL;
	}
	p->val = v;
	return 0;
}

static int rxc_uint_param_get(char *buf, const struct kernel_param *kp)
{
	const struct rxc_uint_param *p = kp->arg;

	return scnprintf(buf, PAGE_SIZE, "%u\n", p->val);
}

static const struct kernel_param_ops rxc_uint_param_ops = {
	.set = rxc_uint_param_set,
	.get = rxc_uint_param_get,
};

/* Defaults and ranges; the descriptions below repeat them for modinfo. */
static struct rxc_uint_param max_qp = { 16384, 1, 1 << 20 };
static struct rxc_uint_param max_qp_wr = { 16384, 1, 1 << 20 };
static struct rxc_uint_param max_sge = { 32, 1, 256 };
static struct rxc_uint_param max_inline = { 512, 0, 4096 };
static struct rxc_uint_param max_cq = { 16384, 1, 1 << 20 };
static struct rxc_uint_param max_cqe = { 32767, 1, (1 << 22) - 1 };
static struct rxc_uint_param max_mr = { 65536, 1, 1 << 23 };
static struct rxc_uint_param max_mw = { 65536, 1, 1 << 23 };
static struct rxc_uint_param max_pd = { 65536, 1, 1 << 20 };
static struct rxc_uint_param max_ah = { 65536, 1, 1 << 20 };
static struct rxc_uint_param max_srq = { 4096, 1, 1 << 20 };
static struct rxc_uint_param max_srq_wr = { 16384, 1, 1 << 20 };
static struct rxc_uint_param max_rd_atomic = { 128, 1, 255 };
static struct rxc_uint_param max_comp_cntr = { 65536, 1, 1 << 20 };
static struct rxc_uint_param cntr_max_value_bits = { 64, 1, 64 };

module_param_cb(max_qp, &rxc_uint_param_ops, &max_qp, 0444);
MODULE_PARM_DESC(max_qp, "QPs per device (16384, 1..1048576)");
module_param_cb(max_qp_wr, &rxc_uint_param_ops, &max_qp_wr, 0444);
MODULE_PARM_DESC(max_qp_wr, "work requests per work queue (16384, 1..1048576)");
module_param_cb(max_sge, &rxc_uint_param_ops, &max_sge, 0444);
MODULE_PARM_DESC(max_sge, "scatter/gather entries per work request (32, 1..256)");
module_param_cb(max_inline, &rxc_uint_param_ops, &max_inline, 0444);
MODULE_PARM_DESC(max_inline, "bytes of inline data per send (512, 0..4096)");
module_param_cb(max_cq, &rxc_uint_param_ops, &max_cq, 0444);
MODULE_PARM_DESC(max_cq, "CQs per device (16384, 1..1048576)");
module_param_cb(max_cqe, &rxc_uint_param_ops, &max_cqe, 0444);
MODULE_PARM_DESC(max_cqe, "entries per CQ (32767, 1..4194303)");
module_param_cb(max_mr, &rxc_uint_param_ops, &max_mr, 0444);
MODULE_PARM_DESC(max_mr, "MRs per device (65536, 1..8388608)");
module_param_cb(max_mw, &rxc_uint_param_ops, &max_mw, 0444);
MODULE_PARM_DESC(max_mw, "memory windows per device (65536, 1..8388608)");
module_param_cb(max_pd, &rxc_uint_param_ops, &max_pd, 0444);
MODULE_PARM_DESC(max_pd, "PDs per device (65536, 1..1048576)");
module_param_cb(max_ah, &rxc_uint_param_ops, &max_ah, 0444);
MODULE_PARM_DESC(max_ah, "AHs per device (65536, 1..1048576)");
module_param_cb(max_srq, &rxc_uint_param_ops, &max_srq, 0444);
MODULE_PARM_DESC(max_srq, "SRQs per device (4096, 1..1048576)");
module_param_cb(max_srq_wr, &rxc_uint_param_ops, &max_srq_wr, 0444);
MODULE_PARM_DESC(max_srq_wr, "work requests per SRQ (16384, 1..1048576)");
module_param_cb(max_rd_atomic, &rxc_uint_param_ops, &max_rd_atomic, 0444);
MODULE_PARM_DESC(max_rd_atomic, "outstanding RDMA reads and atomics per QP (128, 1..255)");
module_param_cb(max_comp_cntr, &rxc_uint_param_ops, &max_comp_cntr, 0444);
MODULE_PARM_DESC(max_comp_cntr, "completion counters per device (65536, 1..1048576)");
/* Narrow counters let tests and applications exercise the wrap to zero. */
module_param_cb(cntr_max_value_bits, &rxc_uint_param_ops, &cntr_max_value_bits, 0444);
MODULE_PARM_DESC(cntr_max_value_bits, "bits of a completion counter value; it wraps after 2^bits - 1 (64, 1..64)");

void rxc_param_limits(struct rxc_limits *l)
{
	l->max_qp = max_qp.val;
	l->max_qp_wr = max_qp_wr.val;
	l->max_sge = max_sge.val;
	l->max_inline = max_inline.val;
	l->max_cq = max_cq.val;
	l->max_cqe = max_cqe.val;
	l->max_mr = max_mr.val;
	l->max_mw = max_mw.val;
	l->max_mr_size = U64_MAX;
	l->max_pd = max_pd.val;
	l->max_ah = max_ah.val;
	l->max_srq = max_srq.val;
	l->max_srq_wr = max_srq_wr.val;
	l->max_rd_atomic = max_rd_atomic.val;
	l->max_comp_cntr = max_comp_cntr.val;
	l->cntr_max_value = rxc_cntr_max_value(cntr_max_value_bits.val);
}
