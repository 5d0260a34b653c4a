#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 23 (issue 7 item 5): a program that dies of a signal -- abort(), a NULL
# store (SIGSEGV), an uncaught C++ exception, raise(SIGTERM), raise(SIGINT),
# kill(getpid(), SIGTERM) -- dies of the same signal under csrun (wait
# status through csrun, which re-raises it), prints the same, and csprof
# wrote both threads' profiles first, parseable and with samples.  And
# timeout(1) stopping csrun (SIGTERM, forwarded to the program) leaves both
# profiles too.
. "$(dirname "$0")/lib.sh"
. "$rel_dir/thread_stats.sh"
runs=$(rel_runs 1)

rel_build app g++ "-pthread" fatal_exits.cc
for how in abort segv throw sigterm sigint kill_term; do
    rel_plain "base_$how" ./app "$how"
    check "$how: the baseline dies of a signal ($(cat "base_$how.rc"))" [ "$(cat "base_$how.rc")" -gt 128 ]
    for ((r = 1; r <= runs; r++)); do
        rel_prof "p_${how}_$r" "m_${how}_$r" ./app "$how"
        check "$how run $r: same terminating signal and output ($(cat "p_${how}_$r.rc"))" \
            rel_same "p_${how}_$r" "base_$how"
        rel_threads "m_${how}_$r" > "t_${how}_$r"
        n=$(wc -l < "t_${how}_$r")
        check "$how run $r: a parseable profile per thread (got $n, want 2)" [ "$n" -eq 2 ]
        while read -r idx _ rec _ _; do
            check "$how run $r: thread $idx has samples ($rec)" [ "$rec" -gt 0 ]
        done < "t_${how}_$r"
    done
done
# timeout(1): SIGTERM to csrun, which forwards it to the program.
rel_pinned timeout -s TERM 2 csrun -q -e "$REL_EVENT" -o m_spin_inner ./app spin > spin.out 2>&1
rc=$?
check "timeout: the program was stopped by timeout ($rc)" [ "$rc" -eq 124 ]
rel_threads m_spin_inner > t_spin
check "timeout: a parseable profile per thread ($(wc -l < t_spin))" [ "$(wc -l < t_spin)" -eq 2 ]
check "timeout: every thread has samples" awk '$3 == 0 { bad = 1 } END { exit bad }' t_spin
finish
