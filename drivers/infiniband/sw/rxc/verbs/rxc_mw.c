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

/* Release the region a window was bound to; its count keeps it alive. */
static void rxc_mw_unpin(struct rxc_mr *mr)
{
	if (mr)
		atomic_dec(&mr->num_mw);
}

int rxc_dealloc_mw(struct ib_mw *ibmw)
{
	struct rxc_dev *rxc = to_rdev(ibmw->device);
	struct rxc_mw *mw = to_rmw(ibmw);

	rxc_key_free(rxc, mw->index);
	/*
	 * Lookups that found the key, binds included, finish before the
	 * window lets go of its region and core frees it.
	 */
	synchronize_rcu();
	rxc_mw_unpin(mw->mr);
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

/*
 * The region a bind names, checked (IBA 10.6.7.3) and counted in its
 * @num_mw; NULL for an unbind (zero length).  ERR_PTR(-EINVAL) when the
 * region does not allow the bind or is being deregistered.
 */
static struct rxc_mr *rxc_mw_pin_mr(struct rxc_qp *qp,
				    const struct rxc_mw_bind *b)
{
	struct rxc_dev *rxc = to_rdev(qp->ibqp.device);
	struct rxc_mr *mr;
	bool ok;

	if (!b->length)
		return NULL;
	mr = rxc_mr_get(rxc, b->mr_lkey, qp->ibqp.pd, IB_ACCESS_MW_BIND,
			b->addr, b->length);
	if (!mr)
		return ERR_PTR(-EINVAL);
	/* Remote writes and atomics through the window write the region. */
	ok = !(b->access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) ||
	     (mr->access & IB_ACCESS_LOCAL_WRITE);
	ok = ok && atomic_inc_unless_negative(&mr->num_mw);
	rxc_mr_put(mr);
	return ok ? mr : ERR_PTR(-EINVAL);
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
	enum ib_wc_status status = IB_WC_SUCCESS;
	struct rxc_mr *mr, *old;
	struct rxc_mw *mw;

	/* Local write is accepted (and meaningless) in a window's rights. */
	if ((b->new_rkey >> 8) != (b->mw_rkey >> 8) ||
	    (b->access & ~(RXC_MW_REMOTE_ACCESS | IB_ACCESS_LOCAL_WRITE)) ||
	    b->addr + b->length < b->addr)
		return IB_WC_MW_BIND_ERR;
	mr = rxc_mw_pin_mr(qp, b);
	if (IS_ERR(mr))
		return IB_WC_MW_BIND_ERR;

	rcu_read_lock();
	mw = rxc_mw_lookup(rxc, b->mw_rkey);
	if (!mw || mw->ibmw.pd != qp->ibqp.pd) {
		rcu_read_unlock();
		rxc_mw_unpin(mr);
		return IB_WC_MW_BIND_ERR;
	}
	spin_lock_bh(&mw->lock);
	if (mw->ibmw.rkey != b->mw_rkey ||
	    (mw->ibmw.type == IB_MW_TYPE_2 && (mw->bound || !b->length))) {
		status = IB_WC_MW_BIND_ERR;
		old = mr;
	} else {
		old = mw->mr;
		mw->bound = b->length != 0;
		mw->mr = mr;
		mw->addr = b->addr;
		mw->length = b->length;
		mw->access = b->access & RXC_MW_REMOTE_ACCESS;
		mw->qp_serial = qp->serial;
		mw->ibmw.rkey = b->new_rkey;
	}
	spin_unlock_bh(&mw->lock);
	rcu_read_unlock();
	rxc_mw_unpin(old);
	return status;
}

/**
 * rxc_mw_invalidate - invalidate a type 2 window (LOCAL_INV, SEND_WITH_INV)
 * @qp: the QP the request came through, which must own the window
 * @rkey: the window's current rkey
 *
 * Return: IB_WC_SUCCESS, or IB_WC_MW_BIND_ERR when @rkey names no type 2
 * window bound through @qp (the QP itself, not a later one with its QPN).
 */
enum ib_wc_status rxc_mw_invalidate(struct rxc_qp *qp, u32 rkey)
{
	struct rxc_dev *rxc = to_rdev(qp->ibqp.device);
	enum ib_wc_status status = IB_WC_MW_BIND_ERR;
	struct rxc_mr *old = NULL;
	struct rxc_mw *mw;

	rcu_read_lock();
	mw = rxc_mw_lookup(rxc, rkey);
	if (mw) {
		spin_lock_bh(&mw->lock);
		if (mw->ibmw.type == IB_MW_TYPE_2 && mw->bound &&
		    mw->ibmw.rkey == rkey && mw->ibmw.pd == qp->ibqp.pd &&
		    mw->qp_serial == qp->serial) {
			old = mw->mr;
			mw->mr = NULL;
			mw->bound = false;
			status = IB_WC_SUCCESS;
		}
		spin_unlock_bh(&mw->lock);
	}
	rcu_read_unlock();
	rxc_mw_unpin(old);
	return status;
}

/**
 * rxc_mw_get_mr - the region behind a window, for a remote access
 * @mw: the window, found under RCU by the caller
 * @rkey: the key the request named
 * @qp: the QP the request came through: of the window's PD, and for a
 *	type 2 window the very QP it is bound through (IBA 10.6.7.2)
 * @access: the IB_ACCESS_REMOTE_* rights needed
 * @iova: first byte
 * @length: bytes
 *
 * Return: the region with a use count, or NULL when the window does not
 * grant this access.
 */
struct rxc_mr *rxc_mw_get_mr(struct rxc_mw *mw, u32 rkey,
			     const struct rxc_qp *qp, int access, u64 iova,
			     u64 length)
{
	struct rxc_mr *mr = NULL;
	u64 end = iova + length;

	spin_lock_bh(&mw->lock);
	/*
	 * The bound region cannot be deregistered, so it is the one checked
	 * at bind time and its registration reference is still held.
	 */
	if (mw->bound && mw->ibmw.rkey == rkey && mw->ibmw.pd == qp->ibqp.pd &&
	    (mw->ibmw.type != IB_MW_TYPE_2 || mw->qp_serial == qp->serial) &&
	    (mw->access & access) == access && end >= iova &&
	    iova >= mw->addr && end <= mw->addr + mw->length &&
	    refcount_inc_not_zero(&mw->mr->users))
		mr = mw->mr;
	spin_unlock_bh(&mw->lock);
	return mr;
}
