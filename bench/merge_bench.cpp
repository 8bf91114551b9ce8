// SPDX-License-Identifier: BSD-3-Clause
// How long `jouleprof merge` takes, and how much memory, for a job's node
// traces: N nodes × H hours at 2 Hz (synthetic: 2 CPU packages, 2 DRAM, the
// node meter; a phase marked on every node; clocks a few ms apart), written
// once with the real trace writer and reused from the temp dir after that.
//   jp_bench_merge [NODES] [HOURS]        (default 1000 nodes, 1 h)
// Prints the time to merge and the peak RSS after merging a tenth of the
// nodes and then all of them: memory bounded by the job, not the node count.
#include "report/job/format.hpp"
#include "report/job/job.hpp"
#include "trace/writer.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
constexpr std::int64_t k_step_ns = 500'000'000; // 2 Hz
constexpr std::int64_t k_wall = 1'790'000'000'000'000'000;

double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

double peak_rss_mib() {
    rusage ru{};
    ::getrusage(RUSAGE_SELF, &ru);
    return static_cast<double>(ru.ru_maxrss) / 1024.0;
}

void die(const std::string& what) {
    std::fprintf(stderr, "jp_bench_merge: %s\n", what.c_str());
    std::exit(1);
}

jp::Channel chan(std::string name, jp::Domain d) {
    jp::Channel c;
    c.name = std::move(name);
    c.domain = d;
    c.quantity = jp::Quantity::energy;
    c.backend = "bench";
    return c;
}

void write_node(const fs::path& path, int node, int nodes, double hours) {
    const std::int64_t offset = (node % 7 - 3) * 1'000'000; // ±3 ms clocks
    auto w = jp::trace::Writer::create(
        path, {{"epoch_wall_ns", std::to_string(k_wall + offset + (node % 5) * 20'000'000)},
               {"clock.offset_ns", std::to_string(offset)},
               {"clock.offset_error_ns", "2000000"},
               {"interval_ns", std::to_string(k_step_ns)},
               {"slurm.job_id", "9000"},
               {"slurm.step", "9000.0"},
               {"slurm.node", fmt::format("node{:04}", node)},
               {"slurm.node_id", std::to_string(node)},
               {"slurm.nnodes", std::to_string(nodes)}});
    if (!w) {
        die(w.error().message());
    }
    const std::vector<jp::Channel> chans{
        chan("node", jp::Domain::node), chan("cpu0.package", jp::Domain::cpu_package),
        chan("cpu1.package", jp::Domain::cpu_package), chan("cpu0.dram", jp::Domain::dram),
        chan("cpu1.dram", jp::Domain::dram)};
    if (!w->add_channels(chans)) {
        die("cannot add channels");
    }
    jp::trace::RunInfo run;
    run.label = "slurm";
    run.command = "slurm step 9000.0";
    auto id = w->begin_run(run);
    if (!id) {
        die(id.error().message());
    }
    run.id = *id;
    const auto ticks = static_cast<std::int64_t>(hours * 7200);
    std::vector<double> energy(chans.size(), 0.0);
    std::vector<jp::trace::SampleRecord> batch;
    for (std::int64_t k = 0; k <= ticks; ++k) {
        const double t = static_cast<double>(k) * 0.5;
        const double load = 0.8 + 0.15 * std::sin(t / 300 + node);
        const double pkg = 110 + 120 * load;
        const double dram = 25 + 15 * load;
        const double parts[] = {2 * pkg + 2 * dram + 300, pkg, pkg, dram, dram};
        for (std::size_t i = 0; i < chans.size(); ++i) {
            energy[i] += k > 0 ? parts[i] * 0.5 : 0.0;
            batch.push_back({static_cast<std::int32_t>(i), 0, k * k_step_ns, energy[i]});
        }
    }
    const std::int64_t end = ticks * k_step_ns;
    if (!w->append(batch, run.id) || !w->add_marker({run.id, end / 10, "begin", "compute"}) ||
        !w->add_marker({run.id, end * 9 / 10, "end", "compute"})) {
        die("cannot write samples");
    }
    run.end_ns = end;
    run.status = "complete";
    run.exit_code = 0;
    if (!w->end_run(run) || !w->set_meta("bench.complete", "1") || !w->commit()) {
        die("cannot finish the trace");
    }
}

bool complete(const fs::path& path) {
    auto r = jp::trace::Reader::open(path);
    return r && r->meta().contains("bench.complete");
}

void merge(const std::vector<fs::path>& traces, const char* what) {
    const auto t0 = Clock::now();
    auto job = jp::report::job::merge_nodes(traces);
    const double s = seconds_since(t0);
    if (!job) {
        die(job.error().message());
    }
    std::printf("merged %s: %zu nodes in %.2f s (%.1f ms per node); job %.1f MJ, peak %.1f kW; "
                "peak RSS so far %.1f MiB\n",
                what, job->nodes.size(), s, 1e3 * s / static_cast<double>(traces.size()),
                job->energy_j * 1e-6, job->peak_w.value_or(0) * 1e-3, peak_rss_mib());
}

} // namespace

int main(int argc, char** argv) {
    const int nodes = argc > 1 ? std::atoi(argv[1]) : 1000;
    const double hours = argc > 2 ? std::atof(argv[2]) : 1.0;
    if (nodes < 10 || !(hours > 0)) {
        die("usage: jp_bench_merge [NODES >= 10] [HOURS > 0]");
    }
    const char* tmp = std::getenv("TMPDIR");
    const fs::path dir = fs::path{tmp != nullptr ? tmp : "/tmp"} /
                         fmt::format("jp-merge-bench-{}n-{}h", nodes, hours);
    fs::create_directories(dir);
    std::vector<fs::path> traces;
    for (int n = 0; n < nodes; ++n) {
        traces.push_back(dir / fmt::format("node{:04}.jptrace", n));
    }
    // Written by a child, so that the writer's memory is not in this process's peak.
    const auto t0 = Clock::now();
    const pid_t child = ::fork();
    if (child == 0) {
        for (int n = 0; n < nodes; ++n) {
            const auto& path = traces[static_cast<std::size_t>(n)];
            if (!complete(path)) {
                for (const char* suffix : {"", "-wal", "-shm"}) {
                    fs::remove(fs::path{path} += suffix);
                }
                write_node(path, n, nodes, hours);
            }
        }
        std::_Exit(0);
    }
    int status = 0;
    if (child < 0 || ::waitpid(child, &status, 0) != child || status != 0) {
        die("writing the node traces failed");
    }
    std::printf("%d node traces of %.2f h at 2 Hz, 5 channels, in %s (ready after %.1f s)\n", nodes,
                hours, dir.c_str(), seconds_since(t0));
    std::printf("peak RSS before merging: %.1f MiB\n", peak_rss_mib());
    const std::vector<fs::path> tenth(traces.begin(), traces.begin() + nodes / 10);
    merge(tenth, "a tenth");
    merge(traces, "all");
    return 0;
}
