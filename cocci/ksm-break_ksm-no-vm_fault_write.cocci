// SPDX-License-Identifier: GPL-2.0-only
/// Make break_ksm() stop relying on VM_FAULT_WRITE: look the page up again
/// after each fault and leave the loop once it is no longer a KSM page,
/// instead of faking VM_FAULT_WRITE for non-KSM pages.
///
/// Carries the code hunk of upstream 58f595c66591 ("mm/ksm: simplify
/// break_ksm() to not rely on VM_FAULT_WRITE"). The comment below the loop
/// is rewritten textually (cocci/text/ksm-break_ksm-comment.sed), as
/// Coccinelle does not transform comments.
//
// Confidence: High
// Comments: The page and fault-result locals are bound from the code, the
//  statements around the matched ones are free (vendor hooks, #ifdef
//  blocks), the page may be released with put_page() or put_user_page(),
//  and handle_mm_fault() keeps whatever arguments the tree passes. Only
//  the body of the loop is edited (spatch 1.1.1 rejects do { } while (E)
//  patterns): it is matched as the block that holds the PageKsm() test;
//  the loop condition is edited by an expression-level rule. Both edits
//  happen or neither: the rules that change code depend on the rules that
//  find both shapes. Only trees whose break_ksm() still uses PageKsm()
//  and VM_FAULT_WRITE (5.10, 6.1 and their vendor forks) match; 6.2+
//  already carry the change. No macro file is needed for mm/ksm.c.
// Options: --no-includes --include-headers

virtual patch
virtual context
virtual org
virtual report

// the loop body with the fault under PageKsm() and the fake VM_FAULT_WRITE
@has_body@
identifier page, ret;
expression list args;
@@

break_ksm(...)
{
  <+...
  if (PageKsm(page))
    ret = handle_mm_fault(args);
  else
    ret = VM_FAULT_WRITE;
  ...+>
}

// the loop condition that waits for VM_FAULT_WRITE
@has_cond@
identifier has_body.ret;
expression E;
@@

break_ksm(...)
{
  <+...
  ret & (<+... VM_FAULT_WRITE | E ...+>)
  ...+>
}

@body depends on patch && has_body && has_cond@
identifier has_body.page, has_body.ret;
expression list has_body.args;
symbol ksm_page, true, false;
@@

break_ksm(...)
{
  <...
  {
+	bool ksm_page = false;
+
  ...
  if (PageKsm(page))
-   ret = handle_mm_fault(args);
- else
-   ret = VM_FAULT_WRITE;
+   ksm_page = true;
  ...
(
  put_page(page);
+
+	if (!ksm_page)
+		return 0;
+	ret = handle_mm_fault(args);
|
  put_user_page(page);
+
+	if (!ksm_page)
+		return 0;
+	ret = handle_mm_fault(args);
)
  ...
  }
  ...>
}

@cond depends on patch && body@
expression E;
@@

break_ksm(...)
{
  <...
- VM_FAULT_WRITE | E
+ E
  ...>
}

@k_ctx depends on context@
@@

break_ksm(...)
{
  <...
* VM_FAULT_WRITE
  ...>
}

@k_rep depends on org || report@
position p;
@@

break_ksm(...)
{
  <...
  VM_FAULT_WRITE@p
  ...>
}

@script:python depends on org@
p << k_rep.p;
@@

coccilib.org.print_todo(p[0], "VM_FAULT_WRITE used (break_ksm: upstream 58f595c66591)")

@script:python depends on report@
p << k_rep.p;
@@

coccilib.report.print_report(p[0], "VM_FAULT_WRITE used (break_ksm: upstream 58f595c66591)")
