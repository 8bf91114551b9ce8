// SPDX-License-Identifier: BSD-3-Clause
// How long the summary and the HTML report take on a day-long trace: 24 h at
// 10 Hz on 16 channels (about 13.8 million samples), written once with the
// real trace writer (one transaction) and reused from the temp dir after that.
//   jp_bench_report [HOURS] [--node-power] [--gpu-power]
// --node-power stores the node as a power channel (IPMI/Redfish style) rather
// than an energy counter; --gpu-power the GPUs (a GPU that gives power, not energy).
#include "report/html/data.hpp"
#include "report/html/report.hpp"
#include "report/summary.hpp"
#include "trace/writer.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <string>
#include <sys/resource.h>

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr std::int64_t k_step_ns = 100'000'000; // 10 Hz
constexpr int k_gpus = 8;

double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

jp::Channel
chan(std::string name, jp::Domain d, jp::Quantity q, jp::Provenance p = jp::Provenance::measured) {
    jp::Channel c;
    c.name = std::move(name);
    c.domain = d;
    c.quantity = q;
    c.provenance = p;
    c.backend = "bench";
    return c;
}

// 16 channels: node, 2 CPU packages with their cores (not summed), 2 DRAM,
// 8 GPUs, one estimated NIC.
struct Shape {
    bool node_power = false;
    bool gpu_power = false;
};

std::vector<jp::Channel> channels(Shape shape) {
    using jp::Domain;
    using jp::Quantity;
    std::vector<jp::Channel> c;
    c.push_back(chan("node", Domain::node, shape.node_power ? Quantity::power : Quantity::energy));
    for (int s = 0; s < 2; ++s) {
        c.push_back(chan(fmt::format("cpu{}.package", s), Domain::cpu_package, Quantity::energy));
        auto core = chan(fmt::format("cpu{}.core", s), Domain::cpu_core, Quantity::energy);
        core.counted = false;
        core.parent = fmt::format("cpu{}.package", s);
        c.push_back(core);
        c.push_back(chan(fmt::format("cpu{}.dram", s), Domain::dram, Quantity::energy));
    }
    for (int g = 0; g < k_gpus; ++g) {
        auto gpu = chan(fmt::format("gpu{}", g), Domain::gpu,
                        shape.gpu_power ? Quantity::power : Quantity::energy);
        gpu.limit_watts = 700;
        c.push_back(gpu);
    }
    c.push_back(chan("nic", Domain::other, Quantity::power, jp::Provenance::estimated));
    return c;
}

// Power of channel i at tick k: a training day with slow oscillation, noise
// and a rare spike.
class Model {
public:
    double watts(std::size_t i, std::int64_t k, const std::vector<jp::Channel>& c) {
        const double t = static_cast<double>(k) * 0.1;
        const double load = t < 20 * 3600 ? 0.85 + 0.1 * std::sin(t / 600) : 0.45;
        const double n = noise();
        const auto& ch = c[i];
        if (ch.domain == jp::Domain::gpu) {
            return 90 + 560 * load + 20 * n + (k % 360'007 == 0 ? 250 : 0);
        }
        if (ch.domain == jp::Domain::cpu_package) {
            return 120 + 110 * load + 8 * n;
        }
        if (ch.domain == jp::Domain::cpu_core) {
            return 80 + 100 * load + 6 * n;
        }
        if (ch.domain == jp::Domain::dram) {
            return 30 + 15 * load + 2 * n;
        }
        if (ch.domain == jp::Domain::other) {
            return 25;
        }
        // node: the parts plus fans, PSU losses and the rest
        return k_gpus * (90 + 560 * load) + 2 * (120 + 110 * load) + 2 * (30 + 15 * load) + 25 +
               650 + 40 * n + (k % 360'007 == 0 ? 250 : 0);
    }

private:
    double noise() { // xorshift in [-1, 1]
        m_x ^= m_x << 13U;
        m_x ^= m_x >> 7U;
        m_x ^= m_x << 17U;
        return static_cast<double>(m_x >> 11U) / static_cast<double>(1ULL << 53U) * 2 - 1;
    }
    std::uint64_t m_x = 88172645463325252ULL;
};

void die(const std::string& what) {
    std::fprintf(stderr, "jp_bench_report: %s\n", what.c_str());
    std::exit(1);
}

bool complete(const fs::path& path) {
    auto r = jp::trace::Reader::open(path);
    return r && r->meta().contains("bench.complete");
}

void build(const fs::path& path, double hours, Shape shape) {
    for (const char* suffix : {"", "-wal", "-shm"}) {
        fs::remove(fs::path{path} += suffix);
    }
    auto w = jp::trace::Writer::create(path, {{"host", "bench"},
                                              {"interval_ns", std::to_string(k_step_ns)},
                                              {"node.rated_watts", "7500"},
                                              {"epoch_utc", "2026-11-22T00:00:00Z"}});
    if (!w) {
        die(w.error().message());
    }
    const auto chans = channels(shape);
    if (!w->add_channels(chans)) {
        die("cannot add channels");
    }
    jp::trace::RunInfo run;
    run.label = "train-24h";
    run.command = "python train.py --epochs 90";
    run.repeat = 1;
    run.start_utc = "2026-11-22T00:00:00Z";
    auto id = w->begin_run(run);
    if (!id) {
        die(id.error().message());
    }
    run.id = *id;
    const auto ticks = static_cast<std::int64_t>(hours * 36'000);
    std::vector<double> energy(chans.size(), 0.0);
    std::vector<jp::trace::SampleRecord> batch;
    batch.reserve(16 * 10'000);
    Model model;
    for (std::int64_t k = 0; k <= ticks; ++k) {
        for (std::size_t i = 0; i < chans.size(); ++i) {
            const double p = model.watts(i, k, chans);
            double v = p;
            if (chans[i].quantity == jp::Quantity::energy) {
                energy[i] += k > 0 ? p * 0.1 : 0.0;
                v = energy[i];
            }
            batch.push_back({static_cast<std::int32_t>(i), 0, k * k_step_ns, v});
        }
        if (batch.size() >= 16 * 10'000) {
            if (!w->append(batch, run.id)) {
                die("append failed");
            }
            batch.clear();
        }
    }
    if (!w->append(batch, run.id)) {
        die("append failed");
    }
    const std::int64_t end = ticks * k_step_ns;
    const std::int64_t split = end * 5 / 6;
    std::vector<jp::trace::Marker> marks{{run.id, 0, "begin", "training"},
                                         {run.id, split, "end", "training"},
                                         {run.id, split, "begin", "evaluation"},
                                         {run.id, end, "end", "evaluation"}};
    for (std::int64_t h = 1; h < static_cast<std::int64_t>(hours); ++h) {
        marks.push_back({run.id, h * 3600 * 1'000'000'000LL, "point", fmt::format("ckpt {}", h)});
    }
    for (const auto& m : marks) {
        if (!w->add_marker(m)) {
            die("marker failed");
        }
    }
    run.end_ns = end;
    run.status = "complete";
    run.exit_code = 0;
    if (!w->end_run(run) || !w->set_meta("bench.complete", "1") || !w->commit()) {
        die("cannot finish the trace");
    }
}

} // namespace

int main(int argc, char** argv) {
    double hours = 24;
    Shape shape;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--node-power") == 0) {
            shape.node_power = true;
        } else if (std::strcmp(argv[i], "--gpu-power") == 0) {
            shape.gpu_power = true;
        } else {
            hours = std::atof(argv[i]);
        }
    }
    if (!(hours > 0)) {
        die("usage: jp_bench_report [HOURS] [--node-power] [--gpu-power]");
    }
    const auto dir = fs::temp_directory_path();
    const auto trace = dir / fmt::format("jp-report-bench-{:g}h-10hz-16ch{}{}.jptrace", hours,
                                         shape.node_power ? "-node-power" : "",
                                         shape.gpu_power ? "-gpu-power" : "");
    const auto html = dir / "jp-report-bench.html";
    if (complete(trace)) {
        std::printf("reusing %s (%.0f MB)\n", trace.c_str(),
                    static_cast<double>(fs::file_size(trace)) / 1e6);
    } else {
        const auto t0 = Clock::now();
        build(trace, hours, shape);
        std::printf("wrote %s: %.0f MB in %.1f s\n", trace.c_str(),
                    static_cast<double>(fs::file_size(trace)) / 1e6, seconds_since(t0));
    }
    const auto samples = (static_cast<std::int64_t>(hours * 36'000) + 1) * 16;
    std::printf("trace: %g h at 10 Hz, 16 channels (node as %s, GPUs as %s) = %.1f M samples\n",
                hours, shape.node_power ? "power" : "energy counter",
                shape.gpu_power ? "power" : "energy counters", static_cast<double>(samples) / 1e6);

    auto t0 = Clock::now();
    auto reader = jp::trace::Reader::open(trace);
    if (!reader) {
        die(reader.error().message());
    }
    auto groups = jp::report::summarize_trace(*reader);
    if (!groups) {
        die(groups.error().message());
    }
    const double summary_s = seconds_since(t0);
    std::printf("summarize_trace:   %7.2f s  (node %.1f kJ over %.0f s)\n", summary_s,
                groups->front().node_energy_j.mean * 1e-3, groups->front().runtime_s.mean);

    t0 = Clock::now();
    auto profiles = jp::report::html::load_profiles(*reader, {&reader->runs().front(), 1}, {});
    if (!profiles) {
        die(profiles.error().message());
    }
    std::printf(
        "load_profiles:     %7.2f s  (the HTML's own reading and drawing data: one pass over "
        "the samples, grids, decimation to %d columns, distribution)\n",
        seconds_since(t0), jp::report::html::ProfileOptions{}.columns);

    t0 = Clock::now();
    jp::report::HtmlOptions ho;
    ho.force = true; // the benchmark's own output of an earlier run
    auto r = jp::report::write_html_report({trace}, html, ho);
    if (!r) {
        die(r.error().message());
    }
    const double html_s = seconds_since(t0);
    std::printf("write_html_report: %7.2f s  (%s, %.0f kB; includes its own summarize_trace)\n",
                html_s, html.c_str(), static_cast<double>(fs::file_size(html)) / 1e3);
    rusage ru{};
    ::getrusage(RUSAGE_SELF, &ru);
    std::printf("peak RSS: %.0f MB\n", static_cast<double>(ru.ru_maxrss) / 1e3);
    return 0;
}
