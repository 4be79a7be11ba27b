#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# harness.sh FILE FUNCTION - run one unit test in this process with errexit,
# nounset and pipefail on: any command that fails outside a condition fails
# the test (tests/unit/run.sh runs one process per test).
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: harness.sh FILE FUNCTION" >&2; exit 2; }
: "${KIT_DIR:?}" "${UNIT_SCRATCH:?}"
# shellcheck source=tests/unit/lib.sh
. "$KIT_DIR/tests/unit/lib.sh"
# shellcheck disable=SC1090
. "$1"
declare -F "$2" >/dev/null || { echo "# no function $2 in $1"; exit 1; }
"$2"
