// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Doorbell streams (Documentation/rxc.rst, "Transport", "Streams"): a
 * doorbell streams, handing the transport to the work item on another
 * CPU, when unsignaled WQEs follow each other on a QP or when one CPU
 * drives many QPs at once; every other doorbell runs the transport
 * inline.  The port counter "doorbells_streamed" says which happened.
 *
 * Streaming or not, every work request must land, in order, and complete
 * or count exactly once; and the latency workloads (one QP, or two in
 * turn, or unsignaled posts far apart, or an unsignaled ping-pong) must
 * stay inline.  rxc only, with the data path.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cntr_ioctl.h"
#include "fixture.h"

#define SLOTS		(HALF / 8)	/* 8-byte write slots per QP */
#define MAX_QPS		4
#define BURST		8		/* writes per QP between polls */
/* Longer than the gap after which a doorbell runs inline again. */
#define PAUSE_MS	5
/* The longest gap between the doorbells of one stream (rxc_task.c). */
#define STREAM_GAP_US	500
/* Where the kernel keeps every unbound workqueue, rxc_stream among them. */
#define WQ_CPUMASK	"/sys/devices/virtual/workqueue/cpumask"

/* How streams_make() connects its QPs. */
enum link {
	EACH_TO_ITSELF,
	FIRST_TWO_PAIRED,	/* the first two to each other, the rest to itself */
};

struct streams {
	struct loop l[MAX_QPS];
	unsigned int peer[MAX_QPS];	/* the QP each one writes to */
	unsigned int nqps;
	struct cntr cntr;	/* RDMA_WRITE on l[0], when @counted */
	bool counted;
	long long streamed;	/* doorbells_streamed at the start */
};

static void streams_free(struct test_env *env, struct streams *s)
{
	while (s->nqps)
		loop_destroy(&s->l[--s->nqps]);
	if (s->counted)
		CHECK_OK(cntr_destroy(env->ctx, &s->cntr));
}

/*
 * @nqps RC QPs connected as @link says; the first with an RDMA_WRITE
 * counter attached when @counted.  Starts after a pause, so that no
 * earlier doorbell makes these stream.
 */
static bool streams_make(struct test_env *env, struct streams *s,
			 unsigned int nqps, bool counted, enum link link)
{
	struct loop *l;
	unsigned int q;

	memset(s, 0, sizeof(*s));
	for (; s->nqps < nqps; s->nqps++) {
		l = &s->l[s->nqps];
		s->peer[s->nqps] = s->nqps;
		if (!loop_create(env, l, IBV_QPT_RC, ALL_ACCESS))
			goto err;
		if (counted && !s->counted) {
			if (!CHECK_OK(cntr_create_ex(env->ctx, &s->cntr,
						     RXC_COMP_CNTR_TYPE_WRS,
						     NULL, NULL)))
				goto err_loop;
			s->counted = true;
			if (!CHECK_OK(qp_attach(env->ctx, l->qp, &s->cntr,
				IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE)))
				goto err_loop;
		}
	}
	if (link == FIRST_TWO_PAIRED && nqps >= 2) {
		s->peer[0] = 1;
		s->peer[1] = 0;
	}
	for (q = 0; q < nqps; q++)
		if (!CHECK_OK(qp_connect_to(env, s->l[q].qp,
					    s->l[s->peer[q]].qp->qp_num)))
			goto err;
	sleep_ms(PAUSE_MS);
	s->streamed = port_counter(env, "doorbells_streamed");
	return CHECK(s->streamed >= 0, "no doorbells_streamed counter");
err_loop:
	loop_destroy(l);
err:
	streams_free(env, s);
	return false;
}

/* Doorbells that streamed since streams_make(). */
static long long streamed(struct test_env *env, const struct streams *s)
{
	return port_counter(env, "doorbells_streamed") - s->streamed;
}

/*
 * Write @v from slot @v % SLOTS of QP @q to that slot of its peer's,
 * signaled or not.  The send queue's depth is far below SLOTS: a slot's
 * previous write has completed by the time it is written again.
 */
static int post_slot(struct streams *s, unsigned int q, uint32_t v, bool sig)
{
	struct loop *l = &s->l[q], *to = &s->l[s->peer[q]];
	uint64_t *src = (uint64_t *)l->src, *dst = (uint64_t *)to->dst;
	uint32_t slot = v % SLOTS;
	struct ibv_sge sge = { (uintptr_t)&src[slot], 8, l->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = v, .opcode = IBV_WR_RDMA_WRITE, .sg_list = &sge,
		.num_sge = 1, .send_flags = sig ? IBV_SEND_SIGNALED : 0,
		.wr.rdma = { (uintptr_t)&dst[slot], to->mr->rkey },
	}, *bad;

	src[slot] = v;
	return ibv_post_send(l->qp, &wr, &bad);
}

/* Each slot of QP @q's peer holds the last of @q's @n writes to it. */
static void check_slots(const struct streams *s, unsigned int q, uint32_t n)
{
	const uint64_t *dst = (const uint64_t *)s->l[s->peer[q]].dst;
	uint32_t i, last;

	for (i = 0; i < SLOTS && i < n; i++) {
		last = i + (n - 1 - i) / SLOTS * SLOTS;
		if (!CHECK(dst[i] == last,
			   "QP %u's peer slot %u: %llu, expected %u",
			   q, i, (unsigned long long)dst[i], last))
			return;
	}
}

/* Reap @n signaled writes of QP @q, numbered from @first, in order. */
static bool reap_in_order(struct streams *s, unsigned int q, uint32_t first,
			  uint32_t n)
{
	struct ibv_wc wc[BURST];
	uint32_t i;

	if (!CHECK_EQ(poll_cq_wait(s->l[q].scq, wc, n), (int)n))
		return false;
	for (i = 0; i < n; i++)
		check_wc(&wc[i], first + i, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
	return true;
}

#define UNSIG_N		2000

/* Whether this guest has a CPU for a stream to go to. */
static bool one_cpu_online(void)
{
	return sysconf(_SC_NPROCESSORS_ONLN) == 1;
}

/*
 * UNSIG_N unsignaled writes posted back to back on @s's first QP, which
 * has a counter; each lands, in order, the counter counts each once,
 * and none writes a CQE.
 */
static bool write_unsignaled(struct test_env *env, struct streams *s)
{
	struct ibv_wc wc;
	uint64_t v;
	uint32_t i;
	int err;

	for (i = 0; i < UNSIG_N; i++) {
		/* A full send queue: wait for the counter to free a slot. */
		while ((err = post_slot(s, 0, i, false)) == ENOMEM)
			if (!CHECK_OK(cntr_wait(env->ctx, &s->cntr,
						i - s->l[0].cap.max_send_wr + 1,
						NULL, TEST_TIMEOUT_MS, NULL,
						NULL)))
				return false;
		if (!CHECK_OK(err))
			return false;
	}
	if (!CHECK_OK(cntr_wait(env->ctx, &s->cntr, UNSIG_N, NULL,
				TEST_TIMEOUT_MS, NULL, NULL)))
		return false;
	CHECK_OK(cntr_read(env->ctx, &s->cntr, ENTRY_COMP, &v));
	CHECK_EQ(v, UNSIG_N);
	CHECK_OK(cntr_read(env->ctx, &s->cntr, ENTRY_ERR, &v));
	CHECK_EQ(v, 0);
	check_slots(s, 0, UNSIG_N);
	return CHECK_EQ(ibv_poll_cq(s->l[0].scq, 1, &wc), 0);
}

/*
 * Unsignaled writes posted back to back stream, given a CPU to go to:
 * to the QP itself, whose own requests reach its responder and are no
 * peer's turn, and one way to another QP, which answers with ACKs only.
 */
static void unsignaled_writes_back_to_back_stream(struct test_env *env)
{
	static const struct {
		const char *to;
		unsigned int nqps;
		enum link link;
	} cases[] = {
		{ "itself", 1, EACH_TO_ITSELF },
		{ "another QP", 2, FIRST_TWO_PAIRED },
	};
	struct streams s;
	unsigned int i;

	if (one_cpu_online()) {
		tap_skip("one CPU online: streams_with_one_cpu_online_run_inline");
		return;
	}
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		if (!streams_make(env, &s, cases[i].nqps, true, cases[i].link))
			return;
		if (write_unsignaled(env, &s))
			CHECK(streamed(env, &s) > 0, "to %s: no doorbell streamed",
			      cases[i].to);
		streams_free(env, &s);
	}
}

/*
 * @rounds bursts of BURST signaled writes to each of @nqps QPs in turn,
 * each burst reaped before the next: every write completes in order on
 * its QP and lands.  Returns the bursts whose doorbells all rang within
 * STREAM_GAP_US of the one before: only those can stream.  On a slow
 * enough CPU (the debug kernel under emulation) none can.
 */
static uint32_t drive_in_turn(struct streams *s, unsigned int nqps,
			      uint32_t rounds)
{
	uint64_t t, prev, gap;
	uint32_t r, i, fast = 0;
	unsigned int q;

	for (r = 0; r < rounds; r++) {
		prev = now_us();
		gap = 0;
		for (i = r * BURST; i < (r + 1) * BURST; i++)
			for (q = 0; q < nqps; q++) {
				t = now_us();
				if (t - prev > gap)
					gap = t - prev;
				prev = t;
				if (!CHECK_OK(post_slot(s, q, i, true)))
					return fast;
			}
		fast += gap < STREAM_GAP_US;
		for (q = 0; q < nqps; q++)
			if (!reap_in_order(s, q, r * BURST, BURST))
				return fast;
	}
	for (q = 0; q < nqps; q++)
		check_slots(s, q, rounds * BURST);
	return fast;
}

/* One thread driving four QPs in turn streams. */
static void four_qps_driven_in_turn_stream(struct test_env *env)
{
	struct streams s;
	uint32_t fast;

	if (!streams_make(env, &s, 4, false, EACH_TO_ITSELF))
		return;
	fast = drive_in_turn(&s, 4, SLOTS / BURST);
	if (one_cpu_online())
		tap_skip("one CPU online: streams_with_one_cpu_online_run_inline");
	else if (fast)
		CHECK(streamed(env, &s) > 0,
		      "no doorbell streamed in %u fast bursts", fast);
	else
		tap_skip("no burst rang its doorbells within %u us of each other",
			 STREAM_GAP_US);
	streams_free(env, &s);
}

/*
 * The latency workloads run inline: signaled writes on one QP, two QPs
 * in turn (a ping-pong), and unsignaled writes posted a pause apart.
 */
#define PINGS		200

/*
 * Write @v from QP @q to its peer, unsignaled, and wait until it lands
 * there, as a ping-pong does.  A full send queue waits for the ACKs to
 * free a slot.
 */
static bool ping(struct streams *s, unsigned int q, uint32_t v)
{
	const volatile uint64_t *dst =
		(const volatile uint64_t *)s->l[s->peer[q]].dst;
	uint64_t deadline = now_us() + TEST_TIMEOUT_MS * 1000ULL;
	int err;

	while ((err = post_slot(s, q, v, false)) == ENOMEM &&
	       now_us() < deadline)
		sched_yield();
	if (!CHECK_OK(err))
		return false;
	while (dst[v % SLOTS] != v)
		if (!CHECK(now_us() < deadline,
			   "QP %u's write %u never landed", q, v))
			return false;
	return true;
}

/*
 * An unsignaled ping-pong between two QPs (UCX's put_lat): each write
 * follows the peer's, so no doorbell streams, however far under the
 * stream gap the round trip is.  Only round trips within the gap could
 * stream at all.
 */
static void unsignaled_ping_pong_runs_inline(struct test_env *env)
{
	uint32_t v, fast = 0;
	struct streams s;
	uint64_t t;

	if (!streams_make(env, &s, 2, false, FIRST_TWO_PAIRED))
		return;
	for (v = 1; v <= PINGS; v++) {
		t = now_us();
		if (!ping(&s, 0, v) || !ping(&s, 1, v))
			break;
		fast += now_us() - t < STREAM_GAP_US;
	}
	printf("# %u of %u round trips within %u us\n", fast, PINGS,
	       STREAM_GAP_US);
	if (fast)
		CHECK(streamed(env, &s) == 0,
		      "%lld of %u doorbells streamed", streamed(env, &s),
		      2 * PINGS);
	else
		tap_skip("no round trip within %u us", STREAM_GAP_US);
	streams_free(env, &s);
}

static void one_or_two_qps_and_spaced_unsignaled_writes_run_inline(
	struct test_env *env)
{
	struct ibv_wc wc;
	struct streams s;
	uint64_t base;
	uint32_t i;

	if (!streams_make(env, &s, 2, true, EACH_TO_ITSELF))
		return;
	drive_in_turn(&s, 1, SLOTS / BURST);
	CHECK(streamed(env, &s) == 0, "one QP: %lld doorbells streamed",
	      streamed(env, &s));
	drive_in_turn(&s, 2, SLOTS / BURST);
	CHECK(streamed(env, &s) == 0, "two QPs: %lld doorbells streamed",
	      streamed(env, &s));
	if (!CHECK_OK(cntr_read(env->ctx, &s.cntr, ENTRY_COMP, &base)))
		goto out;
	for (i = 0; i < 4; i++) {
		sleep_ms(PAUSE_MS);
		if (!CHECK_OK(post_slot(&s, 0, i, false)) ||
		    !CHECK_OK(cntr_wait(env->ctx, &s.cntr, base + i + 1, NULL,
					TEST_TIMEOUT_MS, NULL, NULL)))
			break;
	}
	CHECK_EQ(ibv_poll_cq(s.l[0].scq, 1, &wc), 0);
	CHECK(streamed(env, &s) == 0, "spaced: %lld doorbells streamed",
	      streamed(env, &s));
out:
	streams_free(env, &s);
}

/* The place of this thread and of the unbound workqueues, to restore. */
struct placement {
	cpu_set_t mine;
	char wq_mask[128];
};

/* Write @value to the sysfs file @path; false if it would not take it. */
static bool write_sysfs(const char *path, const char *value)
{
	FILE *f = fopen(path, "w");
	bool ok;

	if (!f)
		return false;
	ok = fputs(value, f) >= 0;
	return (fclose(f) == 0) && ok;
}

/*
 * Put this thread and every unbound workqueue on CPU 0 alone, as if the
 * host had no other CPU free.  False, with the place unchanged, where
 * that cannot be done (one CPU only is fine: it is the case tested).
 */
static bool confine_to_cpu0(struct placement *p)
{
	cpu_set_t one;
	FILE *f;

	if (sched_getaffinity(0, sizeof(p->mine), &p->mine))
		return false;
	f = fopen(WQ_CPUMASK, "r");
	if (!f)
		return false;
	if (!fgets(p->wq_mask, sizeof(p->wq_mask), f)) {
		fclose(f);
		return false;
	}
	fclose(f);
	if (!write_sysfs(WQ_CPUMASK, "1"))
		return false;
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (sched_setaffinity(0, sizeof(one), &one)) {
		write_sysfs(WQ_CPUMASK, p->wq_mask);
		return false;
	}
	return true;
}

static void unconfine(const struct placement *p)
{
	CHECK(write_sysfs(WQ_CPUMASK, p->wq_mask), "restore %s", WQ_CPUMASK);
	CHECK_OK(sched_setaffinity(0, sizeof(p->mine), &p->mine));
}

/*
 * Streams hand the transport to another CPU.  With none free, their runs
 * wait on the poster's CPU: after a few such runs every doorbell of that
 * CPU that would stream runs inline instead ("doorbells_held") for the
 * rest of a hold, so most of the doorbells of four QPs driven in turn
 * that would stream are held.  Every write still lands and completes in
 * order (drive_in_turn()).  The share is of the doorbells that would
 * stream, streamed or held, as the kernel times them: a burst this side
 * saw as slow may still have had most of its doorbells stream.
 */
static void streams_without_a_free_cpu_run_inline(struct test_env *env)
{
	long long held0 = port_counter(env, "doorbells_held");
	struct placement place;
	long long n, held;
	struct streams s;
	uint32_t fast;

	CHECK(held0 >= 0, "no doorbells_held counter");
	if (!confine_to_cpu0(&place)) {
		tap_skip("cannot confine the test and %s to CPU 0", WQ_CPUMASK);
		return;
	}
	if (!streams_make(env, &s, MAX_QPS, false, EACH_TO_ITSELF))
		goto out;
	fast = drive_in_turn(&s, MAX_QPS, SLOTS / BURST);
	n = streamed(env, &s);
	held = port_counter(env, "doorbells_held") - held0;
	printf("# of %lld doorbells that would stream, %lld streamed, %lld held\n",
	       n + held, n, held);
	if (fast || n + held) {
		CHECK(held > 0, "no doorbell held");
		CHECK(n <= held,
		      "%lld doorbells streamed, only %lld held", n, held);
	} else {
		tap_skip("no doorbell rang within %u us of the one before",
			 STREAM_GAP_US);
	}
	streams_free(env, &s);
out:
	unconfine(&place);
}

#define CPU_ONLINE	"/sys/devices/system/cpu/cpu%u/online"

/* Is CPU @cpu online and can it be taken offline (it has the file)? */
static bool cpu_is_online(unsigned int cpu)
{
	char path[64];
	FILE *f;
	int c;

	snprintf(path, sizeof(path), CPU_ONLINE, cpu);
	f = fopen(path, "r");
	if (!f)
		return false;
	c = fgetc(f);
	fclose(f);
	return c == '1';
}

/* Turn CPU @cpu on or off. */
static bool cpu_set_online(unsigned int cpu, bool on)
{
	char path[64];

	snprintf(path, sizeof(path), CPU_ONLINE, cpu);
	return write_sysfs(path, on ? "1" : "0");
}

/* Bring back the CPUs offline_all_but_cpu0() took. */
static void online_again(const cpu_set_t *off)
{
	unsigned int cpu;

	for (cpu = 1; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, off))
			CHECK(cpu_set_online(cpu, true), "CPU %u back online",
			      cpu);
}

/*
 * Take every online CPU but CPU 0 offline; @off gets the ones this took
 * (CPU 0 has no "online" file to take it with).  False, with every CPU
 * back, where that left more than one online.
 */
static bool offline_all_but_cpu0(cpu_set_t *off)
{
	unsigned int cpu;

	CPU_ZERO(off);
	for (cpu = 1; cpu < CPU_SETSIZE; cpu++) {
		if (!cpu_is_online(cpu))
			continue;
		if (!cpu_set_online(cpu, false))
			break;
		CPU_SET(cpu, off);
	}
	if (one_cpu_online())
		return true;
	online_again(off);
	return false;
}

/*
 * With one CPU online, a stream's run could only wait for its poster to
 * yield that CPU, so no doorbell streams: every one that would is held
 * ("doorbells_held"), from the first.  Unsignaled writes back to back
 * and four QPs driven in turn, every write landing and completing or
 * counting once.
 */
static void streams_with_one_cpu_online_run_inline(struct test_env *env)
{
	long long held0 = port_counter(env, "doorbells_held");
	struct streams s;
	cpu_set_t off;

	CHECK(held0 >= 0, "no doorbells_held counter");
	if (getenv("RXC_NO_HOTPLUG") && *getenv("RXC_NO_HOTPLUG")) {
		tap_skip("no CPU hotplug on this kernel (RXC_NO_HOTPLUG)");
		return;
	}
	if (!offline_all_but_cpu0(&off)) {
		tap_skip("cannot take every CPU but CPU 0 offline");
		return;
	}
	if (streams_make(env, &s, 1, true, EACH_TO_ITSELF)) {
		if (write_unsignaled(env, &s))
			CHECK(streamed(env, &s) == 0,
			      "unsignaled: %lld doorbells streamed",
			      streamed(env, &s));
		streams_free(env, &s);
	}
	if (streams_make(env, &s, MAX_QPS, false, EACH_TO_ITSELF)) {
		drive_in_turn(&s, MAX_QPS, SLOTS / BURST);
		CHECK(streamed(env, &s) == 0,
		      "four QPs: %lld doorbells streamed", streamed(env, &s));
		streams_free(env, &s);
	}
	CHECK(port_counter(env, "doorbells_held") > held0, "no doorbell held");
	online_again(&off);
}

static const struct test_case tests[] = {
	TEST_CASE(unsignaled_writes_back_to_back_stream),
	TEST_CASE(four_qps_driven_in_turn_stream),
	TEST_CASE(one_or_two_qps_and_spaced_unsignaled_writes_run_inline),
	TEST_CASE(unsignaled_ping_pong_runs_inline),
	TEST_CASE(streams_without_a_free_cpu_run_inline),
	TEST_CASE(streams_with_one_cpu_online_run_inline),
};

int main(int argc, char **argv)
{
	return run_suite("streams", argc, argv, tests, ARRAY_SIZE(tests));
}
