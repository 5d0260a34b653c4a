#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 13: sigaltstack + stack-overflow handler.  50 ms of CPU work (burn),
# then unbounded recursion under an 8 MiB stack; the program's SA_ONSTACK
# SIGSEGV handler (64 KiB alternate stack) prints "overflow" and _exit(42)s.
# Under csrun: exit 42 and "overflow" in every run, and the profile (written
# by the _exit override, on the alternate stack) holds the work: its tree
# holds every sample it counted, burn below main has at least half the
# samples its 50 ms are worth, and >= 90 % of all samples lie in burn or
# recurse below main.  (The recursion takes 3-4 ms unprofiled, nearly all in
# page faults; profiled, each sample walks its deep stack, and it holds
# about as many samples as burn.)  The handler runs with the sampling signal
# open, as the kernel would run it: the thread is not reported as blocked.
. "$(dirname "$0")/lib.sh"
runs=$(rel_runs 5)
ulimit -s 8192
burn_ms=50

rel_build app gcc "" stack_overflow.c
rel_plain base ./app
check "baseline: exit 42 and \"overflow\"" sh -c '[ "$(cat base.rc)" -eq 42 ] && grep -qx overflow base.out'
for ((r = 1; r <= runs; r++)); do
    rel_prof p$r m$r ./app
    check "run $r: exit 42 and \"overflow\" ($(cat p$r.rc))" rel_same p$r base
    rel_records m$r > m$r.rec
    check "run $r: one thread profile ($(wc -l < m$r.rec))" [ "$(wc -l < m$r.rec)" -eq 1 ]
    while read -r rec idx cpu recd tree per rest; do
        # shellcheck disable=SC2086 # the record's words
        rel_content "run $r" - ./app - "" - "$rec" "$idx" "$cpu" "$recd" "$tree" "$per" $rest
        b=$(rel_samples_in "$rec" ./app burn main)
        c=$(rel_samples_in "$rec" ./app recurse main)
        check "run $r: $b samples in burn under main >= 0.5 x $((burn_ms * 1000000 / per)) (its ${burn_ms} ms / the period)" \
            rel_ratio_ge "$b" $((burn_ms * 1000000 / per)) 0.5
        check "run $r: >= 90 % of the samples in burn or recurse under main ($b + $c of $tree)" \
            rel_ratio_ge $((b + c)) "$tree" 0.90
    done < m$r.rec
done
# The program's SIGSEGV handler runs from csprof's fault filter with the mask the kernel
# would have given it, the sampling signal open: the thread that _exits inside it is not
# reported as one that blocked sampling (csrun without -q; its record's counter).
REL_QUIET=0 rel_prof v mv ./app
check "csrun without -q: exit 42 and \"overflow\" ($(cat v.rc))" rel_same v base
rel_records mv > mv.rec
sed 's/^csprof: *//' v.err | tr '\n' ' ' | tr -s ' ' > v.joined
bad=$(grep -o -E "[1-9][0-9]* ended with the sampling signal blocked|samples, ended with the sampling signal blocked" v.joined)
check "csrun without -q: no thread reported as blocked (${bad:-none})" [ -z "$bad" ]
check "csrun without -q: thread.sampling_blocked = 0 ($(awk '{ printf "%s ", $9 }' mv.rec))" \
    awk '$9 != "0" { bad = 1 } END { exit bad || NR == 0 }' mv.rec
finish
