/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Finding a process's own rings.  librxe keeps its ring pointers private,
 * so the tests find them the way any process could: a verbs object's
 * rings are the mappings of the uverbs device that appear when it is
 * created.  A mapping is told by its file offset as well as its address,
 * since a resized ring may be mapped where the old one was.
 */
#ifndef RXC_TESTS_VERBS_RINGS_H
#define RXC_TESTS_VERBS_RINGS_H

#include <stdint.h>
#include <rdma/rdma_user_rxe.h>

#define RINGS_MAX_MAPS	128

struct uverbs_maps {
	uintptr_t start[RINGS_MAX_MAPS];
	uintptr_t end[RINGS_MAX_MAPS];
	uint64_t offset[RINGS_MAX_MAPS];
	int n;
};

int uverbs_maps_read(struct uverbs_maps *m);
int uverbs_maps_new(const struct uverbs_maps *before,
		    struct rxe_queue_buf **ring, int max);
int uverbs_maps_unmap_new(const struct uverbs_maps *before);

#endif /* RXC_TESTS_VERBS_RINGS_H */
