/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Macro hints for spatch --macro-file (mm-backport-kit).
 *
 * The kit's semantic patches only touch mm/khugepaged.c and mm/ksm.c,
 * which spatch 1.1.1 parses completely without hints; the hints below
 * keep constructs found elsewhere in the same trees parseable (see
 * branch-map section 4) so the file can be reused for --dir runs.
 */
#define for_each_vma(__vmi, __vma) while (((__vma) = vma_next(&(__vmi))) != NULL)
#define scoped_guard(_name, args...) if (1)
#define __releases(x)
#define __acquires(x)
#define __must_hold(x)
