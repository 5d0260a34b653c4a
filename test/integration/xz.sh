#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A real program nobody here wrote: Debian's xz compressing a generated 50+ MB
# file.  The compressed bytes are identical with and without csprof, and
# liblzma's functions are among the hottest procedures of the database.
. "$(dirname "$0")/lib.sh"
command -v xz > /dev/null || { echo "SKIP: xz is not installed"; exit 77; }
xz=$(command -v xz)
seq 1 9000000 | awk '{ print $1 * 7919 % 1000003, $1 }' > input
size=$(stat -c %s input)
check "input is at least 50 MB ($size bytes)" [ "$size" -ge 52428800 ]

"$xz" -1 -T1 -c input > plain.xz; plain_rc=$?
csrun -q -o m "$xz" -1 -T1 -c input > prof.xz; prof_rc=$?
check "exit status unchanged" [ "$plain_rc" -eq "$prof_rc" ]
check "compressed output identical" cmp -s plain.xz prof.xz
check "csprof-struct on the real binary" sh -c "csprof-struct '$xz' > xz.struct"
check "csprof-prof" sh -c 'csprof-prof -S xz.struct m -o db > summary.txt'
check "database validates" validate db
lz=$(xp db "string(//LoadModule[contains(@n,'liblzma')]/@i)")
check "liblzma is a load module of the run" [ -n "$lz" ]
in_lzma=0
for r in 1 2 3; do
    p=$(xp db "string(//TopProcedure[@rank='$r']/@p)")
    lm=$(xp db "string(//Procedure[@i='$p']/@lm)")
    [ -n "$p" ] && [ "$lm" = "$lz" ] && in_lzma=$((in_lzma + 1))
done
check "liblzma procedures among the 3 hottest ($in_lzma of 3)" [ "$in_lzma" -ge 2 ]
m=$(metric_id db CPUTIME exclusive)
total=$(xp db "string(//EventTotal[@event='CPUTIME']/@v)")
lzsum=$(xp db "sum(//PF[$(or_ids n $(xp db "//Procedure[@lm='$lz']/@i" | sed 's/ i="\([0-9]*\)"/\1 /g'))]/M[@n='$m']/@v)")
pct=$(awk -v a="$lzsum" -v t="$total" 'BEGIN { print (t > 0 ? 100 * a / t : 0) }')
check "most CPU time is in liblzma ($pct%)" between "$pct" 50 100
# Debian's xz is stripped, so its main has no name; check instead that walks reach the root.
rec=$(xp db "string(//Stat[@n='samples.recorded']/@v)"); part=$(xp db "string(//Stat[@n='samples.partial']/@v)")
check "at most 5% partial call paths ($part of $rec)" \
    awk -v p="$part" -v r="$rec" 'BEGIN { exit !(r > 0 && p <= 0.05 * r) }'
finish
