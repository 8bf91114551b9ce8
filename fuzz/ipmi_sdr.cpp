// SPDX-License-Identifier: BSD-3-Clause
// Fuzzes what a BMC's SDR repository holds and answers: the input is one
// record for parse_power_record and to_watts, then a script of replies for
// find_power_sensors, read_watts and pick_node_sensor over a fake transport
// (each reply: completion code, data length, data; the end of input is a
// transport failure, so every walk ends).
#include "sensors/ipmi/sdr.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>

namespace ipmi = jp::sensors::ipmi;

namespace {

class ScriptedTransport : public ipmi::Transport {
public:
    explicit ScriptedTransport(std::span<const std::uint8_t> script) : m_script(script) {}

    jp::Result<ipmi::Response> call(const ipmi::Request& /*request*/) override {
        if (m_script.size() < 2) {
            return jp::fail(jp::ErrorKind::io, "fuzz transport", "script ended");
        }
        ipmi::Response reply{m_script[0], {}};
        const std::size_t size = std::min<std::size_t>(m_script[1], m_script.size() - 2);
        const auto data = m_script.subspan(2, size);
        reply.data.assign(data.begin(), data.end());
        m_script = m_script.subspan(2 + size);
        return reply;
    }
    [[nodiscard]] std::string describe() const override { return "fuzz transport"; }

private:
    std::span<const std::uint8_t> m_script;
};

// A sensor's name is one printable line; its conversion gives a number.
void check(const ipmi::SdrPowerSensor& s) {
    for (const char c : s.name) {
        if (c < 0x20 || c > 0x7E) {
            std::abort();
        }
    }
    for (int raw = 0; raw < 256; ++raw) {
        if (!std::isfinite(ipmi::to_watts(s, static_cast<std::uint8_t>(raw)))) {
            std::abort();
        }
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::span<const std::uint8_t> in(data, size);
    if (auto s = ipmi::parse_power_record(in)) {
        check(*s);
    }
    ScriptedTransport bmc(in);
    auto found = ipmi::find_power_sensors(bmc);
    if (!found) {
        return 0;
    }
    for (const auto& s : *found) {
        check(s);
        if (s.owner != 0x20) {
            std::abort(); // the walk keeps only the BMC's own sensors
        }
        if (auto w = ipmi::read_watts(bmc, s); w && !std::isfinite(*w)) {
            std::abort();
        }
    }
    if (found->empty() == ipmi::pick_node_sensor(*found).has_value()) {
        std::abort();
    }
    return 0;
}
