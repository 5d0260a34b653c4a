#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 18: a statically linked executable has no dynamic loader, so
# LD_PRELOAD cannot bring the monitor in.  csrun must refuse it before it
# runs -- exit status 2, one line naming the file and the reason, the
# program not started, no profile -- instead of running it unprofiled and
# leaving an empty measurement directory.  The same for -static-pie.  The
# dynamically linked build of the same source is profiled (control), and so
# is the dynamic loader run by hand.  REL_STATIC_KINDS picks the static
# builds (default: static static-pie); ctest runs each as a test of its own
# (rel_18_static, rel_18_static_pie; both run the two dynamic cases), skipped
# (77) when gcc cannot link it here (no static C library: Debian's
# libc6-dev has it).
. "$(dirname "$0")/lib.sh"

rel_build dynamic gcc "" limits_spin.c
check "dynamic build is profiled (control)" sh -c \
    'csrun -q -o mdyn ./dynamic 5 > /dev/null && ls mdyn/*.cspm > /dev/null 2>&1'
for kind in ${REL_STATIC_KINDS:-static static-pie}; do
    case $kind in
    static | static-pie) ;;
    *)
        check "REL_STATIC_KINDS: '$kind' is one of static static-pie" false
        continue
        ;;
    esac
    if ! gcc -O2 -g -"$kind" -o "$kind" "$rel_dir/programs/limits_spin.c" > "$kind.log" 2>&1; then
        rel_skip_part "gcc -$kind cannot link here (no static C library?): $(head -n 1 "$kind.log")"
        continue
    fi
    rel_plain base_$kind ./"$kind" 5
    check "$kind: baseline runs (exit $(cat base_$kind.rc))" [ "$(cat base_$kind.rc)" -eq 0 ]
    rm -f ran
    csrun -o m_$kind ./"$kind" 5 ran > out_$kind.txt 2> err_$kind.txt
    rc=$?
    check "$kind: csrun exits 2 (got $rc)" [ "$rc" -eq 2 ]
    check "$kind: the program did not run" sh -c "[ ! -e ran ] && [ ! -s out_$kind.txt ]"
    check "$kind: one line naming the file and the reason ($(head -n 1 err_$kind.txt))" \
        sh -c "[ \$(wc -l < err_$kind.txt) -eq 1 ] && grep -q \"'./$kind' is statically linked\" err_$kind.txt"
    check "$kind: no profile written" sh -c "! ls m_$kind/*.cspm > /dev/null 2>&1"
done
# The loader run by hand has no PT_INTERP either, but honours LD_PRELOAD: not refused.
ldso=$(readelf -l ./dynamic | sed -n 's/.*interpreter: \(.*\)]$/\1/p')
if [ -n "$ldso" ] && [ -x "$ldso" ]; then
    csrun -q -o mldso "$ldso" ./dynamic 5 > /dev/null 2> err_ldso.txt
    rc=$?
    check "the loader run by hand ($ldso) is accepted and profiled (exit $rc)" sh -c \
        "[ $rc -eq 0 ] && ls mldso/*.cspm > /dev/null 2>&1"
fi
finish
