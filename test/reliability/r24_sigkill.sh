#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 24: SIGKILL mid-run.  A program that would burn CPU for REL_KILL_RUN
# seconds is killed after REL_KILL_AFTER seconds (30 s and 8 s in the issue,
# scaled down for CI).  The checkpoints its threads wrote must hold at least
# half of the CPU time the kernel charged to it by then, and csprof-prof must
# read them, exit 0 and say that the data is partial.
. "$(dirname "$0")/lib.sh"
run_s=${REL_KILL_RUN:-30}
after_s=${REL_KILL_AFTER:-4}

rel_build killed gcc "-pthread" "$CSPROF_SOURCE/test/reliability/programs/rel_killed.c"
for r in $(seq 1 "$REL_RUNS"); do
    rm -f pid
    rel_prof "k$r" "m$r" ./killed pid "$run_s" &
    bg=$!
    for _ in $(seq 1 100); do [ -s pid ] && break; sleep 0.1; done
    pid=$(cat pid 2>/dev/null)
    check "run $r: the program started (pid ${pid:-none})" [ -n "$pid" ]
    [ -n "$pid" ] || { wait "$bg"; continue; }
    sleep "$after_s"
    # CPU time charged so far (utime + stime, clock ticks): what the profile should hold.
    ticks=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
    kill -KILL "$pid"
    wait "$bg"
    hz=$(getconf CLK_TCK)
    charged=$(awk -v t="$ticks" -v hz="$hz" 'BEGIN { printf "%.3f", t / hz }')
    n=$(ls "m$r"/*.cspm 2>/dev/null | wc -l)
    check "run $r: a measurement file survives the kill ($n)" [ "$n" -ge 1 ]
    csprof-prof -o "db$r" "m$r" > "prof$r.out" 2> "prof$r.err"
    rc=$?
    check "run $r: csprof-prof exits 0 on the killed run's data (rc $rc)" [ "$rc" -eq 0 ]
    check "run $r: csprof-prof says the data is partial" grep -q "partial data" "prof$r.err"
    got=$(awk '/^event CPUTIME:/ { print $3 }' "prof$r.out")
    echo "  run $r: CPU time charged before the kill ${charged} s, in the profile ${got:-0} s"
    check "run $r: at least half of the CPU time is in the profile (${got:-0} of $charged s)" \
        awk -v g="${got:-0}" -v c="$charged" 'BEGIN { exit !(c > 0 && g >= 0.5 * c && g <= 1.2 * c) }'
done
finish
