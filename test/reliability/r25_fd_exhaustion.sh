#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 25: 1000+ threads while the program holds 950 of its 1024 file
# descriptors.  Writing a profile must need no descriptor: every thread's
# profile is present, and the program's own opens after the threads succeed.
# CPUTIME@1000 samples by the perf task clock, a descriptor per thread: the
# threads that would take one of the program's last descriptors get a POSIX
# CPU-time timer instead, counted (thread.timer_fallback) and reported.
# Also: a program that closes every descriptor (close_range) does not lose
# its profiles; csprof notices and re-opens its file.
. "$(dirname "$0")/lib.sh"
runs=$(rel_runs 2)
threads=${REL_FD_THREADS:-1200}

rel_build fds gcc "-pthread" rel_fds_threads.c
args=(./fds 950 "$threads" 100 2 60)
ulimit -n 1024 # this shell and everything it runs from here on
rel_plain base "${args[@]}"
check "baseline: $(cat base.out)" [ "$(cat base.rc)" -eq 0 ]
for ((r = 1; r <= runs; r++)); do
    rel_prof p$r m$r "${args[@]}"
    check "run $r: output and exit status identical ($(cat p$r.out))" rel_same p$r base
    check "run $r: no profile lost (csrun says nothing about it)" \
        sh -c "! grep -E 'could not write|Too many open files' p$r.err"
    n=$(rel_profiles m$r)
    check "run $r: every thread's profile is there ($n of $((threads + 1)))" \
        [ "$n" -eq $((threads + 1)) ]
    fb=$(rel_stat m$r thread.timer_fallback) # (rel_stat dumps the profiles to *.cspm.txt)
    if grep -q 'perf-task-clock' m$r/*.cspm.txt; then
        check "run $r: threads short of descriptors sampled by the POSIX-timer fallback ($fb)" \
            [ "$fb" -ge 1 ]
    else
        echo "note: run $r: CPUTIME by POSIX timers here (no perf task clock): no fallback to check"
    fi
done

rel_build closer gcc "-pthread" rel_close_range.c
rel_plain cbase ./closer 3
rel_prof closed mc ./closer 3
check "close_range: output and exit status identical ($(cat closed.out))" rel_same closed cbase
check "close_range: all 4 threads' profiles are there ($(rel_profiles mc))" [ "$(rel_profiles mc)" -eq 4 ]
check "close_range: the re-opening is counted" [ "$(rel_stat mc output.reopened)" -ge 1 ]
finish
