#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 11 (issue 7 item 1): recursion to depth 50, then longjmp back to main,
# many times, then siglongjmp out of SIGALRM handlers interrupting a deep
# recursion.  Each profiled run prints what the baseline prints and exits
# alike, the trampoline never fired from a slot it was not installed at
# (trampoline.return_mismatch = 0), and >= 95 % of samples are rooted at main.
# One run more sets LD_BIND_NOT=1, so every setjmp call goes through the
# dynamic linker's lazy-binding resolver: before the fix, a sample there put
# the trampoline into setjmp's return slot, setjmp saved it as the resume
# address, and the next longjmp jumped to a stale return address (main
# returned early in 5 of 5 such runs before the fix).
. "$(dirname "$0")/lib.sh"
runs=$(rel_runs 2)
iters=${REL_ITERS:-300000}

rel_build longjmp_deep gcc "" longjmp_deep.c
rel_plain base ./longjmp_deep "$iters"
check "baseline exits 0" [ "$(cat base.rc)" -eq 0 ]

# one_run TAG: the checks of one profiled run in directory m.TAG.
one_run() {
    local tag=$1 n rooted mismatch
    check "$tag: output and exit status identical" rel_same "$tag" base || return
    mismatch=$(rel_stat "m.$tag" trampoline.return_mismatch)
    check "$tag: trampoline.return_mismatch = 0 ($mismatch)" [ "$mismatch" -eq 0 ]
    check "$tag: database" rel_db "m.$tag" "db.$tag" || return
    n=$(rel_summary "db.$tag" samples) rooted=$(rel_summary "db.$tag" samples-in-main)
    check "$tag: rooted at main >= 0.95 ($rooted of $n)" \
        awk -v a="${rooted:-0}" -v n="${n:-0}" 'BEGIN { exit !(n > 0 && a >= 0.95 * n) }'
}

for ((r = 1; r <= runs; r++)); do
    rel_prof "p$r" "m.p$r" ./longjmp_deep "$iters"
    one_run "p$r"
done
# Every PLT call through the resolver is slower: its own baseline sets the hang limit.
LD_BIND_NOT=1 rel_plain lazybase ./longjmp_deep "$iters"
LD_BIND_NOT=1 rel_prof lazy m.lazy ./longjmp_deep "$iters"
one_run lazy
finish
