#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The return-address trampoline against programs that leave frames in every
# way but a plain return: C++ exceptions, longjmp/_longjmp/siglongjmp (and
# __longjmp_chk), longjmp out of signal handlers, swapcontext coroutines and
# setcontext, sibling and tail calls, return values in every register class,
# callers that keep values in call-clobbered registers (-fipa-ra),
# pthread_exit and pthread_cancel from deep recursion, and backtrace().
# Each program (test/programs/tramp_*) is built here at -O2 and run
# unprofiled, then REPS times under csrun at 1 kHz and once with
# --no-trampoline: same stdout, same exit status, no crash or hang, a
# readable profile with samples, and the trampoline fired.  Finally, Figure
# 1's sampled call counts: b calls c twice as often as a, while c's time
# splits 50/50.
. "$(dirname "$0")/lib.sh"
src=$CSPROF_SOURCE/test/programs
reps=${CSPROF_TRAMP_REPS:-3}
cc=${CC:-gcc}
cxx=${CXX:-g++}
limit=60 # seconds per run: a hang is a failure, not a stuck test

# NAME|COMPILER|FLAGS|SOURCE|THREADS: the programs, and how many thread profiles each leaves.
programs="
exceptions|$cxx||tramp_exceptions.cc|1
longjmp|$cc||tramp_longjmp.c|1
longjmp_chk|$cc|-D_FORTIFY_SOURCE=2|tramp_longjmp.c|1
swapcontext|$cc||tramp_swapcontext.c|1
tailcall|$cc||tramp_tailcall.c|1
returns|$cc||tramp_returns.c|1
ipa|$cc||tramp_ipa.c|1
pthread|$cc|-pthread|tramp_pthread.c|7
pthread_eh|$cc|-pthread -fexceptions|tramp_pthread.c|7
backtrace|$cc|-rdynamic|tramp_backtrace.c|1
"

# stat_sum DIR NAME: the sum of stat NAME over every profile in DIR.
stat_sum() {
    csprof-prof --dump "$1"/*.cspm 2>/dev/null |
        awk -v n="name=\"$2\"" '$1 == "stat" && $2 == n { split($3, v, "="); s += v[2] } END { print s + 0 }'
}

# hxp DB XPATH: xp for databases of deep recursions (nesting beyond libxml2's default 256).
hxp() { xmllint --huge --xpath "$2" "$1/experiment.xml" 2>/dev/null; }

# same_run PROG TAG: stdout and exit status of the profiled run TAG match the plain run.
same_run() {
    local prog=$1 tag=$2 rc
    rc=$(cat "$tag.rc")
    if [ "$rc" -ne "$(cat "$prog.plain.rc")" ]; then
        echo "  $tag: exit status $rc, unprofiled $(cat "$prog.plain.rc")"
        [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && echo "  $tag: killed after ${limit}s: a hang"
        [ "$rc" -gt 128 ] && [ "$rc" -ne 137 ] && echo "  $tag: died of signal $((rc - 128))"
        return 1
    fi
    if ! cmp -s "$prog.plain.out" "$tag.out"; then
        echo "  $tag: output differs from the unprofiled run:"
        diff "$prog.plain.out" "$tag.out" | head -12 | sed 's/^/    /'
        return 1
    fi
}

# profile_ok DIR DB THREADS: DIR holds THREADS readable profiles that merge into DB with samples.
profile_ok() {
    local dir=$1 db=$2 want=$3 n samples threads
    # One file per process, one record per thread.
    n=$(ls "$dir"/*.cspm 2>/dev/null | wc -l)
    if [ "$n" -ne 1 ]; then
        echo "  $dir: $n measurement files, expected 1"
        return 1
    fi
    if ! csprof-prof "$dir" -o "$db" > "$db.summary" 2>&1; then
        echo "  csprof-prof $dir failed:"; sed 's/^/    /' "$db.summary" | head -5
        return 1
    fi
    samples=$(hxp "$db" 'string(//Summary/@samples)')
    threads=$(hxp "$db" 'string(//Summary/@threads)')
    if ! [ "${samples:-0}" -gt 0 ] 2>/dev/null || [ "$threads" != "$want" ]; then
        echo "  $db: $samples samples from $threads threads"
        return 1
    fi
}

while IFS='|' read -r prog comp flags file threads <&3; do
    [ -n "$prog" ] || continue
    # shellcheck disable=SC2086 # FLAGS is a word list
    if ! check "$prog: $comp -O2 -g $flags $file" \
        "$comp" -O2 -g $flags -o "$prog" "$src/$file"; then
        continue
    fi
    timeout -k 5 $limit "./$prog" > "$prog.plain.out" 2> "$prog.plain.err"
    echo $? > "$prog.plain.rc"
    check "$prog: unprofiled run succeeds (exit $(cat "$prog.plain.rc"))" \
        [ "$(cat "$prog.plain.rc")" -eq 0 ]

    fired_runs=0
    for rep in $(seq 1 "$reps"); do
        tag=${prog}_$rep
        timeout -k 5 $limit csrun -q -e CPUTIME@1000 -o "m_$tag" "./$prog" > "$tag.out" 2> "$tag.err"
        echo $? > "$tag.rc"
        check "$prog run $rep: same output and exit status under csrun" same_run "$prog" "$tag"
        check "$prog run $rep: profile complete and readable" profile_ok "m_$tag" "db_$tag" "$threads"
        fired=$(stat_sum "m_$tag" trampoline.fired)
        echo "  $tag: trampoline fired $fired times, $(stat_sum "m_$tag" trampoline.nonlocal_exits) non-local exits, $(stat_sum "m_$tag" trampoline.return_mismatch) return mismatches"
        [ "$fired" -gt 0 ] && fired_runs=$((fired_runs + 1))
    done
    check "$prog: the trampoline fired in every run ($fired_runs of $reps)" [ "$fired_runs" -eq "$reps" ]

    tag=${prog}_notramp
    timeout -k 5 $limit csrun -q --no-trampoline -e CPUTIME@1000 -o "m_$tag" "./$prog" \
        > "$tag.out" 2> "$tag.err"
    echo $? > "$tag.rc"
    check "$prog --no-trampoline: same output and exit status" same_run "$prog" "$tag"
    check "$prog --no-trampoline: profile complete and readable" \
        profile_ok "m_$tag" "db_$tag" "$threads"
    fired=$(stat_sum "m_$tag" trampoline.fired)
    check "$prog --no-trampoline: the trampoline never fired ($fired)" [ "$fired" -eq 0 ]
done 3<<< "$programs"

# The fortified build really calls __longjmp_chk (else it tests nothing new).
if [ -x longjmp_chk ]; then
    check "longjmp_chk calls __longjmp_chk" sh -c 'nm -D longjmp_chk | grep -q __longjmp_chk'
fi

# ---- Figure 1: sampled call counts ([csprof 2005] §2.4) ----
# Calls from a to c, against calls from b to c: over the call sites C whose parent
# frame is PROC and which contain a frame of c, sum the "calls" metric.
calls_into_c() {
    local db=$1 p c m
    p=$(or_ids n $(proc_ids "$db" "$2")); c=$(or_ids n $(proc_ids "$db" c))
    m=$(xp "$db" "string(//Metric[@event='calls']/@i)")
    xp "$db" "sum(//PF[$p]/C[PF[$c]]/M[@n='$m']/@v)"
}
fig=$CSPROF_EXAMPLES/fig1
timeout -k 5 120 csrun -q -e CPUTIME@1000 -o mfig "$fig" > fig.out
check "fig1 under csrun exits 0" [ $? -eq 0 ]
check "csprof-prof mfig -o dbfig" sh -c 'csprof-prof mfig -o dbfig > dbfig.summary'
calls_a=$(calls_into_c dbfig a); calls_b=$(calls_into_c dbfig b)
ratio=$(awk -v a="$calls_a" -v b="$calls_b" 'BEGIN { print (a > 0 ? b / a : 0) }')
echo "sampled calls of c: from a $calls_a, from b $calls_b, ratio b/a $ratio"
check "calls of c from b are twice those from a (b/a = $ratio in [1.5, 2.5])" \
    between "$ratio" 1.5 2.5
from_a=$(incl_under dbfig CPUTIME c a); from_b=$(incl_under dbfig CPUTIME c b)
share_a=$(awk -v a="$from_a" -v b="$from_b" 'BEGIN { print (a + b > 0 ? 100 * a / (a + b) : 0) }')
check "yet c's time from a is 50% +-10 ($share_a%)" between "$share_a" 40 60
per_a=$(awk -v t="$from_a" -v n="$calls_a" 'BEGIN { print (n > 0 ? t / n : 0) }')
per_b=$(awk -v t="$from_b" -v n="$calls_b" 'BEGIN { print (n > 0 ? t / n : 0) }')
cost_ratio=$(awk -v a="$per_a" -v b="$per_b" 'BEGIN { print (b > 0 ? a / b : 0) }')
check "so a call of c from a costs about twice one from b ($cost_ratio in [1.4, 2.8])" \
    between "$cost_ratio" 1.4 2.8

timeout -k 5 120 csrun -q --no-trampoline -e CPUTIME@1000 -o mfig_notramp "$fig" > /dev/null
check "csprof-prof mfig_notramp -o dbfig_notramp" \
    sh -c 'csprof-prof mfig_notramp -o dbfig_notramp > /dev/null'
n=$(xp dbfig_notramp "count(//Metric[@event='calls'])")
check "--no-trampoline: no calls metric ($n)" [ "$n" = 0 ]
finish
