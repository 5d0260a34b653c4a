#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Run a node test script of test/viewer: node_test.sh SCRIPT.js [ARGS...]
# Exits 77 (skip) with a message when node (>= 18) or chromium is absent;
# otherwise the script's own exit status (0 pass, 1 fail, 77 skip).
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
exec "$node" "$@"
