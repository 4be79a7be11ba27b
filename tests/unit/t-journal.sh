# SPDX-License-Identifier: GPL-2.0
# tier: fast
# The apply journal on a small synthetic kit and tree (no kernel tree, no
# cache): topics land independently, a failing topic leaves no trace, a
# created file goes away again, a SIGKILL half way is rolled back, and
# unapply restores the tree byte for byte.


# synth_kit DIR: a kit with three topics for branch 9.9
synth_kit() {
	local k=$1
	mkdir -p "$k/patches" "$k/backports/9.9"
	printf '%s\n' 0001-ksm.patch 0002-hp.patch 0003-bad.patch > "$k/series"
	mkdir -p "$k/tables"
	# the kit's own rules (plan, recipes, header rules), its own data
	cp "$KIT_DIR"/tables/plan.table "$KIT_DIR"/tables/recipes.table "$KIT_DIR"/tables/header-rules.table "$k/tables/"
	printf '9.9 deb sid:linux-source-9.9 - - no default\n' > "$k/tables/branches.table"
	printf '%s\n' 'alpha 0001-ksm.patch' 'beta 0002-hp.patch' 'gamma 0003-bad.patch' > "$k/tables/topics.table"
	: > "$k/tables/detect.table"
	cat > "$k/backports/9.9/0001-ksm.patch" <<-'P'
	From 0000000000000000000000000000000000000001 Mon Sep 17 00:00:00 2001
	Subject: [PATCH] ksm

	---
	diff --git a/mm/ksm.c b/mm/ksm.c
	--- a/mm/ksm.c
	+++ b/mm/ksm.c
	@@ -1,3 +1,3 @@
	 int a;
	-int b;
	+int b2;
	 int c;
	P
	cat > "$k/backports/9.9/0002-hp.patch" <<-'P'
	From 0000000000000000000000000000000000000002 Mon Sep 17 00:00:00 2001
	Subject: [PATCH] hp

	---
	diff --git a/mm/khugepaged.c b/mm/khugepaged.c
	--- a/mm/khugepaged.c
	+++ b/mm/khugepaged.c
	@@ -1,2 +1,3 @@
	 int x;
	+int y;
	 int z;
	diff --git a/mm/new.c b/mm/new.c
	new file mode 100644
	--- /dev/null
	+++ b/mm/new.c
	@@ -0,0 +1 @@
	+int created;
	P
	cat > "$k/backports/9.9/0003-bad.patch" <<-'P'
	From 0000000000000000000000000000000000000003 Mon Sep 17 00:00:00 2001
	Subject: [PATCH] bad

	---
	diff --git a/kernel/locking/rwsem.c b/kernel/locking/rwsem.c
	--- a/kernel/locking/rwsem.c
	+++ b/kernel/locking/rwsem.c
	@@ -1,2 +1,2 @@
	 int r;
	-int not_there;
	+int s;
	P
	cp "$k"/backports/9.9/*.patch "$k/patches/"
	printf '%s\n' 0001-ksm.patch 0002-hp.patch 0003-bad.patch > "$k/backports/9.9/series"
}

# synth_tree DIR: a Linux 9.9.1 tree the patches of topics alpha and beta fit
synth_tree() {
	mkdir -p "$1/mm" "$1/kernel/locking"
	printf 'VERSION = 9\nPATCHLEVEL = 9\nSUBLEVEL = 1\n' > "$1/Makefile"
	printf 'int a;\nint b;\nint c;\n' > "$1/mm/ksm.c"
	printf 'int x;\nint z;\n' > "$1/mm/khugepaged.c"
	printf 'int r;\nint q;\n' > "$1/kernel/locking/rwsem.c"
	chmod 640 "$1/mm/ksm.c"
}

# synth_apply CMD [OPTION...] TREE: make CMD (bin/CMD) on the synthetic
# kit, without any cache
synth_apply() {
	local cmd=$1 tree=${!#}
	MMBK_DATA=$T/kit run_kit env -u HOME -u XDG_CACHE_HOME -u MMBK_CACHE "$KIT_DIR/bin/$cmd" \
		"${@:2:$#-2}" --kdir "$tree"
}

test_topics_journal() {
	local d=$T/synth sum
	synth_kit "$T/kit"
	synth_tree "$d"
	sum=$(tree_sum "$d")
	synth_apply apply "$d"
	expect_rc 3 "apply with a failing topic"
	expect_out '^topic alpha +applied' "alpha"
	expect_out '^topic beta +applied' "beta"
	expect_out '^topic gamma +failed: 0003-bad.patch does not apply at fuzz 0' "gamma"
	grep -qx 'int b2;' "$d/mm/ksm.c" || fail "alpha not applied"
	[ -f "$d/mm/new.c" ] || fail "beta did not create mm/new.c"
	grep -qx 'int q;' "$d/kernel/locking/rwsem.c" || fail "gamma left a trace"
	[ "$(stat -c %a "$d/mm/ksm.c")" = 640 ] || fail "mode of mm/ksm.c not kept"
	synth_apply status "$d"
	expect_out '^topic gamma +failed' "status"
	synth_apply unapply "$d"
	expect_rc 0 "unapply"
	expect_sum "$d" "$sum" "synthetic apply + unapply"
	[ ! -e "$d/mm/new.c" ] || fail "created file left behind"
	synth_apply apply --strict "$d"
	expect_rc 1 "strict apply"
	expect_sum "$d" "$sum" "strict apply"
	synth_apply apply --topics beta "$d"
	expect_rc 0 "apply TOPICS=beta"
	expect_out '^0001-ksm.patch +not selected' "alpha not selected"
	synth_apply unapply "$d"
	expect_sum "$d" "$sum" "TOPICS=beta + unapply"
}

# a SIGKILL right after the first topic: the next command rolls back
test_killed_between_topics() {
	local d=$T/synth-kill sum bin
	synth_kit "$T/kit"
	synth_tree "$d"
	sum=$(tree_sum "$d")
	bin=$T/killbin
	mkdir -p "$bin"
	cat > "$bin/quilt" <<-EOT
	#!/bin/bash
	if [ "\$1" = push ] && grep -q 0002 "\$QUILT_SERIES"; then
		kill -KILL -- -\$(ps -o pgid= \$\$ | tr -d ' ')
	fi
	exec $(command -v quilt) "\$@"
	EOT
	chmod +x "$bin/quilt"
	( PATH=$bin:$PATH MMBK_DATA=$T/kit setsid "$KIT_DIR/bin/apply" --kdir "$d" >/dev/null 2>&1 < /dev/null || true ) 2>/dev/null
	grep -qx 'int b2;' "$d/mm/ksm.c" || fail "test void: the kill came before the first topic landed"
	synth_apply status "$d"
	expect_out '^interrupted apply' "status"
	synth_apply unapply "$d"
	expect_rc 0 "unapply after the kill"
	expect_sum "$d" "$sum" "killed between topics"
}
