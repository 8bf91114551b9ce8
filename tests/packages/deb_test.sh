#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The Debian packages, built and used as an admin would (as root, on Debian 12):
#   1. dpkg-buildpackage -us -uc -b in a copy of the tree (nothing written beside it);
#   2. lintian on the result: no error (every warning left is listed in docs/packaging.md);
#   3. apt-get install ./*.deb: dependencies resolve from the archive;
#   4. as an unprivileged user: jouleprof sensors, jouleprof run -- true, import jouleprof,
#      a C program built with pkg-config and one with find_package(jouleprof);
#      jouleprofd --check on the packaged config; systemd-analyze verify on the unit;
#      the installed daemon, started by hand as root, serves the user's jouleprof run;
#   5. apt-get purge: nothing the packages installed is left, nor the daemon's state.
#   tests/packages/deb_test.sh [WORK_DIR]   (default: a new temporary folder; kept on failure)
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:-$(mktemp -d /tmp/jp-deb.XXXXXX)}
user=jpdeb
pkgs=(jouleprof libjouleprof0 libjouleprof-dev jouleprofd python3-jouleprof slurm-spank-jouleprof)
daemon_pid=""
cleanup() {
    [[ -n $daemon_pid ]] && kill "$daemon_pid" 2>/dev/null && wait "$daemon_pid" 2>/dev/null || true
}
trap cleanup EXIT
fail() { echo "deb_test: $*" >&2; exit 1; }
say() { echo "== deb_test: $*"; }
[[ $(id -u) -eq 0 ]] || fail "run as root (it installs and purges the packages)"
apt=(apt-get -o DPkg::Lock::Timeout=900 -y -qq)

# What building and checking packages needs beyond scripts/setup.sh (a fresh machine has none
# of it), then every Build-Depends of debian/control, or one line naming what is missing.
say "packaging tools (debhelper, dh-python, lintian)"
"${apt[@]}" install debhelper dh-python lintian dpkg-dev >/dev/null || fail "cannot install debhelper, dh-python, lintian"
(cd "$src" && dpkg-checkbuilddeps) || fail "missing build dependencies (above): apt-get install them"

say "build (dpkg-buildpackage -us -uc -b) in $work"
mkdir -p "$work/jouleprof"
(cd "$src" && git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do [[ -e $f || -L $f ]] && printf '%s\0' "$f"; done |
    tar -cf - --null -T -) | tar -C "$work/jouleprof" -xf -
cp -a "$src/.git" "$work/jouleprof/.git" 2>/dev/null || true # the commit --version names
SECONDS=0
(cd "$work/jouleprof" && CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache} \
    DEB_BUILD_OPTIONS="parallel=$(nproc)" dpkg-buildpackage -us -uc -b) \
    >"$work/build.log" 2>&1 || { tail -40 "$work/build.log"; fail "dpkg-buildpackage failed"; }
say "built in $SECONDS s: $(cd "$work" && ls ./*.deb | tr '\n' ' ')"

say "lintian"
lintian --fail-on error --suppress-tags-from-file "$src/tests/packages/lintian-accepted" \
    "$work"/*.changes | tee "$work/lintian.log" || fail "lintian found an error"

say "the daemon's maintainer scripts: try-restart on upgrade, stop on removal"
dpkg-deb -e "$work"/jouleprofd_*.deb "$work/jouleprofd.control"
grep -q 'try-restart' "$work/jouleprofd.control/postinst" || fail "jouleprofd's postinst does not try-restart on upgrade"
grep -q 'deb-systemd-invoke stop jouleprofd.service' "$work/jouleprofd.control/prerm" ||
    fail "jouleprofd's prerm does not stop the daemon on removal"
if grep 'deb-systemd-invoke' "$work/jouleprofd.control/postinst" | grep -v 'try-restart' | grep -q 'start'; then
    fail "jouleprofd's postinst starts the daemon at installation"
fi

say "apt-get install ./PACKAGE_*.deb (the six, not their -dbgsym)"
debs=()
for p in "${pkgs[@]}"; do debs+=("$work/${p}_"*.deb); done # not the -dbgsym ones
"${apt[@]}" install "${debs[@]}" >"$work/install.log" 2>&1 || { tail -20 "$work/install.log"; fail "install failed"; }
for p in "${pkgs[@]}"; do dpkg -L "$p"; done | sort -u >"$work/files"

id "$user" >/dev/null 2>&1 || useradd --create-home --shell /bin/bash "$user"
as_user() { runuser -u "$user" -- env HOME="/home/$user" "$@"; }
tmp=$(as_user mktemp -d)

say "as $user: the CLI, Python, the C API"
as_user jouleprof --version | grep -Eq '^jouleprof [0-9.]+ \(commit [0-9a-f]' || fail "jouleprof --version"
as_user jouleprof sensors >/dev/null || fail "jouleprof sensors"
as_user jouleprof run --no-live -o "$tmp/true.jptrace" -- true >/dev/null || fail "jouleprof run -- true"
as_user python3 -c 'import jouleprof, sys; sys.exit(0 if jouleprof.__file__.startswith("/usr/lib/python3/dist-packages/") else 1)' ||
    fail "python3 -c 'import jouleprof' did not import the packaged module"
cat >"$tmp/mark.c" <<'C'
#include <jouleprof/jouleprof.h>
#include <stdio.h>
int main(void) {
    int begin = jp_mark_begin("packaged-step");
    int end = jp_mark_end("packaged-step");
    printf("%d %d %d\n", jp_active(), begin, end);
    return 0;
}
C
cat >"$tmp/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.25)
project(mark C)
find_package(jouleprof 0.1 REQUIRED)
add_executable(mark-cmake mark.c)
target_link_libraries(mark-cmake PRIVATE jouleprof::jouleprof)
CM
chown -R "$user" "$tmp"
# shellcheck disable=SC2016
as_user sh -c 'cc "$1/mark.c" -o "$1/mark-pc" $(pkg-config --cflags --libs jouleprof)' sh "$tmp" || fail "pkg-config build"
as_user cmake -S "$tmp" -B "$tmp/build" >/dev/null && as_user cmake --build "$tmp/build" >/dev/null ||
    fail "find_package(jouleprof) build"
for prog in "$tmp/mark-pc" "$tmp/build/mark-cmake"; do
    out=$(as_user jouleprof run --no-live -o "$tmp/$(basename "$prog").jptrace" -- "$prog" 2>/dev/null)
    [[ $out == "1 0 0" ]] || fail "$(basename "$prog") under jouleprof run printed '$out', not '1 0 0'"
done

man -w jouleprof jouleprofd jouleprof.toml jouleprofd.toml >/dev/null || fail "man -w finds no page"
doc=$(sed -n 's|^Documentation=file://||p' /lib/systemd/system/jouleprofd.service)
[[ -f $doc ]] || fail "the unit's Documentation= names $doc, which is not installed"

say "the daemon: config, unit, started by hand, serving $user"
jouleprofd --check -c /etc/jouleprof/jouleprofd.toml || fail "jouleprofd --check on the packaged config"
systemd-analyze verify /lib/systemd/system/jouleprofd.service || fail "systemd-analyze verify"
getent group jouleprof >/dev/null || fail "the package made no jouleprof group"
# This machine may have no power counter: the daemon reads a small fake powercap tree.
zone=$work/node/sys/class/powercap/intel-rapl:0
mkdir -p "$zone"
printf 'package-0\n' >"$zone/name"; printf '1000000\n' >"$zone/energy_uj"
printf '262143328850\n' >"$zone/max_energy_range_uj"; printf '1\n' >"$zone/enabled"
sock=/run/jouleprof/jouleprofd.sock
mkdir -p /run/jouleprof
jouleprofd -c /etc/jouleprof/jouleprofd.toml --sysfs-root "$work/node" >"$work/daemon.log" 2>&1 &
daemon_pid=$!
for _ in $(seq 100); do [[ -S $sock ]] && break; sleep 0.1; done
[[ -S $sock ]] || { cat "$work/daemon.log"; fail "the installed jouleprofd made no socket"; }
as_user jouleprof run --no-live --json -o "$tmp/d.jptrace" -- sleep 1.2 >"$tmp/d.json" 2>"$tmp/d.err" ||
    { cat "$tmp/d.err"; fail "$user's run with the daemon up"; }
grep -q '"backend": *"jouleprofd"' "$tmp/d.json" || { cat "$tmp/d.json" "$tmp/d.err"; fail "$user's run did not use the daemon"; }
say "$user's run was measured through the packaged daemon (backend jouleprofd)"
kill "$daemon_pid"; wait "$daemon_pid" || true; daemon_pid=""

say "apt-get purge"
# What the daemon keeps under systemd (StateDirectory=jouleprof: its learned idle power) goes
# with a purge (debian/jouleprofd.postrm); made here as the unit would, the daemon having been
# started by hand.
install -d -m 0700 /var/lib/jouleprof
echo '{}' > /var/lib/jouleprof/idle-history.json
"${apt[@]}" purge "${pkgs[@]}" >"$work/purge.log" 2>&1 || { tail -20 "$work/purge.log"; fail "purge failed"; }
left=$(while read -r f; do if [[ (-f $f || -L $f) && ! -d $f ]]; then echo "$f"; fi; done <"$work/files")
[[ -z $left ]] || fail "left after purge: $left"
[[ ! -e /etc/jouleprof ]] || fail "/etc/jouleprof left after purge"
[[ ! -e /var/lib/jouleprof ]] || fail "/var/lib/jouleprof (the idle history) left after purge"
rm -rf "$tmp"
say "passed"
