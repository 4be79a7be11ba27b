/* 7.2 shape: folio tracepoints without `writable`, nothing to do */
enum scan_result {
	SCAN_FAIL,
	SCAN_SUCCEED,
	SCAN_PTE_MAPPED_HUGEPAGE,
	SCAN_LACK_REFERENCED_PAGE,
};

static enum scan_result collapse_scan_pmd(struct mm_struct *mm,
		struct vm_area_struct *vma, unsigned long start_addr,
		bool *lock_dropped, struct collapse_control *cc)
{
	struct folio *folio = NULL;
	int referenced = 0, none_or_zero = 0, unmapped = 0;
	enum scan_result result = SCAN_FAIL;

	if (pte_write(ptep_get(pte)))
		referenced++;
out:
	trace_mm_khugepaged_scan_pmd(mm, folio, referenced,
				     none_or_zero, result, unmapped);
	return result;
}
