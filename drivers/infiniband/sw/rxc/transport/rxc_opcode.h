/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The BTH opcodes rxc sends and accepts, and what each one implies.
 *
 * A BTH opcode is a transport service (top three bits) plus an operation
 * (low five bits).  One table, indexed by opcode, gives each opcode's
 * properties; the requester, the responder, the completer and the parser
 * test those properties instead of switching on opcodes.
 */
#ifndef RXC_OPCODE_H
#define RXC_OPCODE_H

#include <linux/bits.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>

#include "net/rxc_hdr.h"

/* Transport services, as the top three bits of an opcode. */
#define RXC_SVC_RC		0x00
#define RXC_SVC_UC		0x20
#define RXC_SVC_UD		0x60

/* Operations, as the low five bits of an opcode (the IBA numbers). */
enum rxc_opc {
	RXC_OPC_SEND_FIRST		= 0x00,
	RXC_OPC_SEND_MIDDLE		= 0x01,
	RXC_OPC_SEND_LAST		= 0x02,
	RXC_OPC_SEND_LAST_IMM		= 0x03,
	RXC_OPC_SEND_ONLY		= 0x04,
	RXC_OPC_SEND_ONLY_IMM		= 0x05,
	RXC_OPC_WRITE_FIRST		= 0x06,
	RXC_OPC_WRITE_MIDDLE		= 0x07,
	RXC_OPC_WRITE_LAST		= 0x08,
	RXC_OPC_WRITE_LAST_IMM		= 0x09,
	RXC_OPC_WRITE_ONLY		= 0x0a,
	RXC_OPC_WRITE_ONLY_IMM		= 0x0b,
	RXC_OPC_READ_REQUEST		= 0x0c,
	RXC_OPC_READ_RESP_FIRST		= 0x0d,
	RXC_OPC_READ_RESP_MIDDLE	= 0x0e,
	RXC_OPC_READ_RESP_LAST		= 0x0f,
	RXC_OPC_READ_RESP_ONLY		= 0x10,
	RXC_OPC_ACK			= 0x11,
	RXC_OPC_ATOMIC_ACK		= 0x12,
	RXC_OPC_COMPARE_SWAP		= 0x13,
	RXC_OPC_FETCH_ADD		= 0x14,
	RXC_OPC_SEND_LAST_INV		= 0x16,
	RXC_OPC_SEND_ONLY_INV		= 0x17,
	RXC_OPC_ATOMIC_WRITE		= 0x1d,
};

/* The opcode of operation @op on service @svc: RXC_OPCODE(RC, ACK) is 0x11. */
#define RXC_OPCODE(svc, op)	(RXC_SVC_##svc | RXC_OPC_##op)

/*
 * Opcode properties (struct rxc_opcode_info.mask and rxc_pkt_info.mask).
 *
 * Headers: the extension headers that follow the BTH, one bit per enum
 * rxc_hdr.  PAYLOAD: the packet may carry a payload (possibly empty);
 * without it, the packet ends with its headers.
 *
 * Direction: REQ goes from requester to responder, RESP back.  ACK marks
 * the two pure acknowledgments (ACKNOWLEDGE and ATOMIC ACKNOWLEDGE), which
 * carry no read data.
 *
 * Position in the message: FIRST, MIDDLE, LAST; ONLY is FIRST | LAST.
 *
 * Operation: SEND, WRITE, READ (requests and responses), ATOMIC
 * (compare-and-swap, fetch-and-add and their acknowledgment), ATOMIC_WRITE.
 *
 * RECV_WQE: the responder needs a receive WQE for the message (sends, and
 * RDMA writes with immediate); the message's LAST packet completes it.
 * ACK_REQ: the requester always sets AckReq on this packet (the last packet
 * of every RC request).  It may set it on others too, to get timely ACKs.
 */
#define RXC_OPF_DETH		BIT(RXC_HDR_DETH)
#define RXC_OPF_RETH		BIT(RXC_HDR_RETH)
#define RXC_OPF_ATMETH		BIT(RXC_HDR_ATMETH)
#define RXC_OPF_AETH		BIT(RXC_HDR_AETH)
#define RXC_OPF_ATMACK		BIT(RXC_HDR_ATMACK)
#define RXC_OPF_IMMDT		BIT(RXC_HDR_IMMDT)
#define RXC_OPF_IETH		BIT(RXC_HDR_IETH)
#define RXC_OPF_HDRS		GENMASK(RXC_NUM_HDRS - 1, 0)
#define RXC_OPF_PAYLOAD		BIT(8)
#define RXC_OPF_REQ		BIT(9)
#define RXC_OPF_RESP		BIT(10)
#define RXC_OPF_ACK		BIT(11)
#define RXC_OPF_FIRST		BIT(12)
#define RXC_OPF_MIDDLE		BIT(13)
#define RXC_OPF_LAST		BIT(14)
#define RXC_OPF_ONLY		(RXC_OPF_FIRST | RXC_OPF_LAST)
#define RXC_OPF_POSITION	(RXC_OPF_ONLY | RXC_OPF_MIDDLE)
#define RXC_OPF_SEND		BIT(15)
#define RXC_OPF_WRITE		BIT(16)
#define RXC_OPF_READ		BIT(17)
#define RXC_OPF_ATOMIC		BIT(18)
#define RXC_OPF_ATOMIC_WRITE	BIT(19)
#define RXC_OPF_OPERATION	(RXC_OPF_SEND | RXC_OPF_WRITE | RXC_OPF_READ | \
				 RXC_OPF_ATOMIC | RXC_OPF_ATOMIC_WRITE)
#define RXC_OPF_RECV_WQE	BIT(20)
#define RXC_OPF_ACK_REQ		BIT(21)

/**
 * struct rxc_opcode_info - what one BTH opcode implies
 * @name: for debug messages, e.g. "RC_SEND_ONLY"
 * @mask: RXC_OPF_* properties; 0 for opcodes rxc does not know
 * @hdr_len: bytes of the BTH and all the extension headers
 * @off: offset of each extension header from the start of the BTH, or 0
 *	 when the opcode does not carry it (the BTH itself is at 0)
 */
struct rxc_opcode_info {
	const char *name;
	u32 mask;
	u8 hdr_len;
	u8 off[RXC_NUM_HDRS];
};

/* What a requester sends, before it is split into packets. */
enum rxc_req_op {
	RXC_REQ_SEND,
	RXC_REQ_SEND_IMM,
	RXC_REQ_SEND_INV,
	RXC_REQ_WRITE,
	RXC_REQ_WRITE_IMM,
	RXC_REQ_READ,
	RXC_REQ_COMPARE_SWAP,
	RXC_REQ_FETCH_ADD,
	RXC_REQ_ATOMIC_WRITE,
	RXC_NUM_REQ_OPS
};

/* Where a packet sits in its message. */
enum rxc_pkt_pos {
	RXC_POS_FIRST,
	RXC_POS_MIDDLE,
	RXC_POS_LAST,
	RXC_POS_ONLY,
	RXC_NUM_POS
};

const struct rxc_opcode_info *rxc_opcode_info(u8 opcode);
const char *rxc_opcode_name(u8 opcode);
int rxc_req_opcode(enum ib_qp_type qp_type, enum rxc_req_op op,
		   enum rxc_pkt_pos pos);

#endif /* RXC_OPCODE_H */
