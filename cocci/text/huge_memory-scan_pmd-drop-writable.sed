# SPDX-License-Identifier: GPL-2.0-only
# huge_memory-scan_pmd-drop-writable.sed - include/trace/events/huge_memory.h
# part of upstream 473b73222f3d: remove the `writable` argument, field,
# assignment and output of TRACE_EVENT(mm_khugepaged_scan_pmd). Works with
# both the page (5.10 .. 6.12) and the folio (6.13+) form of the event.
# lines: -6 +3
/^TRACE_EVENT(mm_khugepaged_scan_pmd,$/,/^);$/{
s/^\(\tTP_PROTO(struct mm_struct \*mm, struct \(page \*page\|folio \*folio\)\), bool writable,$/\1,/
s/^\(\tTP_ARGS(mm, \(page\|folio\)\), writable, referenced, /\1, referenced, /
/^\t\t__field(bool, writable)$/d
/^\t\t__entry->writable = writable;$/d
s/^\(\tTP_printk("mm=%p, scan_pfn=0x%lx\), writable=%d, referenced=%d, /\1, referenced=%d, /
/^\t\t__entry->writable,$/d
}
