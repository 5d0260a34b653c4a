#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 19: programs the loader runs in secure-execution mode (ld.so(8):
# setuid or setgid to another user, or gaining file capabilities) ignore
# LD_PRELOAD.  csrun must refuse them before they run, exit status 2, with a
# line naming the reason.  Forced past csrun, the monitor must write
# nothing: (a) LD_PRELOAD by hand -- the loader drops it; (b) a program
# linked against libcsprof.so (DT_NEEDED + absolute RUNPATH, which secure
# mode honours) -- the constructor sees AT_SECURE and stays inactive.  The
# privileged process must create no file in the (world-writable) output
# directory.  Needs root (to make copies owned by a test user) and the user
# "nobody"; the capability cases need setcap (libcap2-bin), setpriv and a
# file system with security.* extended attributes.  REL_SECURE_PARTS picks
# the parts (default: setid caps); ctest runs each as a test of its own
# (rel_19_secure: setuid and setgid, rel_19_secure_caps: file capabilities),
# skipped (77) when it cannot run here.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || rel_skip "needs root to create setuid/setgid copies owned by another user"
id nobody > /dev/null 2>&1 || rel_skip "no user 'nobody' to own the setuid copies"
grp=$(id -gn nobody)
lib=$(dirname "$CSPROF_BIN")/lib/csprof/libcsprof.so
# Everything the unprivileged user must reach: a world-traversable work dir, a world-writable
# output area (so "nothing written" is csprof's decision, not a permission error).
chmod 711 "$work"
mkdir -m 1777 pub
mkdir -m 755 pub/lib
cp "$lib" pub/lib/ && chmod 644 pub/lib/libcsprof.so
rel_build plain gcc "" limits_spin.c
rel_build linked gcc "-Wl,--no-as-needed -L$work/pub/lib -lcsprof -Wl,-rpath,$work/pub/lib" \
    limits_spin.c
chmod 755 plain linked

# The route (b) works at all: linked, not privileged, it writes a profile.
mkdir -m 1777 pub/control
CSPROF_OUTDIR=$work/pub/control ./linked 2 > /dev/null 2>&1
check "control: the linked program writes a profile when not privileged" \
    sh -c 'ls pub/control/*.cspm > /dev/null 2>&1'

# secure_case NAME RUNAS CSRUN_REASON PROGRAM: csrun (run as RUNAS: "" for root) refuses
# PROGRAM naming CSRUN_REASON; forced, nothing is written.
secure_case() {
    local name=$1 runas=$2 reason=$3 prog=$4 asuser=() rc
    [ -n "$runas" ] && asuser=(setpriv --reuid="$runas" --regid="$grp" --clear-groups)
    mkdir -m 1777 pub/$name pub/$name.forced pub/$name.linked
    "${asuser[@]}" csrun -o "$work/pub/$name" "$work/$prog" 2 "$work/pub/$name.ran" \
        > $name.out 2> $name.err
    rc=$?
    check "$name: csrun exits 2 (got $rc)" [ "$rc" -eq 2 ]
    check "$name: the reason is named ($(head -n 1 $name.err))" grep -q "$reason" $name.err
    check "$name: the program did not run" [ ! -e pub/$name.ran ]
    check "$name: nothing in the output directory" [ -z "$(ls -A pub/$name)" ]
    # (a) forced by hand: the loader ignores the preload.
    "${asuser[@]}" env LD_PRELOAD="$lib" CSPROF_OUTDIR="$work/pub/$name.forced" \
        "$work/$prog" 2 > $name.forced.out 2> $name.forced.err
    check "$name, LD_PRELOAD by hand: program ran (exit $?)" [ -s $name.forced.out ]
    check "$name, LD_PRELOAD by hand: nothing written" [ -z "$(ls -A pub/$name.forced)" ]
}

# (b) the monitor loaded in secure mode through DT_NEEDED: AT_SECURE, nothing written.
linked_case() {
    local name=$1 runas=$2 prog=$3 asuser=()
    [ -n "$runas" ] && asuser=(setpriv --reuid="$runas" --regid="$grp" --clear-groups)
    "${asuser[@]}" env CSPROF_OUTDIR="$work/pub/$name.linked" "$work/$prog" 2 \
        > $name.linked.out 2> $name.linked.err
    check "$name, monitor linked in: program ran normally (exit $?)" [ -s $name.linked.out ]
    check "$name, monitor linked in: the constructor saw AT_SECURE and wrote nothing ($(ls -A pub/$name.linked | head -n 3 | tr '\n' ' '))" \
        [ -z "$(ls -A pub/$name.linked)" ]
}

for part in ${REL_SECURE_PARTS:-setid caps}; do
    case $part in
    setid)
        cp plain suid && chown nobody suid && chmod 4755 suid
        cp linked suid_linked && chown nobody suid_linked && chmod 4755 suid_linked
        secure_case setuid "" "is setuid" suid
        linked_case setuid "" suid_linked

        cp plain sgid && chgrp "$grp" sgid && chmod 2755 sgid
        cp linked sgid_linked && chgrp "$grp" sgid_linked && chmod 2755 sgid_linked
        secure_case setgid "" "is setgid" sgid
        linked_case setgid "" sgid_linked

        # A setuid program owned by the user running csrun is not secure mode: profiled.
        cp plain ownsuid && chmod 4755 ownsuid
        csrun -q -o pub/ownsuid ./ownsuid 2 > /dev/null 2>&1
        check "setuid to oneself is profiled (no secure mode)" sh -c 'ls pub/ownsuid/*.cspm > /dev/null 2>&1'
        ;;
    caps)
        if ! command -v setcap > /dev/null || ! command -v setpriv > /dev/null; then
            rel_skip_part "capabilities: setcap (Debian: libcap2-bin) or setpriv not installed"
            continue
        fi
        cp plain caps && setcap cap_net_raw+ep caps
        cp linked caps_linked && setcap cap_net_raw+ep caps_linked
        if [ -z "$(getcap caps 2> /dev/null)" ]; then
            rel_skip_part "capabilities: setcap did not take on this file system (no security.* xattrs)"
            continue
        fi
        # Root gains no capability from the file (no secure mode): run as nobody.
        secure_case caps nobody "file capabilities" caps
        linked_case caps nobody caps_linked
        ;;
    *) check "REL_SECURE_PARTS: '$part' is one of setid caps" false ;;
    esac
done
finish
