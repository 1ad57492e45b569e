// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * debugfs: /sys/kernel/debug/rdma_rxc/<device>/comp_cntrs lists every
 * completion counter of the device, one a line: its handle, values,
 * type, where each value lives and the QPs it counts for, with their
 * operation masks.  For people, not programs: the format may change.
 *
 * Process context.  Reading takes the device's cntr_lock (counters do not
 * go away meanwhile) and, per counter, the QP table's lock (QPs do not go
 * away either: destroy_qp erases a QP from the table before core frees it).
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "rxc.h"
#include "rxc_compat.h"
#include "verbs/rxc_verbs.h"
#include "counters/rxc_cntr.h"

static struct dentry *rxc_debugfs_root;

void rxc_cntr_debugfs_init(void)
{
	rxc_debugfs_root = debugfs_create_dir("rdma_rxc", NULL);
}

void rxc_cntr_debugfs_exit(void)
{
	debugfs_remove_recursive(rxc_debugfs_root);
	rxc_debugfs_root = NULL;
}

/* The QPs @cntr is attached to, as " qpN:MASK" each. */
static void rxc_cntr_show_qps(struct seq_file *s, struct rxc_dev *rxc,
			      struct rxc_cntr *cntr)
{
	struct rxc_qp *qp;
	unsigned long qpn;
	unsigned int i;
	bool any = false;
	u32 mask;

	/* The receive path takes this lock in softirq. */
	xa_lock_bh(&rxc->qp_xa);
	xa_for_each(&rxc->qp_xa, qpn, qp) {
		mask = 0;
		for (i = 0; i < IB_COMP_CNTR_NUM_OPS; i++)
			if (ib_comp_cntr_for_op(&qp->cntrs, i) == &cntr->ibcc)
				mask |= BIT(i);
		if (mask) {
			seq_printf(s, " qp%lu:%#x", qpn, mask);
			any = true;
		}
	}
	xa_unlock_bh(&rxc->qp_xa);
	if (!any)
		seq_puts(s, " -");
}

static int rxc_cntr_debugfs_show(struct seq_file *s, void *unused)
{
	struct rxc_dev *rxc = s->private;
	struct rxc_cntr *cntr;

	seq_puts(s, "handle comp err type comp_mem err_mem max_value attached(qp:ops)\n");
	mutex_lock(&rxc->cntr_lock);
	list_for_each_entry(cntr, &rxc->cntr_list, dev_entry) {
		seq_printf(s, "%u %llu %llu %s %s %s %#llx",
			   cntr->ibcc.uobject->id,
			   (u64)atomic64_read(cntr->comp.val),
			   (u64)atomic64_read(cntr->err.val),
			   cntr->type == RXC_COMP_CNTR_TYPE_BYTES ? "bytes" : "wrs",
			   rxc_cntr_mem_name(cntr->comp.kind),
			   rxc_cntr_mem_name(cntr->err.kind),
			   cntr->max_value);
		rxc_cntr_show_qps(s, rxc, cntr);
		seq_putc(s, '\n');
	}
	mutex_unlock(&rxc->cntr_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rxc_cntr_debugfs);

/* Failures are not errors: debugfs is optional. */
void rxc_cntr_debugfs_add(struct rxc_dev *rxc, const char *name)
{
	if (IS_ERR_OR_NULL(rxc_debugfs_root))
		return;
	rxc->debugfs = debugfs_create_dir(name, rxc_debugfs_root);
	debugfs_create_file("comp_cntrs", 0400, rxc->debugfs, rxc,
			    &rxc_cntr_debugfs_fops);
}

/*
 * "rdma dev set OLD name NEW": the directory follows the device, so that
 * it is found under the name tools show and a later device may take the
 * old one.  Process context, from core's rename, before the device can
 * go away.
 */
void rxc_cntr_debugfs_rename(struct rxc_dev *rxc, const char *name)
{
	int err;

	if (IS_ERR_OR_NULL(rxc->debugfs))
		return;
	err = rxc_debugfs_rename(rxc_debugfs_root, rxc->debugfs, name);
	if (err)
		rxc_warn(rxc, "debugfs directory not renamed to %s (%d)\n",
			 name, err);
}

/* Waits for readers that are in the file's show function. */
void rxc_cntr_debugfs_remove(struct rxc_dev *rxc)
{
	debugfs_remove_recursive(rxc->debugfs);
	rxc->debugfs = NULL;
}
