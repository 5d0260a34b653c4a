#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 4: fork without exec.  The parent and two fork children (one leaves
# with exit, one with _exit) compute at the same time.  Each profiled run
# prints what the baseline prints and writes exactly 3 profiles with 3
# distinct pids, none empty; each child's profile has >= 95 % of its samples
# rooted at main and >= 90 % under child_work (the parent's calling context
# before the fork is not charged to the child), the parent's >= 90 % under
# parent_work.
. "$(dirname "$0")/lib.sh"
runs=$(rel_runs 3)
units=${REL_UNITS:-100} # about 0.2 s of CPU per process

rel_build forks gcc "" forks.c
rel_plain base ./forks "$units"
check "baseline exits 0" [ "$(cat base.rc)" -eq 0 ]
for ((r = 1; r <= runs; r++)); do
    rel_prof p$r m$r ./forks "$units"
    check "run $r: output and exit status identical" rel_same p$r base
    n=$(rel_profiles m$r)
    check "run $r: 3 profiles (got $n)" [ "$n" -eq 3 ]
    pids=$(ls m$r/*.cspm 2> /dev/null | sed 's/.*forks-\([0-9]*\)-.*/\1/' | sort -u | wc -l)
    check "run $r: 3 distinct pids in the profile names (got $pids)" [ "$pids" -eq 3 ]
    parents=0 children=0
    for f in m$r/*.cspm; do
        [ -e "$f" ] || continue
        b=$(basename "$f")
        if ! rel_db "$f" one; then
            check "run $r: $b is readable" false
            continue
        fi
        s=$(rel_summary one samples) inmain=$(rel_summary one samples-in-main)
        t=$(xp one "string(//EventTotal[@event='CPUTIME']/@v)")
        pw=$(incl_of one CPUTIME parent_work) cw=$(incl_of one CPUTIME child_work)
        check "run $r: $b has samples ($s)" [ "${s:-0}" -gt 0 ]
        if awk -v c="$cw" -v t="$t" 'BEGIN { exit !(t > 0 && c >= 0.9 * t) }'; then
            children=$((children + 1))
            check "run $r: child $b rooted at main >= 0.95 ($inmain of $s)" \
                awk -v a="${inmain:-0}" -v n="${s:-0}" 'BEGIN { exit !(n > 0 && a >= 0.95 * n) }'
            check "run $r: child $b has no parent_work ($pw s)" between "$pw" 0 0
        elif awk -v p="$pw" -v t="$t" 'BEGIN { exit !(t > 0 && p >= 0.9 * t) }'; then
            parents=$((parents + 1))
        else
            check "run $r: $b is >= 90 % child_work ($cw s) or parent_work ($pw s) of $t s" false
        fi
    done
    check "run $r: one parent profile (got $parents)" [ "$parents" -eq 1 ]
    check "run $r: two child profiles (got $children)" [ "$children" -eq 2 ]
done
finish
