/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What the fuzzers share: a seeded random stream that is the same on
 * every machine, and a live RC connection that checks every byte it moves
 * while the fuzzing goes on, so that damage beyond the fuzzed objects
 * shows as wrong data or a failed transfer.
 */
#ifndef RXC_TESTS_FUZZ_LIB_H
#define RXC_TESTS_FUZZ_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#define FUZZ_GID_INDEX	1	/* the IPv4-mapped GID of the test netdev */
#define FUZZ_XFER_LEN	4096

/*
 * The options every fuzzer takes, -d DEV [-s SEED] [-n COUNT] [-T SECS],
 * and one numeric option of its own.  Preset the defaults, then parse.
 */
struct fuzz_opts {
	const char *dev;
	uint64_t seed;		/* default: from the time and the PID */
	uint64_t count;
	unsigned int secs;
	char own_opt;		/* the letter of the tool's own option, or 0 */
	unsigned int own;	/* its value; must not be 0 */
};

bool fuzz_parse(int argc, char **argv, struct fuzz_opts *o);
void fuzz_die(const char *what);
uint64_t fuzz_now_ns(void);
struct ibv_device *fuzz_find_device(const char *name);

/* xorshift64* state; never zero. */
struct fuzz_rng {
	uint64_t s;
};

void fuzz_rng_init(struct fuzz_rng *r, uint64_t seed, unsigned int stream);
uint64_t fuzz_rnd(struct fuzz_rng *r);
uint32_t fuzz_rnd_below(struct fuzz_rng *r, uint32_t n);
uint64_t fuzz_rnd_val(struct fuzz_rng *r);
unsigned int fuzz_pick(struct fuzz_rng *r, const unsigned int *weight,
		       unsigned int n, size_t stride);

int fuzz_rc_connect(struct ibv_qp *qp, uint32_t dest_qpn,
		    unsigned int access);

/* The checked connection: a QP connected to itself on its own context. */
struct fuzz_traffic {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	char *buf;
	uint64_t done;
	const char *error;
	volatile int stop;
};

bool fuzz_traffic_open(struct fuzz_traffic *t, struct ibv_device *dev);
int fuzz_traffic_connect(struct fuzz_traffic *t);
void fuzz_traffic_setup(struct fuzz_traffic *t, struct ibv_device *dev);
bool fuzz_traffic_round(struct fuzz_traffic *t);
void *fuzz_traffic_main(void *arg);
bool fuzz_traffic_after(struct fuzz_traffic *t, unsigned int rounds);
void fuzz_traffic_release(struct fuzz_traffic *t);

#endif /* RXC_TESTS_FUZZ_LIB_H */
