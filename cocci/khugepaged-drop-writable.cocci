// SPDX-License-Identifier: GPL-2.0-only
/// Remove what is left of the "writable PTE" tracking in mm/khugepaged.c
/// once SCAN_PAGE_RO is no longer produced: the SCAN_PAGE_RO enumerator,
/// the local `bool writable` of __collapse_huge_page_isolate() and of the
/// PMD scan, the `if (pte_write(pte)) writable = true;` updates and the
/// `writable` argument of the two khugepaged tracepoints.
///
/// Carries the C part of upstream 473b73222f3d ("mm: drop all references of
/// writable and SCAN_PAGE_RO"); the TRACE_EVENT() side is a textual edit
/// (cocci/text/huge_memory-*.sed), as spatch does not parse
/// include/trace/events/*.h.
//
// Confidence: High
// Comments: Apply after khugepaged-no-scan-page-ro.cocci. Only the exact
//  `if (pte_write(E)) writable = true;` statement is removed, so the
//  unrelated `if (!pte_write(pteval) && PageSwapCache(page) && ...)` test
//  of 5.10 stays. The trace calls are matched by position whatever the
//  type of the page argument (page, &folio->page or folio).
// Options: --no-includes --include-headers --macro-file cocci/macros.h

virtual patch
virtual context
virtual report

@enum_ro depends on patch@
@@

enum scan_result {
  ...,
- SCAN_PAGE_RO,
  ...
};

@decl depends on patch@
symbol writable, true, false;
@@

- bool writable = false;

@upd depends on patch@
symbol writable, true, false;
expression E;
@@

- if (pte_write(E))
-	writable = true;

@iso depends on patch@
symbol writable, true, false;
expression E1, E2, E3, E4;
@@

trace_mm_collapse_huge_page_isolate(E1, E2, E3,
-	writable,
	E4)

@scan depends on patch@
symbol writable, true, false;
expression E1, E2, E3, E4, E5, E6;
@@

trace_mm_khugepaged_scan_pmd(E1, E2,
-	writable,
	E3, E4, E5, E6)

@w_ctx depends on context@
symbol writable, true, false;
@@

(
* bool writable = false;
|
* writable = true
|
* trace_mm_collapse_huge_page_isolate(...,writable,...)
|
* trace_mm_khugepaged_scan_pmd(...,writable,...)
)

@w_rep depends on report@
symbol writable, true, false;
position p;
@@

(
  bool writable@p = false;
|
  writable@p = true
|
  trace_mm_collapse_huge_page_isolate(...,writable@p,...)
|
  trace_mm_khugepaged_scan_pmd(...,writable@p,...)
)

@script:python depends on report@
p << w_rep.p;
@@

coccilib.report.print_report(p[0], "khugepaged still tracks writable PTEs (upstream 473b73222f3d)")
