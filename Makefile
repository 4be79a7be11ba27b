# SPDX-License-Identifier: GPL-2.0
# mm-backport-kit - the only front door.  Every target is one command of
# bin/; this file only maps make variables onto its arguments (quoted, so
# paths may hold blanks; a variable is passed on only when you give it;
# KDIR= relative to the directory you run make from).
#
#   make [demo]                 tree -> apply -> check on BRANCH (default: the table's default)
#   make tree    BRANCH=b [VARIANT=patched|without-<topic>]   fetch + extract the tree of branch b (its path; VARIANT: the kit's copy of that kind)
#   make apply   KDIR=dir|BRANCH=b [TOPICS=t,..] [PROFILE=kabi] [STRICT=1] [FORCE=1] [ARCH=..] [LLVM=1] [KCONFIG=..] [VERIFY=strict]   apply, topic by topic (atomic each)
#   make unapply KDIR=dir|BRANCH=b [FORCE=1]   take it out again (atomic)
#   make status  KDIR=dir|BRANCH=b  per patch and per topic
#   make check   KDIR=dir|BRANCH=b [ARCH=x86_64|arm64] [LLVM=1] [KCONFIG=defconfig|file]   checkpatch, W=1, sparse (new warnings only)
#   make matrix  [BRANCHES="..."] [BOOT=1] [FULL=1] [ARCH=..] [LLVM=1]   FULL=1: every baseline, target and the PREEMPT_RT boots
#   make regen   BRANCH=b [PROFILE=kabi] [REGEN_CHECK=1]   rebuild backports/b from cocci/ (REGEN_CHECK=1: diff only)
#   make boot    BRANCH=b|KDIR=dir [PATCHED=1|0|VARIANT=without-<topic>] [PROFILE=kabi] [RT=1] [ARCH=..] [LLVM=1] [JUDGE=log]
#   make selftests BRANCH=b|KDIR=dir [RT=1] [ARCH=..] [LLVM=1] [SAVE=1] [ONLY=patched|unpatched]   the tree's own mm selftests, patched against unpatched (SAVE=1: write tables/kselftest-expect.table; KDIR=: your tree, untouched)
#   make abi     BRANCH=b|KDIR=dir [PROFILE=default|kabi|both] [TOPICS=t,..] [ARCH=..] [LLVM=1]   interface changes per topic: out/abi/<name>.md
#   make export  BRANCH=b|KDIR=dir [FORMAT=quilt|mbox]   out/export/: quilt dir or git am mbox
#   make coccicheck KDIR=dir|BRANCH=b [MODE=report|patch|context|org] [COCCI=cocci/x.cocci] [M=mm]
#   make lint                   patch header rules (tables/header-rules.table) + checkpatch + shellcheck
#   make test-fast              tests that need no kernel tree (< 1 min)
#   make test    [FULL=1]       test-fast, unit tests, matrix with boots (FULL=1: the full tier)
#   make bench   [BRANCH=b] [RESUME=1|REPORT=1|SAVE=1] [ROUNDS=n] [SCAN_MODES=fast,default] [ARCH=..] [LLVM=1]
#   make bench-kit [BRANCH=b]   wall time of apply, check, matrix (cold/warm): out/bench-kit.{md,json}
#   make ci-templates           regenerate templates/ from tables/branches.table
#   make deps                   install what the kit needs (as root)
# A command's exit status: 0 done, 2 nothing to do (make: success), 3
# partial, 4 refused, 1 failed, 64 bad input; make shows it as "Error N"
# (README "Exit codes"; bin/<command> returns it as is).

SHELL    := /bin/bash
B        := bin

# only what the user gave reaches the commands, as arguments
given    = $(filter command line environment,$(origin $(1)))
opt      = $(if $(call given,$(1)),$(2) "$($(1))")
flag     = $(if $(filter 1,$($(1))),$(2))
# the caller's directory: make -C moves, the environment's PWD does not
FROM     = --from "$(if $(PWD),$(PWD),$(CURDIR))"
TREE     = $(FROM) $(call opt,KDIR,--kdir) $(call opt,BRANCH,--branch)
TARGET   = $(call opt,ARCH,--arch) $(call opt,LLVM,--llvm) $(call opt,KCONFIG,--kconfig)
APPLY    = $(call opt,TOPICS,--topics) $(call opt,PROFILE,--profile) $(call flag,STRICT,--strict) \
           $(call flag,FORCE,--force) $(call opt,VERIFY,--verify)
# 2 (nothing to do) is a success for make; every other status fails it
OK2      = || { rc=$$?; [ $$rc -eq 2 ] || exit $$rc; }

.PHONY: all demo tree apply unapply status check matrix regen boot selftests abi export coccicheck \
        lint test test-fast bench bench-kit ci-templates deps help clean

all: demo

demo:
	@$(B)/demo $(call opt,BRANCH,--branch)

tree:
	@$(B)/tree $(call opt,BRANCH,--branch) $(call opt,VARIANT,--variant)

apply:
	@$(B)/apply $(TREE) $(APPLY) $(TARGET) $(OK2)

unapply:
	@$(B)/unapply $(TREE) $(call flag,FORCE,--force) $(OK2)

status:
	@$(B)/status $(TREE) $(OK2)

check:
	@$(B)/check $(TREE) $(TARGET)

matrix:
	@$(B)/matrix $(call flag,BOOT,--boot) $(call flag,FULL,--full) $(call opt,ARCH,--arch) $(call opt,LLVM,--llvm) $(BRANCHES)

regen:
	@$(B)/regen $(call opt,BRANCH,--branch) $(call opt,PROFILE,--profile) $(if $(REGEN_CHECK),--check)

boot:
	@$(B)/boot $(TREE) $(TARGET) $(call opt,VARIANT,--variant) $(call opt,PATCHED,--patched) \
		$(call opt,PROFILE,--series-profile) $(if $(filter 1,$(RT)),--profile rt) $(call opt,JUDGE,--judge)

selftests:
	@$(B)/selftests $(TREE) $(TARGET) $(if $(filter 1,$(RT)),--profile rt) $(call flag,SAVE,--save) $(call opt,ONLY,--only)

abi:
	@$(B)/abi $(TREE) $(TARGET) $(call opt,PROFILE,--profile) $(call opt,TOPICS,--topics)

export:
	@$(B)/export $(TREE) $(call opt,FORMAT,--format)

coccicheck:
	@$(B)/coccicheck $(TREE) $(call opt,M,-M) $(call opt,MODE,--mode) $(if $(COCCI),"$(COCCI)")

lint:
	@$(B)/lint

test-fast:
	@$(B)/test --fast

test:
	@$(B)/test $(call flag,FULL,--full) $(if $(filter 0,$(BOOT)),--no-boot)

bench:
	@$(B)/bench $(if $(filter 1,$(RESUME)),--resume,$(if $(filter 1,$(REPORT)),--report,$(if $(filter 1,$(SAVE)),--save))) \
		$(call opt,ROUNDS,--rounds) $(call opt,SCAN_MODES,--scan-modes) $(call opt,BRANCH,--branch) $(TARGET)

bench-kit:
	@$(B)/bench-kit $(if $(call given,BRANCH),"$(BRANCH)")

ci-templates:
	@$(B)/ci-templates

deps:
	@$(B)/deps

help:
	@sed -n 's/^#   //p' Makefile

clean:
	rm -rf out
