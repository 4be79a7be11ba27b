#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# check-api.sh KDIR - exit 0 if the kernel in KDIR (source or O= build tree)
# declares down_read_nosteal(), else explain why nosteal_test cannot be built
# and exit 1. Used by the Makefile and as the dkms PRE_BUILD/MAKE guard.
set -eu
kdir=${1:?usage: check-api.sh KDIR}
for h in "$kdir/include/linux/rwsem.h" "$kdir/source/include/linux/rwsem.h"; do
	[ -f "$h" ] || continue
	if grep -q 'down_read_killable_nosteal' "$h" &&
	   grep -q 'down_read_nosteal' "$h"; then
		exit 0
	fi
	echo "nosteal_test: skipped: $h does not declare down_read_nosteal()/down_read_killable_nosteal(); this kernel lacks the mm-backport-kit patch 'locking/rwsem: add down_read[_killable]_nosteal()' (carried on 6.1, 6.12 and 7.2; not on 5.10)" >&2
	exit 1
done
echo "nosteal_test: skipped: no include/linux/rwsem.h under $kdir (or $kdir/source); not a kernel build tree" >&2
exit 1
