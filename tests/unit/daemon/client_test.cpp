// SPDX-License-Identifier: BSD-3-Clause
// The client against a scripted server on a real Unix socket.
#include "daemon_client/client.hpp"
#include "scripted_server.hpp"

#include <atomic>
#include <functional>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace jp::daemon {
namespace {

using nlohmann::json;

constexpr Nanos k_timeout{std::chrono::seconds{2}};

TEST(Client, HelloTellsWhatTheDaemonGrants) {
    ScriptedServer s{[](const json& r) { return hello_reply(r); }};
    auto c = Client::connect(s.path(), k_timeout);
    ASSERT_TRUE(c) << c.error().message;
    const auto& h = (*c)->hello();
    EXPECT_EQ(h.version, 1);
    EXPECT_EQ(h.access, "floor");
    EXPECT_EQ(h.floor, std::chrono::seconds{1});
    EXPECT_EQ(h.jitter, std::chrono::milliseconds{500});
    EXPECT_EQ(h.edge_burst, 4);
    EXPECT_NE(h.clock_offset_ns, 0) << "a daemon clock at 0 is another time namespace's";
}

TEST(Client, ErrorsCarryTheDaemonsCodeAndRetryTime) {
    ScriptedServer s{[](const json& r) {
        if (r["op"] == "hello") {
            return hello_reply(r);
        }
        return json{{"id", r["id"]},
                    {"ok", false},
                    {"error", "rate_limited"},
                    {"message", "later"},
                    {"retry_after_ms", 1234}}
            .dump();
    }};
    auto c = Client::connect(s.path(), k_timeout);
    ASSERT_TRUE(c);
    auto r = (*c)->call({{"op", "read"}}, k_timeout);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ErrorCode::rate_limited);
    EXPECT_EQ(r.error().message, "later");
    EXPECT_EQ(r.error().retry_after_ms, 1234);
}

// Rationed calls are sent again after the wait the daemon names, and given up when the next
// wait would end past the patience; other errors are not retried.
TEST(Client, APatientCallWaitsAsTheDaemonSaysWithinItsPatience) {
    std::atomic<int> opens{0};
    std::atomic<int> ledgers{0};
    std::atomic<int> bads{0};
    ScriptedServer s{[&](const json& r) {
        if (r["op"] == "hello") {
            return hello_reply(r);
        }
        const bool open = r["op"] == "open";
        const int n = open ? ++opens : r["op"] == "bad" ? ++bads : ++ledgers;
        if (open && n == 3) {
            return json{{"id", r["id"]}, {"ok", true}, {"session", "s"}}.dump();
        }
        return json{{"id", r["id"]},
                    {"ok", false},
                    {"error", r["op"] == "bad" ? "bad_request" : "rate_limited"},
                    {"message", "later"},
                    {"retry_after_ms", 50}}
            .dump();
    }};
    auto c = Client::connect(s.path(), k_timeout);
    ASSERT_TRUE(c);
    const auto ok = (*c)->call_patiently({{"op", "open"}}, k_timeout, std::chrono::seconds{2});
    ASSERT_TRUE(ok) << ok.error().message;
    EXPECT_EQ(opens.load(), 3);
    // 50 ms apart, 275 ms of patience: sent up to 6 times (a 6th wait would end past it).
    const auto t0 = std::chrono::steady_clock::now();
    const auto refused =
        (*c)->call_patiently({{"op", "ledger"}}, k_timeout, std::chrono::milliseconds{275});
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, ErrorCode::rate_limited);
    EXPECT_GE(ledgers.load(), 1);
    EXPECT_LE(ledgers.load(), 6);
    EXPECT_GE(std::chrono::steady_clock::now() - t0,
              std::chrono::milliseconds{50 * (ledgers.load() - 1)});
    // A wait longer than the patience: refused at once, asked once.
    const int before = ledgers.load();
    const auto long_wait =
        (*c)->call_patiently({{"op", "far"}}, k_timeout, std::chrono::milliseconds{20});
    ASSERT_FALSE(long_wait);
    EXPECT_EQ(ledgers.load(), before + 1);
    const auto bad = (*c)->call_patiently({{"op", "bad"}}, k_timeout, std::chrono::seconds{2});
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().code, ErrorCode::bad_request);
    EXPECT_EQ(bads.load(), 1) << "sent once";
}

TEST(Client, AnotherProtocolVersionOrADenialIsRefused) {
    ScriptedServer old{[](const json& r) { return hello_reply(r, 7); }};
    auto c = Client::connect(old.path(), k_timeout);
    ASSERT_FALSE(c);
    EXPECT_NE(c.error().message.find("version 7"), std::string::npos);
    ScriptedServer no{[](const json& r) {
        return json{{"id", r["id"]}, {"ok", false}, {"error", "denied"}, {"message", "no"}}.dump();
    }};
    auto d = Client::connect(no.path(), k_timeout);
    ASSERT_FALSE(d);
    EXPECT_EQ(d.error().code, ErrorCode::denied);
}

TEST(Client, ASilentDaemonTimesOutAndALateReplyIsDropped) {
    std::atomic<int> calls{0};
    ScriptedServer s{[&](const json& r) -> std::string {
        if (r["op"] == "hello") {
            return hello_reply(r);
        }
        if (calls++ == 0) {
            return {}; // never answers the first
        }
        return json{{"id", r["id"]}, {"ok", true}, {"n", calls.load()}}.dump();
    }};
    auto c = Client::connect(s.path(), k_timeout);
    ASSERT_TRUE(c);
    auto slow = (*c)->call({{"op", "status"}}, std::chrono::milliseconds{200});
    ASSERT_FALSE(slow);
    EXPECT_FALSE(slow.error().code);
    EXPECT_NE(slow.error().message.find("did not answer"), std::string::npos);
    auto next = (*c)->call({{"op", "status"}}, k_timeout);
    ASSERT_TRUE(next) << next.error().message;
    EXPECT_EQ((*next)["n"], 2);
}

TEST(Client, EventsReachTheHandlerAndMalformedLinesAreIgnored) {
    ScriptedServer s{[](const json& r) { return hello_reply(r); }};
    auto c = Client::connect(s.path(), k_timeout);
    ASSERT_TRUE(c);
    std::atomic<int> seen{0};
    (*c)->on_event([&](const json& e) {
        if (e["event"] == "samples") {
            ++seen;
        }
    });
    s.say("not json at all");
    s.say(R"({"event":"samples","lost":"x"})");
    s.say(R"({"event":"samples"})");
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{5};
    while (seen < 2 && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds{10});
    }
    EXPECT_EQ(seen, 2);
    EXPECT_TRUE((*c)->alive());
}

TEST(Client, AClosedConnectionFailsCallsAtOnce) {
    ScriptedServer s{[](const json& r) { return hello_reply(r); }};
    auto c = Client::connect(s.path(), k_timeout);
    ASSERT_TRUE(c);
    s.hang_up = true;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{5};
    while ((*c)->alive() && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds{10});
    }
    EXPECT_FALSE((*c)->alive());
    auto r = (*c)->call({{"op", "status"}}, k_timeout);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("closed"), std::string::npos);
}

TEST(Client, NoDaemonIsOneClearLine) {
    auto c = Client::connect("/nonexistent/jouleprofd.sock", k_timeout);
    ASSERT_FALSE(c);
    EXPECT_NE(c.error().message.find("/nonexistent/jouleprofd.sock"), std::string::npos);
}

TEST(Client, TrustsOnlyRootOrItsOwnUsersDaemon) {
    EXPECT_TRUE(trusted_daemon_uid(0, 1000));
    EXPECT_TRUE(trusted_daemon_uid(1000, 1000));
    EXPECT_TRUE(trusted_daemon_uid(0, 0));
    EXPECT_FALSE(trusted_daemon_uid(1001, 1000));
    EXPECT_FALSE(trusted_daemon_uid(65534, 0));
}

// An attacker (here: nobody) serves a socket where the client looks for jouleprofd
// ($JOULEPROF_SOCKET pointed at it): the client refuses it in one line and sends
// not one byte, not even its hello.
TEST(Client, RefusesASocketServedByAnotherUserAndSendsNothing) {
    if (::geteuid() != 0) {
        GTEST_SKIP() << "needs root to serve the socket as another user";
    }
    test::FakeSysfs dir;
    std::filesystem::permissions(dir.root(), std::filesystem::perms::all);
    const auto path = dir.path("/fake.sock");
    int ready[2];
    int heard[2];
    ASSERT_EQ(::pipe(ready), 0);
    ASSERT_EQ(::pipe(heard), 0);
    const pid_t server = ::fork();
    ASSERT_GE(server, 0);
    if (server == 0) { // the attacker's server: listens as uid 65534, counts what it gets
        if (::setgid(65534) != 0 || ::setuid(65534) != 0) {
            ::_exit(2);
        }
        auto fd = sys::listen_unix(path, 0666, 4);
        if (!fd) {
            ::_exit(3);
        }
        (void)!::write(ready[1], "r", 1);
        sys::UniqueFd c{::accept4(fd->get(), nullptr, nullptr, SOCK_CLOEXEC)};
        long total = 0;
        char buf[256];
        pollfd p{c.get(), POLLIN, 0};
        while (::poll(&p, 1, 2000) > 0) {
            const auto n = ::read(c.get(), buf, sizeof buf);
            if (n <= 0) {
                break;
            }
            total += n;
        }
        (void)!::write(heard[1], &total, sizeof total);
        ::_exit(0);
    }
    char r = 0;
    ASSERT_EQ(::read(ready[0], &r, 1), 1) << "the attacker's server did not start";
    auto c = Client::connect(path, std::chrono::seconds{2});
    ASSERT_FALSE(c);
    EXPECT_NE(c.error().message.find("served by uid 65534"), std::string::npos)
        << c.error().message;
    EXPECT_NE(c.error().message.find("nothing sent"), std::string::npos) << c.error().message;
    long total = -1;
    ASSERT_EQ(::read(heard[0], &total, sizeof total), static_cast<ssize_t>(sizeof total));
    EXPECT_EQ(total, 0) << "the client sent bytes to a server it does not trust";
    int status = 0;
    ASSERT_EQ(::waitpid(server, &status, 0), server);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    for (int fd : {ready[0], ready[1], heard[0], heard[1]}) {
        ::close(fd);
    }
}

} // namespace
} // namespace jp::daemon
