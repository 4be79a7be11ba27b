# SPDX-License-Identifier: GPL-2.0
# kselftest.mk - included by guest/suite/Makefile and guest/bench/Makefile:
# the include path of the kernel's tools/testing/selftests/kselftest.h,
# KSFT_DIR=<dir> (the kit passes the newest cached tree's: lib/guest.sh
# guest_ksft_dir).

ifeq ($(wildcard $(KSFT_DIR)/kselftest.h),)
$(error no kselftest.h in KSFT_DIR='$(KSFT_DIR)'; pass KSFT_DIR=<a 6.8+ tree>/tools/testing/selftests)
endif
ifeq ($(shell grep -l ksft_test_result_code $(KSFT_DIR)/kselftest.h),)
$(error $(KSFT_DIR)/kselftest.h has no ksft_test_result_code() (older than Linux 6.8); pass a newer tree's KSFT_DIR)
endif
KSFT_CFLAGS := -I$(KSFT_DIR)
KSFT_DEPS := $(KSFT_DIR)/kselftest.h
