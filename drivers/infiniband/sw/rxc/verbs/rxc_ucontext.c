// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * User contexts and the mapping of rings into user space.
 *
 * Core hands out the mmap offsets (rdma_user_mmap_entry) and calls
 * rxc_mmap_free() once the object that owns the memory is destroyed.  A
 * page still mapped then stays allocated: rxc_mmap() took a reference on
 * every page it mapped, which the unmap drops.  So user space never sees
 * freed memory, but a mapping outlives its object.
 */
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "rxc.h"
#include "rxc_compat.h"
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
 * Device removal with contexts open: core destroys every object, and the
 * mapped pages stay with the processes that map them (see above), so the
 * driver has nothing to undo.  Providing the op lets removal proceed
 * instead of waiting for the applications to exit.
 */
void rxc_disassociate_ucontext(struct ib_ucontext *uctx)
{
}

/**
 * rxc_user_buf_alloc - zeroed pages that user space may map (rxc_mmap())
 * @size: bytes, rounded up to whole pages
 *
 * Charged to the memory cgroup of the process that asks (see
 * RXC_GFP_USER_SIZED): rings and counter pages are kernel memory a user
 * can have allocated by the megabyte.  vmalloc_user() cannot be charged,
 * hence __vmalloc() here and a mapping of the pages one by one in
 * rxc_mmap().  Freed with vfree().
 */
void *rxc_user_buf_alloc(size_t size)
{
	return __vmalloc(PAGE_ALIGN(size), RXC_GFP_USER_SIZED | __GFP_ZERO);
}

/*
 * Core checked that the mapping is shared and exactly as long as the
 * buffer (rdma_user_mmap_entry_get()).
 */
static int rxc_mmap_pages(struct vm_area_struct *vma, void *buf)
{
	unsigned long addr;
	int err;

	rxc_vm_flags_mod(vma, VM_DONTEXPAND | VM_DONTDUMP, 0);
	for (addr = vma->vm_start; addr < vma->vm_end; addr += PAGE_SIZE) {
		err = vm_insert_page(vma, addr, vmalloc_to_page(buf));
		if (err)
			return err;
		buf += PAGE_SIZE;
	}
	return 0;
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
		rxc_vm_flags_mod(vma, 0, VM_MAYWRITE);
	}

	err = rxc_mmap_pages(vma, entry->buf);
	if (err)
		ibdev_dbg(uctx->device, "mmap: mapping failed (%d)\n", err);

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
