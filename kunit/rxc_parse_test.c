// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The packet parser and the header accessors, on packets written out byte
 * by byte from the InfiniBand header layouts.  Each packet starts at its
 * BTH and ends with a 4-byte ICRC that the parser does not check.
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include "net/rxc_hdr.h"
#include "transport/rxc_opcode.h"

/* RC SEND ONLY, SE, pad 3, QPN 0x1234, AckReq, PSN 42, payload "hello". */
static const u8 rc_send[] = {
	0x04, 0xb0, 0xff, 0xff, 0x00, 0x00, 0x12, 0x34,
	0x80, 0x00, 0x00, 0x2a,
	'h', 'e', 'l', 'l', 'o', 0x00, 0x00, 0x00,
	0x11, 0x22, 0x33, 0x44,
};

/* RC RDMA WRITE ONLY with immediate, 8 bytes of payload. */
static const u8 rc_write_imm[] = {
	0x0b, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x11,
	0x80, 0x00, 0x01, 0x00,
	0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,	/* RETH VA */
	0x89, 0xab, 0xcd, 0xef,				/* RETH R_Key */
	0x00, 0x00, 0x00, 0x08,				/* RETH length */
	0xde, 0xad, 0xbe, 0xef,				/* ImmDt */
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x11, 0x22, 0x33, 0x44,
};

/* UD SEND ONLY with immediate to QPN 0x20, from QPN 0x33. */
static const u8 ud_send_imm[] = {
	0x65, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x20,
	0x00, 0x00, 0x00, 0x07,
	0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x33,	/* DETH */
	0x01, 0x02, 0x03, 0x04,				/* ImmDt */
	0xca, 0xfe, 0xf0, 0x0d,
	0x11, 0x22, 0x33, 0x44,
};

/* RC ATOMIC ACKNOWLEDGE: AETH (syndrome 0x1f, MSN 9), original value. */
static const u8 rc_atomic_ack[] = {
	0x12, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x19,
	0x00, 0x00, 0x00, 0x05,
	0x1f, 0x00, 0x00, 0x09,
	0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
	0x11, 0x22, 0x33, 0x44,
};

/* RC COMPARE SWAP at VA 0x1000, R_Key 0x42, swap 7 if it holds 5. */
static const u8 rc_cmp_swap[] = {
	0x13, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x19,
	0x80, 0x00, 0x00, 0x06,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00,
	0x00, 0x00, 0x00, 0x42,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05,
	0x11, 0x22, 0x33, 0x44,
};

/* RC ACKNOWLEDGE, and RC SEND LAST with invalidate of R_Key 0x1234. */
static const u8 rc_ack[] = {
	0x11, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x19,
	0x00, 0x00, 0x00, 0x05,
	0x1f, 0x00, 0x00, 0x09,
	0x11, 0x22, 0x33, 0x44,
};

static const u8 rc_send_inv[] = {
	0x16, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x19,
	0x80, 0x00, 0x00, 0x05,
	0x00, 0x00, 0x12, 0x34,
	0x11, 0x22, 0x33, 0x44,
};

/* A copy of @len bytes of @pkt in a buffer of exactly @len bytes. */
static u8 *pkt_copy(struct kunit *test, const u8 *pkt, unsigned int len)
{
	u8 *p = kunit_kmalloc(test, len, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
	memcpy(p, pkt, len);
	return p;
}

static void parse_accepts_an_rc_send(struct kunit *test)
{
	struct rxc_pkt_info pkt;
	int h;

	KUNIT_ASSERT_EQ(test, rxc_pkt_parse(rc_send, sizeof(rc_send), &pkt), 0);
	KUNIT_EXPECT_PTR_EQ(test, pkt.bth, &rc_send[0]);
	KUNIT_EXPECT_EQ(test, pkt.opcode, 0x04);
	KUNIT_EXPECT_EQ(test, pkt.hdr_len, 12);
	KUNIT_EXPECT_EQ(test, pkt.pad, 3);
	KUNIT_EXPECT_EQ(test, pkt.payload_len, 5);
	KUNIT_EXPECT_EQ(test, memcmp(rc_send + pkt.hdr_len, "hello", 5), 0);
	KUNIT_EXPECT_TRUE(test, pkt.mask & RXC_OPF_SEND);
	KUNIT_EXPECT_EQ(test, pkt.mask & RXC_OPF_ONLY, RXC_OPF_ONLY);
	for (h = 0; h < RXC_NUM_HDRS; h++)
		KUNIT_EXPECT_NULL(test, rxc_pkt_hdr(&pkt, h));

	KUNIT_EXPECT_TRUE(test, rxc_bth_se(rc_send));
	KUNIT_EXPECT_FALSE(test, rxc_bth_migreq(rc_send));
	KUNIT_EXPECT_EQ(test, rxc_bth_tver(rc_send), 0);
	KUNIT_EXPECT_EQ(test, rxc_bth_pkey(rc_send), 0xffff);
	KUNIT_EXPECT_EQ(test, rxc_bth_qpn(rc_send), 0x1234);
	KUNIT_EXPECT_TRUE(test, rxc_bth_ackreq(rc_send));
	KUNIT_EXPECT_EQ(test, rxc_bth_psn(rc_send), 42);
}

static void parse_finds_the_reth_and_immediate_of_a_write(struct kunit *test)
{
	struct rxc_pkt_info pkt;
	const u8 *reth;

	KUNIT_ASSERT_EQ(test, rxc_pkt_parse(rc_write_imm, sizeof(rc_write_imm),
					    &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.hdr_len, 32);
	KUNIT_EXPECT_EQ(test, pkt.payload_len, 8);
	KUNIT_EXPECT_NULL(test, rxc_pkt_hdr(&pkt, RXC_HDR_AETH));

	reth = rxc_pkt_hdr(&pkt, RXC_HDR_RETH);
	KUNIT_EXPECT_PTR_EQ(test, reth, rc_write_imm + 12);
	KUNIT_EXPECT_EQ(test, rxc_reth_va(reth), 0x0011223344556677ULL);
	KUNIT_EXPECT_EQ(test, rxc_reth_rkey(reth), 0x89abcdef);
	KUNIT_EXPECT_EQ(test, rxc_reth_len(reth), 8);
	KUNIT_EXPECT_EQ(test,
			be32_to_cpu(rxc_immdt_imm(rxc_pkt_hdr(&pkt,
							      RXC_HDR_IMMDT))),
			0xdeadbeef);
	KUNIT_EXPECT_EQ(test, rxc_bth_psn(rc_write_imm), 0x100);
}

static void parse_finds_the_deth_of_a_ud_send(struct kunit *test)
{
	struct rxc_pkt_info pkt;
	const u8 *deth;

	KUNIT_ASSERT_EQ(test, rxc_pkt_parse(ud_send_imm, sizeof(ud_send_imm),
					    &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.hdr_len, 24);
	KUNIT_EXPECT_EQ(test, pkt.payload_len, 4);
	deth = rxc_pkt_hdr(&pkt, RXC_HDR_DETH);
	KUNIT_EXPECT_PTR_EQ(test, deth, ud_send_imm + 12);
	KUNIT_EXPECT_EQ(test, rxc_deth_qkey(deth), 0x80010000);
	KUNIT_EXPECT_EQ(test, rxc_deth_sqpn(deth), 0x33);
	KUNIT_EXPECT_PTR_EQ(test, rxc_pkt_hdr(&pkt, RXC_HDR_IMMDT),
			    ud_send_imm + 20);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rxc_immdt_imm(ud_send_imm + 20)),
			0x01020304);
	KUNIT_EXPECT_EQ(test, rxc_bth_qpn(ud_send_imm), 0x20);
	KUNIT_EXPECT_FALSE(test, rxc_bth_ackreq(ud_send_imm));
}

static void parse_finds_the_headers_of_acks_and_atomics(struct kunit *test)
{
	struct rxc_pkt_info pkt;
	const u8 *h;

	KUNIT_ASSERT_EQ(test, rxc_pkt_parse(rc_atomic_ack,
					    sizeof(rc_atomic_ack), &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.payload_len, 0);
	h = rxc_pkt_hdr(&pkt, RXC_HDR_AETH);
	KUNIT_EXPECT_PTR_EQ(test, h, rc_atomic_ack + 12);
	KUNIT_EXPECT_EQ(test, rxc_aeth_syndrome(h), 0x1f);
	KUNIT_EXPECT_EQ(test, rxc_aeth_msn(h), 9);
	h = rxc_pkt_hdr(&pkt, RXC_HDR_ATMACK);
	KUNIT_EXPECT_PTR_EQ(test, h, rc_atomic_ack + 16);
	KUNIT_EXPECT_EQ(test, rxc_atmack_orig(h), 0x0102030405060708ULL);

	KUNIT_ASSERT_EQ(test, rxc_pkt_parse(rc_cmp_swap, sizeof(rc_cmp_swap),
					    &pkt), 0);
	h = rxc_pkt_hdr(&pkt, RXC_HDR_ATMETH);
	KUNIT_EXPECT_PTR_EQ(test, h, rc_cmp_swap + 12);
	KUNIT_EXPECT_EQ(test, rxc_atmeth_va(h), 0x1000);
	KUNIT_EXPECT_EQ(test, rxc_atmeth_rkey(h), 0x42);
	KUNIT_EXPECT_EQ(test, rxc_atmeth_swap_add(h), 7);
	KUNIT_EXPECT_EQ(test, rxc_atmeth_compare(h), 5);

	KUNIT_ASSERT_EQ(test, rxc_pkt_parse(rc_ack, sizeof(rc_ack), &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.hdr_len, 16);
	KUNIT_EXPECT_EQ(test, pkt.payload_len, 0);

	KUNIT_ASSERT_EQ(test, rxc_pkt_parse(rc_send_inv, sizeof(rc_send_inv),
					    &pkt), 0);
	KUNIT_EXPECT_EQ(test, rxc_ieth_rkey(rxc_pkt_hdr(&pkt, RXC_HDR_IETH)),
			0x1234);
	KUNIT_EXPECT_EQ(test, pkt.payload_len, 0);
}

/* Each known opcode, with no payload, no padding and zeroed headers. */
static void parse_accepts_every_known_opcode_at_its_minimum_length(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, 64, GFP_KERNEL);
	struct rxc_pkt_info pkt;
	int op;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (op = 0; op < 256; op++) {
		const struct rxc_opcode_info *info = rxc_opcode_info(op);

		if (!info)
			continue;
		buf[0] = op;
		KUNIT_EXPECT_EQ_MSG(test, rxc_pkt_parse(buf, info->hdr_len + 4,
							&pkt), 0,
				    "%s", info->name);
		KUNIT_EXPECT_EQ(test, pkt.opcode, op);
		KUNIT_EXPECT_EQ(test, pkt.payload_len, 0);
		KUNIT_EXPECT_EQ(test, pkt.mask, info->mask);
		KUNIT_EXPECT_EQ(test,
				memcmp(pkt.off, info->off, sizeof(pkt.off)), 0);
	}
}

static void parse_ignores_reserved_and_congestion_bits(struct kunit *test)
{
	u8 *p = pkt_copy(test, rc_ack, sizeof(rc_ack));
	struct rxc_pkt_info pkt;

	p[4] = 0xff;		/* FECN, BECN, reserved */
	p[8] |= 0x7f;		/* reserved bits beside AckReq */
	KUNIT_EXPECT_EQ(test, rxc_pkt_parse(p, sizeof(rc_ack), &pkt), 0);
	KUNIT_EXPECT_EQ(test, rxc_bth_qpn(p), 0x19);
	KUNIT_EXPECT_EQ(test, rxc_bth_psn(p), 5);
}

/*
 * Every length below the minimum fails, from a buffer of exactly that
 * length: with KASAN, a read past it would also show up as a report.
 */
static void expect_truncations_fail(struct kunit *test, const u8 *full,
				    unsigned int min)
{
	struct rxc_pkt_info pkt;
	unsigned int len;

	for (len = 0; len < min; len++) {
		u8 *p = kmemdup(full, len, GFP_KERNEL);

		KUNIT_ASSERT_NOT_NULL(test, p);
		KUNIT_EXPECT_EQ_MSG(test, rxc_pkt_parse(p, len, &pkt),
				    -EMSGSIZE, "opcode 0x%02x len %u",
				    full[0], len);
		kfree(p);
	}
}

static void parse_rejects_truncated_packets_with_emsgsize(struct kunit *test)
{
	/* The minimum is headers + pad + ICRC. */
	expect_truncations_fail(test, rc_send, 12 + 3 + 4);
	expect_truncations_fail(test, rc_write_imm, 32 + 4);
	expect_truncations_fail(test, ud_send_imm, 24 + 4);
	expect_truncations_fail(test, rc_atomic_ack, 24 + 4);
	expect_truncations_fail(test, rc_cmp_swap, 40 + 4);
	expect_truncations_fail(test, rc_ack, 16 + 4);
}

static void parse_rejects_unknown_opcodes_with_eproto(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, 64, GFP_KERNEL);
	struct rxc_pkt_info pkt;
	int op;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (op = 0; op < 256; op++) {
		if (rxc_opcode_info(op))
			continue;
		buf[0] = op;
		KUNIT_EXPECT_EQ_MSG(test, rxc_pkt_parse(buf, 64, &pkt),
				    -EPROTO, "opcode 0x%02x", op);
	}
}

static void parse_rejects_a_nonzero_transport_version_with_ebadmsg(struct kunit *test)
{
	u8 *p = pkt_copy(test, rc_send, sizeof(rc_send));
	struct rxc_pkt_info pkt;
	int tver;

	for (tver = 1; tver < 16; tver++) {
		p[1] = (rc_send[1] & 0xf0) | tver;
		KUNIT_EXPECT_EQ_MSG(test, rxc_pkt_parse(p, sizeof(rc_send),
							&pkt),
				    -EBADMSG, "tver %d", tver);
	}
	/* The version is checked first: the opcode means nothing without it. */
	p[0] = 0x1c;
	KUNIT_EXPECT_EQ(test, rxc_pkt_parse(p, sizeof(rc_send), &pkt),
			-EBADMSG);
}

static void parse_rejects_payload_not_padded_to_4_bytes_with_ebadmsg(struct kunit *test)
{
	struct rxc_pkt_info pkt;
	unsigned int len;

	/* 5 payload bytes and 3 of padding: any length short of 8 is odd. */
	for (len = 12 + 3 + 4; len < sizeof(rc_send); len++) {
		u8 *p = pkt_copy(test, rc_send, len);
		int expected = (len - 12 - 4) % 4 ? -EBADMSG : 0;

		KUNIT_EXPECT_EQ_MSG(test, rxc_pkt_parse(p, len, &pkt),
				    expected, "len %u", len);
	}
}

static void parse_rejects_padding_without_payload_with_ebadmsg(struct kunit *test)
{
	u8 *ack = pkt_copy(test, rc_ack, sizeof(rc_ack));
	u8 *cas = pkt_copy(test, rc_cmp_swap, sizeof(rc_cmp_swap));
	struct rxc_pkt_info pkt;
	int pad;

	for (pad = 1; pad < 4; pad++) {
		ack[1] = pad << 4;
		cas[1] = pad << 4;
		KUNIT_EXPECT_EQ(test, rxc_pkt_parse(ack, sizeof(rc_ack), &pkt),
				-EBADMSG);
		KUNIT_EXPECT_EQ(test, rxc_pkt_parse(cas, sizeof(rc_cmp_swap),
						    &pkt), -EBADMSG);
	}
}

static void parse_rejects_payload_on_opcodes_without_payload_with_ebadmsg(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, 64, GFP_KERNEL);
	struct rxc_pkt_info pkt;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	memcpy(buf, rc_ack, sizeof(rc_ack));
	KUNIT_EXPECT_EQ(test, rxc_pkt_parse(buf, sizeof(rc_ack) + 4, &pkt),
			-EBADMSG);
	memcpy(buf, rc_cmp_swap, sizeof(rc_cmp_swap));
	KUNIT_EXPECT_EQ(test, rxc_pkt_parse(buf, sizeof(rc_cmp_swap) + 8,
					    &pkt), -EBADMSG);
	/* A read request's length is in its RETH, not in a payload. */
	buf[0] = 0x0c;
	KUNIT_EXPECT_EQ(test, rxc_pkt_parse(buf, 28 + 4 + 4, &pkt), -EBADMSG);
}

static void parse_leaves_pkt_untouched_on_error(struct kunit *test)
{
	struct rxc_pkt_info pkt, before;
	u8 *p = pkt_copy(test, rc_send, sizeof(rc_send));

	memset(&pkt, 0xa5, sizeof(pkt));
	memcpy(&before, &pkt, sizeof(pkt));
	p[0] = 0x1c;
	KUNIT_EXPECT_EQ(test, rxc_pkt_parse(p, sizeof(rc_send), &pkt), -EPROTO);
	KUNIT_EXPECT_EQ(test, memcmp(&pkt, &before, sizeof(pkt)), 0);
	KUNIT_EXPECT_EQ(test, rxc_pkt_parse(rc_send, 10, &pkt), -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, memcmp(&pkt, &before, sizeof(pkt)), 0);
}

static void bth_init_writes_the_iba_layout(struct kunit *test)
{
	u8 *bth = kunit_kmalloc(test, RXC_BTH_SIZE, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, bth);
	memset(bth, 0x5a, RXC_BTH_SIZE);
	rxc_bth_init(bth, 0x04, true, 3, 0xffff, 0x1234, true, 42);
	KUNIT_EXPECT_EQ(test, memcmp(bth, rc_send, RXC_BTH_SIZE), 0);

	/* Setters change their own bits only, and truncate to the field. */
	rxc_bth_set_migreq(bth, true);
	KUNIT_EXPECT_EQ(test, bth[1], 0xf0);
	rxc_bth_set_se(bth, false);
	rxc_bth_set_pad(bth, 1);
	rxc_bth_set_tver(bth, 0x1f);
	KUNIT_EXPECT_EQ(test, bth[1], 0x5f);
	rxc_bth_set_qpn(bth, 0xff000019);
	rxc_bth_set_psn(bth, 0x01000005);
	rxc_bth_set_ackreq(bth, false);
	KUNIT_EXPECT_EQ(test, bth[4], 0x00);
	KUNIT_EXPECT_EQ(test, rxc_bth_qpn(bth), 0x19);
	KUNIT_EXPECT_EQ(test, bth[8], 0x00);
	KUNIT_EXPECT_EQ(test, rxc_bth_psn(bth), 5);
}

static void header_setters_write_the_iba_layout(struct kunit *test)
{
	u8 *p = kunit_kzalloc(test, sizeof(rc_write_imm), GFP_KERNEL);
	u8 *q = kunit_kzalloc(test, sizeof(rc_cmp_swap), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_NOT_NULL(test, q);

	rxc_bth_init(p, 0x0b, false, 0, 0xffff, 0x11, true, 0x100);
	rxc_reth_set_va(p + 12, 0x0011223344556677ULL);
	rxc_reth_set_rkey(p + 12, 0x89abcdef);
	rxc_reth_set_len(p + 12, 8);
	rxc_immdt_set_imm(p + 28, cpu_to_be32(0xdeadbeef));
	KUNIT_EXPECT_EQ(test, memcmp(p, rc_write_imm, 32), 0);

	rxc_bth_init(q, 0x12, false, 0, 0xffff, 0x19, false, 5);
	rxc_aeth_set_syndrome(q + 12, 0x1f);
	rxc_aeth_set_msn(q + 12, 9);
	rxc_atmack_set_orig(q + 16, 0x0102030405060708ULL);
	KUNIT_EXPECT_EQ(test, memcmp(q, rc_atomic_ack, 24), 0);

	rxc_bth_init(q, 0x13, false, 0, 0xffff, 0x19, true, 6);
	rxc_atmeth_set_va(q + 12, 0x1000);
	rxc_atmeth_set_rkey(q + 12, 0x42);
	rxc_atmeth_set_swap_add(q + 12, 7);
	rxc_atmeth_set_compare(q + 12, 5);
	KUNIT_EXPECT_EQ(test, memcmp(q, rc_cmp_swap, 40), 0);

	memset(p, 0, sizeof(rc_write_imm));
	rxc_bth_init(p, 0x65, false, 0, 0xffff, 0x20, false, 7);
	rxc_deth_set_qkey(p + 12, 0x80010000);
	rxc_deth_set_sqpn(p + 12, 0x33);
	rxc_immdt_set_imm(p + 20, cpu_to_be32(0x01020304));
	KUNIT_EXPECT_EQ(test, memcmp(p, ud_send_imm, 24), 0);

	rxc_bth_init(p, 0x16, false, 0, 0xffff, 0x19, true, 5);
	rxc_ieth_set_rkey(p + 12, 0x1234);
	KUNIT_EXPECT_EQ(test, memcmp(p, rc_send_inv, 16), 0);
}

static struct kunit_case rxc_parse_cases[] = {
	KUNIT_CASE(parse_accepts_an_rc_send),
	KUNIT_CASE(parse_finds_the_reth_and_immediate_of_a_write),
	KUNIT_CASE(parse_finds_the_deth_of_a_ud_send),
	KUNIT_CASE(parse_finds_the_headers_of_acks_and_atomics),
	KUNIT_CASE(parse_accepts_every_known_opcode_at_its_minimum_length),
	KUNIT_CASE(parse_ignores_reserved_and_congestion_bits),
	KUNIT_CASE(parse_rejects_truncated_packets_with_emsgsize),
	KUNIT_CASE(parse_rejects_unknown_opcodes_with_eproto),
	KUNIT_CASE(parse_rejects_a_nonzero_transport_version_with_ebadmsg),
	KUNIT_CASE(parse_rejects_payload_not_padded_to_4_bytes_with_ebadmsg),
	KUNIT_CASE(parse_rejects_padding_without_payload_with_ebadmsg),
	KUNIT_CASE(parse_rejects_payload_on_opcodes_without_payload_with_ebadmsg),
	KUNIT_CASE(parse_leaves_pkt_untouched_on_error),
	KUNIT_CASE(bth_init_writes_the_iba_layout),
	KUNIT_CASE(header_setters_write_the_iba_layout),
	{}
};

static struct kunit_suite rxc_parse_suite = {
	.name = "rxc_parse",
	.test_cases = rxc_parse_cases,
};

kunit_test_suite(rxc_parse_suite);
