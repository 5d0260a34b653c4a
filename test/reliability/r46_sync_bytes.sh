#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 46: the synchronous byte events against known truth (programs/sync_bytes.cc).
#   MEMALLOC (with CPUTIME in the same run): f_alloc allocates 3 x what g_alloc does
#     through malloc, calloc, realloc, new[], aligned_alloc: the ratio of their inclusive
#     bytes is 3 (2.6..3.5), each is within 10 % of what the program says it allocated,
#     operator new's share under churn is 4400/21496 (0.15..0.26), and CPUTIME is a second
#     metric column.
#   MEMLEAK: leak_a leaks 3 x what leak_b leaks (2.6..3.5), leak_a within 10 % of the
#     truth, no_leak (allocates as much, frees it) under 1 % of leak_a.
#   Threads: the same in two threads that end before main (MEMALLOC and MEMLEAK in one
#     run): each thread's profile holds its bytes, and its leaks are charged when the
#     thread ends.
#   IO_READ, IO_WRITE, IO: writer's bytes written (write + fwrite) and reader's bytes read
#     (read + fread) within 10 % of the truth, none of the other direction, IO = both.
#   csprof's own IO is not the program's: with IO@16, a program that does no IO has exactly
#     0 IO samples, although csprof wrote its profile (and the vDSO's copy) and read /proc,
#     at least 100 x 16 bytes that would have been sampled through the IO overrides.
# Every profiled run prints what the baseline prints and exits the same way.
. "$(dirname "$0")/lib.sh"
runs=$(rel_runs 2)
rounds=${REL_UNITS:-5000}

rel_build sb g++ "-pthread" sync_bytes.cc
# truth WORD FILE: the number after WORD in the program's output FILE.
truth() { awk -v w="$1" '{ for (i = 1; i < NF; i++) if ($i == w) print $(i + 1) }' "$2"; }
near() { awk -v x="$1" -v t="$2" 'BEGIN { exit !(t > 0 && x >= 0.9 * t && x <= 1.1 * t) }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f\n", (b > 0 ? a / b : 0) }'; }

rel_plain alloc ./sb alloc "$rounds"
rel_plain leak ./sb leak $((rounds / 2))
rel_plain io ./sb io $((rounds / 2))
rel_plain threads ./sb threads $((rounds / 2))
rel_plain noio ./sb noio "$rounds"
for t in alloc leak io threads noio; do check "baseline $t exits 0" [ "$(cat $t.rc)" -eq 0 ]; done

for ((r = 1; r <= runs; r++)); do
    REL_EVENT=MEMALLOC@32768 rel_prof a$r ma$r -e CPUTIME@1000 ./sb alloc "$rounds" || continue
    check "alloc run $r: output and exit status identical" rel_same a$r alloc
    check "alloc run $r: database" rel_db ma$r dba$r
    check "alloc run $r: database validates" validate dba$r
    f=$(incl_of dba$r MEMALLOC "f_alloc(long)") g=$(incl_of dba$r MEMALLOC "g_alloc(long)")
    new=$(incl_of dba$r MEMALLOC "operator new(unsigned long)")
    echo "MEMALLOC: f_alloc $f g_alloc $g (truth $(truth f_alloc alloc.out), $(truth g_alloc alloc.out)), operator new $new"
    check "alloc run $r: f_alloc / g_alloc = 3 (got $(ratio "$f" "$g"))" between "$(ratio "$f" "$g")" 2.6 3.5
    check "alloc run $r: f_alloc within 10 % of the truth" near "$f" "$(truth f_alloc alloc.out)"
    check "alloc run $r: g_alloc within 10 % of the truth" near "$g" "$(truth g_alloc alloc.out)"
    check "alloc run $r: operator new's share 0.205 (got $(ratio "$new" "$(awk -v a="$f" -v b="$g" 'BEGIN { print a + b }')"))" \
        between "$(ratio "$new" "$(awk -v a="$f" -v b="$g" 'BEGIN { print a + b }')")" 0.15 0.26
    check "alloc run $r: a CPUTIME column beside MEMALLOC" [ -n "$(metric_id dba$r CPUTIME inclusive)" ]
    check "alloc run $r: MEMALLOC's unit is bytes" \
        [ "$(xp dba$r "string(//Metric[@event='MEMALLOC'][@t='inclusive']/@unit)")" = bytes ]
done

for ((r = 1; r <= runs; r++)); do
    REL_EVENT=MEMLEAK@16384 rel_prof l$r ml$r ./sb leak $((rounds / 2)) || continue
    check "leak run $r: output and exit status identical" rel_same l$r leak
    check "leak run $r: database" rel_db ml$r dbl$r
    a=$(incl_of dbl$r MEMLEAK "leak_a(long)") b=$(incl_of dbl$r MEMLEAK "leak_b(long)")
    n=$(incl_of dbl$r MEMLEAK "no_leak(long)")
    echo "MEMLEAK: leak_a $a leak_b $b no_leak $n (truth $(truth leak_a leak.out), $(truth leak_b leak.out), 0)"
    check "leak run $r: leak_a / leak_b = 3 (got $(ratio "$a" "$b"))" between "$(ratio "$a" "$b")" 2.6 3.5
    check "leak run $r: leak_a within 10 % of the truth" near "$a" "$(truth leak_a leak.out)"
    check "leak run $r: no_leak's allocations were sampled" [ -n "$(proc_ids dbl$r "no_leak(long)")" ]
    check "leak run $r: no_leak under 1 % of leak_a (got ${n:-0})" \
        awk -v n="${n:-0}" -v a="$a" 'BEGIN { exit !(a > 0 && n < 0.01 * a) }'
done

REL_EVENT=MEMALLOC@32768 rel_prof t1 mt1 -e MEMLEAK@8192 ./sb threads $((rounds / 2)) &&
    check "threads run: output and exit status identical" rel_same t1 threads &&
    check "threads run: database" rel_db mt1 dbt1 && {
    check "threads run: 3 thread profiles" [ "$(rel_profiles mt1)" -eq 3 ]
    f=$(incl_of dbt1 MEMALLOC "f_alloc(long)") g=$(incl_of dbt1 MEMALLOC "g_alloc(long)")
    a=$(incl_of dbt1 MEMLEAK "leak_a(long)") b=$(incl_of dbt1 MEMLEAK "leak_b(long)")
    echo "threads: f_alloc $f g_alloc $g leak_a $a leak_b $b ($(cat threads.out))"
    check "threads run: f_alloc within 10 % of the truth" near "$f" "$(truth f_alloc threads.out)"
    check "threads run: g_alloc within 10 % of the truth" near "$g" "$(truth g_alloc threads.out)"
    check "threads run: leak_a within 10 % of the truth" near "$a" "$(truth leak_a threads.out)"
    check "threads run: leak_b within 15 % of the truth" \
        awk -v x="$b" -v t="$(truth leak_b threads.out)" 'BEGIN { exit !(x >= 0.85 * t && x <= 1.15 * t) }'
}

for ((r = 1; r <= runs; r++)); do
    REL_EVENT=IO_READ@32768 rel_prof i$r mi$r -e IO_WRITE@32768 -e IO@32768 ./sb io $((rounds / 2)) || continue
    check "io run $r: output and exit status identical" rel_same i$r io
    check "io run $r: database" rel_db mi$r dbi$r
    w=$(incl_of dbi$r IO_WRITE "writer(long)") rd=$(incl_of dbi$r IO_READ "reader(long)")
    wr=$(incl_of dbi$r IO_READ "writer(long)") rw=$(incl_of dbi$r IO_WRITE "reader(long)")
    both=$(awk -v a="$(incl_of dbi$r IO "writer(long)")" -v b="$(incl_of dbi$r IO "reader(long)")" 'BEGIN { print a + b }')
    echo "IO: writer wrote $w read ${wr:-0}, reader read $rd wrote ${rw:-0}, IO $both (truth $(truth writer io.out), $(truth reader io.out))"
    check "io run $r: writer's bytes written within 10 % of the truth" near "$w" "$(truth writer io.out)"
    check "io run $r: reader's bytes read within 10 % of the truth" near "$rd" "$(truth reader io.out)"
    check "io run $r: writer read nothing, reader wrote nothing" \
        awk -v a="${wr:-0}" -v b="${rw:-0}" 'BEGIN { exit !(a == 0 && b == 0) }'
    check "io run $r: IO is both directions" \
        near "$both" "$(awk -v a="$(truth writer io.out)" -v b="$(truth reader io.out)" 'BEGIN { print a + b }')"
done
for ((r = 1; r <= runs; r++)); do
    REL_EVENT=IO@16 rel_prof n$r mn$r ./sb noio "$rounds" || continue
    check "noio run $r: output and exit status identical" rel_same n$r noio
    own=$(find mn$r -maxdepth 1 -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
    echo "noio: csprof wrote $own bytes; IO samples $(rel_stat mn$r event.IO.samples)"
    check "noio run $r: csprof wrote at least 1600 bytes ($own)" [ "$own" -ge 1600 ]
    check "noio run $r: no IO sample (csprof's own IO is not the program's)" \
        [ "$(rel_stat mn$r event.IO.samples)" -eq 0 ]
    check "noio run $r: database" rel_db mn$r dbn$r
    check "noio run $r: IO total 0" [ "$(rel_total dbn$r IO)" = 0 ]
done
finish
