#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# export_paths.sh pprof|callgrind -- the pprof or callgrind exports that
# report_test.sh's formats_agree kept ($CSPROF_REPORT_KEEP/CASE/N/: the export,
# the top-down tree td.json and flat view flat.json of the same metric and
# transforms, and 'what': the metric and the transforms), read by the format's
# own tool and compared with the tree:
#  pprof      go tool pprof -traces, with no -sample_index: the metric shown is
#             the profile's default sample type, the one the export was asked
#             for; every sample's stack (leaf first) and value = a
#             calling-context path of the tree and its exclusive value, path by
#             path (check_report.py paths ... pprof-traces);
#  callgrind  callgrind_annotate --tree=calling: PROGRAM TOTALS, each function's
#             self cost, each caller -> callee edge's cost and call count, each
#             function's inclusive cost = the tree's and the flat view's
#             (check_report.py callgrind-tree).
# Exits 77 (SKIP) when the tool is missing.  The kept exports come from
# report_fig1, report_recursion, report_threads, report_hostile, report_hidden
# (required: ctest runs them first, fixture report_exports) and report_mpi,
# report_make when they ran.
# Environment: as report_test.sh, and CSPROF_REPORT_KEEP.
. "$CSPROF_SOURCE/test/integration/lib.sh"
tool=${1:?pprof or callgrind}
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
CHECK="$PY $CSPROF_SOURCE/test/report/check_report.py"
keep=${CSPROF_REPORT_KEEP:?CSPROF_REPORT_KEEP: the exports kept by report_test.sh}
case $tool in
pprof)
    command -v go > /dev/null ||
        { echo "SKIP: go not installed (Debian golang-go): pprof exports not checked"; exit 77; }
    ;;
callgrind)
    command -v callgrind_annotate > /dev/null ||
        { echo "SKIP: callgrind_annotate not installed (Debian valgrind): callgrind exports not checked"; exit 77; }
    ;;
*)
    echo "unknown tool $tool"; exit 2 ;;
esac

# Exports older than csprof-report come from a run before the last build:
# their case did not run since (ctest runs it first unless told not to).
for c in fig1 recursion threads hostile hidden; do
    check "$c: exports kept by report_$c since csprof-report was built" sh -c \
        '[ -n "$(find "$1" -name td.json -newer "$2" 2> /dev/null | head -n 1)" ]' \
        sh "$keep/$c" "$CSPROF_BIN/csprof-report"
done

# from a directory that is no prefix of the sources: callgrind_annotate strips
# the working directory from fl= names but not from cfl= names
mkdir -p elsewhere
sets=0
for dir in $(cd "$keep" 2> /dev/null && ls -d */* | sort -t/ -k1,1 -k2,2n); do
    d=$keep/$dir
    [ -f "$d/what" ] || continue
    { read -r m; read -r tag; } < "$d/what"
    what="$dir: $tag"
    sets=$((sets + 1))
    case $tool in
    pprof)
        # -symbolize=none: names as written (symbolization demangles and shortens
        # names that look like C++, '</script><b>' to '[h]'); the exporter sets
        # has_functions.  -unit=ns: integral nanoseconds, not '1.23s'.  No
        # -sample_index: pprof shows the default sample type, which must be $m.
        HOME=${HOME:-$work} go tool pprof -symbolize=none -traces -unit=ns \
            "$d/out.pb.gz" > traces.txt 2>&1
        grep -q '^Type: ' traces.txt || head -n 5 traces.txt
        check "[$what] go tool pprof -traces reads the profile" grep -q '^Type: ' traces.txt
        check "[$what] go tool pprof shows the chosen metric by default (Type: $m)" \
            grep -qx "Type: $m" traces.txt
        n=$($CHECK paths "$d/td.json" pprof-traces traces.txt); rc=$?
        [ $rc -eq 0 ] && n=" ($n paths)" || { echo "$n"; n=; }
        check "[$what] pprof: every sample's stack = a path of the tree, with its exclusive value$n" \
            [ $rc -eq 0 ]
        ;;
    callgrind)
        ev=$(printf '%s' "$m" | tr -c 'A-Za-z0-9_' '_') # the export's event names
        for incl in no yes; do
            (cd elsewhere && callgrind_annotate --tree=calling --inclusive=$incl --show="$ev" \
                --threshold=100 "$d/out.callgrind") > "cg-$incl.txt" 2> cg.err
        done
        n=$($CHECK callgrind-tree "$d/td.json" cg-no.txt cg-yes.txt "$d/flat.json"); rc=$?
        [ $rc -eq 0 ] && n=" ($n edges)" || { echo "$n"; n=; }
        check "[$what] callgrind: self per function, cost and calls per call edge, inclusive = the tree's$n" \
            [ $rc -eq 0 ]
        ;;
    esac
done
check "exports compared: $sets" [ "$sets" -gt 0 ]
finish
