// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Packets whose payload lies in page fragments, as a NIC delivers them:
 * virtio-net splits a RoCE packet of a 4096-byte path MTU over two receive
 * buffers.  rxc reads such packets in place (rxc_skb_walk()); these cases
 * check that the walk and the ICRC over it see exactly the bytes of the
 * same packet made linear.
 */
#include <kunit/test.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/udp.h>

#include "net/rxc_hdr.h"
#include "net/rxc_net.h"

/* A packet's bytes from its IP header; a pattern no two offsets share. */
static u8 *frag_test_packet(struct kunit *test, unsigned int len, u8 version)
{
	u8 *p = kunit_kmalloc(test, len, GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, p);
	for (i = 0; i < len; i++)
		p[i] = (i * 7 + i / 251) & 0xff;
	p[0] = version == 6 ? 0x60 : 0x45;
	return p;
}

/*
 * @len bytes of @pkt as a received skb: the first @head linear, the rest
 * in page fragments of at most @frag bytes, each at an odd offset in its
 * page; the network header at @pkt[0], skb->data at the UDP header.
 */
static struct sk_buff *frag_test_skb(struct kunit *test, const u8 *pkt,
				     unsigned int len, unsigned int head,
				     unsigned int frag, unsigned int ip_len)
{
	struct sk_buff *skb = alloc_skb(head, GFP_KERNEL);
	unsigned int off = head;
	int i = 0;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_put_data(skb, pkt, head);
	skb_reset_network_header(skb);
	while (off < len) {
		unsigned int n = min(len - off, frag);
		struct page *page = alloc_page(GFP_KERNEL);

		KUNIT_ASSERT_NOT_NULL(test, page);
		memcpy(page_address(page) + 3, pkt + off, n);
		skb_add_rx_frag(skb, i++, page, 3, n, PAGE_SIZE);
		off += n;
	}
	skb_pull(skb, ip_len);
	skb_reset_transport_header(skb);
	return skb;
}

/* Layouts: linear bytes and fragment size, for a 4 KiB payload. */
static const struct {
	unsigned int head;
	unsigned int frag;
} frag_test_layouts[] = {
	{ 4200, 4096 },		/* all linear */
	{ 128, 4096 },		/* virtio-net: a copied head, one page */
	{ 88, 2048 },		/* the headers alone, then half pages */
	{ 100, 300 },		/* 14 fragments, MAX_SKB_FRAGS is 17 */
	{ 131, 1000 },		/* odd sizes everywhere */
};

struct frag_test_walk {
	u8 *out;
	u32 next;
	int pieces;
	int stop_at;		/* return -EIO on this piece, or 0 */
};

static int frag_test_piece(void *ctx, u32 off, const u8 *p, u32 n)
{
	struct frag_test_walk *w = ctx;

	if (off != w->next)
		return -EINVAL;
	memcpy(w->out + off, p, n);
	w->next += n;
	return ++w->pieces == w->stop_at ? -EIO : 0;
}

static void walk_hands_over_every_byte_once_in_order(struct kunit *test)
{
	static const unsigned int ranges[][2] = {
		{ 0, 4200 - 20 }, { 8, 64 }, { 60, 1 }, { 1000, 3000 },
		{ 20, 0 },
	};
	const unsigned int len = 4200;
	u8 *pkt = frag_test_packet(test, len, 4);
	u8 *out = kunit_kzalloc(test, len, GFP_KERNEL);
	int l, r;

	KUNIT_ASSERT_NOT_NULL(test, out);
	for (l = 0; l < ARRAY_SIZE(frag_test_layouts); l++) {
		struct sk_buff *skb = frag_test_skb(test, pkt, len,
						    frag_test_layouts[l].head,
						    frag_test_layouts[l].frag,
						    sizeof(struct iphdr));

		for (r = 0; r < ARRAY_SIZE(ranges); r++) {
			struct frag_test_walk w = { .out = out };
			unsigned int off = ranges[r][0], n = ranges[r][1];

			memset(out, 0, len);
			KUNIT_EXPECT_EQ_MSG(test, rxc_skb_walk(skb, off, n,
							       frag_test_piece,
							       &w), 0,
					    "layout %d range %d", l, r);
			KUNIT_EXPECT_EQ_MSG(test, w.next, n,
					    "layout %d range %d", l, r);
			KUNIT_EXPECT_EQ_MSG(test,
					    memcmp(out, pkt + 20 + off, n), 0,
					    "layout %d range %d", l, r);
		}
		kfree_skb(skb);
	}
}

static void walk_stops_where_the_callback_says(struct kunit *test)
{
	const unsigned int len = 4200;
	u8 *pkt = frag_test_packet(test, len, 4);
	u8 *out = kunit_kzalloc(test, len, GFP_KERNEL);
	struct frag_test_walk w = { .out = out, .stop_at = 2 };
	struct sk_buff *skb;

	KUNIT_ASSERT_NOT_NULL(test, out);
	skb = frag_test_skb(test, pkt, len, 128, 1000, sizeof(struct iphdr));
	KUNIT_EXPECT_EQ(test, rxc_skb_walk(skb, 0, len - 20, frag_test_piece,
					   &w), -EIO);
	KUNIT_EXPECT_EQ(test, w.pieces, 2);
	kfree_skb(skb);
}

static void icrc_of_fragments_is_that_of_the_linear_packet(struct kunit *test)
{
	static const u8 versions[] = { 4, 6 };
	/* IP, UDP, BTH, RETH, 4 KiB of payload. */
	const unsigned int tail = sizeof(struct udphdr) + RXC_BTH_SIZE +
				  RXC_RETH_SIZE + 4096;
	int v, l;

	for (v = 0; v < ARRAY_SIZE(versions); v++) {
		unsigned int ip_len = versions[v] == 6 ? sizeof(struct ipv6hdr) :
							 sizeof(struct iphdr);
		unsigned int len = ip_len + tail;
		u8 *pkt = frag_test_packet(test, len, versions[v]);
		u32 want = rxc_icrc(pkt, len);

		for (l = 0; l < ARRAY_SIZE(frag_test_layouts); l++) {
			unsigned int head = max(frag_test_layouts[l].head,
						ip_len + 28);
			struct sk_buff *skb;

			skb = frag_test_skb(test, pkt, len, min(head, len),
					    frag_test_layouts[l].frag, ip_len);
			KUNIT_EXPECT_EQ_MSG(test, rxc_icrc_skb(skb, len), want,
					    "IPv%u layout %d", versions[v], l);
			kfree_skb(skb);
		}
	}
}

static struct kunit_case rxc_frag_cases[] = {
	KUNIT_CASE(walk_hands_over_every_byte_once_in_order),
	KUNIT_CASE(walk_stops_where_the_callback_says),
	KUNIT_CASE(icrc_of_fragments_is_that_of_the_linear_packet),
	{}
};

static struct kunit_suite rxc_frag_suite = {
	.name = "rxc_frag",
	.test_cases = rxc_frag_cases,
};

kunit_test_suite(rxc_frag_suite);
