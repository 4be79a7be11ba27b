#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# harness.sh FILE FUNCTION SKIPFILE - run one unit test in this process with
# errexit, nounset and pipefail on: any command that fails outside a
# condition fails the test (tests/unit/run.sh runs one process per test).
# A test that skips writes its reason to SKIPFILE (lib.sh skip) and ends
# with 0; no exit status means SKIP.
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: harness.sh FILE FUNCTION SKIPFILE" >&2; exit 2; }
UNIT_SKIP_FILE=$3	# not exported: only the test's own shell can skip
: "${KIT_DIR:?}" "${UNIT_SCRATCH:?}"
# shellcheck source=tests/unit/lib.sh
. "$KIT_DIR/tests/unit/lib.sh"
# shellcheck disable=SC1090
. "$1"
declare -F "$2" >/dev/null || { echo "# no function $2 in $1"; exit 1; }
"$2"
