/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Transport: requester, responder and completer, and the single path
 * through which every work request is retired.
 */
#ifndef RXC_TRANSPORT_H
#define RXC_TRANSPORT_H

#include <rdma/ib_verbs.h>

struct rxc_qp;

/**
 * struct rxc_completion - one retired work request
 * @wr_id: the caller's work request ID
 * @status: IB_WC_SUCCESS or the error
 * @opcode: the completion opcode (IB_WC_*)
 * @byte_len: bytes transferred (receives: bytes placed)
 * @wc_flags: IB_WC_WITH_IMM, IB_WC_GRH, ...
 * @ex: immediate data (as sent, big endian) or the invalidated rkey
 * @src_qp: source QPN (UD receives)
 * @recv: a receive work request (RQ or SRQ), else a send
 * @signaled: the work request asked for a CQE
 * @solicited: the message carried the solicited event bit
 */
struct rxc_completion {
	u64 wr_id;
	enum ib_wc_status status;
	enum ib_wc_opcode opcode;
	u32 byte_len;
	int wc_flags;
	u32 ex;
	u32 src_qp;
	bool recv;
	bool signaled;
	bool solicited;
};

void rxc_complete_wr(struct rxc_qp *qp, const struct rxc_completion *c);
void rxc_flush_sq(struct rxc_qp *qp);
void rxc_flush_rq(struct rxc_qp *qp);
enum ib_wc_opcode rxc_wr_to_wc_opcode(u32 wr_opcode);

#endif /* RXC_TRANSPORT_H */
