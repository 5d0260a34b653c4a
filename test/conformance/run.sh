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
node=$(command -v node || command -v nodejs)
if [ -z "$node" ]; then
    echo "SKIP: node not found (install Debian package nodejs: scripts/setup.sh)"
    exit 77
fi
major=$("$node" -e 'process.stdout.write(process.versions.node.split(".")[0])')
if [ "$major" -lt 18 ]; then
    echo "SKIP: node $major is older than 18"
    exit 77
fi
exec "$node" "$here/conformance_viewer.js" "$1" "$here/../.." "$2" "$3"
