# SPDX-License-Identifier: BSD-3-Clause
# lib.sh -- the reliability test harness (sourced by every r<NN>_<name>.sh).
# Each scenario builds a small program from programs/, runs it once without
# csprof (the baseline) and REL_RUNS times under csrun, and checks that the
# profiled runs behave exactly like the baseline (same exit status, same
# stdout), never hang, and leave honest profiles.  It sources
# test/integration/lib.sh for check, xp, validate, incl_of, incl_under,
# between and the fresh work directory ($work, the current directory).
#
# Knobs (the environment; stress.sh sets them, scripts pick CI defaults):
#   REL_RUNS   repetitions of the profiled run (rel_runs DEFAULT reads it)
#   REL_EVENT  csrun event for rel_prof (default CPUTIME@1000)
#   REL_PIN    taskset CPU list for every run (empty: no pinning)
#   REL_LOAD   number of background CPU hogs while the script runs (default 0)
#   REL_KEEP   1: keep the work directory and print its path
#   REL_QUIET  0: rel_prof runs csrun without -q (its report on stderr, TAG.err)
# A script may set the array rel_launcher (e.g. (mpirun -np 2)): rel_prof
# then runs `LAUNCHER... csrun ...`, csrun inside the launcher.
# Hang rule (reliability.md C.0): a profiled run taking longer than
# 3 x the baseline's wall time + 10 s is killed (SIGTERM, then SIGKILL after
# REL_GRACE seconds, default 5) and reported as a hang.
#
# Besides "N passed, N failed", finish prints "runs: N, failed: M": the number
# of profiled runs (rel_prof calls) and how many of them failed a check (a
# check fails the most recent rel_prof run; checks before the first run
# count only in "N failed").  stress.sh adds these lines up.
# A part of a scenario that cannot run here (a compiler, a tool or a privilege
# missing) is announced by rel_skip_part ("SKIP: reason"); finish then exits
# 77 (skipped) instead of 0.  CMakeLists.txt registers such parts as tests of
# their own (a variable of the script selects the part), so that ctest shows
# each one skipped, never passed.
rel_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ -z "${CSPROF_BIN:-}" ]; then
    echo "SKIP: CSPROF_BIN not set (run through ctest or stress.sh)"
    exit 77
fi
. "$rel_dir/../integration/lib.sh"
# A work directory of our own name, so that the cleanup of the end-to-end
# tests' /tmp/csprof-test.* directories cannot remove it under a long run.
rmdir "$work" && work=$(mktemp -d /tmp/csprof-rel.XXXXXX) && cd "$work" || exit 1

: "${REL_EVENT:=CPUTIME@1000}"
: "${REL_PIN:=}"
: "${REL_LOAD:=0}"
: "${REL_GRACE:=5}"
: "${REL_KEEP:=0}"
: "${REL_QUIET:=1}"
rel_ev=${REL_EVENT%%@*} # the event's name, for database queries (CPUTIME)
ulimit -c 0 # a crash is seen in the exit status; no core files in the work dir

rel_runs_made=0   # profiled runs so far
rel_runs_failed=0 # profiled runs with at least one failed check
rel_run_bad=0     # 1 when the current profiled run has failed a check
rel_base_wall=""  # longest baseline wall time so far, in seconds
rel_load_pids=""
rel_launcher=()   # words put before csrun by rel_prof (an MPI launcher)
rel_parts_skipped=0 # parts of the scenario that could not run here (rel_skip_part)

rel_cleanup() {
    rel_load_stop
    if [ "$REL_KEEP" = 1 ]; then echo "work directory kept: $work"; else rm -rf "$work"; fi
}
trap rel_cleanup EXIT
trap 'exit 130' INT TERM

# A failed check (test/harness.sh) also marks the current profiled run as failed.
harness_on_fail() {
    rel_run_bad=1
}

# rel_close_run: count the current profiled run as failed if a check failed.
rel_close_run() {
    if [ "$rel_runs_made" -gt 0 ] && [ "$rel_run_bad" -eq 1 ]; then
        rel_runs_failed=$((rel_runs_failed + 1))
    fi
    rel_run_bad=0
}

# finish: print "runs: N, failed: M" and "N passed, N failed"; exit 0 when
# every check passed, 1 otherwise -- or 77 (skipped) when every check passed
# but a part of the scenario could not run (rel_skip_part).
finish() {
    rel_close_run
    echo "runs: $rel_runs_made, failed: $rel_runs_failed"
    echo "$passed passed, $failed failed"
    if [ "$failed" -eq 0 ] && [ "$rel_parts_skipped" -gt 0 ]; then
        echo "$rel_parts_skipped part(s) skipped"
        exit 77
    fi
    [ "$failed" -eq 0 ]
    exit $?
}

# rel_skip REASON: print why and exit 77 (skipped): test/harness.sh's skip.
rel_skip() {
    skip "$@"
}

# rel_skip_part REASON: a part of the scenario cannot run here: print
# "SKIP: REASON" and go on; finish exits 77 unless a check failed.
rel_skip_part() {
    echo "SKIP: $*"
    rel_parts_skipped=$((rel_parts_skipped + 1))
}

# rel_runs DEFAULT: the number of profiled repetitions, REL_RUNS or DEFAULT.
rel_runs() { echo "${REL_RUNS:-$1}"; }

# rel_now: wall clock in seconds (fractional).
rel_now() { date +%s.%N; }

# rel_pinned CMD...: run CMD under taskset when REL_PIN is set.
rel_pinned() {
    if [ -n "$REL_PIN" ]; then taskset -c "$REL_PIN" "$@"; else "$@"; fi
}

# rel_build OUT COMPILER "FLAGS" SOURCE...: compile SOURCEs (relative names
# are looked up in programs/) at -O2 -g into ./OUT.  A missing compiler skips
# the script (77); a failed compile fails it (1).
rel_build() {
    local out=$1 cc=$2 flags=$3 src srcs=()
    shift 3
    command -v "$cc" > /dev/null || rel_skip "compiler $cc not installed"
    for src in "$@"; do
        case "$src" in
        /*) srcs+=("$src") ;;
        *) srcs+=("$rel_dir/programs/$src") ;;
        esac
    done
    # shellcheck disable=SC2086 # FLAGS is a list of words
    if ! "$cc" -O2 -g $flags -o "$out" "${srcs[@]}" > "$out.build.log" 2>&1; then
        cat "$out.build.log"
        check "build $out with $cc $flags" false
        finish
    fi
}

# rel_plain TAG CMD...: run CMD without csprof (pinned as configured) under a
# 600 s timeout; write TAG.out, TAG.err, TAG.rc and TAG.wall (seconds).  Its
# wall time is the baseline for the hang limit of later rel_prof runs (the
# longest rel_plain so far).
rel_plain() {
    local tag=$1 t0 t1 rc
    shift
    t0=$(rel_now)
    rel_pinned timeout -k "$REL_GRACE" 600 "$@" > "$tag.out" 2> "$tag.err" < /dev/null
    rc=$?
    t1=$(rel_now)
    echo "$rc" > "$tag.rc"
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }' > "$tag.wall"
    if [ -z "$rel_base_wall" ] || awk -v w="$(cat "$tag.wall")" -v m="$rel_base_wall" \
        'BEGIN { exit !(w > m) }'; then
        rel_base_wall=$(cat "$tag.wall")
    fi
    return 0
}

# rel_hang_limit: seconds a profiled run may take: 3 x baseline + 10
# (600 when no baseline has run yet).
rel_hang_limit() {
    if [ -z "$rel_base_wall" ]; then echo 600; return; fi
    awk -v w="$rel_base_wall" 'BEGIN { printf "%d\n", 3 * w + 10.999 }'
}

# rel_thread_states PID: one line per thread of PID and of its descendants,
# "pid tid comm state wchan syscall" from /proc (state R: running or
# runnable; S with wchan futex_wait*: waiting on a lock or condition).
rel_thread_states() {
    local todo=("$1") p t kids
    while [ ${#todo[@]} -gt 0 ]; do
        p=${todo[0]}
        todo=("${todo[@]:1}")
        for t in /proc/"$p"/task/*; do
            [ -d "$t" ] || continue
            echo "$p ${t##*/} $(cat "$t/comm" 2> /dev/null)" \
                "$(awk '{ sub(/^.*\) /, ""); print $1 }' "$t/stat" 2> /dev/null)" \
                "$(cat "$t/wchan" 2> /dev/null)" "$(cut -d' ' -f1 "$t/syscall" 2> /dev/null)"
        done
        kids=$(cat /proc/"$p"/task/*/children 2> /dev/null)
        for t in $kids; do todo+=("$t"); done
    done
}

# rel_prof TAG OUTDIR CMD...: one profiled run, `csrun -q -e $REL_EVENT -o
# OUTDIR CMD...` (without -q when REL_QUIET=0; OUTDIR is emptied first),
# pinned as configured, under the hang limit.  Writes TAG.out (stdout),
# TAG.err (stderr, kept apart), TAG.rc, TAG.wall, and TAG.threads for a run
# that reaches the limit (rel_thread_states).
# A run that hits the limit is killed, reported as a failed check
# "hang" (TAG.hang exists) and rel_prof returns 2; otherwise 0.
rel_prof() {
    local tag=$1 dir=$2 limit t0 t1 rc pid watcher i quiet=(-q)
    shift 2
    [ "$REL_QUIET" = 0 ] && quiet=()
    rel_close_run
    rel_runs_made=$((rel_runs_made + 1))
    rm -rf "$dir" "$tag.hang"
    limit=$(rel_hang_limit)
    t0=$(rel_now)
    rel_pinned timeout -k "$REL_GRACE" "$limit" "${rel_launcher[@]}" csrun "${quiet[@]}" -e "$REL_EVENT" -o "$dir" "$@" \
        > "$tag.out" 2> "$tag.err" < /dev/null &
    pid=$!
    # Two seconds before the limit, record the state of every thread of the run (TAG.threads),
    # so that a killed run tells a deadlock (threads asleep in futex) from a slow one (running).
    (
        for ((i = 0; i < limit - 2; i++)); do
            kill -0 "$pid" 2> /dev/null || exit 0
            sleep 1
        done
        rel_thread_states "$pid" > "$tag.threads"
    ) > /dev/null 2>&1 < /dev/null &
    watcher=$!
    wait "$pid"
    rc=$?
    kill "$watcher" 2> /dev/null
    wait "$watcher" 2> /dev/null
    t1=$(rel_now)
    echo "$rc" > "$tag.rc"
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }' > "$tag.wall"
    # timeout exits 124 (or 137 after SIGKILL); the elapsed time tells a hang
    # from a program that exits 124 or dies of SIGKILL itself.
    if { [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; } &&
        awk -v w="$(cat "$tag.wall")" -v l="$limit" 'BEGIN { exit !(w >= l - 0.5) }'; then
        touch "$tag.hang"
        check "$tag: no hang (killed after $(cat "$tag.wall") s; limit $limit s = 3 x baseline ${rel_base_wall:-?} s + 10)" false
        return 2
    fi
    return 0
}

# rel_same TAG BASETAG: TAG ended like BASETAG (same exit status, or the same
# terminating signal) and printed the same stdout; prints the difference
# otherwise.
rel_same() {
    local ok=0
    if [ -e "$1.hang" ]; then
        echo "  $1: hung (killed after $(cat "$1.wall") s); its threads 2 s before (pid tid comm state wchan syscall):"
        head -n 40 "$1.threads" 2> /dev/null | sed 's/^/    /'
        return 1
    fi
    if [ "$(cat "$1.rc")" != "$(cat "$2.rc")" ]; then
        echo "  exit status $(cat "$1.rc"), baseline $(cat "$2.rc"); stderr of $1:"
        head -n 20 "$1.err" | sed 's/^/    /'
        ok=1
    fi
    if ! cmp -s "$1.out" "$2.out"; then
        echo "  stdout differs from the baseline's:"
        diff "$2.out" "$1.out" | head -n 20 | sed 's/^/    /'
        ok=1
    fi
    return $ok
}

# rel_same_err TAG BASETAG: TAG's stderr equals BASETAG's (csrun -q prints
# nothing of its own).
rel_same_err() {
    cmp -s "$1.err" "$2.err" && return 0
    echo "  stderr differs from the baseline's:"
    diff "$2.err" "$1.err" | head -n 20 | sed 's/^/    /'
    return 1
}

# rel_stat WHERE NAME: the sum of counter NAME (e.g. samples.recorded) over
# the profile file WHERE or every profile file in directory WHERE (every
# thread's record of every file), read with csprof-prof --dump; prints 0
# when there is no profile.
rel_stat() {
    local f sum=0 v files
    if [ -d "$1" ]; then files=("$1"/*.cspm); else files=("$1"); fi
    for f in "${files[@]}"; do
        [ -e "$f" ] || continue
        [ -s "$f.txt" ] || csprof-prof --dump "$f" > "$f.txt" 2> /dev/null
        v=$(sed -n "s/^stat name=\"$2\" value=\([0-9]*\)$/\1/p" "$f.txt" | awk '{ s += $1 } END { print s + 0 }')
        sum=$((sum + ${v:-0}))
    done
    echo "$sum"
}

# rel_profiles DIR: the number of thread profiles in DIR (each process writes
# one *.cspm file holding one record per thread; csprof-prof --dump prints
# one header line per thread).
rel_profiles() {
    local f n=0 k
    for f in "$1"/*.cspm; do
        [ -e "$f" ] || continue
        k=$(csprof-prof --dump "$f" 2> /dev/null | grep -c '^header ')
        n=$((n + k))
    done
    echo "$n"
}

# rel_files DIR: the number of measurement files (*.cspm, one per process) in DIR.
rel_files() {
    local n
    n=$(find "$1" -maxdepth 1 -name '*.cspm' 2> /dev/null | wc -l)
    echo "$n"
}

# rel_db DIR DB: merge DIR's profiles into database DB (the full key: value summary in DB.log);
# fails, printing the log, if csprof-prof fails.
rel_db() {
    rm -rf "$2"
    csprof-prof --summary full -o "$2" "$1" > "$2.log" 2>&1 && return 0
    sed 's/^/    /' "$2.log" | head -n 20
    return 1
}

# rel_summary DB ATTR: an attribute of DB's <Summary> (samples, samples-in-main,
# unknown-samples, threads, processes...).
rel_summary() { xp "$1" "string(//Summary/@$2)"; }

# rel_incl_within DB EVENT PROC ANCESTOR: inclusive EVENT of the outermost
# frames of PROC that have a frame of ANCESTOR anywhere above them.
rel_incl_within() {
    local db=$1 ev=$2 p a m
    p=$(or_ids n $(proc_ids "$db" "$3"))
    a=$(or_ids n $(proc_ids "$db" "$4"))
    m=$(metric_id "$db" "$ev" inclusive)
    xp "$db" "sum(//PF[$p][not(ancestor::PF[$p])][ancestor::PF[$a]]/M[@n='$m']/@v)"
}

# rel_total DB EVENT: the total of EVENT in DB (seconds for CPUTIME).
rel_total() { xp "$1" "string(//EventTotal[@event='$2']/@v)"; }

# rel_ratio_ge A B R: A >= R x B and B > 0 (floating point).
rel_ratio_ge() { awk -v a="$1" -v b="$2" -v r="$3" 'BEGIN { exit !(b > 0 && a >= r * b) }'; }

# rel_samples_in PROFILE BINARY FUNC [ANCESTOR]: the samples in one profile
# (a *.cspm file) whose call path goes through FUNC of BINARY (FUNC's frame
# or anything it calls), and with ANCESTOR: only those where a frame of
# ANCESTOR (of BINARY) is above FUNC's.  Read from csprof-prof --dump and
# nm, without analyzing binaries: much faster than a database per profile.
# Functions are matched by symbol address range (a call site's return
# address may be the first byte after its function).
rel_samples_in() {
    local f=$1 bin=$2 fn=$3 anc=${4:-}
    # The dump is kept next to the profile (PROFILE.txt) for the next call.
    [ -s "$f.txt" ] || csprof-prof --dump "$f" > "$f.txt" 2> /dev/null
    awk -v base="$(basename "$bin")" \
        -v fr="$(rel_sym_range "$bin" "$fn")" -v ar="$(rel_sym_range "$bin" "$anc")" '
        function hex(s,   v, i) { # mawk has no strtonum
            s = tolower(s); sub(/^0x/, "", s); v = 0
            for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
            return v
        }
        function inr(r, kind, off,   x, k, lo, hi) { # r: "START SIZE START SIZE..."
            k = split(r, x, " ")
            for (; k >= 2; k -= 2) {
                lo = hex(x[k - 1]); hi = lo + hex(x[k])
                if (kind == "callsite" ? off > lo && off <= hi : off >= lo && off < hi) return 1
            }
            return 0
        }
        function val(k,   i) { for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2); return "" }
        $1 == "module" { path = val("path"); gsub(/"/, "", path); if (path ~ ("/" base "$")) mods[val("id")] = 1 }
        $1 == "node" {
            id = val("id"); p = val("parent"); kind = val("kind"); off = hex(val("offset"))
            mine = (val("module") in mods)
            if (id == p) { f[id] = 0; a[id] = 0; next } # the root
            # f: a FUNC frame is on the path; a: an ANCESTOR frame is above the first FUNC frame.
            f[id] = f[p] || (mine && inr(fr, kind, off))
            a[id] = a[p] || (!f[p] && mine && inr(ar, kind, off))
            if (f[id] && (ar == "" || a[id])) n += val("samples")
        }
        END { print n + 0 }' "$f.txt"
}

# rel_samples_total PROFILE: the samples in PROFILE's calling-context tree.
rel_samples_total() {
    [ -s "$1.txt" ] || csprof-prof --dump "$1" > "$1.txt" 2> /dev/null
    awk '$1 == "node" { for (i = 2; i <= NF; i++) if ($i ~ /^samples=/) n += substr($i, 9) }
        END { print n + 0 }' "$1.txt"
}

# rel_records WHERE: split the profile file WHERE, or every profile file in
# directory WHERE, into one text dump per thread record -- the record
# csprof-prof reads for each thread: its last -- and print one line per record:
#   REC INDEX CPU_NS RECORDED TREE PERIOD_NS DROPPED EVENT_SAMPLES BLOCKED CHECKPOINT
# REC names the record for rel_samples_in, rel_samples_total and rel_content
# (REC.txt is its dump, REC itself does not exist); INDEX the thread index;
# CPU_NS the thread's CPU time when the record was written; RECORDED its
# samples.recorded counter; TREE the samples in its calling-context tree;
# PERIOD_NS the first event's period; DROPPED the sum of its samples.dropped.*
# counters; EVENT_SAMPLES the sum of its event.NAME.samples counters ("-"
# when it has none); BLOCKED its thread.sampling_blocked ("?" when absent);
# CHECKPOINT 1 for a checkpoint (the process ended before the thread's final
# record), else 0.
rel_records() {
    local f files
    if [ -d "$1" ]; then files=("$1"/*.cspm); else files=("$1"); fi
    for f in "${files[@]}"; do
        [ -e "$f" ] || continue
        [ -s "$f.txt" ] || csprof-prof --dump "$f" > "$f.txt" 2> /dev/null
        awk -v pre="$f.r" '
            function val(k,   i) { for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2); return "" }
            function flush() {
                if (n == 0) return
                close(out)
                # %.0f: mawk prints a number above 2^31 as 2.1e+09 otherwise
                printf "%s %s %.0f %.0f %.0f %.0f %.0f %s %s %d\n", pre n, idx, cpu, rec, tree, per, drop,
                    evs == "" ? "-" : sprintf("%.0f", evs), blk == "" ? "?" : blk, ck
            }
            $1 == "file" {
                flush(); n++; out = pre n ".txt"
                idx = "?"; cpu = 0; rec = 0; tree = 0; per = 0; drop = 0; evs = ""; blk = ""; ck = 0
            }
            n == 0 { next }
            { print > out }
            $1 == "header" { idx = val("thread_index"); cpu = val("cpu_ns") }
            $1 == "event" && val("index") == "0" { per = val("period") }
            $1 == "node" { tree += val("samples") }
            $1 == "stat" {
                name = val("name"); gsub(/"/, "", name); v = val("value")
                if (name == "samples.recorded") rec = v
                else if (name ~ /^samples\.dropped\./) drop += v
                else if (name ~ /^event\..*\.samples$/) evs = evs + v
                else if (name == "thread.sampling_blocked") blk = v
            }
            $1 == "record" { ck = val("checkpoint") }
            END { flush() }' "$f.txt"
    done
}

# rel_content TAG FRAC BIN FUNC ANCESTOR SHARE LINE...: the checks of one
# thread's profile content, LINE being the words of one rel_records line:
#  - its calling-context tree holds exactly the samples it counted
#    (TREE = RECORDED = EVENT_SAMPLES, the last where the record has it: no
#    sample counted but lost);
#  - TREE >= FRAC x CPU_NS / PERIOD_NS, FRAC of the samples its CPU time is
#    worth (FRAC "-": not checked);
#  - at least SHARE of TREE lie in FUNC of BIN (its frame or below), and with
#    ANCESTOR (not empty) only those below a frame of ANCESTOR (FUNC "-": not
#    checked).
# Each is one check named "TAG, thread INDEX: ...".
rel_content() {
    local tag=$1 frac=$2 bin=$3 fn=$4 anc=$5 share=$6 rec idx cpu recd tree per _drop evs in what
    shift 6
    rec=$1 idx=$2 cpu=$3 recd=$4 tree=$5 per=$6 _drop=$7 evs=$8
    check "$tag, thread $idx: the tree holds every sample counted (tree $tree, samples.recorded $recd, event samples $evs)" \
        awk -v t="$tree" -v r="$recd" -v e="$evs" 'BEGIN { exit !(t == r && (e == "-" || r == e)) }'
    if [ "$frac" != - ]; then
        check "$tag, thread $idx: $tree samples >= $frac x $(awk -v c="$cpu" -v p="$per" \
            'BEGIN { printf "%.1f", (p > 0 ? c / p : 0) }') (its $(awk -v c="$cpu" \
            'BEGIN { printf "%.3f", c / 1e9 }') s of CPU time / the period)" \
            awk -v t="$tree" -v c="$cpu" -v p="$per" -v f="$frac" 'BEGIN { exit !(p > 0 && c > 0 && t >= f * c / p) }'
    fi
    if [ "$fn" != - ]; then
        in=$(rel_samples_in "$rec" "$bin" "$fn" "$anc")
        what=$fn
        [ -n "$anc" ] && what="$fn under $anc"
        check "$tag, thread $idx: >= $share of its samples in $what ($in of $tree)" \
            rel_ratio_ge "$in" "$tree" "$share"
    fi
}

# rel_samples_nomodule PROFILE: the samples whose sampled address (leaf) is
# in no module (generated code, for instance); not the [kernel] leaves (module
# none at offset 0xffffffffffffff00: time in the kernel below a call site).
rel_samples_nomodule() {
    [ -s "$1.txt" ] || csprof-prof --dump "$1" > "$1.txt" 2> /dev/null
    awk '$1 == "node" && $4 == "kind=leaf" && $5 == "module=none" &&
         $6 != "offset=0xffffffffffffff00" { n += substr($7, 9) }
        END { print n + 0 }' "$1.txt"
}

# rel_samples_repeated PROFILE: the samples under a call-site node whose
# parent is a call site with the same module and return address: a frame
# walked twice (for a program without recursion, that is a wrong walk).
rel_samples_repeated() {
    [ -s "$1.txt" ] || csprof-prof --dump "$1" > "$1.txt" 2> /dev/null
    awk '$1 == "node" {
            id = substr($2, 4); p = substr($3, 8); at[id] = $4 " " $5 " " $6
            bad[id] = (id != p) && (bad[p] || ($4 == "kind=callsite" && at[p] == at[id]))
            if (bad[id]) n += substr($7, 9)
        }
        END { print n + 0 }' "$1.txt"
}

# rel_sym_range BINARY FUNC: "0xSTART 0xSIZE" of FUNC in BINARY's symbol
# table, and of its compiler-made parts and clones (FUNC.constprop.0,
# FUNC.cold...), all on one line (empty if FUNC is empty or not found).  A
# C++ function may be named as written (burn, worker, Ns::f) instead of
# mangled: the demangled names are searched when the mangled ones hold no FUNC.
rel_sym_range() {
    [ -n "$2" ] || return 0
    local cache r
    cache="$work/.nm.$(basename "$1")"
    [ -s "$cache" ] || nm -S --defined-only "$1" > "$cache" 2> /dev/null
    r=$(awk -v f="$2" 'NF == 4 && ($4 == f || index($4, f ".") == 1) { r = r " 0x" $1 " 0x" $2 }
        END { print substr(r, 2) }' "$cache")
    if [ -z "$r" ]; then
        # A C++ name, not found mangled: match the demangled name without its
        # parameters and clone suffixes, with or without its scopes (worker,
        # Ns::worker, (anonymous namespace)::worker).
        [ -s "$cache.C" ] || nm -S -C --defined-only "$1" > "$cache.C" 2> /dev/null
        r=$(awk -v f="$2" '
            function base(s,   i, d) {
                while (sub(/ \[clone [^]]*\]$/, "", s)) { }
                if (substr(s, length(s)) != ")") return s
                d = 0
                for (i = length(s); i > 0; i--) {
                    if (substr(s, i, 1) == ")") d++
                    else if (substr(s, i, 1) == "(" && --d == 0) return substr(s, 1, i - 1)
                }
                return s
            }
            NF >= 4 && $2 ~ /^[0-9a-f]+$/ {
                name = $0; sub(/^[^ ]+ [^ ]+ [^ ]+ /, "", name); b = base(name)
                if (b == f || (length(b) > length(f) + 2 && substr(b, length(b) - length(f) - 1) == "::" f))
                    r = r " 0x" $1 " 0x" $2
            }
            END { print substr(r, 2) }' "$cache.C")
    fi
    echo "$r"
}

# rel_load_start [N]: start N (default REL_LOAD) background CPU hogs, pinned
# like the runs; stopped by rel_load_stop or when the script exits.
rel_load_start() {
    local n=${1:-$REL_LOAD} i
    local pin=()
    [ -n "$REL_PIN" ] && pin=(taskset -c "$REL_PIN")
    for ((i = 0; i < n; i++)); do
        # Each hog also ends by itself soon after this script, however it dies.
        "${pin[@]}" sh -c 'while kill -0 "$1" 2> /dev/null; do
            i=0; while [ $i -lt 20000 ]; do i=$((i + 1)); done; done' hog $$ \
            > /dev/null 2>&1 < /dev/null &
        rel_load_pids="$rel_load_pids $!"
    done
    return 0
}

# rel_load_stop: stop the hogs started by rel_load_start.
rel_load_stop() {
    local p
    for p in $rel_load_pids; do kill -KILL "$p" 2> /dev/null; done
    for p in $rel_load_pids; do wait "$p" 2> /dev/null; done
    rel_load_pids=""
    return 0
}

[ "$REL_LOAD" -gt 0 ] 2> /dev/null && rel_load_start
echo "reliability: event $REL_EVENT, pin '${REL_PIN}', load $REL_LOAD, work $work"
