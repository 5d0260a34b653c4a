#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 13: sigaltstack + stack-overflow handler.  50 ms of CPU work, then
# unbounded recursion under an 8 MiB stack; the program's SA_ONSTACK SIGSEGV
# handler (64 KiB alternate stack) prints "overflow" and _exit(42)s.  Under csrun: exit 42
# and "overflow" in every run, and the profile (written by the _exit
# override, on the alternate stack) parses and has samples.
. "$(dirname "$0")/lib.sh"
. "$rel_dir/thread_stats.sh"
runs=$(rel_runs 5)
ulimit -s 8192

rel_build app gcc "" stack_overflow.c
rel_plain base ./app
check "baseline: exit 42 and \"overflow\"" sh -c '[ "$(cat base.rc)" -eq 42 ] && grep -qx overflow base.out'
for ((r = 1; r <= runs; r++)); do
    rel_prof p$r m$r ./app
    check "run $r: exit 42 and \"overflow\" ($(cat p$r.rc))" rel_same p$r base
    rel_threads m$r > t$r
    check "run $r: the profile parses and has samples ($(awk '{ print $3 }' t$r))" \
        awk '$3 > 0 { ok = 1 } END { exit !ok }' t$r
done
finish
