#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# ThreadSanitizer over the suites whose code runs threads: the sampler, the
# trace writer and recorder, the marker server and output capture, jouleprofd.
# Builds them with the tsan preset; any data race or deadlock fails the run.
#   scripts/tsan.sh
set -euo pipefail
cd "$(dirname "$0")/.."
suites=(unit_sampler unit_trace unit_markers unit_daemon)
cmake --preset tsan >/dev/null
cmake --build build/tsan --target "${suites[@]}"
# GCC 12's TSan cannot map its shadow memory under the larger address-space
# randomisation of newer kernels (vm.mmap_rnd_bits > 28): run without it where allowed.
norandom=()
if setarch "$(uname -m)" -R true 2>/dev/null; then norandom=(setarch "$(uname -m)" -R); fi
for s in "${suites[@]}"; do
    echo "== tsan: $s"
    TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
        "${norandom[@]}" "build/tsan/tests/$s" --gtest_brief=1
done
