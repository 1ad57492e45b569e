/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What the examples share and is not about counters: opening a device,
 * an RC QP and its connection, exchanging connection data over TCP, and
 * bounded waiting.  Copy it along with an example.
 */
#ifndef RXC_EXAMPLES_COMMON_H
#define RXC_EXAMPLES_COMMON_H

#include <stdbool.h>
#include <stdint.h>
#include <infiniband/rxcdv.h>

/* Exits with a message naming the failed step and the errno value. */
void die(const char *what, int err) __attribute__((noreturn));

struct ibv_context *open_device(const char *name);

/* How the peer reaches our QP and buffer. */
struct conn_info {
	uint32_t qpn;
	uint32_t psn;
	uint32_t rkey;
	uint32_t pad;
	uint64_t addr;
	union ibv_gid gid;
};

/*
 * An RC QP in RESET on @cq, both queues @max_wr deep, @inline_size bytes
 * of inline data.
 */
struct ibv_qp *create_rc_qp(struct ibv_pd *pd, struct ibv_cq *cq,
			    uint32_t max_wr, uint32_t inline_size);

/* RESET -> INIT -> RTR -> RTS, connected to @peer through @gid_index. */
void connect_rc_qp(struct ibv_qp *qp, int gid_index,
		   const struct conn_info *peer, uint32_t my_psn);

/*
 * Swaps @mine for the peer's over TCP: listens on @port when @host is
 * NULL (the server), connects otherwise.  Returns the socket, which the
 * caller may use for a final handshake (sync_peer()).
 */
int exchange(const char *host, int port, const struct conn_info *mine,
	     struct conn_info *peer);

/* Both sides call it; returns when both got there. */
void sync_peer(int sock);

/* Milliseconds on a monotonic clock. */
uint64_t now_ms(void);

/*
 * Polls @value until it is at least @want, yielding between loads,
 * without system calls beyond sched_yield(); gives up after @timeout_ms.
 * While polling, a non-zero @err (may be NULL) means a work request
 * failed: returns false at once.  Returns true when reached.
 */
bool poll_at_least(const volatile uint64_t *value, uint64_t want,
		   const volatile uint64_t *err, unsigned int timeout_ms);

#endif /* RXC_EXAMPLES_COMMON_H */
