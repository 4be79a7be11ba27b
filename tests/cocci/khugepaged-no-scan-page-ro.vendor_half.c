/* vendor code inside the test of the PMD scan: the isolate test matches,
 * the scan test does not; nothing may change (no half result) */
static int __collapse_huge_page_isolate(struct vm_area_struct *vma,
					unsigned long address,
					pte_t *pte,
					struct collapse_control *cc,
					struct list_head *compound_pagelist)
{
	struct folio *folio = NULL;
	int none_or_zero = 0, shared = 0, result = SCAN_FAIL, referenced = 0;
	bool writable = false;

	if (unlikely(!writable)) {
		result = SCAN_PAGE_RO;
	} else if (unlikely(cc->is_khugepaged && !referenced)) {
		result = SCAN_LACK_REFERENCED_PAGE;
	} else {
		result = SCAN_SUCCEED;
		trace_mm_collapse_huge_page_isolate(&folio->page, none_or_zero,
						    referenced, writable, result);
		return result;
	}
	return result;
}

static int hpage_collapse_scan_pmd(struct mm_struct *mm,
				   struct vm_area_struct *vma,
				   unsigned long address, bool *mmap_locked,
				   struct collapse_control *cc)
{
	int result = SCAN_FAIL, referenced = 0, unmapped = 0;
	bool writable = false;

	if (!writable) {
		result = SCAN_PAGE_RO;
		vendor_count_ro();
	} else if (cc->is_khugepaged &&
		   (!referenced ||
		    (unmapped && referenced < HPAGE_PMD_NR / 2))) {
		result = SCAN_LACK_REFERENCED_PAGE;
	} else {
		result = SCAN_SUCCEED;
	}
	return result;
}

int madvise_collapse(struct vm_area_struct *vma, unsigned long start)
{
	int result, thps = 0, last_fail = SCAN_FAIL;

handle_result:
	switch (result) {
	case SCAN_SUCCEED:
	case SCAN_PMD_MAPPED:
		++thps;
		break;
	/* Whitelisted set of results where continuing OK */
	case SCAN_PMD_NULL:
	case SCAN_PTE_NON_PRESENT:
	case SCAN_PTE_UFFD_WP:
	case SCAN_PAGE_RO:
	case SCAN_LACK_REFERENCED_PAGE:
	case SCAN_PAGE_NULL:
		last_fail = result;
		break;
	default:
		last_fail = result;
		goto out;
	}
out:
	return thps;
}
