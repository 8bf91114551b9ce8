#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The man pages (scripts/man.py, built into BUILD/man): each renders without a
# warning from man/groff; every option and subcommand in the programs' --help is
# in their page (jouleprof(1), jouleprofd(8)); the annotated example configs the
# section-5 pages show are accepted by the programs as they stand.
#   tests/install/man_test.sh BUILD_DIR SOURCE_DIR JOULEPROF JOULEPROFD
set -euo pipefail
build=$1 src=$2 jouleprof=$3 jouleprofd=$4
fail() { echo "man pages: $*" >&2; exit 1; }
pages=("$build/man/jouleprof.1" "$build/man/jouleprofd.8" "$build/man/jouleprof.toml.5" "$build/man/jouleprofd.toml.5")
for page in "${pages[@]}"; do
    [[ -s $page ]] || fail "$page was not generated"
    warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings=w -l "$page" 2>&1 >/dev/null)
    [[ -z $warnings ]] || fail "$page: $warnings"
done
python3 "$src/scripts/man.py" check "$build/man/jouleprof.1" "$jouleprof"
python3 "$src/scripts/man.py" check "$build/man/jouleprofd.8" "$jouleprofd"
"$jouleprof" -c "$src/packaging/jouleprof.toml" sensors >/dev/null 2>"$build/man/example.err" ||
    { cat "$build/man/example.err"; fail "jouleprof refuses packaging/jouleprof.toml"; }
"$jouleprofd" --check -c "$src/packaging/jouleprofd.toml" >/dev/null 2>&1 ||
    fail "jouleprofd --check refuses packaging/jouleprofd.toml"
echo "man pages: ${#pages[@]} pages render cleanly and hold every option of --help"
