#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# cmake --install puts the tools, libcsprof.so and share/ into a prefix, and
# they work from there: no build-tree path is baked in.
. "$(dirname "$0")/lib.sh"
check "cmake --install" sh -c "cmake --install '$CSPROF_BUILD' --prefix '$work/prefix' > install.log"
p=$work/prefix
check "tools installed" test -x "$p/bin/csrun" -a -x "$p/bin/csprof-struct" -a -x "$p/bin/csprof-prof" \
    -a -x "$p/bin/csprof-report"
check "monitor installed" test -f "$p/lib/csprof/libcsprof.so"
check "schemas installed" test -f "$p/share/csprof/schemas/experiment.dtd"
# Debug information may name the build directory; code and RUNPATH must not.
for f in "$p"/bin/* "$p"/lib/csprof/libcsprof.so; do
    strip -o stripped "$f"
    check "no build path in $(basename "$f")" sh -c "! grep -q '$CSPROF_BUILD' stripped"
done
cp "$CSPROF_EXAMPLES/fig1" ./app
PATH=$p/bin:/usr/bin:/bin
check "installed csrun runs" sh -c 'csrun -q ./app 24'
check "installed csprof-struct runs" sh -c 'csprof-struct ./app > app.struct'
check "installed csprof-prof runs" sh -c 'csprof-prof -S app.struct measurements -o db > /dev/null'
check "database validates against the installed DTD" \
    xmllint --noout --dtdvalid "$p/share/csprof/schemas/experiment.dtd" db/experiment.xml
check "installed csprof-report reads it" sh -c 'csprof-report db | grep -q "calling context"'
finish
