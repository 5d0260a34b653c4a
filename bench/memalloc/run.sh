#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Overhead of the allocation sources (MEMALLOC, MEMLEAK) on a real
# allocation-heavy program, against gperftools' heap profiler.
#
#   bench/memalloc/run.sh [BUILD_DIR] [REPS] [N]   # defaults: build, 3, 20000
#
# Program: Debian's /usr/bin/python3 running alloc_heavy.py N (JSON round
# trips of N records; about 0.65 GB allocated through malloc for the default
# N), twice: as it is (small objects come from pymalloc's arenas, only large
# ones from malloc), and with PYTHONMALLOC=malloc (every object from malloc:
# tens of millions of calls, the worst case for a per-call cost).
# Variants, interleaved (each repetition runs every variant once):
#   plain          the program alone
#   memalloc       csrun -e MEMALLOC            (one sample per 512 KiB, the default)
#   memalloc64k    csrun -e MEMALLOC@65536      (8 x more samples)
#   memleak        csrun -e MEMALLOC -e MEMLEAK
#   memalloc+cpu   csrun -e MEMALLOC -e CPUTIME@1000
#   tcmalloc       LD_PRELOAD=libtcmalloc.so    (gperftools' allocator, no profile)
#   heapprofile    LD_PRELOAD=libtcmalloc.so HEAPPROFILE=...  (gperftools' heap profiler,
#                  which records every allocation's stack; with PYTHONMALLOC=malloc it
#                  takes over 100 x longer, so there it runs in the first repetition only,
#                  under a CPU-time limit of HEAP_CPU_LIMIT seconds, default 240)
# Cost is CPU time (user + system, /usr/bin/time) of the whole command, median over
# REPS, as a ratio to plain (and heapprofile also to tcmalloc, its own allocator):
# on a shared VM CPU time is steadier than wall time.  Also prints csprof's samples
# and its MEMALLOC total.  Markdown on stdout, progress on stderr.
set -u
build=$(cd "${1:-build}" && pwd) || exit 1
reps=${2:-3}
n=${3:-20000}
here=$(cd "$(dirname "$0")" && pwd)
bin=$build/bin
py=/usr/bin/python3
tcm=$(ls /usr/lib/*/libtcmalloc.so.4 2> /dev/null | head -1)
[ -x "$py" ] || { echo "no $py (apt-get install python3)" >&2; exit 1; }
[ -n "$tcm" ] || { echo "no libtcmalloc.so.4 (apt-get install libgoogle-perftools4)" >&2; exit 1; }
work=$(mktemp -d /tmp/csprof-bench-memalloc.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
script=$here/alloc_heavy.py

# cpu TAG CMD...: append the CPU seconds (user + system) of CMD to TAG.times
cpu() {
    local tag=$1
    shift
    if ! /usr/bin/time -f "%U %S" -o cpu.tmp "$@" > "$tag.out" 2>> "$tag.err"; then
        echo "  $tag: did not finish" >&2
        touch "$tag.unfinished"
    fi
    tail -n 1 cpu.tmp | awk '{ print $1 + $2 }' >> "$tag.times" # after "Command terminated..."
}
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

variants="plain memalloc memalloc64k memleak memalloc+cpu tcmalloc heapprofile"
programs="pymalloc malloc"
# one PROGRAM VARIANT: run the variant of the program once.
one() {
    local p=$1 v=$2 tag=$1.$2 pm=""
    [ "$p" = malloc ] && pm=malloc
    rm -rf "$tag.m" hp.*
    case $v in
    plain) cpu "$tag" env ${pm:+PYTHONMALLOC=$pm} "$py" "$script" "$n" ;;
    memalloc) cpu "$tag" env ${pm:+PYTHONMALLOC=$pm} "$bin/csrun" -q -e MEMALLOC -o "$tag.m" "$py" "$script" "$n" ;;
    memalloc64k) cpu "$tag" env ${pm:+PYTHONMALLOC=$pm} "$bin/csrun" -q -e MEMALLOC@65536 -o "$tag.m" "$py" "$script" "$n" ;;
    memleak) cpu "$tag" env ${pm:+PYTHONMALLOC=$pm} "$bin/csrun" -q -e MEMALLOC -e MEMLEAK -o "$tag.m" "$py" "$script" "$n" ;;
    memalloc+cpu) cpu "$tag" env ${pm:+PYTHONMALLOC=$pm} "$bin/csrun" -q -e MEMALLOC -e CPUTIME@1000 -o "$tag.m" "$py" "$script" "$n" ;;
    tcmalloc) cpu "$tag" env ${pm:+PYTHONMALLOC=$pm} LD_PRELOAD="$tcm" "$py" "$script" "$n" ;;
    heapprofile)
        cpu "$tag" bash -c 'ulimit -t "$0" && exec "$@"' "${HEAP_CPU_LIMIT:-240}" \
            env ${pm:+PYTHONMALLOC=$pm} LD_PRELOAD="$tcm" HEAPPROFILE="$work/hp" "$py" "$script" "$n"
        ;;
    esac
}
for r in $(seq 1 "$reps"); do
    echo "repetition $r of $reps" >&2
    for p in $programs; do
        for v in $variants; do
            [ "$p.$v" = malloc.heapprofile ] && [ "$r" -gt 1 ] && continue
            one "$p" "$v"
        done
    done
done

total() { # DIR EVENT: the event's total over DIR's profiles, and the samples
    rm -rf "$1.db"
    "$bin/csprof-prof" -o "$1.db" "$1" 2> /dev/null |
        awk -v e="$2" '$1 == "event" && $2 == e ":" { t = $3 } $1 == "samples:" { s = $2 }
            END { printf "%.0f MB in %s samples", t / 1e6, s }'
}

echo "| program | variant | CPU s (median of $reps; heapprofile under PYTHONMALLOC=malloc: 1 run) | ratio to plain | note |"
echo "|---|---|---|---|---|"
for p in $programs; do
    base=$(median "$p.plain.times")
    for v in $variants; do
        [ -e "$p.$v.unfinished" ] || cmp -s "$p.plain.out" "$p.$v.out" || echo "  $p $v: output differs from plain" >&2
        m=$(median "$p.$v.times")
        note=""
        case $v in
        memalloc | memalloc64k) note="MEMALLOC $(total "$p.$v.m" MEMALLOC) (last run)" ;;
        heapprofile) note="$(ratio "$m" "$(median "$p.tcmalloc.times")") x tcmalloc alone" ;;
        esac
        [ -e "$p.$v.unfinished" ] && note="did not finish: stopped at the CPU limit; $note"
        label=python3
        [ "$p" = malloc ] && label="PYTHONMALLOC=malloc python3"
        echo "| $label | $v | $m | $(ratio "$m" "$base") | $note |"
    done
done
echo
echo "python3 $(basename "$script") $n, $(nproc) CPUs, $(uname -r)"
