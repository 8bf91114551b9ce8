#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# What the SPANK plugin adds to a Slurm step (figures in docs/slurm.md): on the real
# single-node Slurm of tests/slurm (its own network and mount namespace; root), `srun -n 2
# true` five times each without --jouleprof, with --jouleprof=result=no and with
# --jouleprof (the merged table printed), and the start edge and trace closing times the
# plugin logs in slurmd's log. Prints figures; asserts nothing.
#   bench/spank_step_cost.sh [JOULEPROF [SPANK_SO]]   # defaults: the ci preset's build
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/ci/src/jouleprof}
so=${2:-build/ci/spank/jouleprof_spank.so}
for f in "$bin" "$so"; do
    [[ -e $f ]] || { echo "bench/spank_step_cost.sh: $f is not built" >&2; exit 2; }
done
JP_SPANK_PART=cost exec bash tests/slurm/spank_test.sh "$bin" "$so"
