// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Which counters a QP counts into.  Neither a 6.1 core nor upstream's
 * keeps this table, so it is built whether or not the kernel has the
 * completion counter object (see ib_comp_cntr.h).
 *
 * Process context; callers serialize calls on one QP.
 */
#include <kunit/visibility.h>

#include "ib_comp_cntr.h"

/**
 * ib_comp_cntr_overlaps - whether a counter counts any of @op_mask already
 * @a: the QP's attachments
 * @op_mask: IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_* bits
 *
 * Upstream's core answers EBUSY for this before the driver sees the
 * attach, so it comes before any check of the driver's own.
 */
bool ib_comp_cntr_overlaps(const struct ib_comp_cntr_attachments *a,
			   u32 op_mask)
{
	unsigned long mask = op_mask;
	unsigned int i;

	for_each_set_bit(i, &mask, IB_COMP_CNTR_NUM_OPS)
		if (a->by_op[i])
			return true;
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(ib_comp_cntr_overlaps);

/**
 * ib_comp_cntr_attach - record @cc for every operation in @op_mask
 * @a: the QP's attachments
 * @cc: the counter
 * @op_mask: non-empty, known IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_* bits
 *
 * Return: -EBUSY, changing nothing, if a counter is already attached for
 * any operation in @op_mask.  Callers serialize calls on one QP.
 */
int ib_comp_cntr_attach(struct ib_comp_cntr_attachments *a,
			struct ib_comp_cntr *cc, u32 op_mask)
{
	unsigned long mask = op_mask;
	bool attached = false;
	unsigned int i;

	if (ib_comp_cntr_overlaps(a, op_mask))
		return -EBUSY;

	/*
	 * One use per QP, however many operations and attach calls it
	 * counts there, as ib_comp_cntr_detach_all() drops one per QP.
	 */
	for (i = 0; i < IB_COMP_CNTR_NUM_OPS; i++)
		attached |= a->by_op[i] == cc;
	if (!attached)
		atomic_inc(ib_comp_cntr_usecnt(cc));
	for_each_set_bit(i, &mask, IB_COMP_CNTR_NUM_OPS)
		WRITE_ONCE(a->by_op[i], cc);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ib_comp_cntr_attach);

/**
 * ib_comp_cntr_detach_all - drop every counter attached to a QP
 * @a: the attachments of a QP being destroyed, which produces no more
 *     completions
 */
void ib_comp_cntr_detach_all(struct ib_comp_cntr_attachments *a)
{
	unsigned int i, j;

	for (i = 0; i < IB_COMP_CNTR_NUM_OPS; i++) {
		struct ib_comp_cntr *cc = a->by_op[i];

		if (!cc)
			continue;
		/* Clear the other slots of the same counter: one use each. */
		for (j = i; j < IB_COMP_CNTR_NUM_OPS; j++)
			if (a->by_op[j] == cc)
				WRITE_ONCE(a->by_op[j], NULL);
		atomic_dec(ib_comp_cntr_usecnt(cc));
	}
}
EXPORT_SYMBOL_IF_KUNIT(ib_comp_cntr_detach_all);
