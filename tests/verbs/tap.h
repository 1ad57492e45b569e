/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * TAP-like reporting for the verbs tests.
 *
 * A test case runs between tap_begin() and tap_end(). The CHECK macros
 * record failures and let the test carry on, so a test always reaches
 * the code that destroys what it created. tap_end() prints one line:
 *
 *   ok - <suite>: <test>
 *   not ok - <suite>: <test>: <first failure>
 *   ok - <suite>: <test> # SKIP <reason>
 *
 * Every further failure of the same test is printed as a "# " comment.
 */
#ifndef RXC_TESTS_VERBS_TAP_H
#define RXC_TESTS_VERBS_TAP_H

#include <errno.h>
#include <stdbool.h>

void tap_init(const char *suite);
void tap_begin(const char *test);
void tap_end(void);
/* Prints the plan and a summary; returns the process exit status. */
int tap_finish(void);

/* A test case that needs no fixture: a table of these is a whole suite. */
struct tap_case {
	const char *name;
	void (*fn)(void);
};
#define TAP_CASE(fn) { #fn, fn }
/* Runs @n cases as suite @suite; returns the process exit status. */
int tap_run_cases(const char *suite, const struct tap_case *cases,
		  unsigned int n);

void tap_fail_at(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Marks the current test skipped, unless it has already failed. */
void tap_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * Declares that the current test is known to fail (a bug of the device
 * under test that is not ours, e.g. rdma_rxe's): a failure is then
 * reported as a skip naming @fmt and the failure, so the expectation
 * stays the correct one and the run stays green. Call it before the
 * checks.
 */
void tap_xfail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "EINVAL" for EINVAL, "0" for 0, the number for unknown values. */
const char *err_name(int err);

#define FAIL(...) tap_fail_at(__FILE__, __LINE__, __VA_ARGS__)

/* Records a failure unless @cond holds; evaluates to @cond. */
#define CHECK(cond, ...)						\
	({								\
		bool __ok = (cond);					\
		if (!__ok)						\
			FAIL(__VA_ARGS__);				\
		__ok;							\
	})

#define CHECK_EQ(got, want)						\
	({								\
		long long __g = (long long)(got);			\
		long long __w = (long long)(want);			\
		CHECK(__g == __w, "%s == %lld, expected %s == %lld",	\
		      #got, __g, #want, __w);				\
	})

#define CHECK_GE(got, want)						\
	({								\
		long long __g = (long long)(got);			\
		long long __w = (long long)(want);			\
		CHECK(__g >= __w, "%s == %lld, expected >= %s (%lld)",	\
		      #got, __g, #want, __w);				\
	})

#define CHECK_LE(got, want)						\
	({								\
		long long __g = (long long)(got);			\
		long long __w = (long long)(want);			\
		CHECK(__g <= __w, "%s == %lld, expected <= %s (%lld)",	\
		      #got, __g, #want, __w);				\
	})

/*
 * For verbs that return 0 or an errno value (ibv_modify_qp(),
 * ibv_destroy_cq(), ...): @rc must equal @want (0 or an errno value).
 */
#define CHECK_RC(rc, want)						\
	({								\
		int __r = (rc);						\
		int __w = (want);					\
		CHECK(__r == __w, "%s returned %s, expected %s",	\
		      #rc, err_name(__r), err_name(__w));		\
	})

#define CHECK_OK(rc) CHECK_RC(rc, 0)

/*
 * For verbs that return -1 and set errno (ibv_query_gid(),
 * ibv_query_pkey()): both are checked. Evaluates @call exactly once.
 */
#define CHECK_ERRNO(call, want)						\
	({								\
		int __r;						\
		errno = 0;						\
		__r = (call);						\
		int __e = errno;					\
		int __w = (want);					\
		CHECK(__r == -1 && __e == __w,				\
		      "%s returned %d errno %s, expected -1 errno %s",	\
		      #call, __r, err_name(__e), err_name(__w));	\
	})

/*
 * For constructors that return NULL and set errno (ibv_create_cq(), ...).
 * Evaluates to the object when the call unexpectedly succeeded, so the
 * caller can destroy it; NULL otherwise.
 */
#define CHECK_NULL_ERRNO(call, want) CHECK_NULL_ERRNO_AS(#call, call, want)

/* The same, naming the call @what (a table row, say) in a failure. */
#define CHECK_NULL_ERRNO_AS(what, call, want)				\
	({								\
		typeof(call) __p;					\
		errno = 0;						\
		__p = (call);						\
		int __e = errno;					\
		int __w = (want);					\
		if (__p)						\
			FAIL("%s succeeded, expected errno %s",		\
			     (what), err_name(__w));			\
		else if (__e != __w)					\
			FAIL("%s failed with errno %s, expected %s",	\
			     (what), err_name(__e), err_name(__w));	\
		__p;							\
	})

/* For constructors expected to succeed; evaluates to the object. */
#define CHECK_NOT_NULL(call)						\
	({								\
		typeof(call) __p;					\
		errno = 0;						\
		__p = (call);						\
		if (!__p)						\
			FAIL("%s failed with errno %s", #call,		\
			     err_name(errno));				\
		__p;							\
	})

#endif /* RXC_TESTS_VERBS_TAP_H */
