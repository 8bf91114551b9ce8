// SPDX-License-Identifier: BSD-3-Clause
// Where a job's node traces are, and waiting for the last nodes to close theirs.
#include "report/job/detail.hpp"

#include <algorithm>
#include <set>
#include <thread>

namespace jp::report::job {
namespace {

bool is_trace(const std::filesystem::directory_entry& e) {
    std::error_code ec;
    return e.path().extension() == ".jptrace" && e.is_regular_file(ec);
}

Result<std::vector<std::filesystem::path>> list(const std::filesystem::path& dir, bool dirs) {
    std::error_code ec;
    std::filesystem::directory_iterator it(dir, ec);
    if (ec) {
        return std::unexpected(errno_error(ec.value(), dir.string()));
    }
    std::vector<std::filesystem::path> out;
    for (const auto& e : it) {
        std::error_code ec2;
        if (dirs ? e.is_directory(ec2) : is_trace(e)) {
            out.push_back(e.path());
        }
    }
    std::ranges::sort(out);
    return out;
}

// A trace still open whose monitor died: neither it nor its write-ahead log
// has changed for 5 s or three sampling intervals (a live monitor commits
// every 500 ms).
bool stalled(const std::filesystem::path& path, const trace::Reader& r) {
    const std::int64_t interval_ns = meta_int(r, "interval_ns").value_or(0);
    const auto quiet = std::max<std::chrono::nanoseconds>(
        std::chrono::seconds{5}, std::chrono::nanoseconds{3 * interval_ns});
    auto newest = std::filesystem::file_time_type::min();
    for (const auto& p : {path, std::filesystem::path{path.string() + "-wal"}}) {
        std::error_code ec;
        const auto t = std::filesystem::last_write_time(p, ec);
        if (!ec) {
            newest = std::max(newest, t);
        }
    }
    return std::filesystem::file_time_type::clock::now() - newest > quiet;
}

} // namespace

Result<std::vector<std::filesystem::path>> node_traces_in(const std::filesystem::path& dir) {
    return list(dir, false);
}

Result<std::vector<std::filesystem::path>> step_dirs_in(const std::filesystem::path& dir) {
    auto here = node_traces_in(dir);
    if (!here) {
        return std::unexpected(here.error());
    }
    if (!here->empty()) {
        return std::vector<std::filesystem::path>{dir};
    }
    auto subdirs = list(dir, true);
    if (!subdirs) {
        return std::unexpected(subdirs.error());
    }
    std::vector<std::filesystem::path> out;
    for (const auto& d : *subdirs) {
        if (auto t = node_traces_in(d); t && !t->empty()) {
            out.push_back(d);
        }
    }
    if (out.empty()) {
        return fail(ErrorKind::config, dir.string(),
                    "holds no node traces (*.jptrace), neither itself nor its subdirectories");
    }
    return out;
}

bool recorded_for_a_node(const std::filesystem::path& trace) {
    const auto r = trace::Reader::open(trace);
    if (!r) {
        return true;
    }
    return std::ranges::any_of(r->meta(), [](const auto& kv) {
        return kv.first == "recorded" || kv.first.starts_with("slurm.") ||
               kv.first.starts_with("clock.");
    });
}

bool wait_for_nodes(const std::filesystem::path& dir, Nanos timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    std::size_t expected = 1;
    std::set<std::filesystem::path> closed; // read once more never: a closed trace stays closed
    for (;;) {
        auto traces = node_traces_in(dir);
        for (const auto& path : traces ? *traces : std::vector<std::filesystem::path>{}) {
            if (closed.contains(path)) {
                continue;
            }
            auto r = trace::Reader::open(path);
            if (!r) {
                continue;
            }
            if (const auto n = meta_int(*r, "slurm.nnodes"); n && *n > 0) {
                expected = std::max(expected, static_cast<std::size_t>(*n));
            }
            const bool ended = !r->runs().empty() && r->runs().back().end_ns &&
                               r->runs().back().status != "running";
            if (ended || stalled(path, *r)) {
                closed.insert(path);
            }
        }
        if (traces && closed.size() >= expected && closed.size() == traces->size()) {
            return true;
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds{100});
    }
}

} // namespace jp::report::job
