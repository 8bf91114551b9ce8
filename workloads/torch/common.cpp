// SPDX-License-Identifier: BSD-3-Clause
#include "common.hpp"

#include <algorithm>
#include <cstdio>
#include <fmt/format.h>
#include <fstream>
#include <jouleprof/jouleprof.h>
#include <stdexcept>
#include <thread>

namespace jp::workload {

torch::Device setup(const Options& o) {
    const int threads = o.threads > 0
                            ? o.threads
                            : static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
    torch::set_num_threads(threads);
    torch::manual_seed(o.seed);
    if (o.device == "cuda") {
        if (!torch::cuda::is_available()) {
            throw std::runtime_error("--device cuda: this LibTorch has no CUDA support or sees no "
                                     "GPU; use --device cpu");
        }
        return torch::Device{torch::kCUDA};
    }
    if (o.device != "cpu") {
        throw std::runtime_error("--device must be cpu or cuda, not '" + o.device + "'");
    }
    return torch::Device{torch::kCPU};
}

Phase::Phase(std::string name) : m_name(std::move(name)) {
    if (const int r = jp_mark_begin(m_name.c_str()); r < 0) {
        std::fprintf(stderr, "jouleprof-workload: marker '%s' not recorded (error %d)\n",
                     m_name.c_str(), r);
    }
}

Phase::~Phase() {
    jp_mark_end(m_name.c_str());
}

void require_model(const Options& o, std::string_view workload) {
    if (!std::filesystem::is_regular_file(o.model)) {
        throw std::runtime_error(fmt::format("no trained model at {}: run `jouleprof-workload {} "
                                             "train --model {}` first",
                                             o.model.string(), workload, o.model.string()));
    }
}

void write_metrics(const Options& o, const nlohmann::json& figures) {
    if (o.metrics.empty()) {
        return;
    }
    std::ofstream out{o.metrics};
    out << figures.dump(2) << '\n';
    if (!out) {
        throw std::runtime_error("cannot write " + o.metrics.string());
    }
}

std::int64_t batches_of(std::int64_t n, const Options& o) {
    const std::int64_t all = n / o.batch_size;
    return o.limit_batches > 0 ? std::min<std::int64_t>(all, o.limit_batches) : all;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace jp::workload
