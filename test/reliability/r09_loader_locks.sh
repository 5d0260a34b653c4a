#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 9: the program keeps the dynamic loader's locks busy while it is
# sampled: one thread each looping dl_iterate_phdr, dladdr, backtrace(),
# dlopen/dlclose of libm (already mapped: locks and reference counts),
# dlopen/dlclose of a library of its own (mapped and unmapped each time) and
# C++ throw/catch (the unwinder calls dl_iterate_phdr).  A sample that
# interrupts the loader must never wait for its lock, nor be lost: each
# profiled run ends (no hang, no crash), prints what the baseline prints and
# exits alike, and each mode's thread has a profile holding its work: its
# tree holds every sample it counted; the samples it recorded or counted as
# dropped are at least half the periods of its user CPU time (the program
# reports each thread's getrusage; the perf task clock takes no sample in
# the kernel, where dlopen of a new library spends most of its time); and
# >= 80 % of its samples lie in its mode's loop (loop_phdr...).  A first run
# loops dl_iterate_phdr alone, the smallest case that hung.  REL_THREAD_MS
# sets the CPU time of each thread (default 100 ms; dlopenx runs 3 times as
# long).
. "$(dirname "$0")/lib.sh"
runs=$(rel_runs 3)
ms=${REL_THREAD_MS:-100}
modes=phdr,dladdr,backtrace,dlopen,dlopenx,throw

rel_build loader_locks g++ "-pthread" loader_locks.cc
rel_build libloader_locks.so gcc "-shared -fPIC" loader_locks_lib.c
export LOADER_LOCKS_LIB=$PWD/libloader_locks.so

# threads LABEL TAG DIR WANT: the profile (in DIR) of each of the program's
# mode threads (the "cpu MODE TID CALLS USER_NS SYSTEM_NS" lines of TAG.err,
# matched by thread id) holds its work; WANT mode threads.
threads() {
    local tag=$1 err=$2.err dir=$3 want=$4 rec idx rest tid mode user recd drop per seen=0
    rel_records "$dir" > "$dir.rec"
    while read -r rec idx rest; do
        tid=$(sed -n 's/^header pid=[0-9]* tid=\([0-9]*\) .*/\1/p' "$rec.txt")
        read -r mode user <<< "$(awk -v t="$tid" '$1 == "cpu" && $3 == t { print $2, $5 }' "$err")"
        [ -n "$mode" ] || continue # the main thread: it waits in pthread_join
        seen=$((seen + 1))
        # shellcheck disable=SC2086 # the record's words
        set -- $rest
        recd=$2 per=$4 drop=$5
        # shellcheck disable=SC2086
        rel_content "$tag, $mode" - ./loader_locks "loop_$mode" "" 0.80 "$rec" "$idx" $rest
        check "$tag, $mode, thread $idx: $recd recorded + $drop dropped >= 0.5 x $(awk -v u="$user" \
            -v p="$per" 'BEGIN { printf "%.1f", (p > 0 ? u / p : 0) }') (its $(awk -v u="$user" \
            'BEGIN { printf "%.3f", u / 1e9 }') s of user time / the period)" \
            awk -v n=$((recd + drop)) -v u="$user" -v p="$per" 'BEGIN { exit !(p > 0 && u > 0 && n >= 0.5 * u / p) }'
    done < "$dir.rec"
    check "$tag: a profile for each of the $want mode threads ($seen)" [ "$seen" -eq "$want" ]
}

rel_plain base ./loader_locks "$modes" "$ms"
check "baseline exits 0" [ "$(cat base.rc)" -eq 0 ]
check "baseline: every loop succeeded" \
    awk '$2 != "ok" { bad = 1 } END { exit bad || NR != 6 }' base.out
rel_plain base1 ./loader_locks phdr $((ms * 3))

rel_prof p0 m0 ./loader_locks phdr $((ms * 3))
check "dl_iterate_phdr alone: output and exit status identical" rel_same p0 base1
threads "dl_iterate_phdr alone" p0 m0 1
for ((r = 1; r <= runs; r++)); do
    rel_prof p$r m$r ./loader_locks "$modes" "$ms"
    check "run $r: output and exit status identical" rel_same p$r base
    threads "run $r" p$r m$r 6
done
finish
