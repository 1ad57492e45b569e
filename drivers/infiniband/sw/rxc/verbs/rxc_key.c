// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The memory key namespace shared by MRs and MWs.
 *
 * A key is (index << 8 | variant).  The index finds the object in
 * rxc_dev.key_xa, tagged with its type; the random variant byte makes a
 * stale key from a destroyed object unlikely to match the object that
 * reuses its index.  Allocation and release run in process context.
 */
#include <linux/random.h>

#include "rxc.h"
#include "rxc_verbs.h"

#define RXC_KEY_INDEX_MAX	0xffffff

/**
 * rxc_key_alloc - give @obj a key
 * @rxc: the device
 * @obj: the MR or MW
 * @type: which of the two @obj is
 * @index: set to the index to pass to rxc_key_free()
 *
 * Return: the key, or a negative errno.
 */
s64 rxc_key_alloc(struct rxc_dev *rxc, void *obj, enum rxc_key_type type,
		  u32 *index)
{
	int err;

	err = xa_alloc_cyclic(&rxc->key_xa, index, xa_tag_pointer(obj, type),
			      XA_LIMIT(1, RXC_KEY_INDEX_MAX), &rxc->next_key,
			      GFP_KERNEL_ACCOUNT);
	if (err < 0)
		return err;
	return (s64)(*index << 8 | get_random_u8());
}

void rxc_key_free(struct rxc_dev *rxc, u32 index)
{
	xa_erase(&rxc->key_xa, index);
}
