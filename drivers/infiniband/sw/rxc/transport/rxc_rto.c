// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Probing for a lost tail.
 *
 * A loss that nothing follows draws no sequence NAK and no gap in the
 * read responses: the last packets of a burst, or the ACK of the last
 * message.  Only the retransmit timer recovers it, and the local ACK
 * timeout the user set is made for a dead peer, not for a lost packet:
 * 67 ms at the common value 14, a second at rdma_cm's 18, where the
 * round trip between two hosts takes a millisecond or two.  On a lossy
 * link those timeouts come to most of a transfer's time.
 *
 * So the requester estimates the round trip as TCP does (RFC 6298: one
 * PSN timed at a time, never a resent one) and, when nothing has been
 * acknowledged for srtt + 4 * rttvar (at least RXC_PROBE_MIN_US), it
 * probes: it sends its oldest unacknowledged and its last packet again
 * (rxc_req_probe()), but spends no retry and leaves the congestion
 * window alone.  Each probe without
 * progress doubles the wait for the next one; the local ACK timeout
 * still ends the wait, once a probe has gone unanswered for its own.
 *
 * Called from the QP task only (rxc_req.c, rxc_comp.c).
 */
#include <kunit/visibility.h>
#include <linux/minmax.h>

#include "rxc.h"
#include "rxc_rto.h"
#include "rxc_transport.h"

/**
 * rxc_rto_sent - @psn goes out for the first time at @now_ns
 * @r: the estimate
 * @psn: its PSN
 * @now_ns: ktime_get_ns(); read only if rxc_rto_wants_sample()
 * @now_j: jiffies
 *
 * Times @psn if no PSN is being timed.
 */
void rxc_rto_sent(struct rxc_rto *r, u32 psn, u64 now_ns, unsigned long now_j)
{
	if (!rxc_rto_idle(r))
		return;
	r->sampling = true;
	r->sample_psn = psn;
	r->sample_ns = now_ns;
	r->sample_j = now_j;
}
EXPORT_SYMBOL_IF_KUNIT(rxc_rto_sent);

/* RFC 6298, 2.2 and 2.3, in microseconds. */
static void rxc_rto_sample(struct rxc_rto *r, u32 rtt_us)
{
	u32 dev;

	if (!r->srtt_us) {
		r->srtt_us = max(rtt_us, 1U);
		r->rttvar_us = rtt_us / 2;
		return;
	}
	dev = r->srtt_us > rtt_us ? r->srtt_us - rtt_us : rtt_us - r->srtt_us;
	r->rttvar_us = r->rttvar_us - r->rttvar_us / 4 + dev / 4;
	r->srtt_us = max(r->srtt_us - r->srtt_us / 8 + rtt_us / 8, 1U);
}

/**
 * rxc_rto_sample_done - does an ACK up to @una end the sample?
 * @r: the estimate
 * @una: the oldest PSN the ACK leaves unacknowledged
 *
 * Only then does rxc_rto_acked() read its clock argument, so a caller may
 * skip the clock otherwise: with one PSN timed per round trip, most ACKs
 * end no sample.
 */
bool rxc_rto_sample_done(const struct rxc_rto *r, u32 una)
{
	return r->sampling && rxc_psn_diff(una, r->sample_psn) > 0;
}
EXPORT_SYMBOL_IF_KUNIT(rxc_rto_sample_done);

/**
 * rxc_rto_acked - everything before @una is acknowledged, at @now_ns
 * @r: the estimate
 * @una: the oldest PSN now unacknowledged
 * @now_ns: ktime_get_ns(); read only if rxc_rto_sample_done()
 *
 * Progress: the next probe waits the base time again.  A clock that ran
 * backwards gives no sample: the difference would wrap to an hour's
 * round trip, and the pace (rxc_pace.c) would then stop the requester.
 */
void rxc_rto_acked(struct rxc_rto *r, u32 una, u64 now_ns)
{
	r->probes = 0;
	if (!rxc_rto_sample_done(r, una))
		return;
	r->sampling = false;
	if (now_ns < r->sample_ns)
		return;
	rxc_rto_sample(r, min_t(u64, div_u64(now_ns - r->sample_ns,
					     NSEC_PER_USEC), U32_MAX));
}
EXPORT_SYMBOL_IF_KUNIT(rxc_rto_acked);

/**
 * rxc_rto_rewound - packets are being sent again
 * @r: the estimate
 *
 * The PSN being timed may be among them, and its ACK would then time
 * the resend or the first send: neither is a sample (Karn).
 */
void rxc_rto_rewound(struct rxc_rto *r)
{
	r->sampling = false;
}
EXPORT_SYMBOL_IF_KUNIT(rxc_rto_rewound);

/**
 * rxc_rto_probe_us - how long to wait for progress before probing
 * @r: the estimate
 *
 * Return: microseconds, or 0 before the first sample: no probe then,
 * only the local ACK timeout.
 */
u32 rxc_rto_probe_us(const struct rxc_rto *r)
{
	u64 us;

	if (!r->srtt_us)
		return 0;
	us = max_t(u64, (u64)r->srtt_us + 4ULL * r->rttvar_us,
		   RXC_PROBE_MIN_US);
	return min_t(u64, us << min_t(u8, r->probes, 16), U32_MAX);
}
EXPORT_SYMBOL_IF_KUNIT(rxc_rto_probe_us);

/**
 * rxc_rto_fired - what a run of the retransmit timer does
 * @r: the estimate
 * @wait_over: the local ACK timeout of the current wait has passed
 *
 * The wait for progress runs out when its local ACK timeout has passed
 * and, for a requester that probes, a probe went unanswered.  A run
 * that finds the timeout passed before it probed at all comes late:
 * this CPU or the peer stalled for longer than the timeout, and the
 * answer may be on its way.  It probes, and the probe gets a whole wait
 * of its own, or its first interval, far shorter than the timeout,
 * would decide whether a link that lost nothing lost a packet.
 *
 * Return: the action to take.
 */
enum rxc_rto_action rxc_rto_fired(const struct rxc_rto *r, bool wait_over)
{
	if (!wait_over)
		return RXC_RTO_PROBE;
	if (rxc_rto_estimated(r) && !r->probes)
		return RXC_RTO_LATE_PROBE;
	return RXC_RTO_TIMEOUT;
}
EXPORT_SYMBOL_IF_KUNIT(rxc_rto_fired);
