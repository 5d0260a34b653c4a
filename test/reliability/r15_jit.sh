#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 15: generated code without unwind information (an anonymous
# PROT_EXEC mapping) that spins and calls back into C (cb), in two variants:
# with a frame-pointer prologue (fp) and without (nofp).  For each variant,
# each profiled run prints what the baseline prints, >= 90 % of the samples
# taken are recorded, and the samples in the generated code are kept as
# samples at an address in no module (>= 15 % of them; about 30 % of the
# CPU time is spent there), also in the database.  With the frame pointer,
# >= 90 % of cb's samples are under main, and no frame is walked twice
# (no call-site node directly under one with the same return address).
. "$(dirname "$0")/lib.sh"
runs=$(rel_runs 2)
count=${REL_UNITS:-2000} # about 0.5 s of CPU per variant

rel_build jit gcc "" jit.c
for v in fp nofp; do
    rel_plain base-$v ./jit $v "$count"
    check "$v: baseline exits 0" [ "$(cat base-$v.rc)" -eq 0 ]
done
for ((r = 1; r <= runs; r++)); do
    for v in fp nofp; do
        rel_prof p$r-$v m$r-$v ./jit $v "$count" || continue
        check "run $r $v: output and exit status identical" rel_same p$r-$v base-$v
        n=$(rel_profiles m$r-$v)
        check "run $r $v: one profile (got $n)" [ "$n" -eq 1 ]
        [ "$n" -eq 1 ] || continue
        f=$(echo m$r-$v/*.cspm)
        taken=$(rel_stat "$f" "event.$rel_ev.samples") rec=$(rel_stat "$f" samples.recorded)
        check "run $r $v: >= 90 % of the samples taken are recorded ($rec of $taken)" \
            rel_ratio_ge "$rec" "$taken" 0.9
        s=$(rel_samples_total "$f") jit=$(rel_samples_nomodule "$f")
        check "run $r $v: samples in the generated code kept ($jit of $s at no module)" \
            rel_ratio_ge "$jit" "$s" 0.15
        if rel_db m$r-$v db$r-$v; then
            u=$(rel_summary db$r-$v unknown-samples)
            check "run $r $v: the database counts them as unknown-address samples ($u)" \
                [ "${u:-0}" -ge "$jit" ]
        else
            check "run $r $v: the profile merges into a database" false
        fi
        [ $v = fp ] || continue
        cb=$(rel_samples_in "$f" jit cb) cbm=$(rel_samples_in "$f" jit cb main)
        check "run $r $v: >= 90 % of cb's samples under main ($cbm of $cb)" rel_ratio_ge "$cbm" "$cb" 0.9
        rep=$(rel_samples_repeated "$f")
        check "run $r $v: no frame walked twice ($rep of $s samples under a repeated return address)" \
            [ "$rep" -eq 0 ]
    done
done
finish
