// SPDX-License-Identifier: GPL-2.0-only
/// Make the mm exit test that a re-anchored khugepaged helper calls one
/// the tree has: khugepaged's "is this mm going away (or has THP been
/// disabled for it)" test is khugepaged_test_exit() (5.10, 5.15),
/// hpage_collapse_test_exit() (6.1, 6.6), hpage_collapse_test_exit_or_disable()
/// (6.12) or collapse_test_exit[_or_disable]() (7.x). A call to one that
/// mm/khugepaged.c does not define becomes a call to the one it does: the
/// "_or_disable" form when the tree has one, else the plain form.
///
/// An adapting step of the recipe of kit patch 0008 ("mm/khugepaged:
/// drop/reacquire mmap read lock if skipped enough VMAs"), run after the
/// re-anchored khugepaged_scan_relock() of a newer branch lands in an older
/// tree (e.g. 6.12's backport on a 6.6 tree).
//
// Confidence: High
// Comments: Only calls inside khugepaged_scan_relock() change, and only
//  to a test mm/khugepaged.c defines; on a tree that defines the called
//  test nothing changes (the step is optional in tables/recipes.table). No macro
//  file is needed for mm/khugepaged.c.
// Options: --no-includes --include-headers

virtual patch
virtual context
virtual org
virtual report

// the exit test the tree defines, preferring the "_or_disable" form
@ord@
identifier fn =~ "^(khugepaged|hpage_collapse|collapse)_test_exit_or_disable$";
@@

fn(...) { ... }

@plain depends on !ord@
identifier fn =~ "^(khugepaged|hpage_collapse|collapse)_test_exit$";
@@

fn(...) { ... }

// the test the helper calls, unless the tree defines it
@called@
identifier old =~ "^(khugepaged|hpage_collapse|collapse)_test_exit(_or_disable)?$";
expression E;
@@

khugepaged_scan_relock(...)
{
  <+...
  old(E)
  ...+>
}

@defined@
identifier called.old;
@@

old(...) { ... }

@fix_ord depends on patch && ord && !defined@
identifier called.old, ord.fn;
expression E;
@@

khugepaged_scan_relock(...)
{
  <...
- old(E)
+ fn(E)
  ...>
}

@fix_plain depends on patch && plain && !defined@
identifier called.old, plain.fn;
expression E;
@@

khugepaged_scan_relock(...)
{
  <...
- old(E)
+ fn(E)
  ...>
}

@e_ctx depends on context && !defined@
identifier called.old;
expression E;
@@

* old(E)

@e_rep depends on (org || report) && !defined@
identifier called.old;
expression E;
position p;
@@

  old@p(E)

@script:python depends on org@
p << e_rep.p;
@@

coccilib.org.print_todo(p[0], "call to an mm exit test mm/khugepaged.c does not define")

@script:python depends on report@
p << e_rep.p;
@@

coccilib.report.print_report(p[0], "call to an mm exit test mm/khugepaged.c does not define")
