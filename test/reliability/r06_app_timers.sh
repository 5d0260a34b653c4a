#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 6: the program owns SIGPROF (ITIMER_PROF, 10 ms) and a POSIX timer
# (CLOCK_MONOTONIC -> SIGRTMIN+1, 10 ms) while it burns 1 CPU-second.
# Under csrun its tick counts stay within +-20 % of the baseline's, its
# handlers never see a delivery that is not their own timer's (csprof
# samples on SIGRTMIN+4), and csprof records samples.
# At the default event unless the stress mode sets one: at CPUTIME@1000 on a
# loaded VM the program's SIGPROF ticks fell to 70-90 % of the baseline's (see
# README, "Choices and known limits").
: "${REL_EVENT:=CPUTIME@5000}"
. "$(dirname "$0")/lib.sh"
runs=$(rel_runs 2)

rel_build app gcc "" app_timers.c
rel_plain base ./app
check "baseline exits 0, no foreign delivery" sh -c '[ "$(cat base.rc)" -eq 0 ] && grep -qx "foreign 0" base.out'
read -r bp br < <(sed -n 's/^prof ticks \([0-9]*\), rt ticks [0-9]*, rt per s \([0-9.]*\)$/\1 \2/p' base.err)
for ((r = 1; r <= runs; r++)); do
    rel_prof p$r m$r ./app
    check "run $r: exit status and output identical (foreign deliveries: 0)" rel_same p$r base
    read -r pp pr < <(sed -n 's/^prof ticks \([0-9]*\), rt ticks [0-9]*, rt per s \([0-9.]*\)$/\1 \2/p' p$r.err)
    check "run $r: SIGPROF ticks within 20 % of the baseline's (${pp:-?} vs ${bp:-?})" \
        awk -v a="${pp:-0}" -v b="${bp:-0}" 'BEGIN { exit !(b > 0 && a >= 0.8 * b && a <= 1.2 * b) }'
    check "run $r: SIGRTMIN+1 ticks per wall-clock second within 20 % of the baseline's (${pr:-?} vs ${br:-?})" \
        awk -v a="${pr:-0}" -v b="${br:-0}" 'BEGIN { exit !(b > 0 && a >= 0.8 * b && a <= 1.2 * b) }'
    n=$(rel_stat m$r samples.recorded)
    check "run $r: csprof recorded samples ($n)" [ "$n" -gt 0 ]
done
finish
