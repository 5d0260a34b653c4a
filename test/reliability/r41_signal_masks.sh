#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Issue 7 item 4: threads that block every signal -- with pthread_sigmask,
# with sigprocmask, or by inheriting a full mask from their creator -- are
# sampled anyway (each worker's samples >= 50 % of what its CPU time calls
# for), and a query still shows the program the mask it set.  A thread that
# blocks by a raw system call cannot be sampled: its profile says so
# (thread.sampling_blocked) and csrun's summary reports it.
. "$(dirname "$0")/lib.sh"
. "$rel_dir/thread_stats.sh"
runs=$(rel_runs 2)
period_us=${REL_EVENT#*@}
[ "$period_us" = "$REL_EVENT" ] && period_us=5000

rel_build app gcc "-pthread" masks.c
rel_plain base ./app
check "baseline: exit 0, view ok" sh -c '[ "$(cat base.rc)" -eq 0 ] && grep -qx "view ok" base.out'
for ((r = 1; r <= runs; r++)); do
    rel_prof p$r m$r ./app
    check "run $r: exit status and output identical (mask view kept)" rel_same p$r base
    rel_threads m$r > t$r
    while read -r idx cpu _ n blocked; do
        [ "$idx" = 0 ] && continue
        check "run $r: worker $idx: $n samples for $cpu ns of CPU" \
            awk -v s="$n" -v c="$cpu" -v p="$period_us" 'BEGIN { exit !(c > 0 && s >= 0.5 * c / 1000 / p) }'
        check "run $r: worker $idx: not reported blocked ($blocked)" [ "$blocked" = 0 ]
    done < t$r
    check "run $r: three workers profiled" [ "$(awk '$1 != 0' t$r | wc -l)" -eq 3 ]
done
csrun -e "$REL_EVENT" -o mraw ./app raw > raw.out 2> raw.err
rel_threads mraw > traw
check "raw mask: one thread profile says the signal was blocked" [ "$(awk '$5 == 1' traw | wc -l)" -eq 1 ]
check "raw mask: csrun reports one thread that could not be sampled" \
    grep -q "^csprof: 1 thread(s) could not be sampled" raw.err
finish
