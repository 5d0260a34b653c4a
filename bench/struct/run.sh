#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# run.sh -- CPU time and peak memory of csprof-struct against `objdump -d`
# on the same large binaries nobody here wrote, in the same run, as a ratio
# (issue 12, item 5: "no slower than objdump -d"); then csprof-prof on a
# real gcc run with and without the structure file of cc1 (-S) and with a
# warm structure cache, as ratios against the run without either.
#
#   bench/struct/run.sh [CSPROF_STRUCT] [BINARY...]
#
# CSPROF_STRUCT defaults to build/bin/csprof-struct (csrun and csprof-prof
# are taken from the same directory).  Default binaries: Debian's cc1
# (stripped: procedures from .eh_frame), libpython 3.11 built -O3 -g by
# pyenv when $PYENV_ROOT (default ~/.pyenv) has one, Debian's debug build
# of libpython (package libpython3.11-dbg: -Og, full DWARF), glibc with
# libc6-dbg's separate debug file, and libasan (shipped with full DWARF).
#
# Ratios are of CPU time (user + system, as GNU time reports them), not of
# wall time: on a shared machine (this VM: 2 cores, often 8 jobs) wall time
# mostly measures the other jobs.  The wall-time ratio is printed too
# (csprof-struct uses all cores by default, objdump one): read it only from
# a run on an otherwise idle machine.  Each command runs REPEAT times (default
# 3); the least CPU time and the largest peak RSS are reported.  Output
# goes to /dev/null.  Environment: PROF=0 skips the csprof-prof part;
# FUNCS (default 1000) sets the size of the generated C file gcc compiles.
# Needs GNU time (/usr/bin/time), binutils, gcc and awk.
set -u

struct=${1:-build/bin/csprof-struct}
[ $# -gt 0 ] && shift
bins=("$@")
if [ ${#bins[@]} -eq 0 ]; then
    pyenv_lib=$(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.11*/lib/libpython3.11.so.1.0 \
        2>/dev/null | tail -n 1)
    bins=(/usr/lib/gcc/x86_64-linux-gnu/12/cc1 ${pyenv_lib:+"$pyenv_lib"}
        /usr/lib/x86_64-linux-gnu/libpython3.11d.so.1.0 /lib/x86_64-linux-gnu/libc.so.6
        /usr/lib/x86_64-linux-gnu/libasan.so.8.0.0)
fi
repeat=${REPEAT:-3}
bindir=$(dirname "$struct")
[ -x "$struct" ] || { echo "run.sh: $struct: not an executable (build csprof-struct first)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "run.sh: /usr/bin/time (GNU time) is not installed" >&2; exit 1; }

# measure CMD...: prints "cpu_seconds wall_seconds max_kb": the least CPU
# time (user + sys) and wall time and the largest RSS over $repeat runs.
measure() {
    local cpu="" wall="" maxkb=0 t u s e kb c
    t=$(mktemp) || exit 1
    for _ in $(seq "$repeat"); do
        /usr/bin/time -o "$t" -f "%U %S %e %M" "$@" >/dev/null 2>/dev/null
        read -r u s e kb < <(tail -n 1 "$t")
        c=$(awk -v a="$u" -v b="$s" 'BEGIN { printf "%.2f", a + b }')
        if [ -z "$cpu" ] || awk -v a="$c" -v b="$cpu" 'BEGIN { exit !(a < b) }'; then cpu=$c; fi
        if [ -z "$wall" ] || awk -v a="$e" -v b="$wall" 'BEGIN { exit !(a < b) }'; then wall=$e; fi
        [ "$kb" -gt "$maxkb" ] && maxkb=$kb
    done
    rm -f "$t"
    echo "$cpu $wall $maxkb"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }

echo "csprof-struct against objdump -d (CPU s = user + sys, least of $repeat; MB = peak RSS)"
printf '%-26s %8s %8s %6s %10s %8s %6s %10s %10s\n' binary "struct" "wall" "MB" "objdump" "wall" "MB" "cpu ratio" "wall ratio"
for b in "${bins[@]}"; do
    [ -r "$b" ] || { echo "$b: missing, skipped"; continue; }
    read -r sc sw sk < <(measure "$struct" -o /dev/null "$b")
    read -r oc ow ok < <(measure objdump -d "$b")
    printf '%-26s %8s %8s %6d %10s %8s %6d %10s %10s\n' "$(basename "$b")" "$sc" "$sw" $((sk / 1024)) \
        "$oc" "$ow" $((ok / 1024)) "$(ratio "$sc" "$oc")" "$(ratio "$sw" "$ow")"
done
echo "cpu ratio = csprof-struct CPU time / objdump -d CPU time (below 1: cheaper); wall ratio the same" \
    "for wall time (least of $repeat each; csprof-struct -j default uses all $(nproc) cores)"

[ "${PROF:-1}" = 0 ] && exit 0
csrun=$bindir/csrun
prof=$bindir/csprof-prof
cc1=$(gcc -print-prog-name=cc1)
for x in "$csrun" "$prof"; do
    [ -x "$x" ] || { echo "run.sh: $x: not built; csprof-prof part skipped"; exit 0; }
done
[ -x "$cc1" ] || { echo "run.sh: gcc's cc1 not found; csprof-prof part skipped"; exit 0; }
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
# A C file of FUNCS functions with loop nests, calls and switches: gcc -O2
# spends seconds in cc1 on it, across most of its passes.
awk -v n="${FUNCS:-1000}" 'BEGIN {
    print "#include <string.h>"
    for (i = 0; i < n; i++) {
        printf "double f%d(double *a, int n, int m) {\n  double s = 0;\n", i
        printf "  for (int i = 0; i < n; i++) {\n    for (int j = 0; j < m; j++)\n"
        printf "      s += a[i * m + j] * %d.5 + (i ^ j) * %d;\n", i % 97, i
        printf "    if (s > %d) s = s / 2 + f%d(a, n / 2, m);\n  }\n", (i * 37) % 1000 + 1, (i > 0 ? i - 1 : 0)
        printf "  switch (n & 7) { case 0: s += 1; break; case 1: s *= 3; break;\n"
        printf "  case 2: s -= %d; break; default: s += strlen((char *)a); }\n  return s;\n}\n", i
    }
}' >"$work/big.c"
if ! "$csrun" -q -e CPUTIME@1000 -o "$work/meas" gcc -O2 -c "$work/big.c" -o "$work/big.o"; then
    echo "run.sh: csrun gcc failed; csprof-prof part skipped"
    exit 0
fi
"$struct" -o "$work/cc1.struct" "$cc1" 2>/dev/null
echo
echo "csprof-prof on csrun of gcc -O2 -c (${FUNCS:-1000} functions): $(du -h "$work/cc1.struct" | cut -f1) structure file of cc1"
printf '%-34s %8s %8s %6s %10s\n' "csprof-prof" "CPU s" "wall" "MB" "cpu ratio"
read -r nc nw nk < <(CSPROF_STRUCT_CACHE=off measure "$prof" -f -o "$work/db" "$work/meas")
printf '%-34s %8s %8s %6d %10s\n' "analyze every module (no -S)" "$nc" "$nw" $((nk / 1024)) 1.00
read -r c w k < <(CSPROF_STRUCT_CACHE=off measure "$prof" -f -S "$work/cc1.struct" -o "$work/db" "$work/meas")
printf '%-34s %8s %8s %6d %10s\n' "-S cc1.struct" "$c" "$w" $((k / 1024)) "$(ratio "$c" "$nc")"
CSPROF_STRUCT_CACHE=$work/cache "$prof" -f -o "$work/db" "$work/meas" >/dev/null 2>&1
read -r c w k < <(CSPROF_STRUCT_CACHE=$work/cache measure "$prof" -f -o "$work/db" "$work/meas")
printf '%-34s %8s %8s %6d %10s\n' "warm structure cache (no -S)" "$c" "$w" $((k / 1024)) "$(ratio "$c" "$nc")"
echo "cpu ratio = CPU time / CPU time without -S and without cache (below 1: cheaper)"
