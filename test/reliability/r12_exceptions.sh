#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 12 (issue 7 item 1): two threads each, in a loop, throw C++ exceptions
# through 5-65 frames of recursion (destructors run on the way), rethrow
# from catch blocks, longjmp out of recursion to a setjmp in the loop, and
# throw from a std::sort comparator, while main waits in join.  Each
# profiled run prints what the baseline prints and exits alike, the
# trampoline never fired from a slot it was not installed at, and the
# recursion is attributed under the worker.  One run more sets
# LD_BIND_NOT=1 (every setjmp through the lazy-binding resolver: see
# r11_longjmp.sh), which crashed before the fix.
. "$(dirname "$0")/lib.sh"
runs=$(rel_runs 2)
iters=${REL_ITERS:-4000}

rel_build exceptions_mt g++ "-pthread" exceptions_mt.cc
rel_plain base ./exceptions_mt "$iters"
check "baseline exits 0" [ "$(cat base.rc)" -eq 0 ]

one_run() {
    local tag=$1 mismatch under
    check "$tag: output and exit status identical" rel_same "$tag" base || return
    check "$tag: three profiles (got $(rel_profiles "m.$tag"))" [ "$(rel_profiles "m.$tag")" -eq 3 ]
    mismatch=$(rel_stat "m.$tag" trampoline.return_mismatch)
    check "$tag: trampoline.return_mismatch = 0 ($mismatch)" [ "$mismatch" -eq 0 ]
    check "$tag: database" rel_db "m.$tag" "db.$tag" || return
    under=$(incl_under "db.$tag" CPUTIME recurse worker)
    check "$tag: recurse is attributed under worker ($under s)" \
        awk -v x="${under:-0}" 'BEGIN { exit !(x > 0) }'
}

for ((r = 1; r <= runs; r++)); do
    rel_prof "p$r" "m.p$r" ./exceptions_mt "$iters"
    one_run "p$r"
done
# Every PLT call through the resolver is slower: its own baseline sets the hang limit.
LD_BIND_NOT=1 rel_plain lazybase ./exceptions_mt "$iters"
LD_BIND_NOT=1 rel_prof lazy m.lazy ./exceptions_mt "$iters"
one_run lazy
finish
