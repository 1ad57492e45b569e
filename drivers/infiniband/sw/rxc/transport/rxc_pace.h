/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The RC requester's pacing: when its packets may leave, so that a window
 * goes out over a round trip rather than in one burst.  Pure arithmetic
 * on its own state, so that KUnit can drive it without a QP.
 */
#ifndef RXC_PACE_H
#define RXC_PACE_H

#include <linux/sizes.h>
#include <linux/types.h>

/* Payload that may leave back to back: the depth of the bucket. */
#define RXC_PACE_BURST_BYTES	SZ_32K
/* Bytes leave at GAIN_NUM / GAIN_DEN windows per smoothed round trip. */
#define RXC_PACE_GAIN_NUM	5
#define RXC_PACE_GAIN_DEN	4
/*
 * The longest round trip the pace spreads a window over.  A longer
 * estimate is a stall (a peer that held its first ACK back, a paused
 * guest), not a path: pacing over it would idle the link for as long.
 */
#define RXC_PACE_MAX_RTT_US	10000

/**
 * struct rxc_pace - pacing of an RC requester (QP task only)
 * @next_ns: the bucket's clock: it holds the bytes that @ps_per_byte
 *	     allows in the time ktime_get_ns() is past it, at most a burst
 * @seen_ns: the last ktime_get_ns() it was given: the time now is no
 *	     earlier, so what the bucket held then it holds now
 * @max_ahead_ns: how far @next_ns may run ahead of the clock: a window's
 *		  time at the rate, at least a burst's.  The debt a large
 *		  message leaves is never more than a round trip
 * @ps_per_byte: the rate, in picoseconds per byte; 0 paces nothing
 * @waiting: the pace timer is armed, and the requester waits for it
 */
struct rxc_pace {
	u64 next_ns;
	u64 seen_ns;
	u64 max_ahead_ns;
	u32 ps_per_byte;
	bool waiting;
};

void rxc_pace_rate(struct rxc_pace *p, u32 srtt_us, u32 cwnd_bytes);
bool rxc_pace_take(struct rxc_pace *p, u32 bytes, u64 now_ns);
void rxc_pace_charge(struct rxc_pace *p, u32 bytes);
u64 rxc_pace_wait_ns(const struct rxc_pace *p, u64 now_ns);

#endif /* RXC_PACE_H */
