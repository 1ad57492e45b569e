// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Waiting for a counter: RXC_METHOD_COMP_CNTR_WAIT sleeps until the
 * completion value reaches a threshold or the error value leaves a
 * baseline; RXC_METHOD_COMP_CNTR_NOTIFY arms an eventfd with the same
 * condition, signalled once per arming, so that one thread can poll() or
 * epoll many counters.
 *
 * Updates cost one atomic_read() of @nwaiters when nobody waits
 * (rxc_cntr_wake() in rxc_cntr.h); only then do they wake the queue and
 * look at the armed eventfd.
 *
 * WAIT runs in process context and names its counter by handle, not as
 * an IDR attribute: uverbs would hold the counter's uobject across the
 * sleep, and MODIFY and DESTROY, which take it for write, would fail with
 * EBUSY until the wait ended, breaking the usual pattern of one thread
 * waiting for credits while another adds them.  Instead WAIT looks the
 * counter up in its context's table and counts itself in @waits; destroy
 * erases the entry, wakes the sleepers, which return ENOENT, and waits
 * for them to leave before it frees the values they read.
 *
 * A WAIT in flight also holds off device removal: uverbs waits for every
 * ioctl in flight before it tears the device's files down.  Core removes
 * its clients in the reverse order they registered, so an ib_client of
 * rxc's own, registered after ib_uverbs', hears of the removal first; it
 * marks the device dying and wakes every waiter, which returns EIO.
 * ib_uverbs must therefore be loaded first.  Up to 6.x rdma_rxc uses its
 * symbols; since 7.x the uverbs helpers are in ib_core, so a soft
 * dependency asks modprobe for it.
 */
#include <linux/eventfd.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/wait_bit.h>
#include <kunit/visibility.h>
#define UVERBS_MODULE_NAME rxc
#include <rdma/uverbs_named_ioctl.h>

#include "rxc.h"
#include "rxc_compat.h"
#include "counters/rxc_cntr.h"
#include "verbs/rxc_verbs.h"

/* The condition both methods wait for; pure, for KUnit. */
bool rxc_cntr_wait_done(u64 comp, u64 err, u64 threshold, u64 err_base)
{
	return comp >= threshold || err != err_base;
}
EXPORT_SYMBOL_IF_KUNIT(rxc_cntr_wait_done);

static bool rxc_cntr_dying(struct rxc_cntr *cntr)
{
	return READ_ONCE(cntr->rxc->cntr_dying);
}

static bool rxc_cntr_gone(struct rxc_cntr *cntr)
{
	return READ_ONCE(cntr->gone);
}

static bool rxc_cntr_reached(struct rxc_cntr *cntr, u64 threshold,
			     u64 err_base, u64 *comp, u64 *err)
{
	*comp = atomic64_read_acquire(cntr->comp.val);
	*err = atomic64_read_acquire(cntr->err.val);
	return rxc_cntr_wait_done(*comp, *err, threshold, err_base);
}

void rxc_cntr_wait_init(struct rxc_cntr *cntr)
{
	atomic_set(&cntr->waits, 0);
	cntr->gone = false;
	atomic_set(&cntr->nwaiters, 0);
	init_waitqueue_head(&cntr->wq);
	spin_lock_init(&cntr->notify_lock);
	memset(&cntr->notify, 0, sizeof(cntr->notify));
}
EXPORT_SYMBOL_IF_KUNIT(rxc_cntr_wait_init);

/* Lists @cntr on its device, or takes it off: for removal and debugfs. */
static void rxc_cntr_list(struct rxc_cntr *cntr, bool on)
{
	struct rxc_dev *rxc = cntr->rxc;

	mutex_lock(&rxc->cntr_lock);
	if (on)
		list_add_tail(&cntr->dev_entry, &rxc->cntr_list);
	else
		list_del(&cntr->dev_entry);
	mutex_unlock(&rxc->cntr_lock);
}

/**
 * rxc_cntr_wait_publish - the last step of create: WAIT can find @cntr
 * @cntr: the counter
 * @handle: its uobject handle
 *
 * The device lists it first: device removal wakes the WAITs of the
 * counters it lists, and a WAIT that found a counter not yet listed
 * would sleep through the removal.  Process context.
 *
 * Return: 0, or the errno of a failed insert (then it is not listed).
 */
int rxc_cntr_wait_publish(struct rxc_cntr *cntr, u32 handle)
{
	int err;

	cntr->handle = handle;
	rxc_cntr_list(cntr, true);
	err = xa_insert(&cntr->pool->handles, handle, cntr, GFP_KERNEL_ACCOUNT);
	if (err)
		rxc_cntr_list(cntr, false);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(rxc_cntr_wait_publish);

/* A WAIT takes the counter named @handle, if it is still there. */
static struct rxc_cntr *rxc_cntr_wait_get(struct rxc_cntr_pool *pool,
					  u32 handle)
{
	struct rxc_cntr *cntr;

	xa_lock(&pool->handles);
	cntr = xa_load(&pool->handles, handle);
	if (cntr)
		atomic_inc(&cntr->waits);
	xa_unlock(&pool->handles);
	return cntr;
}

/* After this the WAIT must not touch @cntr: destroy may free it. */
static void rxc_cntr_wait_put(struct rxc_cntr *cntr)
{
	/* wake_up_var() only hashes the address; it reads nothing there. */
	if (atomic_dec_and_test(&cntr->waits))
		wake_up_var(&cntr->waits);
}

/*
 * Counter destruction, process context: no new WAIT finds the counter
 * once it is erased; those that did are woken and leave (they sleep
 * interruptibly and test @gone), then the armed eventfd is dropped and
 * the device stops listing it, the reverse of rxc_cntr_wait_publish().
 */
void rxc_cntr_wait_cleanup(struct rxc_cntr *cntr)
{
	xa_erase(&cntr->pool->handles, cntr->handle);
	WRITE_ONCE(cntr->gone, true);
	wake_up_interruptible_all(&cntr->wq);
	wait_var_event(&cntr->waits, !atomic_read(&cntr->waits));

	if (cntr->notify.ctx)
		eventfd_ctx_put(cntr->notify.ctx);
	cntr->notify.ctx = NULL;
	rxc_cntr_list(cntr, false);
}
EXPORT_SYMBOL_IF_KUNIT(rxc_cntr_wait_cleanup);

/* Signal the armed eventfd if its condition holds; notify_lock held. */
static void rxc_cntr_notify_fire(struct rxc_cntr *cntr)
{
	struct rxc_cntr_notify *n = &cntr->notify;
	u64 comp, err;

	if (n->armed &&
	    rxc_cntr_reached(cntr, n->threshold, n->err_base, &comp, &err)) {
		n->armed = false;
		atomic_dec(&cntr->nwaiters);
		rxc_eventfd_signal(n->ctx);
		rxc_stat_inc(cntr->rxc, RXC_STAT_COMP_CNTR_NOTIFIED);
	}
}

/* Any context. */
static void rxc_cntr_notify_check(struct rxc_cntr *cntr)
{
	unsigned long flags;

	spin_lock_irqsave(&cntr->notify_lock, flags);
	rxc_cntr_notify_fire(cntr);
	spin_unlock_irqrestore(&cntr->notify_lock, flags);
}

/* Someone waits: wake the sleepers and check the eventfd.  Any context. */
void __rxc_cntr_wake(struct rxc_cntr *cntr)
{
	wake_up_interruptible_all(&cntr->wq);
	rxc_cntr_notify_check(cntr);
}

static int rxc_cntr_wait(struct rxc_cntr *cntr, u64 threshold, u64 err_base,
			 u32 timeout_ms, u64 *comp, u64 *err)
{
	long left = msecs_to_jiffies(timeout_ms);
	int ret;

	atomic_inc(&cntr->nwaiters);
	/*
	 * Pairs with the fully ordered update in rxc_cntr_add(): either the
	 * updater sees nwaiters and wakes us, or we see its value below.
	 */
	smp_mb__after_atomic();
	left = wait_event_interruptible_timeout(cntr->wq,
						rxc_cntr_gone(cntr) ||
						rxc_cntr_dying(cntr) ||
						rxc_cntr_reached(cntr, threshold,
								 err_base, comp, err),
						left);
	atomic_dec(&cntr->nwaiters);
	/* The values seen last, whatever ended the wait. */
	rxc_cntr_reached(cntr, threshold, err_base, comp, err);
	if (left < 0)	/* not restarted: the timeout is relative */
		ret = -EINTR;
	else if (rxc_cntr_reached(cntr, threshold, err_base, comp, err))
		ret = 0;
	else if (rxc_cntr_gone(cntr))
		ret = -ENOENT;
	else if (rxc_cntr_dying(cntr))
		ret = -EIO;
	else
		ret = -ETIMEDOUT;
	return ret;
}

/*
 * Device removal, before ib_uverbs' client waits for the ioctls in flight:
 * end every WAIT on the device.  Process context.
 */
static void rxc_cntr_client_remove(struct ib_device *ibdev, void *data)
{
	struct rxc_dev *rxc = data;
	struct rxc_cntr *cntr;

	WRITE_ONCE(rxc->cntr_dying, true);
	mutex_lock(&rxc->cntr_lock);
	list_for_each_entry(cntr, &rxc->cntr_list, dev_entry)
		wake_up_interruptible_all(&cntr->wq);
	mutex_unlock(&rxc->cntr_lock);
}

/* A renamed device's debugfs directory follows it.  Process context. */
static void rxc_cntr_client_rename(struct ib_device *ibdev, void *data)
{
	rxc_cntr_debugfs_rename(data, dev_name(&ibdev->dev));
}

/* rxc's devices are those that carry its uverbs definitions. */
static int rxc_cntr_client_add(struct ib_device *ibdev);

MODULE_SOFTDEP("pre: ib_uverbs");

static struct ib_client rxc_cntr_client = {
	.name = "rxc_cntr",
	.add = rxc_cntr_client_add,
	.remove = rxc_cntr_client_remove,
	.rename = rxc_cntr_client_rename,
};

/*
 * Registration, and the return of a device that was disabled without
 * being freed (a move to another network namespace): WAITs work again.
 * Process context.
 */
static int rxc_cntr_client_add(struct ib_device *ibdev)
{
	struct rxc_dev *rxc = to_rdev(ibdev);

	if (ibdev->driver_def != rxc_cntr_uapi_defs)
		return -EOPNOTSUPP;
	WRITE_ONCE(rxc->cntr_dying, false);
	ib_set_client_data(ibdev, &rxc_cntr_client, rxc);
	return 0;
}

int rxc_cntr_client_register(void)
{
	return ib_register_client(&rxc_cntr_client);
}

void rxc_cntr_client_unregister(void)
{
	ib_unregister_client(&rxc_cntr_client);
}

/* An optional output; absent is fine. */
static int rxc_cntr_copy_out(struct uverbs_attr_bundle *attrs, u16 id,
			     u64 val)
{
	if (!uverbs_attr_is_valid(attrs, id))
		return 0;
	return uverbs_copy_to(attrs, id, &val, sizeof(val));
}

/* The threshold, timeout and optional error baseline of a WAIT. */
struct rxc_cntr_wait_args {
	u64 threshold;
	u64 err_base;
	u32 timeout_ms;
	bool has_err_base;
};

static int rxc_cntr_wait_args(struct uverbs_attr_bundle *attrs,
			      struct rxc_cntr_wait_args *a)
{
	int ret;

	ret = uverbs_copy_from(&a->threshold, attrs,
			       RXC_ATTR_COMP_CNTR_WAIT_THRESHOLD);
	if (ret)
		return ret;
	ret = uverbs_copy_from(&a->timeout_ms, attrs,
			       RXC_ATTR_COMP_CNTR_WAIT_TIMEOUT_MS);
	if (ret)
		return ret;
	a->has_err_base = uverbs_attr_is_valid(attrs,
					       RXC_ATTR_COMP_CNTR_WAIT_ERR_BASE);
	if (!a->has_err_base)
		return 0;
	return uverbs_copy_from(&a->err_base, attrs,
				RXC_ATTR_COMP_CNTR_WAIT_ERR_BASE);
}

/*
 * WAIT's handle, in either form of the uAPI (rxc-abi.h): a u32, or, as
 * rxc 1.0's librxc sends it, no length and the number in the attribute's
 * data, the encoding of an IDR attribute.
 */
static int rxc_cntr_wait_handle(struct uverbs_attr_bundle *attrs, u32 *handle)
{
	const struct uverbs_attr *attr =
		uverbs_attr_get(attrs, RXC_ATTR_COMP_CNTR_WAIT_HANDLE);

	if (IS_ERR(attr))
		return PTR_ERR(attr);
	if (!attr->ptr_attr.len) {
		if (attr->ptr_attr.data > U32_MAX)
			return -EINVAL;
		*handle = attr->ptr_attr.data;
		return 0;
	}
	if (attr->ptr_attr.len != sizeof(*handle))
		return -EINVAL;
	return uverbs_copy_from(handle, attrs, RXC_ATTR_COMP_CNTR_WAIT_HANDLE);
}

static int UVERBS_HANDLER(RXC_METHOD_COMP_CNTR_WAIT)(struct uverbs_attr_bundle *attrs)
{
	struct rxc_cntr_wait_args a;
	struct ib_ucontext *uctx;
	struct rxc_cntr *cntr;
	u64 comp, err;
	u32 handle;
	int ret, ret2;

	uctx = ib_uverbs_get_ucontext(attrs);
	if (IS_ERR(uctx))
		return PTR_ERR(uctx);
	ret = rxc_cntr_wait_handle(attrs, &handle);
	if (ret)
		return ret;
	ret = rxc_cntr_wait_args(attrs, &a);
	if (ret)
		return ret;

	cntr = rxc_cntr_wait_get(&to_ruc(uctx)->cntr_pool, handle);
	if (!cntr) {
		rxc_dbg(to_rdev(uctx->device),
			"comp_cntr wait: no counter with handle %u\n", handle);
		return -ENOENT;
	}
	if (!a.has_err_base)
		a.err_base = atomic64_read_acquire(cntr->err.val);
	ret = rxc_cntr_wait(cntr, a.threshold, a.err_base, a.timeout_ms,
			    &comp, &err);
	rxc_cntr_wait_put(cntr);
	if (ret == -EINTR || ret == -ENOENT)
		return ret;
	/* What was seen last is worth having after a timeout or removal too. */
	ret2 = rxc_cntr_copy_out(attrs, RXC_ATTR_COMP_CNTR_WAIT_COMP_VALUE, comp);
	if (!ret2)
		ret2 = rxc_cntr_copy_out(attrs, RXC_ATTR_COMP_CNTR_WAIT_ERR_VALUE,
					 err);
	return ret ? ret : ret2;
}

static int UVERBS_HANDLER(RXC_METHOD_COMP_CNTR_NOTIFY)(struct uverbs_attr_bundle *attrs)
{
	struct ib_comp_cntr *ibcc =
		uverbs_attr_get_obj(attrs, RXC_ATTR_COMP_CNTR_NOTIFY_HANDLE);
	struct rxc_cntr *cntr = to_rcntr(ibcc);
	struct rxc_cntr_notify *n = &cntr->notify;
	struct eventfd_ctx *ctx = NULL, *old;
	u64 threshold = 0, err_base;
	unsigned long flags;
	s32 fd;
	int ret;

	ret = uverbs_copy_from(&fd, attrs, RXC_ATTR_COMP_CNTR_NOTIFY_EVENTFD);
	if (ret)
		return ret;
	if (fd != -1) {
		/* Arming needs a threshold; disarming does not. */
		if (!uverbs_attr_is_valid(attrs,
					  RXC_ATTR_COMP_CNTR_NOTIFY_THRESHOLD)) {
			rxc_dbg(cntr->rxc, "comp_cntr notify: no threshold\n");
			return -EINVAL;
		}
		ret = uverbs_copy_from(&threshold, attrs,
				       RXC_ATTR_COMP_CNTR_NOTIFY_THRESHOLD);
		if (ret)
			return ret;
		ctx = eventfd_ctx_fdget(fd);
		if (IS_ERR(ctx)) {
			ret = PTR_ERR(ctx);
			rxc_dbg(cntr->rxc, "comp_cntr notify: fd %d is %s\n", fd,
				ret == -EBADF ? "not open" : "not an eventfd");
			return ret;
		}
	}
	if (uverbs_attr_is_valid(attrs, RXC_ATTR_COMP_CNTR_NOTIFY_ERR_BASE)) {
		ret = uverbs_copy_from(&err_base, attrs,
				       RXC_ATTR_COMP_CNTR_NOTIFY_ERR_BASE);
		if (ret)
			goto err_put;
	} else {
		err_base = atomic64_read_acquire(cntr->err.val);
	}

	/* NOTIFY holds the counter for read only: arm under the lock. */
	spin_lock_irqsave(&cntr->notify_lock, flags);
	old = n->ctx;
	if (n->armed)
		atomic_dec(&cntr->nwaiters);
	n->ctx = ctx;
	n->threshold = threshold;
	n->err_base = err_base;
	n->armed = ctx;
	if (ctx) {
		atomic_inc(&cntr->nwaiters);
		/*
		 * As in rxc_cntr_wait(): an update either sees nwaiters or
		 * its value is seen here, so the condition holding already
		 * (or coming true while arming) fires once.
		 */
		smp_mb__after_atomic();
		rxc_cntr_notify_fire(cntr);
	}
	spin_unlock_irqrestore(&cntr->notify_lock, flags);

	if (old)
		eventfd_ctx_put(old);
	return 0;

err_put:
	if (ctx)
		eventfd_ctx_put(ctx);
	return ret;
}

/*
 * WAIT's handle is a plain u32 (see the top of this file); NOTIFY returns
 * at once and names its counter as every core method does, an IDR
 * attribute with read access.
 */
DECLARE_UVERBS_NAMED_METHOD(RXC_METHOD_COMP_CNTR_WAIT,
			    UVERBS_ATTR_PTR_IN(RXC_ATTR_COMP_CNTR_WAIT_HANDLE,
					       UVERBS_ATTR_SIZE(0, sizeof(u32)),
					       UA_MANDATORY),
			    UVERBS_ATTR_PTR_IN(RXC_ATTR_COMP_CNTR_WAIT_THRESHOLD,
					       UVERBS_ATTR_TYPE(u64), UA_MANDATORY),
			    UVERBS_ATTR_PTR_IN(RXC_ATTR_COMP_CNTR_WAIT_ERR_BASE,
					       UVERBS_ATTR_TYPE(u64), UA_OPTIONAL),
			    UVERBS_ATTR_PTR_IN(RXC_ATTR_COMP_CNTR_WAIT_TIMEOUT_MS,
					       UVERBS_ATTR_TYPE(u32), UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(RXC_ATTR_COMP_CNTR_WAIT_COMP_VALUE,
						UVERBS_ATTR_TYPE(u64), UA_OPTIONAL),
			    UVERBS_ATTR_PTR_OUT(RXC_ATTR_COMP_CNTR_WAIT_ERR_VALUE,
						UVERBS_ATTR_TYPE(u64), UA_OPTIONAL));

DECLARE_UVERBS_NAMED_METHOD(RXC_METHOD_COMP_CNTR_NOTIFY,
			    UVERBS_ATTR_IDR(RXC_ATTR_COMP_CNTR_NOTIFY_HANDLE,
					    UVERBS_OBJECT_COMP_CNTR, UVERBS_ACCESS_READ,
					    UA_MANDATORY),
			    UVERBS_ATTR_PTR_IN(RXC_ATTR_COMP_CNTR_NOTIFY_EVENTFD,
					       UVERBS_ATTR_TYPE(s32), UA_MANDATORY),
			    UVERBS_ATTR_PTR_IN(RXC_ATTR_COMP_CNTR_NOTIFY_THRESHOLD,
					       UVERBS_ATTR_TYPE(u64), UA_OPTIONAL),
			    UVERBS_ATTR_PTR_IN(RXC_ATTR_COMP_CNTR_NOTIFY_ERR_BASE,
					       UVERBS_ATTR_TYPE(u64), UA_OPTIONAL));

ADD_UVERBS_METHODS(rxc_cntr_wait_methods,
		   UVERBS_OBJECT_COMP_CNTR,
		   &UVERBS_METHOD(RXC_METHOD_COMP_CNTR_WAIT),
		   &UVERBS_METHOD(RXC_METHOD_COMP_CNTR_NOTIFY));

const struct uapi_definition rxc_cntr_wait_uapi_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_COMP_CNTR, &rxc_cntr_wait_methods),
	{}
};
