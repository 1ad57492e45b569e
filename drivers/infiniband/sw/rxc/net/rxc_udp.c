// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The RoCEv2 UDP sockets, one pair (IPv4, IPv6) per network namespace.
 *
 * They are opened when the first rxc device is created in a namespace
 * (the namespace of its netdev) and closed with the last one, so loading
 * rdma_rxc never takes UDP port 4791 from anyone, and rxc devices in
 * different namespaces never share a socket.
 *
 * A device holds a reference on its namespace's struct rxc_udp, not on the
 * namespace: a namespace going away first closes the sockets
 * (rxc_udp_net_exit()), and the struct lives on, empty, until the last
 * device lets go of it.  Everything here runs in process context.
 */
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <net/udp_tunnel.h>

#include "rxc.h"
#include "rxc_compat.h"
#include "rxc_net.h"

/**
 * struct rxc_udp - the RoCEv2 sockets of one network namespace
 * @kref: one reference per device using the sockets
 * @net: the namespace, or NULL once it is gone; not referenced
 * @sk4: IPv4 socket bound to port 4791
 * @sk6: IPv6-only socket bound to port 4791, NULL without IPv6
 * @list: entry on rxc_udp_list
 */
struct rxc_udp {
	struct kref kref;
	struct net *net;
	struct socket *sk4;
	struct socket *sk6;
	struct list_head list;
};

/* Protects rxc_udp_list and the fields of every entry. */
static DEFINE_MUTEX(rxc_udp_lock);
static LIST_HEAD(rxc_udp_list);

static int rxc_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	rxc_recv(skb);
	return 0;
}

static struct socket *rxc_udp_open(struct net *net, bool ipv6)
{
	struct udp_tunnel_sock_cfg tnl = {
		.encap_type = 1,
		.encap_rcv = rxc_udp_encap_recv,
	};
	struct udp_port_cfg cfg = {
		.family = ipv6 ? AF_INET6 : AF_INET,
		.ipv6_v6only = ipv6,
		.local_udp_port = htons(RXC_ROCE_V2_PORT),
	};
	struct socket *sock;
	int err;

	err = udp_sock_create(net, &cfg, &sock);
	if (err)
		return ERR_PTR(err);
	rxc_setup_udp_tunnel_sock(net, sock, &tnl);
	return sock;
}

static void rxc_udp_close(struct rxc_udp *udp)
{
	if (udp->sk6)
		rxc_udp_tunnel_sock_release(udp->sk6);
	if (udp->sk4)
		rxc_udp_tunnel_sock_release(udp->sk4);
	udp->sk6 = NULL;
	udp->sk4 = NULL;
}

static struct rxc_udp *rxc_udp_create(struct net *net, const char *ibdev_name)
{
	struct rxc_udp *udp;
	struct socket *sock;

	udp = kzalloc(sizeof(*udp), GFP_KERNEL);
	if (!udp)
		return ERR_PTR(-ENOMEM);
	kref_init(&udp->kref);
	udp->net = net;

	sock = rxc_udp_open(net, false);
	if (IS_ERR(sock))
		goto err;
	udp->sk4 = sock;
	if (ipv6_mod_enabled()) {
		sock = rxc_udp_open(net, true);
		if (IS_ERR(sock))
			goto err;
		udp->sk6 = sock;
	}
	list_add(&udp->list, &rxc_udp_list);
	return udp;

err:
	if (PTR_ERR(sock) == -EADDRINUSE)
		pr_err("rdma_rxc: %s: UDP port %u is already in use in network namespace %u (another soft-RoCE driver such as rdma_rxe?)\n",
		       ibdev_name, RXC_ROCE_V2_PORT, net->ns.inum);
	else
		pr_err("rdma_rxc: %s: cannot open the RoCEv2 UDP socket (%ld)\n",
		       ibdev_name, PTR_ERR(sock));
	rxc_udp_close(udp);
	kfree(udp);
	return ERR_CAST(sock);
}

/**
 * rxc_udp_get - the RoCEv2 sockets of @net, opened on first use
 * @net: the namespace of the device's netdev
 * @ibdev_name: the device being created, for messages
 *
 * Return: a reference to drop with rxc_udp_put(), or an ERR_PTR;
 * -EADDRINUSE when another owner holds UDP port 4791 in @net.
 */
struct rxc_udp *rxc_udp_get(struct net *net, const char *ibdev_name)
{
	struct rxc_udp *udp;

	mutex_lock(&rxc_udp_lock);
	list_for_each_entry(udp, &rxc_udp_list, list) {
		if (udp->net == net) {
			kref_get(&udp->kref);
			goto out;
		}
	}
	udp = rxc_udp_create(net, ibdev_name);
out:
	mutex_unlock(&rxc_udp_lock);
	return udp;
}

static void rxc_udp_release(struct kref *kref)
{
	struct rxc_udp *udp = container_of(kref, struct rxc_udp, kref);

	list_del(&udp->list);
	rxc_udp_close(udp);
	mutex_unlock(&rxc_udp_lock);
	kfree(udp);
}

void rxc_udp_put(struct rxc_udp *udp)
{
	kref_put_mutex(&udp->kref, rxc_udp_release, &rxc_udp_lock);
}

/*
 * A namespace is going away.  Its netdevs are gone or moved already, but
 * removing an rxc device is asynchronous, so a device may still hold the
 * sockets: close them now; the empty struct waits for its last put.
 */
static void rxc_udp_net_exit(struct net *net)
{
	struct rxc_udp *udp;

	mutex_lock(&rxc_udp_lock);
	list_for_each_entry(udp, &rxc_udp_list, list) {
		if (udp->net == net) {
			rxc_udp_close(udp);
			udp->net = NULL;
		}
	}
	mutex_unlock(&rxc_udp_lock);
}

static struct pernet_operations rxc_udp_net_ops = {
	.exit = rxc_udp_net_exit,
};

int rxc_udp_init(void)
{
	return register_pernet_subsys(&rxc_udp_net_ops);
}

void rxc_udp_exit(void)
{
	unregister_pernet_subsys(&rxc_udp_net_ops);
}
