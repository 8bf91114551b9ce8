#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# ThreadSanitizer over the suites whose code runs threads: the sampler, the
# trace writer and recorder, the marker server and output capture, jouleprofd.
# Builds them with the tsan preset (clang-19, so CI also builds these tests and
# the libraries under them with a second compiler); any data race or deadlock
# fails the run.
#   scripts/tsan.sh
set -euo pipefail
cd "$(dirname "$0")/.."
suites=(unit_sampler unit_trace unit_markers unit_daemon unit_bpf)
cmake --preset tsan >/dev/null
cmake --build build/tsan-clang --target "${suites[@]}"
# Older TSan runtimes (GCC 12's; the preset was GCC until 2026-11-25) cannot map their
# shadow memory under the larger address-space randomisation of newer kernels
# (vm.mmap_rnd_bits > 28): run without it where allowed.
norandom=()
if setarch "$(uname -m)" -R true 2>/dev/null; then norandom=(setarch "$(uname -m)" -R); fi
for s in "${suites[@]}"; do
    echo "== tsan: $s"
    TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
        "${norandom[@]}" "build/tsan-clang/tests/$s" --gtest_brief=1
done
