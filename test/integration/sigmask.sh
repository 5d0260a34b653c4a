#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The sigprocmask override (lib/monitor/sigmask_sig.c) is transparent: a
# program that blocks, inspects and unblocks signals while it is sampled in
# deep stacks behaves as without csprof, with and without the trampoline,
# and its samples are complete.
. "$(dirname "$0")/lib.sh"
gcc -O2 -g -o app "$CSPROF_SOURCE/test/programs/sigmask.c" || { check "compile" false; finish; }
./app > plain.out; plain_rc=$?
check "unprofiled run: every check holds (exit $plain_rc)" [ "$plain_rc" -eq 0 ]
# counter DIR NAME: the value of counter NAME in the profile in DIR.
counter() {
    csprof-prof --dump "$1"/*.cspm | awk -v n="name=\"$2\"" '$1 == "stat" && $2 == n { split($3, v, "="); print v[2] }'
}
for mode in "" --no-trampoline; do
    tag=${mode:-trampoline}
    tag=${tag#--}
    csrun -q $mode -e CPUTIME@1000 -o "m_$tag" ./app > "$tag.out"; rc=$?
    check "$tag: exit status unchanged ($rc)" [ "$rc" -eq "$plain_rc" ]
    check "$tag: output unchanged" cmp -s plain.out "$tag.out"
    ok=$(counter "m_$tag" samples.recorded)
    partial=$(counter "m_$tag" samples.partial)
    check "$tag: samples taken in deep stacks (${ok:-0} recorded)" [ "${ok:-0}" -ge 100 ]
    check "$tag: no partial samples (${partial:-?})" [ "${partial:-1}" -eq 0 ]
done
finish
