#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# OpenMP creation contexts (reliability.md row 3, issue 11): a C and a
# Fortran program (programs/omp_nest.c, omp_nest.f90; libgomp; the C one
# also built with clang against LLVM's libomp) with a
# parallel region holding a nested region, a region creating tasks, and a
# parallel loop, OMP_NUM_THREADS=8.  Samples in the outlined bodies run on
# libgomp's threads, whose own stacks begin at start_thread; csprof must
# put them below the call site of the construct in main's calling context
# (seed 004): >= 90% of the samples in region_work lie under main, and
# >= 90% of all samples except the runtime's idle loop (csprof_omp_idle)
# too.  Output and exit status are the baseline's.  Skipped (77) when the
# compiler or its OpenMP runtime is missing.
. "$(dirname "$0")/lib.sh"
runs=$(rel_runs 1)
export OMP_NUM_THREADS=8
lib=$CSPROF_BUILD/lib/csprof/libcsprof.so

# shares TAG FILE BIN FUNC: the samples in FUNC (the work) and in the whole
# profile: print the shares and check them.
shares() {
    local f=$2 bin=$3 fn=$4 w wm all am idle bar
    w=$(rel_samples_in "$f" "$bin" "$fn")
    wm=$(rel_samples_in "$f" "$bin" "$fn" main)
    all=$(rel_samples_total "$f")
    am=$(rel_samples_in "$f" "$bin" main)
    idle=$(rel_samples_in "$f" "$lib" csprof_omp_idle)
    bar=$(rel_samples_in "$f" "$lib" csprof_omp_barrier)
    echo "  $1: $wm of $w samples in $fn under main; $am of $all under main; idle $idle, barrier/fork/join $bar"
    check "$1: >= 90% of the work under main ($wm of $w)" rel_ratio_ge "$wm" "$w" 0.90
    check "$1: >= 90% of the samples but idle under main ($am of $((all - idle)))" \
        rel_ratio_ge "$am" $((all - idle)) 0.90
}

for lang in c fortran clang; do
    if [ $lang = c ]; then
        command -v gcc > /dev/null || { echo "no gcc: C part skipped"; continue; }
        rel_build omp_c gcc "-fopenmp -I$rel_dir/programs" omp_nest.c
        bin=./omp_c fn=region_work
    elif [ $lang = clang ]; then
        # LLVM's libomp (libomp-dev): regions through __kmpc_fork_call.
        if ! command -v clang > /dev/null ||
            ! echo 'int main(void){return 0;}' | clang -fopenmp -x c -o /dev/null - 2> /dev/null; then
            echo "no clang with libomp: clang part skipped"
            continue
        fi
        rel_build omp_clang clang "-fopenmp -I$rel_dir/programs" omp_nest.c
        bin=./omp_clang fn=region_work
    else
        if ! command -v gfortran > /dev/null; then
            echo "no gfortran: Fortran part skipped"
            continue
        fi
        rel_build omp_f gfortran "-fopenmp -fno-inline" omp_nest.f90
        bin=./omp_f fn=__omp_nest_mod_MOD_region_work
    fi
    rel_plain $lang.base $bin 5
    check "$lang baseline exits 0" [ "$(cat $lang.base.rc)" -eq 0 ]
    for ((r = 1; r <= runs; r++)); do
        rel_prof $lang.$r $lang.$r.m $bin 5
        check "$lang run $r: no hang, output and exit status identical" rel_same $lang.$r $lang.base
        n=$(rel_files $lang.$r.m)
        if check "$lang run $r: one measurement file ($n)" [ "$n" -eq 1 ]; then
            shares "$lang run $r" $lang.$r.m/*.cspm $bin $fn
        fi
    done
done
[ "$passed" -gt 0 ] || rel_skip "neither gcc nor gfortran with OpenMP"
finish
