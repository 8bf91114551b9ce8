// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The channels jouleprofd lists, read as untrusted input (the socket a user
// names may be anyone's), less those this user already reads directly.
#include "core/channel.hpp"

#include <nlohmann/json.hpp>
#include <vector>

namespace jp::sensors::jouleprofd {

struct Offer {
    std::vector<Channel> channels;
    std::vector<int> index; // the daemon's index of channels[i]
};

// The "channels" of a channels reply that no channel in local covers (the
// same device, or for channels that name none, the same domain). A figure a
// trace could not hold (an update period or averaging window outside 1 ns ..
// 2^61 ns, a limit that is not a positive finite number of watts) is left out;
// a channel without its name, domain, quantity, provenance or index throws
// nlohmann::json::exception.
[[nodiscard]] Offer offered(const nlohmann::json& list, const std::vector<Channel>& local);

} // namespace jp::sensors::jouleprofd
