// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The sensor interface: discovery (what exists) is separate from read (the hot loop).
#include "core/channel.hpp"
#include "core/duration.hpp"
#include "daemon_client/ledger_reply.hpp"
#include "sensors/host.hpp"

#include <chrono>
#include <cstdint>
#include <expected>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace jp::sensors {

// How a read went, per channel: retry (transient, e.g. EAGAIN, a torn
// snapshot), gone (device or zone removed), fatal (stop this channel).
enum class ReadStatus : std::uint8_t { ok, retry, gone, fatal };

struct Value {
    Value() = default;
    constexpr Value(double v, ReadStatus s, std::int64_t t = 0) noexcept
        : value(v), status(s), t_mono_ns(t) {}

    double value = 0;
    ReadStatus status = ReadStatus::fatal;
    // When the source measured the value (CLOCK_MONOTONIC ns), for sources that
    // say so (a daemon's readings); 0: at the read itself.
    std::int64_t t_mono_ns = 0;
    // For a value with its own time: the longest read call its source has made for it
    // (a daemon's own sampler's), as t_mono_ns is that call's middle; 0: not known.
    std::int64_t call_ns = 0;
};

// A reading a source took on its own (the eBPF kernel sampler's), handed over by drain():
// value.t_mono_ns says when.
struct Stamped {
    std::uint32_t channel = 0; // index in channels()
    Value value;
};

class Sensor {
public:
    Sensor() = default;
    Sensor(const Sensor&) = delete;
    Sensor& operator=(const Sensor&) = delete;
    Sensor(Sensor&&) = delete;
    Sensor& operator=(Sensor&&) = delete;
    virtual ~Sensor() = default;

    [[nodiscard]] virtual std::string_view backend() const noexcept = 0;
    // Fixed after discovery.
    [[nodiscard]] virtual std::span<const Channel> channels() const noexcept = 0;
    // Reads every channel into out[i] for channels()[i] (out.size() == channels().size()).
    // Units: energy in joules as the raw counter (it may wrap; the sampler unwraps),
    // power in watts, utilisation in percent. Never throws, never allocates.
    virtual void read(std::span<Value> out) noexcept = 0;
    // The same at a job's start or end edge: as exact as the source allows
    // (jouleprofd reads its counters at that moment instead of streaming).
    virtual void read_edge(std::span<Value> out) noexcept { read(out); }
    // Called once before sampling starts with the interval read() will be
    // called at (a streaming source asks for that rate).
    virtual void prepare(Nanos /*interval*/) {}
    // A source that samples on its own and is drained (the eBPF kernel sampler, decided by
    // prepare()): the sampler calls drain() on a thread of its own every drain interval, and
    // read_edge() at the job's edges after a drain. Every other source is read.
    [[nodiscard]] virtual bool batched() const noexcept { return false; }
    // Appends every reading taken since the last call, each channel's in time order;
    // lost[i] (resized to channels().size()) gets how many of channel i's readings the source
    // could not keep since then (its buffer was full: a gap in the profile).
    virtual void drain(std::vector<Stamped>& /*out*/, std::vector<std::uint64_t>& lost) {
        lost.clear();
    }
    // Slow sources (BMC, sacct) are polled on their own thread.
    [[nodiscard]] virtual bool slow() const noexcept { return false; }
    // Read at the job's start and end edges as well (every fast source; a slow
    // one whose single read takes milliseconds, such as a BMC's energy counter,
    // so its figure covers exactly the job rather than stopping at the last poll).
    [[nodiscard]] virtual bool read_at_edges() const noexcept { return !slow(); }
    // Shortest useful interval (the source's own update period).
    [[nodiscard]] virtual Nanos min_interval() const noexcept {
        return std::chrono::milliseconds{1};
    }
    // Why min_interval() is what it is, for a source whose floor a user should be
    // told of when it raises the interval asked for (`run` says so); empty: not said.
    [[nodiscard]] virtual std::string_view min_interval_reason() const noexcept { return {}; }
};

// Something that exists but cannot be used, for `jouleprof sensors`.
struct Finding {
    Finding(std::string backend_,
            std::string what_,
            std::string reason_,
            std::string hint_ = {},
            std::string channel_ = {})
        : backend(std::move(backend_)), what(std::move(what_)), reason(std::move(reason_)),
          hint(std::move(hint_)), channel(std::move(channel_)) {}

    std::string backend;
    std::string what;      // "powercap zone intel-rapl:0 (package-0)"
    std::string reason;    // "energy_uj: Permission denied"
    std::string hint;      // what fixes it
    std::string channel;   // the channel it would have been ("cpu0.package"), when known
    std::string served_by; // another backend that serves that channel instead ("jouleprofd")
};

// A channel's idle power as a source learned it (jouleprofd, from its history).
struct LearnedIdle {
    double watts = 0;
    std::string how;      // "jouleprofd: the 5th percentile of 1 min means over up to 24 h"
    double history_s = 0; // what it was learned from
    // What it rests on (daemon/idle.hpp's IdleBasis: "quiet", "extrapolated", "busy",
    // "all"); empty where the source did not say.
    std::string basis;
};

// The ledger's view (grouped where groups are given: docs/daemon-protocol.md), or why the
// daemon could not give it (one line).
using LedgerQuery = std::function<std::expected<daemon::LedgerReply, std::string>(
    std::int64_t from_ns, std::int64_t to_ns, const daemon::LedgerGroups& groups)>;

struct Discovery {
    std::vector<std::unique_ptr<Sensor>> sensors;
    std::vector<Finding> unreadable;
    std::vector<std::string> notes; // why a backend found nothing ("libnvidia-ml.so.1 not found")
    // Why a backend that can sample its counters in the kernel reads them from the sampler's
    // timer instead ("[sensors.perf_rapl] kernel_sampling = false"); "" where it did not.
    std::string timer_instead;
    std::map<std::string, LearnedIdle> idle; // per channel name
    // jouleprofd's ledger for this process's session: which of its CPUs other jobs held too
    // over [from, to] (CLOCK_MONOTONIC ns, ours); empty where no daemon was reached.
    LedgerQuery ledger;
};

struct Backend {
    std::string_view name;
    std::string_view description;
    Discovery (*discover)(const Host& host);
    // A fallback (estimate) is used only for domains no measured channel covers.
    bool fallback = false;
    // Instead of discover: a backend that fills in what the channels found so
    // far do not cover (jouleprofd serves what this user cannot read).
    Discovery (*discover_beside)(const Host& host, const std::vector<Channel>& found) = nullptr;
};

} // namespace jp::sensors
