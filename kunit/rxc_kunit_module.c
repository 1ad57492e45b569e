// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rxc_kunit.ko: every rxc KUnit suite.  Loading it runs them and prints
 * KTAP to the kernel log (and to debugfs under kunit/).
 */
#include <linux/module.h>

#include "rxc_compat.h"

RXC_MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_DESCRIPTION("KUnit tests for rdma_rxc");
MODULE_LICENSE("Dual BSD/GPL");
