// SPDX-License-Identifier: GPL-2.0-only
/// Let khugepaged and MADV_COLLAPSE collapse anonymous ranges that have no
/// writable PTE: __collapse_huge_page_isolate() and the PMD scan no longer
/// fail with SCAN_PAGE_RO, and madvise_collapse() no longer lists
/// SCAN_PAGE_RO among the results it continues after.
///
/// Carries upstream 62b98015d988 ("mm: enable khugepaged anonymous collapse
/// on non-writable regions"). The `else if` branch that remains differs per
/// branch (5.10: no cc->is_khugepaged) and is kept as it is.
//
// Confidence: High
// Comments: Matches only the exact `if (...!writable) { result =
//  SCAN_PAGE_RO; } else S` shapes of 5.10 .. 6.12; 5.10 has no
//  madvise_collapse(), so the switch rule does not match there.
//  Leaves `writable` itself alone: see khugepaged-drop-writable.cocci.
// Options: --no-includes --include-headers --macro-file cocci/macros.h

virtual patch
virtual context
virtual report

@ro depends on patch@
symbol writable, result;
statement S;
@@

(
- if (unlikely(!writable)) { result = SCAN_PAGE_RO; } else
  S
|
- if (!writable) { result = SCAN_PAGE_RO; } else
  S
)

@ro_case depends on patch@
expression E;
@@

switch (E) {
case ...: ...
- case SCAN_PAGE_RO:
case ...: ...
}

@ro_ctx depends on context@
@@

* SCAN_PAGE_RO

@ro_rep depends on report@
position p;
@@

  SCAN_PAGE_RO@p

@script:python depends on report@
p << ro_rep.p;
@@

coccilib.report.print_report(p[0], "SCAN_PAGE_RO is still produced or handled (upstream 62b98015d988)")
