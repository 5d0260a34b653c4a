#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 12 (issue 7 item 1): two threads each, in a loop, throw C++ exceptions
# through 5-65 frames of recursion (destructors run on the way), rethrow
# from catch blocks, longjmp out of recursion to a setjmp in the loop, and
# throw from a std::sort comparator, while main waits in join.  Each
# profiled run prints what the baseline prints and exits alike, the
# trampoline never fired from a slot it was not installed at, and each
# worker thread's profile holds its work: its tree holds every sample it
# counted, at least half the samples its CPU time is worth, >= 90 % of them
# below worker and >= 55 % in recurse below worker (three loop iterations in
# four; the fourth sorts: about 75 % here, 88 % with LD_BIND_NOT); the
# database (csprof-prof) puts >= 55 % of worker's time in recurse too.  One run more sets LD_BIND_NOT=1 (every setjmp
# through the lazy-binding resolver: see r11_longjmp.sh), which crashed
# before the fix.
. "$(dirname "$0")/lib.sh"
runs=$(rel_runs 2)
iters=${REL_ITERS:-4000}

rel_build exceptions_mt g++ "-pthread" exceptions_mt.cc
rel_plain base ./exceptions_mt "$iters"
check "baseline exits 0" [ "$(cat base.rc)" -eq 0 ]

one_run() {
    local tag=$1 mismatch rec idx rest n=0 rc w
    check "$tag: output and exit status identical" rel_same "$tag" base || return
    check "$tag: three profiles (got $(rel_profiles "m.$tag"))" [ "$(rel_profiles "m.$tag")" -eq 3 ]
    mismatch=$(rel_stat "m.$tag" trampoline.return_mismatch)
    check "$tag: trampoline.return_mismatch = 0 ($mismatch)" [ "$mismatch" -eq 0 ]
    rel_records "m.$tag" > "m.$tag.rec"
    while read -r rec idx rest; do
        [ "$idx" = 0 ] && continue # main: waits in join
        n=$((n + 1))
        # shellcheck disable=SC2086 # the record's words
        rel_content "$tag" 0.5 ./exceptions_mt worker "" 0.90 "$rec" "$idx" $rest
        rc=$(rel_samples_in "$rec" ./exceptions_mt recurse worker)
        w=$(rel_samples_total "$rec")
        check "$tag, thread $idx: >= 55 % of its samples in recurse under worker ($rc of $w)" \
            rel_ratio_ge "$rc" "$w" 0.55
    done < "m.$tag.rec"
    check "$tag: two worker threads ($n)" [ "$n" -eq 2 ]
    check "$tag: database" rel_db "m.$tag" "db.$tag" || return
    rc=$(rel_incl_within "db.$tag" CPUTIME recurse worker)
    w=$(incl_of "db.$tag" CPUTIME worker)
    check "$tag: the database puts >= 55 % of worker's time in recurse ($rc of $w s)" \
        rel_ratio_ge "${rc:-0}" "${w:-0}" 0.55
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
