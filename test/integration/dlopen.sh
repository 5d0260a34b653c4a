#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A library loaded with dlopen after start and unloaded before exit: its
# samples are still mapped to it (load map refreshed after dlopen, modules
# kept after dlclose).
. "$(dirname "$0")/lib.sh"
gcc -O2 -g -o app "$CSPROF_SOURCE/test/programs/dlopen_work.c" -ldl || { check "compile" false; finish; }
./app > plain.out; plain_rc=$?
csrun -q -o m ./app > prof.out; prof_rc=$?
check "exit status unchanged ($plain_rc)" [ "$plain_rc" -eq "$prof_rc" ]
check "output unchanged" cmp -s plain.out prof.out
check "csprof-prof" sh -c 'csprof-prof m -o db > summary.txt'
check "database validates" validate db
lm=$(xp db "string(//LoadModule[contains(@n,'libm.so')]/@i)")
check "libm is in the load map although it was dlclosed" [ -n "$lm" ]
m=$(metric_id db CPUTIME exclusive)
ids=$(xp db "//Procedure[@lm='$lm']/@i" | sed 's/ i="\([0-9]*\)"/\1 /g')
in_libm=$(xp db "sum(//PF[$(or_ids n $ids)]/M[@n='$m']/@v)")
total=$(xp db "string(//EventTotal[@event='CPUTIME']/@v)")
pct=$(awk -v a="$in_libm" -v t="$total" 'BEGIN { print (t > 0 ? 100 * a / t : 0) }')
check "most time is in libm's procedures ($pct%)" between "$pct" 50 100
unknown=$(xp db 'string(//Summary/@unknown-samples)')
check "no sample at an unknown address ($unknown)" [ "${unknown:-1}" -eq 0 ]
finish
