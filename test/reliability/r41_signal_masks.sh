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
cat raw.err
# (csrun wraps its lines at 100 columns: a continuation line is indented further)
sed -e ':a' -e 'N' -e '$!ba' -e 's/\ncsprof:     */ /g' raw.err > raw.lines
check "raw mask: csrun's trust report is doubtful: one thread with CPU time and no sample" \
    grep -q "^csprof: trust: DOUBTFUL: 1 thread(s) with CPU time for 20 periods or more got no sample" raw.lines
# (its blocked samples' worth, times the period, is its CPU time)
line=$(grep -E "^csprof:   thread app pid [0-9]+ #[0-9]+: .* 0 samples, ended with the sampling signal blocked;" raw.lines)
check "raw mask: it names that thread as blocked, all its CPU time as blocked samples' worth ($line)" \
    awk -v l="$line" -v p="$period_us" 'BEGIN {
        n = split(l, w, " "); for (i = 1; i <= n; i++) { if (w[i] == "CPU-s,") c = w[i-1]; if (w[i] == "blocked," || (w[i] == "blocked" && w[i-1] ~ /^[0-9.]+$/)) b = w[i-1] }
        exit !(c > 0.1 && b * p / 1e6 >= 0.8 * c && b * p / 1e6 <= 1.2 * c) }'
finish
