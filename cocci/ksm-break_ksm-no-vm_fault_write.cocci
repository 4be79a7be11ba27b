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
// Comments: spatch 1.1.1 rejects do { } while (E) patterns, so the loop is
//  edited from the inside: the body is matched from cond_resched() to
//  put_page() and the loop condition with an expression-level rule.
//  Only trees whose break_ksm() still uses follow_page()/PageKsm()
//  (5.10, 6.1) match; 6.2+ already carry the change.
// Options: --no-includes --include-headers --macro-file cocci/macros.h

virtual patch
virtual context
virtual report

@body depends on patch@
symbol ret, ksm_page, true, false;
identifier page;
expression vma, addr, flags, foll;
@@

+	bool ksm_page = false;
+
	cond_resched();
	page = follow_page(vma, addr, foll);
	if (IS_ERR_OR_NULL(page))
		break;
	if (PageKsm(page))
-		ret = handle_mm_fault(vma, addr, flags, NULL);
-	else
-		ret = VM_FAULT_WRITE;
+		ksm_page = true;
	put_page(page);
+
+	if (!ksm_page)
+		return 0;
+	ret = handle_mm_fault(vma, addr, flags, NULL);

@cond depends on patch && body@
symbol ret;
@@

break_ksm(...)
{
  <...
- !(ret & (VM_FAULT_WRITE | VM_FAULT_SIGBUS | VM_FAULT_SIGSEGV | VM_FAULT_OOM))
+ !(ret & (VM_FAULT_SIGBUS | VM_FAULT_SIGSEGV | VM_FAULT_OOM))
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

@k_rep depends on report@
position p;
@@

break_ksm(...)
{
  <...
  VM_FAULT_WRITE@p
  ...>
}

@script:python depends on report@
p << k_rep.p;
@@

coccilib.report.print_report(p[0], "VM_FAULT_WRITE used (break_ksm: upstream 58f595c66591)")
