# SPDX-License-Identifier: GPL-2.0
# mm-backport-kit - the only front door.  Every target is one script; this
# file only maps make variables onto script arguments (quoted, so paths may
# hold blanks; BRANCH= is passed on only when you give it).
#
#   make [demo]                 tree -> apply -> check on BRANCH (default: the table's default)
#   make tree    BRANCH=b       fetch + extract the tree of branch b (Debian package or pinned tarball)
#   make apply   KDIR=dir|BRANCH=b [TOPICS=t,..] [PROFILE=kabi] [STRICT=1] [FORCE=1]   apply, topic by topic (atomic each); PROFILE=kabi: the kABI variants (backports/b/kabi/)
#   make unapply KDIR=dir|BRANCH=b [FORCE=1]   take it out again (atomic)
#   make status  KDIR=dir|BRANCH=b  per patch and per topic
#   make check   KDIR=dir|BRANCH=b   checkpatch, W=1, sparse (new warnings only)
#   make matrix  [BRANCHES="..."] [BOOT=1] [FULL=1]   FULL=1: every baseline and the PREEMPT_RT boots
#   make regen   BRANCH=b [PROFILE=kabi]   rebuild backports/b (PROFILE=kabi: backports/b/kabi/) from cocci/ (REGEN_CHECK=1: diff only)
#   make boot    BRANCH=b|KDIR=dir [PATCHED=1|0|VARIANT=without-<topic>] [PROFILE=kabi] [RT=1] [JUDGE=log]   RT=1: PREEMPT_RT kernel
#   make abi     BRANCH=b|KDIR=dir [PROFILE=default|kabi|both] [TOPICS=t,..]   interface changes per topic (symbols, types, tracepoints): out/abi/<name>.md
#   make export  BRANCH=b|KDIR=dir [FORMAT=quilt|mbox]   out/export/: quilt dir or git am mbox
#   make coccicheck KDIR=dir [MODE=report|patch|context|org] [COCCI=cocci/x.cocci] [M=mm]   the kernel's coccicheck with the kit's macro file
#   make lint                   patch header rules (scripts/header-rules.table) + checkpatch + shellcheck
#   make test-fast              tests that need no kernel tree (< 1 min)
#   make test    [FULL=1]       test-fast, unit tests, matrix with boots (FULL=1: also the full-tier unit tests, every baseline, the PREEMPT_RT boots)
#   make bench   [BRANCH=b] [RESUME=1] [REPORT=1] [SAVE=1]  before/after benchmarks (all branches without BRANCH=): out/bench.{md,json,svg}; REPORT=1: only the report of the figures measured (tests/bench/results.tsv); SAVE=1: put the finished rounds measured into tests/bench/results.tsv
#   make bench-kit [BRANCH=b]   wall time of apply, check, matrix (cold/warm): out/bench-kit.{md,json}

SHELL    := /bin/bash
PATCHED  ?= 1
FORMAT   ?= quilt
S        := scripts

# only what the user gave reaches the scripts, as arguments
given       = $(filter command line environment,$(origin $(1)))
BRANCH_ARG  = $(if $(call given,BRANCH),--branch "$(BRANCH)")
KDIR_ARG    = $(if $(KDIR),--kdir "$(KDIR)")
TREE_ARGS   = $(KDIR_ARG) $(BRANCH_ARG)
APPLY_ARGS  = $(if $(TOPICS),--topics "$(TOPICS)") $(if $(PROFILE),--profile "$(PROFILE)") $(if $(filter 1,$(STRICT)),--strict) \
              $(if $(filter 1,$(FORCE)),--force)
BOOT_VARIANT = $(if $(VARIANT),$(VARIANT),$(if $(filter 0 no n false,$(PATCHED)),unpatched,patched$(if $(filter kabi,$(PROFILE)),-kabi)))

.PHONY: abi coccicheck all demo tree apply unapply status check matrix regen boot export test test-fast lint clean help bench bench-kit

all: demo

demo:
	@$(S)/demo.sh $(BRANCH_ARG)

tree:
	@$(S)/tree.sh $(if $(BRANCH),"$(BRANCH)")

apply:
	@$(S)/apply.sh apply $(TREE_ARGS) $(APPLY_ARGS) || [ $$? -eq 2 ]

unapply:
	@$(S)/apply.sh unapply $(TREE_ARGS) $(if $(filter 1,$(FORCE)),--force) || [ $$? -eq 2 ]

status:
	@$(S)/apply.sh status $(TREE_ARGS)

check:
	@$(S)/check.sh $(TREE_ARGS)

matrix:
	@$(S)/matrix.sh $(if $(filter 1,$(BOOT)),--boot) $(if $(filter 1,$(FULL)),--full) $(BRANCHES)

regen:
	@$(S)/regen.sh $(if $(REGEN_CHECK),--check) $(if $(PROFILE),--profile "$(PROFILE)") "$(BRANCH)"

boot:
	@$(S)/boot.sh $(TREE_ARGS) --variant $(BOOT_VARIANT) $(if $(filter 1,$(RT)),--profile rt) $(if $(JUDGE),--judge "$(JUDGE)")

abi:
	@$(S)/abi.sh $(TREE_ARGS) $(if $(PROFILE),--profile "$(PROFILE)") $(if $(TOPICS),--topics "$(TOPICS)")

export:
	@$(S)/export.sh $(TREE_ARGS) --format "$(FORMAT)"

coccicheck:
	@$(S)/coccicheck.sh $(if $(M),-M "$(M)") "$(KDIR)" "$(if $(MODE),$(MODE),report)" $(if $(COCCI),"$(abspath $(COCCI))")

lint:
	@$(S)/lint.sh

test-fast:
	@tests/run.sh --fast

test:
	@tests/run.sh $(if $(filter 1,$(FULL)),--full) $(if $(filter 0,$(BOOT)),--no-boot)

bench:
	@$(S)/bench.sh $(if $(filter 1,$(RESUME)),--resume,$(if $(filter 1,$(REPORT)),--report,$(if $(filter 1,$(SAVE)),--save))) $(if $(call given,BRANCH),"$(BRANCH)")

bench-kit:
	@$(S)/bench-kit.sh $(if $(call given,BRANCH),"$(BRANCH)")

help:
	@sed -n 's/^#   //p' Makefile

clean:
	rm -rf out
