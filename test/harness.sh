# SPDX-License-Identifier: BSD-3-Clause
# harness.sh -- the one shell harness of csprof's script tests (sourced; bash).
# Every script test counts its checks the same way and ends the same way, so a
# reader (and ctest) sees one format:
#   check DESCRIPTION COMMAND...  pass when COMMAND exits 0: "ok: DESCRIPTION",
#                                 else "FAILED: DESCRIPTION" (harness_on_fail runs)
#   pass [DESCRIPTION]            count a check the script decided itself as passed
#                                 (prints "ok: DESCRIPTION" when one is given)
#   bad DESCRIPTION               count it as failed: "FAILED: DESCRIPTION"
#   die DESCRIPTION               a failure that ends the test at once: bad, then finish
#   skip REASON                   the whole test cannot run here: "SKIP: REASON",
#                                 exit 77 (ctest's SKIP_RETURN_CODE: shown as skipped)
#   finish                        "N passed, M failed"; exit 0 only when none failed
# A script may define harness_on_fail (called after each failed check) before
# its first check, e.g. to mark the profiled run the check belongs to.
passed=0
failed=0

harness_on_fail() { :; }

pass() {
    passed=$((passed + 1))
    if [ $# -gt 0 ]; then echo "ok: $*"; fi
}

bad() {
    failed=$((failed + 1))
    echo "FAILED: $*"
    harness_on_fail
}

check() {
    local what=$1
    shift
    if "$@"; then pass "$what"; else bad "$what"; fi
}

skip() {
    echo "SKIP: $*"
    exit 77
}

finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit $?
}

die() {
    bad "$@"
    finish
}
