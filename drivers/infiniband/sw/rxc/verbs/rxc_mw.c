// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Memory windows: an rkey that a bind gives access to part of an MR.
 *
 * Allocation and release run in process context.  Binding and local
 * invalidation run in the QP task when the work request reaches the head
 * of the send queue; remote invalidation runs in the responder; both in
 * process context.  The transport finds a window by key under RCU, so
 * release waits for a grace period before core frees the window.
 */
#include <linux/rcupdate.h>

#include "rxc.h"
#include "rxc_verbs.h"

#define RXC_MW_REMOTE_ACCESS	(IB_ACCESS_REMOTE_READ | \
				 IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_ATOMIC)

int rxc_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct rxc_dev *rxc = to_rdev(ibmw->device);
	struct rxc_mw *mw = to_rmw(ibmw);
	s64 key;
	int err;

	err = rxc_res_get(rxc, RXC_RES_MW);
	if (err)
		return err;

	spin_lock_init(&mw->lock);
	key = rxc_key_alloc(rxc, mw, RXC_KEY_MW, &mw->index);
	if (key < 0) {
		rxc_res_put(rxc, RXC_RES_MW);
		return key;
	}
	ibmw->rkey = key;
	return 0;
}

int rxc_dealloc_mw(struct ib_mw *ibmw)
{
	struct rxc_dev *rxc = to_rdev(ibmw->device);

	rxc_key_free(rxc, to_rmw(ibmw)->index);
	/* Lookups that found the key finish before core frees the window. */
	synchronize_rcu();
	rxc_res_put(rxc, RXC_RES_MW);
	return 0;
}

/* The window a key names, or NULL; the caller holds the RCU read lock. */
static struct rxc_mw *rxc_mw_lookup(struct rxc_dev *rxc, u32 rkey)
{
	void *entry = xa_load(&rxc->key_xa, rkey >> 8);

	if (!entry || xa_pointer_tag(entry) != RXC_KEY_MW)
		return NULL;
	return xa_untag_pointer(entry);
}

/* Check a bind against its region (IBA 10.6.7.3); 0 or a WC status. */
static enum ib_wc_status rxc_mw_check_mr(struct rxc_qp *qp,
					 const struct rxc_mw_bind *b)
{
	struct rxc_dev *rxc = to_rdev(qp->ibqp.device);
	struct rxc_mr *mr;
	bool ok;

	if (!b->length)
		return IB_WC_SUCCESS;
	mr = rxc_mr_get(rxc, b->mr_lkey, qp->ibqp.pd, IB_ACCESS_MW_BIND,
			b->addr, b->length);
	if (!mr)
		return IB_WC_MW_BIND_ERR;
	/* Remote writes and atomics through the window write the region. */
	ok = !(b->access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) ||
	     (mr->access & IB_ACCESS_LOCAL_WRITE);
	rxc_mr_put(mr);
	return ok ? IB_WC_SUCCESS : IB_WC_MW_BIND_ERR;
}

/**
 * rxc_mw_bind - execute a bind work request
 * @qp: the QP it was posted to
 * @b: what it asks, from the kernel's copy of the WQE
 *
 * Type 1 windows rebind freely (a zero length unbinds); type 2 windows
 * must be free and then belong to @qp until invalidated.  Only the low
 * eight bits of the rkey may change.
 *
 * Return: IB_WC_SUCCESS or IB_WC_MW_BIND_ERR.
 */
enum ib_wc_status rxc_mw_bind(struct rxc_qp *qp, const struct rxc_mw_bind *b)
{
	struct rxc_dev *rxc = to_rdev(qp->ibqp.device);
	enum ib_wc_status status;
	struct rxc_mw *mw;

	/* Local write is accepted (and meaningless) in a window's rights. */
	if ((b->new_rkey >> 8) != (b->mw_rkey >> 8) ||
	    (b->access & ~(RXC_MW_REMOTE_ACCESS | IB_ACCESS_LOCAL_WRITE)) ||
	    b->addr + b->length < b->addr)
		return IB_WC_MW_BIND_ERR;
	status = rxc_mw_check_mr(qp, b);
	if (status != IB_WC_SUCCESS)
		return status;

	rcu_read_lock();
	mw = rxc_mw_lookup(rxc, b->mw_rkey);
	if (!mw || mw->ibmw.pd != qp->ibqp.pd) {
		rcu_read_unlock();
		return IB_WC_MW_BIND_ERR;
	}
	spin_lock_bh(&mw->lock);
	if (mw->ibmw.rkey != b->mw_rkey ||
	    (mw->ibmw.type == IB_MW_TYPE_2 && (mw->bound || !b->length))) {
		status = IB_WC_MW_BIND_ERR;
	} else {
		mw->bound = b->length != 0;
		mw->mr_key = b->mr_lkey;
		mw->addr = b->addr;
		mw->length = b->length;
		mw->access = b->access & RXC_MW_REMOTE_ACCESS;
		mw->qpn = qp->ibqp.qp_num;
		mw->ibmw.rkey = b->new_rkey;
	}
	spin_unlock_bh(&mw->lock);
	rcu_read_unlock();
	return status;
}

/**
 * rxc_mw_invalidate - invalidate a type 2 window (LOCAL_INV, SEND_WITH_INV)
 * @qp: the QP the request came through, which must own the window
 * @rkey: the window's current rkey
 *
 * Return: IB_WC_SUCCESS, or IB_WC_MW_BIND_ERR when @rkey names no type 2
 * window bound through @qp.
 */
enum ib_wc_status rxc_mw_invalidate(struct rxc_qp *qp, u32 rkey)
{
	struct rxc_dev *rxc = to_rdev(qp->ibqp.device);
	enum ib_wc_status status = IB_WC_MW_BIND_ERR;
	struct rxc_mw *mw;

	rcu_read_lock();
	mw = rxc_mw_lookup(rxc, rkey);
	if (mw) {
		spin_lock_bh(&mw->lock);
		if (mw->ibmw.type == IB_MW_TYPE_2 && mw->bound &&
		    mw->ibmw.rkey == rkey && mw->qpn == qp->ibqp.qp_num) {
			mw->bound = false;
			status = IB_WC_SUCCESS;
		}
		spin_unlock_bh(&mw->lock);
	}
	rcu_read_unlock();
	return status;
}

/**
 * rxc_mw_get_mr - the region behind a window, for a remote access
 * @rxc: the device
 * @mw: the window, found under RCU by the caller
 * @rkey: the key the request named
 * @pd: the PD of the QP the request came through
 * @access: the IB_ACCESS_REMOTE_* rights needed
 * @iova: first byte
 * @length: bytes
 *
 * Return: the region with a use count, or NULL when the window does not
 * grant this access.
 */
struct rxc_mr *rxc_mw_get_mr(struct rxc_dev *rxc, struct rxc_mw *mw,
			     u32 rkey, struct ib_pd *pd, int access, u64 iova,
			     u64 length)
{
	u64 end = iova + length;
	bool ok;
	u32 mr_key;

	spin_lock_bh(&mw->lock);
	ok = mw->bound && mw->ibmw.rkey == rkey && mw->ibmw.pd == pd &&
	     (mw->access & access) == access && end >= iova &&
	     iova >= mw->addr && end <= mw->addr + mw->length;
	mr_key = mw->mr_key;
	spin_unlock_bh(&mw->lock);
	if (!ok)
		return NULL;
	return rxc_mr_get(rxc, mr_key, pd, 0, iova, length);
}
