#pragma once
// Helpers for tests that load a stand-in vendor library (tests/stubs/fake_*): a fixture file
// named by an environment variable, and brackets around the stub's own clock.
#include "core/clock.hpp"
#include "sensors/sensor.hpp"

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
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

inline std::vector<sensors::Value>
read_timed(sensors::Sensor& s, const StubTime& origin, StubTime& when) {
    std::vector<sensors::Value> v(s.channels().size());
    const double before = mono_seconds();
    s.read(v);
    const double after = mono_seconds();
    when = {before - origin.hi, after - origin.lo};
    return v;
}

} // namespace jp::test
