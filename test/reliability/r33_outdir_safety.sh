#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 33: output directories and files an attacker can prepare.  csrun and
# the monitor never write through a symbolic link, refuse a directory owned
# by another user or writable by every user, and create the measurement
# directory 0700 and profiles 0600 (whatever the umask); csprof-prof never
# writes through a planted link in its database and refuses a linked -o DB.
# REL_OUTDIR_PARTS picks the parts (default: own other-user); ctest runs
# each as a test of its own (rel_33_outdir_safety: everything but the
# directory owned by another user; rel_33_outdir_safety_other_user: that
# case, which needs root to create such a directory, skipped (77) without).
. "$(dirname "$0")/lib.sh"

rel_build prog gcc "-pthread" rel_fds_threads.c
args=(./prog 0 2 2 20 0)
rel_plain base "${args[@]}"

# csrun into a directory prepared beforehand (rel_prof would remove it first).
prof_into() {
    local tag=$1 dir=$2
    shift 2
    timeout 120 csrun -q -e "$REL_EVENT" -o "$dir" "$@" > "$tag.out" 2> "$tag.err" < /dev/null
    echo $? > "$tag.rc"
}

# Everything the user running the test can set up.
own() {
    # Fresh directory, permissive umask: 0700 directory, 0600 files.
    umask 000
    rel_prof fresh m "${args[@]}"
    umask 022
    check "fresh directory: same output and exit status" rel_same fresh base
    check "measurement directory is 0700 ($(stat -c %a m))" [ "$(stat -c %a m)" = 700 ]
    n=$(find m -name '*.cspm' | wc -l)
    bad=$(find m -name '*.cspm' ! -perm 600 | wc -l)
    check "profiles are 0600 ($n files, $bad others)" [ "$n" -ge 1 -a "$bad" -eq 0 ]

    # -o is a symbolic link to a directory: refused, nothing written through it.
    mkdir target && ln -s target link
    prof_into link link "${args[@]}"
    check "symlinked -o: refused with a non-zero exit ($(cat link.rc))" [ "$(cat link.rc)" -ne 0 ]
    check "symlinked -o: the message names the link" grep -q "symbolic link" link.err
    check "symlinked -o: nothing written through it" [ -z "$(ls -A target)" ]

    # The monitor alone (no csrun) gets a symlinked directory: profiling off, program unharmed.
    monitor=$(dirname "$(command -v csrun)")/../lib/csprof/libcsprof.so
    [ -f "$monitor" ] || monitor=$(find "$CSPROF_BUILD" "$(dirname "$(command -v csrun)")/.." \
        -name libcsprof.so 2>/dev/null | head -1)
    if [ -n "$monitor" ] && [ -f "$monitor" ]; then
        CSPROF_OUTDIR=$PWD/link LD_PRELOAD=$monitor "${args[@]}" > direct.out 2> direct.err
        echo $? > direct.rc
        check "monitor with a symlinked directory: program unharmed" rel_same direct base
        check "monitor with a symlinked directory: it says why it does not profile" \
            grep -q "symbolic link" direct.err
        check "monitor with a symlinked directory: nothing written through it" [ -z "$(ls -A target)" ]
    fi

    # A directory writable by every user without the sticky bit (another user could replace
    # our files): refused.  (With the sticky bit, as /tmp, it is accepted: row 19 uses one.)
    mkdir open && chmod 0777 open
    prof_into open open "${args[@]}"
    check "world-writable -o: refused ($(cat open.rc))" [ "$(cat open.rc)" -ne 0 ]
    check "world-writable -o: nothing written" [ -z "$(ls -A open)" ]

    # csprof-prof: a planted experiment.dtd link is replaced, not written through.
    mkdir db && echo precious > victim && ln -s "$PWD/victim" db/experiment.dtd
    ln -s "$PWD/victim" db/experiment.xml.tmp
    csprof-prof --force -o db m > prof.out 2> prof.err
    check "csprof-prof --force into a database with planted links succeeds" [ $? -eq 0 ]
    check "the planted links' target is untouched" [ "$(cat victim)" = precious ]
    check "experiment.dtd is now a regular file" [ -f db/experiment.dtd -a ! -L db/experiment.dtd ]
    ln -s db dblink
    csprof-prof --force -o dblink m > prof2.out 2> prof2.err
    check "csprof-prof -o a symbolic link: refused" [ $? -ne 0 ]
    check "csprof-prof -o a symbolic link: the message says so" grep -q "symbolic link" prof2.err
}

# A directory owned by someone else (needs root to create one).
other_user() {
    if [ "$(id -u)" -ne 0 ] || ! id nobody > /dev/null 2>&1; then
        rel_skip_part "the directory owned by another user: needs root and the user 'nobody'"
        return
    fi
    mkdir theirs && chown nobody theirs && chmod 0755 theirs
    prof_into theirs theirs "${args[@]}"
    check "-o owned by another user: refused ($(cat theirs.rc))" [ "$(cat theirs.rc)" -ne 0 ]
    check "-o owned by another user: nothing written" [ -z "$(ls -A theirs)" ]
}

for part in ${REL_OUTDIR_PARTS:-own other-user}; do
    case $part in
    own) own ;;
    other-user) other_user ;;
    *) check "REL_OUTDIR_PARTS: '$part' is one of own other-user" false ;;
    esac
done
finish
