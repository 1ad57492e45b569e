// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The opcode table and the requester's opcode lookup, against opcode
 * numbers and header sizes taken from the InfiniBand specification
 * (volume 1, chapter 9), written here as plain numbers.
 */
#include <kunit/test.h>
#include <linux/bitops.h>

#include "transport/rxc_opcode.h"

#define NUM_KNOWN_OPCODES	38

/* Extension header sizes, by enum rxc_hdr. */
static const unsigned int iba_hdr_size[RXC_NUM_HDRS] = {
	[RXC_HDR_DETH] = 8,
	[RXC_HDR_RETH] = 16,
	[RXC_HDR_ATMETH] = 28,
	[RXC_HDR_AETH] = 4,
	[RXC_HDR_ATMACK] = 8,
	[RXC_HDR_IMMDT] = 4,
	[RXC_HDR_IETH] = 4,
};

static void expect_opcode(struct kunit *test, u8 opcode, const char *name,
			  u32 props)
{
	const struct rxc_opcode_info *info = rxc_opcode_info(opcode);

	KUNIT_ASSERT_NOT_NULL_MSG(test, info, "opcode 0x%02x", opcode);
	KUNIT_EXPECT_STREQ(test, info->name, name);
	KUNIT_EXPECT_EQ_MSG(test, info->mask & props, props, "%s", name);
}

static void opcodes_have_their_iba_numbers(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, RXC_OPCODE(RC, SEND_FIRST), 0x00);
	KUNIT_EXPECT_EQ(test, RXC_OPCODE(RC, SEND_ONLY), 0x04);
	KUNIT_EXPECT_EQ(test, RXC_OPCODE(RC, WRITE_ONLY), 0x0a);
	KUNIT_EXPECT_EQ(test, RXC_OPCODE(RC, READ_REQUEST), 0x0c);
	KUNIT_EXPECT_EQ(test, RXC_OPCODE(RC, READ_RESP_ONLY), 0x10);
	KUNIT_EXPECT_EQ(test, RXC_OPCODE(RC, ACK), 0x11);
	KUNIT_EXPECT_EQ(test, RXC_OPCODE(RC, ATOMIC_ACK), 0x12);
	KUNIT_EXPECT_EQ(test, RXC_OPCODE(RC, COMPARE_SWAP), 0x13);
	KUNIT_EXPECT_EQ(test, RXC_OPCODE(RC, FETCH_ADD), 0x14);
	KUNIT_EXPECT_EQ(test, RXC_OPCODE(RC, SEND_ONLY_INV), 0x17);
	KUNIT_EXPECT_EQ(test, RXC_OPCODE(RC, ATOMIC_WRITE), 0x1d);
	KUNIT_EXPECT_EQ(test, RXC_OPCODE(UC, SEND_ONLY), 0x24);
	KUNIT_EXPECT_EQ(test, RXC_OPCODE(UC, WRITE_ONLY_IMM), 0x2b);
	KUNIT_EXPECT_EQ(test, RXC_OPCODE(UD, SEND_ONLY), 0x64);
	KUNIT_EXPECT_EQ(test, RXC_OPCODE(UD, SEND_ONLY_IMM), 0x65);
}

static void table_describes_well_known_opcodes(struct kunit *test)
{
	expect_opcode(test, 0x04, "RC_SEND_ONLY",
		      RXC_OPF_REQ | RXC_OPF_SEND | RXC_OPF_ONLY |
		      RXC_OPF_PAYLOAD | RXC_OPF_RECV_WQE | RXC_OPF_ACK_REQ);
	expect_opcode(test, 0x0a, "RC_WRITE_ONLY",
		      RXC_OPF_REQ | RXC_OPF_WRITE | RXC_OPF_ONLY |
		      RXC_OPF_RETH | RXC_OPF_PAYLOAD);
	expect_opcode(test, 0x0c, "RC_READ_REQUEST",
		      RXC_OPF_REQ | RXC_OPF_READ | RXC_OPF_ONLY | RXC_OPF_RETH);
	expect_opcode(test, 0x0e, "RC_READ_RESP_MIDDLE",
		      RXC_OPF_RESP | RXC_OPF_READ | RXC_OPF_MIDDLE |
		      RXC_OPF_PAYLOAD);
	expect_opcode(test, 0x11, "RC_ACK",
		      RXC_OPF_RESP | RXC_OPF_ACK | RXC_OPF_AETH);
	expect_opcode(test, 0x12, "RC_ATOMIC_ACK",
		      RXC_OPF_RESP | RXC_OPF_ACK | RXC_OPF_ATOMIC |
		      RXC_OPF_AETH | RXC_OPF_ATMACK);
	expect_opcode(test, 0x14, "RC_FETCH_ADD",
		      RXC_OPF_REQ | RXC_OPF_ATOMIC | RXC_OPF_ATMETH);
	expect_opcode(test, 0x16, "RC_SEND_LAST_INV",
		      RXC_OPF_REQ | RXC_OPF_SEND | RXC_OPF_LAST | RXC_OPF_IETH);
	expect_opcode(test, 0x1d, "RC_ATOMIC_WRITE",
		      RXC_OPF_REQ | RXC_OPF_ATOMIC_WRITE | RXC_OPF_RETH |
		      RXC_OPF_PAYLOAD | RXC_OPF_ACK_REQ);
	expect_opcode(test, 0x29, "UC_WRITE_LAST_IMM",
		      RXC_OPF_REQ | RXC_OPF_WRITE | RXC_OPF_LAST |
		      RXC_OPF_IMMDT | RXC_OPF_RECV_WQE);
	expect_opcode(test, 0x64, "UD_SEND_ONLY",
		      RXC_OPF_REQ | RXC_OPF_SEND | RXC_OPF_ONLY | RXC_OPF_DETH);

	/* UC is unacknowledged: nothing asks for an ACK. */
	KUNIT_EXPECT_FALSE(test, rxc_opcode_info(0x22)->mask & RXC_OPF_ACK_REQ);
	/* A write without immediate never needs a receive WQE. */
	KUNIT_EXPECT_FALSE(test, rxc_opcode_info(0x0a)->mask & RXC_OPF_RECV_WQE);
}

static void table_knows_only_the_supported_opcodes(struct kunit *test)
{
	/* Resync, FLUSH, reserved, RD, UD multi-packet, CNP, vendor. */
	static const u8 unknown[] = {
		0x15, 0x18, 0x1c, 0x1e, 0x1f, 0x36, 0x37, 0x2c, 0x31,
		0x40, 0x44, 0x60, 0x66, 0x6a, 0x80, 0xc0, 0xff,
	};
	unsigned int known = 0;
	int i;

	for (i = 0; i < 256; i++)
		known += !!rxc_opcode_info(i);
	KUNIT_EXPECT_EQ(test, known, NUM_KNOWN_OPCODES);

	for (i = 0; i < ARRAY_SIZE(unknown); i++)
		KUNIT_EXPECT_NULL_MSG(test, rxc_opcode_info(unknown[i]),
				      "opcode 0x%02x", unknown[i]);
	KUNIT_EXPECT_STREQ(test, rxc_opcode_name(0x1c), "UNKNOWN");
	KUNIT_EXPECT_STREQ(test, rxc_opcode_name(0x65), "UD_SEND_ONLY_IMM");
}

static void header_lengths_match_the_iba_layouts(struct kunit *test)
{
	static const struct {
		u8 opcode;
		u8 hdr_len;
	} cases[] = {
		{ 0x04, 12 },	/* RC SEND ONLY: BTH */
		{ 0x05, 16 },	/* RC SEND ONLY with immediate: + ImmDt */
		{ 0x17, 16 },	/* RC SEND ONLY with invalidate: + IETH */
		{ 0x06, 28 },	/* RC RDMA WRITE FIRST: + RETH */
		{ 0x07, 12 },	/* RC RDMA WRITE MIDDLE */
		{ 0x0b, 32 },	/* RC RDMA WRITE ONLY with immediate */
		{ 0x0c, 28 },	/* RC RDMA READ request: + RETH */
		{ 0x0d, 16 },	/* RC READ RESPONSE FIRST: + AETH */
		{ 0x0e, 12 },	/* RC READ RESPONSE MIDDLE */
		{ 0x11, 16 },	/* RC ACKNOWLEDGE: + AETH */
		{ 0x12, 24 },	/* RC ATOMIC ACKNOWLEDGE: + AETH + AtomicAckETH */
		{ 0x13, 40 },	/* RC COMPARE SWAP: + AtomicETH */
		{ 0x1d, 28 },	/* RC ATOMIC WRITE: + RETH */
		{ 0x26, 28 },	/* UC RDMA WRITE FIRST */
		{ 0x64, 20 },	/* UD SEND ONLY: + DETH */
		{ 0x65, 24 },	/* UD SEND ONLY with immediate: + DETH + ImmDt */
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct rxc_opcode_info *info =
			rxc_opcode_info(cases[i].opcode);

		KUNIT_ASSERT_NOT_NULL(test, info);
		KUNIT_EXPECT_EQ_MSG(test, info->hdr_len, cases[i].hdr_len,
				    "%s", info->name);
	}
}

static void headers_sit_at_their_iba_offsets(struct kunit *test)
{
	const struct rxc_opcode_info *info;

	info = rxc_opcode_info(0x0b);	/* RC RDMA WRITE ONLY with immediate */
	KUNIT_EXPECT_EQ(test, info->off[RXC_HDR_RETH], 12);
	KUNIT_EXPECT_EQ(test, info->off[RXC_HDR_IMMDT], 28);

	info = rxc_opcode_info(0x12);	/* RC ATOMIC ACKNOWLEDGE */
	KUNIT_EXPECT_EQ(test, info->off[RXC_HDR_AETH], 12);
	KUNIT_EXPECT_EQ(test, info->off[RXC_HDR_ATMACK], 16);

	info = rxc_opcode_info(0x65);	/* UD SEND ONLY with immediate */
	KUNIT_EXPECT_EQ(test, info->off[RXC_HDR_DETH], 12);
	KUNIT_EXPECT_EQ(test, info->off[RXC_HDR_IMMDT], 20);

	info = rxc_opcode_info(0x16);	/* RC SEND LAST with invalidate */
	KUNIT_EXPECT_EQ(test, info->off[RXC_HDR_IETH], 12);
}

/*
 * Every header an opcode carries lies inside its header length, the
 * headers follow each other without gaps in IBA order, and headers it does
 * not carry have offset 0.
 */
static void extension_headers_lie_within_the_header_length(struct kunit *test)
{
	int op, h;

	for (op = 0; op < 256; op++) {
		const struct rxc_opcode_info *info = rxc_opcode_info(op);
		unsigned int end = 12;

		if (!info)
			continue;
		for (h = 0; h < RXC_NUM_HDRS; h++) {
			if (!(info->mask & BIT(h))) {
				KUNIT_EXPECT_EQ_MSG(test, info->off[h], 0,
						    "%s hdr %d", info->name, h);
				continue;
			}
			KUNIT_EXPECT_EQ_MSG(test, info->off[h], end,
					    "%s hdr %d", info->name, h);
			end = info->off[h] + iba_hdr_size[h];
			KUNIT_EXPECT_LE_MSG(test, end, info->hdr_len,
					    "%s hdr %d", info->name, h);
		}
		KUNIT_EXPECT_EQ_MSG(test, end, info->hdr_len, "%s", info->name);
		/* rxc_recv.c makes this much of every packet linear. */
		KUNIT_EXPECT_LE_MSG(test, info->hdr_len, RXC_MAX_HDR_LEN, "%s",
				    info->name);
	}
}

static void opcodes_have_one_direction_and_one_position(struct kunit *test)
{
	int op;

	for (op = 0; op < 256; op++) {
		const struct rxc_opcode_info *info = rxc_opcode_info(op);
		u32 m;

		if (!info)
			continue;
		m = info->mask;
		KUNIT_EXPECT_EQ_MSG(test,
				    hweight32(m & (RXC_OPF_REQ | RXC_OPF_RESP)),
				    1, "%s", info->name);
		KUNIT_EXPECT_TRUE_MSG(test,
				      (m & RXC_OPF_POSITION) == RXC_OPF_FIRST ||
				      (m & RXC_OPF_POSITION) == RXC_OPF_MIDDLE ||
				      (m & RXC_OPF_POSITION) == RXC_OPF_LAST ||
				      (m & RXC_OPF_POSITION) == RXC_OPF_ONLY,
				      "%s", info->name);
		KUNIT_EXPECT_LE_MSG(test, hweight32(m & RXC_OPF_OPERATION), 1,
				    "%s", info->name);
		/* Only a plain ACK has no operation. */
		if (!(m & RXC_OPF_OPERATION))
			KUNIT_EXPECT_EQ(test, op, 0x11);
		if (m & RXC_OPF_ACK)
			KUNIT_EXPECT_TRUE(test, m & RXC_OPF_RESP);
		if (m & RXC_OPF_ACK_REQ) {
			KUNIT_EXPECT_TRUE(test, m & RXC_OPF_REQ);
			KUNIT_EXPECT_TRUE(test, m & RXC_OPF_LAST);
			KUNIT_EXPECT_EQ(test, op & 0xe0, 0x00);
		}
		if (m & RXC_OPF_RECV_WQE)
			KUNIT_EXPECT_TRUE_MSG(test, (m & RXC_OPF_SEND) ||
					      (m & RXC_OPF_IMMDT),
					      "%s", info->name);
		/* UD packets, and only they, carry a DETH. */
		KUNIT_EXPECT_EQ_MSG(test, !!(m & RXC_OPF_DETH),
				    (op & 0xe0) == 0x60, "%s", info->name);
		/* Responses exist only on RC. */
		if (m & RXC_OPF_RESP)
			KUNIT_EXPECT_EQ(test, op & 0xe0, 0x00);
	}
}

static void req_opcode_picks_the_iba_opcodes(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rxc_req_opcode(IB_QPT_RC, RXC_REQ_SEND,
					     RXC_POS_ONLY), 0x04);
	KUNIT_EXPECT_EQ(test, rxc_req_opcode(IB_QPT_RC, RXC_REQ_SEND,
					     RXC_POS_FIRST), 0x00);
	KUNIT_EXPECT_EQ(test, rxc_req_opcode(IB_QPT_RC, RXC_REQ_SEND_INV,
					     RXC_POS_ONLY), 0x17);
	KUNIT_EXPECT_EQ(test, rxc_req_opcode(IB_QPT_RC, RXC_REQ_WRITE_IMM,
					     RXC_POS_LAST), 0x09);
	KUNIT_EXPECT_EQ(test, rxc_req_opcode(IB_QPT_RC, RXC_REQ_WRITE_IMM,
					     RXC_POS_MIDDLE), 0x07);
	KUNIT_EXPECT_EQ(test, rxc_req_opcode(IB_QPT_RC, RXC_REQ_READ,
					     RXC_POS_ONLY), 0x0c);
	KUNIT_EXPECT_EQ(test, rxc_req_opcode(IB_QPT_RC, RXC_REQ_COMPARE_SWAP,
					     RXC_POS_ONLY), 0x13);
	KUNIT_EXPECT_EQ(test, rxc_req_opcode(IB_QPT_RC, RXC_REQ_FETCH_ADD,
					     RXC_POS_ONLY), 0x14);
	KUNIT_EXPECT_EQ(test, rxc_req_opcode(IB_QPT_RC, RXC_REQ_ATOMIC_WRITE,
					     RXC_POS_ONLY), 0x1d);
	KUNIT_EXPECT_EQ(test, rxc_req_opcode(IB_QPT_UC, RXC_REQ_WRITE,
					     RXC_POS_FIRST), 0x26);
	KUNIT_EXPECT_EQ(test, rxc_req_opcode(IB_QPT_UD, RXC_REQ_SEND_IMM,
					     RXC_POS_ONLY), 0x65);
	KUNIT_EXPECT_EQ(test, rxc_req_opcode(IB_QPT_GSI, RXC_REQ_SEND,
					     RXC_POS_ONLY), 0x64);
}

static void req_opcode_rejects_packets_iba_lacks_with_einval(struct kunit *test)
{
	static const struct {
		enum ib_qp_type qpt;
		enum rxc_req_op op;
		enum rxc_pkt_pos pos;
	} cases[] = {
		{ IB_QPT_UD, RXC_REQ_SEND, RXC_POS_FIRST },
		{ IB_QPT_UD, RXC_REQ_WRITE, RXC_POS_ONLY },
		{ IB_QPT_UD, RXC_REQ_SEND_INV, RXC_POS_ONLY },
		{ IB_QPT_UC, RXC_REQ_READ, RXC_POS_ONLY },
		{ IB_QPT_UC, RXC_REQ_SEND_INV, RXC_POS_LAST },
		{ IB_QPT_UC, RXC_REQ_SEND_INV, RXC_POS_FIRST },
		{ IB_QPT_UC, RXC_REQ_SEND_INV, RXC_POS_MIDDLE },
		{ IB_QPT_UC, RXC_REQ_COMPARE_SWAP, RXC_POS_ONLY },
		{ IB_QPT_UC, RXC_REQ_ATOMIC_WRITE, RXC_POS_ONLY },
		{ IB_QPT_RC, RXC_REQ_READ, RXC_POS_FIRST },
		{ IB_QPT_RC, RXC_REQ_FETCH_ADD, RXC_POS_LAST },
		{ IB_QPT_RC, RXC_REQ_ATOMIC_WRITE, RXC_POS_MIDDLE },
		{ IB_QPT_RC, RXC_NUM_REQ_OPS, RXC_POS_ONLY },
		{ IB_QPT_RC, RXC_REQ_SEND, RXC_NUM_POS },
		{ IB_QPT_XRC_INI, RXC_REQ_SEND, RXC_POS_ONLY },
		{ IB_QPT_RAW_PACKET, RXC_REQ_SEND, RXC_POS_ONLY },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		KUNIT_EXPECT_EQ_MSG(test, rxc_req_opcode(cases[i].qpt,
							 cases[i].op,
							 cases[i].pos),
				    -EINVAL, "case %d", i);
}

static const u32 pos_props[RXC_NUM_POS] = {
	[RXC_POS_FIRST] = RXC_OPF_FIRST,
	[RXC_POS_MIDDLE] = RXC_OPF_MIDDLE,
	[RXC_POS_LAST] = RXC_OPF_LAST,
	[RXC_POS_ONLY] = RXC_OPF_FIRST | RXC_OPF_LAST,
};

static const u32 op_props[RXC_NUM_REQ_OPS] = {
	[RXC_REQ_SEND] = RXC_OPF_SEND,
	[RXC_REQ_SEND_IMM] = RXC_OPF_SEND,
	[RXC_REQ_SEND_INV] = RXC_OPF_SEND,
	[RXC_REQ_WRITE] = RXC_OPF_WRITE,
	[RXC_REQ_WRITE_IMM] = RXC_OPF_WRITE,
	[RXC_REQ_READ] = RXC_OPF_READ,
	[RXC_REQ_COMPARE_SWAP] = RXC_OPF_ATOMIC,
	[RXC_REQ_FETCH_ADD] = RXC_OPF_ATOMIC,
	[RXC_REQ_ATOMIC_WRITE] = RXC_OPF_ATOMIC_WRITE,
};

/* Which (service, operation, position) packets IBA defines. */
static bool iba_has_packet(enum ib_qp_type qpt, enum rxc_req_op op,
			   enum rxc_pkt_pos pos)
{
	bool multi = op <= RXC_REQ_WRITE_IMM;

	switch (qpt) {
	case IB_QPT_RC:
		return multi || pos == RXC_POS_ONLY;
	case IB_QPT_UC:
		return multi && op != RXC_REQ_SEND_INV;
	default:
		return pos == RXC_POS_ONLY &&
		       (op == RXC_REQ_SEND || op == RXC_REQ_SEND_IMM);
	}
}

static const struct {
	enum ib_qp_type qpt;
	u8 svc;
} services[] = {
	{ IB_QPT_RC, 0x00 },
	{ IB_QPT_UC, 0x20 },
	{ IB_QPT_UD, 0x60 },
};

/* Returns the opcode rxc_req_opcode() chose, or -1. */
static int check_req_packet(struct kunit *test, int s, enum rxc_req_op op,
			    enum rxc_pkt_pos pos)
{
	bool last = pos == RXC_POS_LAST || pos == RXC_POS_ONLY;
	bool imm = op == RXC_REQ_SEND_IMM || op == RXC_REQ_WRITE_IMM;
	const struct rxc_opcode_info *info;
	int opc;
	u32 m;

	opc = rxc_req_opcode(services[s].qpt, op, pos);
	if (!iba_has_packet(services[s].qpt, op, pos)) {
		KUNIT_EXPECT_EQ_MSG(test, opc, -EINVAL, "svc %d op %d pos %d",
				    s, op, pos);
		return -1;
	}
	KUNIT_EXPECT_GE_MSG(test, opc, 0, "svc %d op %d pos %d", s, op, pos);
	if (opc < 0)
		return -1;
	KUNIT_EXPECT_EQ(test, opc & 0xe0, services[s].svc);
	info = rxc_opcode_info(opc);
	KUNIT_ASSERT_NOT_NULL(test, info);

	m = info->mask;
	KUNIT_EXPECT_TRUE_MSG(test, m & RXC_OPF_REQ, "%s", info->name);
	KUNIT_EXPECT_EQ_MSG(test, m & RXC_OPF_POSITION, pos_props[pos],
			    "%s", info->name);
	KUNIT_EXPECT_EQ_MSG(test, m & RXC_OPF_OPERATION, op_props[op],
			    "%s", info->name);
	KUNIT_EXPECT_EQ_MSG(test, !!(m & RXC_OPF_IMMDT), last && imm,
			    "%s", info->name);
	KUNIT_EXPECT_EQ_MSG(test, !!(m & RXC_OPF_IETH),
			    last && op == RXC_REQ_SEND_INV, "%s", info->name);
	KUNIT_EXPECT_EQ_MSG(test, !!(m & RXC_OPF_ACK_REQ),
			    last && services[s].svc == 0x00, "%s", info->name);
	return opc;
}

static void req_opcode_round_trips_through_the_table(struct kunit *test)
{
	bool reached[256] = {};
	int s, op, pos, opc, i;

	for (s = 0; s < ARRAY_SIZE(services); s++) {
		for (op = 0; op < RXC_NUM_REQ_OPS; op++) {
			for (pos = 0; pos < RXC_NUM_POS; pos++) {
				opc = check_req_packet(test, s, op, pos);
				if (opc >= 0)
					reached[opc] = true;
			}
		}
	}

	/* And every request opcode in the table is reachable. */
	for (i = 0; i < 256; i++) {
		const struct rxc_opcode_info *info = rxc_opcode_info(i);

		if (info && (info->mask & RXC_OPF_REQ))
			KUNIT_EXPECT_TRUE_MSG(test, reached[i], "%s",
					      info->name);
	}
}

static struct kunit_case rxc_opcode_cases[] = {
	KUNIT_CASE(opcodes_have_their_iba_numbers),
	KUNIT_CASE(table_describes_well_known_opcodes),
	KUNIT_CASE(table_knows_only_the_supported_opcodes),
	KUNIT_CASE(header_lengths_match_the_iba_layouts),
	KUNIT_CASE(headers_sit_at_their_iba_offsets),
	KUNIT_CASE(extension_headers_lie_within_the_header_length),
	KUNIT_CASE(opcodes_have_one_direction_and_one_position),
	KUNIT_CASE(req_opcode_picks_the_iba_opcodes),
	KUNIT_CASE(req_opcode_rejects_packets_iba_lacks_with_einval),
	KUNIT_CASE(req_opcode_round_trips_through_the_table),
	{}
};

static struct kunit_suite rxc_opcode_suite = {
	.name = "rxc_opcode",
	.test_cases = rxc_opcode_cases,
};

kunit_test_suite(rxc_opcode_suite);
