/* vendor drift of the 5.10 / 6.1 shape: renamed locals, a hook before the
 * loop, an #ifdef block and a statement between the matched statements,
 * put_user_page(), a three-argument handle_mm_fault() */
static int break_ksm(struct vm_area_struct *vma, unsigned long addr)
{
	struct page *kpage;
	vm_fault_t err = 0;

	trace_android_vh_break_ksm(vma, addr);
	do {
		cond_resched();
		kpage = follow_page(vma, addr,
				FOLL_GET | FOLL_MIGRATION | FOLL_REMOTE);
		if (IS_ERR_OR_NULL(kpage))
			break;
#ifdef CONFIG_VENDOR_KSM_STATS
		vendor_ksm_stat_inc(kpage);
#endif
		if (PageKsm(kpage))
			err = handle_mm_fault(vma, addr,
					      FAULT_FLAG_WRITE | FAULT_FLAG_REMOTE);
		else
			err = VM_FAULT_WRITE;
		vendor_ksm_note(kpage);
		put_user_page(kpage);
	} while (!(err & (VM_FAULT_WRITE | VM_FAULT_SIGBUS | VM_FAULT_SIGSEGV | VM_FAULT_OOM)));
	return (err & VM_FAULT_OOM) ? -ENOMEM : 0;
}
