#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A correct run prints no alarm, and every number says what it counts (issue 22, item 4):
#  - `csrun -e REALTIME sleep 1`: a trustworthy verdict, no shortfall, and the rate line
#    says why one sample came for 200 periods (the sleeping thread's timer expirations
#    are merged into it: the samples carry about 200 periods);
#  - threads with no CPU time (asleep, returning at once, or with csprof's signal blocked) are
#    no doubt: csrun's and csprof-prof's verdicts are trustworthy;
#  - MEMLEAK: its samples are allocations sampled, its value the bytes of those still
#    allocated when the profiles were written.  A program that leaks is told the bytes
#    (near the truth, and exactly the database's total); one that frees everything is told
#    "no leak found", with the allocations sampled, by csrun and by csprof-prof.
. "$(dirname "$0")/lib.sh"

# --- REALTIME over a sleeping program
csrun -e REALTIME -o mrt sleep 1 2> rt.err; rc=$?
check "csrun -e REALTIME sleep 1 exits 0 ($rc)" [ "$rc" -eq 0 ]
check "its verdict is trustworthy: $(grep 'trust:' rt.err)" grep -q '^csprof: trust: measurement trustworthy' rt.err
check "no alarm: no DOUBTFUL, shortfall or missing samples" sh -c "! grep -Eiq 'doubtful|shortfall|missing|could not be sampled' rt.err"
# (csprof's own 1 ms is a large share of a sleep's 2 ms of CPU time: said as times, not a share)
check "no alarm: csprof's time over a run of little CPU time is no share of it" \
    sh -c "! tr '\n' ' ' < rt.err | grep -q 'handler and writer [0-9.]*% of the CPU time'"
line=$(grep '^csprof: REALTIME@5000' rt.err)
periods=$(echo "$line" | sed -n 's/.*; they carry \([0-9]*\) periods: a waiting thread.s timer expirations are merged into its next sample$/\1/p')
check "the rate line says the few samples carry the periods of the sleep: $line" \
    sh -c "[ -n '$periods' ] && [ '$periods' -ge 150 ] && [ '$periods' -le 260 ]"

# --- CPUTIME over a program with a thread that sleeps, one that returns at once and one that
#     sleeps with every signal blocked: threads with no CPU time to sample are no doubt (the
#     audit's "1 thread(s) could not be sampled" line for a thread of 0.000 CPU-seconds)
cat > idle.c << 'EOF'
#include <pthread.h>
#include <signal.h>
#include <unistd.h>
volatile double x;
static void *sleeper(void *a) { sleep(1); return a; }
static void *quick(void *a) { return a; }
static void *masked(void *a) /* ends with every signal blocked, csprof's too */
{
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, 0);
    usleep(300000);
    return a;
}
int main(void)
{
    pthread_t t, u, v;
    pthread_create(&t, 0, sleeper, 0);
    pthread_create(&u, 0, quick, 0);
    pthread_create(&v, 0, masked, 0);
    for (long i = 0; i < 100000000; i++)
        x += i * 0.5;
    pthread_join(t, 0);
    pthread_join(u, 0);
    pthread_join(v, 0);
    return 0;
}
EOF
gcc -O1 -g -pthread -o idle idle.c || { echo "SKIP: cannot compile with gcc"; exit 77; }
csrun -e CPUTIME@1000 -o midle ./idle 2> idle.err; rc=$?
check "csrun -e CPUTIME@1000 ./idle exits 0 ($rc)" [ "$rc" -eq 0 ]
check "idle threads: 3 threads and main: $(grep 'thread(s) in' idle.err)" grep -q '^csprof: 4 thread(s) in 1 process(es) profiled' idle.err
check "idle threads: the verdict is trustworthy: $(grep 'trust:' idle.err)" grep -q '^csprof: trust: measurement trustworthy' idle.err
check "idle threads: no alarm" sh -c "! grep -Eiq 'doubtful|no sample|could not be sampled|cannot be sampled' idle.err"
csprof-prof midle -o dbidle > idle.prof 2> idle.prof.err
verdict=$(xp dbidle 'string(//Trust/@verdict)')
check "idle threads: csprof-prof's verdict is trustworthy too: $(grep '^trust:' idle.prof) (database: $verdict)" \
    sh -c "grep -qx 'trust: trustworthy' idle.prof && [ '$verdict' = trustworthy ]"

# --- MEMLEAK: a program that leaks, one that does not
cat > leaks.c << 'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
/* leak N: keeps N blocks of 8 KiB (and allocates and frees as many); free: keeps none.
 * Output by write(2): stdio's buffer would be a block never freed. */
int main(int argc, char **argv)
{
    long n = argc > 2 ? atol(argv[2]) : 1000, kept = 0;
    int leak = argc > 1 && strcmp(argv[1], "leak") == 0;
    for (long i = 0; i < n; i++) {
        char *volatile p = malloc(8192), *volatile q = malloc(8192);
        p[0] = q[0] = (char)i;
        free(q);
        if (leak)
            kept++;
        else
            free(p);
    }
    char out[32];
    int len = snprintf(out, sizeof out, "%ld\n", kept * 8192);
    return write(1, out, (size_t)len) == len ? 0 : 1;
}
EOF
gcc -O0 -g -o leaks leaks.c || { echo "SKIP: cannot compile with gcc"; exit 77; }
csrun -e MEMLEAK@16384 -o mleak ./leaks leak 800 > leak.out 2> leak.err; rc=$?
check "csrun -e MEMLEAK ./leaks leak exits 0 ($rc)" [ "$rc" -eq 0 ]
truth=$(cat leak.out)
line=$(grep '^csprof: MEMLEAK@16384' leak.err)
sampled=$(echo "$line" | sed -n 's/.*(synchronous): \([0-9]*\) allocations sampled (a sample point every 16384 bytes allocated, on average); .*/\1/p')
bytes=$(echo "$line" | sed -n 's/.*those still allocated when the profiles were written stand for \([0-9]*\) bytes (.*): the leaks, by allocating context$/\1/p')
echo "leak: $line (truth $truth bytes)"
check "leak: csrun counts the allocations sampled ($sampled)" sh -c "[ -n '$sampled' ] && [ '$sampled' -gt 100 ]"
check "leak: csrun gives the bytes still allocated, within 25 % of the $truth leaked ($bytes)" \
    sh -c "[ -n '$bytes' ] && awk -v b='$bytes' -v t='$truth' 'BEGIN { exit !(b >= 0.75 * t && b <= 1.25 * t) }'"
csprof-prof mleak -o dbleak > leak.prof 2> /dev/null
total=$(xp dbleak "string(//EventTotal[@event='MEMLEAK']/@v)")
check "leak: csrun's bytes are the database's MEMLEAK total ($total)" awk -v a="$bytes" -v b="$total" 'BEGIN { exit !(a != "" && a == b) }'
check "leak: csprof-prof's summary says the same: $(grep '^MEMLEAK:' leak.prof)" \
    grep -qx "MEMLEAK: $sampled allocations sampled; those still allocated when the profiles were written stand for $bytes bytes: the leaks, by allocating context" leak.prof

csrun -e MEMLEAK@16384 -o mfree ./leaks free 800 > free.out 2> free.err; rc=$?
check "csrun -e MEMLEAK ./leaks free exits 0 ($rc)" [ "$rc" -eq 0 ]
line=$(grep '^csprof: MEMLEAK@16384' free.err)
echo "free: $line"
sampled=$(echo "$line" | sed -n 's/.*(synchronous): \([0-9]*\) allocations sampled (a sample point every 16384 bytes allocated, on average); none still allocated when the profiles were written: no leak found$/\1/p')
check "free: csrun says no leak found, and how many allocations it sampled ($sampled)" \
    sh -c "[ -n '$sampled' ] && [ '$sampled' -gt 100 ]"
check "free: no alarm" sh -c "! grep -Eiq 'doubtful|shortfall' free.err"
csprof-prof mfree -o dbfree > free.prof 2> /dev/null
check "free: the database's MEMLEAK total is 0" [ "$(xp dbfree "string(//EventTotal[@event='MEMLEAK']/@v)")" = 0 ]
check "free: csprof-prof's summary says no leak found: $(grep '^MEMLEAK:' free.prof)" \
    grep -qx "MEMLEAK: $sampled allocations sampled; none still allocated when the profiles were written: no leak found" free.prof
finish
