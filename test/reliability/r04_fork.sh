#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 4: fork without exec.  The parent and two fork children (one leaves
# with exit, one with _exit) compute at the same time.  Each profiled run
# prints what the baseline prints and writes exactly 3 profiles with 3
# distinct pids, none empty; each child's profile has >= 95 % of its samples
# under main and >= 90 % under child_work, and no parent_work (the parent's
# calling context before the fork is not charged to the child); the
# parent's has >= 90 % under parent_work.  The profiles merge into a database.
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
    check "run $r: the profiles merge into a database" rel_db m$r db$r
    parents=0 children=0
    for f in m$r/*.cspm; do
        [ -e "$f" ] || continue
        b=$(basename "$f")
        s=$(rel_samples_total "$f") inmain=$(rel_samples_in "$f" forks main)
        pw=$(rel_samples_in "$f" forks parent_work) cw=$(rel_samples_in "$f" forks child_work)
        check "run $r: $b has samples ($s)" [ "$s" -gt 0 ]
        if rel_ratio_ge "$cw" "$s" 0.9; then
            children=$((children + 1))
            check "run $r: child $b under main >= 95 % ($inmain of $s)" rel_ratio_ge "$inmain" "$s" 0.95
            check "run $r: child $b has no parent_work ($pw samples)" [ "$pw" -eq 0 ]
        elif rel_ratio_ge "$pw" "$s" 0.9; then
            parents=$((parents + 1))
        else
            check "run $r: $b is >= 90 % child_work ($cw) or parent_work ($pw) of $s samples" false
        fi
    done
    check "run $r: one parent profile (got $parents)" [ "$parents" -eq 1 ]
    check "run $r: two child profiles (got $children)" [ "$children" -eq 2 ]
done
finish
