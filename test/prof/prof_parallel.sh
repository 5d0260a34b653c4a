#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# prof_parallel.sh -- csprof-prof -j N and csprof-prof-mpi write the serial
# run's database byte for byte (issue 11, "Scale").
#
# Usage: prof_parallel.sh threads|mpi   with the environment
#   PROF       csprof-prof           GEN_SCALE  bench/prof_scale's generator
#   PROF_MPI   csprof-prof-mpi ("" when MPI was not found at build time)
#   MPIEXEC    mpirun or mpiexec ("" when absent)      WORK  scratch directory
# The measurement set: 8 processes x 3 threads written by gen_scale through
# the real structure of csprof-prof's binary (procedures, loops, inlined
# code), plus a file holding two thread records, a corrupt file and an empty
# one, given twice as two runs kept apart (--runs separate), so events,
# load modules, skipped files, extra records and messages all cross the
# parts.  Every database (experiment.xml, thread-values.bin), the messages
# and the summary must equal the serial run's.  Exit 0 pass, 1 fail, 77
# skipped (mpi without MPI).
set -u
mode=${1:-threads}
W=$WORK/parallel-$mode
. "$(dirname "$0")/../harness.sh"
fail() { bad "$@"; }

if [ "$mode" = mpi ] && { [ -z "${PROF_MPI:-}" ] || [ -z "${MPIEXEC:-}" ]; }; then
    skip "csprof-prof-mpi or mpirun was not found at build time (install libopenmpi-dev)"
fi
command -v nm >/dev/null || skip "nm (binutils) is not installed"
rm -rf "$W"
mkdir -p "$W/m" || exit 1
nm -S --defined-only "$PROF" >"$W/syms" || exit 1
"$GEN_SCALE" 8 3 "$W/syms" "$(readlink -f "$PROF")" "$W/m" 40 || exit 1
# Every run reads the binary's structure from one private cache entry, made
# here: the runs compare merging, not separate analyses of the binary.
export CSPROF_STRUCT_CACHE=$W/cache
"$PROF" -q -j 1 -o "$W/warm" "$W/m/r0000-t00.cspm" >/dev/null || { echo "FAIL: warm-up run"; exit 1; }
# Two records in one file: the second record starts at the next multiple of 8.
a=$W/m/r0003-t01.cspm
pad=$(( (8 - $(wc -c <"$a") % 8) % 8 ))
{ cat "$a"; head -c "$pad" /dev/zero; cat "$W/m/r0005-t02.cspm"; } >"$W/m/two-records.cspm"
printf 'not a measurement' >"$W/m/bad.cspm"
: >"$W/m/empty.cspm"

# run NAME CMD...: keep stdout (without its first line, the database path), stderr, status.
run() {
    name=$1
    shift
    "$@" >"$W/$name.out.raw" 2>"$W/$name.err"
    echo $? >"$W/$name.rc"
    tail -n +2 "$W/$name.out.raw" >"$W/$name.out"
}

# same NAME: database, messages and summary of run NAME equal the serial run's.
same() {
    [ "$(cat "$W/$1.rc")" = 0 ] || { fail "$1: exit status $(cat "$W/$1.rc")"; cat "$W/$1.err"; return; }
    for f in experiment.xml thread-values.bin; do
        cmp "$W/serial/$f" "$W/$1/$f" || fail "$1: $f differs from the serial run's"
    done
    cmp "$W/serial.err" "$W/$1.err" || fail "$1: messages differ from the serial run's"
    cmp "$W/serial.out" "$W/$1.out" || fail "$1: summary differs from the serial run's"
    pass
}

run serial "$PROF" -j 1 --runs separate --summary full -o "$W/serial" "$W/m" "$W/m"
[ "$(cat "$W/serial.rc")" = 0 ] || { cat "$W/serial.err"; die "serial run"; }
# The set is what the test needs: 2 runs x (24 files + 1 of two records) read, 4 skipped.
grep -q "^measurement files: 50 read, 4 skipped" "$W/serial.out" || fail "serial: files read/skipped"
grep -q "^threads: 24$" "$W/serial.out" || fail "serial: 24 threads expected"
# 2 x 27 files, the second record of two-records.cspm is an Input of its own
[ "$(grep -c '<Input .*status="read"' "$W/serial/experiment.xml")" = 52 ] ||
    fail "serial: 52 thread records read expected"
[ "$(grep -c 'file skipped' "$W/serial.err")" = 4 ] || fail "serial: 4 'file skipped' messages"

if [ "$mode" = threads ]; then
    for j in 2 3 7; do
        run j$j "$PROF" -j "$j" --runs separate --summary full -o "$W/j$j" "$W/m" "$W/m"
        same j$j
    done
else
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 # CI containers run as root
    # Under the asan-ubsan preset, no leak check of the MPI runs: Open MPI keeps allocations to
    # the end from components it has unloaded, which LeakSanitizer cannot attribute.  The merge
    # code they run is the serial path's, leak-checked by prof_parallel_threads.
    export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
    for np in 2 3; do # 3 ranks merge their parts with 2 threads each
        run np$np timeout 120 "$MPIEXEC" -np "$np" --oversubscribe "$PROF_MPI" -j $((np - 1)) --runs separate --summary full \
            -o "$W/np$np" "$W/m" "$W/m"
        same np$np
    done
fi
finish
