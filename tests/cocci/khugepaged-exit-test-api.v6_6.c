/* 6.6 shape: only hpage_collapse_test_exit(); the relock helper comes
 * from the 6.12 backport of 0008 */
static inline int hpage_collapse_test_exit(struct mm_struct *mm)
{
	return atomic_read(&mm->mm_users) == 0;
}

/*
 * Called with the mmap read lock held after khugepaged skipped enough VMAs:
 * if others are waiting for the lock, drop it and take it again, queueing
 * behind a waiting writer, and re-seek @vmi to the scan cursor, which is
 * past the last VMA skipped (see khugepaged_scan_skip_vma()). Returns false,
 * with the lock held, if the mm should not be scanned any further.
 */
static bool khugepaged_scan_relock(struct mm_struct *mm,
				   struct vma_iterator *vmi)
{
	if (!mmap_lock_is_contended(mm))
		return true;

	mmap_read_unlock(mm);
	cond_resched();
	mmap_read_lock_nosteal(mm);

	if (unlikely(hpage_collapse_test_exit_or_disable(mm)))
		return false;

	vma_iter_set(vmi, khugepaged_scan.address);
	return true;
}
