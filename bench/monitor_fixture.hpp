// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The monitor as `jouleprof run` assembles it, for the CPU benchmarks: the real sampler and
// trace writer over a fake tree (bench/fake_node.hpp), one run begun and ended by the caller.
#include "cli/recorder.hpp"
#include "core/clock.hpp"
#include "sensors/registry.hpp"
#include "trace/writer.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <memory>
#include <string>

namespace jp::bench {

// CPU time of each of the process's threads by name (the kernel's exact
// per-thread run time, /proc/self/task/TID/schedstat, in ns).
inline std::map<std::string, double> thread_cpu() {
    std::map<std::string, double> by_name;
    for (const auto& task : std::filesystem::directory_iterator{"/proc/self/task"}) {
        std::ifstream comm{task.path() / "comm"};
        std::ifstream stat{task.path() / "schedstat"};
        std::string name;
        double ns = 0;
        if (std::getline(comm, name) && (stat >> ns)) {
            by_name[name] += ns * 1e-9;
        }
    }
    return by_name;
}

class Monitor {
public:
    Monitor(const std::filesystem::path& root, Nanos interval) {
        auto found = sensors::discover_all(sensors::Host::with_root(root));
        auto table = sensors::channel_table(found.sensors);
        m_trace = root / fmt::format("bench-{}-{}.jptrace", interval.count(), mono_ns());
        auto writer = trace::Writer::create(m_trace, {});
        if (!writer || !writer->add_channels(table)) {
            std::fprintf(stderr, "cannot create %s\n", m_trace.c_str());
            std::exit(1);
        }
        m_channels = table.size();
        m_sampler = std::make_unique<Sampler>(std::move(found.sensors), std::move(table),
                                              SamplerConfig{interval, {}}, mono_ns());
        m_recorder = std::make_unique<cli::Recorder>(std::move(*writer), *m_sampler);
        m_recorder->begin_run(m_run);
    }
    Monitor(const Monitor&) = delete;
    Monitor& operator=(const Monitor&) = delete;
    Monitor(Monitor&&) = delete;
    Monitor& operator=(Monitor&&) = delete;
    ~Monitor() {
        m_recorder.reset();
        m_sampler.reset();
        std::error_code ec;
        std::filesystem::remove(m_trace, ec);
    }

    // The start edge, then the sampling threads.
    void begin() { (void)m_sampler->begin(m_run.id); }
    // The end edge, and everything recorded written.
    void end() {
        (void)m_sampler->end();
        m_recorder->flush();
    }
    [[nodiscard]] Sampler& sampler() noexcept { return *m_sampler; }
    [[nodiscard]] std::size_t channels() const noexcept { return m_channels; }

private:
    std::filesystem::path m_trace;
    std::size_t m_channels = 0;
    std::unique_ptr<Sampler> m_sampler;
    std::unique_ptr<cli::Recorder> m_recorder;
    trace::RunInfo m_run;
};

} // namespace jp::bench
