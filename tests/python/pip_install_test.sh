#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# `pip install ./python` leaves the source tree as it was (no build/, no
# jouleprof.egg-info/ beside setup.py). Reuses this build (JOULEPROF_BUILD_DIR),
# so it builds nothing new. Usage: pip_install_test.sh SOURCE_DIR BUILD_DIR PYTHON
set -eu
src=$1 build=$2 python=$3
if ! "$python" -c "import setuptools, wheel, pip" 2>/dev/null; then
    echo "skipped: no pip, setuptools or wheel for $python (apt install python3-pip python3-wheel)"
    exit 77
fi
for p in build jouleprof.egg-info; do
    if [ -e "$src/python/$p" ]; then
        echo "skipped: $src/python/$p is there already (from an older install)"
        exit 77
    fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! JOULEPROF_BUILD_DIR=$build "$python" -m pip install --no-build-isolation --no-index \
    --no-deps --target "$tmp/site" "$src/python" >"$tmp/log" 2>&1; then
    cat "$tmp/log"
    exit 1
fi
ls "$tmp/site/jouleprof/"_core*.so >/dev/null
left=0
for p in build jouleprof.egg-info; do
    if [ -e "$src/python/$p" ]; then
        echo "pip install left $src/python/$p behind"
        left=1
    fi
done
exit $left
