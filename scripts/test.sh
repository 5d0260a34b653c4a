#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Set up, build and run the whole test suite with ctest:  scripts/test.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
scripts/setup.sh "$build"
ctest --test-dir "$build" --output-on-failure -j2 --timeout 600
