# SPDX-License-Identifier: GPL-2.0
# kselftest.mk - included by tests/suite/Makefile and tests/bench/Makefile:
# the include path of tools/testing/selftests/kselftest.h of the newest
# cached kernel tree (the kit cache as in scripts/lib.sh: MMBK_CACHE, else
# $XDG_CACHE_HOME or ~/.cache + /mm-backport-kit), or of KSFT_DIR=<dir>.

MMBK_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/mm-backport-kit
KSFT_DIR ?= $(patsubst %/kselftest.h,%,$(lastword $(shell ls -1d \
	$(MMBK_CACHE)/trees/*/linux/tools/testing/selftests/kselftest.h 2>/dev/null | sort -V)))
ifeq ($(wildcard $(KSFT_DIR)/kselftest.h),)
$(error no tools/testing/selftests/kselftest.h in the cached trees ($(MMBK_CACHE)/trees); run 'make tree BRANCH=7.2' or pass KSFT_DIR=<dir>)
endif
ifeq ($(shell grep -l ksft_test_result_code $(KSFT_DIR)/kselftest.h),)
$(error $(KSFT_DIR)/kselftest.h has no ksft_test_result_code() (older than Linux 6.8); run 'make tree BRANCH=7.2' or pass KSFT_DIR=<dir>)
endif
KSFT_CFLAGS := -I$(KSFT_DIR)
KSFT_DEPS := $(KSFT_DIR)/kselftest.h
