// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * TAP-like reporting for the verbs tests: see tap.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tap.h"

enum tap_result {
	TAP_PASS,
	TAP_FAIL,
	TAP_SKIP,
};

static struct {
	const char *suite;
	const char *test;	/* NULL outside tap_begin()..tap_end() */
	enum tap_result result;
	char reason[512];
	char xfail[200];	/* why the current test may fail, or "" */
	unsigned int run;
	unsigned int failed;
	unsigned int skipped;
} tap;

void tap_init(const char *suite)
{
	/* Keep earlier lines if a later test crashes the process. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	tap.suite = suite;
}

void tap_begin(const char *test)
{
	tap.test = test;
	tap.result = TAP_PASS;
	tap.reason[0] = '\0';
	tap.xfail[0] = '\0';
}

void tap_end(void)
{
	switch (tap.result) {
	case TAP_PASS:
		printf("ok - %s: %s\n", tap.suite, tap.test);
		if (tap.xfail[0])
			printf("# %s: passed although expected to fail (%s)\n",
			       tap.test, tap.xfail);
		break;
	case TAP_FAIL:
		if (tap.xfail[0]) {
			/* Reported, not counted: the bug is someone else's. */
			printf("ok - %s: %s # SKIP known failure (%s): %s\n",
			       tap.suite, tap.test, tap.xfail, tap.reason);
			tap.skipped++;
			break;
		}
		printf("not ok - %s: %s: %s\n", tap.suite, tap.test,
		       tap.reason);
		tap.failed++;
		break;
	case TAP_SKIP:
		printf("ok - %s: %s # SKIP %s\n", tap.suite, tap.test,
		       tap.reason);
		tap.skipped++;
		break;
	}
	tap.run++;
	tap.test = NULL;
}

int tap_finish(void)
{
	printf("1..%u\n", tap.run);
	printf("# %s: %u tests, %u failed, %u skipped\n", tap.suite, tap.run,
	       tap.failed, tap.skipped);
	return tap.failed ? 1 : 0;
}

int tap_run_cases(const char *suite, const struct tap_case *cases,
		  unsigned int n)
{
	unsigned int i;

	tap_init(suite);
	for (i = 0; i < n; i++) {
		tap_begin(cases[i].name);
		cases[i].fn();
		tap_end();
	}
	return tap_finish();
}

void tap_fail_at(const char *file, int line, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);

	/* A failure outside a test case still fails the suite. */
	if (!tap.test) {
		printf("# %s:%d: %s\n", file, line, msg);
		tap.failed++;
		return;
	}

	if (tap.result == TAP_FAIL) {
		printf("# %s: %s:%d: %s\n", tap.test, file, line, msg);
		return;
	}

	/* A failure overrides a skip: the test did check something. */
	tap.result = TAP_FAIL;
	snprintf(tap.reason, sizeof(tap.reason), "%s:%d: %s", file, line,
		 msg);
}

void tap_skip(const char *fmt, ...)
{
	va_list ap;

	if (tap.result == TAP_FAIL)
		return;

	va_start(ap, fmt);
	vsnprintf(tap.reason, sizeof(tap.reason), fmt, ap);
	va_end(ap);
	tap.result = TAP_SKIP;
}

void tap_xfail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(tap.xfail, sizeof(tap.xfail), fmt, ap);
	va_end(ap);
}

const char *err_name(int err)
{
	static char buf[4][16];
	static unsigned int next;
	const char *name;
	char *b;

	if (err == 0)
		return "0";

	name = err > 0 ? strerrorname_np(err) : NULL;
	if (name)
		return name;

	/* Several calls may appear in one printf(): rotate buffers. */
	b = buf[next++ % 4];
	snprintf(b, sizeof(buf[0]), "%d", err);
	return b;
}
