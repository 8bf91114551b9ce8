// SPDX-License-Identifier: BSD-3-Clause
// On a node with real sensors: every measured channel reads, energy counters
// rise at a plausible rate, power is plausible. Skipped where nothing is measured.
#include "core/clock.hpp"
#include "core/counter.hpp"
#include "sensors/registry.hpp"

#include <cstdlib>
#include <gtest/gtest.h>
#include <thread>
#include <unistd.h>

namespace jp::sensors {
namespace {

Host real_host() {
    Host h;
    if (const char* root = std::getenv("JOULEPROF_SYSFS_ROOT"); root != nullptr && *root) {
        h.sysfs_root = root;
    }
    h.is_root = ::geteuid() == 0;
    return h;
}

bool measured(const Sensor& s) {
    for (const auto& c : s.channels()) {
        if (c.provenance == Provenance::measured) {
            return true;
        }
    }
    return false;
}

TEST(Hardware, MeasuredChannelsReadPlausibly) {
    auto d = discover_all(real_host());
    std::erase_if(d.sensors, [](const auto& s) { return !measured(*s); });
    if (d.sensors.empty()) {
        GTEST_SKIP() << "no measured sensor on this machine";
    }
    for (auto& s : d.sensors) {
        const auto chans = s->channels();
        std::vector<Value> a(chans.size());
        std::vector<Value> b(chans.size());
        const auto t0 = mono_ns();
        s->read(a);
        std::this_thread::sleep_for(std::chrono::seconds{1});
        s->read(b);
        const double dt = static_cast<double>(mono_ns() - t0) * 1e-9;
        for (std::size_t i = 0; i < chans.size(); ++i) {
            const auto& c = chans[i];
            SCOPED_TRACE(c.name + " (" + c.backend + ": " + c.source + ")");
            ASSERT_EQ(b[i].status, ReadStatus::ok);
            const double limit = plausible_max_watts(c.domain == Domain::node);
            if (c.quantity == Quantity::energy) {
                double delta = b[i].value - a[i].value;
                if (delta < 0 && c.wrap_joules) {
                    delta += *c.wrap_joules;
                }
                EXPECT_GE(delta, 0.0);
                EXPECT_LT(delta / dt, limit);
            } else if (c.quantity == Quantity::power) {
                EXPECT_GE(b[i].value, 0.0);
                EXPECT_LT(b[i].value, limit);
            } else {
                EXPECT_GE(b[i].value, 0.0);
                EXPECT_LE(b[i].value, 100.0);
            }
        }
    }
}

} // namespace
} // namespace jp::sensors
