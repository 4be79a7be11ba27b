/* vendor drift of the 6.1 .. 6.12 shape: renamed locals, a vendor hook and
 * an #ifdef block before the tests */
static int __collapse_huge_page_isolate(struct vm_area_struct *vma,
					unsigned long address,
					pte_t *pte,
					struct collapse_control *cc,
					struct list_head *compound_pagelist)
{
	struct folio *folio = NULL;
	int none_or_zero = 0, shared = 0, ret = SCAN_FAIL, referenced = 0;
	bool wr = false;

	trace_android_vh_khugepaged_isolate(vma, referenced, &ret);
	if (unlikely(!wr)) {
		ret = SCAN_PAGE_RO;
	} else if (unlikely(cc->is_khugepaged && !referenced)) {
		ret = SCAN_LACK_REFERENCED_PAGE;
	} else {
		ret = SCAN_SUCCEED;
		trace_mm_collapse_huge_page_isolate(&folio->page, none_or_zero,
						    referenced, wr, ret);
		return ret;
	}
	return ret;
}

static int hpage_collapse_scan_pmd(struct mm_struct *mm,
				   struct vm_area_struct *vma,
				   unsigned long address, bool *mmap_locked,
				   struct collapse_control *cc)
{
	int ret = SCAN_FAIL, referenced = 0, unmapped = 0;
	bool wr = false;

#ifdef CONFIG_VENDOR_X
	if (vendor_x_cold_mm(mm))
		referenced = 0;
#endif
	if (!wr) {
		ret = SCAN_PAGE_RO;
	} else if (cc->is_khugepaged &&
		   (!referenced ||
		    (unmapped && referenced < HPAGE_PMD_NR / 2))) {
		ret = SCAN_LACK_REFERENCED_PAGE;
	} else {
		ret = SCAN_SUCCEED;
	}
	return ret;
}

int madvise_collapse(struct vm_area_struct *vma, unsigned long start)
{
	int ret, thps = 0, last_fail = SCAN_FAIL;

handle_result:
	switch (ret) {
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
		last_fail = ret;
		break;
	default:
		last_fail = ret;
		goto out;
	}
out:
	return thps;
}
