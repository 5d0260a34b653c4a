#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 23 (issue 7 item 5): a program that dies of a signal -- abort(), a NULL
# store (SIGSEGV), an uncaught C++ exception, raise(SIGTERM), raise(SIGINT),
# kill(getpid(), SIGTERM) -- dies of the same signal under csrun (wait
# status through csrun, which re-raises it), prints the same, and csprof
# wrote both threads' profiles first.  And timeout(1) stopping csrun
# (SIGTERM, forwarded to the program) leaves both profiles too.  Each
# thread's profile must hold what the thread did: its tree holds every sample
# it counted, at least half the samples its CPU time is worth, and >= 90 % of
# them in burn below main (thread 0) or worker (thread 1) -- its whole work.
# Without -q (one death by abort, one by SIGTERM), csrun must not report the
# dying thread as one that could not be sampled or that ended with the
# sampling signal blocked, and no thread's profile may say it had the
# sampling signal blocked (thread.sampling_blocked): the fatal-signal
# handler's own mask blocks it, the interrupted code's did not.
. "$(dirname "$0")/lib.sh"
runs=$(rel_runs 1)

rel_build app g++ "-pthread" fatal_exits.cc

# content TAG DIR: a profile per thread, each holding its thread's work.
content() {
    local tag=$1 dir=$2 n rec idx rest anc
    rel_records "$dir" > "$dir.rec"
    n=$(wc -l < "$dir.rec")
    check "$tag: a parseable profile per thread (got $n, want 2)" [ "$n" -eq 2 ]
    while read -r rec idx rest; do
        anc=worker
        [ "$idx" = 0 ] && anc=main
        # shellcheck disable=SC2086 # the record's words
        rel_content "$tag" 0.5 ./app burn "$anc" 0.90 "$rec" "$idx" $rest
    done < "$dir.rec"
}

for how in abort segv throw sigterm sigint kill_term; do
    rel_plain "base_$how" ./app "$how"
    check "$how: the baseline dies of a signal ($(cat "base_$how.rc"))" [ "$(cat "base_$how.rc")" -gt 128 ]
    for ((r = 1; r <= runs; r++)); do
        rel_prof "p_${how}_$r" "m_${how}_$r" ./app "$how"
        check "$how run $r: same terminating signal and output ($(cat "p_${how}_$r.rc"))" \
            rel_same "p_${how}_$r" "base_$how"
        content "$how run $r" "m_${how}_$r"
    done
done
# csrun's report (no -q): the thread that took the fatal signal was sampled.
for how in abort sigterm; do
    REL_QUIET=0 rel_prof "v_$how" "mv_$how" ./app "$how"
    check "$how, csrun without -q: same terminating signal and output ($(cat "v_$how.rc"))" \
        rel_same "v_$how" "base_$how"
    content "$how, csrun without -q" "mv_$how"
    # csrun's report, its wrapped lines joined: no thread "could not be sampled" or "ended
    # with the sampling signal blocked" (a count of 1 or more, or a thread's own line).
    sed 's/^csprof: *//' "v_$how.err" | tr '\n' ' ' | tr -s ' ' > "v_$how.joined"
    bad=$(grep -o -E "could not be sampled|[1-9][0-9]* ended with the sampling signal blocked|samples, ended with the sampling signal blocked" "v_$how.joined")
    check "$how, csrun without -q: no thread reported as not sampled or blocked (${bad:-none})" [ -z "$bad" ]
    check "$how, csrun without -q: thread.sampling_blocked = 0 in every profile ($(awk '{ printf "%s ", $9 }' "mv_$how.rec"))" \
        awk '$9 != "0" { bad = 1 } END { exit bad || NR == 0 }' "mv_$how.rec"
done
# timeout(1): SIGTERM to csrun, which forwards it to the program.
rel_pinned timeout -s TERM 2 csrun -q -e "$REL_EVENT" -o m_spin_inner ./app spin > spin.out 2>&1
rc=$?
check "timeout: the program was stopped by timeout ($rc)" [ "$rc" -eq 124 ]
content timeout m_spin_inner
finish
