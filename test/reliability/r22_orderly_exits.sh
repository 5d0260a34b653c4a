#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 22: abnormal but orderly exits -- _exit(3) from main, exit(0) from a
# worker while main runs, pthread_exit from main, quick_exit(4) (its
# at_quick_exit handler still runs).  Each variant exits as the baseline
# does, prints the same, and leaves one profile per thread (both threads burn
# >= 0.3 CPU-seconds) holding what the thread did: its tree holds every
# sample it counted, at least half the samples its CPU time is worth, and
# >= 90 % of them in burn below main (thread 0) or worker (thread 1).
. "$(dirname "$0")/lib.sh"
runs=$(rel_runs 2)

rel_build app g++ "-pthread" fatal_exits.cc
for how in _exit3 thread_exit0 pthread_exit quick_exit; do
    rel_plain "base_$how" ./app "$how"
    for ((r = 1; r <= runs; r++)); do
        rel_prof "p_${how}_$r" "m_${how}_$r" ./app "$how"
        check "$how run $r: exit status and output identical ($(cat "p_${how}_$r.rc"))" \
            rel_same "p_${how}_$r" "base_$how"
        rel_records "m_${how}_$r" > "m_${how}_$r.rec"
        n=$(wc -l < "m_${how}_$r.rec")
        check "$how run $r: a parseable profile per thread (got $n, want 2)" [ "$n" -eq 2 ]
        while read -r rec idx rest; do
            anc=worker
            [ "$idx" = 0 ] && anc=main
            # shellcheck disable=SC2086 # the record's words
            rel_content "$how run $r" 0.5 ./app burn "$anc" 0.90 "$rec" "$idx" $rest
        done < "m_${how}_$r.rec"
    done
done
finish
