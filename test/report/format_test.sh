#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# format_test.sh CASE -- csprof-report's text for people (issue 22, items 5, 7 and 10) on a
# hand-built database (units_calls.xml), each cell read back and compared with the JSON
# export's raw values (check_format.py).
#   units   times, bytes and counts in units for people in every text view, decimal points
#           aligned, the header's total too; CSV and JSON raw
#   calls_sampled "calls (sampled)" said; incl/call only where enough samples per call; the callees
#           of one indirect call site marked as sharing its count (text and JSON)
#   width   names fit without two rows looking the same; C++ names shortened (--full-names:
#           whole); what "f @file:line" means said in the header
#   width_tty the terminal's own width (TIOCGWINSZ, through script(1)) before $COLUMNS, and
#           --width before both; 77 when script(1) is missing
# Environment as for report_test.sh.
. "$CSPROF_SOURCE/test/integration/lib.sh"
case_=${1:?case}
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
C="$PY $CSPROF_SOURCE/test/report/check_format.py"
G=$CSPROF_SOURCE/test/report/units_calls.xml
R=csprof-report
export COLUMNS=100

# has FILE TEXT: FILE holds TEXT as a fixed string
has() { grep -qF -- "$2" "$1"; }

case $case_ in
units)
    for m in CPUTIME:s MEMALLOC:bytes samples:samples; do
        ev=${m%%:*} unit=${m#*:}
        for v in top-down bottom-up flat; do
            $R --view $v --metric $ev --threshold 0 "$G" > t.txt
            $R --view $v --metric $ev --threshold 0 --format json "$G" > t.json
            out=$($C values t.txt t.json "$unit") || { echo "$out"; out=; }
            check "$ev $v: every cell in units for people = the JSON's raw value ($out rows)" test -n "$out"
            check "$ev $v: decimal points aligned in each value column" $C aligned t.txt
        done
    done
    $R --threshold 0 "$G" > td.txt
    check "header: total for people (% of total 1.50 s)" grep -qx 'metric CPUTIME (s); % of total 1.50 s' td.txt
    check "work: 1.20 s, 300.00 ms per call" grep -Eq '^ +1\.20 s .* 4 +300\.00 ms +work @units\.cc:5$' td.txt
    $R --metric MEMALLOC --threshold 0 "$G" > mem.txt
    check "bytes: total 2.0 GiB, 512.0 MiB per call" sh -c \
        "grep -qx 'metric MEMALLOC (bytes); % of total 2.0 GiB' mem.txt && grep -q ' 512\.0 MiB  *work' mem.txt"
    $R --metric samples --threshold 0 "$G" > smp.txt
    check "counts: total 5.6 k samples, work 5.3 k" sh -c \
        "grep -qx 'metric samples (samples); % of total 5.6 k samples' smp.txt && grep -Eq '^ +5\.3 k ' smp.txt"
    $R --view paths "$G" > paths.txt
    check "paths: header and costs for people" sh -c \
        "has() { grep -qF -- \"\$2\" \"\$1\"; }; has paths.txt '% of total 1.50 s' && grep -Eq '^ +79\.9% +1\.20 s +main:5 > work\$' paths.txt"
    $R --diff "$G" "$G" > diff.txt
    check "diff: totals and values for people" sh -c \
        "grep -q 'totals 1\.50 s -> 1\.50 s' diff.txt && grep -Eq '^ +1\.20 s +1\.20 s +0 .* work' diff.txt"
    $R --view flat --format csv "$G" > flat.csv
    check "CSV raw: work 1.2, per call 0.3" grep -q ',1\.2,1\.2,[0-9.]*,[0-9.]*,4,0\.3$' flat.csv
    $R --metric MEMALLOC --format json "$G" > mem.json
    check "JSON raw: work 2147483648 bytes" grep -q '"name": "work".*"inclusive": 2147483648,' mem.json
    check "no unit for people in CSV or JSON" sh -c "! grep -E 'GiB|MiB| ms| k\"' flat.csv mem.json"
    ;;
calls_sampled)
    for v in top-down flat; do
        $R --view $v --threshold 0 "$G" > t.txt
        $R --view $v --threshold 0 --format json "$G" > t.json
        out=$($C calls t.txt t.json) || { echo "$out"; out=; }
        check "$v: calls cells = the JSON's, † where shared, incl/call blank where few samples per call ($out)" \
            test -n "$out" -a "${out#* }" = "4 2"
        check "$v: the column says what it counts" sh -c \
            "grep -q '^ inclusive .* calls\*  ' t.txt && grep -qx 'calls\* = calls (sampled): calls counted by the trampoline at sampled contexts, a lower bound' t.txt"
        check "$v: the legend says why incl/call is blank" grep -q '^incl/call -: under 10 samples, or under 2 per call (it would be about the sample period)' t.txt
        check "$v: the legend says what † is" grep -qx '† calls of the call site, shared by its 2 callees (indirect call)' t.txt
    done
    $R --threshold 0 --format json "$G" > td.json
    check "JSON: the indirect call site's 2 callees (and only they) have calls_per_call_site" $PY -c '
import json
d = json.load(open("td.json"))
shared = sorted(n["name"].split(">::")[1][:9] for n in d["nodes"] if n.get("calls_per_call_site"))
assert shared == ["run_alpha", "run_beta_"], shared
assert all(n["call_site_callees"] == 2 for n in d["nodes"] if n.get("calls_per_call_site"))
k = [n for n in d["nodes"] if n["name"] == "[kernel]"]
assert len(k) == 1 and not k[0].get("calls"), ("[kernel] is entered, never called: no calls", k)'
    $R --threshold 0 --width 80 "$G" > narrow.txt
    check "no calls column (below 90 columns): no calls legend" sh -c "! grep -q 'calls' narrow.txt"
    ;;
width)
    for w in 90 100 120 160; do
        for names in "" --full-names; do
            $R --threshold 0 --width $w $names "$G" > t.txt
            $R --threshold 0 --format json "$G" > t.json
            out=$($C distinct t.txt t.json) || { echo "$out"; out=; }
            check "--width $w $names: no two rows look the same ($out names)" test -n "$out"
            check "--width $w $names: fits" $C fits $w t.txt
        done
    done
    $R --threshold 0 --width 120 "$G" > t.txt
    check "C++ names shortened: Worker<…>::run_alpha_phase(…)" grep -q ' Worker<…>::run_alpha_phase(…) @units\.cc:6$' t.txt
    check "operator<< and (anonymous namespace) read right" sh -c \
        "grep -q ' operator<<(…) @units\.cc:9\$' t.txt && grep -q ' (anonymous namespace)::helper(…) @units\.cc:11\$' t.txt"
    $R --threshold 0 --width 250 --full-names "$G" > full.txt
    check "--full-names: whole" grep -qF ' Worker<std::vector<int, std::allocator<int> > >::run_beta_phase(std::vector<int, std::allocator<int> > const&) @units.cc:6' full.txt
    $R --view paths --width 100 "$G" > paths.txt
    check "paths: shortened names, the two callees apart" sh -c \
        "grep -q 'main:6 > Worker<…>::run_alpha_phase(…)\$' paths.txt && grep -q 'main:6 > Worker<…>::run_beta_phase(…)\$' paths.txt"
    $R --diff --width 90 "$G" "$G" > diff.txt
    check "diff: the two callees apart" sh -c "grep -q 'run_alpha' diff.txt && grep -q 'run_beta' diff.txt"
    check "header: what f @file:line means" grep -qx 'f @file:line = f called from that line (the call site in its caller)' t.txt
    $R --view bottom-up "$G" > bu.txt
    check "bottom-up header: what caller @file:line means" \
        grep -qx 'caller @file:line = the call site in that caller: the line it called the row above from' bu.txt
    check "diff header: what f @file:line means" grep -qx 'f @file:line = f called from that line (the call site in its caller)' diff.txt
    ;;
width_tty)
    command -v script > /dev/null || { echo "SKIP: script(1) (util-linux) not installed"; exit 77; }
    # a terminal of 132 columns; $COLUMNS says 100: the terminal wins
    script -qec "stty cols 132 rows 50; COLUMNS=100 $CSPROF_BIN/csprof-report --threshold 0 --full-names $G" /dev/null |
        tr -d '\r' > tty.txt
    out=$($C fits 132 tty.txt) || { echo "$out"; out=; }
    check "a 132-column terminal: its width, not \$COLUMNS=100 (widest line $out)" test -n "$out" -a "${out:-0}" -gt 100
    script -qec "stty cols 132 rows 50; $CSPROF_BIN/csprof-report --threshold 0 --full-names --width 70 $G" /dev/null |
        tr -d '\r' > w70.txt
    check "--width 70 overrides the terminal's" $C fits 70 w70.txt
    COLUMNS=120 $R --threshold 0 --full-names "$G" > cols.txt
    out=$($C fits 120 cols.txt) || { echo "$out"; out=; }
    check "not a terminal: \$COLUMNS=120 (widest line $out)" test -n "$out" -a "${out:-0}" -gt 100
    ;;
*)
    echo "unknown case $case_"
    exit 2
    ;;
esac
finish
