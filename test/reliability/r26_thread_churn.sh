#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 26: thread churn.  Short-lived threads (create, about 1 ms of work,
# join) one after another: every thread's profile is kept, and the profiles
# are aggregated into the process's measurement file instead of one file
# each.  (The time ratio against an unprofiled run is measured in
# bench/thread_churn.sh, not here.)
. "$(dirname "$0")/lib.sh"
threads=${REL_CHURN_THREADS:-2000}

rel_build churn gcc "-pthread" "$CSPROF_SOURCE/test/reliability/programs/rel_fds_threads.c"
args=(./churn 0 "$threads" 1 1 0)
rel_plain base "${args[@]}"
check "unprofiled run succeeds: $(cat base.out)" [ "$(cat base.rc)" -eq 0 ]
for r in $(seq 1 "$REL_RUNS"); do
    rel_prof "p$r" "m$r" "${args[@]}"
    check "run $r: same output and exit status" rel_same "p$r" base
    n=$(ls "m$r"/*.cspm 2>/dev/null | wc -l)
    check "run $r: one measurement file for the process, not one per thread ($n)" [ "$n" -eq 1 ]
    bytes=$(du -sk "m$r" | awk '{ print $1 }')
    echo "  run $r: $bytes KiB in the measurement directory for $((threads + 1)) threads"
    csprof-prof -o "db$r" "m$r" > "prof$r.out" 2> "prof$r.err"
    got=$(awk '/^threads:/ { print $2 }' "prof$r.out")
    check "run $r: every thread's profile is there (${got:-0} of $((threads + 1)))" \
        [ "${got:-0}" -eq $((threads + 1)) ]
done
finish
