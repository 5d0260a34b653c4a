#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Trampoline benchmark: per-sample cost and overhead against stack depth, with
# and without the trampoline, and overhead on call-intensive programs.
#   bench/trampoline/run.sh [BUILD_DIR] [REPS]
# Per-sample cost = (CPU time profiled - CPU time unprofiled) / samples, in
# microseconds, from the median of REPS interleaved runs.  Overhead = median
# of per-repetition CPU-time ratios.  CPU time is user+system of the program
# (csrun's own time is not included: it only waits).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../../build}" && pwd)
reps=${2:-3}
bin=$build/bin
work=$(mktemp -d /tmp/csprof-bench-tramp.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"
gcc -O2 -g -o deep "$here/deep.c"
g++ -O2 -g -o sort "$here/sort.cc"

cpu() { # cpu CMD...: user+sys seconds of the command (and its children)
    /usr/bin/time -f '%U %S' -o t.txt "$@" > /dev/null 2> /dev/null
    awk '{ print $1 + $2 }' t.txt
}
samples() { # samples DIR: samples recorded in the profiles there
    "$bin/csprof-prof" --dump "$1"/*.cspm | awk -F'value=' '/stat name="samples.recorded"/ { s += $2 } END { print s + 0 }'
}
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

measure() { # measure LABEL CMD...: prints LABEL, overhead and per-sample cost for both modes
    local label=$1; shift
    local r base t_on t_off s_on s_off
    : > base.txt; : > on.txt; : > off.txt; : > son.txt; : > soff.txt
    for r in $(seq "$reps"); do
        base=$(cpu "$@")
        rm -rf m_on m_off
        t_on=$(cpu "$bin/csrun" -q -e CPUTIME@1000 -o m_on "$@")
        t_off=$(cpu "$bin/csrun" -q --no-trampoline -e CPUTIME@1000 -o m_off "$@")
        s_on=$(samples m_on); s_off=$(samples m_off)
        echo "$base" >> base.txt
        awk -v t="$t_on" -v b="$base" -v s="$s_on" 'BEGIN { print t / b, (t - b) / s * 1e6 }' >> on.txt
        awk -v t="$t_off" -v b="$base" -v s="$s_off" 'BEGIN { print t / b, (t - b) / s * 1e6 }' >> off.txt
    done
    printf '| %s | %.2f s | %+.1f %% | %.1f µs | %+.1f %% | %.1f µs |\n' "$label" \
        "$(median < base.txt)" \
        "$(cut -d' ' -f1 on.txt | median | awk '{ print ($1 - 1) * 100 }')" \
        "$(cut -d' ' -f2 on.txt | median)" \
        "$(cut -d' ' -f1 off.txt | median | awk '{ print ($1 - 1) * 100 }')" \
        "$(cut -d' ' -f2 off.txt | median)"
}

echo "csprof trampoline benchmark: $(date -u +%F), $(nproc) cores, $(uname -r), CPUTIME@1000, $reps reps (medians)"
echo
echo "| program | unprofiled CPU | overhead, trampoline | per sample, trampoline | overhead, full walks | per sample, full walks |"
echo "|---|---|---|---|---|---|"
for d in 10 100 1000 10000; do
    measure "recursion depth $d, call-intensive top" ./deep "$d" 15000000
done
measure "Figure 1 ([csprof 2005]), -O2" "$build/examples/fig1"
measure "std::sort of 30 M ints" ./sort 30000000
