// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Counter values in memory user space supplies, described by a struct
 * ib_uverbs_buffer_desc at create time:
 *
 * - VA: user virtual memory.  The page is pinned with ib_umem for the
 *   counter's lifetime and mapped into the kernel, so updates from any
 *   context are plain atomics on that mapping, visible to the process
 *   through its own mapping of the same page.
 * - DMABUF: a dma-buf fd and an offset.  The counter holds a reference on
 *   the buffer and a kernel mapping from dma_buf_vmap() for its lifetime.
 *   The exporter must offer a CPU mapping of system memory: rxc is a
 *   software device, so the CPU is the "NIC" that writes the value.
 *
 * Process context (create and destroy).
 */
#include <linux/dma-buf.h>
#include <linux/vmalloc.h>
#include <kunit/visibility.h>
#include <rdma/ib_umem.h>

#include "rxc.h"
#include "rxc_compat.h"
#include "counters/rxc_cntr.h"

RXC_MODULE_IMPORT_NS(DMA_BUF);

const char *rxc_cntr_mem_name(enum rxc_cntr_mem_kind kind)
{
	switch (kind) {
	case RXC_CNTR_MEM_PAGE:
		return "page";
	case RXC_CNTR_MEM_VA:
		return "va";
	case RXC_CNTR_MEM_DMABUF:
		return "dmabuf";
	}
	return "?";
}

/**
 * rxc_cntr_desc_check - the checks that need no memory lookup
 * @desc: a descriptor as user space passed it
 *
 * No flag is defined yet, so any is unknown; unknown optional flags are
 * ignored, as the uAPI promises.  A value is 64 bits wide and updated
 * atomically, so it must be 8-byte aligned and the buffer 8 bytes long
 * at least.
 *
 * Return: 0 or -EINVAL.
 */
int rxc_cntr_desc_check(const struct ib_uverbs_buffer_desc *desc)
{
	if (desc->flags)
		return -EINVAL;
	if (desc->type != IB_UVERBS_BUFFER_TYPE_VA &&
	    desc->type != IB_UVERBS_BUFFER_TYPE_DMABUF)
		return -EINVAL;
	if (!IS_ALIGNED(desc->addr, sizeof(u64)))
		return -EINVAL;
	if (desc->length < sizeof(u64))
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rxc_cntr_desc_check);

static int rxc_cntr_mem_va(struct rxc_dev *rxc, struct rxc_cntr_mem *m,
			   const struct ib_uverbs_buffer_desc *desc,
			   const char *which)
{
	struct ib_umem *umem;
	struct page *page;
	void *vaddr;

	/* Aligned and 8 bytes long: the value never straddles two pages. */
	umem = rxc_umem_get(&rxc->ib_dev, desc->addr, sizeof(u64),
			    IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(umem)) {
		rxc_warn(rxc, "comp_cntr: %s buffer at %#llx cannot be pinned (%ld)\n",
			 which, desc->addr, PTR_ERR(umem));
		return PTR_ERR(umem);
	}
	/* The table starts at the page holding desc->addr. */
	page = sg_page(umem->sgt_append.sgt.sgl);
	vaddr = vmap(&page, 1, VM_MAP, PAGE_KERNEL);
	if (!vaddr) {
		ib_umem_release(umem);
		return -ENOMEM;
	}
	m->kind = RXC_CNTR_MEM_VA;
	m->addr = desc->addr;
	m->umem = umem;
	m->vaddr = vaddr;
	m->val = vaddr + offset_in_page(desc->addr);
	return 0;
}

static int rxc_cntr_mem_dmabuf(struct rxc_dev *rxc, struct rxc_cntr_mem *m,
			       const struct ib_uverbs_buffer_desc *desc,
			       const char *which)
{
	struct dma_buf *dmabuf;
	int err;

	dmabuf = dma_buf_get(desc->fd);
	if (IS_ERR(dmabuf)) {
		err = PTR_ERR(dmabuf);
		rxc_warn(rxc, "comp_cntr: %s buffer: fd %d is %s\n", which,
			 desc->fd, err == -EBADF ? "not open" : "not a dma-buf");
		return err;
	}
	if (desc->length > dmabuf->size ||
	    desc->addr > dmabuf->size - desc->length) {
		rxc_warn(rxc, "comp_cntr: %s buffer: %llu bytes at offset %llu do not fit a %zu-byte dma-buf\n",
			 which, desc->length, desc->addr, dmabuf->size);
		err = -EINVAL;
		goto err_put;
	}
	/*
	 * Updates are CPU atomics, so the exporter must map the buffer
	 * into the kernel as memory (not I/O memory).  udmabuf has no vmap
	 * before 6.2; the system dma-heap has.
	 */
	if (!dmabuf->ops->vmap) {
		rxc_warn(rxc, "comp_cntr: %s buffer: exporter %s cannot map it for the CPU\n",
			 which, dmabuf->exp_name);
		err = -EOPNOTSUPP;
		goto err_put;
	}
	err = rxc_dma_buf_vmap(dmabuf, &m->map);
	if (err) {
		rxc_warn(rxc, "comp_cntr: %s buffer: dma_buf_vmap failed (%d)\n",
			 which, err);
		goto err_put;
	}
	if (m->map.is_iomem) {
		rxc_warn(rxc, "comp_cntr: %s buffer: exporter %s gives I/O memory, which takes no CPU atomics\n",
			 which, dmabuf->exp_name);
		err = -EOPNOTSUPP;
		goto err_vunmap;
	}
	m->kind = RXC_CNTR_MEM_DMABUF;
	m->addr = desc->addr;
	m->dmabuf = dmabuf;
	m->val = m->map.vaddr + desc->addr;
	return 0;

err_vunmap:
	rxc_dma_buf_vunmap(dmabuf, &m->map);
err_put:
	dma_buf_put(dmabuf);
	return err;
}

/**
 * rxc_cntr_mem_import - place one counter value in user-supplied memory
 * @rxc: the device
 * @m: the value; left untouched on failure
 * @desc: where, as user space described it
 * @which: "completion" or "error", for messages
 *
 * Return: 0; -EINVAL for a malformed descriptor, -EBADF for an fd that is
 * not open, -EOPNOTSUPP for a dma-buf the CPU cannot update, or what
 * pinning returned (-EFAULT for an unmapped address).
 */
int rxc_cntr_mem_import(struct rxc_dev *rxc, struct rxc_cntr_mem *m,
			const struct ib_uverbs_buffer_desc *desc,
			const char *which)
{
	if (rxc_cntr_desc_check(desc)) {
		rxc_warn(rxc, "comp_cntr: bad %s buffer: type %u flags %#x addr %#llx length %llu (need VA or DMABUF, no flags, 8-byte aligned, 8 bytes or more)\n",
			 which, desc->type, desc->flags, desc->addr,
			 desc->length);
		return -EINVAL;
	}
	if (desc->type == IB_UVERBS_BUFFER_TYPE_VA)
		return rxc_cntr_mem_va(rxc, m, desc, which);
	return rxc_cntr_mem_dmabuf(rxc, m, desc, which);
}

/* Undo rxc_cntr_mem_import(); nothing for a value in a page slot. */
void rxc_cntr_mem_release(struct rxc_cntr_mem *m)
{
	switch (m->kind) {
	case RXC_CNTR_MEM_PAGE:
		return;
	case RXC_CNTR_MEM_VA:
		vunmap(m->vaddr);
		ib_umem_release(m->umem);
		break;
	case RXC_CNTR_MEM_DMABUF:
		rxc_dma_buf_vunmap(m->dmabuf, &m->map);
		dma_buf_put(m->dmabuf);
		break;
	}
	m->kind = RXC_CNTR_MEM_PAGE;
	m->val = NULL;
}
