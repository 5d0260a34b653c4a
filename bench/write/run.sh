#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Cost of writing profiles: thread churn and periodic checkpoints.
#
#   bench/write/run.sh [BUILD_DIR] [REPS] [CHURN_THREADS]   # defaults: build, 3, 5000
#
# 1. Thread churn: CHURN_THREADS short threads one after another (create,
#    about 1 ms of CPU work, join; test/reliability/programs/rel_fds_threads.c)
#    unprofiled and under `csrun` at the default rate.  Ratio of median wall
#    times, and what the measurement directory holds.
# 2. Checkpoints: examples/fig1 under `csrun -e CPUTIME@1000` with
#    CSPROF_FLUSH_MS=0 (never), 1000 (the default), 100 and 10, against the
#    unprofiled run.  Ratio of median wall times, checkpoints written.
# 3. Cost of one checkpoint: CPU time (user + system, /usr/bin/time) of fig1
#    with CSPROF_FLUSH_MS=1 minus CSPROF_FLUSH_MS=0, divided by the number of
#    checkpoints written (medians).
# Runs are interleaved (each repetition runs every variant once).  Prints a
# markdown table on stdout; progress on stderr.
set -u
build=$(cd "${1:-build}" && pwd) || exit 1
reps=${2:-3}
churn_n=${3:-5000}
src=$(cd "$(dirname "$0")/../.." && pwd)
bin=$build/bin
work=$(mktemp -d /tmp/csprof-bench-write.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

gcc -O2 -g -pthread -o churn "$src/test/reliability/programs/rel_fds_threads.c" || exit 1
fig1=$(find "$build" -type f -name fig1 -perm -u+x | head -1)
[ -n "$fig1" ] || { echo "examples/fig1 not built in $build" >&2; exit 1; }

# run TAG CMD...: append the wall time in seconds to TAG.times
run() {
    local tag=$1 t0 t1
    shift
    t0=$(date +%s.%N)
    "$@" > /dev/null 2>> "$tag.err" || echo "  $tag: exit $?" >&2
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", b - a }' >> "$tag.times"
}
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

for r in $(seq 1 "$reps"); do
    echo "repetition $r of $reps" >&2
    run churn_plain ./churn 0 "$churn_n" 1 1 0
    rm -rf mc && run churn_csrun "$bin/csrun" -q -o mc ./churn 0 "$churn_n" 1 1 0
    run fig1_plain "$fig1"
    for f in 0 1000 100 10; do
        rm -rf "mf$f"
        CSPROF_FLUSH_MS=$f run "fig1_flush$f" "$bin/csrun" -q -e CPUTIME@1000 -o "mf$f" "$fig1"
    done
    for f in 0 1; do
        rm -rf "mc$f"
        CSPROF_FLUSH_MS=$f /usr/bin/time -f "%U %S" -o cpu.tmp "$bin/csrun" -q -e CPUTIME@1000 \
            -o "mc$f" "$fig1" > /dev/null 2>&1
        awk '{ print $1 + $2 }' cpu.tmp >> "cpu_flush$f.times"
        "$bin/csprof-prof" --dump "mc$f"/*.cspm 2> /dev/null |
            awk '$2 == "name=\"checkpoints.written\"" { split($3, a, "="); s += a[2] } END { print s + 0 }' \
                >> "ck_flush$f.count"
    done
done

cp_plain=$(median churn_plain.times)
cp_prof=$(median churn_csrun.times)
files=$(find mc -type f | wc -l)
kib=$(du -sk mc | awk '{ print $1 }')
threads=$("$bin/csprof-prof" -o dbc mc 2> /dev/null | awk '/^threads:/ { print $2 }')
echo "## Thread churn ($churn_n threads: create, ~1 ms CPU, join; median of $reps)"
echo
echo "| variant | wall s | ratio | files | KiB | threads in profile |"
echo "|---|---|---|---|---|---|"
echo "| unprofiled | $cp_plain | 1.00 | | | |"
echo "| csrun (default rate) | $cp_prof | $(ratio "$cp_prof" "$cp_plain") | $files | $kib | $threads |"
echo
f_plain=$(median fig1_plain.times)
echo "## Checkpoints (examples/fig1, CPUTIME@1000; median of $reps)"
echo
echo "| CSPROF_FLUSH_MS | wall s | ratio to unprofiled | ratio to no checkpoints | checkpoints | file bytes |"
echo "|---|---|---|---|---|---|"
echo "| unprofiled | $f_plain | 1.00 | | | |"
f0=$(median fig1_flush0.times)
for f in 0 1000 100 10; do
    t=$(median "fig1_flush$f.times")
    ck=$("$bin/csprof-prof" --dump "mf$f"/*.cspm 2> /dev/null |
        awk '$2 == "name=\"checkpoints.written\"" { split($3, a, "="); s += a[2] } END { print s + 0 }')
    bytes=$(stat -c %s "mf$f"/*.cspm | awk '{ s += $1 } END { print s }')
    echo "| $f | $t | $(ratio "$t" "$f_plain") | $(ratio "$t" "$f0") | $ck | $bytes |"
done
echo
c0=$(median cpu_flush0.times)
c1=$(median cpu_flush1.times)
k1=$(median ck_flush1.count)
echo "## Cost of one checkpoint (examples/fig1, CPUTIME@1000; median of $reps)"
echo
echo "CPU time with CSPROF_FLUSH_MS=0: $c0 s; with CSPROF_FLUSH_MS=1: $c1 s, $k1 checkpoints:" \
    "$(awk -v a="$c0" -v b="$c1" -v k="$k1" 'BEGIN { printf "%.1f", (k > 0 ? (b - a) / k * 1e6 : 0) }') µs per checkpoint."
