#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench/sample/run.sh [BUILD_DIR] [REPS] [OLD_LIBCSPROF]
# The CPU cost of one CPUTIME sample at 1 kHz (perf task-clock), by parts.
# Runs examples/fig1 (a shallow call chain, ~2.5 CPU-seconds) unprofiled, under
# floor.so (the same overflow signal with an empty handler), and under csrun
# CPUTIME@1000 with the per-sample system calls of the perf source put back one
# at a time (CSPROF_PERF_REFRESH=1: a re-arm ioctl per sample; CSPROF_PERF_RING=0:
# read(2) of the count per sample), and, if OLD_LIBCSPROF is given, with another
# libcsprof.so (e.g. one built from an older commit).  Per sample:
# (CPU time - unprofiled CPU time) / samples, median over REPS; "above floor"
# subtracts floor.so's cost per signal.  CPU time is user+sys of the whole command,
# noisy on a shared VM (a few % of a 2.5 s run is tens of µs per sample); the last
# column is the handler's own time from its entry to its return, as the monitor times it
# (one signal in 16, by the thread's task clock: handler.timed_cpu_ns over handler.timed)
# -- the cost above the kernel's delivery floor.
set -u
build=$(cd "${1:-build}" && pwd); reps=${2:-3}; old=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cc -O2 -shared -fPIC -o "$tmp/floor.so" "$here/floor.c" || exit 1
app=$build/examples/fig1
cpu() { /usr/bin/time -f '%U %S' -o "$tmp/t" "$@" > /dev/null 2>> "$tmp/err"; awk '{ print $1 + $2 }' "$tmp/t"; }
samples() { "$build/bin/csprof-prof" "$1" -o "$tmp/db" 2>&1 | awk '$1 == "samples:" { print $2 }'; rm -rf "$tmp/db"; }
declare -A cost handler
variants="floor csrun csrun_refresh1 csrun_read csrun_read_refresh1${old:+ old}"
for r in $(seq "$reps"); do
    base=$(cpu "$app")
    t=$(FLOOR_HZ=1000 cpu env LD_PRELOAD="$tmp/floor.so" "$app")
    n=$(tail -1 "$tmp/err" | awk '{ print $2 }')
    cost[floor]+="$(awk -v t="$t" -v b="$base" -v n="$n" 'BEGIN { printf "%.2f", (t - b) / n * 1e6 }') "
    for v in csrun csrun_refresh1 csrun_read csrun_read_refresh1 ${old:+old}; do
        env=(CSPROF_CPUTIME_MECHANISM=perf)
        case $v in
        csrun_refresh1) env+=(CSPROF_PERF_REFRESH=1) ;;
        csrun_read) env+=(CSPROF_PERF_RING=0) ;;
        csrun_read_refresh1) env+=(CSPROF_PERF_RING=0 CSPROF_PERF_REFRESH=1) ;;
        old) env+=(CSPROF_LIB="$old") ;;
        esac
        rm -rf "$tmp/m"
        : > "$tmp/err"
        t=$(cpu env "${env[@]}" "$build/bin/csrun" -e CPUTIME@1000 -o "$tmp/m" "$app")
        n=$(samples "$tmp/m")
        # the handler's own time per timed signal (handler.timed_cpu_ns over handler.timed,
        # summed over the threads' records: the trust report's per-signal figure)
        handler[$v]+="$("$build/bin/csprof-prof" --dump "$tmp"/m/*.cspm 2> /dev/null |
            awk -F'[ =]' '$3 == "\"handler.timed\"" { n += $5 } $3 == "\"handler.timed_cpu_ns\"" { t += $5 }
                END { if (n > 0) printf "%.2f", t / n / 1000 }') "
        cost[$v]+="$(awk -v t="$t" -v b="$base" -v n="${n:-0}" 'BEGIN { printf "%.2f", (n > 0 ? (t - b) / n * 1e6 : 0) }') "
    done
    echo "rep $r done (unprofiled $base s)" >&2
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
floor=$(echo "${cost[floor]}" | median)
echo "| variant | CPU µs per sample, median of $reps (runs) | above floor | µs in csprof's handler, median (runs) |"
echo "|---|---|---|---|"
for v in $variants; do
    m=$(echo "${cost[$v]}" | median)
    h=$(echo "${handler[$v]:-}" | median)
    echo "| $v | $m (${cost[$v]% }) | $(awk -v m="$m" -v f="$floor" 'BEGIN { printf "%.2f", m - f }') | ${h:-} (${handler[$v]:-}) |"
done
