#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 7: EINTR-fragile system calls.  A program loops over poll, select,
# epoll_wait, nanosleep and a blocking pipe read, burning CPU in between,
# and aborts (exit 3) on any EINTR.  csprof's default (CSPROF_EINTR_SAFE
# on: lib/monitor/eintr_sig.c) must let it finish in every run, under
# REL_EVENT and under REALTIME@1000 -- a real-time timer firing during
# nearly every call, the case that fails without the safe mode.
# REL_RUNS=100 is the row's 100/100 criterion.
. "$(dirname "$0")/lib.sh"
runs=$(rel_runs 3)
rounds=${REL_ROUNDS:-100}

rel_build app gcc "-pthread" eintr.c
rel_plain base ./app "$rounds"
check "baseline exits 0" [ "$(cat base.rc)" -eq 0 ]
for ((r = 1; r <= runs; r++)); do
    rel_prof p$r m$r ./app "$rounds"
    check "run $r ($REL_EVENT): no EINTR, output and exit status identical" rel_same p$r base
    REL_EVENT=REALTIME@1000 rel_prof rt$r mrt$r ./app "$rounds"
    check "run $r (REALTIME@1000): no EINTR, output and exit status identical" rel_same rt$r base
    n=$(rel_stat mrt$r samples.recorded)
    check "run $r (REALTIME@1000): samples recorded ($n)" [ "$n" -gt 0 ]
done
finish
