# SPDX-License-Identifier: GPL-2.0
# tier: full
# The vendor-drift apply cases t-vendor.sh leaves to make test FULL=1 (each
# a re-targeted make apply with compile, then unapply: about a minute of a
# cold CI run): 0001-0003 on drifted 5.10 and 6.1 trees.

# shellcheck source=tests/unit/t-vendor.sh
. "$KIT_DIR/tests/unit/t-vendor.sh"

test_drifted_5_10() {
	vendor_case 5.10 0001 0002 0003
}

test_drifted_6_1() {
	vendor_case 6.1 0001 0002 0003
}
