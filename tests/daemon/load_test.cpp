// SPDX-License-Identifier: BSD-3-Clause
// 1,000 clients at once, each with a short job session: hello, open, an exact
// read, a stream of readings, another exact read, close. None is refused, and
// every stream delivers every reading of the history without a gap.
#include "daemon_fixture.hpp"

#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <map>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>

namespace jp::test {
namespace {

using nlohmann::json;

constexpr int k_clients = 1000;
constexpr int k_events_each = 4; // stream events each client waits for

struct Client {
    int fd = -1;
    int step = 0; // requests answered so far
    std::string in;
    std::string session;
    int events = 0;
    std::map<std::int64_t, std::uint64_t> next; // channel -> next reading number
    bool gap = false;
    bool lost = false;
    bool failed = false;
    bool done = false;
};

// The request a client sends after `step` replies (empty: wait for events).
std::string request(const Client& c) {
    switch (c.step) {
    case 0:
        return R"({"op":"hello","versions":[1]})";
    case 1:
        return R"({"op":"open","label":"load"})";
    case 2:
        return fmt::format(R"({{"op":"read","session":"{}"}})", c.session);
    case 3:
        return fmt::format(R"({{"op":"stream","session":"{}","interval_ms":200}})", c.session);
    case 4:
        return c.events >= k_events_each
                   ? fmt::format(R"({{"op":"read","session":"{}"}})", c.session)
                   : std::string{};
    case 5:
        return fmt::format(R"({{"op":"close","session":"{}"}})", c.session);
    default:
        return {};
    }
}

void on_event(Client& c, const json& e) {
    ++c.events;
    c.lost = c.lost || e["lost"] != 0;
    for (const auto& row : e["data"]) {
        const auto ch = row[0].get<std::int64_t>();
        const auto first = row[1].get<std::uint64_t>();
        if (c.next.contains(ch) && c.next[ch] != first) {
            c.gap = true;
        }
        c.next[ch] = first + (row.size() - 2) / 2;
    }
}

void send_next(Client& c) {
    const auto r = request(c);
    if (!r.empty()) {
        const auto line = r + "\n";
        if (::send(c.fd, line.data(), line.size(), MSG_NOSIGNAL) !=
            static_cast<ssize_t>(line.size())) {
            c.failed = true;
        }
    }
}

void on_line(Client& c, const std::string& line) {
    const auto j = json::parse(line, nullptr, false);
    if (!j.is_object()) {
        c.failed = true;
        return;
    }
    if (j.contains("event")) {
        on_event(c, j);
        if (c.step == 4 && c.events == k_events_each) {
            send_next(c);
        }
        return;
    }
    if (j["ok"] != true) {
        c.failed = true;
        return;
    }
    if (c.step == 1) {
        c.session = j["session"].get<std::string>();
    }
    ++c.step;
    c.done = c.step == 6;
    send_next(c);
}

using DaemonLoad = DaemonTest;

TEST_F(DaemonLoad, AThousandConcurrentClientsAllComplete) {
    rlimit r{};
    ::getrlimit(RLIMIT_NOFILE, &r);
    r.rlim_cur = std::max<rlim_t>(r.rlim_cur, std::min<rlim_t>(r.rlim_max, 4096));
    ::setrlimit(RLIMIT_NOFILE, &r);
    ASSERT_GE(r.rlim_cur, static_cast<rlim_t>(k_clients + 64)) << "needs more descriptors";
    start_daemon();

    std::vector<Client> clients(k_clients);
    const int ep = ::epoll_create1(EPOLL_CLOEXEC);
    int refused = 0;
    for (int i = 0; i < k_clients; ++i) {
        auto& c = clients[static_cast<std::size_t>(i)];
        c.fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        std::strncpy(addr.sun_path, socket.c_str(), sizeof addr.sun_path - 1);
        // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the sockets API
        if (::connect(c.fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
            ++refused;
            c.failed = true;
            continue;
        }
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.u32 = static_cast<std::uint32_t>(i);
        ::epoll_ctl(ep, EPOLL_CTL_ADD, c.fd, &ev);
        send_next(c);
    }
    EXPECT_EQ(refused, 0);

    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{120};
    std::array<epoll_event, 128> events{};
    auto pending = [&] {
        return std::ranges::count_if(clients, [](const Client& c) { return !c.done && !c.failed; });
    };
    while (pending() > 0 && std::chrono::steady_clock::now() < deadline) {
        const int n = ::epoll_wait(ep, events.data(), static_cast<int>(events.size()), 1000);
        for (int k = 0; k < n; ++k) {
            auto& c = clients[events[static_cast<std::size_t>(k)].data.u32];
            char buf[65536];
            const auto got = ::recv(c.fd, buf, sizeof buf, MSG_DONTWAIT);
            if (got <= 0) {
                c.failed = !c.done;
                ::epoll_ctl(ep, EPOLL_CTL_DEL, c.fd, nullptr);
                continue;
            }
            c.in.append(buf, static_cast<std::size_t>(got));
            for (auto nl = c.in.find('\n'); nl != std::string::npos; nl = c.in.find('\n')) {
                on_line(c, c.in.substr(0, nl));
                c.in.erase(0, nl + 1);
            }
        }
    }
    int done = 0;
    int gaps = 0;
    int lost = 0;
    for (auto& c : clients) {
        done += c.done ? 1 : 0;
        gaps += c.gap ? 1 : 0;
        lost += c.lost ? 1 : 0;
        ::close(c.fd);
    }
    ::close(ep);
    EXPECT_EQ(done, k_clients) << "clients that completed their session";
    EXPECT_EQ(gaps, 0) << "streams with a missing reading";
    EXPECT_EQ(lost, 0) << "streams the daemon had to skip readings for";
    auto root = probe("root");
    ASSERT_EQ(root->call({{"op", "hello"}, {"versions", {1}}})["ok"], true);
    EXPECT_TRUE(root->call({{"op", "sessions"}})["sessions"].empty()) << "every session closed";
}

} // namespace
} // namespace jp::test
