#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Packs what a GPU machine without jouleprof's build dependencies needs to run jouleprof and
# build the reference workloads there (bench/gpu/build_workload.sh), from a release build
# made here (cmake --preset release && cmake --build --preset release):
#
#   bench/gpu/make_kit.sh KIT [BUILD_DIR]      # BUILD_DIR: build/release
#
# KIT/bin/jouleprof (self-contained: libc and libm only), KIT/lib/{libjp_core.a,
# libjp_text.a, libjouleprof.so.0, libstb.a}, KIT/include/{fmt,CLI,nlohmann,stb}: debug
# information stripped, so the kit stays a few MiB and travels with the working tree.
# KIT and BUILD_DIR are taken from where the script is called; an existing KIT is replaced
# only if it is a kit this script made (it holds .jouleprof-kit).
set -euo pipefail
[[ $# -ge 1 && -n $1 ]] || { echo "usage: make_kit.sh KIT [BUILD_DIR]" >&2; exit 2; }
kit=$(realpath -m "$1")
build=$(realpath -m "${2:-$(dirname "$0")/../../build/release}")
cd "$(dirname "$0")/../.."
[[ -x $build/src/jouleprof ]] || { echo "make_kit: $build/src/jouleprof is not built" >&2; exit 2; }
if [[ -e $kit || -L $kit ]]; then
    [[ -d $kit && ! -L $kit && -f $kit/.jouleprof-kit ]] || {
        echo "make_kit: $kit exists and is not a kit made by make_kit.sh; name another folder" >&2
        exit 2
    }
    rm -rf "$kit"
fi
mkdir -p "$kit/bin" "$kit/lib" "$kit/include/stb"
touch "$kit/.jouleprof-kit"
strip -g -o "$kit/bin/jouleprof" "$build/src/jouleprof"
for a in src/libjp_core.a src/libjp_text.a; do strip -g -o "$kit/lib/$(basename $a)" "$build/$a"; done
strip -g -o "$kit/lib/libjouleprof.so.0" "$(readlink -f "$build/src/libjouleprof.so.0")"
cp /usr/lib/x86_64-linux-gnu/libstb.a "$kit/lib/"
cp -r /usr/include/fmt /usr/include/CLI /usr/include/nlohmann "$kit/include/"
cp /usr/include/stb/stb_image.h /usr/include/stb/stb_image_write.h "$kit/include/stb/"
du -sh "$kit"
