# SPDX-License-Identifier: GPL-2.0-only
# huge_memory-drop-scan_page_ro.sed - include/trace/events/huge_memory.h part
# of upstream 473b73222f3d: drop SCAN_PAGE_RO from the SCAN_STATUS table of
# __print_symbolic() names (the enumerator itself goes in
# khugepaged-drop-writable.cocci). TRACE_EVENT() headers are not parseable
# by spatch, hence a textual edit.
# lines: -1 +0
/^\tEM( SCAN_PAGE_RO,\t*"no_writable_page")\t*\\$/d
