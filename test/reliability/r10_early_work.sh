#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 10 (issue 7 item 9): work before the monitor is set up.  A library the
# program links against does, in its constructor (which ld.so runs before
# the preloaded libcsprof.so's), one of: pthread_create (a thread burning
# 0.5 CPU-seconds), fork, dlopen, _exit(5).  Output and exit status are the
# baseline's for every variant; the constructor's thread has a profile with
# samples; _exit leaves no crash and whatever profile there is parses.
# A thread csprof cannot profile (glibc's SIGEV_THREAD timer thread, made
# past csprof's pthread_create) is counted (threads.untracked) and csrun
# reports it.
. "$(dirname "$0")/lib.sh"
. "$rel_dir/thread_stats.sh"
runs=$(rel_runs 1)

rel_build libearly.so gcc "-shared -fPIC -pthread" early_lib.c
rel_build app gcc "-pthread -L. -Wl,-rpath,$PWD" early_main.c "$PWD/libearly.so"
for what in thread fork dlopen _exit; do
    EARLY=$what rel_plain "base_$what" ./app
    for ((r = 1; r <= runs; r++)); do
        EARLY=$what rel_prof "p_${what}_$r" "m_${what}_$r" ./app
        check "$what run $r: exit status and output identical ($(cat "p_${what}_$r.rc"))" \
            rel_same "p_${what}_$r" "base_$what"
        rel_threads "m_${what}_$r" > "t_${what}_$r"
        bad=0
        for f in "m_${what}_$r"/*.cspm; do
            [ -e "$f" ] && { csprof-prof --dump "$f" > /dev/null 2>&1 || bad=$((bad + 1)); }
        done
        check "$what run $r: every profile parses ($bad unreadable)" [ "$bad" -eq 0 ]
        case $what in
        thread)
            n=$(awk '$1 != 0 && $3 > 0' "t_${what}_$r" | wc -l)
            check "$what run $r: the constructor's thread has a profile with samples ($n)" [ "$n" -ge 1 ]
            ;;
        _exit) ;;
        *)
            n=$(awk '$1 == 0 && $3 > 0' "t_${what}_$r" | wc -l)
            check "$what run $r: the main thread has samples ($n)" [ "$n" -ge 1 ]
            ;;
        esac
    done
done
rel_build untracked gcc "-pthread" untracked.c
csrun -e "$REL_EVENT" -o mu ./untracked > u.out 2> u.err
n=$(rel_stat mu threads.untracked)
check "untracked thread counted ($n)" [ "$n" -ge 1 ]
check "csrun reports threads not profiled" grep -q "thread(s) not profiled" u.err
finish
