// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The RC requester's congestion window.
 *
 * Go-back-N resends everything behind a lost packet, so a window larger
 * than the path can hold loses its tail on every burst and pays for each
 * loss again: on a virtio link, 128 PSNs of 4 KiB read responses overrun
 * the queues between the guests.  The window therefore follows the path,
 * as TCP's does: it halves once per loss episode (a sequence NAK or a gap
 * in the responses), falls to its floor when the retransmit timer fires,
 * then grows by one PSN per window acknowledged.  A loopback peer loses
 * nothing, and its window stays at the maximum.
 *
 * The path's queues hold bytes, not packets, so the window's bounds are
 * payload: 64 KiB to 128 KiB at every path MTU from 1024 up.  A bound of
 * 128 PSNs alone would let half a MiB of 4 KiB packets be in flight,
 * which lost as often on a virtio link as 128 KiB did, and resent twice
 * as much each time.  Halving 128 KiB lands on the floor, so there is no
 * slow start: a window at its floor grows as one past a loss does.
 *
 * The floor is 64 KiB of payload rather than a few packets: in a small
 * window more losses are tail losses, which nothing follows to draw a
 * sequence NAK, so they wait for the retransmit timer.
 *
 * Called from the QP task only (rxc_req.c, rxc_comp.c).
 */
#include <kunit/visibility.h>
#include <linux/minmax.h>

#include "rxc.h"
#include "rxc_cwnd.h"
#include "rxc_transport.h"

/**
 * rxc_cwnd_init - a new window, at its largest, for path MTU @mtu
 * @c: the window
 * @mtu: path MTU in bytes
 */
void rxc_cwnd_init(struct rxc_cwnd *c, u32 mtu)
{
	c->floor = clamp_t(u32, RXC_CWND_FLOOR_BYTES / mtu, 1, RXC_CWND_MAX);
	c->max = clamp_t(u32, RXC_CWND_MAX_BYTES / mtu, c->floor, RXC_CWND_MAX);
	c->size = c->max;
	c->acked = 0;
	c->recovering = false;
}
EXPORT_SYMBOL_IF_KUNIT(rxc_cwnd_init);

/* Start a loss episode that ends once everything sent so far is ACKed. */
static void rxc_cwnd_episode(struct rxc_cwnd *c, u32 max_psn)
{
	c->recover = max_psn;
	c->recovering = true;
	c->acked = 0;
}

/**
 * rxc_cwnd_loss - the peer showed a loss: halve the window, once per episode
 * @c: the window
 * @max_psn: the PSN after the highest sent
 *
 * Return: true when the window shrank.
 */
bool rxc_cwnd_loss(struct rxc_cwnd *c, u32 max_psn)
{
	u32 old = c->size;

	if (c->recovering)
		return false;
	c->size = max(c->size / 2, c->floor);
	rxc_cwnd_episode(c, max_psn);
	return c->size < old;
}
EXPORT_SYMBOL_IF_KUNIT(rxc_cwnd_loss);

/**
 * rxc_cwnd_timeout - nothing came back in time: restart from the floor
 * @c: the window
 * @max_psn: the PSN after the highest sent
 *
 * Return: true if the window shrank, false if it was at the floor.
 */
bool rxc_cwnd_timeout(struct rxc_cwnd *c, u32 max_psn)
{
	u32 old = c->size;

	c->size = c->floor;
	rxc_cwnd_episode(c, max_psn);
	return c->size < old;
}
EXPORT_SYMBOL_IF_KUNIT(rxc_cwnd_timeout);

/**
 * rxc_cwnd_acked - @n more PSNs were acknowledged, up to @una
 * @c: the window
 * @una: the oldest PSN now unacknowledged
 * @n: PSNs newly acknowledged
 *
 * A window grows only outside loss episodes: inside one, ACKs report
 * what the loss let through, not what the path can take.
 */
void rxc_cwnd_acked(struct rxc_cwnd *c, u32 una, u32 n)
{
	if (c->recovering) {
		if (rxc_psn_diff(una, c->recover) < 0)
			return;
		c->recovering = false;
	}
	c->acked += n;
	while (c->acked >= c->size && c->size < c->max) {
		c->acked -= c->size;
		c->size++;
	}
	if (c->size == c->max)
		c->acked = 0;
}
EXPORT_SYMBOL_IF_KUNIT(rxc_cwnd_acked);

/**
 * rxc_cwnd_full - may the packet at @psn not go out yet?
 * @c: the window
 * @psn: the PSN of the next packet
 * @una: the oldest unacknowledged PSN
 *
 * @psn may lie behind @una: an ACK can cover WQEs that a rewind put the
 * cursor back into, and the cursor steps over them only when it runs.
 * That is no full window: the distance is negative, not huge.
 */
bool rxc_cwnd_full(const struct rxc_cwnd *c, u32 psn, u32 una)
{
	return rxc_psn_diff(psn, una) >= (s32)c->size;
}
EXPORT_SYMBOL_IF_KUNIT(rxc_cwnd_full);
