#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Run one side of the conformance corpus: run.sh report|viewer TOOL GENERATED OUT
# (TOOL: csprof-report for the report's side, csprof-prof for the viewer's).
# Exits 77 (skip) when the side's interpreter (python3, node >= 18) is absent.
here=$(cd "$(dirname "$0")" && pwd)
side=$1
shift
if [ "$side" = report ]; then
    py=$(command -v python3) || { echo "SKIP: python3 not found (scripts/setup.sh)"; exit 77; }
    exec "$py" "$here/conformance_report.py" "$1" "$here/../.." "$2" "$3"
fi
exec sh "$here/../viewer/node_test.sh" "$here/conformance_viewer.js" "$1" "$here/../.." "$2" "$3"
