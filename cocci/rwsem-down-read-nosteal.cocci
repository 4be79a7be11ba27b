// SPDX-License-Identifier: GPL-2.0-only
/// Give the rwsem read slowpath a `nosteal` flag: a nosteal reader that
/// finds waiters queued goes straight to the wait queue instead of trying
/// reader optimistic lock stealing. The flag is a new last parameter of
/// rwsem_down_read_slowpath() and of __down_read_common(), which passes it
/// on; every existing caller of __down_read_common() passes false.
///
/// Carries the slowpath part of kit patch 0006 ("locking/rwsem: add
/// down_read[_killable]_nosteal()"). The new functions (the
/// __down_read[_killable]_nosteal() helpers of both rwsem implementations,
/// the exported down_read[_killable]_nosteal() with their kernel-doc and
/// their declarations in include/linux/rwsem.h) are new definitions, which
/// lib/retarget.sh re-anchors (mmbk/reanchor.py); the one-line
/// comment above the slowpath is a textual edit
/// (cocci/text/rwsem-slowpath-comment.sed).
//
// Confidence: High
// Comments: The parameters are bound from the code (names and types), the
//  early `goto` jumps to the label of the first `if (...) goto L;` of the
//  slowpath (the "queue" label of 5.11+, whatever the vendor calls it),
//  placed before that test, after the declarations, however many locals
//  and statements a vendor adds around it (Android's trace_android_vh_*
//  hooks and #ifdef CONFIG_ANDROID_VENDOR_HOOKS blocks). Every rule
//  depends on the slowpath rule: nothing changes unless the slowpath does.
//  The rwsem before v5.11 (5.10) has no __down_read_common() and no count
//  parameter, and its readers spin (rwsem_optimistic_spin()): a spinning
//  reader's trylocks (rwsem_try_read_lock_unqueued(), the reader-phase
//  trylock) do not look at queued waiters, so a writer that queues while
//  it spins can be overtaken. There a nosteal reader never spins: the
//  early exit is unconditional and goes where a reader that cannot spin
//  on the owner goes, and the direct callers of the slowpath pass false. A macro file is only needed for 7.2's
//  scoped_guard() in __init_rwsem(), which no rule touches.
// Options: --no-includes --include-headers

virtual patch
virtual context
virtual org
virtual report

// __down_read_common() calls the slowpath with its own state: both gain
// the flag together
@has_common@
identifier sem, state;
type T1, T2;
expression E;
@@

__down_read_common(T1 sem, T2 state)
{
  <+...
  rwsem_down_read_slowpath(sem, E, state)
  ...+>
}

// the early exit goes right after the locals: after the last declaration,
// or after DEFINE_WAKE_Q() where that ends them (spatch takes it for a
// statement)
@slow depends on patch && has_common@
identifier sem, count, state, lbl;
type T1, T2, T3;
declaration d;
expression E;
@@

rwsem_down_read_slowpath(T1 sem, T2 count, T3 state
+ , bool nosteal
  )
{
  ... when any
  d
+
+	if (nosteal && (count & RWSEM_FLAG_WAITERS))
+		goto lbl;
  if (E)
    goto lbl;
  ...
}

@slow_wq depends on patch && has_common && !slow@
identifier sem, count, state, lbl;
type T1, T2, T3;
identifier w;
expression E;
@@

rwsem_down_read_slowpath(T1 sem, T2 count, T3 state
+ , bool nosteal
  )
{
  ...
  DEFINE_WAKE_Q(w);
+
+	if (nosteal && (count & RWSEM_FLAG_WAITERS))
+		goto lbl;
  if (E)
    goto lbl;
  ...
}

@common depends on patch && (slow || slow_wq)@
identifier has_common.sem, has_common.state;
type T1, T2;
expression E;
@@

__down_read_common(T1 sem, T2 state
+ , bool nosteal
  )
{
  <...
  rwsem_down_read_slowpath(sem, E, state
+ , nosteal
  )
  ...>
}

// before v5.11: the reader may spin, and take the lock ahead of a queued
// writer, unless rwsem_can_spin_on_owner() sends it to the queue; a
// nosteal reader always goes to the queue
@slow_spin depends on patch && !has_common@
identifier sem, state, lbl;
type T1, T2;
@@

rwsem_down_read_slowpath(T1 sem, T2 state
+ , bool nosteal
  )
{
  ...
+	if (nosteal)
+		goto lbl;
  if (!rwsem_can_spin_on_owner(...))
    goto lbl;
  ...
}

@callers_spin depends on patch && slow_spin@
expression E1, E2;
@@

  rwsem_down_read_slowpath(E1, E2
+ , false
  )

@callers depends on patch && common@
expression E1, E2;
@@

  __down_read_common(E1, E2
+ , false
  )

@s_ctx depends on context@
identifier sem, count, state;
type T1, T2, T3;
@@

* rwsem_down_read_slowpath(T1 sem, T2 count, T3 state)
  {
  ...
  }

@s_rep depends on org || report@
identifier sem, count, state;
type T1, T2, T3;
position p;
@@

  rwsem_down_read_slowpath@p(T1 sem, T2 count, T3 state)
  {
  ...
  }

@script:python depends on org@
p << s_rep.p;
@@

coccilib.org.print_todo(p[0], "rwsem read slowpath without a nosteal flag (kit patch 0006)")

@script:python depends on report@
p << s_rep.p;
@@

coccilib.report.print_report(p[0], "rwsem read slowpath without a nosteal flag (kit patch 0006)")
