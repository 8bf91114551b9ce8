#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs the Debian packages jouleprof builds and tests with (Debian 12).
set -euo pipefail
packages=(build-essential cmake ninja-build pkg-config clang-format
          libfmt-dev libsqlite3-dev sqlite3 libcli11-dev nlohmann-json3-dev libtomlplusplus-dev
          libgtest-dev libgmock-dev googletest libbenchmark-dev
          chromium fonts-dejavu-core zlib1g-dev    # the HTML report's browser test
          libtorch-dev libstb-dev                  # the reference workloads (LibTorch, images)
          prometheus systemd                       # jouleprofd: promtool and a real Prometheus; systemd-analyze
          python3                                  # contrib/jptrace.py, the trace format's reference reader
          ccache                                   # compile once: a second build or clone reuses the objects
          libcurl4-openssl-dev libssl-dev           # Redfish (libcurl) and IPMI RMCP+ (libcrypto)
          openipmi libopenipmi-dev ipmitool        # tests: ipmi_sim BMC simulator, its plug-in headers, a peer client
          nginx-light openssl                      # tests: a Redfish service over TLS
          slurmctld slurmd slurm-client munge iproute2 # tests: a real Slurm with an energy plugin
          libslurm-dev # spank/: the SPANK plugin (header only; nothing links libslurm)
          mariadb-server slurmdbd slurm-wlm-mysql-plugin # tests: Slurm accounting, sacct's energy
          clang-19 libclang-rt-19-dev clang-tidy-19 # the fuzz preset (libFuzzer) and clang-tidy
          libbpf-dev bpftool libelf-dev            # the eBPF kernel sampler (src/bpf/; clang-19 compiles it)
          pybind11-dev python3-pybind11 python3-dev python3-pandas python3-pytest # python/
          python3-setuptools python3-wheel python3-pip                # pip install ./python
          jupyter-nbconvert python3-nbconvert python3-ipykernel python3-nbclient # the notebook test
          python3-nbformat jupyter-core python3-ipython)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    SUDO=""
    [[ $(id -u) -ne 0 ]] && SUDO="sudo"
    $SUDO apt-get -o DPkg::Lock::Timeout=900 update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=900 install -y -qq \
        --no-install-recommends "${missing[@]}"
fi
