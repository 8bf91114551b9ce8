#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# CI's step for the Debian packages. Building them takes ~5 min on two cores and the whole
# check (tools, build, lintian, install, use, purge) ~9, which CI cannot pay at every stop
# and stay under 25 min (docs/ci.md). So, as clang-tidy's keys do, CI runs
# tests/packages/deb_test.sh only when what the packages are made from changed since the
# last recorded pass, and says which it did:
#   deb_ci.sh            CI: run deb_test.sh unless the key is in .ci/deb-clean.txt
#   deb_ci.sh --record   run deb_test.sh; when it passes, add the key to .ci/deb-clean.txt
#   deb_ci.sh --key      print the key
# JP_CI_DEB=1 runs it whatever the key says.
#
# The key is a SHA-256 over the packaging's own inputs: debian/, packaging/, the check itself
# (deb_test.sh and lintian-accepted; not this selector), cmake/, scripts/man.py and the
# CMakeLists.txt of what the packages hold (the top one, src/, tools/, spank/, python/ with
# its Python sources). The code inside is not in it: the ci
# preset compiles src/, spank/ and python/ the way the packages do (unity batches), so a
# change there that would break their build breaks CI's own first.
set -euo pipefail
cd "$(dirname "$0")/../.."
keys=.ci/deb-clean.txt
inputs=(debian packaging tests/packages/deb_test.sh tests/packages/lintian-accepted cmake
        scripts/man.py CMakeLists.txt src/CMakeLists.txt tools/CMakeLists.txt
        spank/CMakeLists.txt python/CMakeLists.txt python/jouleprof)

# Each file's content, whether it is executable (not its other mode bits: umasks differ)
# and its path, in byte order whatever the locale; a listed path that is no file (deleted,
# not yet `git rm`'d) counts as such.
key() {
    git ls-files -z --cached --others --exclude-standard -- "${inputs[@]}" | LC_ALL=C sort -zu |
        while IFS= read -r -d '' f; do
            if [[ -f $f && ! -L $f ]]; then
                printf '%s %s %s\n' "$(sha256sum <"$f" | cut -d' ' -f1)" "$([[ -x $f ]] && echo x || echo -)" "$f"
            else
                printf 'none - %s\n' "$f"
            fi
        done | sha256sum | cut -d' ' -f1
}

k=$(key)
case ${1:-} in
--key)
    echo "$k"
    ;;
--record)
    bash tests/packages/deb_test.sh
    commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
    echo "$k $(date -u +%Y-%m-%d) after commit $commit" >>"$keys"
    echo "deb_ci: recorded $k in $keys"
    ;;
"")
    if [[ -z ${JP_CI_DEB:-} ]] && [[ -f $keys ]] && grep -q "^$k " "$keys"; then
        echo "deb_ci: the packages' inputs are unchanged since a recorded pass ($(grep "^$k " "$keys" | head -1)): deb_test.sh not run (JP_CI_DEB=1 runs it)"
        exit 0
    fi
    echo "deb_ci: the packages' inputs changed since the last recorded pass: running deb_test.sh"
    bash tests/packages/deb_test.sh
    echo "deb_ci: passed; record it with: tests/packages/deb_ci.sh --record (or add this line to $keys):"
    echo "$k $(date -u +%Y-%m-%d)"
    ;;
*)
    echo "usage: deb_ci.sh [--record | --key]" >&2
    exit 2
    ;;
esac
