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
# Cases: fig1 hostile recursion callgrind hidden threads mpi make diff errors.
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

# keep_exports DIR DB [TRANSFORM...]: the pprof and callgrind exports (all metrics)
# into DIR, with td.json and flat.json.
keep_exports() {
    local dir=$1 db=$2; shift 2
    mkdir -p "$dir" && $R --format pprof -o "$dir/out.pb.gz" "$@" "$db" &&
        $R --format callgrind -o "$dir/out.callgrind" "$@" "$db" && cp td.json flat.json "$dir/"
}

# formats_agree DB METRIC [TRANSFORM...]: every view and format has the same total;
# folded and speedscope have the tree's paths; the pprof and callgrind exports are
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
    check "[$tag] speedscope: every stack of open frames = a path of the tree, with its value" \
        paths_agree speedscope out.speedscope.json
    nkeep=$((nkeep + 1))
    check "[$tag] pprof and callgrind exports kept in $keep/$nkeep" keep_exports "$keep/$nkeep" "$db" "$@"
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
    check "paths: costs with 4 decimals, as the tables" \
        sh -c 'sed -n 3p paths.txt | grep -Eq "^ *[0-9.]+% +[0-9]+\.[0-9]{4}  main"'
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
