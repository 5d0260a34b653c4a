#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# run.sh -- csprof-prof at scale (issue 8): the time and peak memory to
# write a database from PROCS x THREADS thread profiles (default 1000 x 10).
#
#   bench/prof_scale/run.sh [BUILD_DIR] [PROCS] [THREADS] [PATHS_PER_THREAD]
#
# gen_scale writes the measurement files with the lib/fmt writer: call paths
# through the real procedures of csprof-prof's own binary (so addresses go
# through lib/structure), 150 distinct paths of 4 to 16 frames per thread
# drawn from a shared pool of 4000, as the ranks of an SPMD program share
# their code.  csprof-prof then merges them (-q: no summary); GNU time
# reports wall, user and system seconds and the peak RSS.  Report CPU
# seconds next to wall seconds: on a shared VM the wall time mostly measures
# the other load (see `uptime`).  There is no `perf report` equivalent for
# synthetic files, so no ratio is given.  Needs /usr/bin/time and nm.
set -u
build=${1:-build}
procs=${2:-1000}
threads=${3:-10}
paths=${4:-150}
prof=$build/bin/csprof-prof
gen=$build/bin/gen_scale
[ -x "$prof" ] && [ -x "$gen" ] || { echo "run.sh: build csprof-prof and gen_scale in $build first" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "run.sh: /usr/bin/time (GNU time) is not installed" >&2; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/m"
nm -S --defined-only "$prof" >"$tmp/syms" || exit 1
"$gen" "$procs" "$threads" "$tmp/syms" "$(readlink -f "$prof")" "$tmp/m" "$paths" || exit 1
echo "measurement files: $(ls "$tmp/m" | wc -l), $(du -sh "$tmp/m" | cut -f1)"
/usr/bin/time -f "csprof-prof: %e s wall, %U s user, %S s system, peak RSS %M KB" \
    "$prof" -q -o "$tmp/db" "$tmp/m" >/dev/null || exit 1
ls -l "$tmp/db" | awk 'NR > 1 { printf "  %-20s %12d bytes\n", $9, $5 }'
echo "load: $(uptime)"
