#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 5: fork+exec, vfork+exec, posix_spawn, system() and exec of a path that
# does not exist (in the parent: execv returns -1; in a fork child).  Each
# profiled run prints what the baseline prints and its profiles merge into a
# database; the parent's samples before and after its failed exec are both
# recorded, by the same pid, and after the failure it keeps sampling
# (parent_after, the same work as parent_before, has >= half its samples);
# every started child is profiled (csrun follows exec'd children by
# default): child_fork, child_vfork, child_spawn and child_system each have
# samples in exactly one profile, >= 90 % of them under main.
. "$(dirname "$0")/lib.sh"
runs=$(rel_runs 2)
units=${REL_UNITS:-50} # about 0.1 s of CPU per function

rel_build spawn gcc "" spawn.c
rel_plain base ./spawn "$units"
check "baseline exits 0" [ "$(cat base.rc)" -eq 0 ]
funcs="parent_before parent_after child_fork child_vfork child_spawn child_system"
for ((r = 1; r <= runs; r++)); do
    rel_prof p$r m$r ./spawn "$units"
    check "run $r: output and exit status identical" rel_same p$r base
    check "run $r: all profiles merge into one database" rel_db m$r db$r
    : > found$r
    for f in m$r/*.cspm; do
        [ -e "$f" ] || continue
        b=$(basename "$f")
        pid=$(echo "$b" | sed 's/^.*-\([0-9]*\)-[0-9]*-[0-9]*-[0-9]*\.cspm$/\1/')
        for fn in $funcs; do
            n=$(rel_samples_in "$f" spawn $fn)
            [ "$n" -gt 0 ] || continue
            echo "$fn $pid $n $(rel_samples_in "$f" spawn $fn main) $b" >> found$r
        done
    done
    for fn in $funcs; do
        n=$(grep -c "^$fn " found$r)
        check "run $r: $fn has samples in exactly one profile (got $n)" [ "$n" -eq 1 ]
        [ "$n" -eq 1 ] || continue
        read -r _ pid v w b < <(grep "^$fn " found$r)
        check "run $r: $fn under main >= 90 % ($w of $v samples, $b)" rel_ratio_ge "$w" "$v" 0.9
    done
    read -r _ pbp pbn _ < <(grep '^parent_before ' found$r; echo)
    read -r _ pap pan _ < <(grep '^parent_after ' found$r; echo)
    check "run $r: parent_before and parent_after recorded by the same pid (${pbp:-none}, ${pap:-none})" \
        [ "${pbp:-x}" = "${pap:-y}" ]
    check "run $r: after the failed exec the parent keeps sampling (parent_after ${pan:-0} samples, parent_before ${pbn:-0})" \
        rel_ratio_ge "${pan:-0}" "${pbn:-0}" 0.5
done
# csrun and csprof-prof count the processes alike (an exec'd image is the same process, a
# failed exec's next profile a generation of it), and csprof-prof's effective rate uses the
# CPU time sampled, not a process's CPU time before its exec.
REL_QUIET=0 rel_prof v mv ./spawn "$units"
np=$(sed -n 's/^csprof: [0-9]* thread(s) in \([0-9]*\) process(es) profiled in .*/\1/p' v.err)
nt=$(sed -n 's/^csprof: \([0-9]*\) thread(s) in [0-9]* process(es) profiled in .*/\1/p' v.err)
rel_db mv dbv
check "csrun's process count ($np) = csprof-prof's ($(rel_summary dbv processes))" \
    [ "${np:-x}" = "$(rel_summary dbv processes)" ]
check "csrun's thread count ($nt) = csprof-prof's ($(rel_summary dbv threads))" \
    [ "${nt:-x}" = "$(rel_summary dbv threads)" ]
rc=$(sed -n 's/^csprof: CPUTIME@[0-9]* ([^)]*): [0-9]* samples, \([0-9.]*\) samples per CPU-second.*/\1/p' v.err)
pc=$(sed -n 's/^effective samples per CPU-second: \([0-9.]*\)$/\1/p' dbv.log)
check "csrun's samples per CPU-second ($rc) = csprof-prof's ($pc)" [ -n "$rc" -a "$rc" = "$pc" ]
finish
