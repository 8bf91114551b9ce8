// SPDX-License-Identifier: BSD-3-Clause
// jouleprof-workload: the study's two reference jobs (docs/workloads.md).
//   jouleprof-workload energy-lstm train|predict [options]
//   jouleprof-workload health-vgg  train|predict|synth [options]
#include "data/covidx.hpp"
#include "workloads.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <functional>

namespace {

using jp::workload::Options;

void add_options(CLI::App& cmd, Options& o, bool train) {
    cmd.add_option("--data", o.data,
                   "Input data; 'builtin' or none: the built-in synthetic set (docs/workloads.md)")
        ->check(CLI::ExistingPath | CLI::IsMember({"builtin"}))
        ->each([&o](const std::string& v) {
            if (v == "builtin") {
                o.data.clear();
            }
        });
    cmd.add_option("--model", o.model, "Weights file (train writes it, predict reads it)");
    cmd.add_option("--metrics", o.metrics, "Also write the run's figures to this JSON file");
    cmd.add_option("--limit-batches", o.limit_batches,
                   "At most this many batches per epoch and per evaluation (0: all)")
        ->check(CLI::NonNegativeNumber);
    cmd.add_option("--batch-size", o.batch_size, "Batch size (the study: 64)")
        ->check(CLI::PositiveNumber);
    cmd.add_option("--threads", o.threads, "CPU threads (0: every core)")
        ->check(CLI::NonNegativeNumber);
    cmd.add_option("--device", o.device, "cpu or cuda")->check(CLI::IsMember({"cpu", "cuda"}));
    cmd.add_option("--seed", o.seed, "Seed of every random choice");
    cmd.add_option("--synthetic-count", o.synthetic_count,
                   "Size of the built-in synthetic data (countries, or training images)")
        ->check(CLI::PositiveNumber);
    if (train) {
        cmd.add_option("--epochs", o.epochs, "Epochs (default: the study's, 30 or 250)")
            ->check(CLI::PositiveNumber);
    } else {
        cmd.add_option("--repeat-data", o.repeat_data,
                       "Use the test data this many times (the study: 5 for energy, 10 for "
                       "health)")
            ->check(CLI::PositiveNumber);
    }
}

int run_guarded(const std::function<int()>& job) {
    try {
        return job();
    } catch (const c10::Error& e) {
        std::fprintf(stderr, "jouleprof-workload: %s\n", e.what_without_backtrace());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "jouleprof-workload: %s\n", e.what());
    }
    return 1;
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"The study's reference AI jobs, marking their phases for jouleprof"};
    app.require_subcommand(1);
    Options o;
    std::function<int()> job;
    std::filesystem::path synth_out; // health-vgg synth
    std::size_t synth_count = 64;
    struct Mode {
        const char* workload;
        const char* mode;
        int (*run)(const Options&);
    };
    for (const char* workload : {"energy-lstm", "health-vgg"}) {
        auto* w = app.add_subcommand(workload, std::string{workload} == "energy-lstm"
                                                   ? "LSTM 7-day electricity load forecast"
                                                   : "VGG-19-BN chest x-ray classifier");
        w->require_subcommand(1);
        const bool energy = std::string{workload} == "energy-lstm";
        for (const Mode& m :
             {Mode{workload, "train",
                   energy ? jp::workload::energy_lstm_train : jp::workload::health_vgg_train},
              Mode{workload, "predict",
                   energy ? jp::workload::energy_lstm_predict
                          : jp::workload::health_vgg_predict}}) {
            auto* cmd = w->add_subcommand(m.mode, std::string{m.mode} == "train"
                                                      ? "Train and save the model"
                                                      : "Run the trained model on the test data");
            add_options(*cmd, o, std::string{m.mode} == "train");
            cmd->callback([&o, &job, m] {
                if (o.model.empty()) {
                    o.model = std::string{m.workload} + ".pt";
                }
                job = [&o, m] { return m.run(o); };
            });
        }
        if (!energy) {
            auto* synth =
                w->add_subcommand("synth", "Write the synthetic images as a "
                                           "COVIDx-style folder (train/valid/test.csv, imgs/)");
            synth->add_option("--out", synth_out, "Folder to write")->required();
            synth->add_option("--count", synth_count, "Training images (valid/test get a quarter)")
                ->check(CLI::PositiveNumber);
            synth->add_option("--seed", o.seed, "Seed");
            synth->callback([&] {
                job = [&] {
                    if (auto r =
                            jp::workload::write_synthetic_covidx(synth_out, synth_count, o.seed);
                        !r) {
                        throw std::runtime_error(r.error().message());
                    }
                    std::printf("wrote %zu training images and their valid/test sets to %s\n",
                                synth_count, synth_out.c_str());
                    return 0;
                };
            });
        }
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    }
    return run_guarded(job);
}
