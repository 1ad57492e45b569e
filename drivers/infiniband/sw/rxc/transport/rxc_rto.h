/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The RC requester's round-trip estimate, from which it probes for a
 * lost tail before the local ACK timeout.  Pure arithmetic on its own
 * state, so that KUnit can drive it without a QP.
 */
#ifndef RXC_RTO_H
#define RXC_RTO_H

#include <linux/types.h>

/* A probe never goes out sooner than this after the last progress. */
#define RXC_PROBE_MIN_US	10000

/**
 * struct rxc_rto - round-trip estimate of an RC requester (QP task only)
 * @sample_ns: ktime_get_ns() when @sample_psn first went out.  Not
 *	       local_clock(): the ACK may be taken on another CPU, and where
 *	       the TSCs are not synchronized each CPU's local_clock() runs
 *	       on its own, and cpu_clock() of a remote CPU returns the
 *	       later of the two CPUs' clocks
 * @sample_psn: the PSN being timed
 * @sample_j: jiffies when the latest sample started
 * @sampling: @sample_psn is being timed; a resend stops it (Karn)
 * @srtt_us: smoothed round trip, 0 before the first sample
 * @rttvar_us: its mean deviation
 * @probes: probes sent since the last progress; each doubles the wait
 */
struct rxc_rto {
	u64 sample_ns;
	u32 sample_psn;
	unsigned long sample_j;
	bool sampling;
	u32 srtt_us;
	u32 rttvar_us;
	u8 probes;
};

/* What a run of the retransmit timer does (rxc_rto_fired()). */
enum rxc_rto_action {
	RXC_RTO_PROBE,		/* ask for the tail within the current wait */
	RXC_RTO_LATE_PROBE,	/* the same, and wait anew: the run came late */
	RXC_RTO_TIMEOUT,	/* local ACK timeout: resend, spend a retry */
};

void rxc_rto_sent(struct rxc_rto *r, u32 psn, u64 now_ns, unsigned long now_j);
bool rxc_rto_sample_done(const struct rxc_rto *r, u32 una);
void rxc_rto_acked(struct rxc_rto *r, u32 una, u64 now_ns);
void rxc_rto_rewound(struct rxc_rto *r);
u32 rxc_rto_probe_us(const struct rxc_rto *r);
enum rxc_rto_action rxc_rto_fired(const struct rxc_rto *r, bool wait_over);

/*
 * Is no PSN being timed?  Only then does rxc_rto_sent() start a sample
 * and read its clock argument.
 */
static inline bool rxc_rto_idle(const struct rxc_rto *r)
{
	return !r->sampling;
}

/* Has a round trip been timed?  Until then the requester never probes. */
static inline bool rxc_rto_estimated(const struct rxc_rto *r)
{
	return r->srtt_us;
}

/*
 * Does a send at @now_j (jiffies) start a sample?  Only when no PSN is
 * being timed and, once there is an estimate, in another jiffy than the
 * latest sample started.  A ping-pong ends a sample with every message,
 * and reads the clock twice per message; where the clocksource is an
 * emulated device (the HPET of a QEMU guest whose vCPUs' TSCs failed
 * the synchronization check), each read is a trip into the emulator,
 * which rdma_rxe never makes.  A few hundred samples a second keep the
 * estimate, which only sizes the probes' wait (10 ms at least) and the
 * pace, as current.
 */
static inline bool rxc_rto_wants_sample(const struct rxc_rto *r,
					unsigned long now_j)
{
	return rxc_rto_idle(r) && (!rxc_rto_estimated(r) || now_j != r->sample_j);
}

#endif /* RXC_RTO_H */
