#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Issue 7 item 4: Debian's xz -T2 creates its worker threads with every
# signal blocked (liblzma's mythread_create).  Under csrun the compressed
# bytes are the same, every worker thread's profile has samples in line
# with its CPU time (>= 50 % of what the period calls for), no profile
# says the sampling signal was blocked, and csrun's summary reports no
# thread that could not be sampled.
. "$(dirname "$0")/lib.sh"
. "$rel_dir/thread_stats.sh"
command -v xz > /dev/null || rel_skip "xz is not installed"
runs=$(rel_runs 1)
seq 1 2500000 | awk '{ print $1 * 7919 % 1000003, $1 }' > input # ~36 MB: several 3 MiB blocks

period_us=${REL_EVENT#*@}
[ "$period_us" = "$REL_EVENT" ] && period_us=5000

rel_plain base xz -1 -T2 -c input
check "baseline exits 0" [ "$(cat base.rc)" -eq 0 ]
for ((r = 1; r <= runs; r++)); do
    rel_prof p$r m$r xz -1 -T2 -c input
    check "run $r: exit status and compressed bytes identical" rel_same p$r base
    workers=0
    while read -r idx cpu _ n blocked; do
        [ "$idx" = 0 ] && continue # the main thread mostly waits
        workers=$((workers + 1))
        check "run $r: worker $idx: $n samples for $cpu ns of CPU (>= 50 % of the period's)" \
            awk -v s="$n" -v c="$cpu" -v p="$period_us" 'BEGIN { exit !(c > 0 && s >= 0.5 * c / 1000 / p) }'
        check "run $r: worker $idx: sampling signal not blocked ($blocked)" [ "$blocked" = 0 ]
    done < <(rel_threads m$r)
    check "run $r: two worker threads profiled (got $workers)" [ "$workers" -ge 2 ]
done
# csrun's own summary (not -q) names no thread that got no sample, and none that blocked
# the sampling signal: the trust report's threads line says 0 of each.
csrun -e "$REL_EVENT" -o msum xz -1 -T2 -c input > /dev/null 2> summary.txt
cat summary.txt
sed -e ':a' -e 'N' -e '$!ba' -e 's/\ncsprof:     */ /g' summary.txt > summary.lines
check "csrun prints the trust report's line" grep -q "^csprof: trust: " summary.txt
check "csrun's trust report names no thread without a sample and none blocked" \
    sh -c '! grep -q "thread(s) with CPU time for 20 periods or more got no sample" summary.lines &&
           ! grep -q "[1-9][0-9]* ended with the sampling signal blocked" summary.lines'
check "csrun's summary reports samples" grep -Eq "^csprof: CPUTIME@[0-9]+ .*: [1-9][0-9]* samples" summary.txt
finish
