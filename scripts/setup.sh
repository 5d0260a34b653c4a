#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Set up a fresh Debian 12 machine for csprof and build it:
#   scripts/setup.sh [BUILD_DIR]      (default: build)
# Installs the Debian packages csprof needs when run as root (otherwise names
# them and stops), configures with CMake and builds.  Idempotent: packages
# already present are not reinstalled, and the build is incremental.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}

packages=(
  gcc g++ gfortran clang make cmake pkg-config binutils    # toolchain (tests compile C, C++, Fortran)
  clang-format git                                        # the format test
  libunwind-dev                                           # stack walks
  libpfm4-dev                                             # event encoding (hardware counters)
  libxml2-dev libxml2-utils                               # XML writing/reading, xmllint validation
  libdw-dev libelf-dev                                    # ELF and DWARF
  libdebuginfod1 debuginfod                               # debuginfod: the client libdw loads, a server for a test
  libcapstone-dev                                         # instruction decoding
  libcmocka-dev                                           # unit tests
  libclang-rt-14-dev                                      # libFuzzer for the structure fuzzer test
  xz-utils file                                           # the real-program test, test helpers
  libc6-dbg                                               # glibc's internal functions get names
  libstdc++6-12-dbg                                       # a DWARF build of libstdc++ for the struct_lines test
  libpython3.11-dbg                                       # a DWARF build of libpython for bench/struct
  libcap2-bin                                             # setcap: capability cases of rel_19
  google-perftools libgoogle-perftools-dev linux-perf     # peers, for bench/
  time python3                                            # bench/
  golang-go valgrind python3-jsonschema                   # readers of csprof-report's exports (tests)
  openmpi-bin libopenmpi-dev                              # MPI tests (ranks, rel_43)
  mpich libmpich-dev                                      # rel_27 with MPICH too (Open MPI stays the default mpicc/mpirun)
  libomp-dev                                              # OpenMP tests with LLVM's runtime
  chromium nodejs fonts-dejavu-core                       # viewer tests: headless Chromium over CDP (test/viewer/cdp.js)
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    echo "setup: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "setup: missing Debian packages: ${missing[*]}" >&2
    echo "setup: run as root, or: sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi

werror=OFF
[ "${CI:-}" = true ] && werror=ON
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCSPROF_WERROR=$werror >/dev/null
cmake --build "$build" -j"$(nproc)"
