// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Helpers for tests that load a stand-in vendor library (tests/stubs/fake_*): a fixture file
// named by an environment variable, brackets around the stub's own clock, and checks on what
// discovery and a read gave. Used by the nvml and rocm_smi tests.
#include "core/clock.hpp"
#include "sensors/sensor.hpp"
#include "sys/dynamic_library.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <string>
#include <string_view>
#include <thread>
#include <unistd.h>
#include <vector>

namespace jp::test {

// Writes `text` to a fresh temporary file and points `env_var` at it; undone on destruction.
class StubFixture {
public:
    StubFixture(std::string env_var, const std::string& text) : m_env(std::move(env_var)) {
        static std::atomic<int> serial{0};
        m_path = std::filesystem::temp_directory_path() / ("jp-stub-" + std::to_string(::getpid()) +
                                                           "-" + std::to_string(serial++) + ".txt");
        std::ofstream{m_path} << text;
        ::setenv(m_env.c_str(), m_path.c_str(), 1);
    }
    StubFixture(const StubFixture&) = delete;
    StubFixture& operator=(const StubFixture&) = delete;
    ~StubFixture() {
        ::unsetenv(m_env.c_str());
        std::error_code ec;
        std::filesystem::remove(m_path, ec);
    }

private:
    std::string m_env;
    std::filesystem::path m_path;
};

inline double mono_seconds() {
    return static_cast<double>(mono_ns()) * 1e-9;
}

// The stub's clock starts at its init call, made somewhere inside discover(); a reading is
// taken somewhere inside read(). Bracketing both gives the range of stub times a reading
// can stand for, so tests check exact ground truth without guessing at scheduling delays.
struct StubTime {
    double lo = 0; // earliest stub time, seconds
    double hi = 0; // latest stub time, seconds
};

template <class Discover> auto discover_timed(Discover&& discover, StubTime& origin) {
    origin.lo = mono_seconds();
    auto d = discover();
    origin.hi = mono_seconds();
    return d;
}

// discover() run with `fixture` in the stub's fixture file (named by `env_var`, gone again
// afterwards), bracketing the stub's clock origin.
template <class Discover>
sensors::Discovery discover_with(std::string env_var,
                                 const std::string& fixture,
                                 Discover&& discover,
                                 StubTime& origin) {
    const StubFixture fx{std::move(env_var), fixture};
    return discover_timed(discover, origin);
}

inline std::vector<sensors::Value>
read_timed(sensors::Sensor& s, const StubTime& origin, StubTime& when) {
    std::vector<sensors::Value> v(s.channels().size());
    const double before = mono_seconds();
    s.read(v);
    const double after = mono_seconds();
    when = {before - origin.hi, after - origin.lo};
    return v;
}

// Whether some note of `d` contains `text`; on failure, the notes there were.
inline ::testing::AssertionResult has_note(const sensors::Discovery& d, std::string_view text) {
    if (std::ranges::any_of(d.notes, [&](const auto& n) { return n.find(text) != n.npos; })) {
        return ::testing::AssertionSuccess();
    }
    return ::testing::AssertionFailure()
           << "no note has \"" << text << "\" in " << ::testing::PrintToString(d.notes);
}

// One read of every channel of `s`.
inline std::vector<sensors::Value> read_once(sensors::Sensor& s) {
    std::vector<sensors::Value> v(s.channels().size());
    s.read(v);
    return v;
}

// Whether a reading succeeded with `expected` (a value the stub plays unchanged), to within
// EXPECT_DOUBLE_EQ's 4 ULPs.
inline ::testing::AssertionResult reads_ok(const sensors::Value& v, double expected) {
    if (v.status == sensors::ReadStatus::ok &&
        ::testing::Matches(::testing::DoubleEq(expected))(v.value)) {
        return ::testing::AssertionSuccess();
    }
    return ::testing::AssertionFailure() << "read " << v.value << " with status "
                                         << static_cast<int>(v.status) << ", not ok " << expected;
}

// The stub's count of init calls not yet matched by a shutdown, from its test hook.
inline int stub_sessions(const sys::DynamicLibrary& stub, const char* hook) {
    return (*stub.symbol<int (*)()>(hook))();
}

// For a discovery of two GPUs: the stub's session count is 1 (one session shared by every
// GPU) while either sensor lives, and 0 once the last one is gone.
inline void expect_one_session_until_the_last_sensor_goes(sensors::Discovery& d,
                                                          const sys::DynamicLibrary& stub,
                                                          const char* hook) {
    ASSERT_EQ(d.sensors.size(), 2U);
    EXPECT_EQ(stub_sessions(stub, hook), 1) << "one session shared by every GPU";
    d.sensors.erase(d.sensors.begin());
    EXPECT_EQ(stub_sessions(stub, hook), 1);
    d.sensors.clear();
    EXPECT_EQ(stub_sessions(stub, hook), 0);
}

// What a GPU's sensor should offer: "gpu0" (energy) and "gpu0.util".
struct EnergyAndUtil {
    std::string_view backend;
    std::string_view source;
    std::string_view device;
    double limit_watts = 0;
    double util = 0; // what "gpu0.util" reads
};

inline void expect_energy_and_util(sensors::Sensor& s, const EnergyAndUtil& want) {
    auto ch = s.channels();
    ASSERT_EQ(ch.size(), 2U);
    EXPECT_EQ(ch[0].name, "gpu0");
    EXPECT_EQ(ch[0].domain, Domain::gpu);
    EXPECT_EQ(ch[0].quantity, Quantity::energy);
    EXPECT_EQ(ch[0].provenance, Provenance::measured);
    EXPECT_EQ(ch[0].backend, want.backend);
    EXPECT_EQ(ch[0].source, want.source);
    EXPECT_EQ(ch[0].device, want.device);
    EXPECT_FALSE(ch[0].wrap_joules) << "a 64-bit counter does not wrap";
    EXPECT_DOUBLE_EQ(ch[0].limit_watts.value_or(0), want.limit_watts);
    EXPECT_TRUE(ch[0].counted);
    EXPECT_EQ(ch[1].name, "gpu0.util");
    EXPECT_EQ(ch[1].quantity, Quantity::utilization);
    EXPECT_EQ(ch[1].domain, Domain::gpu);
    EXPECT_FALSE(ch[1].counted);
    EXPECT_EQ(ch[1].device, ch[0].device);
    EXPECT_TRUE(reads_ok(read_once(s)[1], want.util));
}

// `lost` (power and utilisation) and `flaky` (power) are GPUs the stub fails from 0.1 s to
// 0.25 s after init: `lost` with a code that means gone, `flaky` with one that means retry.
// Before, both read ok; during, every channel of `lost` is gone and `flaky` retries; after,
// `lost` stays gone (`why`) while `flaky` reads again.
inline void expect_gone_sticks_while_retry_recovers(sensors::Sensor& lost,
                                                    sensors::Sensor& flaky,
                                                    const char* why) {
    using namespace std::chrono_literals;
    using sensors::ReadStatus;
    std::vector<sensors::Value> v(2);
    std::vector<sensors::Value> w(1);
    lost.read(v);
    flaky.read(w);
    EXPECT_EQ(v[0].status, ReadStatus::ok);
    EXPECT_EQ(w[0].status, ReadStatus::ok);
    std::this_thread::sleep_for(150ms);
    lost.read(v);
    flaky.read(w);
    EXPECT_EQ(v[0].status, ReadStatus::gone);
    EXPECT_EQ(v[1].status, ReadStatus::gone) << "the whole GPU is gone";
    EXPECT_EQ(w[0].status, ReadStatus::retry);
    std::this_thread::sleep_for(150ms); // the stub answers again
    lost.read(v);
    flaky.read(w);
    EXPECT_EQ(v[0].status, ReadStatus::gone) << why;
    EXPECT_EQ(w[0].status, ReadStatus::ok);
}

} // namespace jp::test
