# SPDX-License-Identifier: GPL-2.0-only
# rwsem-slowpath-comment.sed - the comment part of kit patch 0006
# ("locking/rwsem: add down_read[_killable]_nosteal()") in
# kernel/locking/rwsem.c, which a semantic patch cannot carry: the comment
# above rwsem_down_read_slowpath() names the new @nosteal flag, and the
# early exit cocci/rwsem-down-read-nosteal.cocci adds gets its comment
# (spatch 1.1.1 loses the line break of an added `if (...) goto L;` that
# follows an added comment). Run after that semantic patch. The early
# exit tests "count" (5.11+) or "atomic_long_read(&sem->count)" (5.10).
# lines: -1 +7
/^ \* Wait for the read lock to be granted$/{
N;N;N
s/^ \* Wait for the read lock to be granted\n \*\/\nstatic struct rw_semaphore __sched \*\nrwsem_down_read_slowpath(/ * Wait for the read lock to be granted. A @nosteal reader never takes the\n * lock ahead of waiters that are already queued.\n *\/\nstatic struct rw_semaphore __sched *\nrwsem_down_read_slowpath(/
}
s/^\tif (nosteal && (\(count\|atomic_long_read(&sem->count)\) & RWSEM_FLAG_WAITERS))$/\t\/*\n\t * A nosteal reader typically retakes a lock it has just dropped so\n\t * that a waiting writer can make progress: stealing the lock ahead of\n\t * that writer would defeat the purpose, so queue behind it.\n\t *\/\n&/
