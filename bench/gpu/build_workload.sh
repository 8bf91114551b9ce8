#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds the study's reference workloads (jouleprof-workload) against the LibTorch inside
# a Python PyTorch package, on a machine that has no jouleprof build tree: a GPU machine
# with PyTorch (CUDA) and a C++ compiler, but without {fmt}, CLI11, nlohmann-json or stb.
#
#   bench/gpu/build_workload.sh KIT OUT_DIR
#
# KIT is a folder made on a Debian machine by bench/gpu/make_kit.sh: jouleprof's own
# static libraries (libjp_core.a, libjp_text.a), the C API (libjouleprof.so.0), stb's static
# library, and the headers of {fmt}, CLI11, nlohmann-json and stb. The workload sources
# come from this repository. The PyTorch is the one `python3` imports (or $PYTHON);
# with CUDA in it, `jouleprof-workload --device cuda` works.
# Writes OUT_DIR/jouleprof-workload (its rpath names the torch and KIT libraries).
set -euo pipefail
kit=$(realpath "$1")
out=$(realpath -m "$2")
cd "$(dirname "$0")/../.."
py=${PYTHON:-python3}
torch=$("$py" -c 'import os, torch; print(os.path.dirname(torch.__file__))')
abi=$("$py" -c 'import torch; print(int(torch._C._GLIBCXX_USE_CXX11_ABI))')
cuda=$("$py" -c 'import torch; print(torch.version.cuda or "")')
cxx=${CXX:-g++}
echo "build_workload: torch $torch (C++11 ABI $abi, CUDA ${cuda:-none}), $($cxx --version | head -1)"
[[ $abi == 1 ]] || { echo "build_workload: this PyTorch uses the old C++ ABI; jouleprof's libraries use the new one" >&2; exit 2; }
mkdir -p "$out/obj"
flags=(-std=c++23 -O2 -DNDEBUG -D_GLIBCXX_USE_CXX11_ABI=1 -DFMT_HEADER_ONLY=1
       -Isrc -Iinclude -Iworkloads -Iworkloads/torch -isystem "$kit/include"
       -isystem "$torch/include" -isystem "$torch/include/torch/csrc/api/include")
sources=(workloads/torch/models.cpp workloads/torch/common.cpp workloads/torch/energy_lstm.cpp
         workloads/torch/health_vgg.cpp workloads/torch/main.cpp workloads/data/text.cpp
         workloads/data/load_data.cpp workloads/data/synthetic_load.cpp workloads/data/images.cpp
         workloads/data/covidx.cpp)
pids=()
for s in "${sources[@]}"; do
    o="$out/obj/$(basename "${s%.cpp}").o"
    "$cxx" "${flags[@]}" -c "$s" -o "$o" &
    pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
libz=$( (ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null || true) |
    awk '/libz\.so\.1 .*x86-64/ && !f {print $NF; f = 1}')
cuda_libs=()
[[ -n $cuda ]] && cuda_libs=(-ltorch_cuda -lc10_cuda)
"$cxx" -o "$out/jouleprof-workload" "$out"/obj/*.o "$kit/lib/libjp_core.a" "$kit/lib/libjp_text.a" \
    -L"$torch/lib" -Wl,--no-as-needed -ltorch "${cuda_libs[@]}" -ltorch_cpu -lc10 -Wl,--as-needed \
    "$kit/lib/libjouleprof.so.0" "$kit/lib/libstb.a" "${libz:-/lib/x86_64-linux-gnu/libz.so.1}" \
    -Wl,-rpath,"$torch/lib:$kit/lib" -lpthread -ldl
echo "build_workload: $out/jouleprof-workload"
