#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs kept apart (docs/csrun.md, "Runs"): every file of a csrun run carries the run's id (fork and
# exec'd children included; MPI ranks of one job share it); csrun refuses a directory that
# holds another run's files unless --append; csprof-prof refuses measurements of several runs
# unless --runs, then sums them (one column per event) or keeps each run in its own column,
# each with the values of that run alone, and says which runs it merged.  Files without a
# run id (an older csprof, a monitor preloaded by hand) are read as before.
. "$(dirname "$0")/lib.sh"

monitor=$(dirname "$CSPROF_BIN")/lib/csprof/libcsprof.so
cat > burn.c << 'EOF'
#include <stdlib.h>
volatile double x;
__attribute__((noinline)) static void burn(long n) { for (long i = 0; i < n; i++) x += i * 0.5; }
int main(int argc, char **argv) { burn(argc > 1 ? atol(argv[1]) : 20000000); return 0; }
EOF
gcc -O1 -g -o burn burn.c || { echo "SKIP: cannot compile with gcc"; exit 77; }

# ids DIR...: the distinct run ids of the files in DIR (one a line, "none" for a file without)
ids() {
    local f
    for f in "$@"; do
        csprof-prof --dump "$f" | awk '/^file version/ { n++ } /^run id=/ { r++; print substr($2, 5) }
            END { if (r < n) print "none" }'
    done | tr -d '"' | sort -u
}
total() { xp "$1" "string(//EventTotal[@event='$2']/@v)"; }
samples() { xp "$1" "string(//Summary/@samples)"; }
# same A B: equal within 1e-9 relative
same() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && b != "" && d <= 1e-9 * (a < 0 ? -a : a) + 1e-12) }'; }

# --- every file of a run carries its id; a second run gets another
csrun -q -e CPUTIME@1000 -o one ./burn; rc=$?
check "csrun ./burn exits 0 ($rc)" [ "$rc" -eq 0 ]
id1=$(ids one/*.cspm)
check "the file carries a run id ($id1)" sh -c "[ -n '$id1' ] && [ '$id1' != none ] && [ \$(echo '$id1' | wc -l) -eq 1 ]"
csrun -q -e CPUTIME@1000 -o multi sh -c './burn 5000000 && ./burn 5000000 & wait; ./burn 5000000'
n=$(ls multi/*.cspm | wc -l)
idm=$(ids multi/*.cspm)
check "a run of several processes ($n files: sh, fork and exec'd children) has one run id ($idm)" \
    sh -c "[ $n -ge 4 ] && [ \$(echo '$idm' | wc -l) -eq 1 ] && [ '$idm' != none ]"
check "two runs, two run ids" [ "$id1" != "$idm" ]
check "csprof-prof --dump shows the run id" sh -c "csprof-prof --dump one/*.cspm | grep -qx 'run id=\"$id1\"'"
check "one run's files named one by one are one run" sh -c 'csprof-prof -q multi/*.cspm -o dbglob > /dev/null 2> glob.err'

# --- csrun: a second run into the same directory is refused, or added with --append
rm -f ran
csrun -q -e CPUTIME@1000 -o one sh -c 'touch ran; ./burn' 2> refused.txt; rc=$?
check "second run into one/ refused (exit $rc)" [ "$rc" -eq 2 ]
check "the refused run's program did not start" [ ! -e ran ]
check "the refusal is one line naming one/, the other run and the ways out: $(cat refused.txt)" \
    sh -c "[ \$(wc -l < refused.txt) -eq 1 ] &&
           grep -q \"^csrun: -o 'one' holds 1 measurement file(s) of another run (run $id1, started .*-o DIR.*--append\" refused.txt"
check "one/ still holds one file" [ "$(ls one/*.cspm | wc -l)" -eq 1 ]
csrun -q --append -e CPUTIME@1000 -o one ./burn 40000000; rc=$?
check "--append adds the run (exit $rc)" [ "$rc" -eq 0 ]
both=$(ids one/*.cspm)
check "one/ now holds two run ids" [ "$(echo "$both" | wc -l)" -eq 2 ]
id2=$(echo "$both" | grep -vx "$id1")
# each run alone, for the reference values
mkdir a b
for f in one/*.cspm; do
    if [ "$(ids "$f")" = "$id1" ]; then cp "$f" a/; else cp "$f" b/; fi
done
csprof-prof -q a -o dba > /dev/null 2>&1 && csprof-prof -q b -o dbb > /dev/null 2>&1
check "each run alone is analyzed" [ -s dba/experiment.xml -a -s dbb/experiment.xml ]
ta=$(total dba CPUTIME) tb=$(total dbb CPUTIME)

# --- csprof-prof: two runs in one directory
csprof-prof one -o db > out.txt 2> err.txt; rc=$?
check "csprof-prof one/: two runs refused (exit $rc)" [ "$rc" -eq 2 ]
check "no database written" [ ! -e db ]
check "the refusal is one line naming both runs and --runs: $(cat err.txt)" \
    sh -c "[ \$(wc -l < err.txt) -eq 1 ] && grep -q '^csprof-prof: the measurements hold 2 runs: run 1 = id .*run 2 = id .*--runs sum.*--runs separate' err.txt &&
           grep -q 'id $id1 (one, 1 file' err.txt && grep -q 'id $id2 (one, 1 file' err.txt"
csprof-prof --runs sum one -o dbsum > out.txt 2> sum.err; rc=$?
check "--runs sum merges (exit $rc)" [ "$rc" -eq 0 ]
check "--runs sum says what it merged: $(cat sum.err)" \
    sh -c "grep -q '^csprof-prof: note: merged 2 runs, summed into one column per event: run 1 = id ' sum.err && grep -q '$id1' sum.err && grep -q '$id2' sum.err"
t=$(total dbsum CPUTIME)
check "summed: CPUTIME $t = $ta + $tb" same "$t" "$(awk -v a="$ta" -v b="$tb" 'BEGIN { printf "%.9f", a + b }')"
check "summed: samples $(samples dbsum) = $(samples dba) + $(samples dbb)" \
    [ "$(samples dbsum)" -eq $(($(samples dba) + $(samples dbb))) ]
csprof-prof --runs separate one -o dbsep > out.txt 2> sep.err; rc=$?
check "--runs separate (exit $rc)" [ "$rc" -eq 0 ]
r1=$(sed -n 's/.*: run 1 = id \([^ ]*\) .*/\1/p' sep.err)
check "--runs separate says which run is which: $(cat sep.err)" \
    sh -c "grep -q '^csprof-prof: note: merged 2 runs, one column per run' sep.err && [ -n '$r1' ]"
if [ "$r1" = "$id1" ]; then w1=$ta w2=$tb; else w1=$tb w2=$ta; fi
check "separate: [run 1] holds its run alone ($(total dbsep 'CPUTIME [run 1]') = $w1)" same "$(total dbsep 'CPUTIME [run 1]')" "$w1"
check "separate: [run 2] holds its run alone ($(total dbsep 'CPUTIME [run 2]') = $w2)" same "$(total dbsep 'CPUTIME [run 2]')" "$w2"
check "separate: the two runs differ (the second burned twice as long)" sh -c "! awk -v a='$ta' -v b='$tb' 'BEGIN { exit !(a == b) }'"
check "separate: no summed CPUTIME column" [ -z "$(total dbsep CPUTIME)" ]

# --- two directories as two runs
csprof-prof a b -o dbab > /dev/null 2> ab.err; rc=$?
check "csprof-prof a b: two runs refused (exit $rc)" sh -c "[ $rc -eq 2 ] && grep -q 'the measurements hold 2 runs' ab.err && [ ! -e dbab ]"
csprof-prof --runs separate b a -o dbba > /dev/null 2> ba.err; rc=$?
check "--runs separate b a: run 1 is b's ($rc)" sh -c "[ $rc -eq 0 ] && grep -q 'run 1 = id $id2 (b, 1 file' ba.err"
check "--runs separate b a: each column its directory's value" \
    sh -c "$(declare -f same); same '$(total dbba 'CPUTIME [run 1]')' '$tb' && same '$(total dbba 'CPUTIME [run 2]')' '$ta'"

# --- files without a run id (an older csprof, or the monitor preloaded by hand)
for d in old1 old2; do
    CSPROF_EVENTS=CPUTIME@1000 CSPROF_OUTDIR=$PWD/$d LD_PRELOAD=$monitor ./burn
done
check "a monitor preloaded without csrun writes no run id" [ "$(ids old1/*.cspm old2/*.cspm)" = none ]
csprof-prof -q old1 -o dbo1 > /dev/null 2>&1 && csprof-prof -q old2 -o dbo2 > /dev/null 2>&1
check "old files are read" [ -s dbo1/experiment.xml -a -s dbo2/experiment.xml ]
csprof-prof -q old1 old2 -o dbo > /dev/null 2> old.err; rc=$?
check "old files of two arguments: summed as before, no refusal (exit $rc)" [ "$rc" -eq 0 ]
check "old files summed: $(total dbo CPUTIME) = $(total dbo1 CPUTIME) + $(total dbo2 CPUTIME)" \
    same "$(total dbo CPUTIME)" "$(awk -v a="$(total dbo1 CPUTIME)" -v b="$(total dbo2 CPUTIME)" 'BEGIN { printf "%.9f", a + b }')"
csprof-prof -q --runs separate old1 old2 -o dboo > /dev/null 2>&1
check "old files, --runs separate: one column per argument" \
    sh -c "$(declare -f same); same '$(total dboo 'CPUTIME [run 1]')' '$(total dbo1 CPUTIME)' && same '$(total dboo 'CPUTIME [run 2]')' '$(total dbo2 CPUTIME)'"
csprof-prof a old1 -o dbmix > /dev/null 2> mix.err; rc=$?
check "a run and files without a run id: refused (exit $rc: $(cat mix.err))" \
    sh -c "[ $rc -eq 2 ] && grep -q 'run 2 = files without a run id (old1, 1 file' mix.err"
csrun -q -e CPUTIME@1000 -o old1 ./burn 2> oldref.txt; rc=$?
check "csrun refuses a directory of files without a run id (exit $rc: $(cat oldref.txt))" \
    sh -c "[ $rc -eq 2 ] && grep -q 'of another run (written without a run id' oldref.txt"

# --- what csrun looks at in the directory: a FIFO named *.cspm is not waited on
mkdir -m 700 fifo && mkfifo fifo/planted.cspm
timeout 60 csrun -q -e CPUTIME@1000 -o fifo ./burn 5000000 2> fifo.err; rc=$?
check "csrun into a directory with a FIFO named planted.cspm: runs, not blocked (exit $rc: $(cat fifo.err))" [ "$rc" -eq 0 ]

# --- run ids given: CSPROF_RUN_ID, and an MPI job's (every rank's csrun computes the same)
CSPROF_RUN_ID=build-42.a csrun -q -e CPUTIME@1000 -o given ./burn 5000000 &&
    CSPROF_RUN_ID=build-42.a csrun -q -e CPUTIME@1000 -o given ./burn 5000000; rc=$?
check "CSPROF_RUN_ID: two commands, one run (exit $rc, ids $(ids given/*.cspm))" \
    sh -c "[ $rc -eq 0 ] && [ '$(ids given/*.cspm)' = build-42.a ]"
check "csprof-prof takes them as one run" sh -c 'csprof-prof -q given -o dbgiven > /dev/null 2>&1'
CSPROF_RUN_ID='no spaces' csrun -q -o bad true 2> bad.err; rc=$?
check "a CSPROF_RUN_ID csrun could not have made is refused (exit $rc: $(cat bad.err))" \
    sh -c "[ $rc -eq 2 ] && grep -q CSPROF_RUN_ID bad.err"
for r in 0 1; do
    OMPI_COMM_WORLD_RANK=$r OMPI_COMM_WORLD_SIZE=2 PMIX_NAMESPACE=job7 \
        csrun -q -e CPUTIME@1000 -o ranks ./burn 5000000 || echo "rank $r: exit $?"
done > ranks.txt 2>&1
check "two ranks of one job into one directory ($(cat ranks.txt))" [ ! -s ranks.txt ]
rid=$(ids ranks/*.cspm)
check "the ranks share one run id ($rid)" \
    sh -c "[ \$(ls ranks/*.cspm | wc -l) -eq 2 ] && echo '$rid' | grep -qx 'mpi-[0-9a-f]\{16\}'"
OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=2 PMIX_NAMESPACE=job8 \
    csrun -q -e CPUTIME@1000 -o ranks ./burn 5000000 2> /dev/null; rc=$?
check "a rank of another job is refused (exit $rc)" [ "$rc" -eq 2 ]
finish
