# SPDX-License-Identifier: GPL-2.0
# mm-backport-kit - the only front door.  Every target is one script; this
# file only maps make variables onto script arguments.
#
#   make [demo]                 tree -> apply -> check on BRANCH (default 6.12)
#   make tree    BRANCH=b       fetch + extract Debian's linux-source-b
#   make apply   KDIR=dir|BRANCH=b   apply the branch series (atomic; FORCE=1)
#   make unapply KDIR=dir|BRANCH=b   take it out again
#   make status  KDIR=dir|BRANCH=b
#   make check   KDIR=dir|BRANCH=b   checkpatch, W=1, sparse (new warnings only)
#   make matrix  [BRANCHES="5.10 6.1 6.12 7.2"] [BOOT=1]
#   make regen   BRANCH=b       rebuild backports/b from cocci/ (REGEN_CHECK=1: diff only)
#   make boot    BRANCH=b|KDIR=dir [PATCHED=1|0|VARIANT=without-<topic>] [JUDGE=log]
#   make export  BRANCH=b|KDIR=dir [FORMAT=quilt|mbox]   out/export/: quilt dir or git am mbox
#   make lint                   patch header rules (scripts/header-rules.table) + checkpatch
#   make test                   unit tests + matrix on all branches
#   make bench   [BRANCH=b]     before/after benchmarks (all branches without BRANCH=): out/bench.{md,json,svg}
#   make bench-kit [BRANCH=b]   wall time of apply, check, matrix (cold/warm): out/bench-kit.{md,json}

SHELL    := /bin/bash
BRANCH   ?= 6.12
BRANCHES ?= 5.10 6.1 6.12 7.2
PATCHED  ?= 1
FORMAT   ?= quilt
export KDIR BRANCH PATCHED FORCE MMBK_CACHE MMBK_OUT BOOT

S := scripts

# the tree a KDIR=/BRANCH= target works on: the user's, or a scratch copy
target = $(if $(KDIR),$(KDIR),$$($(S)/worktree.sh $(BRANCH) scratch))

.PHONY: all demo tree apply unapply status check matrix regen boot export test lint clean help bench bench-kit

all: demo

demo:
	@$(S)/demo.sh $(BRANCH)

tree:
	@$(S)/tree.sh $(BRANCH)

apply:
	@$(S)/apply.sh apply $(target) || [ $$? -eq 2 ]

unapply:
	@$(S)/apply.sh unapply $(target) || [ $$? -eq 2 ]

status:
	@$(S)/apply.sh status $(target)

check:
	@$(S)/check.sh $(if $(KDIR),$(KDIR),$$($(S)/worktree.sh $(BRANCH) patched))

matrix:
	@$(S)/matrix.sh $(BRANCHES)

regen:
	@$(S)/regen.sh $(if $(REGEN_CHECK),--check) $(BRANCH)

boot:
	@$(S)/boot.sh $(if $(KDIR),--kdir $(KDIR),--branch $(BRANCH)) --variant $(if $(VARIANT),$(VARIANT),$(if $(filter 0 no n false,$(PATCHED)),unpatched,patched))$(if $(JUDGE), --judge $(JUDGE))

export:
	@$(S)/export.sh $(if $(KDIR),$(KDIR),$(BRANCH)) $(FORMAT)

lint:
	@$(S)/lint.sh

test:
	@tests/run.sh

# BRANCH defaults to 6.12 for the other targets: bench looks at the command line
bench:
	@$(S)/bench.sh $(if $(filter command line environment,$(origin BRANCH)),$(BRANCH))

bench-kit:
	@$(S)/bench-kit.sh $(if $(filter command line environment,$(origin BRANCH)),$(BRANCH))

help:
	@sed -n 's/^#   //p' Makefile

clean:
	rm -rf out
