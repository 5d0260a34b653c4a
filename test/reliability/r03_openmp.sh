#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# OpenMP creation contexts (reliability.md row 3, issue 11): a C and a
# Fortran program (programs/omp_nest.c, omp_nest.f90; libgomp; the C one
# also built with clang against LLVM's libomp) with a parallel region
# holding a nested region, a region creating tasks, and a parallel loop,
# OMP_NUM_THREADS=8; the clang build runs twice: with OMPT (csprof is
# libomp's tool) and without (CSPROF_OMPT=0).  Samples in the outlined
# bodies run on the runtime's threads, whose own stacks begin at
# start_thread; csprof must put them below the call site of the construct
# in main's calling context ([Catch]): >= 90% of the samples in
# region_work lie under main, and
# >= 90% of all samples except the runtime's idle loop (csprof_omp_idle)
# too; in the merged database (merged below) the work lies below the
# procedures holding the regions' call sites, the tasks' work below their
# creation site, the nested region below both call sites, and the runtime's
# time is named (csprof_omp_barrier, csprof_omp_idle, its exported names).
# Output and exit status are the baseline's.  REL_OMP_LANGS picks the
# parts (default: c fortran clang clang-noompt); ctest runs each as a test
# of its own (rel_03_openmp: c, rel_03_openmp_fortran, rel_03_openmp_clang,
# rel_03_openmp_clang_noompt), skipped (77) when its compiler or OpenMP
# runtime is missing.
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

# within_rt DB FUNC [ANCESTOR]: inclusive CPUTIME of the outermost FUNC frames
# (below an ANCESTOR frame) that have a frame of the OpenMP runtime (libgomp,
# libomp) above them: a body run by the runtime and left below its frames.
within_rt() {
    local db=$1 f a="" rt m
    f=$(or_ids n $(proc_ids "$db" "$2"))
    [ -n "${3:-}" ] && a="[ancestor::PF[$(or_ids n $(proc_ids "$db" "$3"))]]"
    rt=$(xp "$db" "string(//LoadModule[contains(@n,'/libgomp.') or contains(@n,'/libomp.')]/@i)")
    m=$(metric_id "$db" "$rel_ev" inclusive)
    xp "$db" "sum(//PF[$f][not(ancestor::PF[$f])]$a[ancestor::PF[@lm='${rt:-none}']]/M[@n='$m']/@v)"
}

# merged TAG DIR: the database of one run (csprof-prof): the work through
# the procedures holding the regions' call sites, the nested region's work
# below both call sites, the tasks' work below their creation site (in the
# region's body, not below the runtime's task scheduling), and the runtime's
# own time named.
merged() {
    local db=$2.db w wm ws wrt t trt i io tot rtx mx rt
    check "$1: database" rel_db "$2" "$db" || return
    w=$(incl_of "$db" "$rel_ev" region_work)
    wm=$(rel_incl_within "$db" "$rel_ev" region_work main)
    ws=$(awk -v a="$(rel_incl_within "$db" "$rel_ev" region_work outer_region)" \
        -v b="$(rel_incl_within "$db" "$rel_ev" region_work task_region)" \
        -v c="$(rel_incl_within "$db" "$rel_ev" region_work loop_region)" 'BEGIN { print a + b + c }')
    wrt=$(within_rt "$db" region_work)
    t=$(rel_incl_within "$db" "$rel_ev" region_work task_region)
    trt=$(within_rt "$db" region_work task_region)
    i=$(incl_of "$db" "$rel_ev" inner_region)
    io=$(rel_incl_within "$db" "$rel_ev" inner_region outer_region)
    mx=$(metric_id "$db" "$rel_ev" exclusive)
    tot=$(xp "$db" "string(//SecCallPathProfileData/M[@n='$(metric_id "$db" "$rel_ev" inclusive)']/@v)")
    rt=$(xp "$db" "string(//LoadModule[contains(@n,'/libgomp.') or contains(@n,'/libomp.')]/@i)")
    rtx=$(xp "$db" "sum(//PF[$(or_ids n $(xp "$db" "//Procedure[@lm='${rt:-none}'][contains(@n,'+0x')]/@i" |
        sed 's/ i="\([0-9]*\)"/\1 /g'))]/M[@n='$mx']/@v)")
    echo "  $1 (database, s): region_work $w, under main $wm, through the regions' call sites $ws," \
        "below runtime frames $wrt; tasks $t (below runtime frames $trt); inner region $i," \
        "below outer_region $io; total $tot, in unnamed runtime code $rtx"
    check "$1: >= 90% of the work under main in the database ($wm of $w s)" rel_ratio_ge "$wm" "$w" 0.90
    check "$1: >= 90% of the work through the regions' call sites ($ws of $w s)" \
        rel_ratio_ge "$ws" "$w" 0.90
    check "$1: <= 10% of the work below the runtime's frames ($wrt of $w s)" \
        rel_ratio_ge "$(awk -v a="$w" -v b="$wrt" 'BEGIN { print a - b }')" "$w" 0.90
    check "$1: >= 90% of the tasks' work below their creation site, not the runtime ($trt of $t s)" \
        rel_ratio_ge "$(awk -v a="$t" -v b="$trt" 'BEGIN { print a - b }')" "$t" 0.90
    check "$1: nested region below both call sites ($io of $i s)" rel_ratio_ge "$io" "$i" 0.90
    check "$1: <= 10% of the time in unnamed runtime code ($rtx of $tot s)" \
        rel_ratio_ge "$(awk -v a="$tot" -v b="$rtx" 'BEGIN { print a - b }')" "$tot" 0.90
}

# clang_omp: whether clang can build an OpenMP program (LLVM's libomp, libomp-dev).
clang_omp() {
    command -v clang > /dev/null &&
        echo 'int main(void){return 0;}' | clang -fopenmp -x c -o /dev/null - 2> /dev/null
}

for lang in ${REL_OMP_LANGS:-c fortran clang clang-noompt}; do
    unset CSPROF_OMPT
    if [ $lang = c ]; then
        command -v gcc > /dev/null || { rel_skip_part "no gcc: the C part cannot run"; continue; }
        rel_build omp_c gcc "-fopenmp -I$rel_dir/programs" omp_nest.c
        bin=./omp_c fn=region_work
    elif [ $lang = clang ] || [ $lang = clang-noompt ]; then
        # LLVM's libomp (libomp-dev): regions through __kmpc_fork_call.
        if ! clang_omp; then
            rel_skip_part "no clang with libomp (Debian: clang libomp-dev): the $lang part cannot run"
            continue
        fi
        [ -x ./omp_clang ] || rel_build omp_clang clang "-fopenmp -I$rel_dir/programs" omp_nest.c
        bin=./omp_clang fn=region_work
        # clang-noompt: the same without OMPT, creation contexts from the overrides alone.
        [ $lang = clang-noompt ] && export CSPROF_OMPT=0
    elif [ $lang = fortran ]; then
        if ! command -v gfortran > /dev/null; then
            rel_skip_part "no gfortran (Debian: gfortran): the Fortran part cannot run"
            continue
        fi
        rel_build omp_f gfortran "-fopenmp -fno-inline" omp_nest.f90
        bin=./omp_f fn=__omp_nest_mod_MOD_region_work
    else
        check "REL_OMP_LANGS: '$lang' is one of c fortran clang clang-noompt" false
        continue
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
        merged "$lang run $r" $lang.$r.m
    done
done
finish
