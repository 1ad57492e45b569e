// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Netdev events become port events or device removal.
 *
 * The notifier runs in process context with RTNL held.  It may not wait
 * for a device to unregister (that waits for user contexts, which may need
 * RTNL), so removal is queued to core's unregistration work.
 */
#include <linux/netdevice.h>

#include "rxc.h"
#include "rxc_net.h"

bool rxc_netdev_port_active(const struct net_device *ndev)
{
	return netif_running(ndev) && netif_carrier_ok(ndev);
}

static void rxc_port_update(struct rxc_dev *rxc)
{
	int active = rxc_netdev_port_active(rxc->ndev);
	struct ib_event ev = {
		.device = &rxc->ib_dev,
		.element.port_num = RXC_PORT,
	};

	if (xchg(&rxc->port_active, active) == active)
		return;

	ev.event = active ? IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR;
	ib_dispatch_event(&ev);
	rxc_dbg(rxc, "port %s\n", active ? "active" : "down");
}

static int rxc_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *arg)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(arg);
	struct rxc_dev *rxc = rxc_dev_get_by_netdev(ndev);

	if (!rxc)
		return NOTIFY_DONE;

	switch (event) {
	case NETDEV_UNREGISTER:
		rxc_dbg(rxc, "%s is going away, removing the device\n",
			netdev_name(ndev));
		ib_unregister_device_queued(&rxc->ib_dev);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		rxc_port_update(rxc);
		break;
	default:
		/* MTU and addresses are read when queried; GIDs are core's. */
		break;
	}
	ib_device_put(&rxc->ib_dev);
	return NOTIFY_OK;
}

static struct notifier_block rxc_netdev_nb = {
	.notifier_call = rxc_netdev_event,
};

int rxc_netdev_notifier_register(void)
{
	return register_netdevice_notifier(&rxc_netdev_nb);
}

void rxc_netdev_notifier_unregister(void)
{
	unregister_netdevice_notifier(&rxc_netdev_nb);
}
