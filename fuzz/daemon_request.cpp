// SPDX-License-Identifier: BSD-3-Clause
// Request lines any local user can send jouleprofd, through the same line
// framing and handlers as the daemon, on a daemon whose engine reads a small
// powercap tree made once per process. Every input is a fresh connection of a
// fresh daemon state (sessions do not carry over, so a crash reproduces).
#include "daemon/handlers.hpp"
#include "fuzz_input.hpp"

#include <cstdlib>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sys/socket.h>
#include <unistd.h>

namespace {

// The tree's directory, removed at exit (after the engine reading it is gone:
// atexit runs in reverse order of registration, and this is registered first).
char g_dir[] = "/tmp/jp-fuzz-daemon-XXXXXX";

void remove_tree() {
    std::error_code ec;
    std::filesystem::remove_all(g_dir, ec);
}

std::filesystem::path make_tree() {
    char* dir = g_dir;
    if (::mkdtemp(dir) == nullptr) {
        std::abort();
    }
    std::atexit(remove_tree);
    const std::filesystem::path zone =
        std::filesystem::path{dir} / "sys/class/powercap/intel-rapl:0";
    std::filesystem::create_directories(zone);
    for (const auto& [file, value] : {std::pair{"name", "package-0\n"},
                                      {"energy_uj", "1000000\n"},
                                      {"max_energy_range_uj", "262143328850\n"},
                                      {"enabled", "1\n"}}) {
        std::ofstream{zone / file} << value;
    }
    return dir;
}

jp::daemon::Engine& engine() {
    static const auto root = make_tree();
    static const auto e = [] {
        jp::daemon::DaemonConfig config;
        config.sensors.disabled.emplace("perf_rapl");
        auto started = jp::daemon::Engine::start(jp::sensors::Host::with_root(root), config);
        if (!started) {
            std::abort();
        }
        return std::move(*started);
    }();
    return *e;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace jp::daemon;
    DaemonState state{{}, engine(), {}, {}, 0, 0};
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        return 0;
    }
    const jp::sys::UniqueFd peer{sv[1]};
    Connection c{1, jp::sys::UniqueFd{sv[0]}, Connection::Kind::client, k_max_request_bytes};
    c.peer = jp::sys::PeerCredentials{::getpid(), ::getuid(), ::getgid(), {}};
    c.in.append(jp::fuzz::bytes(data, size));
    std::int64_t now = 0;
    while (!c.closing) {
        auto line = c.in.next();
        if (!line) {
            break;
        }
        const auto reply = handle_line(state, c, *line, now += 1'000'000);
        // Every reply is one JSON object on one line.
        if (reply.empty() || reply.back() != '\n' || reply.find('\n') != reply.size() - 1 ||
            !nlohmann::json::accept(std::string_view{reply}.substr(0, reply.size() - 1))) {
            std::abort();
        }
    }
    return 0;
}
