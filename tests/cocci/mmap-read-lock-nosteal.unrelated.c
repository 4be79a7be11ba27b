/* Lock retakes that are not a relock after contention: left alone. */
static int walk(struct mm_struct *mm)
{
	int ret;

	mmap_read_lock(mm);
	do_something(mm);
	mmap_read_unlock(mm);

	cond_resched();

	ret = mmap_read_lock_killable(mm);
	if (ret)
		return ret;
	if (need_resched()) {
		mmap_read_unlock(mm);
		cond_resched();
		mmap_read_lock(mm);
	}
	mmap_read_unlock(mm);
	return 0;
}
