#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Checkpoints while the load map is being refreshed (found under MPI_Init,
# which dlopens its components): a checkpoint written from the sampling
# handler read load-map counters under the load-map mutex, which the
# interrupted dlopen/dlclose override held -- a deadlock that SIGTERM could
# not end (every async signal is blocked in the handler).  The program opens
# and closes libraries for 3 s with a checkpoint due at every sample
# (CSPROF_FLUSH_MS=1).  Before the fix it hung in 3 of 3 runs; each profiled
# run must now finish with the baseline's output, write checkpoints, and
# leave a final profile holding the program's work: its tree holds every
# sample it counted, the samples recorded or counted as dropped are at least
# half the periods of its user CPU time (the program reports it; nearly all
# its time is system time, where the perf task clock takes no sample), and
# >= 70 % of them lie below main (the rest: samples in a library being
# mapped, not yet in the load map, whose walk ends there).  One more run is
# killed (SIGKILL) halfway: what is left is its last checkpoint, written
# from the handler during dlopen, and it must hold the same, against the
# user time the kernel had charged when the program was killed.
. "$(dirname "$0")/lib.sh"
runs=$(rel_runs 3)
hz=$(getconf CLK_TCK)

rel_build dlopen_loop gcc "-ldl" dlopen_loop.c

# content TAG DIR USER_NS CHECKPOINT: DIR holds one thread profile (a checkpoint
# when CHECKPOINT is 1) holding the work of USER_NS of user time.
# shellcheck disable=SC2086 # $rest: the record's words
content() {
    local tag=$1 dir=$2 user=$3 ck=$4 n rec idx cpu recd tree per drop rest
    rel_records "$dir" > "$dir.rec"
    n=$(wc -l < "$dir.rec")
    check "$tag: one thread profile ($n)" [ "$n" -eq 1 ] || return
    read -r rec idx cpu recd tree per drop rest < "$dir.rec"
    set -- $rest
    check "$tag: the profile is $([ "$ck" = 1 ] && echo "a checkpoint" || echo "the final record") (checkpoint=$3)" \
        [ "$3" = "$ck" ]
    rel_content "$tag" - ./dlopen_loop main "" 0.70 "$rec" "$idx" "$cpu" "$recd" "$tree" "$per" "$drop" $rest
    check "$tag: $recd recorded + $drop dropped >= 0.5 x $(awk -v u="$user" -v p="$per" \
        'BEGIN { printf "%.1f", (p > 0 ? u / p : 0) }') (its $(awk -v u="$user" 'BEGIN { printf "%.3f", u / 1e9 }') s of user time / the period)" \
        awk -v n=$((recd + drop)) -v u="$user" -v p="$per" 'BEGIN { exit !(p > 0 && u > 0 && n >= 0.5 * u / p) }'
}

rel_plain base ./dlopen_loop
check "baseline exits 0" [ "$(cat base.rc)" -eq 0 ]
for ((r = 1; r <= runs; r++)); do
    CSPROF_FLUSH_MS=1 rel_prof p$r m$r ./dlopen_loop
    check "run $r: no hang, output and exit status identical" rel_same p$r base
    n=$(rel_stat m$r checkpoints.written)
    check "run $r: checkpoints written ($n)" [ "$n" -gt 0 ]
    content "run $r" m$r "$(awk '$1 == "cpu" { print $2 }' p$r.err)" 0
done

# Killed halfway: the last checkpoint is the profile.
rm -f pid
(
    for _ in $(seq 1 300); do [ -s pid ] && break; sleep 0.1; done
    p=$(cat pid 2> /dev/null) || exit 0
    sleep 1.5
    awk '{ print $14 }' "/proc/$p/stat" > ticks
    kill -KILL "$p"
) &
killer=$!
CSPROF_FLUSH_MS=1 rel_prof k mk ./dlopen_loop pid
wait "$killer"
check "killed run: the program was killed ($(cat k.rc))" [ -s ticks ]
content "killed run" mk "$(awk -v t="$(cat ticks 2> /dev/null)" -v hz="$hz" 'BEGIN { printf "%.0f", t / hz * 1e9 }')" 1
finish
