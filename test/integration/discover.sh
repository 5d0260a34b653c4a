#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The workflow can be found from the tools themselves (issue 22, item 12): csrun --help shows
# the real next steps; csprof-prof's summary names the viewer; csprof-report on csrun's
# measurements says to run csprof-prof first; --focus that matches nothing says so; csrun -L
# --available lists only what this machine can sample; -e cputime is CPUTIME, a near miss
# is answered with the right name; and the help texts and the manuals (docs/) give the same
# defaults.
. "$(dirname "$0")/lib.sh"
docs=$CSPROF_SOURCE/docs
fig1=$CSPROF_EXAMPLES/fig1

# --- csrun --help: the next steps
csrun --help > help.txt
check "csrun --help: csprof-prof DIR -o DB" grep -q '^  csprof-prof DIR -o DB ' help.txt
check "csrun --help: csprof-report DB" grep -q '^  csprof-report DB ' help.txt
check "csrun --help: the viewer, DB/index.html" grep -q 'DB/index.html' help.txt
check "csrun --help: csprof-struct is optional, not a step" \
    sh -c "grep -q 'csprof-struct.*' help.txt && grep -q 'is optional' help.txt && ! grep -q '^Then: csprof-struct' help.txt"

# --- csrun -L --available
csrun -L > all.txt
csrun -L --available > avail.txt; rc=$?
check "csrun -L --available exits 0 ($rc)" [ "$rc" -eq 0 ]
check "csrun -L --available lists no unavailable event" sh -c '! grep -q "not available" avail.txt'
entries() { grep -E '^  [^ ]' "$1" | grep -v '(none available here)' | awk '{ print $1 }' | sort; }
# every event -L calls available (and the always available time and byte events), nothing else
grep -E '^  [^ ]' all.txt | grep -v 'not available' | awk '{ print $1 }' | sort > want.txt
entries avail.txt > got.txt
check "csrun -L --available lists exactly -L's available events ($(wc -l < got.txt) of $(grep -cE '^  [^ ]' all.txt))" cmp -s want.txt got.txt
check "csrun -L --available keeps CPUTIME, MEMLEAK, and perf::PAGE-FAULTS when available" \
    sh -c 'grep -q "^  CPUTIME " avail.txt && grep -q "^  MEMLEAK " avail.txt &&
           { ! grep -Eq "^ +perf::PAGE-FAULTS +available" all.txt || grep -Eq "^ +perf::PAGE-FAULTS +available" avail.txt; }'
if grep -q 'not available' all.txt; then
    check "csrun -L --available is shorter than -L where events are unavailable" [ "$(wc -l < avail.txt)" -lt "$(wc -l < all.txt)" ]
fi
csrun --available true 2> err.txt; rc=$?
check "--available without -L: a usage error ($rc)" sh -c "[ $rc -eq 2 ] && grep -q -- '--available goes with -L' err.txt"

# --- -e in any case; a near miss named
csrun -q -e cputime@1000 -o mcase "$fig1" > /dev/null; rc=$?
check "-e cputime@1000 is accepted (exit $rc)" [ "$rc" -eq 0 ]
check "-e cputime samples CPUTIME" sh -c 'csprof-prof --dump mcase/*.cspm | grep -q "^event index=0 name=\"CPUTIME\" "'
csrun -q -e cputim -o mtypo true 2> typo.txt; rc=$?
check "-e cputim: refused, did you mean CPUTIME? (exit $rc: $(cat typo.txt))" \
    sh -c "[ $rc -eq 2 ] && grep -qx \"csrun: -e 'cputim': unknown event 'cputim': did you mean CPUTIME? (csrun -L lists the events)\" typo.txt"

# --- csprof-prof's summary names the viewer
csrun -q -e CPUTIME@1000 -o m "$fig1" > /dev/null
csprof-prof m -o db > summary.txt 2> /dev/null
check "csprof-prof's summary names db/index.html" grep -qx 'viewer: open db/index.html in a browser (from the file system)' summary.txt
check "and db/index.html is there" [ -s db/index.html ]

# --- csprof-report on measurements, and --focus without a match
csprof-report m > out.txt 2> err.txt; rc=$?
check "csprof-report m: says to run csprof-prof first (exit $rc: $(cat err.txt))" \
    sh -c "[ $rc -eq 1 ] && grep -qx 'csprof-report: m holds measurement files: run csprof-prof m -o DB first, then csprof-report DB' err.txt && [ ! -s out.txt ]"
f=$(ls m/*.cspm | head -1)
csprof-report "$f" > out.txt 2> err.txt; rc=$?
check "csprof-report FILE.cspm: the same ($rc)" sh -c "[ $rc -eq 1 ] && grep -q 'holds measurement files: run csprof-prof' err.txt"
csprof-report --focus 'no_such_frame$' db > out.txt 2> err.txt; rc=$?
check "--focus without a match: exit 1, says so, prints no table ($rc: $(cat err.txt))" \
    sh -c "[ $rc -eq 1 ] && grep -qx \"csprof-report: --focus 'no_such_frame\\\$': no frame of db/experiment.xml matches\" err.txt && [ ! -s out.txt ]"
for v in bottom-up flat paths; do
    csprof-report --view $v --focus 'no_such_frame$' db > /dev/null 2>&1; rc=$?
    check "--view $v --focus without a match: exit 1 ($rc)" [ "$rc" -eq 1 ]
done
csprof-report --focus '^c$' db > out.txt 2> err.txt; rc=$?
check "--focus with a match: exit 0, a table ($rc)" sh -c "[ $rc -eq 0 ] && grep -q ' c' out.txt"

# --- the help texts and the manuals (docs/TOOL.md) give the same defaults
# --top: the help's default is what the summary prints: that many rows, or every procedure
# with samples where fewer have some (fig1's d and [kernel] get samples in some runs only)
top=$(csprof-prof --help | sed -n 's/.*--top N .*(default \([0-9]*\).*/\1/p')
summary_rows() {
    awk '/^ inclusive .* scope$/ { on = 1; next } on && /^ *[0-9]/ { n++ } on && !/^ *[0-9]/ { exit } END { print n + 0 }' "$1"
}
rows=$(summary_rows summary.txt)
csprof-prof --top 1000 m -o db-all > summary-all.txt 2> /dev/null
all=$(summary_rows summary-all.txt)
want=$top
[ -n "$top" ] && [ "$all" -lt "$top" ] && want=$all
check "csprof-prof --top: help's default ($top) = rows of the summary ($rows; $all procedures have samples)" \
    sh -c "[ -n '$top' ] && [ '$all' -ge 4 ] && [ '$want' = '$rows' ]"
# and of its call paths: fig1's six paths to c (a:49, a:50, b:39..42) always have samples
paths=$(awk '/^csprof-report paths:/ { on = 1; next } on && /^ *[0-9.]+%/ { n++ } on && /^$/ { exit } END { print n + 0 }' summary.txt)
check "csprof-prof --top: help's default ($top) = call paths in the summary ($paths)" \
    sh -c "[ -n '$top' ] && [ '$top' = '$paths' ]"
# csprof-report's defaults are in its manual's prose: --threshold and --limit
th=$(csprof-report --help | sed -n 's/.*--threshold PCT.*(text default \([0-9.]*\);.*/\1/p')
li=$(csprof-report --help | sed -n 's/.*--limit N .*(text default \([0-9]*\);.*/\1/p')
check "csprof-report --threshold: help's text default ($th) is the manual's" \
    sh -c "[ -n '$th' ] && grep -q 'Text leaves out nodes below $th %' '$docs/csprof-report.md'"
check "csprof-report --limit: help's text default ($li) is the manual's" \
    sh -c "[ -n '$li' ] && tr '\n' ' ' < '$docs/csprof-report.md' | grep -q 'flat, bottom-up and paths views; text default $li, 0: all'"
check "csprof-report --help shows PCT%, not a printf escape" sh -c 'csprof-report --help | grep -q "below PCT% of" && ! csprof-report --help | grep -q "%%"'
# every "(default X)" of csrun's and csprof-prof's option tables in their manuals equals --help's
python3 - "$docs" << 'EOF' > defaults.txt
import re, subprocess, sys
bad = 0
for tool in ("csrun", "csprof-prof"):
    sec = open("%s/%s.md" % (sys.argv[1], tool), encoding="utf-8").read()
    helptext = subprocess.run([tool, "--help"], capture_output=True, text=True).stdout
    # help: "  -x, --long ARG   text (default V...)", continued on the next lines
    hdef = {}
    for m in re.finditer(r"^ +(?:-\w, )?(--[\w-]+)[^\n]*(?:\n {20,}[^\n]*)*", helptext, re.M):
        d = re.search(r"\bdefault:? ([^;)\n]*)", m.group(0))
        if d:
            hdef[m.group(1)] = d.group(1).strip().rstrip(",")
    for row in re.finditer(r"^\| (`[^|]*`(?:, `[^|]*`)*) \| (.*) \|$", sec, re.M):
        opts = re.findall(r"`(--[\w-]+)", row.group(1))
        d = re.search(r"\bdefault:? ([^;)]*)", row.group(2))
        if not d:
            continue
        rd = d.group(1).strip().strip("`").rstrip(",")
        for o in opts:
            if o in hdef:
                hd = hdef[o].strip("`")
                ok = rd.split()[0] == hd.split()[0]
                print("%s %s: manual %r, --help %r: %s" % (tool, o, rd, hd, "same" if ok else "DIFFER"))
                bad += not ok
sys.exit(1 if bad else 0)
EOF
rc=$?
cat defaults.txt
check "the manuals' option tables and --help give the same defaults ($(grep -c same defaults.txt) compared)" \
    sh -c "[ $rc -eq 0 ] && [ $(grep -c same defaults.txt) -ge 4 ]"
finish
