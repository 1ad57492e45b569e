// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The opcode table, and the requester's choice of opcode.
 *
 * Each entry names the extension headers its opcode carries, in wire
 * order, and its other properties.  The entry macros derive the header
 * bits, offsets and length from those names, so they cannot disagree.
 */
#include <linux/errno.h>
#include <kunit/visibility.h>

#include "rxc_opcode.h"

/*
 * An opcode whose BTH is followed by no extension header, by @a, or by @a
 * then @b; @m holds its properties other than headers.
 */
#define RXC_OP0(svc, op, m)						\
	[RXC_OPCODE(svc, op)] = {					\
		.name = #svc "_" #op,					\
		.mask = (m),						\
		.hdr_len = RXC_BTH_SIZE,				\
	}

#define RXC_OP1(svc, op, a, m)						\
	[RXC_OPCODE(svc, op)] = {					\
		.name = #svc "_" #op,					\
		.mask = (m) | RXC_OPF_##a,				\
		.hdr_len = RXC_BTH_SIZE + RXC_##a##_SIZE,		\
		.off = { [RXC_HDR_##a] = RXC_BTH_SIZE },		\
	}

#define RXC_OP2(svc, op, a, b, m)					\
	[RXC_OPCODE(svc, op)] = {					\
		.name = #svc "_" #op,					\
		.mask = (m) | RXC_OPF_##a | RXC_OPF_##b,		\
		.hdr_len = RXC_BTH_SIZE + RXC_##a##_SIZE + RXC_##b##_SIZE, \
		.off = {						\
			[RXC_HDR_##a] = RXC_BTH_SIZE,			\
			[RXC_HDR_##b] = RXC_BTH_SIZE + RXC_##a##_SIZE,	\
		},							\
	}

/* Shorthands for the table below. */
#define P_SEND		(RXC_OPF_REQ | RXC_OPF_SEND | RXC_OPF_PAYLOAD | \
			 RXC_OPF_RECV_WQE)
#define P_WRITE		(RXC_OPF_REQ | RXC_OPF_WRITE | RXC_OPF_PAYLOAD)
#define P_WRITE_IMM	(P_WRITE | RXC_OPF_RECV_WQE)
#define P_READ_RESP	(RXC_OPF_RESP | RXC_OPF_READ | RXC_OPF_PAYLOAD)
#define P_ACK		(RXC_OPF_RESP | RXC_OPF_ACK | RXC_OPF_ONLY)
/* An RC request's last packet always asks for an ACK. */
#define P_RC_LAST	(RXC_OPF_LAST | RXC_OPF_ACK_REQ)
#define P_RC_ONLY	(RXC_OPF_ONLY | RXC_OPF_ACK_REQ)
#define P_RC_ATOMIC	(RXC_OPF_REQ | RXC_OPF_ATOMIC | P_RC_ONLY)
#define P_ATOMIC_WRITE	(RXC_OPF_REQ | RXC_OPF_ATOMIC_WRITE | \
			 RXC_OPF_PAYLOAD | P_RC_ONLY)

static const struct rxc_opcode_info rxc_opcodes[256] = {
	RXC_OP0(RC, SEND_FIRST, P_SEND | RXC_OPF_FIRST),
	RXC_OP0(RC, SEND_MIDDLE, P_SEND | RXC_OPF_MIDDLE),
	RXC_OP0(RC, SEND_LAST, P_SEND | P_RC_LAST),
	RXC_OP1(RC, SEND_LAST_IMM, IMMDT, P_SEND | P_RC_LAST),
	RXC_OP1(RC, SEND_LAST_INV, IETH, P_SEND | P_RC_LAST),
	RXC_OP0(RC, SEND_ONLY, P_SEND | P_RC_ONLY),
	RXC_OP1(RC, SEND_ONLY_IMM, IMMDT, P_SEND | P_RC_ONLY),
	RXC_OP1(RC, SEND_ONLY_INV, IETH, P_SEND | P_RC_ONLY),
	RXC_OP1(RC, WRITE_FIRST, RETH, P_WRITE | RXC_OPF_FIRST),
	RXC_OP0(RC, WRITE_MIDDLE, P_WRITE | RXC_OPF_MIDDLE),
	RXC_OP0(RC, WRITE_LAST, P_WRITE | P_RC_LAST),
	RXC_OP1(RC, WRITE_LAST_IMM, IMMDT, P_WRITE_IMM | P_RC_LAST),
	RXC_OP1(RC, WRITE_ONLY, RETH, P_WRITE | P_RC_ONLY),
	RXC_OP2(RC, WRITE_ONLY_IMM, RETH, IMMDT, P_WRITE_IMM | P_RC_ONLY),
	RXC_OP1(RC, READ_REQUEST, RETH, RXC_OPF_REQ | RXC_OPF_READ | P_RC_ONLY),
	RXC_OP1(RC, READ_RESP_FIRST, AETH, P_READ_RESP | RXC_OPF_FIRST),
	RXC_OP0(RC, READ_RESP_MIDDLE, P_READ_RESP | RXC_OPF_MIDDLE),
	RXC_OP1(RC, READ_RESP_LAST, AETH, P_READ_RESP | RXC_OPF_LAST),
	RXC_OP1(RC, READ_RESP_ONLY, AETH, P_READ_RESP | RXC_OPF_ONLY),
	RXC_OP1(RC, ACK, AETH, P_ACK),
	RXC_OP2(RC, ATOMIC_ACK, AETH, ATMACK, P_ACK | RXC_OPF_ATOMIC),
	RXC_OP1(RC, COMPARE_SWAP, ATMETH, P_RC_ATOMIC),
	RXC_OP1(RC, FETCH_ADD, ATMETH, P_RC_ATOMIC),
	/* The 8-byte value travels as payload; the responder ACKs it. */
	RXC_OP1(RC, ATOMIC_WRITE, RETH, P_ATOMIC_WRITE),

	RXC_OP0(UC, SEND_FIRST, P_SEND | RXC_OPF_FIRST),
	RXC_OP0(UC, SEND_MIDDLE, P_SEND | RXC_OPF_MIDDLE),
	RXC_OP0(UC, SEND_LAST, P_SEND | RXC_OPF_LAST),
	RXC_OP1(UC, SEND_LAST_IMM, IMMDT, P_SEND | RXC_OPF_LAST),
	RXC_OP0(UC, SEND_ONLY, P_SEND | RXC_OPF_ONLY),
	RXC_OP1(UC, SEND_ONLY_IMM, IMMDT, P_SEND | RXC_OPF_ONLY),
	RXC_OP1(UC, WRITE_FIRST, RETH, P_WRITE | RXC_OPF_FIRST),
	RXC_OP0(UC, WRITE_MIDDLE, P_WRITE | RXC_OPF_MIDDLE),
	RXC_OP0(UC, WRITE_LAST, P_WRITE | RXC_OPF_LAST),
	RXC_OP1(UC, WRITE_LAST_IMM, IMMDT, P_WRITE_IMM | RXC_OPF_LAST),
	RXC_OP1(UC, WRITE_ONLY, RETH, P_WRITE | RXC_OPF_ONLY),
	RXC_OP2(UC, WRITE_ONLY_IMM, RETH, IMMDT, P_WRITE_IMM | RXC_OPF_ONLY),

	RXC_OP1(UD, SEND_ONLY, DETH, P_SEND | RXC_OPF_ONLY),
	RXC_OP2(UD, SEND_ONLY_IMM, DETH, IMMDT, P_SEND | RXC_OPF_ONLY),
};

/*
 * The operation (low five bits) of each packet of each request.  The
 * service bits come from the QP type; the table above then says whether
 * the service has that opcode.  RXC_OPC_NONE is reserved in every service,
 * so it never names a table entry.
 */
#define RXC_OPC_NONE	0x1f

static const u8 rxc_req_opc[RXC_NUM_REQ_OPS][RXC_NUM_POS] = {
	[RXC_REQ_SEND] = {
		RXC_OPC_SEND_FIRST, RXC_OPC_SEND_MIDDLE,
		RXC_OPC_SEND_LAST, RXC_OPC_SEND_ONLY,
	},
	[RXC_REQ_SEND_IMM] = {
		RXC_OPC_SEND_FIRST, RXC_OPC_SEND_MIDDLE,
		RXC_OPC_SEND_LAST_IMM, RXC_OPC_SEND_ONLY_IMM,
	},
	[RXC_REQ_SEND_INV] = {
		RXC_OPC_SEND_FIRST, RXC_OPC_SEND_MIDDLE,
		RXC_OPC_SEND_LAST_INV, RXC_OPC_SEND_ONLY_INV,
	},
	[RXC_REQ_WRITE] = {
		RXC_OPC_WRITE_FIRST, RXC_OPC_WRITE_MIDDLE,
		RXC_OPC_WRITE_LAST, RXC_OPC_WRITE_ONLY,
	},
	[RXC_REQ_WRITE_IMM] = {
		RXC_OPC_WRITE_FIRST, RXC_OPC_WRITE_MIDDLE,
		RXC_OPC_WRITE_LAST_IMM, RXC_OPC_WRITE_ONLY_IMM,
	},
	[RXC_REQ_READ] = {
		RXC_OPC_NONE, RXC_OPC_NONE,
		RXC_OPC_NONE, RXC_OPC_READ_REQUEST,
	},
	[RXC_REQ_COMPARE_SWAP] = {
		RXC_OPC_NONE, RXC_OPC_NONE,
		RXC_OPC_NONE, RXC_OPC_COMPARE_SWAP,
	},
	[RXC_REQ_FETCH_ADD] = {
		RXC_OPC_NONE, RXC_OPC_NONE,
		RXC_OPC_NONE, RXC_OPC_FETCH_ADD,
	},
	[RXC_REQ_ATOMIC_WRITE] = {
		RXC_OPC_NONE, RXC_OPC_NONE,
		RXC_OPC_NONE, RXC_OPC_ATOMIC_WRITE,
	},
};

/**
 * rxc_opcode_info - the properties of a BTH opcode
 * @opcode: any byte, such as one read from a received packet
 *
 * Return: the table entry, or NULL if rxc does not know @opcode.
 */
const struct rxc_opcode_info *rxc_opcode_info(u8 opcode)
{
	const struct rxc_opcode_info *info = &rxc_opcodes[opcode];

	return info->mask ? info : NULL;
}
EXPORT_SYMBOL_IF_KUNIT(rxc_opcode_info);

/* For debug messages: never NULL. */
const char *rxc_opcode_name(u8 opcode)
{
	const struct rxc_opcode_info *info = rxc_opcode_info(opcode);

	return info ? info->name : "UNKNOWN";
}
EXPORT_SYMBOL_IF_KUNIT(rxc_opcode_name);

/**
 * rxc_req_opcode - the opcode of one packet of a request
 * @qp_type: the sending QP's type (RC, UC, UD or GSI)
 * @op: the operation
 * @pos: where the packet sits in the message
 *
 * Return: the BTH opcode, or -EINVAL if @qp_type has no such packet (a UD
 * write, a UC read, the first packet of a read request, ...).
 */
int rxc_req_opcode(enum ib_qp_type qp_type, enum rxc_req_op op,
		   enum rxc_pkt_pos pos)
{
	u8 svc, opcode;

	if ((unsigned int)op >= RXC_NUM_REQ_OPS ||
	    (unsigned int)pos >= RXC_NUM_POS)
		return -EINVAL;

	switch (qp_type) {
	case IB_QPT_RC:
		svc = RXC_SVC_RC;
		break;
	case IB_QPT_UC:
		svc = RXC_SVC_UC;
		break;
	case IB_QPT_UD:
	case IB_QPT_GSI:
		svc = RXC_SVC_UD;
		break;
	default:
		return -EINVAL;
	}

	/*
	 * A service offers an operation if it has the operation's
	 * single-packet form.  Without this check, UC would accept the first
	 * packets of a send with invalidate, which are plain send packets.
	 */
	opcode = svc | rxc_req_opc[op][RXC_POS_ONLY];
	if (!(rxc_opcodes[opcode].mask & RXC_OPF_REQ))
		return -EINVAL;

	opcode = svc | rxc_req_opc[op][pos];
	if (!(rxc_opcodes[opcode].mask & RXC_OPF_REQ))
		return -EINVAL;
	return opcode;
}
EXPORT_SYMBOL_IF_KUNIT(rxc_req_opcode);
