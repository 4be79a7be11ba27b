# SPDX-License-Identifier: GPL-2.0-only
# rwsem-slowpath-comment.sed - the comment part of kit patch 0006
# ("locking/rwsem: add down_read[_killable]_nosteal()") in
# kernel/locking/rwsem.c, which a semantic patch cannot carry: the comment
# above rwsem_down_read_slowpath() names the new @nosteal flag, and the
# early exit cocci/rwsem-down-read-nosteal.cocci adds gets its comment
# (spatch 1.1.1 loses the line break of an added `if (...) goto L;` that
# follows an added comment). Run after that semantic patch. The early
# exit tests "count & RWSEM_FLAG_WAITERS" (5.11+), or nothing (5.10, whose
# readers spin: a nosteal reader never does).
# lines: -1 +9
/^ \* Wait for the read lock to be granted$/{
N;N;N
s/^ \* Wait for the read lock to be granted\n \*\/\nstatic struct rw_semaphore __sched \*\nrwsem_down_read_slowpath(/ * Wait for the read lock to be granted. A @nosteal reader that finds others\n * queued neither steals the lock nor spins for it: it queues, and is then\n * woken by the rwsem's normal policy (when a reader heads the queue,\n * rwsem_mark_wake() wakes the queued readers behind writers too).\n *\/\nstatic struct rw_semaphore __sched *\nrwsem_down_read_slowpath(/
}
s/^\tif (nosteal && (count & RWSEM_FLAG_WAITERS))$/\t\/*\n\t * A nosteal reader typically retakes a lock it has just dropped so\n\t * that a waiting writer can make progress: stealing the lock ahead of\n\t * that writer would defeat the purpose, so queue behind it.\n\t *\/\n&/
s/^\tif (nosteal)$/\t\/*\n\t * A nosteal reader retakes a lock it dropped for a waiting writer. It\n\t * must not spin: the spinning trylocks do not look at queued waiters\n\t * and would overtake a writer that queues meanwhile. Queue at once.\n\t *\/\n&/
