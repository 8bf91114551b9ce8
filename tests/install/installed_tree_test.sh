#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The installed tree works on its own: `cmake --install BUILD --prefix TMP`, then,
# from TMP alone: --version names the version and a commit of this repository;
# nothing installed points into the build tree; `jouleprof sensors` and `run`
# work; a C program built with pkg-config and one built with find_package(jouleprof)
# call the marker API, alone and under `jouleprof run` (whose trace then holds
# the phase); the daemon checks its installed config, its unit names the installed
# daemon (and systemd accepts it); Python imports the installed package; every
# installed file is in the install manifest; the reference workloads are not installed.
#   tests/install/installed_tree_test.sh BUILD_DIR SOURCE_DIR VERSION
set -euo pipefail
build=$(realpath "$1") src=$(realpath "$2") version=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
fail() { echo "installed tree: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" || { cat "$tmp/install.log"; fail "cmake --install failed"; }
bin=$prefix/bin/jouleprof sbin=$prefix/sbin/jouleprofd
pc=$(find "$prefix" -name jouleprof.pc)
[[ -n $pc ]] || fail "no jouleprof.pc installed"
libdir=$(dirname "$(dirname "$pc")")
[[ -e $libdir/libjouleprof.so.0 && -e $libdir/libjouleprof.so ]] || fail "no libjouleprof.so.0 and its link in $libdir"

# A sanitized build's libraries need the sanitizer's runtime loaded first (and libstdc++,
# for ASan's __cxa_throw interceptor) in programs that are not built with it.
preload=()
asan=$(ldd "$libdir/libjouleprof.so.0" | sed -n 's/.*libasan[^ ]* => \([^ ]*\) .*/\1/p')
if [[ -n $asan ]]; then
    stdcxx=$(ldd "$bin" | sed -n 's/.*libstdc++[^ ]* => \([^ ]*\) .*/\1/p')
    preload=(env "LD_PRELOAD=$asan $stdcxx" ASAN_OPTIONS=detect_leaks=0)
fi

# --version: "NAME VERSION (commit HASH[-dirty])", HASH a commit of this repository; a source
# without git history (a release tarball) says "unknown" unless the packager gave JP_COMMIT.
for exe in "$bin" "$sbin"; do
    line=$("$exe" --version)
    if ! git -C "$src" rev-parse --verify -q HEAD >/dev/null 2>&1; then
        [[ $line =~ ^$(basename "$exe")\ ${version//./\\.}\ \(commit\ [^\)]+\)$ ]] ||
            fail "$(basename "$exe") --version printed '$line'"
        continue
    fi
    [[ $line =~ ^$(basename "$exe")\ ${version//./\\.}\ \(commit\ ([0-9a-f]{12})(-dirty)?\)$ ]] ||
        fail "$(basename "$exe") --version printed '$line'"
    git -C "$src" cat-file -e "${BASH_REMATCH[1]}^{commit}" 2>/dev/null ||
        fail "$(basename "$exe") names commit ${BASH_REMATCH[1]}, not one of $src"
done

# Nothing installed reaches into the build tree: no RPATH/RUNPATH, no path in the
# loaded sections (debug information may name the sources: stripped first).
while IFS= read -r -d '' f; do
    readelf -h "$f" >/dev/null 2>&1 || continue # ELF files only
    if readelf -d "$f" | grep -E 'R(UN)?PATH' | grep -q "$build"; then fail "$f has a run path into $build"; fi
    objcopy --strip-debug "$f" "$tmp/stripped"
    if grep -qaF "$build" "$tmp/stripped"; then fail "$f names the build tree $build"; fi
done < <(find "$prefix" -type f -print0)

# The CLI from the installed tree.
"$bin" sensors >"$tmp/sensors.txt" 2>&1 || { cat "$tmp/sensors.txt"; fail "jouleprof sensors failed"; }
"$bin" run --no-live -o "$tmp/true.jptrace" -- true >"$tmp/run.txt" 2>&1 ||
    { cat "$tmp/run.txt"; fail "jouleprof run -- true failed"; }

# The C marker API: pkg-config and find_package(jouleprof).
cat >"$tmp/mark.c" <<'C'
#include <jouleprof/jouleprof.h>
#include <stdio.h>
int main(void) {
    int active = jp_active();
    int begin = jp_mark_begin("installed-step");
    int end = jp_mark_end("installed-step");
    printf("%d %d %d\n", active, begin, end);
    return 0;
}
C
# shellcheck disable=SC2046
cc -std=c89 -pedantic-errors "$tmp/mark.c" -o "$tmp/mark-pc" $(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags --libs jouleprof)
mkdir "$tmp/cm"
cat >"$tmp/cm/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.25)
project(mark C)
find_package(jouleprof 0.1 REQUIRED)
add_executable(mark-cmake ../mark.c)
target_link_libraries(mark-cmake PRIVATE jouleprof::jouleprof)
CM
cmake -S "$tmp/cm" -B "$tmp/cm/build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER=cc >"$tmp/cm.log" 2>&1 &&
    cmake --build "$tmp/cm/build" >>"$tmp/cm.log" 2>&1 || { cat "$tmp/cm.log"; fail "find_package(jouleprof) build failed"; }
for prog in "$tmp/mark-pc" "$tmp/cm/build/mark-cmake"; do
    out=$(LD_LIBRARY_PATH=$libdir "${preload[@]}" "$prog")
    [[ $out == "0 1 1" ]] || fail "$(basename "$prog") alone printed '$out', not '0 1 1' (no monitor: no-ops)"
    rm -f "$tmp/mark.jptrace"
    out=$(LD_LIBRARY_PATH=$libdir "${preload[@]}" "$bin" run --no-live -o "$tmp/mark.jptrace" -- "$prog" 2>"$tmp/mark.err") ||
        { cat "$tmp/mark.err"; fail "jouleprof run -- $(basename "$prog") failed"; }
    [[ $out == "1 0 0" ]] || fail "$(basename "$prog") under jouleprof run printed '$out', not '1 0 0'"
    "$bin" report --json "$tmp/mark.jptrace" >"$tmp/mark.json"
    grep -q '"installed-step"' "$tmp/mark.json" || fail "the trace of $(basename "$prog") has no phase installed-step"
done

# The daemon: its installed config passes its check; the unit names the installed daemon.
"$sbin" --check -c "$prefix/etc/jouleprof/jouleprofd.toml" >"$tmp/check.txt" 2>&1 ||
    { cat "$tmp/check.txt"; fail "jouleprofd --check on the installed config failed"; }
unit=$(find "$prefix" -name jouleprofd.service)
grep -qx "ExecStart=$sbin --config $prefix/etc/jouleprof/jouleprofd.toml" "$unit" ||
    fail "$unit does not start $sbin with the installed config"
# Its Documentation= is an installed file (the packages' check asks the same; a renamed doc
# would break it).
doc=$(sed -n 's|^Documentation=file://||p' "$unit")
[[ -n $doc && -f $doc ]] || fail "$unit's Documentation= names '$doc', which is not installed"
if command -v systemd-analyze >/dev/null; then
    systemd-analyze verify "$unit" >"$tmp/verify.txt" 2>&1 || { cat "$tmp/verify.txt"; fail "systemd-analyze verify $unit"; }
    [[ ! -s $tmp/verify.txt ]] || { cat "$tmp/verify.txt"; fail "systemd-analyze warns about $unit"; }
fi

# Python, where the build has the package.
if [[ -n $(find "$prefix" -name '_core*.so') ]]; then
    pydir=$(dirname "$(dirname "$(find "$prefix" -name '_core*.so')")")
    where=$(cd "$tmp" && PYTHONPATH=$pydir "${preload[@]}" /usr/bin/python3 -c 'import jouleprof; print(jouleprof.__file__)')
    [[ $where == "$pydir/jouleprof/__init__.py" ]] || fail "python imported jouleprof from '$where'"
fi

# The man pages, as man finds them.
if [[ -d $build/man ]]; then
    for page in jouleprof jouleprofd jouleprof.toml jouleprofd.toml; do
        MANPATH=$prefix/share/man man -w "$page" >/dev/null 2>&1 || fail "man -w $page finds no installed page"
    done
fi

# Every installed file is in the manifest (what an uninstall removes); no workload.
sort "$build/install_manifest.txt" >"$tmp/manifest"
find "$prefix" -type f -o -type l | sort >"$tmp/found"
unlisted=$(comm -13 "$tmp/manifest" "$tmp/found")
[[ -z $unlisted ]] || fail "installed but not in the manifest: $unlisted"
[[ -z $(find "$prefix" -name 'jouleprof-workload*') ]] || fail "a reference workload was installed"
[[ -f $prefix/share/doc/jouleprof/CHANGELOG.md ]] || fail "no CHANGELOG.md installed"
echo "installed tree: $(wc -l <"$tmp/found") files under the prefix, every check passed"
