#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# prof_test.sh -- end-to-end tests of csprof-prof on synthetic measurement
# files (no monitor involved).
#
# Usage: prof_test.sh TEST   with the environment
#   PROF  csprof-prof        GEN   prof_gen (writes .cspm files with lib/fmt)
#   DTD   experiment.dtd     CC    C compiler    SRC  prog.c
#   WORK  scratch directory  STRUCT_TOOL  csprof-struct (optional)
#   SRC_STRIPPED  stripped.c  REPORT  csprof-report (the stripped tests)
#   PROF_MPI  csprof-prof-mpi  MPIEXEC  mpirun (stripped_mpi; skipped when empty)
# Each test compiles prog.c, takes function offsets from `nm -S`, writes
# measurement files with prof_gen, runs csprof-prof and checks the summary
# (stdout) and DB/experiment.xml (xmllint --xpath); every database is
# validated against the DTD.  Exit 0 pass, 1 fail, 77 skipped.

set -u
T=$1
W=$WORK/$T

. "$(dirname "$0")/../harness.sh"
fail() { die "[$T] $*"; }

command -v xmllint >/dev/null 2>&1 || skip "xmllint not installed (Debian: libxml2-utils)"
command -v nm >/dev/null 2>&1 || skip "nm not installed (binutils)"

rm -rf "$W"
mkdir -p "$W" || fail "cannot create $W"
"$CC" -g -O0 -o "$W/prog" "$SRC" || fail "cannot compile $SRC"
nm -S --defined-only "$W/prog" >"$W/prog.syms" || fail "nm failed"

# spec FILE PID TID [CPU_NS]: common header lines of a measurement spec.
spec() {
    cat >"$1" <<EOF
header pid=$2 tid=$3 index=0 cpu_ns=${4:-1000000000} start_ns=1 end_ns=2 program=$W/prog command=prog host=testhost
event CPUTIME ns posix-timer 10000000 1e-9 s
module 1 $W/prog
syms $W/prog.syms
EOF
}

# The standard profile: 10 samples of 10 ms; c has 8 of them exclusively.
standard_paths() {
    cat >>"$1" <<EOF
path main a c = 5 50000000
path main a b c = 3 30000000
path main b = 2 20000000
stat samples.recorded 10
stat samples.partial 0
stat samples.dropped.unsafe 2
EOF
}

gen() { # gen SPEC OUT
    "$GEN" "$1" "$2" || fail "prof_gen $1 failed"
}

# run_prof ARGS...: run csprof-prof, keep stdout/stderr/status.
run_prof() {
    "$PROF" --summary full "$@" >"$W/out" 2>"$W/err"
    rc=$?
}

expect_rc() {
    [ "$rc" -eq "$1" ] || {
        cat "$W/out" "$W/err"
        fail "csprof-prof $2: exit $rc, want $1"
    }
}

# validate DB [--huge]: --huge for call trees nested deeper than libxml2's
# default limit of 256 elements (about 120 frames).
validate() {
    xmllint --noout ${2:-} --dtdvalid "$DTD" "$1/experiment.xml" || fail "$1/experiment.xml does not validate"
}

xp() { # xp DB XPATH
    xmllint --huge --xpath "$2" "$1/experiment.xml" 2>/dev/null
}

# feq A B WHAT: A and B equal within 1e-9 relative.
feq() {
    awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; m = (a < 0 ? -a : a);
        exit !(a != "" && b != "" && d <= 1e-9 * (1 + m)) }' || fail "$3: got '$1', want '$2'"
}

ieq() {
    [ "$1" = "$2" ] || fail "$3: got '$1', want '$2'"
}

has() { # has FILE TEXT
    grep -F -- "$2" "$1" >/dev/null || {
        cat "$1"
        fail "$1 lacks '$2'"
    }
}

proc_id() { # proc_id DB NAME
    xp "$1" "string(//Procedure[@n='$2']/@i)"
}

# Number of the samples (E) metric: after 2 metrics per event.
samples_excl() {
    xp "$1" "string(//Metric[@n='samples (E)']/@i)"
}

# sparse_ok DB: every M names a declared metric, once per node, and is not 0.
sparse_ok() {
    ieq "$(xp "$1" "count(//M[number(@v) = 0])")" 0 "$1: M elements of value 0"
    ieq "$(xp "$1" "count(//M[not(@n = //Metric/@i)])")" 0 "$1: M of an undeclared metric"
    ieq "$(xp "$1" "count(//M[@n = preceding-sibling::M/@n])")" 0 "$1: a metric twice on one node"
}

# stored JSON NODE OVER STAT: csprof-report's threads view (JSON), the database's stored
# statistic STAT over OVER of context NODE as read ("" when not stored).
stored() {
    awk -v node="$2" -v over="$3" -v stat="$4" '
        /^    \{"node": / { split($0, f, /[:,]/); here = (f[2] + 0 == node) }
        here && index($0, "\"" over "\": {\"n\"") {
            s = substr($0, index($0, "\"stored\": {") + 11); s = substr(s, 1, index(s, "}"))
            if ((i = index(s, "\"" stat "\": ")) > 0) { s = substr(s, i + length(stat) + 4); printf "%.17g\n", s + 0 }
            exit
        }' "$1"
}

check_standard() { # check_standard DB FACTOR: the standard profile, FACTOR times
    db=$1
    k=$2
    validate "$db"
    main=$(proc_id "$db" main)
    a=$(proc_id "$db" a)
    b=$(proc_id "$db" b)
    c=$(proc_id "$db" c)
    [ -n "$main" ] && [ -n "$a" ] && [ -n "$b" ] && [ -n "$c" ] || fail "procedures main/a/b/c missing"
    total=$(awk -v k="$k" 'BEGIN { print 0.1 * k }')
    feq "$(xp "$db" "string(//EventTotal[@event='CPUTIME']/@v)")" "$total" "event total"
    feq "$(xp "$db" "string(//SecCallPathProfileData/M[@n='0']/@v)")" "$total" "root inclusive"
    feq "$(xp "$db" "sum(//PF[@n='$main']/M[@n='0']/@v)")" "$total" "inclusive of main"
    feq "$(xp "$db" "sum(//PF/M[@n='1']/@v)")" "$total" "sum of PF exclusive"
    feq "$(xp "$db" "sum(//S/M[@n='1']/@v)")" "$total" "sum of S exclusive"
    feq "$(xp "$db" "sum(//PF[@n='$c']/M[@n='1']/@v)")" "$(awk -v k="$k" 'BEGIN { print 0.08 * k }')" "exclusive of c"
    feq "$(xp "$db" "sum(//PF[@n='$a']/M[@n='0']/@v)")" "$(awk -v k="$k" 'BEGIN { print 0.08 * k }')" "inclusive of a"
    feq "$(xp "$db" "sum(//PF[@n='$b']/M[@n='0']/@v)")" "$(awk -v k="$k" 'BEGIN { print 0.05 * k }')" "inclusive of b (2 contexts)"
    feq "$(xp "$db" "sum(//PF[@n='$b']/M[@n='1']/@v)")" "$(awk -v k="$k" 'BEGIN { print 0.02 * k }')" "exclusive of b"
    feq "$(xp "$db" "sum(//PF[@n='$main']/M[@n='1']/@v)")" 0 "exclusive of main"
    se=$(samples_excl "$db")
    ieq "$(xp "$db" "sum(//PF[@n='$c']/M[@n='$se']/@v)")" "$((8 * k))" "exclusive samples of c"
    ieq "$(xp "$db" "count(//PF[@n='$c'])")" 2 "contexts of c"
    ieq "$(xp "$db" "count(//PF[@n='$main'])")" 1 "contexts of main"
    # every inclusive value is its subtree's statement sum (checked for each PF of a and c)
    for id in $(xp "$db" "//PF[@n='$a' or @n='$c']/@i" | sed 's/[^0-9 ]//g'); do
        feq "$(xp "$db" "string(//PF[@i='$id']/M[@n='0']/@v)")" \
            "$(xp "$db" "sum(//PF[@i='$id']//S/M[@n='1']/@v)")" "inclusive of node $id"
    done
    ieq "$(xp "$db" "string(//Summary/@samples)")" "$((10 * k))" "Summary/@samples"
    ieq "$(xp "$db" "string(//Summary/@samples-in-main)")" "$((10 * k))" "Summary/@samples-in-main"
    ieq "$(xp "$db" "string(//Summary/@main-percent)")" "100.00" "Summary/@main-percent"
    ieq "$(xp "$db" "string(//Stat[@n='samples.dropped.unsafe']/@v)")" "$((2 * k))" "dropped stat"
    ieq "$(xp "$db" "string(//TopProcedures/TopProcedure[@rank='1']/@n)")" c "top procedure"
    ieq "$(xp "$db" "string(//TopProcedures/TopProcedure[@rank='1']/@percent)")" "80.00" "top procedure percent"
    ieq "$(xp "$db" "count(//Metric[@event='calls'])")" 0 "calls column without call counts"
    # top call paths: the three sampled paths, not their prefixes
    ieq "$(xp "$db" "count(//TopPath)")" 3 "top call paths"
    # Callers carry the line of their call site ("main:56 > a:42 > c").
    top=$(xp "$db" "string(//TopPath[@rank='1']/@path)")
    ieq "$(echo "$top" | sed 's/:[0-9]*//g')" "main > a > c" "hottest call path"
    echo "$top" | grep -Eq '^main:[0-9]+ > a:[0-9]+ > c$' || fail "call-site lines in '$top'"
    ieq "$(xp "$db" "string(//TopPath[@rank='2']/@path)" | sed 's/:[0-9]*//g')" "main > a > b > c" "second call path"
    ieq "$(xp "$db" "string(//TopPath[@rank='3']/@path)" | sed 's/:[0-9]*//g')" "main > b" "third call path"
    ieq "$(xp "$db" "string(//TopPath[@rank='1']/@percent)")" "50.00" "hottest call path percent"
    has "$W/out" "samples rooted at a process or thread entry: 100.00%"
    ieq "$(xp "$db" "string(//Summary/@rooted-percent)")" "100.00" "Summary/@rooted-percent"
    has "$W/out" "samples.dropped.unsafe: $((2 * k))"
    grep -Eq "main:[0-9]+ > a:[0-9]+ > c" "$W/out" || fail "summary lacks the hottest call path"
    sed 's/:[0-9]*//g' "$W/out" > "$W/out.nolines"
    has "$W/out.nolines" "main > a > b > c"
    grep -A1 '^top 10 procedures by exclusive CPUTIME:' "$W/out" | grep -E ' 80\.00%.* c$' >/dev/null ||
        fail "c is not the top procedure with 80%"
}

# stripped_setup: for the stripped tests, $W/sprog (stripped.c, -O2 -g), its
# stripped copy sprog_s, the debug file in the build-id tree $W/dbg ($dbgfile
# below it) and an empty debug root $W/nodbg; the loops csprof-struct finds in
# sprog_s ($W/all.loops, the innermost ones in $W/leaf.loops: "LO HI" each, the
# first range's start and the last range's end); $W/a.cspm and its copy
# $W/b.cspm, with 5 samples at the first innermost loop (lo1, hi1) and 3 at
# the second (lo2, hi2).
stripped_setup() {
    [ -n "$STRUCT_TOOL" ] || skip "csprof-struct was not built"
    for t in strip objcopy readelf; do
        command -v $t >/dev/null 2>&1 || skip "$t not installed (binutils)"
    done
    "$CC" -g -O2 -o "$W/sprog" "$SRC_STRIPPED" || fail "cannot compile $SRC_STRIPPED"
    nm -S --defined-only "$W/sprog" >"$W/sprog.syms" || fail "nm failed"
    bid=$(readelf -n "$W/sprog" | awk '/Build ID:/ { print $3 }')
    [ -n "$bid" ] || skip "$CC writes no build-id"
    cp "$W/sprog" "$W/sprog_s" && strip --strip-all "$W/sprog_s" || fail "strip failed"
    dbgfile=.build-id/$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-).debug
    mkdir -p "$(dirname "$W/dbg/$dbgfile")" "$W/nodbg"
    objcopy --only-keep-debug "$W/sprog" "$W/dbg/$dbgfile" || fail "objcopy failed"
    export CSPROF_STRUCT_CACHE="$W/cache"
    CSPROF_DEBUG_DIR=$W/nodbg "$STRUCT_TOOL" -o "$W/s.xml" "$W/sprog_s" 2>/dev/null ||
        fail "csprof-struct failed"
    loops() { # loops XPATH: LO HI of each matching L's v attribute
        xmllint --xpath "$1" "$W/s.xml" 2>/dev/null | sed 's/ v="/\n/g' | sed -n 's/"$//; s/ .*-/-/; /^0x/p' |
            tr '-' ' '
    }
    loops '//L/@v' >"$W/all.loops"
    loops '//L[not(.//L)]/@v' >"$W/leaf.loops"
    [ "$(wc -l <"$W/leaf.loops")" -ge 2 ] || fail "fewer than 2 innermost loops: $(cat "$W/all.loops")"
    lo1=$(sed -n 1p "$W/leaf.loops" | cut -d' ' -f1) hi1=$(sed -n 1p "$W/leaf.loops" | cut -d' ' -f2)
    lo2=$(sed -n 2p "$W/leaf.loops" | cut -d' ' -f1) hi2=$(sed -n 2p "$W/leaf.loops" | cut -d' ' -f2)
    spec "$W/s1" 100 100
    sed -i "s|^module 1 .*|module 1 $W/sprog_s $bid|; s|^syms .*|syms $W/sprog.syms|" "$W/s1"
    printf 'path main %s = 5 50000000\npath main %s = 3 30000000\n' "$lo1" "$lo2" >>"$W/s1"
    gen "$W/s1" "$W/a.cspm"
    cp "$W/a.cspm" "$W/b.cspm"
}

case $T in
arith)
    spec "$W/s1" 100 100
    standard_paths "$W/s1"
    mkdir "$W/m" && gen "$W/s1" "$W/m/a.cspm"
    run_prof -o "$W/db" "$W/m"
    expect_rc 0 "$W/m"
    check_standard "$W/db" 1
    has "$W/out" "measurement files: 1 read, 0 skipped"
    has "$W/out" "threads: 1"
    has "$W/out" "processes: 1"
    has "$W/out" "event CPUTIME: 0.100000 s"
    has "$W/out" "effective samples per CPU-second: 10.0"
    ieq "$(xp "$W/db" "string(//Summary/@samples-per-cpu-second)")" "10.0" "samples per CPU-second"
    [ -f "$W/db/experiment.dtd" ] || fail "experiment.dtd not copied into the database"
    # --top limits both lists
    run_prof --top 1 -o "$W/db1" "$W/m/a.cspm"
    expect_rc 0 "--top 1"
    ieq "$(xp "$W/db1" "count(//TopProcedure)")" 1 "--top 1 procedures"
    ieq "$(xp "$W/db1" "count(//TopPath)")" 1 "--top 1 paths"
    validate "$W/db1"
    ;;
merge_threads)
    spec "$W/s1" 100 100
    standard_paths "$W/s1"
    spec "$W/s2" 100 101
    standard_paths "$W/s2"
    mkdir "$W/m" && gen "$W/s1" "$W/m/t0.cspm" && gen "$W/s2" "$W/m/t1.cspm"
    run_prof -o "$W/db1" "$W/m/t0.cspm"
    expect_rc 0 "one thread"
    run_prof -o "$W/db" "$W/m"
    expect_rc 0 "two threads"
    check_standard "$W/db" 2
    has "$W/out" "threads: 2"
    has "$W/out" "processes: 1"
    ieq "$(xp "$W/db" "count(//PF)")" "$(xp "$W/db1" "count(//PF)")" "PF nodes after merging identical threads"
    ieq "$(xp "$W/db" "count(//S)")" "$(xp "$W/db1" "count(//S)")" "S nodes after merging identical threads"
    ieq "$(xp "$W/db" "count(//Input[@status='read'])")" 2 "inputs read"
    ieq "$(xp "$W/db" "string(//Input[@tid='101']/@pid)")" 100 "thread identity"
    ;;
merge_processes)
    # two processes of two runs, passed as two directories; other files ignored
    spec "$W/s1" 100 100
    standard_paths "$W/s1"
    spec "$W/s2" 200 200 2000000000
    cat >>"$W/s2" <<EOF
path main a c = 10 100000000
stat samples.recorded 10
EOF
    mkdir "$W/run1" "$W/run2"
    gen "$W/s1" "$W/run1/p100.cspm"
    gen "$W/s2" "$W/run2/p200.cspm"
    echo "not a measurement" >"$W/run2/notes.txt"
    run_prof -o "$W/db" "$W/run1" "$W/run2"
    expect_rc 0 "two processes"
    validate "$W/db"
    has "$W/out" "measurement files: 2 read, 0 skipped"
    has "$W/out" "threads: 2"
    has "$W/out" "processes: 2"
    c=$(proc_id "$W/db" c)
    main=$(proc_id "$W/db" main)
    feq "$(xp "$W/db" "string(//EventTotal/@v)")" 0.2 "total of two processes"
    feq "$(xp "$W/db" "sum(//PF[@n='$main']/M[@n='0']/@v)")" 0.2 "inclusive of main"
    feq "$(xp "$W/db" "sum(//PF[@n='$c']/M[@n='1']/@v)")" 0.18 "exclusive of c"
    ieq "$(xp "$W/db" "count(//PF[@n='$c'])")" 2 "contexts of c after merging"
    ieq "$(xp "$W/db" "string(//Stat[@n='samples.recorded']/@v)")" 20 "summed stat"
    has "$W/out" "effective samples per CPU-second: 6.7" # 20 samples / 3 CPU-seconds
    ;;
skip_corrupt)
    spec "$W/s1" 100 100
    standard_paths "$W/s1"
    mkdir "$W/m"
    gen "$W/s1" "$W/m/good.cspm"
    size=$(wc -c <"$W/m/good.cspm")
    head -c $((size / 2)) "$W/m/good.cspm" >"$W/m/truncated.cspm"
    echo "garbage garbage garbage" >"$W/m/garbage.cspm"
    echo "readme" >"$W/m/README"
    run_prof -o "$W/db" "$W/m"
    expect_rc 0 "with corrupt files"
    validate "$W/db"
    has "$W/err" "truncated.cspm"
    has "$W/err" "garbage.cspm"
    grep 'truncated.cspm.*byte [0-9]' "$W/err" >/dev/null || fail "no byte offset for the truncated file"
    has "$W/out" "2 of 3 measurement files skipped"
    has "$W/out" "measurement files: 1 read, 2 skipped"
    ieq "$(xp "$W/db" "string(//Summary/@files-skipped)")" 2 "Summary/@files-skipped"
    ieq "$(xp "$W/db" "string(//Summary/@files-read)")" 1 "Summary/@files-read"
    ieq "$(xp "$W/db" "count(//Input[@status='skipped'][@error])")" 2 "skipped inputs with errors"
    feq "$(xp "$W/db" "string(//EventTotal/@v)")" 0.1 "total from the good file"
    ;;
all_bad)
    mkdir "$W/m" "$W/empty"
    echo "garbage" >"$W/m/x.cspm"
    run_prof -o "$W/db" "$W/m"
    expect_rc 1 "only corrupt files"
    has "$W/err" "no readable measurement file"
    [ ! -e "$W/db/experiment.xml" ] || fail "a database was written without measurements"
    run_prof -o "$W/db" "$W/empty"
    expect_rc 1 "empty directory"
    has "$W/err" "no *.cspm"
    run_prof -o "$W/db" "$W/does-not-exist"
    expect_rc 1 "missing input"
    has "$W/err" "does-not-exist"
    ;;
db_refuse)
    spec "$W/s1" 100 100
    standard_paths "$W/s1"
    gen "$W/s1" "$W/a.cspm"
    run_prof -o "$W/db" "$W/a.cspm"
    expect_rc 0 "first run"
    cp "$W/db/experiment.xml" "$W/saved.xml"
    run_prof -o "$W/db" "$W/a.cspm"
    expect_rc 1 "existing database"
    has "$W/err" "--force"
    has "$W/err" "$W/db"
    cmp -s "$W/db/experiment.xml" "$W/saved.xml" || fail "the refused run changed experiment.xml"
    run_prof --force -o "$W/db" "$W/a.cspm"
    expect_rc 0 "--force"
    validate "$W/db"
    mkdir "$W/emptydb"
    run_prof -o "$W/emptydb" "$W/a.cspm"
    expect_rc 0 "existing empty directory"
    validate "$W/emptydb"
    touch "$W/afile"
    run_prof --force -o "$W/afile" "$W/a.cspm"
    expect_rc 1 "database path is a file"
    has "$W/err" "not a directory"
    # default database name, in the current directory
    (cd "$W" && "$PROF" a.cspm >/dev/null 2>&1) || fail "run with the default database name failed"
    validate "$W/csprof-database"
    ;;
dump)
    spec "$W/s1" 4242 4343
    standard_paths "$W/s1"
    gen "$W/s1" "$W/a.cspm"
    run_prof --dump "$W/a.cspm"
    expect_rc 0 "--dump"
    has "$W/out" "pid=4242"
    has "$W/out" "tid=4343"
    has "$W/out" "CPUTIME"
    has "$W/out" "$W/prog"
    has "$W/out" "samples.dropped.unsafe"
    [ "$(grep -c 'leaf' "$W/out")" -ge 3 ] || fail "--dump shows fewer than 3 leaves"
    echo garbage >"$W/bad.cspm"
    run_prof --dump "$W/a.cspm" "$W/bad.cspm"
    expect_rc 1 "--dump with a bad file"
    has "$W/out" "==> $W/a.cspm <=="
    has "$W/err" "bad.cspm"
    ;;
usage)
    run_prof --bogus x
    expect_rc 2 "--bogus"
    has "$W/err" "--bogus"
    run_prof --top lots x
    expect_rc 2 "--top lots"
    has "$W/err" "lots"
    run_prof --top -3 x
    expect_rc 2 "--top -3"
    run_prof -o
    expect_rc 2 "-o without a value"
    run_prof -o "" x
    expect_rc 2 "-o ''"
    run_prof
    expect_rc 2 "no arguments"
    run_prof --dump
    expect_rc 2 "--dump without files"
    run_prof -S "$W/missing.struct" -o "$W/db" "$W"
    expect_rc 1 "missing structure file"
    has "$W/err" "missing.struct"
    run_prof --help
    expect_rc 0 "--help"
    has "$W/out" "Usage: csprof-prof"
    has "$W/out" "csprof-database"
    run_prof -V
    expect_rc 0 "-V"
    has "$W/out" "csprof-prof "
    ;;
trust)
    # The trust report (lib/trust, docs/trust.md) from four synthetic threads, 10 ms period:
    # a: 1 CPU-s, 10 samples (100 ms) in the tree, 2 dropped (20 ms), 5 ms after its last
    #    period, blocked: the rest (875 ms) is its blocked part.
    spec "$W/s1" 100 100
    standard_paths "$W/s1"
    cat >>"$W/s1" <<EOF
stat thread.sampling_blocked 1
stat event.CPUTIME.samples 10
stat event.CPUTIME.measured 1000000000
stat event.CPUTIME.recorded 100000000
stat event.CPUTIME.kernel 0
stat event.CPUTIME.dropped 20000000
stat event.CPUTIME.unplaced 0
stat event.CPUTIME.tail 5000000
EOF
    # b: the task clock, 0.5 CPU-s, one sample (10 ms), 450 ms in the kernel without a context,
    #    5 ms after its last record, 500 ms counted: 35 ms that nothing explains.
    spec "$W/s2" 100 101 500000000
    sed -i 's/^event CPUTIME ns posix-timer /event CPUTIME ns perf-task-clock:u /' "$W/s2"
    cat >>"$W/s2" <<EOF
path main b = 1 10000000
stat samples.recorded 1
stat event.CPUTIME.samples 1
stat event.CPUTIME.measured 500000000
stat event.CPUTIME.recorded 10000000
stat event.CPUTIME.kernel 0
stat event.CPUTIME.dropped 0
stat event.CPUTIME.unplaced 450000000
stat event.CPUTIME.tail 5000000
stat event.CPUTIME.enabled_ns 500000000
EOF
    # c: its tree holds 1 sample, its counters 5: a mismatch (a tree written incomplete).
    spec "$W/s3" 100 102 100000000
    cat >>"$W/s3" <<EOF
path main c = 1 10000000
stat samples.recorded 5
stat event.CPUTIME.samples 5
stat event.CPUTIME.measured 100000000
stat event.CPUTIME.recorded 50000000
stat event.CPUTIME.kernel 0
stat event.CPUTIME.dropped 0
stat event.CPUTIME.unplaced 0
stat event.CPUTIME.tail 0
EOF
    # d: 0.3 CPU-s and no sample, its signal not blocked: a thread that could not be sampled.
    spec "$W/s4" 100 103 300000000
    cat >>"$W/s4" <<EOF
stat samples.recorded 0
stat event.CPUTIME.samples 0
stat event.CPUTIME.measured 300000000
stat event.CPUTIME.recorded 0
stat event.CPUTIME.kernel 0
stat event.CPUTIME.dropped 0
stat event.CPUTIME.unplaced 0
stat event.CPUTIME.tail 0
EOF
    gen "$W/s1" "$W/a.cspm"
    gen "$W/s2" "$W/b.cspm"
    gen "$W/s3" "$W/c.cspm"
    gen "$W/s4" "$W/d.cspm"
    run_prof -o "$W/db" "$W/a.cspm" "$W/b.cspm" "$W/c.cspm" "$W/d.cspm"
    expect_rc 0 "trust"
    validate "$W/db"
    has "$W/err" "1 thread record(s) whose calling-context tree disagrees with its own counters"
    ieq "$(xp "$W/db" "string(//Trust/@verdict)")" doubtful "verdict with a mismatched thread"
    has "$W/out" "trust: DOUBTFUL: 1 thread record(s) whose calling-context tree disagrees"
    ieq "$(xp "$W/db" "string(//Trust/Threads/@mismatched)")" 1 "mismatched threads"
    # e: counters that claim more than was measured (a bug): a negative rest, never clamped
    spec "$W/s5" 100 104 100000000
    cat >>"$W/s5" <<EOF
path main a = 15 150000000
stat samples.recorded 15
stat event.CPUTIME.samples 15
stat event.CPUTIME.measured 100000000
stat event.CPUTIME.recorded 150000000
stat event.CPUTIME.kernel 0
stat event.CPUTIME.dropped 0
stat event.CPUTIME.unplaced 0
stat event.CPUTIME.tail 0
EOF
    gen "$W/s5" "$W/e.cspm"
    run_prof -o "$W/dbe" "$W/e.cspm"
    expect_rc 0 "trust: an over-claim"
    ieq "$(xp "$W/dbe" "string(//Trust/Ledger[@event='CPUTIME']/@unexplained)")" -50000000 "a negative rest"
    ieq "$(xp "$W/dbe" "string(//Trust/@reason)")" "CPUTIME's counters account for 50.0% more than it measured" "the over-claim's verdict"
    # f: a record without the ledger's counters (an older csprof) whose tree holds 1 sample of
    # the 5 it counted: the sample count alone shows the mismatch
    spec "$W/s6" 100 105 100000000
    cat >>"$W/s6" <<EOF
path main c = 1 10000000
stat samples.recorded 5
EOF
    gen "$W/s6" "$W/f.cspm"
    run_prof -o "$W/dbf" "$W/f.cspm"
    expect_rc 0 "trust: a sample-count mismatch"
    has "$W/err" "1 thread record(s) whose calling-context tree disagrees with its own counters"
    ieq "$(xp "$W/dbf" "string(//Trust/Threads/@mismatched)")" 1 "a sample-count mismatch"
    # every part, summed over the threads (ns): the parts add up to what was measured
    L="//Trust/Ledger[@event='CPUTIME']"
    ieq "$(xp "$W/db" "string($L/@measured)")" 1900000000 "measured"
    ieq "$(xp "$W/db" "string($L/@recorded)")" 160000000 "recorded"
    ieq "$(xp "$W/db" "string($L/@dropped)")" 20000000 "dropped"
    ieq "$(xp "$W/db" "string($L/@unplaced)")" 450000000 "unplaced"
    ieq "$(xp "$W/db" "string($L/@tail)")" 10000000 "tail"
    ieq "$(xp "$W/db" "string($L/@blocked)")" 875000000 "a's rest is its blocked part"
    # c's counters claim 50 ms of its 100: the other 50 never came (a POSIX timer), as d's
    # 300 ms; b's 35 ms are not explained
    ieq "$(xp "$W/db" "string($L/@undelivered)")" 350000000 "undelivered"
    ieq "$(xp "$W/db" "string($L/@unexplained)")" 35000000 "unexplained"
    sum=$(xp "$W/db" "$L/@recorded + $L/@dropped + $L/@unplaced + $L/@tail + $L/@uncounted + $L/@undelivered + $L/@blocked + $L/@unexplained")
    ieq "$(printf "%.0f" "$sum")" 1900000000 "the parts add up to measured"
    ieq "$(xp "$W/db" "count(//Trust/Thread[@mismatch='1'][@pid='100'][@tid='102'])")" 1 "c named"
    ieq "$(xp "$W/db" "count(//Trust/Thread[@pid='100'][@tid='103'][@samples='0'])")" 1 "d named"
    ieq "$(xp "$W/db" "string(//Trust/Drop[@reason='other']/@samples)")" 2 "drops by reason"
    # without c, the first doubt is the thread that got no sample
    run_prof -o "$W/db2" "$W/a.cspm" "$W/b.cspm" "$W/d.cspm"
    expect_rc 0 "trust without the mismatch"
    ieq "$(xp "$W/db2" "string(//Trust/@reason)")" "1 thread(s) with CPU time for 20 periods or more got no sample" "the next doubt"
    tr '\n' ' ' <"$W/out" | sed 's/  */ /g' >"$W/out1"
    has "$W/out1" "CPUTIME@10000 (posix-timer): 1.800 s measured, 180.0 samples' worth: 11.0 recorded"
    has "$W/out1" "2.0 dropped, 45.0 in the kernel without a calling context, 1.0 after the last period"
    has "$W/out1" "30.0 not delivered, 87.5 in blocked threads, 3.5 not explained"
    ;;
changed)
    # The measured build-id is not prog's: prog was rebuilt after the measurement.
    # Its addresses must not be mapped through the new file (item 12 of issue 7).
    spec "$W/s1" 100 100
    sed -i "s|^module 1 $W/prog\$|module 1 $W/prog 0123456789abcdef0123456789abcdef01234567|" "$W/s1"
    standard_paths "$W/s1"
    gen "$W/s1" "$W/a.cspm"
    run_prof -o "$W/db" "$W/a.cspm"
    expect_rc 0 "changed binary"
    validate "$W/db"
    ieq "$(xp "$W/db" "string(//LoadModule[@n='$W/prog']/@structure)")" changed "structure of the rebuilt prog"
    ieq "$(xp "$W/db" "count(//Procedure[@n='main' or @n='a' or @n='b' or @n='c'])")" 0 "no procedure named from the new file"
    n=$(xp "$W/db" "count(//Procedure[starts-with(@n, 'prog+0x')])")
    [ "$n" -ge 3 ] || fail "addresses kept as prog+0xOFFSET (got $n procedures)"
    ieq "$(xp "$W/db" "string(//Summary/@changed-samples)")" 10 "Summary/@changed-samples"
    has "$W/err" "changed since the measurement"
    has "$W/out" "modules changed since the measurement: 1 (10 samples"
    has "$W/out" "0123456789abcdef0123456789abcdef01234567 measured"
    ;;
unknown)
    spec "$W/s1" 100 100
    cat >>"$W/s1" <<EOF
path main @0x7f0000001234 = 2 20000000
path main 0x10 = 3 30000000
module 2 /nonexistent/libfoo.so
path 0x5000 = 4 40000000
module 3 [vdso]
path 0x900 = 1 10000000
EOF
    gen "$W/s1" "$W/a.cspm"
    run_prof -o "$W/db" "$W/a.cspm"
    expect_rc 0 "unknown addresses"
    validate "$W/db"
    ieq "$(xp "$W/db" "count(//Procedure[@n='[unknown module]'][@unknown='1'])")" 1 "[unknown module]"
    ieq "$(xp "$W/db" "count(//Procedure[@n='[unknown] prog+0x10'])")" 1 "[unknown] prog+0x10"
    ieq "$(xp "$W/db" "count(//Procedure[@n='[unknown] libfoo.so+0x5000'])")" 1 "unanalyzable module"
    ieq "$(xp "$W/db" "count(//Procedure[@n='[unknown] [vdso]+0x900'])")" 1 "[vdso]"
    ieq "$(xp "$W/db" "string(//LoadModule[@n='/nonexistent/libfoo.so']/@structure)")" none "structure of a missing module"
    ieq "$(xp "$W/db" "string(//LoadModule[@n='$W/prog']/@structure)")" analyzed "structure of prog"
    ieq "$(xp "$W/db" "string(//Summary/@unknown-samples)")" 10 "Summary/@unknown-samples"
    has "$W/err" "/nonexistent/libfoo.so"
    has "$W/out" "samples at unknown addresses: 10 (100.00%)"
    has "$W/out" "samples rooted at a process or thread entry: 50.00% (5 of 10)"
    # leaf-only paths: the vdso one is partial although no counter said so; libfoo
    # (no file, no structure) could hold an entry point: its root is not judged
    has "$W/out" "samples not rooted (partial call paths): 1 (0 whose walk reported stopping early (samples.partial), 1 more"
    has "$W/out" "samples whose root cannot be judged (outermost frame in a file without structure): 4"
    feq "$(xp "$W/db" "string(//EventTotal/@v)")" 0.1 "total"
    ;;
events)
    # CPUTIME in one file, REALTIME in another, both in a third (different periods)
    spec "$W/s1" 100 100
    echo "path main a c = 1 10000000" >>"$W/s1"
    cat >"$W/s2" <<EOF
header pid=101 tid=101
event REALTIME ns posix-timer 5000000 1e-9 s
module 1 $W/prog
syms $W/prog.syms
path main b = 1 5000000
EOF
    cat >"$W/s3" <<EOF
header pid=102 tid=102
event REALTIME ns posix-timer 5000000 1e-9 s
event CPUTIME ns posix-timer 20000000 1e-9 s
module 1 $W/prog
syms $W/prog.syms
path main a c = 2 10000000 40000000
EOF
    mkdir "$W/m"
    gen "$W/s1" "$W/m/1.cspm" && gen "$W/s2" "$W/m/2.cspm" && gen "$W/s3" "$W/m/3.cspm"
    run_prof -o "$W/db" "$W/m"
    expect_rc 0 "two events"
    validate "$W/db"
    ieq "$(xp "$W/db" "count(//Metric[not(@stat)])")" 6 "metrics for two events"
    # three processes of one thread each: over processes only (those over threads would be
    # the same), no sum (the metric itself): 2 events x 6 statistics x I/E
    ieq "$(xp "$W/db" "count(//Metric[@stat])")" 24 "statistics: 2 events x processes x 6 x I/E"
    ieq "$(xp "$W/db" "count(//Metric[@stat][@over='processes'][@population='3'])")" 24 "statistics over the 3 processes"
    ieq "$(xp "$W/db" "string(//Metric[@event='CPUTIME'][@t='inclusive']/@mixed-periods)")" 1 "mixed periods"
    feq "$(xp "$W/db" "string(//EventTotal[@event='CPUTIME']/@v)")" 0.05 "CPUTIME total"
    feq "$(xp "$W/db" "string(//EventTotal[@event='REALTIME']/@v)")" 0.015 "REALTIME total"
    has "$W/out" "event CPUTIME: 0.050000 s"
    has "$W/out" "event REALTIME: 0.015000 s"
    has "$W/out" "effective samples per CPU-second: 4.0" # cpu_ns only in the first file
    rt=$(xp "$W/db" "string(//Metric[@event='REALTIME'][@t='exclusive']/@i)")
    c=$(proc_id "$W/db" c)
    feq "$(xp "$W/db" "sum(//PF[@n='$c']/M[@n='$rt']/@v)")" 0.01 "REALTIME exclusive of c"
    ;;
deep_odd)
    # recursion 250 frames deep, and header strings that are not UTF-8
    spec "$W/s1" 100 100
    frames=$(awk 'BEGIN { for (i = 0; i < 250; i++) printf " a"; }')
    echo "path main$frames c = 4 40000000" >>"$W/s1"
    echo "path main$frames = 1 10000000" >>"$W/s1"
    printf 'header command=caf\351\001x host=h\303\251\n' >>"$W/s1"
    gen "$W/s1" "$W/a.cspm"
    run_prof -o "$W/db" "$W/a.cspm"
    expect_rc 0 "deep recursion"
    validate "$W/db" --huge
    a=$(proc_id "$W/db" a)
    main=$(proc_id "$W/db" main)
    ieq "$(xp "$W/db" "count(//PF[@n='$a'])")" 250 "recursive frames of a"
    feq "$(xp "$W/db" "sum(//PF[@n='$main']/M[@n='0']/@v)")" 0.05 "inclusive of main"
    feq "$(xp "$W/db" "sum(//PF/M[@n='1']/@v)")" 0.05 "sum of PF exclusive"
    ieq "$(xp "$W/db" "string(//Input/@command)")" "caf\\xe9\\x01x" "non-UTF-8 command"
    ieq "$(xp "$W/db" "string(//Input/@host)")" "hé" "UTF-8 host"
    ;;
calls)
    spec "$W/s1" 100 100
    cat >>"$W/s1" <<EOF
path main a c = 1 10000000 calls=7
path main b = 1 10000000 calls=5
EOF
    gen "$W/s1" "$W/a.cspm"
    run_prof -o "$W/db" "$W/a.cspm"
    expect_rc 0 "calls"
    validate "$W/db"
    cm=$(xp "$W/db" "string(//Metric[@event='calls']/@i)")
    [ -n "$cm" ] || fail "no calls metric"
    ieq "$(xp "$W/db" "sum(//C/M[@n='$cm']/@v)")" 12 "call counts on call sites"
    ieq "$(xp "$W/db" "string(//Summary/@calls)")" 12 "Summary/@calls"
    ;;
inline_libc)
    # an inlined frame (inl, always_inline into d) and a frame in libc, both
    # mapped by struct_analyze() on the module paths of the load map
    libc=$(readlink -f "$("$CC" -print-file-name=libc.so.6)")
    [ -f "$libc" ] || skip "cannot locate libc.so.6"
    nm -D -S --defined-only "$libc" >"$W/libc.syms" || fail "nm -D $libc failed"
    spec "$W/s1" 100 100
    cat >>"$W/s1" <<EOF
path main d = 3 30000000
module 2 $libc
syms $W/libc.syms
path main a qsort = 2 20000000
EOF
    gen "$W/s1" "$W/a.cspm"
    run_prof -o "$W/db" "$W/a.cspm"
    expect_rc 0 "inline and libc"
    validate "$W/db"
    d=$(proc_id "$W/db" d)
    inl=$(proc_id "$W/db" inl)
    [ -n "$inl" ] || fail "no procedure for the inlined function inl"
    ieq "$(xp "$W/db" "count(//PF[@n='$d']/A[@n='$inl'])")" 1 "inlined frame inl in d"
    ieq "$(xp "$W/db" "count(//PF[@n='$d']/A[@n='$inl']//S)")" 1 "statement inside the inlined frame"
    feq "$(xp "$W/db" "string(//PF[@n='$d']/M[@n='1']/@v)")" 0.03 "exclusive of d includes inlined code"
    feq "$(xp "$W/db" "string(//PF[@n='$d']/A/M[@n='1']/@v)")" 0.03 "exclusive of the inlined frame"
    ieq "$(xp "$W/db" "string(//TopProcedure[@rank='1']/@n)")" inl "top procedure is the inlined one"
    sed 's/:[0-9]*//g' "$W/out" > "$W/out.nolines"
    has "$W/out.nolines" "main > d > inl"
    lm=$(xp "$W/db" "string(//LoadModule[@n='$libc']/@i)")
    ieq "$(xp "$W/db" "string(//LoadModule[@i='$lm']/@structure)")" analyzed "structure of libc"
    ieq "$(xp "$W/db" "count(//Procedure[@lm='$lm'][@unknown='1'])")" 0 "unknown procedures in libc"
    name=$(xp "$W/db" "string(//Procedure[@lm='$lm']/@n)")
    [ -n "$name" ] || fail "no procedure in libc"
    sed 's/:[0-9]*//g' "$W/out" > "$W/out.nolines"
    has "$W/out.nolines" "main > a > $name"
    ;;
structure_file)
    [ -n "${STRUCT_TOOL:-}" ] && [ -x "$STRUCT_TOOL" ] || skip "csprof-struct is not built"
    "$STRUCT_TOOL" "$W/prog" >"$W/prog.struct" || fail "csprof-struct $W/prog failed"
    spec "$W/s1" 100 100
    standard_paths "$W/s1"
    gen "$W/s1" "$W/a.cspm"
    run_prof -S "$W/prog.struct" -o "$W/db" "$W/a.cspm"
    expect_rc 0 "-S"
    check_standard "$W/db" 1
    ieq "$(xp "$W/db" "string(//LoadModule[@n='$W/prog']/@structure)")" file "structure from -S"
    ieq "$(xp "$W/db" "string(//LoadModule[@n='$W/prog']/@source)")" "$W/prog.struct" "structure source"
    run_prof -o "$W/db2" "$W/a.cspm"
    expect_rc 0 "without -S"
    ieq "$(xp "$W/db" "count(//PF)")" "$(xp "$W/db2" "count(//PF)")" "PF nodes with and without -S"
    ieq "$(xp "$W/db" "count(//S)")" "$(xp "$W/db2" "count(//S)")" "S nodes with and without -S"
    ;;
derived)
    # -M derived metrics: stored with their formula, values on every node; a bad one is one line, exit 2
    spec "$W/s1" 100 100
    standard_paths "$W/s1"
    gen "$W/s1" "$W/a.cspm"
    run_prof -o "$W/db" -M 'half=CPUTIME/2' -M 'per_sample = CPUTIME / samples' "$W/a.cspm"
    expect_rc 0 "-M"
    validate "$W/db"
    ieq "$(xp "$W/db" "count(//Metric[@formula])")" 4 "two derived metrics, inclusive and exclusive"
    ieq "$(xp "$W/db" "string(//Metric[@event='half'][@t='inclusive']/@formula)")" "CPUTIME/2" "formula stored"
    hi=$(xp "$W/db" "string(//Metric[@event='half'][@t='inclusive']/@i)")
    pe=$(xp "$W/db" "string(//Metric[@event='per_sample'][@t='exclusive']/@i)")
    c=$(proc_id "$W/db" c)
    feq "$(xp "$W/db" "string(//SecCallPathProfileData/M[@n='$hi']/@v)")" 0.05 "half of the total"
    for v in $(xp "$W/db" "//PF[@n='$c']/M[@n='$pe']/@v" | sed 's/[^0-9.e-]/ /g'); do
        feq "$v" 0.01 "exclusive CPUTIME per sample of c"
    done
    # exclusive values where they differ from the inclusive ones: the formula on the exclusive
    # CPUTIME (main: 0 of 0.1; b: 0.02 of 0.05, over its two contexts main > b and main > a > b)
    he=$(xp "$W/db" "string(//Metric[@event='half'][@t='exclusive']/@i)")
    main=$(proc_id "$W/db" main)
    b=$(proc_id "$W/db" b)
    feq "$(xp "$W/db" "sum(//PF[@n='$main']/M[@n='$hi']/@v)")" 0.05 "half of main's inclusive"
    feq "$(xp "$W/db" "sum(//PF[@n='$main']/M[@n='$he']/@v)")" 0 "half of main's exclusive"
    feq "$(xp "$W/db" "sum(//PF[@n='$b']/M[@n='$hi']/@v)")" 0.025 "half of b's inclusive"
    feq "$(xp "$W/db" "sum(//PF[@n='$b']/M[@n='$he']/@v)")" 0.01 "half of b's exclusive"
    feq "$(xp "$W/db" "sum(//PF/M[@n='$he']/@v)")" 0.05 "half of the frames' exclusive, summed"
    feq "$(xp "$W/db" "string(//SecFlatProfileData/M[@n='$hi']/@v)")" 0.05 "derived metric in the static view"
    run_prof -o "$W/db2" -M 'x=CPUTIME*(2' "$W/a.cspm"
    expect_rc 2 "bad -M"
    has "$W/err" "csprof-prof: -M 'x=CPUTIME*(2': position 13: ')' expected"
    ieq "$(wc -l <"$W/err")" 1 "one line for a bad expression"
    run_prof -o "$W/db3" -M 'y=cycles/instructions' "$W/a.cspm"
    expect_rc 2 "-M with an unknown metric"
    has "$W/err" "position 3: no metric of this name"
    ;;
runs)
    # several measurement directories: different events -> one column each; the same event summed,
    # or one column per run with --runs separate
    mkdir "$W/r1" "$W/r2" "$W/r3"
    spec "$W/s1" 100 100
    standard_paths "$W/s1"
    gen "$W/s1" "$W/r1/a.cspm"
    gen "$W/s1" "$W/r3/a.cspm"
    cat >"$W/s2" <<EOS
header pid=200 tid=200 host=testhost
event REALTIME ns posix-timer 5000000 1e-9 s
module 1 $W/prog
syms $W/prog.syms
path main b = 4 20000000
EOS
    gen "$W/s2" "$W/r2/b.cspm"
    run_prof -o "$W/db" "$W/r1" "$W/r2"
    expect_rc 0 "two runs, two events"
    validate "$W/db"
    ieq "$(xp "$W/db" "count(//Metric[@t='inclusive'][not(@stat)][@event='CPUTIME' or @event='REALTIME'])")" 2 "one column per event"
    feq "$(xp "$W/db" "string(//EventTotal[@event='REALTIME']/@v)")" 0.02 "REALTIME total"
    feq "$(xp "$W/db" "string(//EventTotal[@event='CPUTIME']/@v)")" 0.1 "CPUTIME total"
    ieq "$(xp "$W/db" "string(//Input[@path='$W/r2/b.cspm']/@run)")" 1 "second run"
    run_prof -o "$W/db2" "$W/r1" "$W/r3"
    expect_rc 0 "same event summed"
    feq "$(xp "$W/db2" "string(//EventTotal[@event='CPUTIME']/@v)")" 0.2 "summed runs"
    run_prof --runs separate -o "$W/db3" "$W/r1" "$W/r3"
    expect_rc 0 "--runs separate"
    validate "$W/db3"
    feq "$(xp "$W/db3" "string(//EventTotal[@event='CPUTIME [run 1]']/@v)")" 0.1 "run 1 apart"
    feq "$(xp "$W/db3" "string(//EventTotal[@event='CPUTIME [run 2]']/@v)")" 0.1 "run 2 apart"
    run_prof --runs both -o "$W/db4" "$W/r1"
    expect_rc 2 "bad --runs"
    has "$W/err" "csprof-prof: --runs: 'both' is not 'sum' or 'separate'"
    ;;
stats)
    # two processes of two threads: per-thread values (thread-values.bin) and statistics columns
    spec "$W/s0" 300 300
    spec "$W/s1" 300 301
    spec "$W/s2" 400 400
    spec "$W/s3" 400 401
    echo "path main a c = 1 10000000" >>"$W/s0" # c: 10 ms in thread 300/300
    echo "path main a c = 3 30000000" >>"$W/s1" #    30 ms in 300/301
    echo "path main b = 1 10000000" >>"$W/s2"   # no c in process 400
    echo "path main b = 1 10000000" >>"$W/s3"
    mkdir "$W/m"
    for i in 0 1 2 3; do gen "$W/s$i" "$W/m/$i.cspm"; done
    run_prof -o "$W/db" "$W/m"
    expect_rc 0 "2 x 2 threads"
    validate "$W/db"
    c=$(proc_id "$W/db" c)
    m() { xp "$W/db" "string(//Metric[@stat='$1'][@over='$2'][@of='0']/@i)"; }
    # c inclusive per thread: 0.01, 0.03, 0, 0: mean 0.01, min 0, max 0.03, count 2
    feq "$(xp "$W/db" "string(//PF[@n='$c']/M[@n='$(m mean threads)']/@v)")" 0.01 "mean over threads"
    feq "$(xp "$W/db" "string(//PF[@n='$c']/M[@n='$(m max threads)']/@v)")" 0.03 "max over threads"
    ieq "$(xp "$W/db" "count(//PF[@n='$c']/M[@n='$(m min threads)'])")" 0 "min over threads is 0 (absent)"
    feq "$(xp "$W/db" "string(//PF[@n='$c']/M[@n='$(m count threads)']/@v)")" 2 "threads with c"
    feq "$(xp "$W/db" "string(//PF[@n='$c']/M[@n='$(m stddev threads)']/@v)")" 0.0122474487139159 "stddev over threads"
    # per process: 0.04, 0: one process alone, so only count 1 is written; csprof-report
    # reads mean 0.02, stddev 0.02, cv 1
    feq "$(xp "$W/db" "string(//PF[@n='$c']/M[@n='$(m count processes)']/@v)")" 1 "processes with c"
    ieq "$(xp "$W/db" "count(//PF[@n='$c']/M[@n='$(m mean processes)'])")" 0 "mean over processes (follows from count 1)"
    "$REPORT" --view threads --format json "$W/db" >"$W/th.json" || fail "csprof-report --view threads"
    cn=$(xp "$W/db" "string(//PF[@n='$c']/@i)")
    feq "$(stored "$W/th.json" "$cn" processes mean)" 0.02 "mean over processes as read"
    feq "$(stored "$W/th.json" "$cn" processes stddev)" 0.02 "stddev over processes as read"
    feq "$(stored "$W/th.json" "$cn" processes cv)" 1 "cv over processes as read"
    feq "$(stored "$W/th.json" "$cn" threads stddev)" 0.0122474487139159 "stddev over threads as read"
    ieq "$(xp "$W/db" "string(//Metric[@stat='mean'][@over='threads'][@of='0']/@population)")" 4 "population"
    ieq "$(xp "$W/db" "count(//Metric[@stat])")" 24 "statistics: 2 populations x 6 x I/E, no sum"
    sparse_ok "$W/db"
    ieq "$(xp "$W/db" "count(//Input[@thread])")" 4 "inputs with a thread"
    ieq "$(xp "$W/db" "count(//Input[@process='0'])")" 2 "two inputs in process 0"
    [ -f "$W/db/thread-values.bin" ] || fail "no thread-values.bin"
    ieq "$(head -c 8 "$W/db/thread-values.bin")" CSPTHRV1 "thread-values magic"
    ;;
stats_size)
    # The database writes only what carries information: statistics only over more than one
    # thread (process), never the sum (it is the metric itself), no 0, and where one thread
    # alone has a value only its count; csprof-report fills the rest in (db_read.c).
    # (1) one thread: no statistics at all
    spec "$W/s1" 100 100
    standard_paths "$W/s1"
    mkdir "$W/m1" "$W/m2" "$W/m3"
    gen "$W/s1" "$W/m1/1.cspm"
    run_prof -o "$W/db1" "$W/m1"
    expect_rc 0 "one thread"
    check_standard "$W/db1" 1
    ieq "$(xp "$W/db1" "count(//Metric[@stat])")" 0 "one thread: statistics columns"
    ieq "$(xp "$W/db1" "count(//M[not(@n = //Metric[not(@stat)]/@i)])")" 0 "one thread: statistics values"
    sparse_ok "$W/db1"
    "$REPORT" --view threads --format json "$W/db1" >"$W/th1.json" || fail "csprof-report --view threads (one thread)"
    grep -F '"stored": {"' "$W/th1.json" >/dev/null && fail "one thread: csprof-report reads stored statistics"
    grep -F '"threads": {"n": 1, "sum": 0.1, "mean": 0.1, "min": 0.1, "max": 0.1,' "$W/th1.json" >/dev/null ||
        fail "one thread: csprof-report's statistics of the whole run (0.1 s)"
    # (2) two threads of one process: c in both (10, 30 ms), b in thread 201 alone (10 ms)
    spec "$W/s2" 200 200
    echo "path main a c = 1 10000000" >>"$W/s2"
    spec "$W/s3" 200 201
    echo "path main a c = 3 30000000" >>"$W/s3"
    echo "path main b = 1 10000000" >>"$W/s3"
    gen "$W/s2" "$W/m2/1.cspm" && gen "$W/s3" "$W/m2/2.cspm"
    run_prof -o "$W/db2" "$W/m2"
    expect_rc 0 "two threads"
    validate "$W/db2"
    sparse_ok "$W/db2"
    ieq "$(xp "$W/db2" "count(//Metric[@stat])")" 12 "two threads: 6 statistics x I/E"
    ieq "$(xp "$W/db2" "count(//Metric[@stat][@over='threads'][@population='2'][@show='0'])")" 12 "two threads: over threads, hidden"
    ieq "$(xp "$W/db2" "count(//Metric[@stat='sum'])")" 0 "no sum column (it is the metric itself)"
    c=$(proc_id "$W/db2" c)
    b=$(proc_id "$W/db2" b)
    m() { xp "$W/db2" "string(//Metric[@stat='$1'][@over='threads'][@of='0']/@i)"; }
    # c inclusive per thread: 0.01, 0.03: mean 0.02, min 0.01, max 0.03, stddev 0.01, cv 0.5
    feq "$(xp "$W/db2" "string(//PF[@n='$c']/M[@n='$(m mean)']/@v)")" 0.02 "c: mean"
    feq "$(xp "$W/db2" "string(//PF[@n='$c']/M[@n='$(m min)']/@v)")" 0.01 "c: min"
    feq "$(xp "$W/db2" "string(//PF[@n='$c']/M[@n='$(m max)']/@v)")" 0.03 "c: max"
    feq "$(xp "$W/db2" "string(//PF[@n='$c']/M[@n='$(m stddev)']/@v)")" 0.01 "c: stddev"
    feq "$(xp "$W/db2" "string(//PF[@n='$c']/M[@n='$(m cv)']/@v)")" 0.5 "c: cv"
    feq "$(xp "$W/db2" "string(//PF[@n='$c']/M[@n='$(m count)']/@v)")" 2 "c: count"
    # b: one thread alone: count 1 (inclusive and exclusive) is all that is written
    ieq "$(xp "$W/db2" "count(//PF[@n='$b']/M[@n = //Metric[@stat]/@i])")" 2 "b: statistics written"
    feq "$(xp "$W/db2" "string(//PF[@n='$b']/M[@n='$(m count)']/@v)")" 1 "b: count"
    # csprof-report reads them as stored: b's filled in from its value 0.01 over N = 2
    "$REPORT" --view threads --format json "$W/db2" >"$W/th2.json" || fail "csprof-report --view threads (two threads)"
    bn=$(xp "$W/db2" "string(//PF[@n='$b']/@i)")
    cn=$(xp "$W/db2" "string(//PF[@n='$c']/@i)")
    feq "$(stored "$W/th2.json" "$cn" threads mean)" 0.02 "c: stored mean as read"
    feq "$(stored "$W/th2.json" "$cn" threads stddev)" 0.01 "c: stored stddev as read"
    feq "$(stored "$W/th2.json" "$bn" threads mean)" 0.005 "b: stored mean as read"
    feq "$(stored "$W/th2.json" "$bn" threads max)" 0.01 "b: stored max as read"
    feq "$(stored "$W/th2.json" "$bn" threads stddev)" 0.005 "b: stored stddev as read"
    feq "$(stored "$W/th2.json" "$bn" threads cv)" 1 "b: stored cv as read"
    # (3) two processes of one thread: over processes only
    spec "$W/s4" 300 300
    echo "path main a c = 1 10000000" >>"$W/s4"
    spec "$W/s5" 400 400
    echo "path main a c = 3 30000000" >>"$W/s5"
    gen "$W/s4" "$W/m3/1.cspm" && gen "$W/s5" "$W/m3/2.cspm"
    run_prof -o "$W/db3" "$W/m3"
    expect_rc 0 "two processes"
    validate "$W/db3"
    sparse_ok "$W/db3"
    ieq "$(xp "$W/db3" "count(//Metric[@stat][@over='processes'][@population='2'])")" 12 "two processes: over processes"
    ieq "$(xp "$W/db3" "count(//Metric[@stat][@over='threads'])")" 0 "one thread per process: none over threads"
    ;;
offsets)
    # module-relative addresses on every scope; an unanalyzable module still shows module+0xOFFSET
    spec "$W/s1" 100 100
    standard_paths "$W/s1"
    cat >>"$W/s1" <<EOS
module 2 $W/no-such-lib.so
path main 0x1234 = 1 10000000
EOS
    gen "$W/s1" "$W/a.cspm"
    run_prof -o "$W/db" "$W/a.cspm"
    expect_rc 0 "offsets"
    validate "$W/db"
    ieq "$(xp "$W/db" "count(//SecCallPathProfileData//*[self::PF or self::C or self::S][not(@a)])")" 0 "every PF, C, S has a="
    c=$(proc_id "$W/db" c)
    want=$(awk '$4 == "c" { sub(/^0+/, "", $1); print "0x" $1 }' "$W/prog.syms")
    ieq "$(xp "$W/db" "string((//PF[@n='$c'])[1]/@a)")" "$want" "PF a= is the procedure's entry"
    lib=$(xp "$W/db" "string(//LoadModule[@n='$W/no-such-lib.so']/@i)")
    ieq "$(xp "$W/db" "string(//S[@lm='$lib']/@a)")" 0x1234 "statement in a module without structure"
    ieq "$(xp "$W/db" "count(//StaticLM)")" 2 "static view: two load modules"
    ;;
sources)
    # source files copied into DB/src from -I roots only: hostile DWARF names are refused
    mkdir -p "$W/src/sub" "$W/outside"
    echo "secret" >"$W/outside/secret.c"
    ln -s "$W/outside" "$W/src/link" || skip "cannot create a symbolic link"
    ln -s "$W/outside/secret.c" "$W/src/sub/alias.c"
    cat >"$W/src/sub/ok.c" <<'EOS'
volatile int sink;
__attribute__((noinline)) void ok_fn(void) { for (int i = 0; i < 100; i++) sink += i; }
EOS
    cat >"$W/src/hostile.c" <<EOS
extern void ok_fn(void);
volatile int hsink;
#line 1 "../../../../../../../../../../$W/outside/secret.c"
__attribute__((noinline)) void up_fn(void) { for (int i = 0; i < 100; i++) hsink += i; }
#line 1 "$W/outside/secret.c"
__attribute__((noinline)) void abs_fn(void) { for (int i = 0; i < 100; i++) hsink += i; }
#line 1 "link/secret.c"
__attribute__((noinline)) void link_fn(void) { for (int i = 0; i < 100; i++) hsink += i; }
#line 1 "sub/alias.c"
__attribute__((noinline)) void alias_fn(void) { for (int i = 0; i < 100; i++) hsink += i; }
#line 1 "/etc/passwd"
int main(void) { extern void ctl_fn(void); up_fn(); abs_fn(); link_fn(); alias_fn(); ok_fn(); ctl_fn(); return 0; }
EOS
    # a directory whose name holds a newline and 0x01: the database escapes them ("\x0a")
    ctl="$W/src/d$(printf '\n')x$(printf '\001')y"
    mkdir -p "$ctl"
    cat >"$ctl/ctl.c" <<'EOS'
volatile int csink;
__attribute__((noinline)) void ctl_fn(void) { for (int i = 0; i < 100; i++) csink += i; }
EOS
    (cd "$W/src" && "$CC" -g -O0 -o "$W/hprog" hostile.c sub/ok.c "$ctl/ctl.c") || fail "cannot compile hostile.c"
    nm -S --defined-only "$W/hprog" >"$W/hprog.syms" || fail "nm failed"
    cat >"$W/s1" <<EOS
header pid=500 tid=500 program=$W/hprog host=testhost
event CPUTIME ns posix-timer 10000000 1e-9 s
module 1 $W/hprog
syms $W/hprog.syms
path main up_fn = 1 10000000
path main abs_fn = 1 10000000
path main link_fn = 1 10000000
path main alias_fn = 1 10000000
path main ok_fn = 1 10000000
path main ctl_fn = 1 10000000
EOS
    gen "$W/s1" "$W/a.cspm"
    run_prof -o "$W/db" -I "$W/src" "$W/a.cspm"
    expect_rc 0 "-I"
    validate "$W/db"
    [ -d "$W/db/src" ] || fail "no DB/src"
    [ -z "$(find "$W/db/src" -type l)" ] || fail "a symbolic link in DB/src"
    grep -r -q secret "$W/db/src" && fail "a file from outside the -I root was copied"
    ieq "$(find "$W/db/src" -type f -name ok.c | wc -l)" 1 "ok.c copied"
    src=$(xp "$W/db" "string(//File[contains(@n, 'ok.c')]/@src)")
    [ -n "$src" ] && [ -f "$W/db/$src" ] || fail "File src='$src' is not in the database"
    ieq "$(find "$W/db/src" -type f -name ctl.c | wc -l)" 1 "ctl.c (control bytes in its directory) copied"
    src=$(xp "$W/db" "string(//File[contains(@n, 'ctl.c')]/@src)")
    [ -n "$src" ] && cmp -s "$W/db/$src" "$ctl/ctl.c" || fail "File src='$src' of ctl.c is not its copy"
    ieq "$(xp "$W/db" "count(//File[contains(@n, 'secret') or contains(@n, 'alias') or contains(@n, 'passwd')][@src])")" 0 "hostile names have no copy"
    has "$W/err" "not copied: outside the -I directories"
    has "$W/err" "not copied: a symbolic link is on its path"
    # --replace-path: the sources moved after the build (DWARF names them sub/ok.c)
    mv "$W/src/sub" "$W/moved"
    run_prof -o "$W/db2" -I "$W/moved" --replace-path "sub/=" "$W/a.cspm"
    expect_rc 0 "--replace-path"
    ieq "$(find "$W/db2/src" -type f -name ok.c | wc -l)" 1 "ok.c found through --replace-path"
    run_prof -o "$W/db3" --replace-path nothing "$W/a.cspm"
    expect_rc 2 "bad --replace-path"
    ;;
stripped)
    # A stripped binary (Debian's are): with its debug file in a build-id tree
    # under the debug root (CSPROF_DEBUG_DIR) it gets names and lines; without
    # one, each of its loops is named by its address range, kept apart from
    # the others, in the database, the report and the viewer's data, and
    # csprof-prof says once which build-id path it looked for.
    stripped_setup

    # Without debug information.
    CSPROF_DEBUG_DIR=$W/nodbg run_prof -o "$W/db" "$W/a.cspm"
    expect_rc 0 "stripped, no debug file"
    validate "$W/db"
    nl=$(xp "$W/db" "count(//SecCallPathProfileData//L)")
    [ "$nl" -ge 2 ] || fail "loops of the stripped binary: $nl L elements"
    ieq "$(xp "$W/db" "count(//L[@l or @f])")" 0 "loops without lines"
    ieq "$(xp "$W/db" "count(//L[@end])")" "$nl" "every loop has its end="
    ieq "$(xp "$W/db" "count(//L[@a='$lo1'][@end='$hi1'])")" 1 "the first innermost loop is a node"
    ieq "$(xp "$W/db" "count(//L[@a='$lo2'][@end='$hi2'])")" 1 "the second innermost loop is a node"
    ieq "$(xp "$W/db" "count(//StaticL[@end])")" "$nl" "static view: a scope per loop"
    # csprof-report --by loop: one row per loop, named by its range, its own values
    "$REPORT" "$W/db" --view flat --by loop --format csv >"$W/flat.csv" ||
        fail "csprof-report --by loop failed"
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
             { print $c["name"] "|" $c["exclusive"] }' "$W/flat.csv" >"$W/flat.rows"
    ieq "$(wc -l <"$W/flat.rows")" "$nl" "--by loop rows (one per loop)"
    while IFS='|' read -r name excl; do
        r=$(echo "${name#loop at sprog_s+}" | sed 's/\.\./ /')
        grep -qx "$r" "$W/all.loops" ||
            fail "--by loop row '$name' is no loop of the structure: $(tr '\n' ',' <"$W/all.loops")"
    done <"$W/flat.rows"
    has "$W/flat.rows" "loop at sprog_s+$lo1..$hi1|"
    has "$W/flat.rows" "loop at sprog_s+$lo2..$hi2|"
    feq "$(grep -F "loop at sprog_s+$lo1..$hi1|" "$W/flat.rows" | cut -d'|' -f2)" 0.05 \
        "exclusive of the first loop"
    feq "$(grep -F "loop at sprog_s+$lo2..$hi2|" "$W/flat.rows" | cut -d'|' -f2)" 0.03 \
        "exclusive of the second loop"
    "$REPORT" "$W/db" --loops keep >"$W/td.txt" || fail "csprof-report --loops keep failed"
    has "$W/td.txt" "loop at sprog_s+$lo1..$hi1"
    grep -r -- 'loop at ?' "$W/td.txt" "$W/flat.csv" "$W/db/viewer" && fail "a loop is still named 'loop at ?:0'"
    has "$W/db/viewer/data.js" "loop at sprog_s+$lo1..$hi1"
    has "$W/db/viewer/data.js" "loop at sprog_s+$lo2..$hi2"
    # one note for the module, naming the build-id path looked for
    ieq "$(grep -c "sprog_s" "$W/err")" 1 "lines of stderr about sprog_s"
    has "$W/err" "note: $W/sprog_s: "
    has "$W/err" "looked for $W/nodbg/$dbgfile"
    # two inputs, merged by two threads: the serial database, still one note
    CSPROF_DEBUG_DIR=$W/nodbg run_prof -j 1 -o "$W/db1" "$W/a.cspm" "$W/b.cspm"
    expect_rc 0 "stripped, two inputs"
    CSPROF_DEBUG_DIR=$W/nodbg run_prof -j 2 -o "$W/db2" "$W/a.cspm" "$W/b.cspm"
    expect_rc 0 "stripped, two inputs, -j 2"
    cmp "$W/db1/experiment.xml" "$W/db2/experiment.xml" || fail "-j 2 differs from -j 1"
    ieq "$(grep -c "sprog_s" "$W/err")" 1 "lines of stderr about sprog_s (-j 2)"
    ieq "$(xp "$W/db2" "count(//SecCallPathProfileData//L)")" "$nl" "loops of two inputs"

    # With the debug file in the build-id tree: names and lines, no note.
    CSPROF_DEBUG_DIR=$W/dbg run_prof -o "$W/dbd" "$W/a.cspm"
    expect_rc 0 "stripped, build-id debug file"
    validate "$W/dbd"
    ieq "$(xp "$W/dbd" "count(//Procedure[@n='work' or @n='main'])")" 2 "work and main named"
    [ "$(xp "$W/dbd" "count(//L[@l])")" -ge 2 ] || fail "loops with lines from the debug file"
    ieq "$(xp "$W/dbd" "count(//L[not(@l)] | //L[@end])")" 0 "every loop has a line"
    "$REPORT" "$W/dbd" --view flat --by loop --format csv >"$W/flatd.csv" || fail "csprof-report failed"
    has "$W/flatd.csv" ",loop at stripped.c:"
    grep -F 'sprog_s+' "$W/flatd.csv" && fail "a loop named by address although the debug file has lines"
    grep -q "sprog_s" "$W/err" && fail "a note about sprog_s although its debug file was found: $(cat "$W/err")"
    ;;
stripped_mpi)
    # csprof-prof-mpi: a part crosses processes as a buffer, which must carry
    # the address ranges of loops without lines (the serial database, one note).
    [ -n "${PROF_MPI:-}" ] && [ -n "${MPIEXEC:-}" ] ||
        skip "csprof-prof-mpi or mpirun was not found at build time (install libopenmpi-dev)"
    stripped_setup
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 # CI containers run as root
    CSPROF_DEBUG_DIR=$W/nodbg run_prof -j 1 -o "$W/db1" "$W/a.cspm" "$W/b.cspm"
    expect_rc 0 "stripped, two inputs"
    # no leak check under ASan: Open MPI's own allocations (see prof_parallel.sh)
    ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" \
        CSPROF_DEBUG_DIR=$W/nodbg timeout 120 "$MPIEXEC" -np 2 --oversubscribe "$PROF_MPI" -j 1 \
        -o "$W/dbm" "$W/a.cspm" "$W/b.cspm" >"$W/out" 2>"$W/err"
    rc=$?
    expect_rc 0 "csprof-prof-mpi, stripped"
    ieq "$(xp "$W/dbm" "count(//L[@a='$lo1'][@end='$hi1'])")" 1 "the first innermost loop is a node"
    cmp "$W/db1/experiment.xml" "$W/dbm/experiment.xml" || fail "csprof-prof-mpi differs from -j 1"
    ieq "$(grep -c "sprog_s" "$W/err")" 1 "lines of stderr about sprog_s (csprof-prof-mpi)"
    ;;
*)
    fail "unknown test $T"
    ;;
esac
pass "[$T]"
finish
