// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Finding a process's own rings; see rings.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "rings.h"

/* Reads the mappings now; -1 if /proc/self/maps cannot be read. */
int uverbs_maps_read(struct uverbs_maps *m)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	m->n = 0;
	if (!f)
		return -1;
	while (m->n < RINGS_MAX_MAPS && fgets(line, sizeof(line), f))
		if (strstr(line, "/dev/infiniband/uverbs") &&
		    sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %*s %" SCNx64,
			   &m->start[m->n], &m->end[m->n],
			   &m->offset[m->n]) == 3)
			m->n++;
	fclose(f);
	return 0;
}

static int was_mapped(const struct uverbs_maps *m, uintptr_t start,
		      uint64_t offset)
{
	int i;

	for (i = 0; i < m->n; i++)
		if (m->start[i] == start && m->offset[i] == offset)
			return 1;
	return 0;
}

/* Up to @max rings mapped since @before, in address order; how many. */
int uverbs_maps_new(const struct uverbs_maps *before,
		    struct rxe_queue_buf **ring, int max)
{
	struct uverbs_maps now;
	int i, n = 0;

	if (uverbs_maps_read(&now))
		return 0;
	for (i = 0; i < now.n && n < max; i++)
		if (!was_mapped(before, now.start[i], now.offset[i]))
			ring[n++] = (struct rxe_queue_buf *)now.start[i];
	return n;
}

/*
 * Unmaps every ring mapped since @before, going on past a failure; how
 * many, or -1 if one could not be unmapped.
 */
int uverbs_maps_unmap_new(const struct uverbs_maps *before)
{
	struct uverbs_maps now;
	int i, n = 0, failed = 0;

	if (uverbs_maps_read(&now))
		return -1;
	for (i = 0; i < now.n; i++) {
		if (was_mapped(before, now.start[i], now.offset[i]))
			continue;
		if (munmap((void *)now.start[i], now.end[i] - now.start[i]))
			failed = 1;
		else
			n++;
	}
	return failed ? -1 : n;
}
