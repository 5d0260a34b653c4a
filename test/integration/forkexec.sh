#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# fork + exec: the parent, the fork child (until its exec) and the exec'd
# image each leave a separate, complete profile; parent_work is only in the
# parent's, child_work only in the exec'd image's.
. "$(dirname "$0")/lib.sh"
app=$CSPROF_EXAMPLES/forkexec

"$app" | sort > plain.out; plain_rc=${PIPESTATUS[0]}
# 1 kHz: the perf task-clock source, whose events a fork child shares with its parent.
csrun -q -e CPUTIME@1000 -o m "$app" > prof.raw; prof_rc=$?
sort prof.raw > prof.out
check "exit status unchanged" [ "$plain_rc" -eq "$prof_rc" ]
check "output unchanged" cmp -s plain.out prof.out
n=$(ls m/*.cspm | wc -l)
check "three profiles: parent, fork child, exec'd image (got $n)" [ "$n" -eq 3 ]
pids=$(ls m/*.cspm | sed 's/.*forkexec-\([0-9]*\)[-.].*/\1/' | sort -u | wc -l)
check "two processes" [ "$pids" -eq 2 ]
parent_hits=0 child_hits=0
for f in m/*.cspm; do
    rm -rf one
    check "$(basename "$f") is complete and readable" sh -c "csprof-prof '$f' -o one > /dev/null"
    check "its database validates" validate one
    pw=$(incl_of one CPUTIME parent_work); cw=$(incl_of one CPUTIME child_work)
    if between "$pw" 0.1 100; then
        parent_hits=$((parent_hits + 1))
        # parent_work burns 500 ms of CPU: the child's start must not stop the parent's sampling.
        check "parent_work's time is measured in full ($pw s of 0.5)" between "$pw" 0.3 1
    fi
    if between "$cw" 0.1 100; then
        child_hits=$((child_hits + 1))
        check "child_work's time is measured in full ($cw s of 0.5)" between "$cw" 0.3 1
        check "child_work is in the exec'd image's profile, not with parent_work" between "$pw" 0 0
    fi
done
check "parent_work in exactly one profile" [ "$parent_hits" -eq 1 ]
# burn() reads the CPU clock through the vDSO: csrun saves its image so it can be named.
rm -rf all && csprof-prof m -o all > /dev/null
unknown=$(xp all 'string(//Summary/@unknown-samples)')
check "no sample at an unknown address, vDSO included ($unknown)" [ "${unknown:-1}" -eq 0 ]
check "child_work in exactly one profile" [ "$child_hits" -eq 1 ]
finish
