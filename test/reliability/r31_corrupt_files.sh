#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 31: truncated and corrupt measurement files.  A real profile of the
# row 1 program is truncated at every offset of its first 64 bytes and at
# REL_MUTATIONS (default 60) pseudo-random offsets, and copied with
# REL_MUTATIONS random single-byte changes (seeded: REL_SEED, default 31,
# so a failure can be replayed).  For every mutant, csprof-prof --dump (the
# reader) and, for every 10th, a full merge never crash or hang (20 s each):
# it exits 0 -- and a database then validates -- or exits 1 with an error
# line naming the file and a byte offset.  The fuzzer that runs for minutes
# is test/structure/struct_fuzz (structure files); stress.sh raises
# REL_MUTATIONS for this one.
. "$(dirname "$0")/lib.sh"
muts=${REL_MUTATIONS:-60}
RANDOM=${REL_SEED:-31}
export CSPROF_DEBUG_DIR=$work/nodbg # libc without its debug file: faster merges, same code paths

rel_build serial gcc "" serial.c
rel_prof p m ./serial 40
check "profiled run exits 0" [ "$(cat p.rc)" -eq 0 ]
good=$(ls m/*.cspm 2> /dev/null | head -n 1)
check "one profile written" [ -n "$good" ] || finish
size=$(wc -c < "$good")
echo "profile: $good, $size bytes"

crashes=0 hangs=0 unnamed=0 invalid=0 merged=0 rejected=0 accepted=0 n=0
examples=""
# try TAG FILE MODE: run csprof-prof on FILE (MODE dump or merge); classify the outcome.
try() {
    local tag=$1 f=$2 mode=$3 rc
    rm -rf db.mut
    if [ "$mode" = dump ]; then
        timeout -k 2 20 csprof-prof --dump "$f" > mut.out 2> mut.err
        rc=$?
    else
        timeout -k 2 20 csprof-prof -o db.mut "$f" > mut.out 2> mut.err
        rc=$?
        merged=$((merged + 1))
    fi
    n=$((n + 1))
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
        hangs=$((hangs + 1)) examples="$examples $tag($mode:hang)"
    elif [ $rc -gt 1 ]; then
        crashes=$((crashes + 1)) examples="$examples $tag($mode:rc=$rc)"
    elif [ $rc -eq 1 ]; then
        rejected=$((rejected + 1))
        if ! grep -qE "$(basename "$f").*byte [0-9]+" mut.err; then
            unnamed=$((unnamed + 1)) examples="$examples $tag($mode:$(head -n 1 mut.err | cut -c1-80))"
        fi
    else
        accepted=$((accepted + 1))
        if [ "$mode" = merge ] && ! validate db.mut > /dev/null 2>&1; then
            invalid=$((invalid + 1)) examples="$examples $tag(invalid-db)"
        fi
    fi
}

i=0
offsets="$(seq 0 63) $(for ((k = 0; k < muts; k++)); do echo $((RANDOM * 32768 + RANDOM)); done)"
for off in $offsets; do
    off=$((off % size))
    head -c "$off" "$good" > trunc.cspm
    mode=dump
    [ $((i % 10)) -eq 0 ] && mode=merge
    try "trunc@$off" trunc.cspm $mode
    i=$((i + 1))
done
for ((k = 0; k < muts; k++)); do
    pos=$(((RANDOM * 32768 + RANDOM) % size)) val=$((RANDOM % 255 + 1))
    cp "$good" flip.cspm
    old=$(od -An -tu1 -j "$pos" -N1 flip.cspm | tr -d ' ')
    printf "\\x$(printf %02x $(((old + val) % 256)))" |
        dd of=flip.cspm bs=1 seek="$pos" conv=notrunc status=none
    mode=dump
    [ $((k % 10)) -eq 0 ] && mode=merge
    try "byte$pos+$val" flip.cspm $mode
done
echo "mutants: $n ($merged merged): $rejected rejected, $accepted accepted"
[ -n "$examples" ] && echo "first problems:$(echo "$examples" | cut -c1-600)"
check "no crash ($crashes)" [ $crashes -eq 0 ]
check "no hang ($hangs)" [ $hangs -eq 0 ]
check "every rejection names the file and a byte offset ($unnamed without)" [ $unnamed -eq 0 ]
check "every accepted merge wrote a valid database ($invalid invalid)" [ $invalid -eq 0 ]
finish
