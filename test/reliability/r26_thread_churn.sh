#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 26: thread churn.  Short-lived threads (create, about 1 ms of work,
# join) one after another: every thread's profile is kept, and the profiles
# are aggregated into the process's measurement file instead of one file
# each.  (The time ratio against an unprofiled run is measured by
# bench/write/run.sh, not here.)
. "$(dirname "$0")/lib.sh"
runs=$(rel_runs 2)
threads=${REL_CHURN_THREADS:-2000}

rel_build churn gcc "-pthread" rel_fds_threads.c
args=(./churn 0 "$threads" 1 1 0)
rel_plain base "${args[@]}"
check "baseline exits 0" [ "$(cat base.rc)" -eq 0 ]
for ((r = 1; r <= runs; r++)); do
    rel_prof p$r m$r "${args[@]}"
    check "run $r: output and exit status identical" rel_same p$r base
    check "run $r: one measurement file, not one per thread ($(rel_files m$r))" \
        [ "$(rel_files m$r)" -eq 1 ]
    echo "  run $r: $(du -sk m$r | awk '{ print $1 }') KiB in the measurement directory"
    n=$(rel_profiles m$r)
    check "run $r: every thread's profile is there ($n of $((threads + 1)))" \
        [ "$n" -eq $((threads + 1)) ]
done
finish
