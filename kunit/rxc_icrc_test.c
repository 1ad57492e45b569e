// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ICRC against vectors computed independently with Python's zlib by
 * kunit/vectors/icrc_vectors.py (its output is pasted below), and the
 * accelerated CRC-32 against crc32_le().
 */
#include <crypto/hash.h>
#include <kunit/test.h>
#include <linux/crc32.h>
#include <linux/random.h>
#include <linux/slab.h>

#include "net/rxc_net.h"

/* icrc_v4_send: 56 bytes */
static const u8 icrc_v4_send[] = {
	0x45, 0x00, 0x00, 0x3c, 0x00, 0x01, 0x40, 0x00, 0x40, 0x11, 0x12, 0x34,
	0x0a, 0x4d, 0x00, 0x01, 0x0a, 0x4d, 0x00, 0x02, 0xc1, 0x23, 0x12, 0xb7,
	0x00, 0x28, 0x00, 0x00, 0x04, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x11,
	0x80, 0x00, 0x00, 0x2a, 0x72, 0x78, 0x63, 0x20, 0x69, 0x63, 0x72, 0x63,
	0x20, 0x76, 0x65, 0x63, 0x74, 0x6f, 0x72, 0x21
};

#define ICRC_V4_SEND_ICRC 0x90db6142U

/* icrc_v6_write: 108 bytes */
static const u8 icrc_v6_write[] = {
	0x60, 0x00, 0x00, 0x00, 0x00, 0x48, 0x11, 0x40, 0xfe, 0x80, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0xaa, 0xff, 0xfe, 0x00, 0x00, 0x01,
	0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0xaa, 0xff,
	0xfe, 0x00, 0x00, 0x02, 0xd0, 0x0d, 0x12, 0xb7, 0x00, 0x48, 0xbe, 0xef,
	0x0a, 0x40, 0xff, 0xff, 0x00, 0x00, 0x01, 0x02, 0x00, 0x12, 0x34, 0x56,
	0x00, 0x00, 0x7f, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0xab, 0xcd,
	0x00, 0x00, 0x00, 0x20, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13,
	0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f
};

#define ICRC_V6_WRITE_ICRC 0x86dea0f2U

static void icrc_matches_the_ipv4_send_vector(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rxc_icrc(icrc_v4_send, sizeof(icrc_v4_send)),
			ICRC_V4_SEND_ICRC);
}

static void icrc_matches_the_ipv6_write_vector(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rxc_icrc(icrc_v6_write, sizeof(icrc_v6_write)),
			ICRC_V6_WRITE_ICRC);
}

static void icrc_ignores_fields_routers_change(struct kunit *test)
{
	u8 *p4 = kunit_kmalloc(test, sizeof(icrc_v4_send), GFP_KERNEL);
	u8 *p6 = kunit_kmalloc(test, sizeof(icrc_v6_write), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p4);
	KUNIT_ASSERT_NOT_NULL(test, p6);
	memcpy(p4, icrc_v4_send, sizeof(icrc_v4_send));
	p4[1] = 0xb8;			/* TOS */
	p4[8] = 1;			/* TTL */
	p4[10] = 0;			/* header checksum */
	p4[26] = 0x55;			/* UDP checksum */
	p4[32] = 0xc0;			/* BTH FECN/BECN byte */
	KUNIT_EXPECT_EQ(test, rxc_icrc(p4, sizeof(icrc_v4_send)),
			ICRC_V4_SEND_ICRC);

	memcpy(p6, icrc_v6_write, sizeof(icrc_v6_write));
	p6[1] = 0xa3;			/* traffic class and flow label */
	p6[3] = 0x99;			/* flow label */
	p6[7] = 2;			/* hop limit */
	KUNIT_EXPECT_EQ(test, rxc_icrc(p6, sizeof(icrc_v6_write)),
			ICRC_V6_WRITE_ICRC);
}

static void icrc_changes_when_any_covered_byte_changes(struct kunit *test)
{
	/* Source address, UDP port, BTH opcode, QPN, payload. */
	static const unsigned int offsets[] = { 12, 20, 28, 35, 55 };
	u8 *p = kunit_kmalloc(test, sizeof(icrc_v4_send), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, p);
	for (i = 0; i < ARRAY_SIZE(offsets); i++) {
		memcpy(p, icrc_v4_send, sizeof(icrc_v4_send));
		p[offsets[i]] ^= 0x01;
		KUNIT_EXPECT_NE_MSG(test, rxc_icrc(p, sizeof(icrc_v4_send)),
				    ICRC_V4_SEND_ICRC, "offset %u",
				    offsets[i]);
	}
}

/*
 * rxc_crc32_shash() through @tfm chains like crc32_le(): lengths around
 * the accelerated code's 16-byte blocks and its 64-byte minimum, at
 * every alignment within 16 bytes, from seeds that differ.
 */
static void expect_crc32_le_through(struct kunit *test,
				    struct crypto_shash *tfm, const u8 *buf)
{
	static const unsigned int lens[] = {
		0, 1, 15, 16, 63, 64, 79, 80, 81, 127, 128, 1000, 4096
	};
	unsigned int n, off;

	for (n = 0; n < ARRAY_SIZE(lens); n++) {
		for (off = 0; off < 16; off++) {
			u32 seed = ~0U ^ (off * 0x9e3779b9);
			u32 got = rxc_crc32_shash(tfm, seed, buf + off, lens[n]);

			KUNIT_EXPECT_EQ_MSG(test, got,
					    crc32_le(seed, buf + off, lens[n]),
					    "%s, %u bytes at offset %u",
					    crypto_shash_driver_name(tfm),
					    lens[n], off);
		}
	}
}

/*
 * Each "crc32" hash the kernel has: the generic one, and the one the
 * crypto API picks, the accelerated one on a CPU that has it, which is
 * the one rxc computes the ICRC with.
 */
static void crc32_through_the_hash_is_crc32_le(struct kunit *test)
{
	static const char * const names[] = { "crc32-generic", "crc32" };
	/* The longest length above, at the last offset */
	const size_t size = 4096 + 16;
	u8 *buf = kunit_kmalloc(test, size, GFP_KERNEL);
	unsigned int i, tested = 0;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	get_random_bytes(buf, size);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		struct crypto_shash *tfm = crypto_alloc_shash(names[i], 0, 0);

		if (IS_ERR(tfm))
			continue;
		expect_crc32_le_through(test, tfm, buf);
		crypto_free_shash(tfm);
		tested++;
	}
	if (!tested)
		kunit_skip(test, "no crc32 hash in this kernel");
}

static struct kunit_case rxc_icrc_cases[] = {
	KUNIT_CASE(icrc_matches_the_ipv4_send_vector),
	KUNIT_CASE(icrc_matches_the_ipv6_write_vector),
	KUNIT_CASE(icrc_ignores_fields_routers_change),
	KUNIT_CASE(icrc_changes_when_any_covered_byte_changes),
	KUNIT_CASE(crc32_through_the_hash_is_crc32_le),
	{}
};

static struct kunit_suite rxc_icrc_suite = {
	.name = "rxc_icrc",
	.test_cases = rxc_icrc_cases,
};

kunit_test_suite(rxc_icrc_suite);
