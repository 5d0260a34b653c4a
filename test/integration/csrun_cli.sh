#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# csrun's command line: options and events are validated before the program
# runs; the exit status and death signal are the program's; LD_PRELOAD is
# appended to; help and version work.
. "$(dirname "$0")/lib.sh"

expect_refused() { # expect_refused WHAT ARGS...: exit 2, a message naming the culprit, no program run
    local what=$1; shift
    rm -f ran
    csrun "$@" touch ran 2> err.txt; rc=$?
    check "refused: $what (exit $rc)" [ "$rc" -eq 2 ]
    check "program not started: $what" [ ! -e ran ]
    check "message names the problem: $what ($(head -1 err.txt))" grep -q "csrun: " err.txt
}
expect_refused "unknown event" -e BOGUS
expect_refused "period not a number" -e CPUTIME@fast
expect_refused "zero period" -e CPUTIME@0
expect_refused "negative period" -e REALTIME@-5
expect_refused "empty period" -e CPUTIME@
expect_refused "event given twice" -e CPUTIME -e CPUTIME@100
expect_refused "unknown option" --frobnicate
expect_refused "output is a file" -o /etc/passwd
# Periods the sampling mechanisms cannot sustain (the program would never finish): refused,
# and the message names the smallest allowed period, which is accepted.
expect_refused "period of 1 µs" -e CPUTIME@1
expect_refused "period of 10 µs" -e CPUTIME@10
expect_refused "REALTIME period of 10 µs" -e REALTIME@10
min=$(csrun -e CPUTIME@1 true 2>&1 | sed -n 's/.*smallest period csprof can sustain is \([0-9]*\) microseconds.*/\1/p')
check "message names the smallest period ($min)" [ -n "$min" ]
csrun -q -e CPUTIME@"${min:-0}" -o minimum true; rc=$?
check "the smallest period is accepted (exit $rc)" [ "$rc" -eq 0 ]
csrun -q -e CPUTIME@$((${min:-1} - 1)) true 2> /dev/null; rc=$?
check "one less is refused (exit $rc)" [ "$rc" -eq 2 ]
# A 32-bit ELF executable (only its header matters: csrun reads it before exec).
{ printf '\177ELF\001\001\001'; head -c 57 /dev/zero; } > elf32 && chmod +x elf32
csrun -q ./elf32 2> err.txt; rc=$?
check "32-bit executable refused (exit $rc: $(head -1 err.txt))" sh -c "[ $rc -eq 2 ] && grep -q '32-bit' err.txt"
# The monitor applies the same grammar when the environment is set by hand.
CSPROF_EVENTS=CPUTIME@10 CSPROF_OUTDIR=$PWD/byhand LD_PRELOAD=$(dirname "$CSPROF_BIN")/lib/csprof/libcsprof.so \
    /bin/true 2> err.txt
check "monitor refuses a 10 µs period too ($(head -1 err.txt))" grep -q "smallest period" err.txt
check "monitor wrote nothing for it" sh -c '! ls byhand/*.cspm 2> /dev/null'
check "error names the event" grep -q BOGUS <(csrun -e BOGUS true 2>&1)

csrun -q -o m_exit sh -c 'exit 7'; rc=$?
check "exit status is the program's (7, got $rc)" [ "$rc" -eq 7 ]
csrun -q -o m_kill sh -c 'kill -TERM $$'; rc=$?
check "death by signal is the program's (143, got $rc)" [ "$rc" -eq 143 ]
csrun -q -o m_missing ./does-not-exist 2> err.txt; rc=$?
check "missing program: exit 127 (got $rc)" [ "$rc" -eq 127 ]
check "missing program is named" grep -q does-not-exist err.txt

pre=$(LD_PRELOAD=libm.so.6 csrun -q -o m_env printenv LD_PRELOAD)
check "LD_PRELOAD appended to ($pre)" sh -c "case '$pre' in libm.so.6:*libcsprof.so) true ;; *) false ;; esac"
check "--help" sh -c 'csrun --help | grep -q "usage: csrun"'
check "--version" sh -c 'csrun -V | grep -q "csprof"'
check "default directory is measurements/" sh -c 'csrun -q true && ls measurements/*.cspm > /dev/null'
check "summary states samples per CPU-second" \
    sh -c 'csrun -e CPUTIME@1000 -o m_rate sh -c "i=0; while [ \$i -lt 100000 ]; do i=\$((i+1)); done" 2>&1 | grep -q "samples per CPU-second"'
# Two runs into one directory: the second is refused (its program not run), unless --append;
# then nothing is overwritten.  (test/integration/runs.sh: the run ids and csprof-prof.)
csrun -q -o same true; rm -f ran; csrun -q -o same touch ran 2> err.txt; rc=$?
check "second run into one directory refused (exit $rc)" [ "$rc" -eq 2 ]
check "second run's program not started" [ ! -e ran ]
check "the refusal is one line naming the directory and --append ($(cat err.txt))" \
    sh -c "[ \$(wc -l < err.txt) -eq 1 ] && grep -q \"^csrun: -o 'same' holds 1 measurement file(s) of another run.*--append\" err.txt"
csrun -q --append -o same true; rc=$?
n=$(ls same/*.cspm | wc -l)
check "--append: two runs leave two profiles (exit $rc, got $n)" sh -c "[ $rc -eq 0 ] && [ $n -eq 2 ]"
finish
