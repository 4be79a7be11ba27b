// SPDX-License-Identifier: GPL-2.0-only
/// Code that drops the mmap read lock because mmap_lock_is_contended() and
/// then takes it again should retake it with mmap_read_lock_nosteal() or
/// mmap_read_lock_killable_nosteal(): the plain variants may steal the lock
/// back ahead of the writer it was dropped for.
///
/// Carries the caller part of "mm: add and use
/// mmap_read_lock[_killable]_nosteal() on contention" (patches/0007-*,
/// kernel/bpf/task_iter.c). The mm/mmap_lock.c hunk of that patch (the
/// lock_next_vma() fallback, 7.2 only) is not a contention-relock of this
/// shape and is written by hand.
//
// Confidence: High
// Comments: Matches any mmap_read_lock[_killable](E) inside the body of an
//  `if (mmap_lock_is_contended(mm))` (with or without else), whatever
//  expression E names the mm there (a vendor may write it differently);
//  the lock must have been dropped there, as it cannot be taken twice.
//  Except a relock of a task's mm read again from the task (T->mm, 5.15's
//  task_vma_seq_get_next() before "bpf: keep a reference to the mm, in
//  case the task is dead"): the caller holds no reference on that mm, and
//  if the task exits while the reader waits, exit_mmap() tears the mm
//  down under it; a nosteal reader waits in more cases and would widen
//  that window, so that call is left as it is (no change: the kit's recipe
//  runs this as an adapting "?" step).
//  Also matches show_smaps_rollup() of 5.10 .. 6.12, which the kit leaves
//  alone to stay in line with mainline (there the relock goes through
//  lock_ctx_mm()); run it on the files you mean to convert (the kit's recipe for 0007 runs it on
//  kernel/bpf/task_iter.c only). Requires the nosteal wrappers of
//  include/linux/mmap_lock.h (patches/0006-*, 0007-*), which
//  lib/retarget.sh re-anchors. show_smaps_rollup() of 6.12+ parses only
//  with the kit's macro file (`} for_each_vma(vmi, vma);`): pass it with
//  SPFLAGS (see cocci/README).
// Options: --no-includes --include-headers

virtual patch
virtual context
virtual org
virtual report

@depends on patch@
expression m, E, T;
statement S;
@@
(
if (mmap_lock_is_contended(m)) {
  <...
(
  mmap_read_lock_killable(T->mm)
|
  mmap_read_lock(T->mm)
|
- mmap_read_lock_killable(E)
+ mmap_read_lock_killable_nosteal(E)
|
- mmap_read_lock(E)
+ mmap_read_lock_nosteal(E)
)
  ...>
}
|
if (mmap_lock_is_contended(m)) {
  <...
(
  mmap_read_lock_killable(T->mm)
|
  mmap_read_lock(T->mm)
|
- mmap_read_lock_killable(E)
+ mmap_read_lock_killable_nosteal(E)
|
- mmap_read_lock(E)
+ mmap_read_lock_nosteal(E)
)
  ...>
} else S
)

@depends on context@
expression m, E, T;
statement S;
@@
(
if (mmap_lock_is_contended(m)) {
  <...
(
  mmap_read_lock_killable(T->mm)
|
  mmap_read_lock(T->mm)
|
* mmap_read_lock_killable(E)
|
* mmap_read_lock(E)
)
  ...>
}
|
if (mmap_lock_is_contended(m)) {
  <...
(
  mmap_read_lock_killable(T->mm)
|
  mmap_read_lock(T->mm)
|
* mmap_read_lock_killable(E)
|
* mmap_read_lock(E)
)
  ...>
} else S
)

@r depends on org || report@
expression m, E, T;
statement S;
position p;
@@
(
if (mmap_lock_is_contended(m)) {
  <...
(
  mmap_read_lock_killable(T->mm)
|
  mmap_read_lock(T->mm)
|
  mmap_read_lock_killable@p(E)
|
  mmap_read_lock@p(E)
)
  ...>
}
|
if (mmap_lock_is_contended(m)) {
  <...
(
  mmap_read_lock_killable(T->mm)
|
  mmap_read_lock(T->mm)
|
  mmap_read_lock_killable@p(E)
|
  mmap_read_lock@p(E)
)
  ...>
} else S
)

@script:python depends on org@
p << r.p;
@@
coccilib.org.print_todo(p[0], "mmap read lock retaken after contention: use the _nosteal variant")

@script:python depends on report@
p << r.p;
@@
coccilib.report.print_report(p[0], "mmap read lock retaken after contention: use the _nosteal variant")
