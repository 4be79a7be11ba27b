# SPDX-License-Identifier: GPL-2.0
# tier: full
# The drift cases t-drift.sh leaves to make test FULL=1: with those, every
# branch of tables/branches.table meets every drift class of
# tables/drift.table (expectations: tables/drift-expect.table).

# shellcheck source=tests/unit/t-drift.sh
. "$KIT_DIR/tests/unit/t-drift.sh"

test_5_10_api() { drift_case 5.10 api; }
test_5_10_rename() { drift_case 5.10 rename; }
test_5_10_hooks() { drift_case 5.10 hooks; }
test_5_10_ifdef() { drift_case 5.10 ifdef; }
test_5_10_moved() { drift_case 5.10 moved; }
test_5_10_args() { drift_case 5.10 args; }
test_5_15_hooks() { drift_case 5.15 hooks; }
test_5_15_ifdef() { drift_case 5.15 ifdef; }
test_5_15_api() { drift_case 5.15 api; }
test_5_15_moved() { drift_case 5.15 moved; }
test_5_15_args() { drift_case 5.15 args; }
test_6_1_rename() { drift_case 6.1 rename; }
test_6_1_ifdef() { drift_case 6.1 ifdef; }
test_6_1_hooks() { drift_case 6.1 hooks; }
test_6_1_api() { drift_case 6.1 api; }
test_6_1_moved() { drift_case 6.1 moved; }
test_6_1_args() { drift_case 6.1 args; }
test_6_6_rename() { drift_case 6.6 rename; }
test_6_6_hooks() { drift_case 6.6 hooks; }
test_6_6_ifdef() { drift_case 6.6 ifdef; }
test_6_6_api() { drift_case 6.6 api; }
test_6_6_args() { drift_case 6.6 args; }
test_6_12_rename() { drift_case 6.12 rename; }
test_6_12_hooks() { drift_case 6.12 hooks; }
test_6_12_ifdef() { drift_case 6.12 ifdef; }
test_6_12_api() { drift_case 6.12 api; }
test_6_12_moved() { drift_case 6.12 moved; }
test_6_12_args() { drift_case 6.12 args; }
test_6_18_rename() { drift_case 6.18 rename; }
test_6_18_hooks() { drift_case 6.18 hooks; }
test_6_18_ifdef() { drift_case 6.18 ifdef; }
test_6_18_api() { drift_case 6.18 api; }
test_6_18_moved() { drift_case 6.18 moved; }
test_7_2_rename() { drift_case 7.2 rename; }
test_7_2_ifdef() { drift_case 7.2 ifdef; }
test_7_2_api() { drift_case 7.2 api; }
test_7_2_moved() { drift_case 7.2 moved; }
test_7_2_args() { drift_case 7.2 args; }
test_7_2_hooks() { drift_case 7.2 hooks; }
test_6_6_moved() { drift_case 6.6 moved; }
test_6_18_args() { drift_case 6.18 args; }
