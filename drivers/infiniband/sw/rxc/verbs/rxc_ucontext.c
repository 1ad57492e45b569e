// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * User contexts and the mapping of rings into user space.
 *
 * Core owns the lifetime of every mapping (rdma_user_mmap_entry): a ring's
 * pages are freed in rxc_mmap_free() only after its object is destroyed and
 * the last VMA is gone, so user space can never see freed memory.
 */
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "rxc.h"
#include "rxc_verbs.h"

int rxc_alloc_ucontext(struct ib_ucontext *uctx, struct ib_udata *udata)
{
	/* librxe sends no driver data and expects none back. */
	rxc_cntr_pool_init(&to_ruc(uctx)->cntr_pool);
	return 0;
}

void rxc_dealloc_ucontext(struct ib_ucontext *uctx)
{
	rxc_cntr_pool_destroy(&to_ruc(uctx)->cntr_pool);
}

/*
 * Device removal with contexts open: core destroys every object and zaps
 * every mapping itself, so there is nothing left for the driver to revoke.
 * Providing the op lets removal proceed instead of waiting for the
 * applications to exit.
 */
void rxc_disassociate_ucontext(struct ib_ucontext *uctx)
{
}

int rxc_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *rdma_entry;
	struct rxc_mmap_entry *entry;
	int err;

	rdma_entry = rdma_user_mmap_entry_get(uctx, vma);
	if (!rdma_entry) {
		ibdev_dbg(uctx->device, "mmap: no ring at offset %#lx+%#lx\n",
			  vma->vm_pgoff << PAGE_SHIFT,
			  vma->vm_end - vma->vm_start);
		return -EINVAL;
	}
	entry = container_of(rdma_entry, struct rxc_mmap_entry, rdma);

	/* Counter values change only through the kernel's updates. */
	if (entry->read_only) {
		if (vma->vm_flags & VM_WRITE) {
			rdma_user_mmap_entry_put(rdma_entry);
			return -EPERM;
		}
		vma->vm_flags &= ~VM_MAYWRITE;
	}

	err = remap_vmalloc_range(vma, entry->buf, 0);
	if (err)
		ibdev_dbg(uctx->device, "mmap: remap failed (%d)\n", err);

	rdma_user_mmap_entry_put(rdma_entry);
	return err;
}

void rxc_mmap_free(struct rdma_user_mmap_entry *rdma_entry)
{
	struct rxc_mmap_entry *entry =
		container_of(rdma_entry, struct rxc_mmap_entry, rdma);

	vfree(entry->buf);
	kfree(entry);
}
