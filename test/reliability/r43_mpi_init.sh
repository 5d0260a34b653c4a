#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# MPI_Init under csrun (issue 7 item 2): Debian's Open MPI opens its
# components with dlopen inside MPI_Init, and a singleton forks its orted;
# when csprof's handler could take the loader's locks it hung in 1 of 8
# runs.  An MPI ring program (programs/mpi_ring.c) runs as a singleton and
# under `mpirun -np 2 csrun ...` (csrun inside the launcher, oversubscribed
# so that 2 ranks fit any machine); each profiled run must end like the
# baseline (same output and status), never hang, and leave one profile per
# rank with samples in it.  Skipped (77) when mpicc or mpirun is missing.
. "$(dirname "$0")/lib.sh"
runs=$(rel_runs 3)

command -v mpicc > /dev/null || rel_skip "mpicc not installed (Debian: libopenmpi-dev)"
command -v mpirun > /dev/null || rel_skip "mpirun not installed (Debian: openmpi-bin)"
# Open MPI refuses root without these; --oversubscribe lets 2 ranks run on 1 core.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
rel_build mpi_ring mpicc "-I$rel_dir/programs" mpi_ring.c

# ranks_with_samples DIR: the number of mpi_ring rank measurement files
# (mpi_ring-rRANK-PID.cspm, one per rank) whose profile holds recorded
# samples.  The child that a singleton forks to exec its orted writes
# mpi_ring-PID.cspm before the exec (then orted-PID.cspm): not a rank, and
# it holds a sample when it ran a sample period before its exec.
ranks_with_samples() {
    local f n=0
    for f in "$1"/mpi_ring-r*.cspm; do
        [ -e "$f" ] || continue
        [ "$(rel_stat "$f" samples.recorded)" -gt 0 ] && n=$((n + 1))
    done
    echo "$n"
}

rel_plain base1 ./mpi_ring 5 0.05
check "singleton baseline exits 0" [ "$(cat base1.rc)" -eq 0 ]
rel_plain base2 mpirun -np 2 ./mpi_ring 5 0.05
check "2-rank baseline exits 0" [ "$(cat base2.rc)" -eq 0 ]
for ((r = 1; r <= runs; r++)); do
    rel_launcher=()
    rel_prof s$r s$r.m ./mpi_ring 5 0.05
    check "singleton run $r: no hang, output and exit status identical" rel_same s$r base1
    n=$(ranks_with_samples s$r.m)
    check "singleton run $r: a profile with samples ($n)" [ "$n" -eq 1 ]

    rel_launcher=(mpirun -np 2)
    rel_prof n$r n$r.m ./mpi_ring 5 0.05
    check "mpirun -np 2 run $r: no hang, output and exit status identical" rel_same n$r base2
    n=$(ranks_with_samples n$r.m)
    check "mpirun -np 2 run $r: 2 rank profiles with samples ($n)" [ "$n" -eq 2 ]
done
finish
