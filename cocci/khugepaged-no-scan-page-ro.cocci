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
// Comments: The "writable" local and the result variable are bound from
//  the code, with or without unlikely(), and any
//  statements may come before or after the test. The PMD scan is
//  khugepaged_scan_pmd() (5.10) or hpage_collapse_scan_pmd() (5.15 ..
//  6.12). Both functions change or neither (no half result): the rules
//  that change code depend on the rules that find the test in both, and
//  the `case SCAN_PAGE_RO:` label goes only once both tests went (5.10 has
//  no madvise_collapse(), so that rule does not match there). Leaves
//  `writable` itself alone: see khugepaged-drop-writable.cocci. No macro
//  file is needed for mm/khugepaged.c.
// Options: --no-includes --include-headers

virtual patch
virtual context
virtual org
virtual report

@has_iso@
identifier w, res;
statement S;
@@

__collapse_huge_page_isolate(...)
{
  <+...
  if (\(unlikely(!w)\|!w\)) { res = SCAN_PAGE_RO; } else S
  ...+>
}

@has_scan@
identifier scan =~ "^(khugepaged|hpage_collapse)_scan_pmd$";
identifier w, res;
statement S;
@@

scan(...)
{
  <+...
  if (\(unlikely(!w)\|!w\)) { res = SCAN_PAGE_RO; } else S
  ...+>
}

@iso depends on patch && has_iso && has_scan@
identifier has_iso.w, has_iso.res;
statement S;
@@

__collapse_huge_page_isolate(...)
{
  <...
- if (\(unlikely(!w)\|!w\)) { res = SCAN_PAGE_RO; } else
  S
  ...>
}

@scan depends on patch && has_iso && has_scan@
identifier has_scan.scan, has_scan.w, has_scan.res;
statement S;
@@

scan(...)
{
  <...
- if (\(unlikely(!w)\|!w\)) { res = SCAN_PAGE_RO; } else
  S
  ...>
}

@ro_case depends on patch && iso && scan@
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

@ro_rep depends on org || report@
position p;
@@

  SCAN_PAGE_RO@p

@script:python depends on org@
p << ro_rep.p;
@@

coccilib.org.print_todo(p[0], "SCAN_PAGE_RO is still produced or handled (upstream 62b98015d988)")

@script:python depends on report@
p << ro_rep.p;
@@

coccilib.report.print_report(p[0], "SCAN_PAGE_RO is still produced or handled (upstream 62b98015d988)")
