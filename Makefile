# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Builds rdma_rxc.ko (and rxc_kunit.ko when the kernel has KUnit) against
# a kernel build tree, like any out-of-tree module.
#
#   make                  build the modules for the running kernel
#   make KVER=RELEASE     build for another installed kernel
#                         (its /lib/modules/RELEASE/build)
#   make KDIR=/path       build against any kernel tree (O= build dir)
#   make check-style      checkpatch --strict, then check-build
#   make check-build      rebuild with W=1 and sparse (C=1), fail on warnings
#   make check-probe      the Kbuild probes pick each path
#   make clean
#
# Without KVER or KDIR, and when the running kernel has no build tree (a
# build host or a container), make lists the Debian headers it found and
# takes the newest, saying so.

KVER ?= $(shell uname -r)
ifeq ($(origin KDIR),undefined)
ifneq ($(wildcard /lib/modules/$(KVER)/build/Makefile),)
KDIR := /lib/modules/$(KVER)/build
else ifneq ($(filter command line environment,$(origin KVER)),)
$(error no build tree for kernel $(KVER): install linux-headers-$(KVER))
else
RXC_TREES := $(shell ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V)
KDIR := $(lastword $(RXC_TREES))
ifneq ($(filter-out checkpatch,$(or $(MAKECMDGOALS),all)),)
$(info rxc: the running kernel $(KVER) has no build tree)
$(info rxc: found $(or $(notdir $(RXC_TREES)),no Debian headers); building for $(or $(notdir $(KDIR)),none))
$(info rxc: pass KVER= or KDIR= to choose another)
endif
endif
endif
CHECKPATCH ?= $(shell ls $(or $(RXC_CACHE),/var/cache/rxc)/src-*/scripts/checkpatch.pl 2>/dev/null | tail -n 1)
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

# The Kbuild probes: core completion counter support, against KDIR and a
# stubbed copy of it that has the symbols (tests/host/t-comp-cntr-probe.sh);
# the compat interfaces, against stubs and every installed Debian tree
# (tests/host/t-compat-probe.sh).
check-probe:
	tests/host/t-comp-cntr-probe.sh $(KDIR)
	tests/host/t-compat-probe.sh

clean:
	$(MAKE) $(KBUILD_FLAGS) clean

.PHONY: all modules checkpatch check-build check-style check-probe clean
