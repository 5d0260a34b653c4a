#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Set up, build, and profile the bundled Figure 1 example end to end:
#   csrun -> measurements/ -> csprof-struct -> csprof-prof -> experiment database
# Everything is written under demo/ (removed first).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build
rm -rf demo && mkdir demo && cd demo
bin=../build/bin
set -x
$bin/csrun -e CPUTIME@1000 ../build/examples/fig1
$bin/csprof-struct ../build/examples/fig1 > fig1.struct
$bin/csprof-prof -S fig1.struct measurements/ -o db
$bin/csprof-report --view top-down --depth 8 db
{ set +x; } 2> /dev/null
echo "viewer: open $(pwd)/db/index.html in a browser (no server needed)"
