#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# run.sh -- csprof-prof merging in parallel (issue 11, "Scale"): the same
# measurement set merged serially (-j 1), by 2 threads (-j 2), and by 2 MPI
# processes (mpirun -np 2 csprof-prof-mpi -j 1); wall and CPU seconds, peak
# memory, the database's size, and a check that the three databases are
# identical byte for byte.
#
#   bench/prof_mpi/run.sh [BUILD_DIR] [RANKS] [THREADS] [PATHS_PER_THREAD] [REPS]
#
# Default 1024 ranks x 4 threads, written by bench/prof_scale's gen_scale
# with the lib/fmt writer: 150 call paths of 4 to 16 frames per thread
# through the real procedures of csprof-prof's own binary, drawn from a pool
# of 4000 shared by all ranks (an SPMD program).  The structure cache is a
# private directory warmed before the timed runs, so no run pays for the
# binary's analysis.  Peak memory is GNU time's maximum resident set: for
# mpirun it is the largest single process, not the sum over ranks.  On a
# shared machine wall time measures the other load too (see the load
# average printed with the table); CPU seconds are the steadier figure.
# "merge s" is the wall time of reading and merging the files alone (the
# part that runs in parallel; csprof-prof -v reports it), before the
# statistics and the database are computed and written on one thread.
# Each run is repeated REPS times (default 3); the table shows the smallest
# wall, merge and CPU seconds and the largest peak memory.
set -u
build=${1:-build}
ranks=${2:-1024}
threads=${3:-4}
paths=${4:-150}
reps=${5:-3}
prof=$build/bin/csprof-prof
pmpi=$build/bin/csprof-prof-mpi
gen=$build/bin/gen_scale
[ -x "$prof" ] && [ -x "$gen" ] || { echo "run.sh: build csprof-prof and gen_scale in $build first" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "run.sh: /usr/bin/time (GNU time) is not installed" >&2; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/m" "$tmp/cache"
export CSPROF_STRUCT_CACHE=$tmp/cache
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
nm -S --defined-only "$prof" >"$tmp/syms" || exit 1
"$gen" "$ranks" "$threads" "$tmp/syms" "$(readlink -f "$prof")" "$tmp/m" "$paths" || exit 1
nfiles=$(ls "$tmp/m" | wc -l)
msize=$(du -sh "$tmp/m" | cut -f1)
"$prof" -q -j 1 -o "$tmp/warm" "$tmp/m/r0000-t00.cspm" >/dev/null || exit 1 # fills the cache

# measure NAME CMD...: REPS timed runs into $tmp/db-NAME; appends a row to $tmp/rows.
measure() {
    name=$1
    shift
    : >"$tmp/all-$name"
    for rep in $(seq "$reps"); do
        rm -rf "$tmp/db-$name"
        /usr/bin/time -v -o "$tmp/time-$name" "$@" >/dev/null 2>"$tmp/err-$name" ||
            { echo "run.sh: $name failed:" >&2; cat "$tmp/err-$name" >&2; exit 1; }
        merge=$(sed -n 's/.*read and merged in \([0-9.]*\) s.*/\1/p' "$tmp/err-$name" | head -1)
        awk -v merge="${merge:-0}" '
            /Elapsed \(wall clock\)/ { n = split($NF, t, ":"); wall = (n == 3) ? t[1] * 3600 + t[2] * 60 + t[3] : t[1] * 60 + t[2] }
            /User time/ { user = $NF } /System time/ { sys = $NF }
            /Maximum resident set size/ { rss = $NF }
            END { print wall, user + sys, rss, merge }' "$tmp/time-$name" >>"$tmp/all-$name"
    done
    awk -v name="$name" -v db="$(du -sb "$tmp/db-$name" | cut -f1)" '
        NR == 1 || $1 < wall { wall = $1 } NR == 1 || $2 < cpu { cpu = $2 } $3 > rss { rss = $3 }
        NR == 1 || $4 < merge { merge = $4 }
        END { printf "%-22s %8.2f %8.2f %8.2f %10.1f %10.1f\n", name, wall, merge, cpu, rss / 1024, db / 1048576 }' \
        "$tmp/all-$name" >>"$tmp/rows"
}

: >"$tmp/rows"
measure serial "$prof" -q -v -j 1 -o "$tmp/db-serial" "$tmp/m"
measure threads-2 "$prof" -q -v -j 2 -o "$tmp/db-threads-2" "$tmp/m"
if [ -x "$pmpi" ] && command -v mpirun >/dev/null; then
    measure mpi-2 mpirun -np 2 --oversubscribe "$pmpi" -q -v -j 1 -o "$tmp/db-mpi-2" "$tmp/m"
else
    echo "run.sh: no csprof-prof-mpi or mpirun: MPI row skipped" >&2
fi
same=yes
for d in "$tmp"/db-*; do
    for f in experiment.xml thread-values.bin; do
        cmp -s "$tmp/db-serial/$f" "$d/$f" || { same=no; echo "run.sh: $d/$f differs from the serial run's" >&2; }
    done
done

echo "csprof-prof merge: $ranks ranks x $threads threads = $nfiles measurement files ($msize), $paths paths per thread"
echo "command: bench/prof_mpi/run.sh $build $ranks $threads $paths $reps (best of $reps runs each)"
printf "%-22s %8s %8s %8s %10s %10s\n" "run" "wall s" "merge s" "CPU s" "peak MB" "DB MB"
cat "$tmp/rows"
echo "databases identical byte for byte: $same"
echo "machine: $(nproc) CPUs; load average: $(cut -d' ' -f1-3 /proc/loadavg);" \
    "sched_autogroup_enabled: $(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null || echo '?')" \
    "(1: this session gets one share of the CPUs, whatever its number of threads)"
[ "$same" = yes ]
