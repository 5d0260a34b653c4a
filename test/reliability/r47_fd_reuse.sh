#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 47: a child that closes its descriptors, works, and reuses the numbers
# (programs/fd_reuse.c; daemons and launchers such as MPICH's hydra proxy do
# this).  libunwind 1.6 validates memory through a pipe it reopens on the
# lowest free descriptors: before unwind_guard_sig.c, the child's open() got 2
# instead of 0, and once it dup2'd its own pipe onto 0, a walk could read it
# (stress.sh r27: csrun mpirun.mpich hung at CPUTIME@200 on a shared CPU) and
# write the stack's bytes into it.  Checked: the output (descriptor numbers
# and pipe contents) and exit status are the unprofiled run's, and the
# child's samples are rooted at main, in burn (the walks' memory reads still
# validated).
. "$(dirname "$0")/lib.sh"
runs=$(rel_runs 2)

rel_build fdre gcc "" fd_reuse.c
rel_plain base ./fdre 150000000
check "baseline: open gets 0, the pipes keep what was written" \
    sh -c "grep -qx \"open 0, pipe 1 2, read 5 'hello'\" base.out && grep -qx \"dup2 onto 0 and 1, read 5 'world'\" base.out && grep -qx \"dup2 onto 512..531, read 5 'again'\" base.out"
for ((r = 1; r <= runs; r++)); do
    rel_prof p$r m$r ./fdre 150000000
    check "run $r: output (descriptor numbers, pipe contents) and exit status identical" rel_same p$r base
    rel_records m$r > m$r.rec
    # the child: the record with the most samples in its tree
    read -r rec tree < <(sort -k5,5n m$r.rec | tail -1 | awk '{ print $1, $5 }')
    n=$(rel_samples_in "$rec" ./fdre burn main)
    # (>= 60 %: the rest is its closing of 950 descriptors and its pipes, 18 % at CPUTIME@200
    # on a shared CPU; a walk whose reads all fail validation puts none there)
    check "run $r: the child's samples are in burn under main ($n of ${tree:-0})" \
        rel_ratio_ge "${n:-0}" "${tree:-0}" 0.6
    # (at least 20: closing every descriptor also closes the child's perf task clock, and
    # sampling in that process stops after some tens of samples -- the trust report counts
    # the rest as "not counted by the task clock"; docs/trust.md)
    check "run $r: the child took samples (${tree:-0} >= 20)" [ "${tree:-0}" -ge 20 ]
done
# With REALTIME (a POSIX timer: no descriptor to close) the child keeps being sampled after
# closing its descriptors, so walks run while its pipe sits on 512..531, where libunwind's
# validation pipe was: a walk that read its pipe there (without csprof's read guard) would take
# the child's bytes ('again' read short).
REL_EVENT=REALTIME rel_prof prt mrt ./fdre 150000000
check "REALTIME: output (descriptor numbers, pipe contents) and exit status identical" rel_same prt base
rel_records mrt > mrt.rec
read -r rec tree < <(sort -k5,5n mrt.rec | tail -1 | awk '{ print $1, $5 }')
check "REALTIME: the child kept being sampled after closing its descriptors (${tree:-0} >= 60)" [ "${tree:-0}" -ge 60 ]
finish
