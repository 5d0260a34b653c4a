#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 26: thread churn.  Short-lived threads (create, 1 ms of CPU work in
# thread_work, join) one after another: every thread's profile is kept, the
# profiles are aggregated into the process's measurement file instead of one
# file each, and they hold the threads' work: each record's tree holds every
# sample it counted, and the samples below thread_work, over all the short
# threads, are at least half of what their work is worth (threads x 1 ms /
# period) and at least 40 % of what their whole CPU time is worth (which also
# holds each thread's creation and csprof's setting up of its sampling, much
# of it in the kernel, where the perf task clock takes no sample: about 60 %
# here).  (The time ratio against an unprofiled run is measured by
# bench/write/run.sh, not here.)
. "$(dirname "$0")/lib.sh"
runs=$(rel_runs 2)
threads=${REL_CHURN_THREADS:-2000}
work_ms=1

rel_build churn gcc "-pthread" rel_fds_threads.c
args=(./churn 0 "$threads" 1 "$work_ms" 0)
rel_plain base "${args[@]}"
check "baseline exits 0" [ "$(cat base.rc)" -eq 0 ]
for ((r = 1; r <= runs; r++)); do
    rel_prof p$r m$r "${args[@]}"
    check "run $r: output and exit status identical" rel_same p$r base
    check "run $r: one measurement file, not one per thread ($(rel_files m$r))" \
        [ "$(rel_files m$r)" -eq 1 ]
    echo "  run $r: $(du -sk m$r | awk '{ print $1 }') KiB in the measurement directory"
    rel_records m$r > m$r.rec
    n=$(wc -l < m$r.rec)
    check "run $r: every thread's profile is there ($n of $((threads + 1)))" \
        [ "$n" -eq $((threads + 1)) ]
    # Columns: REC INDEX CPU_NS RECORDED TREE PERIOD_NS DROPPED EVENT_SAMPLES ...
    bad=$(awk '$5 != $4 || ($8 != "-" && $4 != $8)' m$r.rec | wc -l)
    check "run $r: every record's tree holds the samples it counted ($bad records do not)" [ "$bad" -eq 0 ]
    in=0
    for f in m$r/*.cspm; do in=$((in + $(rel_samples_in "$f" ./churn thread_work))); done
    read -r cpu per tree <<< "$(awk '$2 != 0 { c += $3; t += $5; p = $6 } END { printf "%.0f %.0f %.0f\n", c, p, t }' m$r.rec)"
    check "run $r: $in samples in thread_work (of $tree in the short threads) >= 0.5 x their work's $((threads * work_ms * 1000000 / per)) periods" \
        rel_ratio_ge "$in" $((threads * work_ms * 1000000 / per)) 0.5
    check "run $r: $in samples in thread_work >= 0.4 x $((cpu / per)) (the short threads' $(awk -v c="$cpu" \
        'BEGIN { printf "%.3f", c / 1e9 }') s of CPU time / the period)" rel_ratio_ge "$in" $((cpu / per)) 0.4
done
finish
