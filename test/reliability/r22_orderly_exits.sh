#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 22: abnormal but orderly exits -- _exit(3) from main, exit(0) from a
# worker while main runs, pthread_exit from main, quick_exit(4) (its
# at_quick_exit handler still runs).  Each variant exits as the baseline
# does, prints the same, and leaves one parseable profile per thread (both
# threads burn >= 0.3 CPU-seconds), each with samples.
. "$(dirname "$0")/lib.sh"
. "$rel_dir/thread_stats.sh"
runs=$(rel_runs 2)

rel_build app g++ "-pthread" fatal_exits.cc
for how in _exit3 thread_exit0 pthread_exit quick_exit; do
    rel_plain "base_$how" ./app "$how"
    for ((r = 1; r <= runs; r++)); do
        rel_prof "p_${how}_$r" "m_${how}_$r" ./app "$how"
        check "$how run $r: exit status and output identical ($(cat "p_${how}_$r.rc"))" \
            rel_same "p_${how}_$r" "base_$how"
        rel_threads "m_${how}_$r" > "t_${how}_$r"
        n=$(wc -l < "t_${how}_$r")
        check "$how run $r: a parseable profile per thread (got $n, want 2)" [ "$n" -eq 2 ]
        while read -r idx _ rec _ _; do
            check "$how run $r: thread $idx has samples ($rec)" [ "$rec" -gt 0 ]
        done < "t_${how}_$r"
    done
done
finish
