// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The completion counter uverbs object and the two methods that go with
 * it on other objects (capabilities on the device, attach on a QP), with
 * the checks upstream core makes before it calls a driver.  See
 * ib_comp_cntr.h for why this lives in a driver module.
 *
 * Every handler runs in process context with the uobjects it names
 * locked by the uverbs core: a counter being destroyed is locked
 * exclusively, so no attach, modify or read runs on it at the same time.
 */
#include <linux/slab.h>
#define UVERBS_MODULE_NAME ib_comp_cntr
#include <rdma/uverbs_named_ioctl.h>
#include <rdma/uverbs_std_types.h>

#include "ib_comp_cntr.h"

static bool ib_comp_cntr_supported(const struct ib_comp_cntr_ops *ops)
{
	/* A counter nobody can attach, or nobody can free, is useless. */
	return ops && ops->create_comp_cntr && ops->destroy_comp_cntr &&
	       ops->qp_attach_comp_cntr;
}

static int UVERBS_HANDLER(UVERBS_METHOD_QUERY_COMP_CNTR_CAPS)(struct uverbs_attr_bundle *attrs)
{
	const struct ib_comp_cntr_ops *ops;
	struct ib_comp_cntr_caps caps = {};
	struct ib_ucontext *ucontext;
	int ret;

	ucontext = ib_uverbs_get_ucontext(attrs);
	if (IS_ERR(ucontext))
		return PTR_ERR(ucontext);

	ops = ib_comp_cntr_device_ops(ucontext->device);
	if (!ib_comp_cntr_supported(ops) || !ops->query_comp_cntr_caps)
		return -EOPNOTSUPP;

	ret = ops->query_comp_cntr_caps(ucontext->device, &caps, attrs);
	if (ret)
		return ret;

	/* Each output is optional: one the caller left out is skipped. */
	ret = uverbs_copy_to(attrs, UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_MAX_COUNTERS,
			     &caps.max_counters, sizeof(caps.max_counters));
	if (IS_UVERBS_COPY_ERR(ret))
		return ret;
	ret = uverbs_copy_to(attrs, UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_MAX_VALUE,
			     &caps.max_value, sizeof(caps.max_value));
	if (IS_UVERBS_COPY_ERR(ret))
		return ret;
	ret = uverbs_copy_to(attrs,
			     UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_SUPPORTED_QP_ATTACH_OPS,
			     &caps.supported_qp_attach_ops,
			     sizeof(caps.supported_qp_attach_ops));
	return IS_UVERBS_COPY_ERR(ret) ? ret : 0;
}

static int UVERBS_HANDLER(UVERBS_METHOD_QP_ATTACH_COMP_CNTR)(struct uverbs_attr_bundle *attrs)
{
	struct ib_qp *qp = uverbs_attr_get_obj(attrs,
					       UVERBS_ATTR_QP_ATTACH_COMP_CNTR_HANDLE);
	struct ib_comp_cntr *cc =
		uverbs_attr_get_obj(attrs,
				    UVERBS_ATTR_QP_ATTACH_COMP_CNTR_CNTR_HANDLE);
	struct ib_qp_attach_comp_cntr_attr attr = {};
	const struct ib_comp_cntr_ops *ops;
	struct ib_comp_cntr_caps caps = {};
	int ret;

	/* Counting belongs to the real QP, not to a handle sharing it. */
	if (qp->real_qp != qp)
		return -EINVAL;

	ops = ib_comp_cntr_device_ops(qp->device);
	if (!ib_comp_cntr_supported(ops) || !ops->query_comp_cntr_caps)
		return -EOPNOTSUPP;

	/* A bit outside the six operations is EINVAL, as upstream's core. */
	ret = uverbs_get_flags32(&attr.op_mask, attrs,
				 UVERBS_ATTR_QP_ATTACH_COMP_CNTR_OP_MASK,
				 IB_COMP_CNTR_ALL_OPS);
	if (ret)
		return ret;

	ret = ops->query_comp_cntr_caps(qp->device, &caps, attrs);
	if (ret)
		return ret;
	ret = ib_comp_cntr_check_op_mask(attr.op_mask,
					 caps.supported_qp_attach_ops);
	if (ret)
		return ret;

	return ops->qp_attach_comp_cntr(qp, cc, &attr);
}

static int UVERBS_HANDLER(UVERBS_METHOD_COMP_CNTR_CREATE)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj =
		uverbs_attr_get_uobject(attrs, UVERBS_ATTR_CREATE_COMP_CNTR_HANDLE);
	struct ib_device *ibdev = attrs->context->device;
	const struct ib_comp_cntr_ops *ops = ib_comp_cntr_device_ops(ibdev);
	struct ib_comp_cntr *cc;
	int ret;

	if (!ib_comp_cntr_supported(ops))
		return -EOPNOTSUPP;
	if (WARN_ON(ops->size_ib_comp_cntr < sizeof(*cc)))
		return -EINVAL;

	cc = kzalloc(ops->size_ib_comp_cntr, GFP_KERNEL);
	if (!cc)
		return -ENOMEM;
	cc->device = ibdev;
	cc->uobject = uobj;
	atomic_set(&cc->usecnt, 0);

	ret = ops->create_comp_cntr(cc, attrs);
	if (ret) {
		kfree(cc);
		return ret;
	}

	uobj->object = cc;
	uverbs_finalize_uobj_create(attrs, UVERBS_ATTR_CREATE_COMP_CNTR_HANDLE);
	return 0;
}

static int ib_comp_cntr_entry_get(struct uverbs_attr_bundle *attrs,
				  size_t idx, enum ib_comp_cntr_entry *entry)
{
	int ret = uverbs_get_const(entry, attrs, idx);

	if (ret)
		return ret;
	if (*entry != IB_COMP_CNTR_ENTRY_COMP && *entry != IB_COMP_CNTR_ENTRY_ERR)
		return -EINVAL;
	return 0;
}

static int UVERBS_HANDLER(UVERBS_METHOD_COMP_CNTR_MODIFY)(struct uverbs_attr_bundle *attrs)
{
	struct ib_comp_cntr *cc =
		uverbs_attr_get_obj(attrs, UVERBS_ATTR_MODIFY_COMP_CNTR_HANDLE);
	const struct ib_comp_cntr_ops *ops = ib_comp_cntr_device_ops(cc->device);
	enum ib_comp_cntr_modify_op op;
	enum ib_comp_cntr_entry entry;
	u64 value;
	int ret;

	if (!ops->modify_comp_cntr)
		return -EOPNOTSUPP;

	ret = ib_comp_cntr_entry_get(attrs, UVERBS_ATTR_MODIFY_COMP_CNTR_ENTRY,
				     &entry);
	if (ret)
		return ret;
	ret = uverbs_get_const(&op, attrs, UVERBS_ATTR_MODIFY_COMP_CNTR_OP);
	if (ret)
		return ret;
	if (op != IB_COMP_CNTR_MODIFY_OP_SET && op != IB_COMP_CNTR_MODIFY_OP_INC)
		return -EINVAL;
	ret = uverbs_copy_from(&value, attrs, UVERBS_ATTR_MODIFY_COMP_CNTR_VALUE);
	if (ret)
		return ret;

	return ops->modify_comp_cntr(cc, entry, op, value);
}

static int UVERBS_HANDLER(UVERBS_METHOD_COMP_CNTR_READ)(struct uverbs_attr_bundle *attrs)
{
	struct ib_comp_cntr *cc =
		uverbs_attr_get_obj(attrs, UVERBS_ATTR_READ_COMP_CNTR_HANDLE);
	const struct ib_comp_cntr_ops *ops = ib_comp_cntr_device_ops(cc->device);
	enum ib_comp_cntr_entry entry;
	u64 value;
	int ret;

	if (!ops->read_comp_cntr)
		return -EOPNOTSUPP;

	ret = ib_comp_cntr_entry_get(attrs, UVERBS_ATTR_READ_COMP_CNTR_ENTRY,
				     &entry);
	if (ret)
		return ret;
	ret = ops->read_comp_cntr(cc, entry, &value);
	if (ret)
		return ret;
	return uverbs_copy_to(attrs, UVERBS_ATTR_READ_COMP_CNTR_RESP_VALUE,
			      &value, sizeof(value));
}

/*
 * An attached counter is busy for every removal reason, not only for an
 * explicit destroy: teardown on process exit or device removal retries
 * busy objects after the others, so the counter goes once the QPs that
 * count into it are gone, and never before.
 */
static int ib_comp_cntr_free(struct ib_uobject *uobj,
			     enum rdma_remove_reason why,
			     struct uverbs_attr_bundle *attrs)
{
	struct ib_comp_cntr *cc = uobj->object;
	const struct ib_comp_cntr_ops *ops = ib_comp_cntr_device_ops(cc->device);
	int ret;

	if (atomic_read(&cc->usecnt))
		return -EBUSY;

	ret = ops->destroy_comp_cntr(cc);
	if (ret)
		return ret;
	kfree(cc);
	return 0;
}

/* The upstream name does not fit the method table's indentation. */
#define IB_COMP_CNTR_CAPS_OPS UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_SUPPORTED_QP_ATTACH_OPS

DECLARE_UVERBS_NAMED_METHOD(UVERBS_METHOD_QUERY_COMP_CNTR_CAPS,
			    UVERBS_ATTR_PTR_OUT(UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_MAX_COUNTERS,
						UVERBS_ATTR_TYPE(u32), UA_OPTIONAL),
			    UVERBS_ATTR_PTR_OUT(UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_MAX_VALUE,
						UVERBS_ATTR_TYPE(u64), UA_OPTIONAL),
			    UVERBS_ATTR_PTR_OUT(IB_COMP_CNTR_CAPS_OPS,
						UVERBS_ATTR_TYPE(u32), UA_OPTIONAL));

ADD_UVERBS_METHODS(ib_comp_cntr_device_methods,
		   UVERBS_OBJECT_DEVICE,
		   &UVERBS_METHOD(UVERBS_METHOD_QUERY_COMP_CNTR_CAPS));

DECLARE_UVERBS_NAMED_METHOD(UVERBS_METHOD_QP_ATTACH_COMP_CNTR,
			    UVERBS_ATTR_IDR(UVERBS_ATTR_QP_ATTACH_COMP_CNTR_HANDLE,
					    UVERBS_OBJECT_QP, UVERBS_ACCESS_WRITE, UA_MANDATORY),
			    UVERBS_ATTR_IDR(UVERBS_ATTR_QP_ATTACH_COMP_CNTR_CNTR_HANDLE,
					    UVERBS_OBJECT_COMP_CNTR, UVERBS_ACCESS_READ,
					    UA_MANDATORY),
			    UVERBS_ATTR_FLAGS_IN(UVERBS_ATTR_QP_ATTACH_COMP_CNTR_OP_MASK,
						 enum ib_uverbs_qp_attach_comp_cntr_op,
						 UA_MANDATORY));

ADD_UVERBS_METHODS(ib_comp_cntr_qp_methods,
		   UVERBS_OBJECT_QP,
		   &UVERBS_METHOD(UVERBS_METHOD_QP_ATTACH_COMP_CNTR));

DECLARE_UVERBS_NAMED_METHOD(UVERBS_METHOD_COMP_CNTR_CREATE,
			    UVERBS_ATTR_IDR(UVERBS_ATTR_CREATE_COMP_CNTR_HANDLE,
					    UVERBS_OBJECT_COMP_CNTR, UVERBS_ACCESS_NEW,
					    UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD_DESTROY(UVERBS_METHOD_COMP_CNTR_DESTROY,
				    UVERBS_ATTR_IDR(UVERBS_ATTR_DESTROY_COMP_CNTR_HANDLE,
						    UVERBS_OBJECT_COMP_CNTR, UVERBS_ACCESS_DESTROY,
						    UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD(UVERBS_METHOD_COMP_CNTR_MODIFY,
			    UVERBS_ATTR_IDR(UVERBS_ATTR_MODIFY_COMP_CNTR_HANDLE,
					    UVERBS_OBJECT_COMP_CNTR, UVERBS_ACCESS_WRITE,
					    UA_MANDATORY),
			    UVERBS_ATTR_CONST_IN(UVERBS_ATTR_MODIFY_COMP_CNTR_ENTRY,
						 enum ib_uverbs_comp_cntr_entry, UA_MANDATORY),
			    UVERBS_ATTR_CONST_IN(UVERBS_ATTR_MODIFY_COMP_CNTR_OP,
						 enum ib_uverbs_comp_cntr_modify_op, UA_MANDATORY),
			    UVERBS_ATTR_PTR_IN(UVERBS_ATTR_MODIFY_COMP_CNTR_VALUE,
					       UVERBS_ATTR_TYPE(u64), UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD(UVERBS_METHOD_COMP_CNTR_READ,
			    UVERBS_ATTR_IDR(UVERBS_ATTR_READ_COMP_CNTR_HANDLE,
					    UVERBS_OBJECT_COMP_CNTR, UVERBS_ACCESS_READ,
					    UA_MANDATORY),
			    UVERBS_ATTR_CONST_IN(UVERBS_ATTR_READ_COMP_CNTR_ENTRY,
						 enum ib_uverbs_comp_cntr_entry, UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(UVERBS_ATTR_READ_COMP_CNTR_RESP_VALUE,
						UVERBS_ATTR_TYPE(u64), UA_MANDATORY));

DECLARE_UVERBS_NAMED_OBJECT(UVERBS_OBJECT_COMP_CNTR,
			    UVERBS_TYPE_ALLOC_IDR(ib_comp_cntr_free),
			    &UVERBS_METHOD(UVERBS_METHOD_COMP_CNTR_CREATE),
			    &UVERBS_METHOD(UVERBS_METHOD_COMP_CNTR_DESTROY),
			    &UVERBS_METHOD(UVERBS_METHOD_COMP_CNTR_MODIFY),
			    &UVERBS_METHOD(UVERBS_METHOD_COMP_CNTR_READ));

const struct uapi_definition ib_comp_cntr_uapi_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(UVERBS_OBJECT_COMP_CNTR),
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_DEVICE,
				&ib_comp_cntr_device_methods),
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_QP, &ib_comp_cntr_qp_methods),
	{}
};
