#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The guide's examples run (docs_examples.py): README's quick start (its four commands, in
# demo order, on examples/fig1), then every "$ ..." example of README's tools section and
# docs/csprof-report.md's examples on the Figure 1 database, each checked for its exit status
# and for the lines the example shows (numbers aside).  A sampled run can differ (a trust
# verdict under heavy load), so a failing sequence is run once more in a fresh directory.
# Then docs/trust.md's report of a Figure 1 run and docs/csrun.md's runs kept apart (two runs
# of one program: the refusals, --append, --runs separate), on Figure 1 as ./app.
# Then docs/csprof-report.md's diff of two builds of test/report/diff_build.c; with
# DOCS_PART=mpi (ctest e2e_docs_examples_mpi, skipped without Open MPI) only its MPI threads
# example; with DOCS_PART=nopmu (e2e_docs_examples_nopmu, skipped where the machine has a
# PMU) only docs/csrun.md's refusal of a hardware event.
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
src=$CSPROF_SOURCE
ex=$here/docs_examples.py
export src ex

quick() { # quick DIR: the quick start's workflow block
    rm -rf "$1" && mkdir "$1" && cp "$CSPROF_EXAMPLES/fig1" "$1/" &&
        python3 "$ex" "$1" "$src/README.md" -csrun
}
tools() { # tools DIR: README's tool examples, then csprof-report.md's on the same database
    rm -rf "$1" && mkdir "$1" && cp "$CSPROF_EXAMPLES/fig1" "$1/" &&
        csprof-struct "$1/fig1" > "$1/fig1.struct" &&
        python3 "$ex" "$1" "$src/README.md" &&
        python3 "$ex" "$1" "$src/docs/csprof-report.md" "csprof-report db" &&
        python3 "$ex" "$1" "$src/docs/csprof-report.md" "csprof-report --view bottom-up"
}
trust() { # trust DIR: docs/trust.md's run, database and quality view
    rm -rf "$1" && mkdir "$1" && cp "$CSPROF_EXAMPLES/fig1" "$1/" &&
        python3 "$ex" "$1" "$src/docs/trust.md"
}
runs() { # runs DIR: docs/csrun.md's two runs of one program, refused, appended, separated
    rm -rf "$1" && mkdir "$1" && cp "$CSPROF_EXAMPLES/fig1" "$1/app" &&
        python3 "$ex" "$1" "$src/docs/csrun.md" "csrun ./app; csrun ./app" &&
        python3 "$ex" "$1" "$src/docs/csrun.md" "csrun -q --append ./app" &&
        python3 "$ex" "$1" "$src/docs/csrun.md" "csprof-prof measurements -o db" &&
        python3 "$ex" "$1" "$src/docs/csrun.md" "csprof-prof --runs separate"
}
diffs() { # diffs DIR: docs/csprof-report.md's diff of two builds of test/report/diff_build.c
    rm -rf "$1" && mkdir "$1" && (
        cd "$1" && cc -O2 -g -o inl "$src/test/report/diff_build.c" &&
            cc -O2 -g -DHOT_TIMES=2 -o x2 "$src/test/report/diff_build.c" &&
            for b in inl x2; do
                csrun -q -e CPUTIME@1000 -o $b.m ./$b 400 > /dev/null &&
                    csprof-struct ./$b > $b.struct && csprof-prof -q -S $b.struct $b.m -o $b.db > /dev/null ||
                    exit 1
            done
    ) && python3 "$ex" "$1" "$src/docs/csprof-report.md" "csprof-report --diff"
}
mpi() { # mpi DIR: docs/csprof-report.md's threads view of an imbalanced 4-rank MPI ring
    rm -rf "$1" && mkdir "$1" &&
        mpicc -g -O1 -I"$src/test/reliability/programs" -o "$1/mpi_ring" \
            "$src/test/reliability/programs/mpi_ring.c" &&
        python3 "$ex" "$1" "$src/docs/csprof-report.md" "mpirun -np 4" &&
        python3 "$ex" "$1" "$src/docs/csprof-report.md" "csprof-report --view threads --focus"
}
if [ "${DOCS_PART:-}" = nopmu ]; then # a ctest of its own (e2e_docs_examples_nopmu)
    if csrun -q -e PAPI_TOT_CYC -o nopmu.m true > /dev/null 2>&1; then
        skip "this machine samples PAPI_TOT_CYC: docs/csrun.md's example shows one without a PMU"
    fi
    rm -rf p1 && mkdir p1 && cp "$CSPROF_EXAMPLES/fig1" p1/app
    check "docs/csrun.md's refusal of a hardware event without a PMU prints what it shows" \
        python3 "$ex" p1 "$src/docs/csrun.md" "csrun -e PAPI_TOT_CYC"
    finish
fi
if [ "${DOCS_PART:-}" = mpi ]; then # a ctest of its own (e2e_docs_examples_mpi)
    command -v mpirun > /dev/null && command -v mpicc > /dev/null ||
        skip "mpirun/mpicc not installed (Debian openmpi-bin, libopenmpi-dev)"
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    check "docs/csprof-report.md's MPI threads example prints what it shows" \
        bash -c "$(declare -f mpi); mpi m1 || { echo '(once more)'; mpi m2; }"
    finish
fi
check "README's quick start block runs (each command exits 0)" bash -c "$(declare -f quick); quick q1 || quick q2"
check "README's and docs/csprof-report.md's examples print what they show" \
    bash -c "$(declare -f tools); tools t1 || { echo '(once more)'; tools t2; }"
check "docs/trust.md's examples print what they show" \
    bash -c "$(declare -f trust); trust r1 || { echo '(once more)'; trust r2; }"
check "docs/csrun.md's runs-kept-apart examples print what they show" \
    bash -c "$(declare -f runs); runs s1 || { echo '(once more)'; runs s2; }"
check "docs/csprof-report.md's diff of two builds prints what it shows" \
    bash -c "$(declare -f diffs); diffs d1 || { echo '(once more)'; diffs d2; }"
n=0
for md in "$src"/docs/*.md; do
    c=$(grep -cE '^\s*\$ ' "$md")
    n=$((n + c))
done
echo "note: $n example commands in docs/*.md: 11 run here, 2 by e2e_docs_examples_mpi, 1 (a machine without a PMU) by e2e_docs_examples_nopmu"
finish
