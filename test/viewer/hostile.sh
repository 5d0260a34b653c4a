#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# hostile.sh -- the hostile-names measurement set of the viewer tests
# (ctest viewer_hostile; reliability.md row 32, issue 9 "Safety").
#
# Two databases, kept in $VIEWER_OUT/hostile/ for the viewer's end-to-end
# test (h/viewer) and for a human look:
#  db-real  a real program profiled with csrun: programs/hostile_syms.c
#           (symbols such as "</script><img src=x onerror=...>", a <script>
#           element, an attribute breakout, control bytes with invalid
#           UTF-8, U+2028/U+2029, a 4 KiB name) and programs/hostile_names.cc
#           (C++ template, operator and lambda names) from a directory whose
#           path holds a double quote, "</script><img ...>" and a backslash,
#           linked into a binary in a directory whose name holds a newline
#           and invalid UTF-8.
#  db-gen   measurement files written by hostile_gen (lib/fmt's writer) whose
#           strings a compiler cannot produce: a 4 KiB load-module path with
#           a newline, invalid UTF-8 and markup, hostile host/command strings
#           and a hostile event name.
# Checks: csprof-prof exits 0 and the database validates with no raw
# markup from the data; the hostile source file is copied into DB/src;
# csprof-report's JSON parses (strict UTF-8) and names every hostile
# procedure; each folded line has exactly one count; the text report is
# valid UTF-8 without control bytes; csprof-prof wrote the viewer
# (DB/index.html) of both.  The ctest viewer_hostile_render opens them in
# headless Chromium (hostile_view.js; it skips when node or chromium is absent).
# Environment (ctest): CSPROF_BIN, CSPROF_SCHEMAS, CC, CXX, GEN (hostile_gen),
# VIEWER_OUT.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/../integration/lib.sh"
out=${VIEWER_OUT:-$work/out}/hostile
rm -rf "$out" && mkdir -p "$out" || exit 1
command -v python3 > /dev/null || { echo "SKIP: python3 not found"; exit 77; }
command -v iconv > /dev/null || { echo "SKIP: iconv not found"; exit 77; }

# The source's directory: q"'&;</script><img src=x onerror=...>/back\slash dir
# The binary's directory: bin<LF>bad<FF><FE> dir (a path with control bytes or
# invalid UTF-8 reaches the database escaped as \xNN, and csprof-prof then
# cannot find such a source file to copy into DB/src: the source's path holds
# neither).
d1=$(printf 'q"'"'"'&;<')
d2='script><img src=x onerror=window.__csprofPwned=4>'
tree=$out/tree
hdir="$tree/$d1/$d2/back\\slash dir"
bdir="$out/$(printf 'bin\nbad\377\376 dir')"
mkdir -p "$hdir" "$bdir" || exit 1
cp "$here/programs/hostile_names.cc" "$hdir/"
bin="$bdir/hostile_names"
"${CC:-cc}" -O2 -g0 -c "$here/programs/hostile_syms.c" -o hostile_syms.o 2> cc.err &&
    "${CXX:-c++}" -O2 -g -c "$hdir/hostile_names.cc" -o hostile_names.o 2>> cc.err &&
    "${CXX:-c++}" hostile_names.o hostile_syms.o -o "$bin" 2>> cc.err
check "hostile program builds" [ -x "$bin" ]
[ -x "$bin" ] || { cat cc.err; finish; }

"$bin" > base.out
check "baseline exits 0" [ $? -eq 0 ]
csrun -q -e CPUTIME@1000 -o "$out/measurements-real" "$bin" > prof.out 2> csrun.err
check "profiled run exits 0" [ $? -eq 0 ]
check "profiled output identical" cmp -s base.out prof.out

# clean_text FILE: valid UTF-8 and no control byte other than newline and tab.
clean_text() {
    iconv -f UTF-8 -t UTF-8 "$1" > /dev/null 2>&1 || { echo "  $1: not valid UTF-8"; return 1; }
    [ "$(LC_ALL=C tr -d '\n\t\040-\176\200-\377' < "$1" | wc -c)" -eq 0 ] && return 0
    echo "  $1: raw control bytes:"
    LC_ALL=C grep -n -a '[[:cntrl:]]' "$1" | head -n 3 | cat -A | cut -c1-120
    return 1
}

# json_names FILE NAME...: FILE parses as strict UTF-8 JSON and every NAME is
# the name of some node.
json_names() {
    python3 - "$@" << 'EOF'
import json, sys
raw = open(sys.argv[1], 'rb').read()
d = json.loads(raw.decode('utf-8'))
names = {n.get('name') for n in d['nodes']}
missing = [w for w in sys.argv[2:] if w not in names]
for w in missing:
    print('  missing name:', ascii(w[:80]))
sys.exit(1 if missing else 0)
EOF
}

# folded_ok FILE: every line is "frames COUNT" with one count and no raw control byte.
folded_ok() {
    local bad
    bad=$(LC_ALL=C grep -c -a -v -E '^[^[:cntrl:]]* [0-9]+$' "$1")
    [ "$bad" -eq 0 ] && [ -s "$1" ] || { echo "  $1: $bad malformed lines"; return 1; }
}

long=$(printf '</script>%.0s' $(seq 457))
names_real=('</script><img src=x onerror=window.__csprofPwned=1>'
    '<script>window.__csprofPwned=2</script>'
    "q';&amp;<>;x ' onmouseover='window.__csprofPwned=3' x='"
    'ctl\x01\x1b[31mred\xff\xfeend'
    "$(printf 'line\342\200\250sep\342\200\251para')"
    '${x}`tick]]><!--c-->'
    "$long")

db=$out/db-real
csprof-prof -I "$tree" -o "$db" "$out/measurements-real" > prof-real.out 2> prof-real.err
check "db-real: csprof-prof exits 0" [ $? -eq 0 ]
check "db-real: database validates" validate "$db"
check "db-real: no raw <img or <script in experiment.xml" \
    [ "$(grep -c '<img\|<script' "$db/experiment.xml")" -eq 0 ]
check "db-real: summary is clean text" clean_text prof-real.out
check "db-real: hostile source file copied into DB/src" \
    [ "$(find "$db/src" -name hostile_names.cc | wc -l)" -eq 1 ]
for view in top-down bottom-up flat; do
    csprof-report --format json --view $view "$db" > real-$view.json 2> report.err
    check "db-real: csprof-report --view $view --format json exits 0" [ $? -eq 0 ]
    check "db-real: $view JSON parses and names every hostile procedure" \
        json_names real-$view.json "${names_real[@]}"
done
check "db-real: JSON carries the hostile source path" \
    grep -qF 'window.__csprofPwned=4\u003e/back\\slash dir/hostile_names.cc' real-flat.json
check "db-real: JSON carries the hostile module path" \
    grep -qF '/bin\\x0abad\\xff\\xfe dir/hostile_names' real-flat.json
csprof-report --format folded "$db" > real.folded 2> report.err
check "db-real: folded export exits 0" [ $? -eq 0 ]
check "db-real: one count per folded line" folded_ok real.folded
csprof-report --width 200 "$db" > real.txt 2> report.err
check "db-real: text report is clean text" clean_text real.txt

# Synthetic measurements: strings no compiler writes.
mkdir -p "$out/measurements-gen"
nm -S --defined-only "$bin" > syms.txt
"$GEN" "$out/measurements-gen" "$bin" syms.txt > gen.out 2> gen.err
check "hostile_gen exits 0" [ $? -eq 0 ]
db=$out/db-gen
csprof-prof -o "$db" "$out/measurements-gen" > prof-gen.out 2> prof-gen.err
check "db-gen: csprof-prof exits 0" [ $? -eq 0 ]
check "db-gen: database validates" validate "$db"
check "db-gen: no raw <img or <script in experiment.xml" \
    [ "$(grep -c '<img\|<script' "$db/experiment.xml")" -eq 0 ]
check "db-gen: summary is clean text" clean_text prof-gen.out
check "db-gen: messages are clean text" clean_text prof-gen.err
check "db-gen: the hostile event is a metric" \
    grep -qF 'EV&lt;/script&gt;&lt;img src=x onerror=window.__csprofPwned=7&gt;' "$db/experiment.xml"
csprof-report --format json --view flat "$db" > gen-flat.json 2> report.err
check "db-gen: csprof-report JSON exits 0" [ $? -eq 0 ]
check "db-gen: JSON parses and names the symbols" json_names gen-flat.json "${names_real[@]:0:3}"
check "db-gen: JSON carries the hostile module path" \
    grep -qF '/nonexistent/\u003cscript\u003ewindow.__csprofPwned=8\u003c/script\u003e\\x0a\\xff' gen-flat.json
csprof-report --format folded "$db" > gen.folded 2> report.err
check "db-gen: one count per folded line" folded_ok gen.folded
csprof-report --width 200 "$db" > gen.txt 2> report.err
check "db-gen: text report is clean text" clean_text gen.txt

# The viewer, opened by viewer_hostile_render (no script from the data runs there).
for db in db-real db-gen; do
    check "$db: csprof-prof wrote the viewer (index.html)" [ -s "$out/$db/index.html" ]
done
echo "measurement set and databases: $out"
finish
