#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# stress.sh -- the reliability scenarios outside CI: many profiled runs,
# optionally at another event, pinned to CPUs and beside CPU hogs.
#
#   test/reliability/stress.sh [--runs N] [--event EV] [--pin CPUS] [--load N]
#       [--build DIR] [--timeout S] [--logs DIR] [--markdown] [SCENARIO...]
#
# SCENARIO is a script (r01_serial.sh), its stem (r01_serial), its number
# (r01 or 01) or its name (serial); default: every r<NN>_*.sh.  Each script
# runs once with REL_RUNS=N, REL_EVENT, REL_PIN and REL_LOAD set, so it makes
# N profiled runs of its program(s) (a script profiling several programs or
# variants makes N runs of each).  What is counted: each script ends with
# "runs: R, failed: F" (lib.sh): R profiled runs of a program, F of them
# failed at least one check (hang, crash, other output, bad profile).  The
# table adds these up per scenario; a script that fails without that line,
# or fails only checks made outside any run (its build, its baseline), shows
# as "error".  The exit status is 0 when every scenario passed (skips allowed).
#
# --markdown prints the table for docs/guarantees.md: scenario, runs, passed, command.
set -u
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
runs="" event="" pin="" load="" build="$src/build" tmo="" logs="" markdown=0
usage() {
    sed -n 's/^#   //p' "${BASH_SOURCE[0]}" >&2
    exit 2
}
need() { [ $# -ge 2 ] || { echo "stress.sh: option $1 needs a value" >&2; exit 2; }; }
while [ $# -gt 0 ]; do
    case "$1" in
    --runs) need "$@"; runs=$2; shift 2 ;;
    --event) need "$@"; event=$2; shift 2 ;;
    --pin) need "$@"; pin=$2; shift 2 ;;
    --load) need "$@"; load=$2; shift 2 ;;
    --build) need "$@"; build=$2; shift 2 ;;
    --timeout) need "$@"; tmo=$2; shift 2 ;;
    --logs) need "$@"; logs=$2; shift 2 ;;
    --markdown) markdown=1; shift ;;
    -h | --help) usage ;;
    --) shift; break ;;
    -*) echo "stress.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
    esac
done
num() { # num OPTION VALUE: VALUE is empty or a whole number
    case "$2" in
    *[!0-9]*) echo "stress.sh: $1 '$2' is not a number" >&2; exit 2 ;;
    esac
}
num --runs "$runs"; num --load "$load"; num --timeout "$tmo"
[ -x "$build/bin/csrun" ] || { echo "stress.sh: $build/bin/csrun not found (build first, or --build DIR)" >&2; exit 2; }
build=$(cd "$build" && pwd)

# The scripts to run.
scripts=()
if [ $# -eq 0 ]; then
    for f in "$src"/test/reliability/r[0-9][0-9]_*.sh; do scripts+=("$f"); done
fi
for s in "$@"; do
    s=${s%.sh}
    s=$(basename "$s")
    m=()
    for f in "$src"/test/reliability/r[0-9][0-9]_*.sh; do
        stem=$(basename "$f" .sh)
        num=${stem%%_*}
        case "$s" in
        "$stem" | "$num" | "${num#r}" | "${stem#*_}") m+=("$f") ;;
        esac
    done
    [ ${#m[@]} -gt 0 ] || { echo "stress.sh: no scenario '$s' in $src/test/reliability" >&2; exit 2; }
    scripts+=("${m[@]}")
done

if [ -z "$logs" ]; then logs=$(mktemp -d /tmp/csprof-stress.XXXXXX); else mkdir -p "$logs"; fi

# The command line that reproduces one scenario, for the markdown table.
cmdline() {
    local c="test/reliability/stress.sh"
    [ -n "$runs" ] && c="$c --runs $runs"
    [ -n "$event" ] && c="$c --event $event"
    [ -n "$pin" ] && c="$c --pin $pin"
    [ -n "$load" ] && c="$c --load $load"
    echo "$c $1"
}

rows=()
all_ok=1
tot_runs=0 tot_failed=0
for f in "${scripts[@]}"; do
    stem=$(basename "$f" .sh)
    log="$logs/$stem.log"
    env=(CSPROF_BIN="$build/bin" CSPROF_EXAMPLES="$build/examples" CSPROF_SCHEMAS="$src/share/schemas"
        CSPROF_BUILD="$build" CSPROF_SOURCE="$src")
    [ -n "$runs" ] && env+=(REL_RUNS="$runs")
    [ -n "$event" ] && env+=(REL_EVENT="$event")
    [ -n "$pin" ] && env+=(REL_PIN="$pin")
    [ -n "$load" ] && env+=(REL_LOAD="$load")
    to=()
    [ -n "$tmo" ] && to=(timeout -k 10 "$tmo")
    [ "$markdown" -eq 1 ] || printf '%s ... ' "$stem" >&2
    t0=$(date +%s)
    env "${env[@]}" "${to[@]}" bash "$f" > "$log" 2>&1
    rc=$?
    secs=$(($(date +%s) - t0))
    line=$(grep -E '^runs: [0-9]+, failed: [0-9]+$' "$log" | tail -n 1)
    r=$(echo "$line" | sed -n 's/^runs: \([0-9]*\), failed: .*/\1/p')
    fl=$(echo "$line" | sed -n 's/^runs: [0-9]*, failed: \([0-9]*\)$/\1/p')
    checks=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
    r=${r:-0} fl=${fl:-0}
    if [ "$rc" -eq 77 ]; then
        status="skipped: $(sed -n 's/^SKIP: //p' "$log" | head -n 1)"
    elif [ "$rc" -eq 0 ]; then
        status=ok
    elif [ -n "$line" ] && [ "$fl" -gt 0 ]; then
        status=FAILED
        all_ok=0
    else
        status="error (exit $rc)"
        all_ok=0
    fi
    [ "$markdown" -eq 1 ] || echo "$status (${secs} s)" >&2
    tot_runs=$((tot_runs + r)) tot_failed=$((tot_failed + fl))
    rows+=("$stem|$r|$((r - fl))|$fl|${checks:-no summary}|$status|$log")
done

if [ "$markdown" -eq 1 ]; then
    echo "| scenario | profiled runs | passed | command |"
    echo "|---|---:|---:|---|"
    for row in "${rows[@]}"; do
        IFS='|' read -r stem r p fl checks status log <<< "$row"
        case "$status" in skipped*) p="skipped" ;; esac
        echo "| $stem | $r | $p | \`$(cmdline "$stem")\` |"
    done
else
    printf '%-24s %6s %6s %6s  %-22s %s\n' scenario runs passed failed checks status
    for row in "${rows[@]}"; do
        IFS='|' read -r stem r p fl checks status log <<< "$row"
        printf '%-24s %6s %6s %6s  %-22s %s\n' "$stem" "$r" "$p" "$fl" "$checks" "$status"
    done
    printf '%-24s %6s %6s %6s\n' total "$tot_runs" "$((tot_runs - tot_failed))" "$tot_failed"
    echo "event ${event:-script default}, pin '${pin}', load ${load:-0}; logs in $logs"
fi
[ "$all_ok" -eq 1 ]
