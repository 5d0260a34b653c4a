#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 9: the program keeps the dynamic loader's locks busy while it is
# sampled: one thread each looping dl_iterate_phdr, dladdr, backtrace(),
# dlopen/dlclose of libm (already mapped: locks and reference counts),
# dlopen/dlclose of a library of its own (mapped and unmapped each time) and
# C++ throw/catch (the unwinder calls dl_iterate_phdr).  A sample that
# interrupts the loader must never wait for its lock: each profiled run ends
# (no hang, no crash), prints what the baseline prints, exits alike and
# records samples.  A first run loops dl_iterate_phdr alone, the smallest
# case that hung.  REL_ITERS sets the iterations per thread.
. "$(dirname "$0")/lib.sh"
runs=$(rel_runs 3)
iters=${REL_ITERS:-100000} # about 1 s per run (the dlopenx thread runs iters / 100)
modes=phdr,dladdr,backtrace,dlopen,dlopenx,throw

rel_build loader_locks g++ "-pthread" loader_locks.cc
rel_build libloader_locks.so gcc "-shared -fPIC" loader_locks_lib.c
export LOADER_LOCKS_LIB=$PWD/libloader_locks.so
rel_plain base ./loader_locks "$modes" "$iters"
check "baseline exits 0" [ "$(cat base.rc)" -eq 0 ]
check "baseline: every loop succeeded" \
    awk '{ split($2, f, "/"); if (f[1] != f[2]) bad = 1 } END { exit bad || NR != 6 }' base.out
rel_plain base1 ./loader_locks phdr $((iters * 3))

rel_prof p0 m0 ./loader_locks phdr $((iters * 3))
check "dl_iterate_phdr alone: output and exit status identical" rel_same p0 base1
for ((r = 1; r <= runs; r++)); do
    rel_prof p$r m$r ./loader_locks "$modes" "$iters"
    check "run $r: output and exit status identical" rel_same p$r base
    n=$(rel_stat m$r samples.recorded)
    check "run $r: samples recorded ($n)" [ "${n:-0}" -gt 0 ]
done
finish
