#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# MPI ranks (reliability.md row 27, issue 11): `mpirun -np 4 csrun
# ./mpi_ring` with Debian's Open MPI, 4 ranks oversubscribed on whatever
# cores there are, a balanced ring and an imbalanced one (rank 0 does twice
# the work in ring_work).  Each run must end like the baseline and leave
# one file per rank named PROG-rRANK-PID.cspm (so that names sort by rank),
# every record of it tagged with that rank and world size 4, its samples
# complete (walks reached the root) and rooted at main; in the imbalanced
# runs rank 0 has about twice the samples in ring_work of the other ranks.
# The merged database attributes time inside MPI to the MPI call (its
# exported name, from libmpi's .dynsym: Debian's libmpi is stripped).  The
# other form, `csrun mpirun ...`, must warn once and still profile the
# ranks.  The whole suite runs with Open MPI (mpicc.openmpi, mpirun.openmpi:
# Debian's default) and again with MPICH (mpicc.mpich, mpirun.mpich: Debian's
# mpich and libmpich-dev, installed beside Open MPI at a lower alternatives
# priority).  REL_MPI_IMPLS picks the implementations (default: openmpi
# mpich); ctest runs each as a test of its own (rel_27_mpi: openmpi,
# rel_27_mpi_mpich), skipped (77) when that MPI is not installed.
. "$(dirname "$0")/lib.sh"
runs=$(rel_runs 1)

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
prog=mpi_ring

# rank_files DIR: the rank files of DIR in name order, one per line.
rank_files() { find "$1" -maxdepth 1 -name "$prog-r*.cspm" -printf '%f\n' | LC_ALL=C sort; }

# tagged DIR: 4 rank files, the k-th in name order is rank k, and each of its
# records says rank k and world size 4.
tagged() {
    local dir=$1 k=0 f bad=0 ranks sizes
    [ "$(rank_files "$dir" | wc -l)" -eq 4 ] || { echo "  files: $(rank_files "$dir" | tr '\n' ' ')"; return 1; }
    for f in $(rank_files "$dir"); do
        case "$f" in "$prog"-r0000$k-*) ;; *) echo "  file $f is not rank $k's"; bad=1 ;; esac
        [ -s "$dir/$f.txt" ] || csprof-prof --dump "$dir/$f" > "$dir/$f.txt" 2> /dev/null
        ranks=$(sed -n 's/^header .* rank=\(-\{0,1\}[0-9]*\) .*/\1/p' "$dir/$f.txt" | sort -u | tr '\n' ' ')
        sizes=$(sed -n 's/^stat name="mpi.world_size" value=//p' "$dir/$f.txt" | sort -u | tr '\n' ' ')
        [ "$ranks" = "$k " ] || { echo "  $f: ranks in headers '$ranks'"; bad=1; }
        [ "$sizes" = "4 " ] || { echo "  $f: world sizes '$sizes'"; bad=1; }
        k=$((k + 1))
    done
    return $bad
}

# rooted DIR: in every rank file, >= 95% of the recorded samples are complete
# walks and >= 90% of all samples lie under main (the rest: Open MPI's
# progress threads).
rooted() {
    local dir=$1 f rec part inmain tot bad=0
    for f in $(rank_files "$dir"); do
        rec=$(rel_stat "$dir/$f" samples.recorded)
        part=$(rel_stat "$dir/$f" samples.partial)
        inmain=$(rel_samples_in "$dir/$f" ./$prog main)
        tot=$(rel_samples_total "$dir/$f")
        echo "  $f: $rec samples, $part partial, $inmain of $tot under main"
        rel_ratio_ge $((rec - part)) "$rec" 0.95 || bad=1
        rel_ratio_ge "$inmain" "$tot" 0.90 || bad=1
    done
    return $bad
}

# ratio_in DIR LO HI: rank 0's samples in ring_work (its callee burn: ring_work
# tail-calls it, so it has no frame of its own) / the mean of ranks 1-3's, and
# whether it lies in [LO, HI].
ratio_in() {
    local dir=$1 lo=$2 hi=$3 f k=0 r0=0 rest=0 n r
    for f in $(rank_files "$dir"); do
        n=$(rel_samples_in "$dir/$f" ./$prog burn)
        if [ $k -eq 0 ]; then r0=$n; else rest=$((rest + n)); fi
        k=$((k + 1))
    done
    r=$(awk -v a="$r0" -v b="$rest" 'BEGIN { if (b > 0) printf "%.2f", 3 * a / b; else print "inf" }')
    echo "  rank 0: $r0 samples in burn (ring_work), ranks 1-3: $rest (ratio $r)"
    between "$r" "$lo" "$hi"
}

# suite NAME MPICC MPIRUN: the ring and imbalanced runs with one MPI implementation.
suite() {
    local m=$1 cc=$2 run=$3 r mpi burn n
    prog=mpi_ring_$m
    rel_build $prog $cc "-I$rel_dir/programs" mpi_ring.c
    rel_plain $m.ring $run -np 4 ./$prog 4 0.06
    check "$m: ring baseline exits 0" [ "$(cat $m.ring.rc)" -eq 0 ]
    rel_plain $m.imb $run -np 4 ./$prog 4 0.06 imbalance
    check "$m: imbalanced baseline exits 0" [ "$(cat $m.imb.rc)" -eq 0 ]
    rel_launcher=($run -np 4)
    for ((r = 1; r <= runs; r++)); do
        rel_prof $m.r$r $m.r$r.m ./$prog 4 0.06
        check "$m: ring run $r: no hang, output and exit status identical" rel_same $m.r$r $m.ring
        check "$m: ring run $r: 4 rank files in rank order, tagged rank and world size 4" tagged $m.r$r.m
        check "$m: ring run $r: complete walks, rooted at main" rooted $m.r$r.m
        check "$m: ring run $r: balanced ranks (ratio in [0.6, 1.5])" ratio_in $m.r$r.m 0.6 1.5

        rel_prof $m.i$r $m.i$r.m ./$prog 4 0.06 imbalance
        check "$m: imbalanced run $r: no hang, output and exit status identical" rel_same $m.i$r $m.imb
        check "$m: imbalanced run $r: 4 rank files in rank order, tagged rank and world size 4" tagged $m.i$r.m
        check "$m: imbalanced run $r: complete walks, rooted at main" rooted $m.i$r.m
        check "$m: imbalanced run $r: rank 0 does twice the work (ratio in [1.5, 2.7])" ratio_in $m.i$r.m 1.5 2.7
    done
    rel_launcher=()

    # Time inside MPI: under ring_pass, in the named MPI receive (MPI_Recv is a
    # weak alias of PMPI_Recv in Open MPI and MPICH: either name).  Measured in
    # wall-clock time (one more imbalanced run at REALTIME): ranks 1-3 wait there
    # for rank 0, and how much CPU time that wait burns depends on the library's
    # polling and on the machine's load (Open MPI on an idle 2-core VM: under 1 %
    # of the CPU time).
    rel_launcher=($run -np 4)
    REL_EVENT=REALTIME@1000 rel_prof $m.w $m.w.m ./$prog 4 0.06 imbalance
    rel_launcher=()
    check "$m: imbalanced REALTIME run: no hang, output and exit status identical" rel_same $m.w $m.imb
    if check "$m: database of the REALTIME run" rel_db $m.w.m $m.wdb; then
        check "$m: 4 ranks in the database ($(rel_summary $m.wdb processes) processes)" \
            [ "$(rel_summary $m.wdb processes)" -eq 4 ]
        mpi=$(awk -v a="$(rel_incl_within $m.wdb REALTIME MPI_Recv ring_pass)" \
            -v b="$(rel_incl_within $m.wdb REALTIME PMPI_Recv ring_pass)" 'BEGIN { print a + b }')
        burn=$(rel_incl_within $m.wdb REALTIME burn main)
        check "$m: wall-clock time in MPI_Recv under ring_pass ($mpi s) >= 10 % of that in burn ($burn s)" \
            rel_ratio_ge "$mpi" "$burn" 0.10
    fi

    # csrun outside the launcher: a one-line warning naming the right form, and the ranks are
    # still profiled (the launcher passes csrun's environment on).
    timeout -k 5 300 csrun -e "$REL_EVENT" -o $m.outside.m $run -np 2 ./$prog 2 0.05 \
        > $m.outside.out 2> $m.outside.err
    check "$m: csrun $run: exits 0" [ $? -eq 0 ]
    check "$m: csrun $run: warns with the right form" \
        grep -q "^csrun: warning: '$run' is an MPI launcher.*$run \[options\] csrun" $m.outside.err
    n=$(rank_files $m.outside.m | wc -l)
    check "$m: csrun $run: both ranks profiled ($n rank files)" [ "$n" -eq 2 ]
}

for impl in ${REL_MPI_IMPLS:-openmpi mpich}; do
    case $impl in
    openmpi) pkgs="openmpi-bin libopenmpi-dev" ;;
    mpich) pkgs="mpich libmpich-dev" ;;
    *)
        check "REL_MPI_IMPLS: '$impl' is one of openmpi mpich" false
        continue
        ;;
    esac
    if command -v mpicc.$impl > /dev/null && command -v mpirun.$impl > /dev/null; then
        suite $impl mpicc.$impl mpirun.$impl
    else
        rel_skip_part "$impl not installed (Debian: $pkgs): its suite cannot run"
    fi
done
finish
