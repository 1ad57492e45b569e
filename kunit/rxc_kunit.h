/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What rxc's KUnit suites share.
 */
#ifndef RXC_KUNIT_H
#define RXC_KUNIT_H

#include <kunit/test.h>
#include <linux/string.h>

/*
 * RXC_KUNIT_CASES(prefix, cases): prefix_gen_params over the array
 * cases of struct prefix_case, each case shown by its .name in KUnit's
 * output.  Newer kernels have KUNIT_ARRAY_PARAM_DESC for this; Debian
 * 12's 6.1 does not.
 */
#define RXC_KUNIT_CASES(prefix, cases)					\
	static void prefix##_case_desc(const struct prefix##_case *c,	\
				       char *desc)			\
	{								\
		strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);		\
	}								\
	KUNIT_ARRAY_PARAM(prefix, cases, prefix##_case_desc)

#endif /* RXC_KUNIT_H */
