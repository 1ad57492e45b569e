// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * librxc's constants and the ioctls it issues agree with the upstream
 * values, written here as literal numbers (rdma-core 65 verbs.h, the
 * kernel's ib_user_ioctl_cmds.h / ib_user_ioctl_verbs.h) and with rxc's
 * driver ABI (rdma/rxc-abi.h).
 *
 * Runs on any host, without an RDMA device: the program links the
 * library's objects with ioctl() wrapped (-Wl,--wrap=ioctl), so every
 * verb's ioctl is captured, checked attribute by attribute and answered
 * here.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "../lib/rxc.h"
#include "../lib/ioctl.h"
#include "../lib/uapi.h"
#include "tap.h"

/* Upstream API values: the enums are the numbers rdma-core 65 uses. */
_Static_assert(IBV_QP_ATTACH_COMP_CNTR_OP_SEND == 1, "op SEND");
_Static_assert(IBV_QP_ATTACH_COMP_CNTR_OP_RECV == 2, "op RECV");
_Static_assert(IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_READ == 4, "op READ");
_Static_assert(IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ == 8, "op RREAD");
_Static_assert(IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE == 16, "op WRITE");
_Static_assert(IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE == 32, "op RWRITE");
_Static_assert(IBV_COMP_CNTR_TYPE_WRS == 0 && IBV_COMP_CNTR_TYPE_BYTES == 1,
	       "types");
/* The library passes these through unchanged, so they must be equal. */
#define EQ(a, b) ((long)(a) == (long)(b))
_Static_assert(EQ(IBV_QP_ATTACH_COMP_CNTR_OP_SEND,
	       IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_SEND) &&
	       EQ(IBV_QP_ATTACH_COMP_CNTR_OP_RECV,
	       IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RECV) &&
	       EQ(IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_READ,
	       IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RDMA_READ) &&
	       EQ(IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ,
	       IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ) &&
	       EQ(IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE,
	       IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE) &&
	       EQ(IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE,
	       IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE),
	       "op bits equal the kernel's");
_Static_assert(EQ(IBV_COMP_CNTR_TYPE_WRS, RXC_COMP_CNTR_TYPE_WRS) &&
	       EQ(IBV_COMP_CNTR_TYPE_BYTES, RXC_COMP_CNTR_TYPE_BYTES),
	       "types equal the driver's");

/* Upstream struct layouts (x86_64, as rdma-core 65 lays them out). */
_Static_assert(sizeof(struct ibv_comp_cntr_caps) == 16 &&
	       offsetof(struct ibv_comp_cntr_caps, max_value) == 0 &&
	       offsetof(struct ibv_comp_cntr_caps, max_counters) == 8 &&
	       offsetof(struct ibv_comp_cntr_caps, supported_qp_attach_ops) == 12,
	       "ibv_comp_cntr_caps");
_Static_assert(offsetof(struct ibv_comp_cntr, context) == 0 &&
	       offsetof(struct ibv_comp_cntr, handle) == sizeof(void *),
	       "ibv_comp_cntr");
_Static_assert(sizeof(struct ibv_comp_cntr_init_attr) == 12 &&
	       offsetof(struct ibv_comp_cntr_init_attr, type) == 4 &&
	       offsetof(struct ibv_comp_cntr_init_attr, flags) == 8,
	       "ibv_comp_cntr_init_attr");
_Static_assert(sizeof(struct ibv_qp_attach_comp_cntr_attr) == 8 &&
	       offsetof(struct ibv_qp_attach_comp_cntr_attr, op_mask) == 4,
	       "ibv_qp_attach_comp_cntr_attr");

/* Raw uverbs numbers, upstream. */
_Static_assert(RDMA_VERBS_IOCTL == 0xc0181b01UL, "RDMA_VERBS_IOCTL");
_Static_assert(sizeof(struct ib_uverbs_ioctl_hdr) == 24 &&
	       sizeof(struct ib_uverbs_attr) == 16, "ioctl layout");
_Static_assert(sizeof(struct ib_uverbs_buffer_desc) == 32 &&
	       offsetof(struct ib_uverbs_buffer_desc, addr) == 16 &&
	       offsetof(struct ib_uverbs_buffer_desc, length) == 24,
	       "ib_uverbs_buffer_desc");
_Static_assert(IB_UVERBS_BUFFER_TYPE_DMABUF == 0 &&
	       IB_UVERBS_BUFFER_TYPE_VA == 1, "buffer types");
_Static_assert(sizeof(struct rxc_comp_cntr_create_resp) == 40,
	       "rxc create response");

/* The last ioctl the library issued, and how to answer the next one. */
static struct {
	unsigned long request;
	int fd;
	struct ib_uverbs_ioctl_hdr hdr;
	struct ib_uverbs_attr attrs[RXC_IOCTL_MAX_ATTRS];
	/* What pointer attributes of up to 64 bytes pointed at. */
	unsigned char payload[RXC_IOCTL_MAX_ATTRS][64];
	unsigned int calls;
	int fail_errno;			/* answer with -1 and this errno */
	uint32_t new_handle;		/* returned for a created object */
} cap;

int __wrap_ioctl(int fd, unsigned long request, ...);

int __wrap_ioctl(int fd, unsigned long request, ...)
{
	struct ib_uverbs_ioctl_hdr *hdr;
	unsigned int i;
	va_list ap;

	va_start(ap, request);
	hdr = va_arg(ap, struct ib_uverbs_ioctl_hdr *);
	va_end(ap);

	cap.calls++;
	cap.fd = fd;
	cap.request = request;
	memcpy(&cap.hdr, hdr, sizeof(*hdr));
	memset(cap.attrs, 0, sizeof(cap.attrs));
	for (i = 0; i < hdr->num_attrs && i < RXC_IOCTL_MAX_ATTRS; i++)
	{
		cap.attrs[i] = hdr->attrs[i];
		if (hdr->attrs[i].len > 8 && hdr->attrs[i].len <= 64)
			memcpy(cap.payload[i],
			       (void *)(uintptr_t)hdr->attrs[i].data,
			       hdr->attrs[i].len);
	}
	if (cap.fail_errno) {
		errno = cap.fail_errno;
		return -1;
	}
	/* Answer like the kernel: new handles, outputs left as they are. */
	for (i = 0; i < hdr->num_attrs; i++)
		if (hdr->object_id == 19 && hdr->method_id == 0 &&
		    hdr->attrs[i].attr_id == 0)
			hdr->attrs[i].data = cap.new_handle;
	return 0;
}

static struct ibv_context fake_ctx = { .cmd_fd = 1234 };

/* The attribute @id of the captured ioctl, or NULL with a failure. */
static const struct ib_uverbs_attr *attr(uint16_t id)
{
	unsigned int i;

	for (i = 0; i < cap.hdr.num_attrs; i++)
		if (cap.attrs[i].attr_id == id)
			return &cap.attrs[i];
	FAIL("attribute %#x missing from object %u method %#x", id,
	     cap.hdr.object_id, cap.hdr.method_id);
	return NULL;
}

static void check_hdr(uint16_t object, uint16_t method, uint16_t num_attrs)
{
	CHECK_EQ(cap.request, 0xc0181b01UL);
	CHECK_EQ(cap.fd, 1234);
	CHECK_EQ(cap.hdr.object_id, object);
	CHECK_EQ(cap.hdr.method_id, method);
	CHECK_EQ(cap.hdr.num_attrs, num_attrs);
	CHECK_EQ(cap.hdr.length, 24 + 16 * num_attrs);
	CHECK_EQ(cap.hdr.driver_id, RDMA_DRIVER_RXE);
	CHECK_EQ(cap.hdr.reserved1, 0);
	CHECK_EQ(cap.hdr.reserved2, 0);
}

/* An inline input of @len bytes holding @val. */
static void check_in(uint16_t id, uint16_t len, uint64_t val)
{
	const struct ib_uverbs_attr *a = attr(id);
	uint64_t got = 0;

	if (!a)
		return;
	CHECK_EQ(a->len, len);
	CHECK_EQ(a->flags, UVERBS_ATTR_F_MANDATORY);
	memcpy(&got, &a->data, len);
	CHECK(got == val, "attribute %#x holds %#llx, expected %#llx", id,
	      (unsigned long long)got, (unsigned long long)val);
}

static void check_idr(uint16_t id, uint64_t handle)
{
	const struct ib_uverbs_attr *a = attr(id);

	if (!a)
		return;
	CHECK_EQ(a->len, 0);
	CHECK_EQ(a->data, handle);
}

static void check_ptr(uint16_t id, uint16_t len)
{
	const struct ib_uverbs_attr *a = attr(id);

	if (!a)
		return;
	CHECK_EQ(a->len, len);
	CHECK(a->data != 0, "attribute %#x has no pointer", id);
}

static struct ibv_comp_cntr *create(enum ibv_comp_cntr_type type)
{
	struct ibv_comp_cntr_init_attr init = { .type = type };

	cap.new_handle = 77;
	return ibv_create_comp_cntr(&fake_ctx, &init);
}

static void create_sends_object_19_method_0_with_type_and_response(void)
{
	struct ibv_comp_cntr *c = create(IBV_COMP_CNTR_TYPE_BYTES);

	if (!CHECK(c != NULL, "create failed: %s", err_name(errno)))
		return;
	check_hdr(19, 0, 3);
	check_idr(0, 0);
	check_in(0x1002, 4, 1);
	check_ptr(0x1003, 40);
	CHECK_EQ(c->handle, 77);
	CHECK(c->context == &fake_ctx, "context not set");
	CHECK_OK(ibv_destroy_comp_cntr(c));
	check_hdr(19, 1, 1);
	check_idr(0, 77);
}

static void modify_and_read_send_entry_op_and_value(void)
{
	struct ibv_comp_cntr *c = create(IBV_COMP_CNTR_TYPE_WRS);
	uint64_t v;

	if (!CHECK(c != NULL, "create failed: %s", err_name(errno)))
		return;
	check_in(0x1002, 4, 0);
	CHECK_OK(ibv_set_comp_cntr(c, 5));
	check_hdr(19, 2, 4);
	check_idr(0, 77);
	check_in(1, 8, 0);
	check_in(2, 8, 0);
	check_in(3, 8, 5);
	CHECK_OK(ibv_set_err_comp_cntr(c, 6));
	check_in(1, 8, 1);
	check_in(2, 8, 0);
	check_in(3, 8, 6);
	CHECK_OK(ibv_inc_comp_cntr(c, 7));
	check_in(1, 8, 0);
	check_in(2, 8, 1);
	check_in(3, 8, 7);
	CHECK_OK(ibv_inc_err_comp_cntr(c, 8));
	check_in(1, 8, 1);
	check_in(2, 8, 1);
	check_in(3, 8, 8);
	CHECK_OK(ibv_read_comp_cntr(c, &v));
	check_hdr(19, 3, 3);
	check_idr(0, 77);
	check_in(1, 8, 0);
	check_ptr(2, 8);
	CHECK_OK(ibv_read_err_comp_cntr(c, &v));
	check_in(1, 8, 1);
	CHECK_OK(ibv_destroy_comp_cntr(c));
}

static void caps_use_device_method_8(void)
{
	struct ibv_comp_cntr_caps caps;

	CHECK_OK(ibv_query_comp_cntr_caps(&fake_ctx, &caps));
	check_hdr(0, 8, 3);
	check_ptr(0, 4);
	check_ptr(1, 8);
	check_ptr(2, 4);
}

static void attach_uses_qp_method_2_and_passes_the_mask_unchanged(void)
{
	struct ibv_qp qp = { .context = &fake_ctx, .handle = 5 };
	struct ibv_comp_cntr c = { .context = &fake_ctx, .handle = 9 };
	struct ibv_qp_attach_comp_cntr_attr a = {
		.op_mask = IBV_QP_ATTACH_COMP_CNTR_OP_RECV |
			   IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE,
	};

	CHECK_OK(ibv_qp_attach_comp_cntr(&qp, &c, &a));
	check_hdr(4, 2, 3);	/* UVERBS_OBJECT_QP */
	check_idr(0, 5);
	check_idr(1, 9);
	check_in(2, 4, 0x22);
}

static void dv_create_sends_buffer_descriptors(void)
{
	static uint64_t comp __attribute__((aligned(8)));
	struct ibv_comp_cntr_init_attr init = {};
	struct rxcdv_comp_cntr_init_attr dv = {
		.flags = RXCDV_COMP_CNTR_INIT_WITH_COMP_EXTERNAL_MEM |
			 RXCDV_COMP_CNTR_INIT_WITH_ERR_EXTERNAL_MEM,
		.comp_ext_mem = { .type = RXCDV_MEMORY_LOCATION_VA,
				  .ptr = &comp },
		.err_ext_mem = { .type = RXCDV_MEMORY_LOCATION_DMABUF,
				 .dmabuf_fd = 42, .dmabuf_offset = 64 },
	};
	const struct ib_uverbs_buffer_desc *d;
	const struct ib_uverbs_attr *a;
	struct ibv_comp_cntr *c;

	/* The descriptors live on the library's stack: check in the wrap. */
	c = rxcdv_create_comp_cntr(&fake_ctx, &init, &dv, sizeof(dv));
	if (!CHECK(c != NULL, "create failed: %s", err_name(errno)))
		return;
	check_hdr(19, 0, 5);
	a = attr(0x1000);
	if (a && CHECK_EQ(a->len, 32)) {
		d = (const void *)cap.payload[a - cap.attrs];
		CHECK_EQ(d->type, 1);
		CHECK_EQ(d->addr, (uintptr_t)&comp);
		CHECK_EQ(d->length, 8);
		CHECK_EQ(d->flags, 0);
	}
	a = attr(0x1001);
	if (a && CHECK_EQ(a->len, 32)) {
		d = (const void *)cap.payload[a - cap.attrs];
		CHECK_EQ(d->type, 0);
		CHECK_EQ(d->fd, 42);
		CHECK_EQ(d->addr, 64);
		CHECK_EQ(d->length, 8);
	}
	CHECK_OK(ibv_destroy_comp_cntr(c));
}

static void wait_and_notify_use_driver_methods(void)
{
	struct ibv_comp_cntr c = { .context = &fake_ctx, .handle = 3 };
	struct rxcdv_comp_cntr_wait_attr w = {
		.comp_mask = RXCDV_COMP_CNTR_WAIT_ATTR_ERR_BASE,
		.threshold = 10, .err_base = 2, .timeout_ms = 500,
	};
	struct rxcdv_comp_cntr_notify_attr n = {
		.threshold = 11, .fd = 17,
	};

	CHECK_OK(rxcdv_wait_comp_cntr(&c, &w, sizeof(w)));
	check_hdr(19, 0x1000, 6);
	/*
	 * WAIT's handle in an IDR attribute's form, which every rxc kernel
	 * takes (rxc-abi.h); rxc 1.0's kernel takes nothing else.
	 */
	check_idr(0x1000, 3);
	check_in(0x1001, 8, 10);
	check_in(0x1002, 8, 2);
	check_in(0x1003, 4, 500);
	check_ptr(0x1004, 8);
	check_ptr(0x1005, 8);
	CHECK_OK(rxcdv_notify_comp_cntr(&c, &n, sizeof(n)));
	check_hdr(19, 0x1001, 3);
	check_idr(0x1000, 3);
	check_in(0x1001, 4, 17);
	check_in(0x1002, 8, 11);
}

static void unknown_method_maps_to_eopnotsupp(void)
{
	struct ibv_comp_cntr c = { .context = &fake_ctx, .handle = 3 };
	struct rxcdv_comp_cntr_wait_attr w = {};
	uint64_t v;

	cap.fail_errno = EPROTONOSUPPORT;
	CHECK_RC(rxcdv_wait_comp_cntr(&c, &w, sizeof(w)), EOPNOTSUPP);
	CHECK_RC(ibv_read_comp_cntr(&c, &v), EOPNOTSUPP);
	cap.fail_errno = EBUSY;
	CHECK_RC(ibv_read_comp_cntr(&c, &v), EBUSY);
	cap.fail_errno = 0;
}

static void invalid_arguments_fail_before_any_ioctl(void)
{
	struct ibv_qp qp = { .context = &fake_ctx, .handle = 5 };
	struct ibv_comp_cntr c = { .context = &fake_ctx, .handle = 9 };
	struct ibv_qp_attach_comp_cntr_attr a = {
		.op_mask = IBV_QP_ATTACH_COMP_CNTR_OP_RECV | 1u << 9,
	};
	struct ibv_comp_cntr_init_attr init = {};
	struct ibv_comp_cntr_caps caps;
	unsigned int calls = cap.calls;

	init.comp_mask = 1;
	CHECK_NULL_ERRNO(ibv_create_comp_cntr(&fake_ctx, &init), EOPNOTSUPP);
	init.comp_mask = 0;
	init.flags = 1;
	CHECK_NULL_ERRNO(ibv_create_comp_cntr(&fake_ctx, &init), EINVAL);
	CHECK_RC(_ibv_query_comp_cntr_caps(&fake_ctx, &caps, 8), EINVAL);
	/*
	 * The kernel says EINVAL for a bit outside the six operations; the
	 * verb promises EOPNOTSUPP, as for an operation the device lacks.
	 */
	CHECK_RC(ibv_qp_attach_comp_cntr(&qp, &c, &a), EOPNOTSUPP);
	CHECK_EQ(cap.calls, calls);
}

static const struct tap_case tests[] = {
	TAP_CASE(create_sends_object_19_method_0_with_type_and_response),
	TAP_CASE(modify_and_read_send_entry_op_and_value),
	TAP_CASE(caps_use_device_method_8),
	TAP_CASE(attach_uses_qp_method_2_and_passes_the_mask_unchanged),
	TAP_CASE(dv_create_sends_buffer_descriptors),
	TAP_CASE(wait_and_notify_use_driver_methods),
	TAP_CASE(unknown_method_maps_to_eopnotsupp),
	TAP_CASE(invalid_arguments_fail_before_any_ioctl),
};

int main(void)
{
	return tap_run_cases("librxc abi", tests,
			     sizeof(tests) / sizeof(tests[0]));
}
