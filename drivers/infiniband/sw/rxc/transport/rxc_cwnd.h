/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The RC requester's congestion window: how many PSNs it may have sent
 * and not seen acknowledged.  Pure arithmetic on its own state, so that
 * KUnit can drive it without a QP.
 */
#ifndef RXC_CWND_H
#define RXC_CWND_H

#include <linux/sizes.h>
#include <linux/types.h>

/*
 * The window never grows past RXC_CWND_MAX PSNs, read responses included,
 * nor past RXC_CWND_MAX_BYTES of payload, and never falls below
 * RXC_CWND_FLOOR_BYTES of it.  Both byte bounds become PSNs as bytes / mtu,
 * clamped to RXC_CWND_MAX.
 */
#define RXC_CWND_MAX		128
#define RXC_CWND_MAX_BYTES	SZ_128K
#define RXC_CWND_FLOOR_BYTES	SZ_64K

/**
 * struct rxc_cwnd - congestion window of an RC requester (QP task only)
 * @size: PSNs that may be unacknowledged
 * @floor: the least @size falls to
 * @max: the most @size grows to, by one per window acknowledged
 * @acked: PSNs acknowledged since @size last grew
 * @recover: the PSN after the highest sent when the loss episode began
 * @recovering: a loss episode is on: further losses before the oldest
 *		unacknowledged PSN reaches @recover belong to it
 */
struct rxc_cwnd {
	u32 size;
	u32 floor;
	u32 max;
	u32 acked;
	u32 recover;
	bool recovering;
};

void rxc_cwnd_init(struct rxc_cwnd *c, u32 mtu);
bool rxc_cwnd_loss(struct rxc_cwnd *c, u32 max_psn);
bool rxc_cwnd_timeout(struct rxc_cwnd *c, u32 max_psn);
void rxc_cwnd_acked(struct rxc_cwnd *c, u32 una, u32 n);
bool rxc_cwnd_full(const struct rxc_cwnd *c, u32 psn, u32 una);

#endif /* RXC_CWND_H */
