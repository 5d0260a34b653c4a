#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A multi-threaded program: one profile per thread, each worker thread's
# profile dominated by its own work function, and every work function
# reached through the thread start routine in the merged database.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
app=$CSPROF_EXAMPLES/threads

"$app" 400 > plain.out; plain_rc=$?
csrun -q -o m "$app" 400 > prof.out; prof_rc=$?
check "exit status unchanged" [ "$plain_rc" -eq "$prof_rc" ]
check "output unchanged" cmp -s plain.out prof.out
# One file per process, one record per thread: split it to look at each thread alone.
n=$(ls m/*.cspm | wc -l)
check "one measurement file for the process (got $n)" [ "$n" -eq 1 ]
mkdir -p split && python3 "$here/split_records.py" m/*.cspm split
n=$(ls split/*.cspm | wc -l)
check "five profiles: main + 4 threads (got $n)" [ "$n" -eq 5 ]
check "merged database" sh -c 'csprof-prof m -o db > /dev/null'
check "database validates" validate db
for w in work_north work_east work_south work_west; do
    v=$(incl_of db CPUTIME "$w")
    check "$w has time in the merged database ($v s)" between "$v" 0.2 10
    under=$(incl_under db CPUTIME "$w" start_thread)
    check "$w is called from start_thread ($under s)" between "$under" 0.2 10
done
# Per thread: each worker's own profile has its work function as the top procedure.
seen=""
for f in split/*.cspm; do
    case "$f" in *-0.cspm) continue ;; esac  # thread index 0: the main thread
    rm -rf one && csprof-prof "$f" -o one > /dev/null || { check "profile $f readable" false; continue; }
    check "per-thread database validates" validate one
    total=$(xp one "string(//EventTotal[@event='CPUTIME']/@v)")
    top=""
    for w in work_north work_east work_south work_west; do
        v=$(incl_of one CPUTIME "$w")
        awk -v v="$v" -v t="$total" 'BEGIN { exit !(t > 0 && v >= 0.8 * t) }' && top="$top$w"
    done
    check "thread profile $(basename "$f") is dominated by one work function ($top)" \
        sh -c "case '$top' in work_north|work_east|work_south|work_west) true ;; *) false ;; esac"
    seen="$seen $top"
done
distinct=$(echo $seen | tr ' ' '\n' | sort -u | wc -l)
check "each worker thread has a different work function ($seen)" [ "$distinct" -eq 4 ]
finish
