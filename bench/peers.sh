#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# jouleprof side by side with other energy tools on a fake RAPL tree, in a
# private mount namespace: monitor CPU per second inside the job (steady/s), the
# fixed cost of a 0-second job, RSS, and the energy error against the tree's
# ground truth. The side-by-side harness (fakerapl, peerbench.py and the peers'
# adapters) is not part of this repository: it comes with the project's steering
# material, and PEERS_HARNESS names its folder. perun and CodeCarbon run too when
# their sources are in /tmp/peers (the harness's README, "Setup"). Without a
# harness this measures jouleprof alone with the repository's own fake tree
# (bench/run_cost.sh) and says so. The harness needs root (unshare, mount) and
# python3-psutil.
#   bench/peers.sh [JOULEPROF_BINARY]       default build/release/src/jouleprof
#   PEERS_HARNESS=DIR INTERVALS="0.1 0.001" SECONDS_WL=10 bench/peers.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-build/release/src/jouleprof}")
[[ -x $bin ]] || { echo "bench/peers.sh: $bin is not built (cmake --preset release && cmake --build --preset release)" >&2; exit 2; }
if [[ -z ${PEERS_HARNESS:-} ]]; then
    echo "bench/peers.sh: no side-by-side harness (PEERS_HARNESS unset): jouleprof alone, bench/run_cost.sh" >&2
    exec bench/run_cost.sh "$bin"
fi
peers_dir=$(realpath "$PEERS_HARNESS")
[[ -x $peers_dir/run-all.sh ]] || { echo "bench/peers.sh: $peers_dir/run-all.sh not found (PEERS_HARNESS)" >&2; exit 2; }
peers=jouleprof
for p in perun codecarbon; do
    [[ -d /tmp/peers/$p ]] && peers+=" $p"
done
out=${OUT:-/tmp/jp-peers-$(date +%Y%m%dT%H%M%S).jsonl}
JOULEPROF_BIN=$bin PEERS=$peers OUT=$out INTERVALS=${INTERVALS:-"default 0.1 0.01 0.001"} \
    SECONDS_WL=${SECONDS_WL:-20} "$peers_dir/run-all.sh" >/dev/null
"$peers_dir/peerbench.py" table "$out"
# Trace size of each jouleprof run (the harness counts rows of schema 1 only).
python3 - "$out" <<'PY'
import json, os, sqlite3, sys
print("# jouleprof traces: bytes per sample per channel (samples counted from the trace itself)")
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("peer") != "jouleprof" or not r.get("run_dir"):
        continue
    t = os.path.join(r["run_dir"], "trace.jptrace")
    if not os.path.exists(t):
        continue
    con = sqlite3.connect("file:%s?immutable=1" % t, uri=True)
    v = con.execute("PRAGMA user_version").fetchone()[0]
    n = con.execute("select coalesce(sum(count),0) from block" if v >= 2 else
                    "select count(*) from sample").fetchone()[0]
    size = os.path.getsize(t)
    print("interval %-8s job %5ss  schema %d  %8d bytes  %7d samples  %s B/sample" % (
        r.get("interval"), r.get("seconds"), v, size, n,
        "%.1f" % (size / n) if n else "-"))
PY
