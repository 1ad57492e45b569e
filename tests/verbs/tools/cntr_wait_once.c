// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * cntr_wait_once DEV
 *
 * Opens DEV, creates a completion counter, sets its value to 1 and WAITs
 * 200 ms for a threshold of 2, which nothing reaches.  Prints what the
 * WAIT returned and exits 0 only when it timed out (ETIMEDOUT) having
 * seen the value 1: a device that believes it is going away answers EIO
 * instead.  Used after a device moved between network namespaces, where
 * the device is disabled and enabled again.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../cntr_ioctl.h"
#include "../fixture.h"

int main(int argc, char **argv)
{
	struct ibv_context *ctx;
	uint64_t comp = 0;
	struct cntr cntr;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: cntr_wait_once DEV\n");
		return 2;
	}
	ctx = open_device_by_name(argv[1]);
	if (!ctx || cntr_create_ex(ctx, &cntr, -1, NULL, NULL) ||
	    cntr_modify(ctx, &cntr, ENTRY_COMP, OP_SET, 1)) {
		fprintf(stderr, "cntr_wait_once: no counter on %s\n", argv[1]);
		return 1;
	}
	rc = cntr_wait(ctx, &cntr, 2, NULL, 200, &comp, NULL);
	printf("wait: %s, value %llu\n", rc ? strerror(rc) : "0",
	       (unsigned long long)comp);
	cntr_destroy(ctx, &cntr);
	ibv_close_device(ctx);
	return rc != ETIMEDOUT || comp != 1;
}
