#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# MPI_Init under csrun (issue 7 item 2): Debian's Open MPI opens its
# components with dlopen inside MPI_Init, and a singleton forks its orted;
# when csprof's handler could take the loader's locks it hung in 1 of 8
# runs.  An MPI ring program (programs/mpi_ring.c) runs as a singleton and
# under `mpirun -np 2 csrun ...` (csrun inside the launcher, oversubscribed
# so that 2 ranks fit any machine); each profiled run must end like the
# baseline (same output and status), never hang, and leave one profile per
# rank holding the rank's work: every thread record's tree holds every
# sample it counted, the main thread has at least half the samples its CPU
# time is worth, and its samples in burn (ring_work's 5 x 50 ms of CPU time;
# ring_work tail-calls burn) below main are at least half of what that work
# is worth.  Skipped (77) when mpicc or mpirun is missing.
. "$(dirname "$0")/lib.sh"
runs=$(rel_runs 3)

command -v mpicc > /dev/null || rel_skip "mpicc not installed (Debian: libopenmpi-dev)"
command -v mpirun > /dev/null || rel_skip "mpirun not installed (Debian: openmpi-bin)"
# Open MPI refuses root without these; --oversubscribe lets 2 ranks run on 1 core.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
rel_build mpi_ring mpicc "-I$rel_dir/programs" mpi_ring.c

# ranks TAG DIR: check each mpi_ring rank measurement file of DIR
# (mpi_ring-rRANK-PID.cspm, one per rank) for the rank's work; nranks is set
# to their number.
# The child that a singleton forks to exec its orted writes mpi_ring-PID.cspm
# before the exec (then orted-PID.cspm): not a rank, and not checked.
# shellcheck disable=SC2086 # $rest: the record's words
ranks() {
    local tag=$1 f rec idx cpu rest b
    nranks=0
    for f in "$2"/mpi_ring-r*.cspm; do
        [ -e "$f" ] || continue
        nranks=$((nranks + 1))
        rel_records "$f" > "$f.rec"
        while read -r rec idx cpu rest; do
            if [ "$idx" != 0 ]; then # Open MPI's threads
                rel_content "$tag, ${f##*/}" - ./mpi_ring - "" - "$rec" "$idx" "$cpu" $rest
                continue
            fi
            rel_content "$tag, ${f##*/}" 0.5 ./mpi_ring - "" - "$rec" "$idx" "$cpu" $rest
            set -- $rest
            b=$(rel_samples_in "$rec" ./mpi_ring burn main)
            check "$tag, ${f##*/}: $b samples in burn under main >= 0.5 x $((work_ms * 1000000 / $3)) (its ${work_ms} ms / the period)" \
                rel_ratio_ge "$b" $((work_ms * 1000000 / $3)) 0.5
        done < "$f.rec"
    done
}
work_ms=250 # 5 rounds of 0.05 s

rel_plain base1 ./mpi_ring 5 0.05
check "singleton baseline exits 0" [ "$(cat base1.rc)" -eq 0 ]
rel_plain base2 mpirun -np 2 ./mpi_ring 5 0.05
check "2-rank baseline exits 0" [ "$(cat base2.rc)" -eq 0 ]
for ((r = 1; r <= runs; r++)); do
    rel_launcher=()
    rel_prof s$r s$r.m ./mpi_ring 5 0.05
    check "singleton run $r: no hang, output and exit status identical" rel_same s$r base1
    ranks "singleton run $r" s$r.m
    check "singleton run $r: one rank profile ($nranks)" [ "$nranks" -eq 1 ]

    rel_launcher=(mpirun -np 2)
    rel_prof n$r n$r.m ./mpi_ring 5 0.05
    check "mpirun -np 2 run $r: no hang, output and exit status identical" rel_same n$r base2
    ranks "mpirun -np 2 run $r" n$r.m
    check "mpirun -np 2 run $r: 2 rank profiles ($nranks)" [ "$nranks" -eq 2 ]
done
finish
