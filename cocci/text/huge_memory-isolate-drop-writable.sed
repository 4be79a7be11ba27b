# SPDX-License-Identifier: GPL-2.0-only
# huge_memory-isolate-drop-writable.sed - include/trace/events/huge_memory.h
# part of upstream 473b73222f3d: remove the `writable` argument, field,
# assignment and output of TRACE_EVENT(mm_collapse_huge_page_isolate).
# Works with both the page (5.10 .. 6.12) and the folio (6.13+) form.
# lines: -6 +3
/^TRACE_EVENT(mm_collapse_huge_page_isolate,$/,/^);$/{
s/^\(\t\t int referenced\), bool  writable, int status),$/\1, int status),/
s/^\(\tTP_ARGS(\(page\|folio\), none_or_zero, referenced\), writable, status),$/\1, status),/
/^\t\t__field(bool, writable)$/d
/^\t\t__entry->writable = writable;$/d
s/^\(\tTP_printk("scan_pfn=0x%lx, none_or_zero=%d, referenced=%d\), writable=%d, status=%s",$/\1, status=%s",/
/^\t\t__entry->writable,$/d
}
