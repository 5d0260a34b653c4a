#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 8: samples inside the allocator and stdio.  16 threads and main churn
# malloc/realloc/free of random sizes and fprintf to /dev/null.  Each
# profiled run finishes (no hang: 3 x baseline + 10 s) and prints what the
# baseline prints, writes 17 thread profiles, every thread has samples, and
# >= 90 % of each worker thread's samples are under churn (stack walks
# through malloc, free and vfprintf reach the thread's own code; main also
# creates the threads: >= 90 % of its samples under main).
. "$(dirname "$0")/lib.sh"
runs=$(rel_runs 4)
rounds=${REL_UNITS:-200000} # about 1 s of CPU in all

rel_build allocs gcc "-pthread" allocs.c
rel_plain base ./allocs "$rounds"
check "baseline exits 0" [ "$(cat base.rc)" -eq 0 ]
for ((r = 1; r <= runs; r++)); do
    rel_prof p$r m$r ./allocs "$rounds" || continue
    check "run $r: output and exit status identical" rel_same p$r base
    n=$(rel_profiles m$r)
    check "run $r: 17 thread profiles (got $n)" [ "$n" -eq 17 ]
    empty="" shallow=""
    for f in m$r/*.cspm; do
        [ -e "$f" ] || continue
        case "$f" in
        *-0-*-*.cspm) root=main ;; # thread index 0: the main thread
        *) root=churn ;;
        esac
        s=$(rel_samples_total "$f") c=$(rel_samples_in "$f" allocs $root)
        [ "$s" -gt 0 ] || empty="$empty $(basename "$f")"
        rel_ratio_ge "$c" "$s" 0.9 || shallow="$shallow $root:$c/$s"
    done
    check "run $r: every thread has samples (none:${empty:- no thread})" [ -z "$empty" ]
    check "run $r: >= 90 % of each thread's samples under churn, main's under main (not:${shallow:- none})" \
        [ -z "$shallow" ]
done
finish
