// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Waiting for completion counters: RXC_METHOD_COMP_CNTR_WAIT (threshold,
 * error baseline, timeout, signals, a wake-up by the kernel's own update
 * path from another thread, updates and destroy by other threads while it
 * sleeps) and RXC_METHOD_COMP_CNTR_NOTIFY (an eventfd signalled once per
 * arming, for poll/epoll), with every errno.
 */
#include <poll.h>
#include <stdio.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include "cntr_ioctl.h"
#include "fixture.h"

static bool cntr_create(struct test_env *env, struct cntr *cntr)
{
	return CHECK_OK(cntr_create_ex(env->ctx, cntr, -1, NULL, NULL));
}

/*
 * Until thread @tid of this process sleeps in the kernel (state S), for
 * at most the test timeout: the other thread then acts on a wait that
 * is surely under way.
 */
static void until_sleeping(pid_t tid)
{
	char path[64], buf[256], *p;
	int i, n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	for (i = 0; i < TEST_TIMEOUT_MS / 10; i++) {
		f = fopen(path, "r");
		n = f ? (int)fread(buf, 1, sizeof(buf) - 1, f) : 0;
		if (f)
			fclose(f);
		buf[n > 0 ? n : 0] = 0;
		/* "pid (comm) S ...": the state follows the last ')'. */
		p = strrchr(buf, ')');
		if (p && p[1] == ' ' && p[2] == 'S')
			return;
		usleep(10000);
	}
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Whether @fd is readable within @ms; never blocks longer. */
static bool readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

static uint64_t eventfd_take(int fd)
{
	uint64_t v = 0;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		return 0;
	return v;
}

static void wait_returns_at_once_when_the_threshold_is_reached(
	struct test_env *env)
{
	uint64_t comp = ~0ull, err = ~0ull;
	struct cntr cntr;

	if (!cntr_create(env, &cntr))
		return;
	CHECK_OK(cntr_modify(env->ctx, &cntr, ENTRY_COMP, OP_INC, 3));
	CHECK_OK(cntr_wait(env->ctx, &cntr, 3, NULL, 0, &comp, &err));
	CHECK_EQ(comp, 3);
	CHECK_EQ(err, 0);
	CHECK_OK(cntr_wait(env->ctx, &cntr, 0, NULL, 0, NULL, NULL));
	CHECK_OK(cntr_destroy(env->ctx, &cntr));
}

static void wait_fails_with_etimedout_after_the_timeout(struct test_env *env)
{
	uint64_t comp = ~0ull;
	struct cntr cntr;
	long long t0, dt;

	if (!cntr_create(env, &cntr))
		return;
	CHECK_OK(cntr_modify(env->ctx, &cntr, ENTRY_COMP, OP_INC, 1));
	t0 = now_ms();
	CHECK_RC(cntr_wait(env->ctx, &cntr, 2, NULL, 300, &comp, NULL),
		 ETIMEDOUT);
	dt = now_ms() - t0;
	CHECK_GE(dt, 290);
	CHECK_LE(dt, TEST_TIMEOUT_MS);
	/* What was seen last comes back with the timeout. */
	CHECK_EQ(comp, 1);
	/* A zero timeout only looks. */
	CHECK_RC(cntr_wait(env->ctx, &cntr, 2, NULL, 0, NULL, NULL), ETIMEDOUT);
	CHECK_OK(cntr_destroy(env->ctx, &cntr));
}

/* The error value differing from the baseline ends a wait too. */
static void wait_returns_when_the_error_value_differs_from_err_base(
	struct test_env *env)
{
	uint64_t base = 5, err = 0;
	struct cntr cntr;

	if (!cntr_create(env, &cntr))
		return;
	CHECK_OK(cntr_modify(env->ctx, &cntr, ENTRY_ERR, OP_SET, 5));
	/* Without a baseline, the error value at the call is the baseline. */
	CHECK_RC(cntr_wait(env->ctx, &cntr, 1, NULL, 50, NULL, NULL),
		 ETIMEDOUT);
	CHECK_RC(cntr_wait(env->ctx, &cntr, 1, &base, 50, NULL, NULL),
		 ETIMEDOUT);
	base = 4;
	CHECK_OK(cntr_wait(env->ctx, &cntr, 1, &base, 50, NULL, &err));
	CHECK_EQ(err, 5);
	CHECK_OK(cntr_destroy(env->ctx, &cntr));
}

struct flusher {
	pid_t waiter;
	struct test_env *env;
	struct loop *l;
	struct cntr *cntr;
	int inc_rc;
};

/*
 * Another thread: while the main thread waits, an INC on the same
 * counter works (the wait does not hold the counter's object), then
 * moving the QP to ERR flushes its receives, which the kernel counts as
 * errors.
 */
static void *flush_later(void *arg)
{
	struct flusher *f = arg;

	until_sleeping(f->waiter);
	sleep_ms(50);
	f->inc_rc = cntr_modify(f->env->ctx, f->cntr, ENTRY_COMP, OP_INC, 1);
	qp_to_state(f->l->qp, IBV_QPS_ERR);
	return NULL;
}

static void wait_is_woken_by_errors_the_kernel_counts_in_another_thread(
	struct test_env *env)
{
	struct ibv_sge sge;
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	struct flusher f = { .waiter = gettid(), .env = env, .inc_rc = -1 };
	uint64_t err = 0;
	struct cntr cntr;
	struct loop l;
	pthread_t t;
	long long t0;
	int i;

	if (!cntr_create(env, &cntr))
		return;
	if (!loop_create(env, &l, IBV_QPT_RC, ALL_ACCESS))
		goto out;
	sge = (struct ibv_sge){ (uintptr_t)l.dst, 64, l.mr->lkey };
	if (!CHECK_OK(qp_to_init(l.qp)) ||
	    !CHECK_OK(qp_attach(env->ctx, l.qp, &cntr, OP_RECV)))
		goto out_loop;
	for (i = 0; i < 2; i++)
		if (!CHECK_OK(ibv_post_recv(l.qp, &wr, &bad)))
			goto out_loop;
	f.l = &l;
	f.cntr = &cntr;
	if (!CHECK_OK(pthread_create(&t, NULL, flush_later, &f)))
		goto out_loop;
	t0 = now_ms();
	CHECK_OK(cntr_wait(env->ctx, &cntr, 1000, NULL, TEST_TIMEOUT_MS, NULL,
			   &err));
	CHECK_LE(now_ms() - t0, TEST_TIMEOUT_MS - 1000);
	pthread_join(t, NULL);
	CHECK_OK(f.inc_rc);
	CHECK_GE(err, 1);
out_loop:
	loop_destroy(&l);
out:
	CHECK_OK(cntr_destroy(env->ctx, &cntr));
}

/* What a thread does to a counter while the main thread waits on it. */
enum meddle {
	MEDDLE_CREDITS,		/* INC by 1, CREDITS times, reading between */
	MEDDLE_DESTROY,		/* destroy it */
};

#define CREDITS 50

struct meddler {
	pid_t waiter;
	struct ibv_context *ctx;
	struct cntr *cntr;
	enum meddle what;
	int failed_rc;		/* the first errno, 0 if every call worked */
};

static void meddled(struct meddler *m, int rc)
{
	if (rc && !m->failed_rc)
		m->failed_rc = rc;
}

static void *meddle_later(void *arg)
{
	struct meddler *m = arg;
	uint64_t v;
	int i;

	until_sleeping(m->waiter);
	if (m->what == MEDDLE_DESTROY) {
		meddled(m, cntr_destroy(m->ctx, m->cntr));
		return NULL;
	}
	for (i = 0; i < CREDITS; i++) {
		meddled(m, cntr_read(m->ctx, m->cntr, ENTRY_COMP, &v));
		meddled(m, cntr_modify(m->ctx, m->cntr, ENTRY_COMP, OP_INC, 1));
	}
	return NULL;
}

/*
 * Run @what in another thread while this one waits for a threshold of
 * CREDITS, with the handle in rxc 1.0's form if @rxc10; the wait's
 * errno.  Whatever the other thread called worked.
 */
static int wait_while_meddled(struct test_env *env, struct cntr *cntr,
			      enum meddle what, uint64_t *comp, bool rxc10)
{
	struct meddler m = { gettid(), env->ctx, cntr, what, 0 };
	pthread_t t;
	long long t0;
	int rc;

	if (!CHECK_OK(pthread_create(&t, NULL, meddle_later, &m)))
		return -1;
	t0 = now_ms();
	rc = rxc10 ? cntr_wait_rxc10(env->ctx, cntr, CREDITS, TEST_TIMEOUT_MS,
				     comp) :
		     cntr_wait(env->ctx, cntr, CREDITS, NULL, TEST_TIMEOUT_MS,
			       comp, NULL);
	CHECK_LE(now_ms() - t0, TEST_TIMEOUT_MS - 1000);
	pthread_join(t, NULL);
	CHECK(m.failed_rc == 0, "the other thread got %s",
	      err_name(m.failed_rc));
	return rc;
}

/*
 * Credit flow: one thread waits for credits while another adds them one
 * by one, reading the counter between.  Every INC and READ works while
 * the wait sleeps, and the last one ends it.
 */
static void wait_lets_another_thread_add_credits(struct test_env *env)
{
	uint64_t comp = 0;
	struct cntr cntr;

	if (!cntr_create(env, &cntr))
		return;
	CHECK_OK(wait_while_meddled(env, &cntr, MEDDLE_CREDITS, &comp, false));
	CHECK_EQ(comp, CREDITS);
	CHECK_OK(cntr_destroy(env->ctx, &cntr));
}

/* A destroy from another thread works and ends the wait with ENOENT. */
/*
 * rxc 1.0's librxc sent WAIT's handle in an IDR attribute's form (no
 * length, the number in data), and a program linked against it still
 * runs: one that set a counter to 5 and waited for 3 got EINVAL from
 * the modules that took only a u32.  The old form gets the new
 * semantics: another thread's increments go ahead during the wait.
 */
static void wait_takes_the_handle_in_rxc_1_0s_form_too(struct test_env *env)
{
	uint64_t comp = ~0ull;
	struct cntr cntr;

	if (!cntr_create(env, &cntr))
		return;
	CHECK_OK(cntr_modify(env->ctx, &cntr, ENTRY_COMP, OP_SET, 5));
	CHECK_OK(cntr_wait_rxc10(env->ctx, &cntr, 3, 0, &comp));
	CHECK_EQ(comp, 5);
	CHECK_RC(cntr_wait_rxc10(env->ctx, &cntr, 6, 50, &comp), ETIMEDOUT);
	CHECK_EQ(comp, 5);
	CHECK_OK(cntr_modify(env->ctx, &cntr, ENTRY_COMP, OP_SET, 0));
	CHECK_OK(wait_while_meddled(env, &cntr, MEDDLE_CREDITS, &comp, true));
	CHECK_EQ(comp, CREDITS);
	CHECK_OK(cntr_destroy(env->ctx, &cntr));
}

static void destroy_during_a_wait_ends_it_with_enoent(struct test_env *env)
{
	struct cntr cntr;

	if (!cntr_create(env, &cntr))
		return;
	CHECK_RC(wait_while_meddled(env, &cntr, MEDDLE_DESTROY, NULL, false),
		 ENOENT);
	/* The handle names nothing now. */
	CHECK_RC(cntr_wait(env->ctx, &cntr, 1, NULL, 0, NULL, NULL), ENOENT);
}

/*
 * WAIT finds counters of the caller's own context only.  Of two counters
 * in another context, at least one has a handle our counter does not.
 */
static void wait_on_another_contexts_handle_fails_with_enoent(
	struct test_env *env)
{
	struct ibv_context *other = open_device_by_name(env->dev_name);
	struct cntr mine, theirs[2];
	int i;

	if (!CHECK(other != NULL, "second context: %s", err_name(errno)))
		return;
	if (!cntr_create(env, &mine))
		goto out;
	for (i = 0; i < 2; i++)
		if (!CHECK_OK(cntr_create_ex(other, &theirs[i], -1, NULL,
					     NULL)))
			goto out_mine;
	i = theirs[0].handle == mine.handle;
	CHECK_RC(cntr_wait(env->ctx, &theirs[i], 0, NULL, 0, NULL, NULL),
		 ENOENT);
	/* In its own context the same handle works. */
	CHECK_OK(cntr_wait(other, &theirs[i], 0, NULL, 0, NULL, NULL));
	CHECK_OK(cntr_wait(env->ctx, &mine, 0, NULL, 0, NULL, NULL));
	CHECK_OK(cntr_destroy(other, &theirs[1]));
	CHECK_OK(cntr_destroy(other, &theirs[0]));
out_mine:
	CHECK_OK(cntr_destroy(env->ctx, &mine));
out:
	ibv_close_device(other);
}

static void on_signal(int sig)
{
	(void)sig;
}

struct signaller {
	pid_t tid;
	pthread_t thread;
};

static void *signal_later(void *arg)
{
	struct signaller *s = arg;

	until_sleeping(s->tid);
	sleep_ms(50);
	pthread_kill(s->thread, SIGUSR1);
	return NULL;
}

/* A signal ends the wait with EINTR; it is not restarted. */
static void wait_fails_with_eintr_when_a_signal_arrives(struct test_env *env)
{
	struct sigaction sa = { .sa_handler = on_signal }, old;
	struct signaller sig = { gettid(), pthread_self() };
	pthread_t t;
	struct cntr cntr;
	long long t0;

	if (!cntr_create(env, &cntr))
		return;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, &old);	/* no SA_RESTART */
	if (CHECK_OK(pthread_create(&t, NULL, signal_later, &sig))) {
		t0 = now_ms();
		CHECK_RC(cntr_wait(env->ctx, &cntr, 1, NULL, TEST_TIMEOUT_MS,
				   NULL, NULL), EINTR);
		CHECK_LE(now_ms() - t0, TEST_TIMEOUT_MS - 1000);
		pthread_join(t, NULL);
	}
	sigaction(SIGUSR1, &old, NULL);
	CHECK_OK(cntr_destroy(env->ctx, &cntr));
}

/* Signalled once when the threshold is reached, not again until re-armed. */
static void notify_signals_the_eventfd_once_per_arming(struct test_env *env)
{
	int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	uint64_t thr = 2;
	struct cntr cntr;

	if (!CHECK(fd >= 0, "eventfd: %s", err_name(errno)))
		return;
	if (!cntr_create(env, &cntr))
		goto out;
	CHECK_OK(cntr_notify(env->ctx, &cntr, fd, &thr, NULL));
	CHECK(!readable(fd, 0), "signalled before anything happened");
	CHECK_OK(cntr_modify(env->ctx, &cntr, ENTRY_COMP, OP_INC, 1));
	CHECK(!readable(fd, 0), "signalled below the threshold");
	CHECK_OK(cntr_modify(env->ctx, &cntr, ENTRY_COMP, OP_INC, 1));
	if (CHECK(readable(fd, TEST_TIMEOUT_MS), "not signalled at threshold"))
		CHECK_EQ(eventfd_take(fd), 1);
	CHECK_OK(cntr_modify(env->ctx, &cntr, ENTRY_COMP, OP_INC, 1));
	CHECK(!readable(fd, 0), "signalled twice for one arming");
	/* Re-armed: the condition holds already, so it fires at once. */
	CHECK_OK(cntr_notify(env->ctx, &cntr, fd, &thr, NULL));
	if (CHECK(readable(fd, TEST_TIMEOUT_MS), "not signalled on re-arm"))
		CHECK_EQ(eventfd_take(fd), 1);
	CHECK_OK(cntr_destroy(env->ctx, &cntr));
out:
	close(fd);
}

/* poll() on two counters' eventfds tells which one moved. */
static void notify_lets_poll_wait_on_many_counters(struct test_env *env)
{
	int fd[2] = { eventfd(0, EFD_NONBLOCK), eventfd(0, EFD_NONBLOCK) };
	struct pollfd p[2] = { { .fd = fd[0], .events = POLLIN },
			       { .fd = fd[1], .events = POLLIN } };
	uint64_t thr = 1;
	struct cntr a, b;

	if (!CHECK(fd[0] >= 0 && fd[1] >= 0, "eventfd: %s", err_name(errno)))
		goto out;
	if (!cntr_create(env, &a))
		goto out;
	if (cntr_create(env, &b)) {
		CHECK_OK(cntr_notify(env->ctx, &a, fd[0], &thr, NULL));
		CHECK_OK(cntr_notify(env->ctx, &b, fd[1], &thr, NULL));
		/* b's error value moves: only b's eventfd is signalled. */
		CHECK_OK(cntr_modify(env->ctx, &b, ENTRY_ERR, OP_INC, 1));
		CHECK_EQ(poll(p, 2, TEST_TIMEOUT_MS), 1);
		CHECK(!(p[0].revents & POLLIN) && (p[1].revents & POLLIN),
		      "revents %#x %#x", p[0].revents, p[1].revents);
		CHECK_OK(cntr_destroy(env->ctx, &b));
	}
	CHECK_OK(cntr_destroy(env->ctx, &a));
out:
	close(fd[0]);
	close(fd[1]);
}

/* -1 disarms; a new arming replaces the old one. */
static void notify_rearm_replaces_and_minus_one_disarms(struct test_env *env)
{
	int fd1 = eventfd(0, EFD_NONBLOCK), fd2 = eventfd(0, EFD_NONBLOCK);
	uint64_t thr = 1;
	struct cntr cntr;

	if (!CHECK(fd1 >= 0 && fd2 >= 0, "eventfd: %s", err_name(errno)))
		goto out;
	if (!cntr_create(env, &cntr))
		goto out;
	CHECK_OK(cntr_notify(env->ctx, &cntr, fd1, &thr, NULL));
	CHECK_OK(cntr_notify(env->ctx, &cntr, fd2, &thr, NULL));
	CHECK_OK(cntr_modify(env->ctx, &cntr, ENTRY_COMP, OP_INC, 1));
	CHECK(readable(fd2, TEST_TIMEOUT_MS), "the new eventfd is silent");
	CHECK(!readable(fd1, 0), "the replaced eventfd was signalled");
	eventfd_take(fd2);

	thr = 5;
	CHECK_OK(cntr_notify(env->ctx, &cntr, fd2, &thr, NULL));
	CHECK_OK(cntr_notify(env->ctx, &cntr, -1, NULL, NULL));
	CHECK_OK(cntr_modify(env->ctx, &cntr, ENTRY_COMP, OP_INC, 10));
	CHECK(!readable(fd2, 100), "signalled after disarming");
	CHECK_OK(cntr_destroy(env->ctx, &cntr));
out:
	close(fd1);
	close(fd2);
}

static void notify_fails_with_ebadf_einval_for_bad_fds_and_no_threshold(
	struct test_env *env)
{
	int efd = eventfd(0, 0), pipefd[2] = { -1, -1 }, closed;
	uint64_t thr = 1;
	struct cntr cntr;

	if (!CHECK(efd >= 0 && !pipe(pipefd), "eventfd/pipe: %s",
		   err_name(errno)))
		goto out;
	closed = eventfd(0, 0);
	close(closed);
	if (!cntr_create(env, &cntr))
		goto out;
	CHECK_RC(cntr_notify(env->ctx, &cntr, closed, &thr, NULL), EBADF);
	CHECK_RC(cntr_notify(env->ctx, &cntr, pipefd[0], &thr, NULL), EINVAL);
	CHECK_RC(cntr_notify(env->ctx, &cntr, efd, NULL, NULL), EINVAL);
	CHECK_OK(cntr_destroy(env->ctx, &cntr));
out:
	close(efd);
	close(pipefd[0]);
	close(pipefd[1]);
}

/* An armed counter can be destroyed; the eventfd outlives it, silent. */
static void destroy_with_an_armed_eventfd_succeeds(struct test_env *env)
{
	int fd = eventfd(0, EFD_NONBLOCK);
	uint64_t thr = 100;
	struct cntr cntr;

	if (!CHECK(fd >= 0, "eventfd: %s", err_name(errno)))
		return;
	if (cntr_create(env, &cntr)) {
		CHECK_OK(cntr_notify(env->ctx, &cntr, fd, &thr, NULL));
		CHECK_OK(cntr_destroy(env->ctx, &cntr));
		CHECK(!readable(fd, 0), "signalled by destroy");
	}
	close(fd);
}

static const struct test_case tests[] = {
	TEST_CASE(wait_returns_at_once_when_the_threshold_is_reached),
	TEST_CASE(wait_fails_with_etimedout_after_the_timeout),
	TEST_CASE(wait_returns_when_the_error_value_differs_from_err_base),
	TEST_CASE(wait_is_woken_by_errors_the_kernel_counts_in_another_thread),
	TEST_CASE(wait_fails_with_eintr_when_a_signal_arrives),
	TEST_CASE(wait_lets_another_thread_add_credits),
	TEST_CASE(wait_takes_the_handle_in_rxc_1_0s_form_too),
	TEST_CASE(destroy_during_a_wait_ends_it_with_enoent),
	TEST_CASE(wait_on_another_contexts_handle_fails_with_enoent),
	TEST_CASE(notify_signals_the_eventfd_once_per_arming),
	TEST_CASE(notify_lets_poll_wait_on_many_counters),
	TEST_CASE(notify_rearm_replaces_and_minus_one_disarms),
	TEST_CASE(notify_fails_with_ebadf_einval_for_bad_fds_and_no_threshold),
	TEST_CASE(destroy_with_an_armed_eventfd_succeeds),
};

int main(int argc, char **argv)
{
	return run_suite("comp_cntr_wait", argc, argv, tests,
			 ARRAY_SIZE(tests));
}
