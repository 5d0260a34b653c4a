#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Checkpoints while the load map is being refreshed (found under MPI_Init,
# which dlopens its components): a checkpoint written from the sampling
# handler read load-map counters under the load-map mutex, which the
# interrupted dlopen/dlclose override held -- a deadlock that SIGTERM could
# not end (every async signal is blocked in the handler).  The program opens
# and closes libraries for 3 s with a checkpoint due at every sample
# (CSPROF_FLUSH_MS=1).  Before the fix it hung in 3 of 3 runs; each profiled
# run must now finish with the baseline's output and write checkpoints.
. "$(dirname "$0")/lib.sh"
runs=$(rel_runs 3)

rel_build dlopen_loop gcc "-ldl" dlopen_loop.c
rel_plain base ./dlopen_loop
check "baseline exits 0" [ "$(cat base.rc)" -eq 0 ]
for ((r = 1; r <= runs; r++)); do
    CSPROF_FLUSH_MS=1 rel_prof p$r m$r ./dlopen_loop
    check "run $r: no hang, output and exit status identical" rel_same p$r base
    n=$(rel_stat m$r checkpoints.written)
    check "run $r: checkpoints written ($n)" [ "$n" -gt 0 ]
done
finish
