// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What a trace holds, as plain data shared by the writer, the reader and reports.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace jp::trace {

inline constexpr int k_schema_version = 2; // 1: a row per sample (still read)

// Bits of sample.flags.
enum SampleFlag : std::uint8_t {
    k_flag_edge = 1,         // read at the job's exact start or end
    k_flag_jump = 2,         // an estimate: a counter jump, or a total not resolved since one
    k_flag_wrapped = 4,      // the counter wrapped before this reading and was unwrapped
    k_flag_interpolated = 8, // not read but interpolated (slow source at an edge)
    // Never stored: made by reports between an anchored counter's reads from its power
    // field (report/anchored.hpp), so its power is known as finely as the field's.
    k_flag_profiled = 16,
};

// One stored value. channel is the index into the trace's channel table.
// value: energy channels cumulative joules since the run began; power watts;
// utilisation percent. t_ns: nanoseconds since the trace epoch (monotonic).
struct SampleRecord {
    std::int32_t channel = 0;
    std::uint8_t flags = 0;
    std::int64_t t_ns = 0;
    double value = 0;
};

struct RunInfo {
    std::int64_t id = 0;
    std::string label;
    std::string kind = "measure"; // measure | warmup | baseline
    int repeat = 0;               // 1-based index among runs of its kind
    std::string command;
    std::int64_t start_ns = 0; // since the trace epoch
    std::optional<std::int64_t> end_ns;
    std::string start_utc;
    std::optional<int> exit_code;
    std::optional<int> signal;
    double monitor_cpu_s = 0;
    std::string status = "running"; // running | complete | failed
};

struct Marker {
    std::int64_t run_id = 0;
    std::int64_t t_ns = 0;
    std::string kind; // begin | end | point
    std::string name;
};

struct Event {
    std::int64_t run_id = 0;
    std::int32_t channel = -1; // -1: not tied to a channel
    std::int64_t t_ns = 0;
    std::string kind; // jump | wrap | gone | stuck | read_error | dropped
    std::string detail;
};

// CPU time for attributing a shared node's energy (docs/attribution.md): at t_ns,
// the CPU seconds since the run began on one CPU package, the job's and all busy time.
struct UsageRecord {
    std::int64_t t_ns = 0;
    std::int32_t package = 0;
    double job_s = 0;
    double busy_s = 0;
};

// Who had a GPU the job holds at t_ns: its compute processes (NVML's list) counted as the
// job's, other processes', and unknown (a PID this node's /proc does not show: another PID
// namespace, or gone).
struct GpuUseRecord {
    std::int64_t t_ns = 0;
    std::int32_t gpu = 0; // the GPU's index (its channel gpuN)
    std::int32_t job = 0;
    std::int32_t other = 0;
    std::int32_t unknown = 0;
};

// A run's usage: what the job was given and how its use was read (JSON, written
// by attrib::Tracker and read by report/attribution.cpp), and its readings by time.
struct Usage {
    std::string facts;
    std::vector<UsageRecord> records;
    std::vector<GpuUseRecord> gpus; // by time; empty where no GPU's processes were listed
    bool gpus_damaged = false;      // gpu_use rows out of range or unreadable: none used
    bool damaged = false;           // a row out of range, too many rows, facts missing: not used
};

} // namespace jp::trace
