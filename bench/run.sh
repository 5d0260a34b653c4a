#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# run.sh -- overhead and sample-quality benchmark: csrun against gperftools'
# CPU profiler and perf, on the bundled examples and on Debian's xz.
#
#   bench/run.sh [BUILD_DIR] [REPS]        (defaults: build, 5)
#
# For every repetition, program and tool (tools taken round-robin, the start
# rotated each repetition so no tool always runs first) it runs the program
# unprofiled, under `csrun -q -e CPUTIME@1000`, under gperftools'
# libprofiler.so at 1000 Hz and under `perf record -F 1000 -g --call-graph
# dwarf -e task-clock`, then prints one markdown table (stdout): overhead as
# the median of per-repetition wall-time ratios against that repetition's
# unprofiled run, samples per CPU-second, bytes written, and the share of
# samples whose stack reaches main.  Progress goes to stderr.
#
# A peer tool that is missing or fails shows as "n/a (reason)"; the script
# itself stops only when something it cannot do without is missing (python3,
# /usr/bin/time, the build).  Outside ctest: it takes minutes and its numbers
# depend on the machine.  Everything is written to a temporary directory that
# is removed at exit (BENCH_KEEP=1 keeps it and prints its path).
#
# Environment knobs: BENCH_THREADS_MS (700), BENCH_FIG1_LOG2 (unset: the
# program's default, 28), BENCH_XZ_LINES (6500000: `seq` lines, ~50 MB),
# BENCH_TIMEOUT (180 s per run), BENCH_GPERF_LIB (libprofiler.so path).
set -u -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${1:-build}
reps=${2:-5}
analyze="$here/analyze.py"

die() {
    echo "bench/run.sh: $*" >&2
    exit 2
}
note() { echo "bench: $*" >&2; }

[[ $reps =~ ^[1-9][0-9]*$ ]] || die "REPS '$reps': not a positive integer"
if [[ -d $build ]]; then
    build=$(cd "$build" && pwd)
elif [[ -d $root/$build ]]; then
    build=$(cd "$root/$build" && pwd)
else
    die "BUILD_DIR '$build': no such directory (configure and build first)"
fi
examples=$build/examples
for f in "$examples/fig1" "$examples/threads" "$examples/forkexec"; do
    [[ -x $f ]] || die "'$f': not built (cmake --build '$build')"
done
command -v python3 >/dev/null || die "python3 not found (Debian package python3)"
[[ -x /usr/bin/time ]] || die "/usr/bin/time not found (Debian package time)"

csrun=$build/bin/csrun
csprof_prof=$build/bin/csprof-prof
gperf_lib=${BENCH_GPERF_LIB:-/usr/lib/x86_64-linux-gnu/libprofiler.so}
threads_ms=${BENCH_THREADS_MS:-700}
xz_lines=${BENCH_XZ_LINES:-6500000}
run_timeout=${BENCH_TIMEOUT:-180}

work=$(mktemp -d "${TMPDIR:-/tmp}/csbench.XXXXXX") || die "cannot create a temporary directory"
if [[ ${BENCH_KEEP:-0} == 1 ]]; then
    note "keeping $work"
else
    trap 'rm -rf "$work"' EXIT
fi
results=$work/results.tsv
unavailable=$work/unavailable.tsv
: >"$results"
: >"$unavailable"

# ------------------------------------------------------------ tool checks

tools=(base csrun gperf perf)
declare -A missing=()
mark_missing() {
    missing[$1]=$2
    printf '%s\t%s\n' "$1" "$2" >>"$unavailable"
    note "$1 unavailable: $2"
}
last_line() { grep -v '^\s*$' "$1" 2>/dev/null | tail -n 1 | tr '\t|' '  ' | cut -c1-100; }

if [[ ! -x $csrun || ! -x $csprof_prof ]]; then
    mark_missing csrun "csrun or csprof-prof not built in $build"
elif ! command -v xmllint >/dev/null; then
    mark_missing csrun "xmllint not found (Debian package libxml2-utils)"
fi
if [[ ! -r $gperf_lib ]]; then
    mark_missing gperf "$gperf_lib not found (Debian package libgoogle-perftools-dev)"
elif ! command -v google-pprof >/dev/null; then
    mark_missing gperf "google-pprof not found (Debian package google-perftools)"
fi
if ! command -v perf >/dev/null; then
    mark_missing perf "perf not found (Debian package linux-perf)"
elif ! perf record -q -F 1000 -g --call-graph dwarf -e task-clock -o "$work/probe.data" \
    -- /bin/true >/dev/null 2>"$work/probe.err"; then
    mark_missing perf "perf record failed: $(last_line "$work/probe.err")"
elif ! perf script -i "$work/probe.data" >/dev/null 2>"$work/probe.err"; then
    mark_missing perf "perf script failed: $(last_line "$work/probe.err")"
fi
rm -f "$work/probe.data" "$work/probe.err"

# ------------------------------------------------------------ programs

programs=(fig1 threads forkexec)
xz_bin=$(command -v xz || true)
if [[ -n $xz_bin ]]; then
    note "generating the xz input: seq 1 $xz_lines"
    seq 1 "$xz_lines" >"$work/xz-input.txt" || die "cannot write $work/xz-input.txt"
    programs+=(xz)
else
    note "xz not found (Debian package xz-utils): skipping the xz program"
fi

# program_command NAME: set cmd to the argument vector of program NAME.
program_command() {
    case $1 in
    fig1) cmd=("$examples/fig1" ${BENCH_FIG1_LOG2:+"$BENCH_FIG1_LOG2"}) ;;
    threads) cmd=("$examples/threads" "$threads_ms") ;;
    forkexec) cmd=("$examples/forkexec") ;;
    xz) cmd=("$xz_bin" -1 -T1 -c "$work/xz-input.txt") ;;
    esac
}

# ------------------------------------------------------------ one run

# bytes_in PATH...: total size of the regular files at or under PATHs.
bytes_in() {
    find "$@" -type f -printf '%s\n' 2>/dev/null | awk '{ s += $1 } END { printf "%d\n", s }'
}

# run_one PROGRAM TOOL REP: run, time and analyze one profiled (or plain)
# execution; append one line to $results.
run_one() {
    local prog=$1 tool=$2 rep=$3 d t0 t1 rc wall cpu counts="nan nan nan" nbytes=nan why=""
    local -a cmd run
    d=$work/run/$prog.$tool.$rep
    mkdir -p "$d"
    program_command "$prog"
    local timer=(/usr/bin/time -f '%U %S' -o "$d/time")
    case $tool in
    base) run=("${timer[@]}" "${cmd[@]}") ;;
    csrun) run=("${timer[@]}" "$csrun" -q -e CPUTIME@1000 -o "$d/m" "${cmd[@]}") ;;
    gperf) run=("${timer[@]}" env LD_PRELOAD="$gperf_lib" CPUPROFILE="$d/out.prof"
        CPUPROFILE_FREQUENCY=1000 "${cmd[@]}") ;;
    # The timer runs inside perf so that perf's own CPU time is not counted
    # as the program's; its samples (comm "time") are left out by analyze.py.
    perf) run=(perf record -q -F 1000 -g --call-graph dwarf -e task-clock -o "$d/perf.data"
        -- "${timer[@]}" "${cmd[@]}") ;;
    esac
    t0=$(date +%s.%N)
    XZ_DEFAULTS='' XZ_OPT='' timeout "$run_timeout" "${run[@]}" >"$d/stdout" 2>"$d/stderr"
    rc=$?
    t1=$(date +%s.%N)
    wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", b - a }')
    # GNU time puts "Command exited with non-zero status N" first when N != 0.
    cpu=$(tail -n 1 "$d/time" 2>/dev/null | awk 'NF == 2 { printf "%.3f\n", $1 + $2; ok = 1 } END { if (!ok) print "nan" }')
    if ((rc == 124)); then
        why="timed out after ${run_timeout} s"
    elif ((rc != 0)); then
        why="exit $rc: $(last_line "$d/stderr")"
    fi
    if ((rc == 0)); then
        case $tool in
        csrun)
            nbytes=$(bytes_in "$d/m")
            if "$csprof_prof" "$d/m" -o "$d/db" >"$d/prof.out" 2>"$d/prof.err"; then
                local xml=$d/db/experiment.xml s mp root
                s=$(xmllint --xpath 'string(//Summary/@samples)' "$xml" 2>/dev/null)
                mp=$(xmllint --xpath 'string(//Summary/@main-percent)' "$xml" 2>/dev/null)
                root=$(python3 "$analyze" csprof "$xml" 2>>"$d/analyze.err" | awk '{ print $3 }')
                counts="${s:-nan} ${mp:-nan} ${root:-nan}"
            else
                why="csprof-prof failed: $(last_line "$d/prof.err")"
            fi
            ;;
        gperf)
            nbytes=$(bytes_in "$d"/out.prof*)
            if compgen -G "$d/out.prof*" >/dev/null; then
                counts=$(python3 "$analyze" gperf "${cmd[0]}" "$d"/out.prof* 2>"$d/analyze.err" | tail -n 1)
            else
                why="no profile written"
            fi
            ;;
        perf)
            nbytes=$(bytes_in "$d/perf.data")
            counts=$(perf script -i "$d/perf.data" -F comm,pid,tid,period,ip,sym 2>"$d/script.err" |
                python3 "$analyze" perf 2>"$d/analyze.err")
            ;;
        esac
        [[ -n $counts ]] || counts="nan nan nan"
        if [[ -s $d/analyze.err && -z $why ]]; then
            why="analysis: $(last_line "$d/analyze.err")"
        fi
    fi
    read -r samples mainp rootp <<<"$counts"
    # A failed analysis keeps the timing (rc 0) but says why in the notes.
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$prog" "$tool" "$rep" "$rc" "$wall" \
        "$cpu" "${samples:-nan}" "${nbytes:-nan}" "${mainp:-nan}" "${rootp:-nan}" "$why" >>"$results"
    note "rep $rep $prog $tool: rc $rc, ${wall} s wall, ${cpu} s CPU, samples ${samples:-nan}${why:+ ($why)}"
    [[ ${BENCH_KEEP:-0} == 1 ]] || rm -rf "$d"
}

# ------------------------------------------------------------ main loop

start=$(date +%s)
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for ((rep = 1; rep <= reps; rep++)); do
    for prog in "${programs[@]}"; do
        for ((k = 0; k < ${#tools[@]}; k++)); do
            tool=${tools[(k + rep - 1) % ${#tools[@]}]}
            [[ -n ${missing[$tool]:-} ]] && continue
            run_one "$prog" "$tool" "$rep"
        done
    done
done
elapsed=$(($(date +%s) - start))
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

prog_list=$(IFS=,; echo "${programs[*]}")
tool_list=$(IFS=,; echo "${tools[*]}")
echo "Benchmark: \`bench/run.sh $*\` — $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs," \
    "Linux $(uname -r), $reps repetitions, ${elapsed} s;" \
    "load average before/after: $load_before / $load_after."
echo "Inputs: fig1 ${BENCH_FIG1_LOG2:-default (28)}, threads $threads_ms ms × 4 threads, forkexec," \
    "xz -1 -T1 on \`seq 1 $xz_lines\` ($(bytes_in "$work/xz-input.txt") bytes)."
echo
python3 "$analyze" summarize "$results" "$prog_list" "$tool_list" "$unavailable"
