#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# clang-tidy-19 over src/ with the checked-in .clang-tidy; exits non-zero on any
# finding. Needs a compile database: the fuzz preset's (clang) is used, made
# if missing. A file whose preprocessed text, flags, .clang-tidy and clang-tidy
# are the same as at a clean check is not checked again (scripts/tidy.py keeps
# the clean results in ~/.cache/jouleprof-tidy; JP_TIDY_CACHE moves it, and an
# empty folder checks everything). The clean keys are also committed in
# .ci/tidy-clean.txt, so a fresh clone checks only what changed since: after a
# change, `scripts/tidy.sh --record` (every src/ file) updates it; commit it.
#   scripts/tidy.sh [--record] [FILE...]   (default: every src/ .cpp)
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -f build/fuzz/compile_commands.json ]] || cmake --preset fuzz >/dev/null
# The generated sources must exist for the files that include them: jp_version.hpp is made
# by the configure step, jp_build_commit.cpp by this target (building jp_core for them, as
# before, compiled ~25 files with clang for nothing: a minute of a cold CI).
cmake --build build/fuzz --target jp_build_commit >/dev/null
# The kernel sampler (src/bpf/): its skeleton, a generated header, where that build has it;
# of its two implementations, the one that build does not compile is not checked.
not_built=src/bpf/kernel_sampler.cpp
if cmake --build build/fuzz --target help | grep -q '^jp_bpf_skeleton:'; then
    cmake --build build/fuzz --target jp_bpf_skeleton >/dev/null
    not_built=src/bpf/kernel_sampler_none.cpp
fi
record=()
if [[ ${1:-} == --record ]]; then record=(--record); shift; fi
if (($#)); then files=("$@"); else mapfile -t files < <(git ls-files 'src/*.cpp' | grep -vxF "$not_built"); fi
python3 scripts/tidy.py -p build/fuzz -j "$(nproc)" "${record[@]}" "${files[@]}"
