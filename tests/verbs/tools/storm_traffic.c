// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * storm_traffic: checked traffic with completion counters attached, for
 * tearing things down under it.
 *
 *   storm_traffic -d DEV [-n ROUNDS] [-T SECS] [READY_FILE]
 *
 * An RC QP connected to itself, with a WRS counter attached for its own
 * operations and a BYTES counter for its peer's (itself again), writes
 * 4 KiB across its buffer and reads it back, checking every byte, round
 * after round.  READY_FILE, if given, is created once the first round
 * has passed.  The guest script then kills
 * it, or removes the device or its netdev under it.
 *
 * Exit status: 0 after ROUNDS rounds (or SECS seconds) with the counters
 * agreeing, or when a failed request comes with the device gone, which is
 * what removal must look like; 1 on wrong data, which nothing excuses,
 * on a failure while the device is still there, or on counters that
 * disagree with the traffic.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../cntr_ioctl.h"
#include "fuzz_lib.h"

static struct fuzz_opts opt = {
	.count = UINT64_MAX, .secs = 300,
};

static void usage(void)
{
	fprintf(stderr, "usage: storm_traffic -d DEV [-n ROUNDS] [-T SECS] [READY_FILE]\n");
	exit(2);
}

/*
 * Whether the device went away: an unregistered device answers queries
 * with an error, and its contexts get IBV_EVENT_DEVICE_FATAL.
 */
static bool device_gone(struct ibv_context *ctx)
{
	struct ibv_port_attr port;
	struct ibv_async_event ev;
	int flags = fcntl(ctx->async_fd, F_GETFL);

	if (ibv_query_port(ctx, 1, &port))
		return true;
	if (flags < 0 || fcntl(ctx->async_fd, F_SETFL, flags | O_NONBLOCK))
		return false;
	while (!ibv_get_async_event(ctx, &ev)) {
		enum ibv_event_type type = ev.event_type;

		ibv_ack_async_event(&ev);
		if (type == IBV_EVENT_DEVICE_FATAL)
			return true;
	}
	return false;
}

static bool data_error(const char *error)
{
	return error && strstr(error, "differs");
}

/*
 * Each round is a signaled write and a signaled read on a QP connected to
 * itself, 4 KiB each: the WRS counter sees the two local operations, the
 * BYTES counter the two remote ones, whose counts may land just after the
 * requester's completion.
 */
static int check_counters(struct fuzz_traffic *t, struct cntr *wrs,
			  struct cntr *bytes)
{
	uint64_t n = 0, b = 0, err = 0, want = 2 * t->done;

	cntr_wait(t->ctx, bytes, want * FUZZ_XFER_LEN, NULL, 2000, &b, &err);
	if (cntr_read(t->ctx, wrs, ENTRY_COMP, &n)) {
		printf("storm_traffic: FAIL: cannot read the WRS counter\n");
		return 1;
	}
	if (n != want || b != want * FUZZ_XFER_LEN || err) {
		printf("storm_traffic: FAIL: %" PRIu64 " rounds, but counters %" PRIu64 " WRs, %" PRIu64 " bytes, %" PRIu64 " errors\n",
		       t->done, n, b, err);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct fuzz_traffic t = { 0 };
	struct cntr wrs, bytes;
	struct ibv_device *dev;
	const char *ready;
	uint64_t end;

	if (!fuzz_parse(argc, argv, &opt))
		usage();
	if (optind + 1 < argc)
		usage();
	ready = optind < argc ? argv[optind] : NULL;
	setvbuf(stdout, NULL, _IOLBF, 0);
	dev = fuzz_find_device(opt.dev);
	if (!dev)
		fuzz_die("no such device");
	if (!fuzz_traffic_open(&t, dev) ||
	    cntr_create_ex(t.ctx, &wrs, RXC_COMP_CNTR_TYPE_WRS, NULL, NULL) ||
	    cntr_create_ex(t.ctx, &bytes, RXC_COMP_CNTR_TYPE_BYTES, NULL,
			   NULL) ||
	    qp_attach(t.ctx, t.qp, &wrs, OP_SEND | OP_RECV | OP_WRITE | OP_READ) ||
	    qp_attach(t.ctx, t.qp, &bytes, OP_REMOTE_WRITE | OP_REMOTE_READ) ||
	    fuzz_traffic_connect(&t))
		fuzz_die("cannot set up a QP with counters");

	end = fuzz_now_ns() + (uint64_t)opt.secs * 1000000000ull;
	while (t.done < opt.count && fuzz_now_ns() < end &&
	       fuzz_traffic_round(&t)) {
		if (t.done == 1 && ready && close(creat(ready, 0644)))
			fuzz_die("cannot create the ready file");
	}
	if (!t.error) {
		printf("storm_traffic: %" PRIu64 " rounds\n", t.done);
		return check_counters(&t, &wrs, &bytes);
	}
	if (!data_error(t.error) && device_gone(t.ctx)) {
		printf("storm_traffic: %" PRIu64 " rounds, then the device went (%s)\n",
		       t.done, t.error);
		return 0;
	}
	printf("storm_traffic: FAIL after %" PRIu64 " rounds: %s\n", t.done,
	       t.error);
	return 1;
}
