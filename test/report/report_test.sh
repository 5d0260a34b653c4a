#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# report_test.sh CASE -- csprof-report on real databases (csrun + csprof-struct +
# csprof-prof of programs built here), checked by the tools that read each
# format (a speedscope schema check, a flamegraph-input check) and by
# properties: totals equal in every view and format, the folded and
# speedscope exports' calling-context paths equal the top-down tree's path by
# path, bottom-up and top-down agree, inclusive = exclusive + children, a diff
# of a database with itself is zero, hostile names survive.  The pprof and
# callgrind exports of each formats_agree call are kept in
# $CSPROF_REPORT_KEEP/CASE/N/ for export_paths.sh (report_pprof_paths,
# report_callgrind_paths: go tool pprof and callgrind_annotate read them).
# Environment as for test/integration (lib.sh); CHECK = check_report.py.
# Cases: fig1 hostile recursion callgrind hidden threads mpi make diff diffgold diffbuild
# processes errors.
. "$CSPROF_SOURCE/test/integration/lib.sh"
case_=${1:?case}
# Debian's python3 (python3-jsonschema) when there, else whatever python3 is on PATH
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
CHECK="$PY $CSPROF_SOURCE/test/report/check_report.py"
R=csprof-report
export COLUMNS=100
case $case_ in
*[!a-z0-9]*) echo "bad case name $case_"; exit 2 ;;
esac
# this case's kept exports (formats_agree), emptied first: never a previous run's
keep=${CSPROF_REPORT_KEEP:-$work/keep}/$case_
nkeep=0
rm -rf "$keep"

# profile DB PROGRAM ARGS...: run under csrun, analyze, write DB.
profile() {
    local db=$1; shift
    rm -rf measurements "$db"
    csrun "$@" > /dev/null || return 1
    csprof-struct "$1" > "$db.struct" 2> /dev/null || return 1
    csprof-prof -S "$db.struct" measurements/ -o "$db" > /dev/null 2>&1
}

# eq A B: equal as numbers (integers or floats printed by python)
eq() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a == b) }'; }
# near A B REL: |A - B| <= REL * max(|A|, |B|, 1)
near() {
    awk -v a="$1" -v b="$2" -v r="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; m = a < 0 ? -a : a;
        if ((b < 0 ? -b : b) > m) m = b < 0 ? -b : b; if (m < 1) m = 1; exit !(d <= r * m) }'
}

# speedscope's own schema, from its npm package, when npm can fetch it (else the
# checker falls back to the schema as documented, written by hand).
# The schema is cached in the build tree, so only the first case fetches it.
speedscope_schema() {
    local cache=$CSPROF_BUILD/speedscope-file-format-schema.json
    [ -n "${SPEEDSCOPE_SCHEMA:-}" ] && { echo "$SPEEDSCOPE_SCHEMA"; return; }
    [ -s "$cache" ] && { echo "$cache"; return; }
    command -v npm > /dev/null || return 0
    (cd "$work" && timeout 60 npm pack --silent speedscope > /dev/null 2>&1 &&
        tar xzf speedscope-*.tgz package/dist/release/file-format-schema.json 2> /dev/null &&
        cp package/dist/release/file-format-schema.json "$cache.$$" && mv "$cache.$$" "$cache") &&
        echo "$cache"
}

# paths_agree FORMAT FILE: the export's calling-context paths, each with its
# exclusive value, equal those of the top-down tree td.json (check_report.py paths).
paths_agree() {
    local out
    out=$($CHECK paths td.json "$1" "$2") || { echo "$out"; return 1; }
    echo "  $out paths, each = the tree's"
}

# keep_exports DIR DB METRIC [TRANSFORM...]: the pprof (all metrics, METRIC the
# default sample type) and callgrind exports into DIR, with td.json and flat.json.
keep_exports() {
    local dir=$1 db=$2 m=$3; shift 3
    mkdir -p "$dir" && $R --metric "$m" --format pprof -o "$dir/out.pb.gz" "$@" "$db" &&
        $R --format callgrind -o "$dir/out.callgrind" "$@" "$db" && cp td.json flat.json "$dir/"
}

# formats_agree DB METRIC [TRANSFORM...]: every view and format has the same total;
# folded and speedscope (its sampled profile's stacks and weights) have the tree's
# paths; pprof's default sample type is METRIC; the pprof and callgrind exports are
# kept in $keep/N/ with the tree (td.json), the flat view (flat.json) and 'what'
# (the metric, then the transforms).
formats_agree() {
    local db=$1 m=$2 tag; shift 2
    tag="$m${*:+ $*}"
    $R --metric "$m" --threshold 0 --format json "$@" "$db" > td.json
    check "[$tag] top-down: inclusive = exclusive + children" sh -c "$CHECK tree td.json > td.total"
    local total; total=$(cat td.total)
    $R --metric "$m" --view bottom-up --format json "$@" "$db" > bu.json
    # (tables print floating-point sums: equal up to the last digits)
    check "[$tag] bottom-up total = top-down total ($total)" near "$($CHECK rows bu.json)" "$total" 1e-9
    $R --metric "$m" --view flat --format json "$@" "$db" > flat.json
    check "[$tag] flat total = top-down total" near "$($CHECK rows flat.json)" "$total" 1e-9
    $R --metric "$m" --format folded "$@" "$db" > out.folded
    # (a failing checker prints its reason: shown, and the value left empty)
    local folded; folded=$($CHECK folded out.folded) || { echo "$folded"; folded=; }
    check "[$tag] folded parses as flamegraph input (sum $folded)" test -n "$folded"
    check "[$tag] folded: every path (lines split on ';') = the tree's, with its value" paths_agree folded out.folded
    $R --metric "$m" --format speedscope "$@" "$db" > out.speedscope.json
    local ss; ss=$($CHECK speedscope out.speedscope.json "$SCHEMA") || { echo "$ss"; ss=; }
    check "[$tag] speedscope validates (endValue $ss)" test -n "$ss"
    check "[$tag] speedscope total = folded total" eq "$ss" "$folded"
    check "[$tag] speedscope: every sampled stack = a path of the tree, its weight the path's value" \
        paths_agree speedscope out.speedscope.json
    nkeep=$((nkeep + 1))
    check "[$tag] pprof and callgrind exports kept in $keep/$nkeep" keep_exports "$keep/$nkeep" "$db" "$m" "$@"
    local dflt; dflt=$($CHECK pprof-default "$keep/$nkeep/out.pb.gz")
    check "[$tag] pprof: the default sample type is the chosen metric ($dflt)" test "$dflt" = "$m"
    printf '%s\n%s\n' "$m" "$tag" > "$keep/$nkeep/what"
    if [ "$m" = samples ]; then
        check "[$tag] raw total = table total" eq "$folded" "$total"
    else
        check "[$tag] raw total (ns) = table total (s)" near "$folded" "$(awk -v t="$total" 'BEGIN { printf "%.0f", t * 1e9 }')" 1e-6
    fi
}

# fits WIDTH FILE: no line is wider than WIDTH columns (code points).
fits() {
    $PY -c 'import sys
w = int(sys.argv[1])
bad = [l for l in open(sys.argv[2], encoding="utf-8").read().split("\n") if len(l) > w]
sys.exit(1 if bad else 0)' "$1" "$2"
}

SCHEMA=$(speedscope_schema)
[ -n "$SCHEMA" ] && echo "speedscope schema: $SCHEMA" || echo "speedscope schema: not available, checking by hand"

case $case_ in
fig1)
    cp "$CSPROF_EXAMPLES/fig1" ./app
    check "profile fig1" profile db ./app
    for m in samples CPUTIME; do formats_agree db $m; done
    formats_agree db samples --hide '^b$'
    formats_agree db samples --keep-roots --loops keep
    $R --threshold 0 --format json --hide '^b$' db > hide.json
    check "--hide b: no frame b" sh -c "! grep -q '\"name\": \"b\"' hide.json"
    # d's cost per call is 0.001 s, either side of it in binary: one format for all
    # (0.0010, never the %g form 0.001 that a value just under 0.001 once printed as)
    $R --threshold 0 db > text.txt
    check "incl/call of 0.001 prints as 0.0010 on both sides of it" \
        sh -c "! awk '{ for (i = 1; i <= NF; i++) if (\$i == \"0.001\") bad = 1 } END { exit !bad }' text.txt"
    $R --format json --focus '^a$' db > focus.json
    $R --view flat --format json db > flat.json
    check "--focus a: total = a's inclusive" eq "$($CHECK tree focus.json)" "$($CHECK flat-incl flat.json a)"
    $R --format json --keep-roots --threshold 0 db > roots.json
    check "--keep-roots shows _start" grep -q '"name": "_start"' roots.json
    $R --format json --threshold 0 db > default.json
    check "roots elided by default" sh -c "! grep -q '\"name\": \"_start\"' default.json"
    $R --format json --keep-roots --hide-lib 'libc\.so' --threshold 0 db > hidelib.json
    check "--hide-lib libc: no __libc_start_call_main" sh -c "! grep -q __libc_start_call_main hidelib.json"
    $R --format json --depth 1 db > depth.json
    check "--depth 1: only depth 1" sh -c "! grep -q '\"depth\": 2' depth.json"
    $R --format json --loops keep --threshold 0 db > loops.json
    check "--loops keep: loop nodes" grep -q '"kind": "loop"' loops.json
    $R --view flat --by loop --format json db > floops.json
    check "flat --by loop lists fig1.c's loop" grep -q 'loop at fig1.c' floops.json
    $R --view flat --by line --format csv db > lines.csv
    check "flat --by line: fig1.c lines" grep -q 'fig1.c:' lines.csv
    $R --view flat --by file --format csv db > files.csv
    check "flat --by file: fig1.c" grep -q 'fig1.c' files.csv
    $R --view flat --by module --format csv db > mods.csv
    check "flat --by module: app" grep -q '/app' mods.csv
    $R --sort exclusive --view flat db > flat_sorted.txt
    check "--sort exclusive: c first in the flat view" sh -c "sed -n 5p flat_sorted.txt | grep -q ' c\$'"
    for v in top-down bottom-up flat threads paths; do
        $R --view $v --keep-roots --width 60 db > view_$v.txt
        check "--view $v --width 60 fits in 60 columns" fits 60 view_$v.txt
        COLUMNS=72 $R --view $v --keep-roots db > view_$v.txt
        check "--view $v with COLUMNS=72 fits" fits 72 view_$v.txt
    done
    check "paths: long paths elided in the middle" grep -q '…' view_paths.txt
    # the paths view's header and values are in the table views' format
    $R db > td.txt
    $R --view paths db > paths.txt
    check "paths: '% of total' as top-down's ($(grep -o '% of total .*' td.txt))" \
        sh -c 'grep -q "$(grep -o "% of total .*" td.txt)\$" paths.txt'
    check "paths: costs in units for people, as the tables" \
        sh -c 'sed -n 3p paths.txt | grep -Eq "^ *[0-9.]+% +[0-9]+\.[0-9]{2} (s |ms|µs|ns)  main"'
    check "threads: says what per-thread data the database has" \
        grep -E -q 'over 1 threads: sum' view_threads.txt
    $R --view threads --format json db > threads.json
    check "threads json parses" $PY -c 'import json,sys; d=json.load(open("threads.json")); assert len(d["threads"]) == 1' 
    # csprof-prof's own summary: one screen from csprof-report's code; -q silences it
    check "csprof-prof summary screen" sh -c 'csprof-prof measurements/ -o sdb > screen.txt 2> /dev/null'
    cat screen.txt
    check "summary fits one screen (<= 30 lines of <= 100 columns)" sh -c '[ $(wc -l < screen.txt) -le 30 ] && '"$PY"' -c "import sys; sys.exit(any(len(l) > 100 for l in open(\"screen.txt\", encoding=\"utf-8\").read().split(\"\\n\")))"'
    check "summary has the sample quality" grep -q '^sample quality: .*% rooted' screen.txt
    $R --view flat --sort exclusive --limit 5 sdb > flat5.txt
    check "summary's top procedures = csprof-report --view flat --sort exclusive --limit 5" \
        sh -c 'grep -F -x -f flat5.txt screen.txt | wc -l | grep -qx "$(wc -l < flat5.txt)"'
    $R --view paths --limit 5 sdb > paths5.txt
    check "summary's hot paths = csprof-report --view paths --limit 5" \
        sh -c 'grep -F -x -f paths5.txt screen.txt | wc -l | grep -qx "$(wc -l < paths5.txt)"'
    check "csprof-prof -q prints the database path only" sh -c \
        'csprof-prof -q measurements/ -o qdb 2> /dev/null > q.txt && [ "$(cat q.txt)" = "database: qdb/experiment.xml" ]'
    check "csprof-prof --summary full: every fact" sh -c \
        'csprof-prof --summary full measurements/ -o fdb 2> /dev/null | grep -q "^effective samples per CPU-second"'
    # the flat view read from the database's stored static view = recomputed from the tree
    for by in procedure file module; do
        $R --view flat --by $by --keep-roots --format json db > fs.json
        $R --view flat --by $by --keep-roots --recompute --format json db > fr.json
        check "flat --by $by: stored static view = recomputed from the tree" $CHECK same-rows fs.json fr.json
    done
    # derived metrics (-M) as report columns
    check "analyze with derived metrics" sh -c 'csprof-prof -M "ms=CPUTIME*1000" -M "spc=CPUTIME/samples" measurements/ -o ddb > /dev/null 2>&1'
    for v in top-down flat bottom-up; do
        $R --view $v --metric ms --threshold 0 --format json ddb > dm.json
        check "--metric ms ($v): derived = 1000 x CPUTIME in every row" $PY -c '
import json
d = json.load(open("dm.json")); assert d["derived"]["formula"] == "CPUTIME*1000" and d["nodes"]
for n in d["nodes"]:
    assert abs(n["derived"][0] - 1000 * n["inclusive"]) <= 1e-6 * max(1, abs(n["derived"][0])), n
    assert abs(n["derived"][1] - 1000 * n["exclusive"]) <= 1e-6 * max(1, abs(n["derived"][1])), n'
    done
    $R --metric spc --threshold 0 --format json ddb > spc.json
    stored=$(sed -n 's|.*<Metric i="\([0-9]*\)" n="spc (I)".*|\1|p' ddb/experiment.xml)
    check "--metric spc: values equal the stored derived values of the same contexts" $PY -c '
import json, re, sys
d = json.load(open("spc.json")); m = sys.argv[1]
xml = open("ddb/experiment.xml").read()
stored = set("%.6g" % float(v) for v in re.findall(r"<M n=\"%s\" v=\"([^\"]+)\"" % m, xml))
got = ["%.6g" % n["derived"][0] for n in d["nodes"] if n["kind"] == "frame"]
assert got and all(g in stored for g in got), (got, stored)' "$stored"
    # one rule for undefined values in csprof-prof and csprof-report; a tab
    # and a newline in -M are stored as blanks.  dz divides by zero where a context has exactly 1 sample (maybe none);
    # d0 everywhere (CPUTIME + undefined: the whole value, not CPUTIME)
    check "analyze with a derived metric dividing by zero" sh -c 'csprof-prof -M "$(printf "dz=1 +\tCPUTIME /\n(samples - 1)")" -M "d0=CPUTIME + CPUTIME/(samples - samples)" measurements/ -o zdb > /dev/null 2> zerr.txt'
    cat zerr.txt
    check "-M: tab and newline stored as spaces" grep -q 'formula="1 + CPUTIME / (samples - 1)"' zdb/experiment.xml
    check "-M: csprof-prof counts d0's undefined values: all of them" sh -c \
        'grep -E "derived metric d0: [1-9][0-9]* of [0-9]* value\(s\) undefined" zerr.txt | awk "{ exit !(\$6 == \$8) }"'
    $R --metric d0 --threshold 0 --format json zdb > d0.json
    check "--metric d0: every frame 0 (whole value undefined), as stored" $PY -c '
import json
d = json.load(open("d0.json"))
rows = [n for n in d["nodes"] if n["kind"] == "frame"]
assert rows and all(n["derived"] == [0, 0] for n in rows), rows[:3]'
    check "--metric dz: compiles the stored formula" sh -c "$R --metric dz --threshold 0 --format json zdb > dz.json"
    zi=$(sed -n 's|.*<Metric i="\([0-9]*\)" n="dz (I)".*|\1|p' zdb/experiment.xml)
    ze=$(sed -n 's|.*<Metric i="\([0-9]*\)" n="dz (E)".*|\1|p' zdb/experiment.xml)
    check "--metric dz: report = database for every context, undefined = 0 in both" $PY -c '
import json, re, sys
d = json.load(open("dz.json"))
xml = open("zdb/experiment.xml").read()
def stored(m):
    return set("%.6g" % float(v) for v in re.findall(r"<M n=\"%s\" v=\"([^\"]+)\"" % m, xml)) | {"0"}
si, se = stored(sys.argv[1]), stored(sys.argv[2])
rows = [n for n in d["nodes"] if n["kind"] == "frame"]
gi = ["%.6g" % n["derived"][0] for n in rows]
ge = ["%.6g" % n["derived"][1] for n in rows]
assert rows and all(g in si for g in gi) and all(g in se for g in ge), (gi, si, ge, se)' "$zi" "$ze"
    # a deep formula (about 80 operand-stack slots) is evaluated by both, not answered 0
    deep=CPUTIME
    for _ in $(seq 40); do deep="0+1*($deep)"; done
    check "analyze with a deep formula" sh -c 'csprof-prof -M "deep=$1" measurements/ -o ydb > /dev/null 2>&1' sh "$deep"
    $R --metric deep --threshold 0 --format json ydb > y.json
    stored=$(sed -n 's|.*<Metric i="\([0-9]*\)" n="deep (I)".*|\1|p' ydb/experiment.xml)
    check "--metric deep: report = stored values = CPUTIME, in every frame" $PY -c '
import json, re, sys
d = json.load(open("y.json")); m = sys.argv[1]
xml = open("ydb/experiment.xml").read()
stored = set("%.6g" % float(v) for v in re.findall(r"<M n=\"%s\" v=\"([^\"]+)\"" % m, xml))
frames = [n for n in d["nodes"] if n["kind"] == "frame"]
assert frames and stored
for n in frames:
    assert "%.6g" % n["derived"][0] in stored, (n, sorted(stored)[:5])
    assert abs(n["derived"][0] - n["inclusive"]) <= 1e-9 * max(1, n["inclusive"]), n' "$stored"
    csprof-prof -M "big=CPUTIME*1e999" measurements/ -o bdb > /dev/null 2> big.err; rc=$?
    check "-M with 1e999: refused with the formula named" sh -c \
        '[ "$1" -ne 0 ] && grep -q "big=CPUTIME\*1e999.*out of range" big.err' sh "$rc"
    $R --metric spc --format csv ddb > spc.csv
    check "--metric spc: csv has the derived columns" sh -c 'head -1 spc.csv | grep -q derived_inclusive'
    $R --metric spc ddb > spc.txt
    check "--metric spc: text has the derived columns" grep -q 'spc (I)' spc.txt
    $R --format csv db > td.csv
    check "csv parses with a header" $PY -c 'import csv; r=list(csv.DictReader(open("td.csv"))); assert r and "inclusive" in r[0]'
    ;;
hostile)
    # Symbols renamed to hostile byte strings after compiling (no DWARF: names
    # come from the symbol table, as the database escapes them).
    cat > h.c << 'EOF'
#include <stdlib.h>
static volatile unsigned long sink;
__attribute__((noinline)) void burn(long n) { for (long i = 0; i < n; i++) sink += i * 7; }
__attribute__((noinline)) void h_script(long n) { burn(n); }
__attribute__((noinline)) void h_quote(long n) { burn(n); }
__attribute__((noinline)) void h_newline(long n) { burn(n); }
__attribute__((noinline)) void h_badutf8(long n) { burn(n); }
__attribute__((noinline)) void h_semi(long n) { burn(n); }
int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 150000000;
    h_script(n); h_quote(n); h_newline(n); h_badutf8(n); h_semi(n);
    return 0;
}
EOF
    check "compile" cc -O0 -c h.c -o h.o
    check "rename symbols" objcopy --redefine-sym h_script='</script><b>' \
        --redefine-sym h_quote="q\"uo'te" --redefine-sym h_newline=$'new\nline' \
        --redefine-sym h_badutf8=$'bad\xff\xfeutf8' --redefine-sym h_semi='semi;colon back\slash' h.o
    check "link" cc -o h h.o
    check "profile" profile db ./h
    names=('</script><b>' "q\"uo'te" 'new\x0aline' 'bad\xff\xfeutf8')
    formats_agree db samples
    $R --threshold 0 db > t.txt
    check "text keeps the names" $CHECK names t.txt "${names[@]}" 'semi;colon back\slash'
    $R --threshold 0 --format json db > t.json
    check "json keeps the names" $CHECK names t.json "${names[@]}" 'semi;colon back\slash'
    check "json escapes < (safe in <script>)" sh -c "! grep -q '</script>' t.json"
    $R --format csv db > t.csv
    check "csv keeps the names" $PY -c 'import csv,sys; n={r["name"] for r in csv.DictReader(open("t.csv"))}; sys.exit(0 if set(sys.argv[1:]) <= n else 1)' "${names[@]}"
    check "folded keeps the names, ; escaped" $CHECK names out.folded "${names[@]}" 'semi\x3bcolon back\slash'
    check "speedscope keeps the names" $CHECK names out.speedscope.json "${names[@]}" 'semi;colon back\slash'
    # (the pprof and callgrind exports' names: report_pprof_paths, report_callgrind_paths
    # compare their paths, names included, with the tree)
    ;;
recursion)
    cat > r.c << 'EOF'
#include <stdlib.h>
static volatile unsigned long sink;
__attribute__((noinline)) void burn(long n) { for (long i = 0; i < n; i++) sink += i * 7; }
__attribute__((noinline)) long rec(long d, long n)
{
    burn(n);
    if (d == 0)
        return 0;
    return rec(d - 1, n) + 1;
}
__attribute__((noinline)) long ping(long d, long n);
__attribute__((noinline)) long pong(long d, long n) { burn(n); return d ? ping(d - 1, n) : 0; }
__attribute__((noinline)) long ping(long d, long n) { burn(n); return d ? pong(d - 1, n) : 0; }
int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 80000000;
    return (int)(rec(5, n) + ping(4, n)) == 42;
}
EOF
    check "compile" cc -g -O0 -o r r.c
    check "profile" profile db ./r
    formats_agree db samples
    formats_agree db samples --collapse-recursion
    $R --threshold 0 --format json --collapse-recursion db > c.json
    check "--collapse-recursion: no rec directly under rec" $PY -c '
import json
d = json.load(open("c.json")); by = {n["id"]: n for n in d["nodes"]}
assert not any(n["name"] == "rec" and by.get(n["parent"], {}).get("name") == "rec" for n in d["nodes"])'
    for by in procedure file module; do
        $R --view flat --by $by --keep-roots --format json db > fs.json
        $R --view flat --by $by --keep-roots --recompute --format json db > fr.json
        check "flat --by $by: stored static view = recomputed (recursion)" $CHECK same-rows fs.json fr.json
    done
    $R --view flat --metric samples --format json db > flat.json
    # (callgrind's inclusive values under recursion, counted once: report_callgrind_paths
    # compares them with this flat view and the tree)
    total=$($CHECK rows flat.json)
    check "rec's inclusive is not above the total" awk -v r="$($CHECK flat-incl flat.json rec)" -v t="$total" 'BEGIN { exit !(r <= t) }'
    ;;
threads)
    cat > t.c << 'EOF'
#include <pthread.h>
#include <stdlib.h>
static volatile unsigned long sink;
__attribute__((noinline)) void burn(long n) { for (long i = 0; i < n; i++) sink += i * 7; }
static void *worker(void *arg) { burn((long)arg); return NULL; }
int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, (void *)(100000000L * (i + 1)));
    burn(20000000);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    return 0;
}
EOF
    check "compile" cc -g -O0 -pthread -o t t.c
    check "profile" profile db ./t
    formats_agree db samples
    $R --view threads --format json db > th.json
    check "threads view lists 3 threads in 1 process" $PY -c '
import json; d = json.load(open("th.json")); assert len(d["threads"]) == 3 and len(d["processes"]) == 1'
    check "threads: statistics equal the database's stats columns" $CHECK thread-stats th.json
    $R --view threads --focus '^worker$' --format json db > thw.json
    # Each worker thread is worker() from start to end: its value must be that thread's own
    # CPU time (the kernel's, from the measurement headers), and main's thread has none.  (The
    # workers burn 1 and 2 units of work, but on a shared 2-core VM their CPU times need not be
    # 1:2: a CI run measured 0.24 and 0.285 s.)
    for f in measurements/*.cspm; do csprof-prof --dump "$f"; done 2> /dev/null |
        sed -n 's/^header .* tid=\([0-9]*\) .* cpu_ns=\([0-9]*\) .*/\1 \2/p' > cpu.txt
    check "threads: worker's value in each thread is that thread's CPU time, main's thread 0" $PY -c '
import json
cpu = {int(t): int(n) / 1e9 for t, n in (l.split() for l in open("cpu.txt"))}
d = json.load(open("thw.json")); c = [c for c in d["contexts"] if c["name"] == "worker"]
assert len(c) == 1, c
v = {x["tid"]: x["inclusive"] for x in c[0]["threads"]["values"]}
print("worker per thread (value, cpu):", {t: (v[t], cpu.get(t)) for t in v})
main = min(v)
assert v[main] == 0, v
for t in v:
    if t != main:
        assert 0.6 <= v[t] / cpu[t] <= 1.4, (t, v[t], cpu[t])'
    $R --view threads db > th.txt
    check "threads text names the worker context with statistics" sh -c 'grep -q "^\[[0-9]*\] worker" th.txt && grep -q "cv" th.txt'
    $R --view threads --format csv db > th.csv
    check "threads csv parses" $PY -c 'import csv; r=list(csv.DictReader(open("th.csv"))); assert r and {"over","rank","inclusive"} <= set(r[0])'
    $R --format json --threshold 0 db > td.json
    check "start_thread elided: worker is a root" $PY -c '
import json
d = json.load(open("td.json")); assert any(n["name"] == "worker" and n["depth"] == 1 for n in d["nodes"])'
    ;;
diff)
    cc -O2 -g -o app1 "$CSPROF_SOURCE/examples/fig1.c" && cc -O2 -g -falign-functions=256 -o app2 "$CSPROF_SOURCE/examples/fig1.c"
    check "two builds with different addresses" sh -c '[ "$(nm app1 | grep " T c$")" != "$(nm app2 | grep " T c$")" ]'
    check "profile build 1" profile db1 ./app1 27
    check "profile build 2" profile db2 ./app2 27
    $R --diff --format json db1 db1 > self.json
    check "diff of a database with itself is zero everywhere" $CHECK diff-zero self.json
    $R --diff --format json db1 db2 > d12.json
    check "diff of two builds matches contexts by name and line" $PY -c '
import json
d = json.load(open("d12.json"))
# contexts with 10 % of a run (about 20 samples or more): a one-sided one is a mismatch
big = [r for r in d["contexts"] if r["base"]["inclusive"] > 0.1 * d["base_total"] or r["current"]["inclusive"] > 0.1 * d["current_total"]]
assert big, "no contexts"
one_sided = [r["name"] for r in big if r["base"]["inclusive"] == 0 or r["current"]["inclusive"] == 0]
assert not one_sided, one_sided
cs = [r for r in d["contexts"] if r["name"] == "c"]
assert len(cs) == 6, len(cs)  # c under a (2 call sites) and b (4), each in both runs
assert all(r["base"]["inclusive"] > 0 and r["current"]["inclusive"] > 0 for r in cs)
for r in d["procedures"]: assert abs(r["delta"] - (r["current"]["inclusive"] - r["base"]["inclusive"])) < 1e-9
'
    $R --diff db1 db2 > d12.txt
    check "diff text shows procedures and contexts" sh -c 'grep -q "^procedures" d12.txt && grep -q "^contexts" d12.txt'
    check "diff text fits 100 columns" fits 100 d12.txt
    $R --diff --format csv db1 db2 > d12.csv
    check "diff csv parses" $PY -c 'import csv; r=list(csv.DictReader(open("d12.csv"))); assert r and "delta" in r[0]'
    ;;
diffgold)
    # golden: test/report/diff_base.xml (hot inlined into work, cold a GCC clone
    # cold.constprop.0, helper called from line 14) against diff_cur.xml (hot out of line,
    # cold by its name, helper's call moved to line 15; CPUTIME of hot 0.6 -> 1.2 s, of cold
    # 0.3 -> 0.35 s, of helper 0.1 -> 0.18 s, REALTIME unchanged); two events, so each one's
    # samples come from its Ledger in the trust report (1000 -> 1730 CPUTIME samples)
    B=$CSPROF_SOURCE/test/report/diff_base.xml
    C=$CSPROF_SOURCE/test/report/diff_cur.xml
    $R --diff --format json --threshold 0 "$B" "$C" > g.json
    check "contexts by structure: hot (inlined in the base only), cold (a clone in the base), helper (its call moved 14 -> 15): one row each, under work, in both" $PY -c '
import json
d = json.load(open("g.json"))
rows = {r["id"]: r for r in d["contexts"]}
for name in ("hot", "cold", "helper"):
    rs = [r for r in d["contexts"] if r["name"] == name]
    assert len(rs) == 1, (name, len(rs))
    r = rs[0]
    assert r["base"]["inclusive"] > 0 and r["current"]["inclusive"] > 0, r
    assert rows[r["parent"]]["name"] == "work", r
    ps = [p for p in d["procedures"] if p["name"] == name]
    assert len(ps) == 1 and ps[0]["base"]["inclusive"] > 0 and ps[0]["current"]["inclusive"] > 0, (name, ps)
h = [r for r in d["contexts"] if r["name"] == "hot"][0]
assert h["inlined"] == ["base"] and h["out_of_line"] == ["current"], h
m = [r for r in d["contexts"] if r["name"] == "helper"][0]
assert m["callsite_line"] == 14 and m["current_callsite_line"] == 15, m
assert not any(r["name"].startswith("cold.") for r in d["contexts"] + d["procedures"])'
    check "CPUTIME samples of each row = its CPUTIME over the run's value per sample (the Ledgers': 1 ms)" $PY -c '
import json
d = json.load(open("g.json"))
assert (d["base_samples"], d["current_samples"]) == (1000, 1730), d
for r in d["procedures"] + d["contexts"]:
    for side in ("base", "current"):
        assert abs(r["samples"][side] - 1000 * r[side]["inclusive"]) < 1e-6, (r["name"], side, r["samples"])'
    sig_of() { # sig_of METRIC [OPTIONS...]: the significant procedures, every row checked
        local m=$1
        shift
        $R --diff --format json --threshold 0 --metric "$m" "$@" "$B" "$C" > "g_$m.json" &&
            $CHECK diff-stats "g_$m.json"
    }
    check "CPUTIME: hot and cold changed significantly, helper (10 -> 10.4 %) not" test "$(sig_of CPUTIME)" = "hot cold"
    check "REALTIME (the same in both): no significant change" test "$(sig_of REALTIME)" = ""
    check "samples (counts of both events): hot and cold significant" test "$(sig_of samples)" = "hot cold"
    check "--sort exclusive: intervals of the exclusive values" test "$(sig_of CPUTIME --sort exclusive)" = "hot cold"
    for sort in inclusive exclusive name; do
        $R --diff --format json --threshold 0 --sort $sort "$B" "$C" > "s_$sort.json"
    done
    check "--sort ranks by the size of the change of the value asked: inclusive main first, exclusive hot first, name in order" $PY -c '
import json
for sort, key, first in (("inclusive", "inclusive", "main"), ("exclusive", "exclusive", "hot")):
    d = json.load(open("s_%s.json" % sort))
    assert d["measure"] == key, d["measure"]
    rows = d["procedures"]
    assert rows[0]["name"] == first, (sort, [r["name"] for r in rows])
    ch = [abs(r["current"][key] - r["base"][key]) for r in rows]
    assert ch == sorted(ch, reverse=True), (sort, ch)
names = [r["name"] for r in json.load(open("s_name.json"))["procedures"]]
assert names == sorted(names), names'
    $R --diff --sort exclusive "$B" "$C" > sx.txt
    check "text: --sort exclusive says so, hot first" sh -c 'grep -q "^metric CPUTIME (s), exclusive;" sx.txt && grep -A2 "^procedures, by size of the change of exclusive" sx.txt | tail -1 | grep -q " \[inline in base\] hot$"'
    $R --diff --significant "$B" "$C" > sig.txt
    check "--significant: only hot and cold, marked *, with their callers in the tree" $PY -c '
import re
t = open("sig.txt").read()
procs, ctx = t.split("\nprocedures")[1].split("\ncontexts")
rows = lambda s: [l for l in s.splitlines()[2:] if l.strip() and not l.startswith("(")]
name = lambda l: re.sub(r"^\[[^]]*\] | @.*", "", l[60:].strip())
assert [name(l) for l in rows(procs)] == ["hot", "cold"], rows(procs)
assert [name(l) for l in rows(ctx)] == ["main", "work", "hot", "cold"], rows(ctx)
assert [l[58] for l in rows(procs) + rows(ctx)] == ["*", "*", " ", " ", "*", "*"], t
assert "rows not shown: not significant" in t, t'
    fail_if() { # fail_if STATUS OPTIONS...: csprof-report --diff OPTIONS B C exits STATUS
        local want=$1 rc
        shift
        $R --diff "$@" "$B" "$C" > /dev/null 2> fail_if.err
        rc=$?
        [ "$rc" -eq "$want" ] || { echo "  exit $rc, not $want: $(cat fail_if.err)"; return 1; }
    }
    check "--fail-if 'hot>+5%': hot's share rose 60 -> 69.4 % (+16 %), significantly: exit 3" fail_if 3 --fail-if 'hot>+5%'
    check "--fail-if names the regression on standard error" grep -q "hot>+5%'.*REGRESSED" fail_if.err
    check "--fail-if 'hot>+20%': within the limit: exit 0" fail_if 0 --fail-if 'hot>+20%'
    check "--fail-if 'helper>+2%': helper's share rose 10 -> 10.4 % (+4 %), not significantly: exit 0" fail_if 0 --fail-if 'helper>+2%'
    check "--fail-if 'hot>+5pp': exit 3" fail_if 3 --fail-if 'hot>+5pp'
    check "--fail-if 'hot>+10pp': exit 0" fail_if 0 --fail-if 'hot>+10pp'
    check "--fail-if 'cold.constprop.0>+1%': the clone is cold, whose share fell: exit 0" fail_if 0 --fail-if 'cold.constprop.0>+1%'
    check "--fail-if on REALTIME, where hot did not change: exit 0" fail_if 0 --metric REALTIME --fail-if 'hot>+1%'
    check "--fail-if with --sort exclusive, two conditions: exit 3" fail_if 3 --sort exclusive --fail-if 'helper>+50%' --fail-if 'hot>+5%'
    check "--fail-if of a procedure in neither database: exit 2" fail_if 2 --fail-if 'nosuch>+5%'
    check "--fail-if without a limit: exit 2" fail_if 2 --fail-if 'hot'
    for bad in "--sort calls" "--inlines merge" "--view flat"; do
        # shellcheck disable=SC2086
        check "--diff refuses $bad (exit 2)" fail_if 2 $bad
    done
    $R --significant "$C" > /dev/null 2>&1
    rc=$?
    check "--significant without --diff: exit 2" test $rc -eq 2
    ;;
diffbuild)
    # test/report/diff_build.c built three ways: hot() inlined (inl), out of line (ool), twice
    # the work (x2); hot() costs the same in inl and ool
    S=$CSPROF_SOURCE/test/report/diff_build.c
    cc -O2 -g -o inl "$S" && cc -O2 -g -DHOT_OUTLINE -o ool "$S" && cc -O2 -g -DHOT_TIMES=2 -o x2 "$S"
    check "hot inlined in inl, a procedure of its own in ool" sh -c '! nm inl | grep -q " t hot" && nm ool | grep -q " t hot"'
    build_db() { # build_db DB PROGRAM: 400 rounds at 1 ms (about 800 samples)
        rm -rf "$1.m" "$1"
        csrun -q -e CPUTIME@1000 -o "$1.m" "./$2" 400 > /dev/null && csprof-struct "./$2" > "$2.struct" 2> /dev/null &&
            csprof-prof -S "$2.struct" "$1.m" -o "$1" > /dev/null 2>&1
    }
    check "profile inl" build_db inl.db inl
    check "profile inl again" build_db inl2.db inl
    check "profile ool" build_db ool.db ool
    check "profile x2" build_db x2.db x2
    # the program's own procedures ([kernel] time depends on what else the machine does)
    OWN='["main", "work", "hot", "cold"]'
    $R --diff --format json --threshold 0 inl.db ool.db > io.json
    check "inlined vs out of line: hot is one context, under work, and one procedure, with samples in both" $PY -c '
import json
d = json.load(open("io.json"))
rows = {r["id"]: r for r in d["contexts"]}
hs = [r for r in d["contexts"] if r["name"] == "hot"]
assert len(hs) == 1, [(r["name"], r["base"], r["current"]) for r in hs]
h = hs[0]
assert h["base"]["inclusive"] > 0 and h["current"]["inclusive"] > 0, h
assert h["inlined"] == ["base"] and h["out_of_line"] == ["current"], h
assert rows[h["parent"]]["name"] == "work"
ps = [r for r in d["procedures"] if r["name"] == "hot"]
assert len(ps) == 1 and ps[0]["inlined"] == ["base"], ps
# no context of 10 % of a run on one side only (the whole tree removed and added)
big = [r for r in d["contexts"] if r["base"]["inclusive"] > 0.1 * d["base_total"] or r["current"]["inclusive"] > 0.1 * d["current_total"]]
assert not [r["name"] for r in big if r["base"]["inclusive"] == 0 or r["current"]["inclusive"] == 0]'
    check "inlined vs out of line: intervals recomputed from the counts" $CHECK diff-stats io.json
    check "inlined vs out of line, the same cost of hot: no significant change of the program" $PY -c '
import json
d = json.load(open("io.json")); own = '"$OWN"'
bad = [(r["name"], r["interval"]) for r in d["procedures"] + d["contexts"] if r["significant"] and r["name"] in own]
assert not bad, bad'
    $R --diff --format json --threshold 0 inl.db inl2.db > same.json
    check "the same binary twice: intervals recomputed from the counts" $CHECK diff-stats same.json
    check "the same binary twice: no significant change of the program" $PY -c '
import json
d = json.load(open("same.json")); own = '"$OWN"'
assert all(r["interval"] is not None for r in d["procedures"] + d["contexts"])
bad = [(r["name"], r["interval"]) for r in d["procedures"] + d["contexts"] if r["significant"] and r["name"] in own]
assert not bad, bad'
    $R --diff --fail-if 'hot>+5%' --fail-if 'cold>+5%' inl.db inl2.db > /dev/null 2> same.err
    rc=$?
    check "the same binary twice: --fail-if 'hot>+5%' and 'cold>+5%' exit 0" sh -c "[ $rc -eq 0 ] || { cat same.err; exit 1; }"
    $R --diff --format json --threshold 0 inl.db x2.db > x2.json
    check "twice the work in hot: intervals recomputed from the counts" $CHECK diff-stats x2.json
    check "twice the work in hot: hot rose and cold fell, significantly" $PY -c '
import json
d = json.load(open("x2.json"))
p = {r["name"]: r for r in d["procedures"]}
assert p["hot"]["significant"] and p["hot"]["interval"][0] > 0, p["hot"]
assert p["cold"]["significant"] and p["cold"]["interval"][1] < 0, p["cold"]
assert not p["main"]["significant"] and not p["work"]["significant"]'
    $R --diff --fail-if 'hot>+5%' inl.db x2.db > /dev/null 2> x2.err
    rc=$?
    check "twice the work in hot: --fail-if 'hot>+5%' exits 3" sh -c "[ $rc -eq 3 ] && grep -q REGRESSED x2.err"
    $R --diff --fail-if 'cold>+5%' inl.db x2.db > /dev/null 2>&1
    rc=$?
    check "twice the work in hot: --fail-if 'cold>+5%' exits 0" test $rc -eq 0
    $R --diff --sort exclusive --format json inl.db x2.db > x2x.json
    check "twice the work in hot: --sort exclusive puts hot first" $PY -c '
import json; assert json.load(open("x2x.json"))["procedures"][0]["name"] == "hot"'
    # the base and the current of report_diff_viewer (diff_viewer.js)
    check "databases kept in $keep for report_diff_viewer" sh -c "mkdir -p '$keep' && cp -r inl.db ool.db '$keep/'"
    ;;
callgrind)
    # golden: a hand-built database with mutual recursion (test/report/mutual_recursion.xml)
    command -v callgrind_annotate > /dev/null ||
        { echo "SKIP: callgrind_annotate not installed (Debian valgrind)"; exit 77; }
    G=$CSPROF_SOURCE/test/report/mutual_recursion.xml
    $R --format callgrind -o m.callgrind "$G"
    $R --view flat --keep-roots --threshold 0 --format json "$G" > mflat.json
    mkdir -p elsewhere
    (cd elsewhere && callgrind_annotate --inclusive=yes --threshold=100 ../m.callgrind) > mi.txt 2>&1
    (cd elsewhere && callgrind_annotate --threshold=100 ../m.callgrind) > me.txt 2>&1
    # inclusive: samples with the function on their path, counted once; self: own samples
    for fx in main:127:0 pong:126:42 ping:95:69 work:16:16; do
        IFS=: read -r f incl self <<< "$fx"
        check "callgrind inclusive of $f = $incl (golden)" eq "$($CHECK callgrind-incl mi.txt $f)" "$incl"
        check "callgrind inclusive of $f = flat inclusive" eq "$($CHECK callgrind-incl mi.txt $f)" "$($CHECK flat-incl mflat.json $f)"
        # (a function without self cost is listed with "." for 0)
        got=$(grep -E "^ *[0-9.,]+ .*:$f\$" me.txt | awk '{ gsub(",", "", $1); print ($1 == ".") ? 0 : $1 }')
        check "callgrind self of $f = $self (golden)" eq "${got:-missing}" "$self"
    done
    check "callgrind total = 127" eq "$($CHECK callgrind-annotate mi.txt)" 127
    # each call edge's cost (the callee frames' inclusive; 0 for a call into a function
    # already on the path), self, calls and inclusive against the tree
    (cd elsewhere && callgrind_annotate --tree=calling --threshold=100 ../m.callgrind) > mcs.txt 2> mcs.err
    (cd elsewhere && callgrind_annotate --tree=calling --inclusive=yes --threshold=100 ../m.callgrind) > mci.txt 2> mci.err
    for e in main:pong:96 main:ping:31 ping:pong:30 pong:ping:64 pong:work:16; do
        IFS=: read -r a b c <<< "$e"
        check "callgrind call $a -> $b costs $c (golden)" eq "$($CHECK callgrind-edge mcs.txt "$a" "$b")" "$c"
    done
    $R --threshold 0 --format json "$G" > mtd.json
    check "callgrind: self, cost and calls of each call edge, inclusive = the tree's" \
        $CHECK callgrind-tree mtd.json mcs.txt mci.txt
    ;;
hidden)
    # golden: a hand-built database (test/report/hidden_outer.xml) where libc's exit and
    # __run_exit_handlers are the outermost frames once _start is elided and all their samples
    # lie in loops, so with --hide-lib libc and --loops keep those loops are children of the
    # root, outside any procedure.  The flat view by procedure dropped their cost (bottom-up and
    # top-down kept it): the shape that once made report_make's flat total differ under the same
    # transforms, when a sample of `csrun make -j2` fell in such a loop.  Deterministic.
    G=$CSPROF_SOURCE/test/report/hidden_outer.xml
    formats_agree "$G" samples --hide-lib 'libc\.so' --collapse-recursion --inlines merge --loops keep
    formats_agree "$G" samples --hide-lib 'libc\.so' --loops keep
    # loops hidden: their cost is the hidden frames' own, merged into the root
    formats_agree "$G" samples --hide-lib 'libc\.so'
    for tr in "--loops keep" ""; do
        # shellcheck disable=SC2086
        $R --metric samples --view flat --format json --hide-lib 'libc\.so' $tr "$G" > hflat.json
        check "flat ${tr:+$tr }--hide-lib libc: main 1, the rest (14) outside any procedure (golden)" $PY -c '
import json, sys
d = json.load(open(sys.argv[1]))
rows = {n["name"]: n["exclusive"] for n in d["nodes"]}
assert rows == {"main": 1} and d["root"]["exclusive"] == 14 and d["total"] == 15, (rows, d["root"])' hflat.json
    done
    # the flat view read from the stored static view (no transform): an elided root's own
    # cost (_start, 3 samples; test/report/elided_root.xml) is the root's, not dropped
    E=$CSPROF_SOURCE/test/report/elided_root.xml
    formats_agree "$E" samples
    $R --metric samples --view flat --format json "$E" > eflat.json
    check "stored flat: main 5, _start's own 3 at the root (golden)" $PY -c '
import json, sys
d = json.load(open(sys.argv[1]))
rows = {n["name"]: n["exclusive"] for n in d["nodes"]}
assert rows == {"main": 5} and d["root"]["exclusive"] == 3 and d["total"] == 8, (rows, d["root"])' eflat.json
    ;;
mpi)
    # 4 MPI ranks (Open MPI, oversubscribed), rank 0 does twice the work in burn
    command -v mpirun > /dev/null && command -v mpicc > /dev/null ||
        { echo "SKIP: mpirun/mpicc not installed (Debian openmpi-bin, libopenmpi-dev)"; exit 77; }
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
    P=$CSPROF_SOURCE/test/reliability/programs
    check "compile mpi_ring" mpicc -g -O1 -I"$P" -o mpi_ring "$P/mpi_ring.c"
    rm -rf measurements
    check "mpirun -np 4 csrun ./mpi_ring (imbalanced)" \
        sh -c 'timeout 120 mpirun -np 4 --oversubscribe csrun ./mpi_ring 4 0.06 imbalance > /dev/null'
    check "analyze" sh -c 'csprof-prof measurements/ -o db > /dev/null 2>&1'
    $R --view threads --focus '^burn$' --format json db > mpi.json
    check "threads: 4 processes with ranks 0-3" $PY -c '
import json; d = json.load(open("mpi.json"))
assert sorted(p["rank"] for p in d["processes"]) == [0, 1, 2, 3], d["processes"]'
    check "threads (ranks): statistics equal the database's stats columns" $CHECK thread-stats mpi.json
    check "rank 0's time in burn is about twice the other ranks' (1.4-3.0)" $PY -c '
import json
d = json.load(open("mpi.json")); c = [c for c in d["contexts"] if c["name"] == "burn"]
assert c, "no burn context"
v = {}
for ctx in c:
    for x in ctx["processes"]["values"]: v[x["rank"]] = v.get(x["rank"], 0) + x["inclusive"]
rest = (v[1] + v[2] + v[3]) / 3
print("burn per rank:", v, "ratio %.2f" % (v[0] / rest))
assert rest > 0 and 1.4 <= v[0] / rest <= 3.0'
    $R --view threads --focus '^burn$' db > mpi.txt
    check "threads text lists the ranks" grep -q "rank" mpi.txt
    check "title names the processes" grep -q "mpi_ring (+ 3 processes: mpi_ring" mpi.txt
    formats_agree db CPUTIME
    ;;
make)
    # a real multi-process program: `csrun make -j2` of a small C project with gcc
    # (make, gcc drivers, cc1, as, collect2, ld: one process each), then every
    # view, transform, export and the diff from the database alone.
    command -v make > /dev/null && command -v gcc > /dev/null ||
        { echo "SKIP: make or gcc not installed"; exit 77; }
    mkdir -p proj
    for i in 1 2 3 4; do
        $PY -c 'import sys
i = int(sys.argv[1]); print("#include \"common.h\"")
for k in range(25):
    print("int f%d_%d(int x) { int s = 0; for (int j = 0; j < x; j++) s += (j * %d) ^ (s >> 3); return s + g(x, %d); }" % (i, k, k + 3, k))
print("int part%d(int x) { int s = 0;" % i)
for k in range(25): print("  s += f%d_%d(x);" % (i, k))
print("  return s; }")' $i > proj/p$i.c
    done
    printf 'static inline int g(int a, int b) { return a * b + (a >> 2); }\nint part1(int), part2(int), part3(int), part4(int);\n' > proj/common.h
    printf '#include <stdio.h>\n#include "common.h"\nint main(void) { printf("%%d\\n", part1(3) + part2(3) + part3(3) + part4(3)); return 0; }\n' > proj/main.c
    printf 'OBJS = main.o p1.o p2.o p3.o p4.o\napp: $(OBJS)\n\tgcc -o $@ $(OBJS)\n%%.o: %%.c common.h\n\tgcc -O2 -c $< -o $@\n' > proj/Makefile
    check "csrun make -j2 builds the project" sh -c '(cd proj && csrun -o ../measurements make -j2 -s) 2> make.err && test -x proj/app'
    check "analyze" sh -c 'csprof-prof measurements/ -o db > screen.txt 2> prof.err'
    cat screen.txt
    nproc=$(ls measurements/*.cspm | sed 's|.*/||; s|-[0-9]*\.cspm$||' | wc -l)
    check "several processes profiled ($nproc files: make, gcc, cc1, as, collect2)" sh -c \
        'ls measurements | grep -q "^make-" && ls measurements | grep -q "^cc1-" && ls measurements | grep -q "as-"'
    rm -rf measurements proj # from here on, the database alone
    check "title names make and the other programs" grep -q '^make (+ [0-9]* processes: .*cc1 ×' screen.txt
    for v in top-down bottom-up flat threads paths; do
        check "--view $v" sh -c "$R --view $v db > v_$v.txt && test -s v_$v.txt"
        check "--view $v fits 100 columns" fits 100 v_$v.txt
    done
    for by in procedure file module loop line; do
        check "--view flat --by $by" sh -c "$R --view flat --by $by --format csv db > by_$by.csv && test \$(wc -l < by_$by.csv) -gt 1"
    done
    $R --view threads --format json db > th.json
    check "threads: one process per measured process, statistics as stored" $CHECK thread-stats th.json
    check "threads: make and cc1 among the processes" $PY -c '
import json; p = [x["program"].rsplit("/", 1)[-1] for x in json.load(open("th.json"))["processes"]]
assert "make" in p and "cc1" in p and len(p) >= 5, p'
    formats_agree db CPUTIME
    formats_agree db samples --hide-lib 'libc\.so' --collapse-recursion --inlines merge --loops keep
    for tr in "--hide ^malloc$" "--focus ^main$ --keep-roots"; do
        # shellcheck disable=SC2086
        check "top-down with $tr: inclusive = exclusive + children" sh -c "$R $tr --threshold 0 --format json db > tr.json && $CHECK tree tr.json > /dev/null"
    done
    for tr in "--depth 3" "--threshold 5" "--sort calls"; do
        # shellcheck disable=SC2086
        check "top-down with $tr" sh -c "$R $tr db > tr.txt && test \$(wc -l < tr.txt) -gt 4"
    done
    $R --diff --format json db db > self.json
    check "diff of the database with itself is zero" $CHECK diff-zero self.json
    ;;
processes)
    # Issue 22, items 1 and 9: the threads view of a multi-process run and how a run is titled.
    # (1) golden: a run through a wrapper (test/report/wrapper_run.xml: pid 100 runs env, bash,
    # bash, then python3.11; three helpers end before it; logger outlives it; sh starts after),
    # with its per-thread values written here.  Deterministic.
    mkdir -p gold
    cp "$CSPROF_SOURCE/test/report/wrapper_run.xml" gold/experiment.xml
    # thread-values.bin (share/schemas/thread-values.md): thread -> value at the root and main
    $PY -c '
import struct, sys
vals = {1: 2.0, 5: 1.0, 4: 0.3, 3: 0.02, 2: 0.01, 0: 0.005}
b = b"CSPTHRV1" + struct.pack("<IIIIQ", 1, 1, 7, 6, 2)
for t, v in vals.items():
    b += struct.pack("<III", 0, t, 2) + struct.pack("<IId", 1, 0x80000000, v) + struct.pack("<IId", 0, 0x40000000, v)
open(sys.argv[1], "wb").write(b)' gold/thread-values.bin
    $R --view threads --format json --limit 0 gold > g.json
    check "golden: titled by the first process's last program, its chain and the wrappers apart" $PY -c '
import json; d = json.load(open("g.json"))
want = "python3.11 (via env \u2192 bash; + 2 processes: logger \u00d71, sh \u00d71; + 3 wrapper processes: basename \u00d71, bash \u00d71, readlink \u00d71)"
assert d["title"] == want, d["title"]'
    $R --format json gold > gtd.json
    check "golden: the run's program (the tree's root) is python3.11, not the first file's basename" $PY -c '
import json; d = json.load(open("gtd.json")); assert d["program"] == "/opt/py/bin/python3.11", d["program"]'
    COLUMNS=200 $R gold > gtd.txt
    check "golden: the text title is the same" grep -q "^csprof-report top-down: python3.11 (via env → bash; + 2 processes: logger ×1, sh ×1; + 3 wrapper processes: basename ×1, bash ×1, readlink ×1)$" gtd.txt
    check "golden: 6 processes and 7 threads (as Summary), wrappers basename, bash (pid 102), readlink; images in exec order" $PY -c '
import json; d = json.load(open("g.json"))
p = {x["pid"]: x for x in d["processes"]}
assert len(d["processes"]) == 6 and len(d["threads"]) == 7, (len(d["processes"]), len(d["threads"]))
assert sorted(x["pid"] for x in d["processes"] if x["wrapper"]) == [101, 102, 103] and d["wrappers"] == 3
assert p[100]["command"] == "python3.11" and [i.rsplit("/", 1)[-1] for i in p[100]["images"]] == ["env", "bash", "python3.11"], p[100]
assert p[101]["command"] == "readlink" and p[100]["threads"] == 2 and d["main"] == p[100]["index"]
c = d["contexts"][0]
assert c["processes"]["n"] == 6 and c["threads"]["n"] == 7
pv = {x["pid"]: x["inclusive"] for x in c["processes"]["values"]}
want = {100: 3.0, 105: 0.3, 102: 0.02, 101: 0.01, 103: 0.005, 106: 0}
assert all(abs(pv[k] - v) < 1e-9 for k, v in want.items()), pv
assert {x["tid"]: x["command"] for x in c["threads"]["values"]}[104] == "python3.11"'
    COLUMNS=100 $R --view threads gold > g.txt
    check "golden text: the wrappers folded into one line with their sum" sh -c '
grep -q "^  + 3 wrapper processes (folded): inclusive 35.00 ms$" g.txt &&
grep -q "^  + 3 threads of wrapper processes (folded): inclusive 35.00 ms$" g.txt &&
grep -q "7 thread(s) in 6 process(es), 3 of them wrappers (folded)" g.txt &&
! grep -q " readlink$" g.txt && grep -q " logger$" g.txt'
    check "golden text fits 100 columns" fits 100 g.txt
    # the first process never exec'd (python3.11 is its only program, started first): no wrappers
    mkdir -p gold2
    grep -v 'm/env-100\|m/bash-100' gold/experiment.xml |
        sed '/python3.11-100.cspm.*tid="100"/s/start-ns="1500"/start-ns="900"/' > gold2/experiment.xml
    cp gold/thread-values.bin gold2/
    $R --view threads --format json gold2 > g2.json
    check "golden: a first process that never exec'd has no wrappers" $PY -c '
import json; d = json.load(open("g2.json"))
assert d["title"] == "python3.11 (+ 5 processes: basename \u00d71, bash \u00d71, logger \u00d71, readlink \u00d71, sh \u00d71)", d["title"]
assert d["wrappers"] == 0 and not any(x["wrapper"] for x in d["processes"])'
    # a damaged thread-values.bin: a clear error naming the file (and where it ends), exit 1
    mkdir -p gold3 gold4
    cp gold/experiment.xml gold3/ && head -c 100 gold/thread-values.bin > gold3/thread-values.bin
    cp gold/experiment.xml gold4/ && { printf CSPTHRV2; tail -c +9 gold/thread-values.bin; } > gold4/thread-values.bin
    check "a truncated thread-values.bin: exit 1, the file and the offset named" sh -c '
$0 --view threads gold3 > /dev/null 2> g3.err; [ $? -eq 1 ] && grep -q "gold3/thread-values.bin: truncated at offset 88$" g3.err' "$R"
    check "a thread-values.bin of another version: exit 1, the file named" sh -c '
$0 --view threads gold4 > /dev/null 2> g4.err; [ $? -eq 1 ] && grep -q "gold4/thread-values.bin: not a thread-values file (version 1)$" g4.err' "$R"
    # (2) a real run: test/report/multiproc.c, 6 processes and 8 threads with known CPU times
    check "compile multiproc" cc -O1 -g -pthread -o multiproc "$CSPROF_SOURCE/test/report/multiproc.c"
    cp multiproc multiproc_exec
    rm -rf measurements
    check "csrun multiproc" sh -c 'csrun -q -e CPUTIME@1000 ./multiproc > /dev/null'
    check "analyze" sh -c 'csprof-prof measurements/ -o db > screen.txt 2> prof.err'
    $R --view threads --format json --limit 0 --focus '^(exec_work|thread_work)$' db > mp.json
    check "the counts agree: csprof-prof's summary, Summary, csprof-report (6 processes, 8 threads)" $PY -c '
import json, re
d = json.load(open("mp.json")); m = re.search(r": (\d+) process(?:es)?, (\d+) threads?,", open("screen.txt").read())
s = open("db/experiment.xml").read(); a = re.search(r"<Summary [^>]*threads=\"(\d+)\" processes=\"(\d+)\"", s)
got = (len(d["processes"]), len(d["threads"]), int(m.group(1)), int(m.group(2)), int(a.group(2)), int(a.group(1)),
       d["contexts"][0]["processes"]["n"], d["contexts"][0]["threads"]["n"])
assert got == (6, 8) * 4, got'
    check "title and command names: the exec'd child is multiproc_exec, after multiproc" $PY -c '
import json; d = json.load(open("mp.json"))
assert d["title"] == "multiproc (+ 5 processes: multiproc \u00d74, multiproc_exec \u00d71)", d["title"]
p = sorted(d["processes"], key=lambda x: x["pid"])
assert [x["command"] for x in p] == ["multiproc"] * 3 + ["multiproc_exec"] + ["multiproc"] * 2, p
assert [i.rsplit("/", 1)[-1] for i in p[3]["images"]] == ["multiproc", "multiproc_exec"] and d["wrappers"] == 0'
    # Each process's (and child 4's threads') value against the CPU time it burned: 0.7..1.3 x +
    # 30 ms (a fork's and csprof's own costs); the child that exits at once has (almost) none.
    check "per-process and per-thread values: the CPU time each burned" $PY -c '
import json; d = json.load(open("mp.json"))
p = sorted(d["processes"], key=lambda x: x["pid"])
whole = d["contexts"][0]
pv = {x["index"]: x["inclusive"] for x in whole["processes"]["values"]}
tv = {x["index"]: x["inclusive"] for x in whole["threads"]["values"]}
for x, burned in zip(p, [0.04, 0.05, 0.20, 0.17, 0, 0.18]):
    v = pv[x["index"]]
    print("pid %d burned %.2f s: %.4f" % (x["pid"], burned, v))
    assert (v <= 0.01) if burned == 0 else (0.7 * burned <= v <= 1.3 * burned + 0.03), (x, v)
kids = sorted(tv[t["index"]] for t in d["threads"] if t["process"] == p[5]["index"])
print("child 4 threads:", kids)
assert len(kids) == 3 and 0.042 <= kids[1] <= 0.108 and 0.084 <= kids[2] <= 0.186, kids
for t in d["threads"]:
    assert abs(sum(tv[u["index"]] for u in d["threads"] if u["process"] == t["process"]) - pv[t["process"]]) < 1e-9'
    check "exec_work: only the exec'd process, thread_work: only child 4's two threads" $PY -c '
import json; d = json.load(open("mp.json"))
p = sorted(d["processes"], key=lambda x: x["pid"])
for name, owner in (("exec_work", 3), ("thread_work", 5)):
    c = [c for c in d["contexts"] if c["name"] == name]
    assert len(c) == 1, name
    has = {x["index"] for x in c[0]["processes"]["values"] if x["inclusive"] > 0}
    assert has == {p[owner]["index"]}, (name, has)'
    $R --view threads db > mp.txt
    check "threads text: a command column, the exec'd process named multiproc_exec" sh -c 'grep -q "command$" mp.txt && grep -q " multiproc_exec$" mp.txt'
    check "threads text fits 100 columns" fits 100 mp.txt
    # (3) a real run through a wrapper: a bash script whose helpers end before it execs multiproc
    if [ -x /bin/bash ]; then
        printf '#!/bin/bash\nd=$(dirname "$0")\nb=$(basename "$0")\nr=$(readlink -f "$d")\nexec "$r/multiproc"\n' > shim
        chmod +x shim
        rm -rf measurements
        check "csrun ./shim (bash, then exec multiproc)" sh -c 'csrun -q -e CPUTIME@1000 ./shim > /dev/null'
        check "analyze the shim run" sh -c 'csprof-prof measurements/ -o dbw > wscreen.txt 2> prof.err'
        $R --view threads --format json dbw > w.json
        check "shim: titled multiproc via bash, the helpers are its wrappers" $PY -c '
import json; d = json.load(open("w.json")); t = d["title"]
print(t)
assert t.startswith("multiproc (via bash; + 5 processes: multiproc \u00d74, multiproc_exec \u00d71; + %d wrapper processes: " % d["wrappers"]), t
w = sorted(x["command"] for x in d["processes"] if x["wrapper"])
assert {"basename", "dirname", "readlink"} <= set(w) and set(w) <= {"basename", "dirname", "readlink", "bash"}, w
assert all(not x["wrapper"] for x in d["processes"] if x["command"].startswith("multiproc"))
assert open("wscreen.txt").read().count(t) == 1'
    fi
    ;;
errors)
    cp "$CSPROF_EXAMPLES/fig1" ./app
    check "profile fig1 (short)" profile db ./app 25
    $R nodb > out 2> err; rc=$?
    check "missing database: exit 1, one line naming it" sh -c "[ $rc -eq 1 ] && [ \$(wc -l < err) -eq 1 ] && grep -q nodb err"
    echo '<csprof-experiment version="1"><Header' > bad.xml
    $R bad.xml > out 2> err; rc=$?
    check "broken XML: exit 1 with the file and line" sh -c "[ $rc -eq 1 ] && grep -q 'bad.xml:[0-9]' err && [ \$(wc -l < err) -eq 1 ]"
    $R --focus '(' db > out 2> err; rc=$?
    check "bad regular expression: exit 2 naming --focus" sh -c "[ $rc -eq 2 ] && grep -q -- --focus err"
    $R --metric nosuch db > out 2> err; rc=$?
    check "unknown metric: exit 1 naming it" sh -c "[ $rc -eq 1 ] && grep -q nosuch err"
    $R --view sideways db > out 2> err; rc=$?
    check "unknown view: exit 2" sh -c "[ $rc -eq 2 ] && grep -q sideways err"
    $R --threshold 101 db > out 2> err; rc=$?
    check "bad threshold: exit 2" test $rc -eq 2
    # Elements and attributes from a newer database are ignored.
    $R --format json --threshold 0 db > plain.json
    mkdir -p db2
    sed -e 's|<PF i="\([0-9]*\)"|<PF future="x" i="\1"|' \
        -e 's|</SecHeader>|<FutureTable><Row i="0"><M n="0" v="99"/></Row></FutureTable></SecHeader>|' \
        -e 's|<M n="0" v="\([^"]*\)"/>|<M n="0" v="\1"/><ThreadValues><M n="0" v="1e9"/><PF i="999999" n="0"/></ThreadValues>|' \
        db/experiment.xml > db2/experiment.xml
    check "modified database still well-formed" xmllint --noout --huge db2/experiment.xml
    $R --format json --threshold 0 db2 > future.json
    check "unknown elements and attributes ignored: same view" \
        $PY -c 'import json; a=json.load(open("plain.json")); b=json.load(open("future.json")); assert a["nodes"] == b["nodes"] and a["total"] == b["total"]'
    ;;
*)
    echo "unknown case $case_"; exit 2 ;;
esac
finish
