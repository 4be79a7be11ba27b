# SPDX-License-Identifier: GPL-2.0-only
# khugepaged-kabi-keep-scan_page_ro.sed - mm/khugepaged.c part of the kABI
# variant of upstream 473b73222f3d (backports/<branch>/kabi/, make apply
# PROFILE=kabi): SCAN_PAGE_RO stays in enum scan_result as an unused
# placeholder, so that every SCAN_* value after it, and the status numbers
# of the huge_memory trace events, stay what the frozen interface has.  A
# comment is all that the enumerator gets; upstream removes it.  Text, not
# SmPL: spatch does not add comments to enumerator lists.
# lines: -0 +1
/^\tSCAN_PAGE_RO,$/i\
\t/* kABI: unused since 62b98015d988, kept so SCAN_* keep their values */
