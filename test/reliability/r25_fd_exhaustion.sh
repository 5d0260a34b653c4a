#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 25: 1000+ threads while the program holds 950 of its 1024 file
# descriptors.  Writing a profile must need no descriptor: every thread's
# profile is present, and the program's own opens after the threads succeed.
# Also: a program that closes every descriptor (close_range) does not lose
# its profiles; csprof notices and re-opens its file.
. "$(dirname "$0")/lib.sh"
threads=${REL_FD_THREADS:-1200}

rel_build fds gcc "-pthread" "$CSPROF_SOURCE/test/reliability/programs/rel_fds_threads.c"
args=(./fds 950 "$threads" 100 2 60)
(ulimit -n 1024 && rel_plain base "${args[@]}")
check "unprofiled run succeeds: $(cat base.out)" [ "$(cat base.rc)" -eq 0 ]
for r in $(seq 1 "$REL_RUNS"); do
    (ulimit -n 1024 && rel_prof "p$r" "m$r" "${args[@]}")
    check "run $r: same output and exit status ($(cat "p$r.out"))" rel_same "p$r" base
    check "run $r: no profile lost (csrun says nothing about it)" \
        sh -c "! grep -E 'could not write|Too many open files' p$r.err"
    csprof-prof -o "db$r" "m$r" > "prof$r.out" 2> "prof$r.err"
    n=$(awk '/^threads:/ { print $2 }' "prof$r.out")
    check "run $r: every thread's profile is there (${n:-0} of $((threads + 1)))" \
        [ "${n:-0}" -eq $((threads + 1)) ]
done

rel_build closer gcc "-pthread" "$CSPROF_SOURCE/test/reliability/programs/rel_close_range.c"
rel_plain cbase ./closer 3
rel_prof closed mc ./closer 3
check "close_range: same output and exit status ($(cat closed.out))" rel_same closed cbase
csprof-prof -o dbc mc > profc.out 2> profc.err
n=$(awk '/^threads:/ { print $2 }' profc.out)
check "close_range: all 4 threads' profiles are there (${n:-0})" [ "${n:-0}" -eq 4 ]
check "close_range: the re-opening is counted" [ "$(rel_stat mc output.reopened)" -ge 1 ]
finish
