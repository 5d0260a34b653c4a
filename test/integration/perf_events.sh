#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Perf events (hardware counters and kernel software events, lib/monitor/source_perf.c):
# - PAPI_TOT_CYC profiles where the machine has a PMU, and is otherwise refused before the
#   program runs (exit 2, a message naming the event, the reason and what to use instead);
# - perf::PAGE-FAULTS@100 with CPUTIME gives two metric columns, and the page faults of
#   test/programs/perf_sw.c split 3:1 between the functions that take them, in the number the
#   program takes (400 MiB of fresh pages);
# - perf::CONTEXT-SWITCHES splits 3:1 between the functions that sleep 600 and 200 times
#   (or, where perf_event_paranoid forbids kernel-side events, is refused saying so).
. "$(dirname "$0")/lib.sh"
gcc -O2 -g -o app "$CSPROF_SOURCE/test/programs/perf_sw.c" || { check "compile" false; finish; }
csprof-struct ./app > app.struct || { check "csprof-struct" false; finish; }

# 1. A hardware counter by PAPI preset.
csrun -L > list.txt
check "csrun -L lists the PAPI presets first" sh -c 'grep -m1 -o "PAPI_[A-Z0-9_]*" list.txt | grep -qx PAPI_TOT_CYC'
check "csrun -L lists perf::PAGE-FAULTS as available" grep -Eq '^ +perf::PAGE-FAULTS +available' list.txt
if grep -Eq '^ +PAPI_TOT_CYC +available' list.txt; then
    echo "this machine has a PMU: PAPI_TOT_CYC must profile"
    csrun -e PAPI_TOT_CYC@1000000 -o cyc ./app faults 2> err.txt; rc=$?
    check "PAPI_TOT_CYC profiles (exit $rc)" [ "$rc" -eq 0 ]
    check "summary reports PAPI_TOT_CYC samples" grep -Eq 'PAPI_TOT_CYC@1000000 \(perf-event\): [1-9][0-9]* samples' err.txt
else
    echo "this machine has no PMU for PAPI_TOT_CYC: it must be refused"
    rm -f ran
    csrun -e PAPI_TOT_CYC touch ran 2> err.txt; rc=$?
    cat err.txt
    check "PAPI_TOT_CYC refused with exit 2 (got $rc)" [ "$rc" -eq 2 ]
    check "the program did not run" [ ! -e ran ]
    check "the message names the event" grep -q "cannot sample PAPI_TOT_CYC" err.txt
    check "the message gives the reason" grep -Eq "no hardware PMU|perf_event_paranoid is [0-9-]+, .* needs [0-9] or less|the kernel" err.txt
    check "the message says what to use instead" grep -q "use CPUTIME instead" err.txt
fi

# 2. Page faults and CPU time in one run: two metric columns, attribution 3:1.
csrun -e perf::PAGE-FAULTS@100 -e CPUTIME -o pf ./app faults 2> summary.txt; rc=$?
cat summary.txt
check "csrun -e perf::PAGE-FAULTS@100 -e CPUTIME exits 0 (got $rc)" [ "$rc" -eq 0 ]
check "summary names the perf event" grep -q "perf::PAGE-FAULTS@100 (perf-event)" summary.txt
check "csprof-prof" sh -c 'csprof-prof -S app.struct pf -o db > prof.txt'
check "database validates" validate db
check "two page-fault metric columns (inclusive, exclusive)" [ "$(xp db "count(//Metric[@event='perf::PAGE-FAULTS'][not(@stat)])")" = 2 ]
check "two CPUTIME metric columns" [ "$(xp db "count(//Metric[@event='CPUTIME'][not(@stat)])")" = 2 ]
check "page faults are counted in events" [ "$(xp db "string(//Metric[@event='perf::PAGE-FAULTS'][@t='inclusive']/@unit)")" = events ]
three=$(incl_of db perf::PAGE-FAULTS touch_three); one=$(incl_of db perf::PAGE-FAULTS touch_one)
pages=$(( 400 * 1024 * 1024 / $(getconf PAGESIZE) ))
ratio=$(awk -v a="$three" -v b="$one" 'BEGIN { print (b > 0 ? a / b : 0) }')
echo "page faults: touch_three $three, touch_one $one (ratio $ratio), pages touched $pages"
check "touch_three : touch_one page faults is 3:1 (+-0.5, got $ratio)" between "$ratio" 2.5 3.5
check "their page faults are the pages touched (+-10%, got $three + $one of $pages)" \
    between "$(awk -v a="$three" -v b="$one" -v p="$pages" 'BEGIN { print (a + b) / p }')" 0.9 1.1
cpu=$(incl_of db CPUTIME touch_three)
check "the CPUTIME column has touch_three's time ($cpu s)" awk -v c="$cpu" 'BEGIN { exit !(c > 0) }'

# 3. Context switches, a kernel-side software event.
if csrun -q -e perf::CONTEXT-SWITCHES@10 -o cs ./app yields 2> err.txt; then
    check "csprof-prof (context switches)" sh -c 'csprof-prof -S app.struct cs -o dbcs > /dev/null'
    three=$(incl_of dbcs perf::CONTEXT-SWITCHES sleep_three); one=$(incl_of dbcs perf::CONTEXT-SWITCHES sleep_one)
    ratio=$(awk -v a="$three" -v b="$one" 'BEGIN { print (b > 0 ? a / b : 0) }')
    echo "context switches: sleep_three $three, sleep_one $one (ratio $ratio)"
    check "sleep_three : sleep_one context switches is 3:1 (+-0.8, got $ratio)" between "$ratio" 2.2 3.8
    check "at least one switch per sleep (got $three + $one of 800)" \
        awk -v a="$three" -v b="$one" 'BEGIN { exit !(a + b >= 800) }'
else
    cat err.txt
    check "context switches refused only for perf_event_paranoid, saying so" grep -q "perf_event_paranoid is" err.txt
fi

# 4. perf_event_paranoid: as an unprivileged user, a kernel-side event is refused, naming
# the setting and the value that would allow it.
level=$(cat /proc/sys/kernel/perf_event_paranoid)
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null && [ "$level" -ge 2 ]; then
    setpriv --reuid=65534 --regid=65534 --clear-groups csrun -e perf::CONTEXT-SWITCHES@10 true 2> err.txt; rc=$?
    cat err.txt
    check "unprivileged perf::CONTEXT-SWITCHES refused with exit 2 (got $rc)" [ "$rc" -eq 2 ]
    check "the message names perf_event_paranoid and the value that allows it" \
        grep -q "perf_event_paranoid is $level, counting an event that happens in the kernel needs 1 or less" err.txt
else
    echo "not checked here: the paranoid refusal needs root (to become an unprivileged user) and perf_event_paranoid >= 2 (it is $level)"
fi
# 4. CPU time spent in the kernel: a task clock that samples user mode only takes no
# sample where a period ends in the kernel, and charges that time to the next sample.
# The shortfall must be explained by perf.unsampled_periods, not left "not explained"
# (before that counter, nearly all of read_zero's expected samples were unexplained).
csrun -e CPUTIME@1000 -o kt ./app kernel 2> kt.err; rc=$?
cat kt.err
check "csrun -e CPUTIME@1000 ./app kernel exits 0 (got $rc)" [ "$rc" -eq 0 ]
# (its few samples carry its time: it was sampled, csrun must not call it unsampled)
check "csrun does not report the thread as one that could not be sampled" \
    sh -c '! grep -q "thread(s) could not be sampled" kt.err'
check "csprof-prof (kernel time)" sh -c 'csprof-prof --summary full -S app.struct kt -o dbkt > kt.prof'
grep -A8 "sampling shortfall" kt.prof
uns=$(sed -n 's/.*(perf.unsampled_periods.*): \([0-9]*\)$/\1/p' kt.prof)
unexp=$(sed -n 's/^  not explained by any counter: \([0-9]*\)$/\1/p' kt.prof)
exp=$(sed -n 's/^sampling shortfall: \([0-9]*\) samples expected.*/\1/p' kt.prof)
check "the shortfall names periods that ended in the kernel (${uns:-none})" [ "${uns:-0}" -gt 0 ]
check "at most 20 % of the expected samples unexplained (${unexp:-?} of ${exp:-?})" \
    awk -v u="${unexp:-0}" -v e="${exp:-0}" 'BEGIN { exit !(e > 0 && u <= 0.2 * e) }'
# Samples are rare here (a period rarely ends in user mode), so the count after the
# thread's last sample -- up to 0.25 s seen -- is in no calling context: csrun reports it
# (event.CPUTIME.unsampled_tail), and with it read_zero's time is its 0.6 CPU-seconds.
cpu=$(incl_of dbkt CPUTIME read_zero)
tail_ns=$(csprof-prof --dump kt/*.cspm | sed -n 's/^stat name="event.CPUTIME.unsampled_tail" value=\([0-9]*\)$/\1/p' |
    awk '{ s += $1 } END { print s + 0 }')
tail_s=$(awk -v n="$tail_ns" 'BEGIN { printf "%.3f", n / 1e9 }')
check "read_zero's time is charged to it, kernel time included ($cpu s + $tail_s s after the last sample, of ~0.6)" \
    between "$(awk -v a="$cpu" -v b="$tail_s" 'BEGIN { print a + b }')" 0.45 0.8
if [ "$tail_ns" -ge 1000000 ]; then
    check "csrun reports the count after the last sample ($tail_s s)" grep -q "counted after threads' last samples" kt.err
fi
finish
