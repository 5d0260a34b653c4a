#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 14: ucontext coroutines.  100 coroutines on malloc'd 64 KiB stacks
# ping-pong with main's scheduler through swapcontext while they compute.
# Each profiled run prints what the baseline prints (no crash on samples
# taken mid-switch or on a heap stack), and >= 80 % of its samples have the
# coroutine body, coro_entry, as an ancestor (the root above it is glibc's
# makecontext trampoline, __start_context).  The profile merges into a
# database.
. "$(dirname "$0")/lib.sh"
runs=$(rel_runs 3)
steps=${REL_UNITS:-1000} # 2 x 10^5 switches, about 1 s of CPU

rel_build coro gcc "" coro.c
rel_plain base ./coro "$steps"
check "baseline exits 0" [ "$(cat base.rc)" -eq 0 ]
for ((r = 1; r <= runs; r++)); do
    rel_prof p$r m$r ./coro "$steps" || continue
    check "run $r: output and exit status identical" rel_same p$r base
    n=$(rel_profiles m$r)
    check "run $r: one profile (got $n)" [ "$n" -eq 1 ]
    check "run $r: the profile merges into a database" rel_db m$r db$r
    for f in m$r/*.cspm; do
        [ -e "$f" ] || continue
        s=$(rel_samples_total "$f") c=$(rel_samples_in "$f" coro coro_entry)
        check "run $r: >= 80 % of the samples under coro_entry ($c of $s)" rel_ratio_ge "$c" "$s" 0.8
    done
done
finish
