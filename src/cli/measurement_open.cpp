// SPDX-License-Identifier: BSD-3-Clause
// Opening a measurement session: the sensors found, the trace created, the sampler set up.
#include "cli/measurement.hpp"
#include "cli/measurement_state.hpp"
#include "cli/trace_location.hpp"
#include "core/clock.hpp"
#include "core/log.hpp"
#include "jp_version.hpp"
#include "report/timing.hpp"
#include "sensors/nvml/processes.hpp"
#include "sensors/registry.hpp"

#include <algorithm>
#include <cstdlib>
#include <fmt/format.h>
#include <set>
#include <unistd.h>

namespace jp::cli {
namespace {
using detail::Discovered;

std::map<std::string, std::string> trace_meta(const SessionOptions& o,
                                              const sensors::Host& host,
                                              const Config& config,
                                              const ClockAnchor& epoch) {
    char host_name[256] = {};
    ::gethostname(host_name, sizeof host_name - 1);
    char buf[32];
    std::map<std::string, std::string> meta{
        {"jouleprof_version", JP_VERSION},
        {"host", host_name},
        {"interval_ns", std::to_string(o.interval.count())},
        {"epoch_mono_ns", std::to_string(epoch.mono)},
        {"epoch_wall_ns", std::to_string(epoch.wall)},
        {"epoch_utc", std::string{format_utc(epoch.wall, buf)}},
        {"sysfs_root", host.sysfs_root.string()},
    };
    if (config.node.rest_watts) {
        meta["node.rest_watts"] = fmt::format("{}", *config.node.rest_watts);
    }
    if (config.node.rated_watts) {
        meta["node.rated_watts"] = fmt::format("{}", *config.node.rated_watts);
    }
    for (const auto& [key, value] : o.meta) {
        meta[key] = value;
    }
    return meta;
}

Discovered discover(const sensors::Host& host) {
    auto found = sensors::discover_all(host);
    for (const auto& note : found.notes) {
        JP_LOG_INFO("{}", note);
    }
    for (const auto& f : found.unreadable) {
        if (f.served_by.empty()) {
            JP_LOG_WARN("{}: {} cannot be read: {}{}{}", f.backend, f.what, f.reason,
                        f.hint.empty() ? "" : ". ", f.hint);
        } else {
            JP_LOG_INFO("{}: {} cannot be read ({}): {} serves it", f.backend, f.what, f.reason,
                        f.served_by);
        }
    }
    Discovered d;
    d.table = sensors::channel_table(found.sensors);
    d.sensors = std::move(found.sensors);
    d.idle = std::move(found.idle);
    d.ledger = std::move(found.ledger);
    for (const auto& c : d.table) {
        d.estimated = d.estimated || c.provenance == Provenance::estimated;
    }
    if (d.table.empty()) {
        JP_LOG_WARN("no sensor can be read on this node: the command runs unmeasured "
                    "(see `jouleprof sensors`)");
    }
    return d;
}

// The trace file where trace_location.hpp says.
Result<std::pair<trace::Writer, std::filesystem::path>>
create_trace(const std::filesystem::path& output, const std::map<std::string, std::string>& meta) {
    auto path = trace_path_for(output, [](const char* name) -> std::optional<std::string> {
        const char* v = std::getenv(name);
        return v != nullptr ? std::optional<std::string>{v} : std::nullopt;
    });
    if (!path) {
        return std::unexpected(path.error());
    }
    auto writer = trace::Writer::create(*path, meta);
    if (!writer) {
        return std::unexpected(writer.error());
    }
    return std::pair{std::move(*writer), std::move(*path)};
}

// Sampling a source faster than it updates gives no finer power: say so before the job runs,
// and say when a source is read less often than asked, and why.
void warn_oversampling(const Discovered& found, Nanos interval, const Config& config) {
    std::set<std::string> said;
    for (const auto& s : found.sensors) {
        if (s->min_interval_reason().empty() || s->min_interval() <= interval ||
            !said.insert(std::string{s->backend()}).second) {
            continue;
        }
        JP_LOG_WARN("{}: read every {}, not every {}: {}", s->backend(),
                    format_duration(s->min_interval()), format_duration(interval),
                    s->min_interval_reason());
    }
    said.clear();
    for (const auto& c : found.table) {
        const auto it = config.intervals.find(c.backend);
        const auto s = (it != config.intervals.end() ? it->second : interval).count();
        if (!c.update_ns || *c.update_ns <= s || !said.insert(c.backend).second) {
            continue;
        }
        JP_LOG_WARN("{} updates every {}: reading it every {} gives no finer power (its power "
                    "figures use spans of {} or more)",
                    c.backend, format_duration(Nanos{*c.update_ns}), format_duration(Nanos{s}),
                    format_duration(Nanos{report::resolution_for(c.quantity, s, *c.update_ns)}));
    }
}

// Who else has the GPUs a job holds (attrib/gpu_use.hpp), where NVML measures GPUs here.
void attach_gpu_processes(MeasurementSession::State& s, const sensors::Host& host) {
    const bool gpus = std::ranges::any_of(s.sampler.channels(),
                                          [](const Channel& c) { return c.domain == Domain::gpu; });
    if (!s.attribution || !gpus || !host.replay_trace.empty() ||
        (host.config != nullptr && host.config->disabled.contains("nvml"))) {
        return;
    }
    std::string why;
    if (auto p = sensors::nvml::Processes::open(host, why)) {
        auto shared = std::make_shared<const sensors::nvml::Processes>(std::move(*p));
        s.usage.gpu_processes = {[shared](int index) { return shared->pids(index); },
                                 shared->gpus()};
    }
}

} // namespace

Result<std::unique_ptr<MeasurementSession>>
MeasurementSession::open(SessionOptions o, const sensors::Host& host, const Config& config) {
    auto found = discover(host);
    warn_oversampling(found, o.interval, config);
    const auto epoch = ClockAnchor::now();
    auto trace = create_trace(o.output, trace_meta(o, host, config, epoch));
    if (!trace) {
        return std::unexpected(trace.error());
    }
    auto& [writer, path] = *trace;
    if (auto r = writer.add_channels(found.table); !r || !writer.commit()) {
        return std::unexpected(r ? Error{ErrorKind::io, path.string(), "cannot write the trace", {}}
                                 : r.error());
    }
    auto state = std::make_unique<State>(std::move(o), std::move(found), std::move(writer), path,
                                         epoch.mono, config);
    state->usage.sysfs_root = host.sysfs_root; // the CPU topology of the node measured
    state->usage.env = [](const char* name) -> std::optional<std::string> {
        const char* v = std::getenv(name); // the job gets the monitor's environment
        return v != nullptr ? std::optional<std::string>{v} : std::nullopt;
    };
    attach_gpu_processes(*state, host);
    if (state->sampler.set_drain_companion([s = state.get()](std::int64_t t) { s->on_drain(t); })) {
        state->drain_companion = true;
        state->recorder.paced_by_caller();
    }
    return std::unique_ptr<MeasurementSession>{new MeasurementSession{std::move(state)}};
}

} // namespace jp::cli
