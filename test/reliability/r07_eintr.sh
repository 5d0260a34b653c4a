#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 7: EINTR-fragile system calls.  A program loops over poll, select,
# epoll_wait, nanosleep and a blocking pipe read, burning CPU in between
# (burn), and aborts (exit 3) on any EINTR; a feeder thread burns and writes
# to the pipe.  csprof's default (CSPROF_EINTR_SAFE on:
# lib/monitor/eintr_sig.c) must let it finish in every run, under REL_EVENT
# and under REALTIME@1000 -- a real-time timer firing during nearly every
# call, the case that fails without the safe mode.  Each thread's profile
# holds its work: its tree holds every sample it counted, at least half the
# samples its CPU time is worth, and under REL_EVENT >= 80 % of them in burn
# below main (thread 0) or feeder (thread 1) (alone 94-97 %; a loaded machine
# puts more of the feeder's time in its 1 ms sleeps' kernel work: 87 % seen;
# a wrong attribution puts ~0 % there); under REALTIME (wall-clock
# time, much of it in the calls) the samples in burn are at least half of
# what the thread's CPU time, all of it burn's, is worth.
# REL_RUNS=100 is the row's 100/100 criterion.
. "$(dirname "$0")/lib.sh"
runs=$(rel_runs 3)
rounds=${REL_ROUNDS:-100}

rel_build app gcc "-pthread" eintr.c

# content TAG DIR SHARE: both threads' profiles hold their work (SHARE: the
# share of their samples in burn, or "-" to check burn's samples against
# their CPU time instead).
content() {
    local tag=$1 dir=$2 share=$3 n rec idx cpu rest anc in
    rel_records "$dir" > "$dir.rec"
    n=$(wc -l < "$dir.rec")
    check "$tag: a profile per thread ($n, want 2)" [ "$n" -eq 2 ]
    while read -r rec idx cpu rest; do
        anc=feeder
        [ "$idx" = 0 ] && anc=main
        # shellcheck disable=SC2086 # the record's words
        if [ "$share" != - ]; then
            rel_content "$tag" 0.5 ./app burn "$anc" "$share" "$rec" "$idx" "$cpu" $rest
        else
            rel_content "$tag" 0.5 ./app - "" - "$rec" "$idx" "$cpu" $rest
            set -- $rest
            in=$(rel_samples_in "$rec" ./app burn "$anc")
            check "$tag, thread $idx: $in samples in burn under $anc >= 0.5 x $(awk -v c="$cpu" -v p="$3" \
                'BEGIN { printf "%.1f", (p > 0 ? c / p : 0) }') (its CPU time / the period)" \
                awk -v n="$in" -v c="$cpu" -v p="$3" 'BEGIN { exit !(p > 0 && c > 0 && n >= 0.5 * c / p) }'
        fi
    done < "$dir.rec"
}

rel_plain base ./app "$rounds"
check "baseline exits 0" [ "$(cat base.rc)" -eq 0 ]
for ((r = 1; r <= runs; r++)); do
    rel_prof p$r m$r ./app "$rounds"
    check "run $r ($REL_EVENT): no EINTR, output and exit status identical" rel_same p$r base
    content "run $r ($REL_EVENT)" m$r 0.80
    REL_EVENT=REALTIME@1000 rel_prof rt$r mrt$r ./app "$rounds"
    check "run $r (REALTIME@1000): no EINTR, output and exit status identical" rel_same rt$r base
    content "run $r (REALTIME@1000)" mrt$r -
done
finish
