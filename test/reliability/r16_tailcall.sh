#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 16: tail calls.  main -> a -> b, and b tail-calls c (a jmp at -O2), c
# burns the CPU.  Documented behaviour: a stack walk cannot see b once it
# has jumped to c, so c's samples are attributed to main -> a -> c, b
# elided (README, "Known limits", Tail calls).  Each profiled run prints what the
# baseline prints; >= 90 % of the samples are under c, >= 90 % of c's under
# a and under main; c's samples are either all under b (a walker that
# reconstructs tail calls) or none (b elided), never split (< 10 % or > 90 %);
# in the database c's nearest enclosing procedure is a for >= 90 % of c's time.
. "$(dirname "$0")/lib.sh"
runs=$(rel_runs 3)
units=${REL_UNITS:-300} # about 0.6 s of CPU

rel_build tail gcc "" tail.c
objdump -d --no-show-raw-insn tail | awk '/^[0-9a-f]+ <b(\.[a-z0-9.]*)?>:/ { on = 1; next } /^$/ { on = 0 }
    on && /jmp +[0-9a-f]+ <c(\.[a-z0-9.]*)?>/ { found = 1 } END { exit !found }' ||
    rel_skip "gcc did not compile b's call to c as a tail call (jmp)"
rel_plain base ./tail "$units"
check "baseline exits 0" [ "$(cat base.rc)" -eq 0 ]
for ((r = 1; r <= runs; r++)); do
    rel_prof p$r m$r ./tail "$units" || continue
    check "run $r: output and exit status identical" rel_same p$r base
    n=$(rel_profiles m$r)
    check "run $r: one profile (got $n)" [ "$n" -eq 1 ]
    [ "$n" -eq 1 ] || continue
    f=$(echo m$r/*.cspm)
    s=$(rel_samples_total "$f") cs=$(rel_samples_in "$f" tail c)
    ca=$(rel_samples_in "$f" tail c a) cm=$(rel_samples_in "$f" tail c main)
    cb=$(rel_samples_in "$f" tail c b)
    check "run $r: >= 90 % of the samples under c ($cs of $s)" rel_ratio_ge "$cs" "$s" 0.9
    check "run $r: >= 90 % of c's samples under a ($ca of $cs)" rel_ratio_ge "$ca" "$cs" 0.9
    check "run $r: >= 90 % of c's samples under main ($cm of $cs)" rel_ratio_ge "$cm" "$cs" 0.9
    check "run $r: b elided (or reconstructed) consistently: $cb of c's $cs samples under b" \
        awk -v b="$cb" -v c="$cs" 'BEGIN { exit !(c > 0 && (b < 0.1 * c || b > 0.9 * c)) }'
    if rel_db m$r db$r; then
        under=$(incl_under db$r "$rel_ev" c a) all=$(incl_of db$r "$rel_ev" c)
        check "run $r: database: c called from a ($under of $all s)" rel_ratio_ge "$under" "$all" 0.9
    else
        check "run $r: the profile merges into a database" false
    fi
done
finish
