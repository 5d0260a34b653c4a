#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# run.sh -- time and peak memory of csprof-struct against `objdump -d` on
# the same large binaries nobody here wrote, in the same run, as a ratio
# (issue 4, item 10: "no slower than objdump -d").
#
#   bench/struct/run.sh [CSPROF_STRUCT] [BINARY...]
#
# CSPROF_STRUCT defaults to build/bin/csprof-struct; the default binaries
# are Debian's cc1 (33 MB, stripped: CFGs and loops from .eh_frame
# procedures) and libasan.so.8 (8 MB, shipped with full DWARF: inlined
# code, statements and loops).  Each tool runs REPEAT times (default 3);
# the best wall time and the largest peak RSS are reported.  Output goes
# to /dev/null for both tools.  Needs GNU time (/usr/bin/time) and binutils.
set -u

struct=${1:-build/bin/csprof-struct}
[ $# -gt 0 ] && shift
bins=("$@")
if [ ${#bins[@]} -eq 0 ]; then
    bins=(/usr/lib/gcc/x86_64-linux-gnu/12/cc1 /usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0
        /usr/lib/x86_64-linux-gnu/libasan.so.8.0.0 /lib/x86_64-linux-gnu/libc.so.6)
fi
repeat=${REPEAT:-3}
[ -x "$struct" ] || { echo "run.sh: $struct: not an executable (build csprof-struct first)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "run.sh: /usr/bin/time (GNU time) is not installed" >&2; exit 1; }

# measure CMD...: prints "best_seconds max_kb" over $repeat runs.
measure() {
    local best="" maxkb=0 out s kb t
    t=$(mktemp) || exit 1
    for _ in $(seq "$repeat"); do
        /usr/bin/time -o "$t" -f "%e %M" "$@" >/dev/null 2>/dev/null
        out=$(tail -n 1 "$t")
        s=${out% *}
        kb=${out#* }
        if [ -z "$best" ] || awk -v a="$s" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$s; fi
        [ "$kb" -gt "$maxkb" ] && maxkb=$kb
    done
    rm -f "$t"
    echo "$best $maxkb"
}

printf '%-28s %9s %10s %9s %10s %7s\n' binary "struct s" "struct MB" "objdump s" "objdump MB" ratio
for b in "${bins[@]}"; do
    [ -r "$b" ] || { echo "$b: missing, skipped"; continue; }
    read -r ss sk < <(measure "$struct" -o /dev/null "$b")
    read -r os ok < <(measure objdump -d "$b")
    printf '%-28s %9s %10d %9s %10d %7s\n' "$(basename "$b")" "$ss" $((sk / 1024)) "$os" \
        $((ok / 1024)) "$(awk -v a="$ss" -v b="$os" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')"
done
echo "ratio = csprof-struct time / objdump -d time (below 1: faster); $(nproc) cores, csprof-struct -j default"
