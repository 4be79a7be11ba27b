# SPDX-License-Identifier: GPL-2.0-only
# ksm-break_ksm-comment.sed - comment hunk of upstream 58f595c66591
# ("mm/ksm: simplify break_ksm() to not rely on VM_FAULT_WRITE"), which a
# semantic patch cannot carry (Coccinelle does not transform comments).
# Replaces the first six lines of the comment after break_ksm()'s loop;
# the block must match exactly, or nothing changes (regen.sh then fails).
# lines: -6 +3
/^\t \* We must loop because handle_mm_fault() may back out if there's$/{
N;N;N;N;N
s/^\t \* We must loop because handle_mm_fault() may back out if there's\n\t \* any difficulty e\.g\. if pte accessed bit gets updated concurrently\.\n\t \*\n\t \* VM_FAULT_WRITE is what we have been hoping for: it indicates that\n\t \* COW has been broken, even if the vma does not permit VM_WRITE;\n\t \* but note that a concurrent fault might break PageKsm for us\.$/\t * We must loop until we no longer find a KSM page because\n\t * handle_mm_fault() may back out if there's any difficulty e.g. if\n\t * pte accessed bit gets updated concurrently./
}
