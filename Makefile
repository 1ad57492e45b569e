# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Builds rdma_rxc.ko (and rxc_kunit.ko when the kernel has KUnit) against
# installed kernel headers.  The build host need not run that kernel: KDIR
# defaults to the newest Debian linux-headers-*-amd64 tree.
#
#   make                  build the modules
#   make KDIR=/path       build against another kernel tree (O= build dir)
#   make check-style      checkpatch --strict, then check-build
#   make check-build      rebuild with W=1 and sparse (C=1), fail on warnings
#   make check-probe      the core completion counter probe picks each path
#   make clean

KDIR ?= $(shell ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n 1)
CHECKPATCH ?= $(shell ls /var/cache/rxc/src-*/scripts/checkpatch.pl 2>/dev/null | tail -n 1)
PWD := $(shell pwd)
KBUILD_FLAGS := -C $(KDIR) M=$(PWD)

SOURCES := $(shell find drivers kunit include -name '*.[ch]' ! -name '*.mod.c' | sort)

all: modules

modules:
	@test -n "$(KDIR)" || { echo "no kernel headers found: install linux-headers-amd64 or pass KDIR=" >&2; exit 1; }
	$(MAKE) $(KBUILD_FLAGS) modules

# checkpatch --strict must print nothing.
checkpatch:
	@test -n "$(CHECKPATCH)" || { echo "checkpatch.pl not found: run vm/build-debug-kernel.sh or pass CHECKPATCH=" >&2; exit 1; }
	perl $(CHECKPATCH) --strict --no-tree --quiet -f $(SOURCES)

# A full rebuild with W=1 and sparse; any warning or error fails it.
check-build:
	$(MAKE) $(KBUILD_FLAGS) clean >/dev/null
	$(MAKE) $(KBUILD_FLAGS) W=1 C=1 modules 2>&1 | tee .check-build.log
	@! grep -E 'warning:|error:' .check-build.log
	@rm -f .check-build.log

check-style: checkpatch check-build

# The Kbuild probe for core completion counter support, against KDIR and a
# stubbed copy of it that has the symbols (tests/host/t-comp-cntr-probe.sh).
check-probe:
	tests/host/t-comp-cntr-probe.sh $(KDIR)

clean:
	$(MAKE) $(KBUILD_FLAGS) clean

.PHONY: all modules checkpatch check-build check-style check-probe clean
