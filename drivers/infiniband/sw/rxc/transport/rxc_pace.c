// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Pacing the RC requester.
 *
 * Between two hosts, a requester that sends its whole window at once
 * loses the window's tail: the burst arrives faster than the receiving
 * guest drains it, and the queue in front of it (the host's socket
 * buffer behind a virtio link, a switch port) overflows, though the link
 * is idle for much of the round trip.  Go-back-N then resends everything
 * behind the loss.  So, as TCP does, the requester spreads its window
 * over the smoothed round trip, at a little more than one window per
 * round trip so that the rate can still rise: the bytes leave in bursts
 * of at most RXC_PACE_BURST_BYTES, a burst's worth of time apart.  A
 * read's responses are charged as they arrive (rxc_pace_charge()), not
 * when the read is asked for: a read of a gigabyte charged at once
 * would owe hours at the rate of a slow round trip.
 *
 * The bucket is a clock, @next_ns: the bytes taken move it on, and it
 * never lags the present by more than a burst, so an idle requester
 * gains no more than one burst.  Nor does it run ahead of the present by
 * more than a window's time, so no message, however large, holds the
 * requester back for longer than a round trip; and the round trip it
 * paces over is at most RXC_PACE_MAX_RTT_US, so that one late ACK, whose
 * round trip the estimate keeps for a while, cannot slow the requester
 * to a crawl meanwhile.  What it held at the last clock reading
 * it holds now, so the requester reads the clock only once that is
 * spent (rxc_req_pace_wait()): once a burst while it is paced, once in
 * thousands of packets for small messages, and never on a path whose
 * round trip is too short to pace anything.
 *
 * The clock is ktime_get_ns(), not local_clock(): the requester runs on
 * any CPU, and where the TSCs are not synchronized each CPU's
 * local_clock() is its own, a tick apart from the others'; the pace
 * timer that ends a wait runs on CLOCK_MONOTONIC, the same clock.
 *
 * Called from the QP task only (rxc_req.c, rxc_comp.c).
 */
#include <kunit/visibility.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/time64.h>

#include "rxc.h"
#include "rxc_pace.h"
#include "rxc_transport.h"

/* The time @bytes take at the pace's rate. */
static u64 rxc_pace_ns(const struct rxc_pace *p, u32 bytes)
{
	return div_u64((u64)bytes * p->ps_per_byte, PSEC_PER_NSEC);
}

/**
 * rxc_pace_rate - pace @cwnd_bytes per @srtt_us, times the gain
 * @p: the pace
 * @srtt_us: the smoothed round trip, taken as at most RXC_PACE_MAX_RTT_US;
 *	     0 (none yet) paces nothing
 * @cwnd_bytes: the congestion window, in payload bytes
 */
void rxc_pace_rate(struct rxc_pace *p, u32 srtt_us, u32 cwnd_bytes)
{
	u32 rtt_us = min(srtt_us, RXC_PACE_MAX_RTT_US);
	u64 ps = (u64)rtt_us * NSEC_PER_USEC * PSEC_PER_NSEC * RXC_PACE_GAIN_DEN;

	cwnd_bytes = max(cwnd_bytes, 1U);
	ps = div64_u64(ps, (u64)cwnd_bytes * RXC_PACE_GAIN_NUM);
	p->ps_per_byte = min_t(u64, ps, U32_MAX);
	p->max_ahead_ns = max(rxc_pace_ns(p, cwnd_bytes),
			      rxc_pace_ns(p, RXC_PACE_BURST_BYTES));
}
EXPORT_SYMBOL_IF_KUNIT(rxc_pace_rate);

/*
 * Bring the bucket to @now_ns: credit for the time since, at most a
 * burst.  Return the bucket's depth in time.
 */
static u64 rxc_pace_refill(struct rxc_pace *p, u64 now_ns)
{
	u64 burst = rxc_pace_ns(p, RXC_PACE_BURST_BYTES);

	p->seen_ns = max(p->seen_ns, now_ns);
	if (now_ns > p->next_ns + burst)
		p->next_ns = now_ns - burst;
	return burst;
}

/* Spend @cost of the bucket, as debt if need be, but at most a window's. */
static void rxc_pace_spend(struct rxc_pace *p, u64 cost, u64 now_ns)
{
	p->next_ns = min(p->next_ns + cost, now_ns + p->max_ahead_ns);
}

/**
 * rxc_pace_take - may @bytes leave, at @now_ns?  Counts them if so.
 * @p: the pace
 * @bytes: the payload the packet carries
 * @now_ns: ktime_get_ns(), or @p->seen_ns to ask without reading it
 *
 * A packet larger than a burst leaves once the bucket is full, and the
 * bucket goes into debt for the rest.
 *
 * Return: true when they may.
 */
bool rxc_pace_take(struct rxc_pace *p, u32 bytes, u64 now_ns)
{
	u64 burst = rxc_pace_refill(p, now_ns);
	u64 cost = rxc_pace_ns(p, bytes);

	if (p->next_ns + min(cost, burst) > now_ns)
		return false;
	rxc_pace_spend(p, cost, now_ns);
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(rxc_pace_take);

/**
 * rxc_pace_charge - count @bytes that arrived for a read
 * @p: the pace
 * @bytes: the payload of a read response
 *
 * They are already here, so nothing is asked: the bucket only pays,
 * going into debt if need be, as of the last clock reading.
 */
void rxc_pace_charge(struct rxc_pace *p, u32 bytes)
{
	rxc_pace_refill(p, p->seen_ns);
	rxc_pace_spend(p, rxc_pace_ns(p, bytes), p->seen_ns);
}
EXPORT_SYMBOL_IF_KUNIT(rxc_pace_charge);

/**
 * rxc_pace_wait_ns - how long a requester that rxc_pace_take() refused waits
 * @p: the pace
 * @now_ns: ktime_get_ns()
 *
 * It waits until the bucket is full, not until its next packet would
 * fit: the pace timer then fires once a burst, not once a packet.
 *
 * Return: nanoseconds from @now_ns.
 */
u64 rxc_pace_wait_ns(const struct rxc_pace *p, u64 now_ns)
{
	u64 full = p->next_ns + rxc_pace_ns(p, RXC_PACE_BURST_BYTES);

	return full > now_ns ? full - now_ns : 0;
}
EXPORT_SYMBOL_IF_KUNIT(rxc_pace_wait_ns);
