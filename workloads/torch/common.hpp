// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What both reference workloads share: options, device and thread set-up,
// phases marked through libjouleprof, metrics output.
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <torch/torch.h>

namespace jp::workload {

struct Options {
    std::filesystem::path data;    // empty: the built-in synthetic data
    std::filesystem::path model;   // trained weights (written by train, read by predict)
    std::filesystem::path metrics; // optional JSON file with the run's figures
    int epochs = 0;                // 0: the workload's study default
    int limit_batches = 0;         // 0: all batches of an epoch / of the evaluation
    int batch_size = 64;
    int repeat_data = 1; // predict: each test item this many times
    int threads = 0;     // 0: every core
    std::string device = "cpu";
    std::uint64_t seed = 42;
    int synthetic_count = 0; // 0: the workload's default size of synthetic sets
};

// Sets threads, seeds and determinism; returns the device, or throws
// std::runtime_error with a one-line reason (e.g. CUDA asked for but absent).
torch::Device setup(const Options& o);

// A phase of the job from its constructor to its destructor, as seen by
// `jouleprof run` (a no-op when not measured).
class Phase {
public:
    explicit Phase(std::string name);
    Phase(const Phase&) = delete;
    Phase& operator=(const Phase&) = delete;
    Phase(Phase&&) = delete;
    Phase& operator=(Phase&&) = delete;
    ~Phase();

private:
    std::string m_name;
};

// Throws unless --model names an existing file (predict needs a trained model).
void require_model(const Options& o, std::string_view workload);

// Saves the weights (as CPU tensors) atomically: written beside, then renamed,
// so a run killed while saving leaves the previous epoch's file intact.
template <class Module>
void save_model(Module& model, const std::filesystem::path& path, torch::Device device) {
    model->to(torch::kCPU);
    auto partial = path;
    partial += ".partial";
    torch::save(model, partial.string());
    std::filesystem::rename(partial, path);
    model->to(device);
}

// Writes the figures as JSON when --metrics was given (throws on failure).
void write_metrics(const Options& o, const nlohmann::json& figures);

// Batches in an epoch of n items: n / batch (drop_last), capped by --limit-batches.
[[nodiscard]] std::int64_t batches_of(std::int64_t n, const Options& o);

[[nodiscard]] double seconds_since(std::chrono::steady_clock::time_point t0);

} // namespace jp::workload
