#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 10 (issue 7 item 9): work before the monitor is set up.  A library the
# program links against does, in its constructor (which ld.so runs before
# the preloaded libcsprof.so's), one of: pthread_create (a thread burning
# 0.5 CPU-seconds), fork, dlopen, _exit(5), or pthread_create of a thread
# that burns 0.3 CPU-seconds and then calls _exit(5) (thread_exit).  Output
# and exit status are the baseline's for every variant.  Each profile holds
# its thread's work: its tree holds every sample it counted, at least half
# the samples its CPU time is worth, and >= 90 % of them in main (the main
# thread's 0.3 CPU-seconds loop) or in burn below early_worker or
# early_exit_worker (the constructor's thread, profiled although csprof was
# not set up when it started; with thread_exit, its _exit writes both
# threads' profiles).  With _exit before main, csprof never started: csrun
# exits as the program did and no profile exists.
# A thread csprof cannot profile (glibc's SIGEV_THREAD timer thread, made
# past csprof's pthread_create) is counted (threads.untracked) and csrun
# reports it.
. "$(dirname "$0")/lib.sh"
runs=$(rel_runs 1)

rel_build libearly.so gcc "-shared -fPIC -pthread" early_lib.c
rel_build app gcc "-pthread -L. -Wl,-rpath,$PWD" early_main.c "$PWD/libearly.so"
for what in thread fork dlopen _exit thread_exit; do
    EARLY=$what rel_plain "base_$what" ./app
    for ((r = 1; r <= runs; r++)); do
        tag="$what run $r"
        EARLY=$what rel_prof "p_${what}_$r" "m_${what}_$r" ./app
        check "$tag: exit status and output identical ($(cat "p_${what}_$r.rc"))" \
            rel_same "p_${what}_$r" "base_$what"
        if [ "$what" = _exit ]; then
            check "$tag: no profile: csprof never started ($(rel_files "m_${what}_$r") files)" \
                [ "$(rel_files "m_${what}_$r")" -eq 0 ]
            continue
        fi
        rel_records "m_${what}_$r" > "m_${what}_$r.rec"
        n=$(wc -l < "m_${what}_$r.rec")
        want=1
        case $what in thread | thread_exit) want=2 ;; esac
        check "$tag: a profile per thread ($n, want $want)" [ "$n" -eq "$want" ]
        while read -r rec idx rest; do
            # shellcheck disable=SC2086 # the record's words
            if [ "$idx" = 0 ]; then
                rel_content "$tag" 0.5 ./app main "" 0.90 "$rec" "$idx" $rest
            elif [ "$what" = thread ]; then
                rel_content "$tag" 0.5 ./libearly.so burn early_worker 0.90 "$rec" "$idx" $rest
            else
                rel_content "$tag" 0.5 ./libearly.so burn early_exit_worker 0.90 "$rec" "$idx" $rest
            fi
        done < "m_${what}_$r.rec"
    done
done
rel_build untracked gcc "-pthread" untracked.c
csrun -e "$REL_EVENT" -o mu ./untracked > u.out 2> u.err
n=$(rel_stat mu threads.untracked)
check "untracked thread counted ($n)" [ "$n" -ge 1 ]
check "csrun reports threads not profiled" grep -q "thread(s) not profiled" u.err
finish
