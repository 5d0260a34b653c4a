#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Mutation check (README.md beside this file): each test/mutants/NAME.patch
# breaks one feature and names the ctest tests that must notice.
#
#   test/mutants/run.sh [--keep] [--jobs N] [--rev REV] [NAME-GLOB...]
#
# Copies the working tree (tracked and untracked, non-ignored files; no build
# directories) once to a scratch directory under ${TMPDIR:-/tmp}, builds it
# once (RelWithDebInfo, as scripts/setup.sh), runs every named test once on
# the unmutated copy (the baseline: each must pass), then for each mutant:
# applies the patch, rebuilds its targets, runs its tests, reverses the patch
# and rebuilds the same targets (so that the next mutant starts from the
# baseline binaries).  A mutant is killed when at least one of its tests
# fails; a failure is confirmed by one rerun (ctest --repeat until-pass:2), so
# a statistical test that fails once under load does not count as a kill.
# A test that times out by its ctest TIMEOUT (600 s where it has none) fails.
# A patch that does not apply or does not compile, a bad header, an unknown
# test or a test that does not pass on the baseline is an ERROR, not a kill.
#
#   --keep     keep the scratch directory (source copy, build, logs)
#   --jobs N   build and test parallelism (default: the number of CPUs)
#   --rev REV  copy commit REV instead of the working tree (test/mutants/ still
#              comes from the working tree): a check of the mutants while the
#              working tree is half edited
#   NAME-GLOB  run only the mutants whose names match (default: all)
#
# Prints one line per mutant and "mutants: N, killed: K, survived: S,
# errors: E"; exits 0 only when S = 0 and E = 0; 2 on a usage or setup error;
# 77 (SKIP) when git or a git working tree is missing.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
keep=0
jobs=$(nproc 2>/dev/null || echo 2)
rev=""
globs=()

usage() {
    echo "usage: test/mutants/run.sh [--keep] [--jobs N] [--rev REV] [NAME-GLOB...]" >&2
    exit 2
}

while [ $# -gt 0 ]; do
    case $1 in
    --keep) keep=1 ;;
    --jobs)
        [ $# -ge 2 ] || usage
        jobs=$2
        shift
        ;;
    --jobs=*) jobs=${1#--jobs=} ;;
    --rev)
        [ $# -ge 2 ] || usage
        rev=$2
        shift
        ;;
    --rev=*) rev=${1#--rev=} ;;
    -h | --help) usage ;;
    -*) usage ;;
    *) globs+=("$1") ;;
    esac
    shift
done
case $jobs in
'' | *[!0-9]* | 0) usage ;;
esac

die() {
    echo "mutants: $*" >&2
    exit 2
}

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# ---- the mutants and their headers ----

declare -A m_file m_desc m_tests m_targets m_error
names=()
for f in "$here"/*.patch; do
    [ -e "$f" ] || continue
    name=$(basename "$f" .patch)
    if [ ${#globs[@]} -gt 0 ]; then
        match=0
        for g in "${globs[@]}"; do
            # shellcheck disable=SC2053 # the glob is meant to match
            [[ $name == $g ]] && match=1
        done
        [ $match -eq 1 ] || continue
    fi
    names+=("$name")
    m_file[$name]=$f
    m_error[$name]=""
    # header: '# key: value' lines before the first 'diff --git'
    hdr=$(awk '/^diff --git /{exit} {print}' "$f")
    for key in mutant tests targets; do
        n=$(printf '%s\n' "$hdr" | grep -c "^# $key:")
        if [ "$n" -ne 1 ]; then
            m_error[$name]="header: $n '# $key:' lines in $f (want 1)"
            continue 2
        fi
    done
    m_desc[$name]=$(printf '%s\n' "$hdr" | sed -n 's/^# mutant: *//p')
    m_tests[$name]=$(printf '%s\n' "$hdr" | sed -n 's/^# tests: *//p' | xargs)
    m_targets[$name]=$(printf '%s\n' "$hdr" | sed -n 's/^# targets: *//p' | xargs)
    if [ -z "${m_desc[$name]}" ]; then
        m_error[$name]="header: empty '# mutant:' in $f"
    elif [ -z "${m_tests[$name]}" ]; then
        m_error[$name]="header: no test named in '# tests:' of $f"
    elif [ -z "${m_targets[$name]}" ]; then
        m_error[$name]="header: empty '# targets:' in $f (name targets, 'all' or 'none')"
    elif ! grep -q '^diff --git ' "$f"; then
        m_error[$name]="no 'diff --git' in $f"
    fi
done
[ ${#names[@]} -gt 0 ] || die "no mutant matches${globs[*]:+ ${globs[*]}} in $here"

# ---- the scratch copy, built once ----

# (exit 77: ctest shows the registered test as skipped)
command -v git >/dev/null || { echo "SKIP: git is not installed (the copy is made from git's file list)"; exit 77; }
[ -e "$root/.git" ] || { echo "SKIP: $root is not a git working tree"; exit 77; }
git -C "$root" rev-parse --git-dir >/dev/null || die "git cannot read $root (message above)"

work=$(mktemp -d "${TMPDIR:-/tmp}/csprof-mutants.XXXXXX") || die "cannot create a scratch directory"
cleanup() {
    if [ $keep -eq 1 ]; then
        echo "mutants: scratch directory kept: $work"
    else
        rm -rf "$work"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
src=$work/src
build=$work/build
logs=$work/logs
mkdir -p "$src" "$logs" || die "cannot populate $work"

t_start=$(now)
# Tracked files (as they are in the working tree) and untracked, non-ignored ones
# (with --rev: the commit's files, and test/mutants/ from the working tree).
copy_files() { # copy_files [PATHSPEC]
    git -C "$root" ls-files -z -co --exclude-standard -- "$@" |
        while IFS= read -r -d '' p; do
            if [ -e "$root/$p" ] || [ -L "$root/$p" ]; then printf '%s\0' "$p"; fi
        done |
        tar -C "$root" --null -T - -cf - | tar -C "$src" -xf -
}
if [ -n "$rev" ]; then
    git -C "$root" archive --format=tar "$rev" | tar -C "$src" -xf - || die "cannot copy commit '$rev' to $src"
    rm -rf "$src/test/mutants"
    copy_files test/mutants || die "cannot copy test/mutants to $src"
else
    copy_files || die "cannot copy the tree to $src"
fi
# A repository of one commit, so that every patch applies to and reverses from a known state.
(cd "$src" && git init -q && git add -A &&
    git -c user.name=mutants -c user.email=mutants@localhost -c commit.gpgsign=false \
        commit -q -m baseline) >"$logs/git.log" 2>&1 || die "cannot make $src a git repository (see $logs/git.log)"

echo "mutants: ${#names[@]} selected; building a copy of $root${rev:+ at $rev} in $work (jobs $jobs)"
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$logs/configure.log" 2>&1 || {
    tail -20 "$logs/configure.log"
    keep=1
    die "configuring the copy failed (log: $logs/configure.log)"
}
cmake --build "$build" -j"$jobs" >"$logs/build.log" 2>&1 || {
    tail -30 "$logs/build.log"
    keep=1
    die "building the unmutated copy failed (log: $logs/build.log)"
}
echo "mutants: copy built in $(elapsed "$t_start") s"

declare -A known
while read -r t; do
    known[$t]=1
done < <(ctest --test-dir "$build" -N 2>/dev/null | sed -n 's/^ *Test *#[0-9]*: \([^ ]*\)$/\1/p')
[ ${#known[@]} -gt 0 ] || die "ctest lists no test in $build"

# ---- validate each mutant against the copy ----

for name in "${names[@]}"; do
    [ -z "${m_error[$name]}" ] || continue
    for t in ${m_tests[$name]}; do
        if [ -z "${known[$t]:-}" ]; then
            m_error[$name]="names test '$t', which ctest does not list"
            continue 2
        fi
    done
    if ! git -C "$src" apply --check "${m_file[$name]}" >"$logs/$name.apply" 2>&1; then
        m_error[$name]="${m_file[$name]} does not apply: $(head -1 "$logs/$name.apply")"
    fi
done

# ---- running tests ----

# regex ^(a|b)$ for ctest -R, names escaped
test_regex() {
    local out="" t
    for t in "$@"; do
        t=$(printf '%s' "$t" | sed 's/[][\.*^$+?(){}|]/\\&/g')
        out="${out:+$out|}$t"
    done
    printf '^(%s)$' "$out"
}

# run_tests LOG TEST...: runs the tests; sets st[TEST] to passed, skipped, or
# the failure ctest printed (Failed, Timeout, SEGFAULT, Not Run, ...).
declare -A st
run_tests() {
    local log=$1 t line
    shift
    for t in "$@"; do st[$t]="did not run"; done
    ctest --test-dir "$build" -R "$(test_regex "$@")" -j"$jobs" --timeout 600 \
        --repeat until-pass:2 --output-on-failure >"$log" 2>&1
    while IFS= read -r line; do
        if [[ $line =~ Test\ +#[0-9]+:\ ([^ ]+)\ \.+\ +Passed ]]; then
            st[${BASH_REMATCH[1]}]=passed
        fi
    done <"$log"
    # the summary lists the last outcome of each test that did not pass
    local section=""
    while IFS= read -r line; do
        case $line in
        "The following tests did not run:"*) section=notrun ;;
        "The following tests FAILED:"*) section=failed ;;
        "") section="" ;;
        *)
            if [ -n "$section" ] && [[ $line =~ ^[[:space:]]+[0-9]+\ -\ ([^ ]+)\ \((.*)\)$ ]]; then
                t=${BASH_REMATCH[1]}
                if [ $section = notrun ] && [ "${BASH_REMATCH[2]}" = Skipped ]; then
                    st[$t]=skipped
                else
                    st[$t]=${BASH_REMATCH[2]}
                fi
            fi
            ;;
        esac
    done <"$log"
}

# ---- baseline ----

declare -A base
all_tests=()
for name in "${names[@]}"; do
    [ -z "${m_error[$name]}" ] || continue
    for t in ${m_tests[$name]}; do
        if [ -z "${base[$t]:-}" ]; then
            base[$t]=pending
            all_tests+=("$t")
        fi
    done
done
if [ ${#all_tests[@]} -gt 0 ]; then
    t0=$(now)
    run_tests "$logs/baseline.log" "${all_tests[@]}"
    nbad=0
    for t in "${all_tests[@]}"; do
        base[$t]=${st[$t]}
        if [ "${base[$t]}" != passed ]; then
            nbad=$((nbad + 1))
            echo "mutants: baseline: $t ${base[$t]} on the unmutated copy"
        fi
    done
    echo "mutants: baseline: ${#all_tests[@]} test(s) run in $(elapsed "$t0") s, $nbad not passing"
    if [ $nbad -gt 0 ]; then
        grep -E '^(FAIL|SKIP)|\*\*\*|SKIP:' "$logs/baseline.log" | head -20
    fi
fi

# ---- the mutants ----

build_targets() { # build_targets LOG TARGETS...
    local log=$1
    shift
    case " $* " in
    *" none "*) : >"$log" ;;
    *" all "*) cmake --build "$build" -j"$jobs" >"$log" 2>&1 ;;
    *) cmake --build "$build" -j"$jobs" --target "$@" >"$log" 2>&1 ;;
    esac
}

nk=0
ns=0
ne=0
printf '%-44s %-9s %7s  %s\n' MUTANT RESULT SECONDS "FAILING TESTS / REASON"
for name in "${names[@]}"; do
    t0=$(now)
    result=ERROR
    why=${m_error[$name]}
    extra=""
    if [ -z "$why" ]; then
        for t in ${m_tests[$name]}; do
            if [ "${base[$t]}" != passed ]; then
                why="baseline: $t ${base[$t]} without the mutant"
                break
            fi
        done
    fi
    if [ -z "$why" ]; then
        f=${m_file[$name]}
        # shellcheck disable=SC2086 # lists of names
        if ! git -C "$src" apply "$f" >"$logs/$name.apply" 2>&1; then
            why="$f does not apply: $(head -1 "$logs/$name.apply")"
        elif ! build_targets "$logs/$name.build" ${m_targets[$name]}; then
            why="does not compile (targets: ${m_targets[$name]})"
            extra=$(grep -E 'error|Error' "$logs/$name.build" | head -5 | sed 's/^/    /')
        else
            run_tests "$logs/$name.test" ${m_tests[$name]}
            failing=""
            missing=""
            skipped=""
            for t in ${m_tests[$name]}; do
                case ${st[$t]} in
                passed) ;;
                skipped) skipped="$skipped $t" ;;
                "did not run") missing="$missing $t" ;;
                *) failing="$failing $t(${st[$t]})" ;;
                esac
            done
            if [ -n "$failing" ]; then
                result=killed
                why=${failing# }
            elif [ -n "$missing" ]; then
                why="ctest did not run:$missing"
            else
                result=SURVIVED
                why="none failed: ${m_tests[$name]}${skipped:+ (skipped with the mutant:$skipped)}"
            fi
        fi
        # back to the baseline: sources, then the binaries the mutant touched
        if ! git -C "$src" apply -R "$f" >>"$logs/$name.apply" 2>&1 || ! git -C "$src" diff --quiet; then
            git -C "$src" checkout -q -- . 2>>"$logs/$name.apply"
            [ $result = ERROR ] || why="$why; the reversal failed, restored by checkout"
        fi
        # shellcheck disable=SC2086
        build_targets "$logs/$name.restore" ${m_targets[$name]} || {
            keep=1
            die "rebuilding after $name failed: the copy is no longer the baseline (log: $logs/$name.restore)"
        }
    fi
    case $result in
    killed) nk=$((nk + 1)) ;;
    SURVIVED) ns=$((ns + 1)) ;;
    *) ne=$((ne + 1)) ;;
    esac
    secs=$(elapsed "$t0")
    printf '%-44s %-9s %7s  %s\n' "$name" "$result" "$secs" "$why"
    [ -z "$extra" ] || printf '%s\n' "$extra"
done

echo "mutants: ${#names[@]}, killed: $nk, survived: $ns, errors: $ne ($(elapsed "$t_start") s in all)"
[ $ns -eq 0 ] && [ $ne -eq 0 ]
