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
# Under the default event (csrun without -e: CPUTIME@5000), 400 threads of 8 ms each, 2 at a
# time: every thread is sampled by the perf task clock at the rate asked for (a POSIX
# CPU-time timer, checked at the scheduler tick, left 38 % of such threads without a sample),
# and what no sample holds -- the part of each thread's last period that did not end -- is
# the trust report's "after the last period": recorded + that >= 95 % of the CPU time, and
# the verdict says what that part costs short threads.
rel_plain dbase ./churn 0 400 2 8 0
rm -rf md
rel_pinned csrun -o md ./churn 0 400 2 8 0 > dflt.out 2> dflt.err
echo $? > dflt.rc
check "default event: output and exit status identical" rel_same dflt dbase
rel_records md > md.rec
none=$(awk '$2 != 0 && $5 == 0' md.rec | wc -l)
# (at most 1 %: on one CPU shared with a hog, stress.sh --pin 0 --load 1, one thread in 400
# once got none -- its one sample dropped or its start and end within one period of
# the hog's time slices; the POSIX timer's 38 % is what this catches)
check "default event: at least 99 % of the 8 ms threads have a sample ($none of 400 have none)" [ "$none" -le 4 ]
if rel_db md dbd; then
    L="//Trust/Ledger[@event='CPUTIME']"
    meas=$(xp dbd "string($L/@measured)") rec=$(xp dbd "string($L/@recorded)") tail=$(xp dbd "string($L/@tail)")
    check "default event: recorded + after the last period >= 95 % of the CPU time ($rec + $tail of $meas ns)" \
        awk -v r="$rec" -v t="$tail" -v m="$meas" 'BEGIN { exit !(m > 0 && r + t >= 0.95 * m) }'
    # (8 ms threads at a 5 ms period: a sample each, the last 3 ms in no sample -- a third of
    # their time; the verdict says so and asks for a shorter period)
    why=$(xp dbd "string(//Trust/@reason)")
    check "default event: the verdict names the threads' last periods ($why)" \
        sh -c 'echo "$1" | grep -q "in the threads. last periods"' sh "$why"
else
    check "default event: the profiles merge into a database" false
fi
finish
