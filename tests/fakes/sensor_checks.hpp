// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Small look-ups shared by the sensor backends' unit tests.
#include "sensors/sensor.hpp"

#include <algorithm>
#include <string_view>
#include <vector>

namespace jp::test {

// The channel of that name, or nullptr.
inline const Channel* find(const sensors::Sensor& s, std::string_view name) {
    auto ch = s.channels();
    auto it = std::ranges::find(ch, name, &Channel::name);
    return it == ch.end() ? nullptr : &*it;
}

// The channel of that name in any of the discovered sensors, or nullptr.
inline const Channel* find(const sensors::Discovery& d, std::string_view name) {
    for (const auto& s : d.sensors) {
        if (const auto* c = find(*s, name)) {
            return c;
        }
    }
    return nullptr;
}

// One read of every channel.
inline std::vector<sensors::Value> read_all(sensors::Sensor& s) {
    std::vector<sensors::Value> v(s.channels().size());
    s.read(v);
    return v;
}

// True when a discovery note contains text.
inline bool any_note(const sensors::Discovery& d, std::string_view text) {
    return std::ranges::any_of(d.notes, [&](const auto& n) { return n.find(text) != n.npos; });
}

} // namespace jp::test
