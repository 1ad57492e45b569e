// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The device and its port: attributes, the ops table and registration.
 * Everything here runs in process context.
 */
#include <net/addrconf.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_user_verbs.h>

#include "rxc.h"
#include "rxc_verbs.h"

#define RXC_VENDOR_ID		0xffffff
#define RXC_FW_VERSION		0
#define RXC_LOCAL_ACK_DELAY	15

static int rxc_query_device(struct ib_device *ibdev,
			    struct ib_device_attr *attr,
			    struct ib_udata *udata)
{
	struct rxc_dev *rxc = to_rdev(ibdev);
	const struct rxc_limits *l = &rxc->limits;

	/*
	 * rxc has no driver-specific query_device data, in or out.  Core's
	 * own query at registration passes no udata since 7.x.
	 */
	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;

	memset(attr, 0, sizeof(*attr));
	attr->fw_ver = RXC_FW_VERSION;
	attr->sys_image_guid = ibdev->node_guid;
	attr->max_mr_size = l->max_mr_size;
	attr->page_size_cap = PAGE_SIZE;
	attr->vendor_id = RXC_VENDOR_ID;
	attr->hw_ver = 0;
	attr->max_qp = l->max_qp;
	attr->max_qp_wr = l->max_qp_wr;
	attr->device_cap_flags = IB_DEVICE_PORT_ACTIVE_EVENT |
				 IB_DEVICE_SYS_IMAGE_GUID |
				 IB_DEVICE_SRQ_RESIZE |
				 IB_DEVICE_MEM_WINDOW |
				 IB_DEVICE_MEM_WINDOW_TYPE_2B;
	/* Lets "rdma link delete" remove the device. */
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	attr->max_send_sge = l->max_sge;
	attr->max_recv_sge = l->max_sge;
	attr->max_sge_rd = l->max_sge;
	attr->max_cq = l->max_cq;
	attr->max_cqe = l->max_cqe;
	attr->max_mr = l->max_mr;
	attr->max_mw = l->max_mw;
	attr->max_pd = l->max_pd;
	attr->max_qp_rd_atom = l->max_rd_atomic;
	attr->max_qp_init_rd_atom = l->max_rd_atomic;
	attr->max_res_rd_atom = l->max_rd_atomic * l->max_qp;
	/* Remote atomics are CPU atomics on the target page. */
	attr->atomic_cap = IB_ATOMIC_HCA;
	attr->max_ah = l->max_ah;
	attr->max_srq = l->max_srq;
	attr->max_srq_wr = l->max_srq_wr;
	attr->max_srq_sge = l->max_sge;
	attr->max_pkeys = RXC_PKEY_TABLE_LEN;
	attr->local_ca_ack_delay = RXC_LOCAL_ACK_DELAY;
	return 0;
}

static int rxc_query_port(struct ib_device *ibdev, u32 port,
			  struct ib_port_attr *attr)
{
	struct rxc_dev *rxc = to_rdev(ibdev);
	bool active = rxc_netdev_port_active(rxc->ndev);
	int err;

	/* Core zeroes @attr and checks @port. */
	attr->state = active ? IB_PORT_ACTIVE : IB_PORT_DOWN;
	attr->phys_state = active ? IB_PORT_PHYS_STATE_LINK_UP :
				    IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = rxc_mtu_for_netdev(READ_ONCE(rxc->ndev->mtu));
	attr->gid_tbl_len = RXC_GID_TABLE_LEN;
	attr->pkey_tbl_len = RXC_PKEY_TABLE_LEN;
	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->max_msg_sz = RXC_MAX_MSG_SIZE;
	attr->max_vl_num = 1;
	attr->lmc = 0;
	attr->sm_lid = 0;
	attr->lid = 0;

	err = ib_get_eth_speed(ibdev, port, &attr->active_speed,
			       &attr->active_width);
	if (err)
		rxc_dbg(rxc, "link speed unknown (%d)\n", err);
	return 0;
}

static int rxc_get_port_immutable(struct ib_device *ibdev, u32 port,
				  struct ib_port_immutable *immutable)
{
	struct ib_port_attr attr = {};
	int err;

	err = ib_query_port(ibdev, port, &attr);
	if (err)
		return err;

	immutable->pkey_tbl_len = attr.pkey_tbl_len;
	immutable->gid_tbl_len = attr.gid_tbl_len;
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static int rxc_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			  u16 *pkey)
{
	if (index >= RXC_PKEY_TABLE_LEN)
		return -EINVAL;
	*pkey = RXC_DEFAULT_PKEY;
	return 0;
}

static int rxc_modify_device(struct ib_device *ibdev, int mask,
			     struct ib_device_modify *attr)
{
	/* The system image GUID is the node GUID, derived from the MAC. */
	if (mask & ~IB_DEVICE_MODIFY_NODE_DESC)
		return -EOPNOTSUPP;

	memcpy(ibdev->node_desc, attr->node_desc, sizeof(ibdev->node_desc));
	return 0;
}

/*
 * The legacy way to name a port's netdev, on purpose: see rxc_main.c for
 * why rxc stays out of core's netdev-to-device table.  Core drops the
 * reference.
 */
static struct net_device *rxc_get_netdev(struct ib_device *ibdev, u32 port)
{
	struct net_device *ndev = to_rdev(ibdev)->ndev;

	dev_hold(ndev);
	return ndev;
}

static enum rdma_link_layer rxc_get_link_layer(struct ib_device *ibdev,
					       u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

static const struct ib_device_ops rxc_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_RXE,
	.uverbs_abi_ver = RXC_UVERBS_ABI_VERSION,

	.alloc_hw_port_stats = rxc_alloc_hw_port_stats,
	.alloc_mw = rxc_alloc_mw,
	.alloc_pd = rxc_alloc_pd,
	.alloc_ucontext = rxc_alloc_ucontext,
	.create_ah = rxc_create_ah,
	.create_cq = rxc_create_cq,
	.create_qp = rxc_create_qp,
	.create_srq = rxc_create_srq,
	.create_user_ah = rxc_create_ah,
	.dealloc_mw = rxc_dealloc_mw,
	.dealloc_pd = rxc_dealloc_pd,
	.dealloc_ucontext = rxc_dealloc_ucontext,
	.dereg_mr = rxc_dereg_mr,
	.destroy_ah = rxc_destroy_ah,
	.destroy_cq = rxc_destroy_cq,
	.destroy_qp = rxc_destroy_qp,
	.destroy_srq = rxc_destroy_srq,
	.disassociate_ucontext = rxc_disassociate_ucontext,
	.fill_res_qp_entry = rxc_fill_res_qp_entry,
	.get_dma_mr = rxc_get_dma_mr,
	.get_hw_stats = rxc_get_hw_stats,
	.get_link_layer = rxc_get_link_layer,
	.get_netdev = rxc_get_netdev,
	.get_port_immutable = rxc_get_port_immutable,
	.mmap = rxc_mmap,
	.mmap_free = rxc_mmap_free,
	.modify_device = rxc_modify_device,
	.modify_qp = rxc_modify_qp,
	.modify_srq = rxc_modify_srq,
	.poll_cq = rxc_poll_cq,
	.post_recv = rxc_post_recv,
	.post_send = rxc_post_send,
	.post_srq_recv = rxc_post_srq_recv,
	.query_ah = rxc_query_ah,
	.query_device = rxc_query_device,
	.query_pkey = rxc_query_pkey,
	.query_port = rxc_query_port,
	.query_qp = rxc_query_qp,
	.query_srq = rxc_query_srq,
	.reg_user_mr = rxc_reg_user_mr,
	.req_notify_cq = rxc_req_notify_cq,
	.RXC_RESIZE_CQ_OP = rxc_resize_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, rxc_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, rxc_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_mw, rxc_mw, ibmw),
	INIT_RDMA_OBJ_SIZE(ib_pd, rxc_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, rxc_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, rxc_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, rxc_ucontext, ibuc),
};

/**
 * rxc_device_register - make @rxc visible to core and user space
 * @rxc: an initialized device bound to its netdev
 * @name: the name given to "rdma link add"
 */
int rxc_device_register(struct rxc_dev *rxc, const char *name)
{
	struct ib_device *ibdev = &rxc->ib_dev;

	strscpy(ibdev->node_desc, RXC_DRV_NAME, sizeof(ibdev->node_desc));
	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = num_possible_cpus();
	ibdev->local_dma_lkey = 0;
	addrconf_addr_eui48((unsigned char *)&ibdev->node_guid,
			    rxc->ndev->dev_addr);

	/*
	 * librxe rings the send doorbell and arms CQs with these legacy
	 * write() commands; core masks them out unless the driver asks.
	 */
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				  BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);

	/* The completion counter object, which a 6.1 core does not have. */
	ibdev->driver_def = rxc_cntr_uapi_defs;

	ib_set_device_ops(ibdev, &rxc_dev_ops);
	return ib_register_device(ibdev, name, NULL);
}
