// SPDX-License-Identifier: GPL-2.0-only
/// Remove what is left of the "writable PTE" tracking in mm/khugepaged.c
/// once SCAN_PAGE_RO is no longer produced: the SCAN_PAGE_RO enumerator,
/// the `bool X = false;` local of __collapse_huge_page_isolate() and of
/// the PMD scan that `if (pte_write(E)) X = true;` sets (or a vendor
/// wrapper of pte_write()), those updates, and X as an argument of the two
/// khugepaged tracepoints.
///
/// Carries the C part of upstream 473b73222f3d ("mm: drop all references of
/// writable and SCAN_PAGE_RO"); the TRACE_EVENT() side is a textual edit
/// (cocci/text/huge_memory-*.sed), as spatch does not parse
/// include/trace/events/*.h.
//
// Confidence: High
// Comments: Apply after khugepaged-no-scan-page-ro.cocci. The local is
//  bound from the code (whatever its name), other statements may sit
//  between the matched ones, and the trace calls may have any other
//  arguments (page, &folio->page or folio, more or fewer of them). It is
//  all or nothing: the rules that change code depend on the rules that
//  find, in both functions, the declaration, the update and the trace
//  argument, and on no other use of the local (a vendor that reads it
//  keeps its code unchanged). SCAN_PAGE_RO goes from the enum only once
//  nothing else names it. Only `if (E) X = true;` statements that set
//  the local are removed, so the unrelated `if (!pte_write(pteval) &&
//  PageSwapCache(page) && ...)` test of 5.10 stays. No macro file is
//  needed for mm/khugepaged.c.
// Options: --no-includes --include-headers

virtual patch
virtual context
virtual org
virtual report

// __collapse_huge_page_isolate(): declaration, update, trace argument
@has_iso exists@
identifier X;
expression E;
@@

__collapse_huge_page_isolate(...)
{
  ...
  bool X = false;
  ...
  if (E)
    X = true;
  ...
}

@has_iso_tr@
identifier has_iso.X;
@@

__collapse_huge_page_isolate(...)
{
  <+...
  trace_mm_collapse_huge_page_isolate(..., X, ...)
  ...+>
}

// any other use of the local in __collapse_huge_page_isolate()
@legit_iso@
identifier has_iso.X;
expression E;
position p;
@@

__collapse_huge_page_isolate(...)
{
  <...
(
  bool X@p = false;
|
  if (E)
    X@p = true;
|
  trace_mm_collapse_huge_page_isolate(..., X@p, ...)
)
  ...>
}

@other_iso@
identifier has_iso.X;
position p != legit_iso.p;
@@

__collapse_huge_page_isolate(...)
{
  <+...
  X@p
  ...+>
}

// the PMD scan: khugepaged_scan_pmd() (5.10), hpage_collapse_scan_pmd()
@has_scan exists@
identifier scan =~ "^(khugepaged|hpage_collapse)_scan_pmd$";
identifier X;
expression E;
@@

scan(...)
{
  ...
  bool X = false;
  ...
  if (E)
    X = true;
  ...
}

@has_scan_tr@
identifier has_scan.scan, has_scan.X;
@@

scan(...)
{
  <+...
  trace_mm_khugepaged_scan_pmd(..., X, ...)
  ...+>
}

@legit_scan@
identifier has_scan.scan, has_scan.X;
expression E;
position p;
@@

scan(...)
{
  <...
(
  bool X@p = false;
|
  if (E)
    X@p = true;
|
  trace_mm_khugepaged_scan_pmd(..., X@p, ...)
)
  ...>
}

@other_scan@
identifier has_scan.scan, has_scan.X;
position p != legit_scan.p;
@@

scan(...)
{
  <+...
  X@p
  ...+>
}

@iso depends on patch && has_iso_tr && has_scan_tr && !other_iso && !other_scan@
identifier has_iso.X;
expression E;
@@

__collapse_huge_page_isolate(...)
{
  <...
(
- bool X = false;
|
- if (E)
-   X = true;
|
  trace_mm_collapse_huge_page_isolate(...,
- X,
  ...)
)
  ...>
}

@scan depends on patch && iso@
identifier has_scan.scan, has_scan.X;
expression E;
@@

scan(...)
{
  <...
(
- bool X = false;
|
- if (E)
-   X = true;
|
  trace_mm_khugepaged_scan_pmd(...,
- X,
  ...)
)
  ...>
}

// SCAN_PAGE_RO still named outside the enum (62b98015d988 not applied, or
// vendor code): the enumerator stays
@ro_used depends on patch@
position p;
@@

  SCAN_PAGE_RO@p

@enum_ro depends on patch && scan && !ro_used@
@@

enum scan_result {
  ...,
- SCAN_PAGE_RO,
  ...
};

@w_ctx depends on context@
identifier X;
expression E;
@@

(
* if (pte_write(E))
*   X = true;
|
* trace_mm_collapse_huge_page_isolate(...)
|
* trace_mm_khugepaged_scan_pmd(...)
)

@w_rep depends on org || report@
identifier X;
expression E;
position p;
@@

  if (pte_write(E))
    X@p = true;

@script:python depends on org@
p << w_rep.p;
@@

coccilib.org.print_todo(p[0], "khugepaged still tracks writable PTEs (upstream 473b73222f3d)")

@script:python depends on report@
p << w_rep.p;
@@

coccilib.report.print_report(p[0], "khugepaged still tracks writable PTEs (upstream 473b73222f3d)")
