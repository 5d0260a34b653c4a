#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 35 (and issue 7 item 16): LD_PRELOAD handling.  With the user's own
# LD_PRELOAD=libfoo.so, csrun appends libcsprof.so (the program, and a child
# run by system(), see both); a child exec'd with an empty environment runs
# normally and is counted (exec.not_followed) and reported by csrun as not
# followed; with --no-follow no child is profiled, nothing is counted, and
# the program's LD_PRELOAD no longer holds libcsprof.  A 32-bit child is
# not tried: csprof ships no 32-bit monitor (multilib is not installed here).
. "$(dirname "$0")/lib.sh"
runs=$(rel_runs 2)

rel_build app gcc "" preload_env.c
rel_build libfoo.so gcc "-shared -fPIC" libfoo.c
foo=$PWD/libfoo.so
LD_PRELOAD=$foo rel_plain base ./app system
check "baseline: exit 0, child ran with an empty environment" \
    sh -c '[ "$(cat base.rc)" -eq 0 ] && grep -q "child ran, env empty: yes" base.out'
for ((r = 1; r <= runs; r++)); do
    LD_PRELOAD=$foo rel_prof p$r m$r ./app system
    check "run $r: exit status and output identical" rel_same p$r base
    check "run $r: the program's LD_PRELOAD holds libfoo and libcsprof" \
        grep -q "parent: LD_PRELOAD has libfoo: yes, libcsprof: yes" p$r.err
    check "run $r: system()'s child sees both" \
        grep -q "system child: LD_PRELOAD has libfoo: yes, libcsprof: yes" p$r.err
    nf=$(rel_stat m$r exec.not_followed)
    check "run $r: the cleared-environment exec is counted as not followed ($nf)" [ "$nf" -eq 1 ]
done
# csrun's summary (no -q) says so.
LD_PRELOAD=$foo csrun -e "$REL_EVENT" -o msum ./app > sum.out 2> sum.err
check "csrun reports the child not followed" grep -q "1 exec'd program(s) not followed" sum.err
# --no-follow: the program's view and its children lose libcsprof, nothing is counted.
rm -rf mnf
LD_PRELOAD=$foo csrun --no-follow -e "$REL_EVENT" -o mnf ./app system > nf.out 2> nf.err
check "--no-follow: output identical to the baseline" cmp -s nf.out base.out
check "--no-follow: LD_PRELOAD keeps libfoo, loses libcsprof" \
    grep -q "parent: LD_PRELOAD has libfoo: yes, libcsprof: no" nf.err
check "--no-follow: no exec counted as not followed ($(rel_stat mnf exec.not_followed))" \
    [ "$(rel_stat mnf exec.not_followed)" -eq 0 ]
pids=$(for f in mnf/*.cspm; do csprof-prof --dump "$f" | sed -n 's/^header pid=\([0-9]*\).*/\1/p'; done | sort -u | wc -l)
check "--no-follow: only the parent process wrote profiles ($pids process)" [ "$pids" -eq 1 ]
finish
