#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 48: the descriptor numbers a program sees (programs/fd_numbers.c): open()'s answer and the
# open numbers below 100, in main, in a thread, after work and in a fork child, are those of the
# unprofiled run.  csprof's own descriptors -- its measurement file and directory, each thread's
# perf event, libunwind's validation pipe -- sit high (mon_fd_high); before, the program's first
# open() got 5 or 6 instead of 3.  Checked at the default event (the perf task clock, one
# descriptor per thread) and with REALTIME (a POSIX timer, no descriptor per thread), and that
# the profiled run took samples.
. "$(dirname "$0")/lib.sh"
runs=$(rel_runs 1)

rel_build fdn gcc "-pthread" fd_numbers.c
rel_plain base ./fdn 40000000
check "baseline: the program ran" grep -q "^fork child: open [0-9]" base.out
for ev in "$REL_EVENT" REALTIME; do
    for ((r = 1; r <= runs; r++)); do
        REL_EVENT=$ev rel_prof "p$ev$r" "m$ev$r" ./fdn 40000000
        check "$ev run $r: descriptor numbers and exit status identical" rel_same "p$ev$r" base
        rel_records "m$ev$r" > "m$ev$r.rec"
        n=$(awk '{ s += $5 } END { print s + 0 }' "m$ev$r.rec")
        check "$ev run $r: the run took samples ($n >= 10)" [ "$n" -ge 10 ]
    done
done
finish
