// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Module entry, "rdma link add ... type rxc" and device teardown.
 *
 * Devices share RDMA_DRIVER_RXE with rdma_rxe so that librxe binds to them,
 * which means ib_unregister_driver() would also remove rdma_rxe's devices.
 * rxc therefore tracks its own devices and unregisters them one by one.
 *
 * For the same reason rxc never calls ib_device_set_netdev(): rdma_rxe
 * finds its device for a netdev with ib_device_get_by_netdev(ndev,
 * RDMA_DRIVER_RXE) and would take an rxc device for one of its own.  rxc
 * reports its netdev through the get_netdev op instead and looks devices
 * up in its own list.
 */
#include <linux/if_arp.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <net/addrconf.h>
#include <rdma/rdma_netlink.h>

#include "rxc.h"
#include "net/rxc_net.h"
#include "verbs/rxc_verbs.h"

/* Serializes changes to rxc_dev_list; readers walk it under RCU. */
static DEFINE_MUTEX(rxc_dev_list_lock);
static LIST_HEAD(rxc_dev_list);

int rxc_res_get(struct rxc_dev *rxc, enum rxc_res res)
{
	static const char * const names[RXC_RES_MAX] = {
		[RXC_RES_PD] = "PDs", [RXC_RES_AH] = "AHs",
		[RXC_RES_MR] = "MRs", [RXC_RES_MW] = "MWs",
		[RXC_RES_CQ] = "CQs",
		[RXC_RES_QP] = "QPs", [RXC_RES_SRQ] = "SRQs",
		[RXC_RES_COMP_CNTR] = "completion counters",
	};
	const u32 limit[RXC_RES_MAX] = {
		[RXC_RES_PD] = rxc->limits.max_pd,
		[RXC_RES_AH] = rxc->limits.max_ah,
		[RXC_RES_MR] = rxc->limits.max_mr,
		[RXC_RES_MW] = rxc->limits.max_mw,
		[RXC_RES_CQ] = rxc->limits.max_cq,
		[RXC_RES_QP] = rxc->limits.max_qp,
		[RXC_RES_SRQ] = rxc->limits.max_srq,
		[RXC_RES_COMP_CNTR] = rxc->limits.max_comp_cntr,
	};

	if (atomic_add_unless(&rxc->res[res], 1, limit[res]))
		return 0;
	rxc_dbg(rxc, "all %u %s in use\n", limit[res], names[res]);
	return -ENOMEM;
}

void rxc_res_put(struct rxc_dev *rxc, enum rxc_res res)
{
	WARN_ON(atomic_dec_return(&rxc->res[res]) < 0);
}

/**
 * rxc_dev_get_by_netdev - the registered rxc device bound to @ndev, if any
 * @ndev: the netdev
 *
 * Any context (the receive path calls it in softirq).
 *
 * Return: the device with a reference (drop it with ib_device_put()), or
 * NULL.
 */
struct rxc_dev *rxc_dev_get_by_netdev(struct net_device *ndev)
{
	struct rxc_dev *rxc, *found = NULL;

	rcu_read_lock();
	list_for_each_entry_rcu(rxc, &rxc_dev_list, list) {
		if (rxc->ndev == ndev && ib_device_try_get(&rxc->ib_dev)) {
			found = rxc;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

static struct lock_class_key rxc_qp_xa_key;
static struct lock_class_key rxc_ah_xa_key;

/* Called by core once the device is unregistered and unused. */
static void rxc_dealloc_driver(struct ib_device *ibdev)
{
	struct rxc_dev *rxc = to_rdev(ibdev);

	/* A device that failed before registration was never listed. */
	if (!list_empty(&rxc->list)) {
		mutex_lock(&rxc_dev_list_lock);
		list_del_rcu(&rxc->list);
		mutex_unlock(&rxc_dev_list_lock);
		synchronize_rcu();
	}

	WARN_ON(!xa_empty(&rxc->qp_xa) || !xa_empty(&rxc->key_xa) ||
		!xa_empty(&rxc->ah_xa) || !xa_empty(&rxc->srq_xa));
	xa_destroy(&rxc->qp_xa);
	xa_destroy(&rxc->key_xa);
	xa_destroy(&rxc->ah_xa);
	xa_destroy(&rxc->srq_xa);
	if (rxc->udp)
		rxc_udp_put(rxc->udp);
	rxc_cntr_dev_cleanup(rxc);
	dev_put(rxc->ndev);
}

static const struct ib_device_ops rxc_main_ops = {
	.dealloc_driver = rxc_dealloc_driver,
};

static void rxc_dev_init(struct rxc_dev *rxc, struct net_device *ndev)
{
	int i;

	rxc->ndev = ndev;
	dev_hold(ndev);
	INIT_LIST_HEAD(&rxc->list);
	rxc_param_limits(&rxc->limits);
	for (i = 0; i < RXC_RES_MAX; i++)
		atomic_set(&rxc->res[i], 0);
	/*
	 * Taken in softirq, unlike the other tables: a lockdep class of its
	 * own, and LOCK_BH so that an allocation that must sleep drops the
	 * lock with _bh too.
	 */
	xa_init_flags(&rxc->qp_xa, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_BH);
	lockdep_set_class(&rxc->qp_xa.xa_lock, &rxc_qp_xa_key);
	rxc->next_qpn = RXC_MIN_QPN;
	xa_init_flags(&rxc->key_xa, XA_FLAGS_ALLOC1);
	/*
	 * The requester takes it under a send queue's lock, which the
	 * receive softirq takes too: a class of its own, apart from the
	 * tables taken with bottom halves enabled, or lockdep would see an
	 * order between this lock and theirs that no path has.
	 */
	xa_init_flags(&rxc->ah_xa, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	lockdep_set_class(&rxc->ah_xa.xa_lock, &rxc_ah_xa_key);
	xa_init_flags(&rxc->srq_xa, XA_FLAGS_ALLOC1);
	rxc->port_active = rxc_netdev_port_active(ndev);
	ib_set_device_ops(&rxc->ib_dev, &rxc_main_ops);
	rxc_cntr_dev_init(rxc);
}

static int rxc_check_netdev(const char *ibdev_name, struct net_device *ndev)
{
	struct ib_device *other;
	struct rxc_dev *rxc;

	if (ndev->type != ARPHRD_ETHER) {
		pr_err("rdma_rxc: %s: %s is not an Ethernet device\n",
		       ibdev_name, netdev_name(ndev));
		return -EINVAL;
	}

	/* One soft-RoCE device per netdev, rdma_rxe's or rxc's. */
	other = ib_device_get_by_netdev(ndev, RDMA_DRIVER_RXE);
	if (!other) {
		rxc = rxc_dev_get_by_netdev(ndev);
		other = rxc ? &rxc->ib_dev : NULL;
	}
	if (other) {
		pr_err("rdma_rxc: %s: %s already carries RDMA device %s\n",
		       ibdev_name, netdev_name(ndev), dev_name(&other->dev));
		ib_device_put(other);
		return -EEXIST;
	}
	return 0;
}

/*
 * Serializes rxc_newlink(): core runs "rdma link add" commands in
 * parallel, and the one-device-per-netdev check must hold until the new
 * device is listed.
 */
static DEFINE_MUTEX(rxc_newlink_lock);

static int rxc_newlink_locked(const char *ibdev_name, struct net_device *ndev)
{
	struct rxc_dev *rxc;
	int err;

	err = rxc_check_netdev(ibdev_name, ndev);
	if (err)
		return err;

	rxc = ib_alloc_device(rxc_dev, ib_dev);
	if (!rxc)
		return -ENOMEM;
	rxc_dev_init(rxc, ndev);

	/* The first device in a namespace opens its UDP/4791 sockets. */
	rxc->udp = rxc_udp_get(dev_net(ndev), ibdev_name);
	if (IS_ERR(rxc->udp)) {
		err = PTR_ERR(rxc->udp);
		rxc->udp = NULL;
		/* Runs rxc_dealloc_driver(), which undoes rxc_dev_init(). */
		ib_dealloc_device(&rxc->ib_dev);
		return err;
	}

	/* Before registration, as a registered device may go at any time. */
	rxc_cntr_debugfs_add(rxc, ibdev_name);

	/*
	 * Listed before registration: once registered, a netdev event may
	 * unregister the device at any time, and dealloc_driver unlists it.
	 */
	mutex_lock(&rxc_dev_list_lock);
	list_add_tail_rcu(&rxc->list, &rxc_dev_list);
	mutex_unlock(&rxc_dev_list_lock);

	err = rxc_device_register(rxc, ibdev_name);
	if (err) {
		pr_err("rdma_rxc: %s: registration failed (%d)\n",
		       ibdev_name, err);
		/* Runs rxc_dealloc_driver(), which undoes rxc_dev_init(). */
		ib_dealloc_device(&rxc->ib_dev);
	}
	return err;
}

/* rdma link add NAME type rxc netdev NDEV; process context, may sleep. */
static int rxc_newlink(const char *ibdev_name, struct net_device *ndev)
{
	int err;

	mutex_lock(&rxc_newlink_lock);
	err = rxc_newlink_locked(ibdev_name, ndev);
	mutex_unlock(&rxc_newlink_lock);
	return err;
}

static struct rdma_link_ops rxc_link_ops = {
	.type = RXC_LINK_TYPE,
	.newlink = rxc_newlink,
};

/* Unregister every rxc device; netdev events may race and that is fine. */
static void rxc_unregister_all(void)
{
	struct rxc_dev *rxc;

	for (;;) {
		mutex_lock(&rxc_dev_list_lock);
		rxc = list_first_entry_or_null(&rxc_dev_list, struct rxc_dev,
					       list);
		if (rxc)
			get_device(&rxc->ib_dev.dev);
		mutex_unlock(&rxc_dev_list_lock);
		if (!rxc)
			return;

		ib_unregister_device(&rxc->ib_dev);
		put_device(&rxc->ib_dev.dev);
	}
}

static int __init rxc_module_init(void)
{
	int err;

	rxc_icrc_init();
	err = rxc_transport_init();
	if (err)
		goto err_icrc;
	err = rxc_udp_init();
	if (err)
		goto err_transport;
	err = rxc_netdev_notifier_register();
	if (err)
		goto err_udp;
	err = rxc_cntr_init();
	if (err)
		goto err_notifier;
	rdma_link_register(&rxc_link_ops);
	pr_info("rdma_rxc: loaded\n");
	return 0;

err_notifier:
	rxc_netdev_notifier_unregister();
err_udp:
	rxc_udp_exit();
err_transport:
	rxc_transport_exit();
err_icrc:
	rxc_icrc_exit();
	return err;
}

static void __exit rxc_module_exit(void)
{
	/* No new links after this returns: nldev holds the ops rwsem. */
	rdma_link_unregister(&rxc_link_ops);
	rxc_unregister_all();
	rxc_cntr_exit();
	rxc_netdev_notifier_unregister();
	rxc_udp_exit();
	rxc_transport_exit();
	rxc_icrc_exit();
	pr_info("rdma_rxc: unloaded\n");
}

module_init(rxc_module_init);
module_exit(rxc_module_exit);

MODULE_ALIAS_RDMA_LINK(RXC_LINK_TYPE);
MODULE_AUTHOR("The rxc authors");
MODULE_DESCRIPTION("Soft RoCE (RoCEv2 over UDP) with completion counters");
MODULE_LICENSE("Dual BSD/GPL");
