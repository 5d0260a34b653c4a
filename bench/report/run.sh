#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench/report/run.sh [BUILD_DIR] [MB]: time csprof-report's views and exports on a
# synthetic database of about MB megabytes (default 10), the median of 3 runs each:
# wall time, CPU time (user + system: what the tool needs on an idle machine) and
# peak memory; and, as the baseline of the same run, xmllint --stream (libxml2's
# streaming reader alone, no model).
# Not a ctest (no timing assertions in tests).
set -eu
build=${1:-build}; mb=${2:-10}
R=$(cd "$build" && pwd)/bin/csprof-report
work=$(mktemp -d /tmp/csprof-bench-report.XXXXXX); trap 'rm -rf "$work"' EXIT
python3 "$(dirname "$0")/gen_db.py" "$work/db" "$mb"
ls -l "$work/db/experiment.xml" | awk '{ printf "database: %.1f MB\n", $5 / 1e6 }'
median() { sort -n | sed -n 2p; }
run() { # run LABEL ARGS...
    local label=$1; shift
    for i in 1 2 3; do
        /usr/bin/time -f '%e %U %S %M' "$@" > /dev/null 2>> "$work/t.$label" || true
    done
    printf '%-24s wall %5s s  cpu %5s s  %7s KiB max RSS\n' "$label" \
        "$(awk '{ print $1 }' "$work/t.$label" | median)" \
        "$(awk '{ printf "%.2f\n", $2 + $3 }' "$work/t.$label" | median)" \
        "$(awk '{ print $4 }' "$work/t.$label" | median)"
}
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
run "xmllint --stream" xmllint --stream --noout "$work/db/experiment.xml"
rep() { local label=$1; shift; run "$label" "$R" "$@" "$work/db"; }
rep top-down
rep top-down-json --format json --threshold 0
rep bottom-up --view bottom-up
rep flat --view flat
rep folded --format folded
rep pprof --format pprof -o "$work/p.pb.gz"
rep speedscope --format speedscope
rep callgrind --format callgrind
