// SPDX-License-Identifier: BSD-3-Clause
// The monitor's socket receiving from the job's client: exact client
// timestamps, validation, the private directory.
#include "core/clock.hpp"
#include "markers/client.hpp"
#include "markers/server.hpp"

#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <gtest/gtest.h>
#include <mutex>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace jp::markers {
namespace {

struct Got {
    Kind kind;
    std::int64_t t_ns;
    std::string name;
};

class MarkerServer : public ::testing::Test {
protected:
    void SetUp() override {
        auto s = Server::start(m_epoch, [this](Kind k, std::int64_t t, std::string name) {
            const std::lock_guard lock{m_mutex};
            m_got.push_back({k, t, std::move(name)});
            m_cv.notify_all();
        });
        ASSERT_TRUE(s) << s.error().message();
        m_server = std::move(*s);
    }
    std::vector<Got> got() {
        const std::lock_guard lock{m_mutex};
        return m_got;
    }
    // Waits until n markers arrived on the server's thread.
    bool wait_for(std::size_t n) {
        std::unique_lock lock{m_mutex};
        return m_cv.wait_for(lock, std::chrono::seconds{5}, [&] { return m_got.size() >= n; });
    }
    int send(Kind k, std::string_view name, std::int64_t t) {
        return send_mark_to(m_server->socket_path().c_str(), k, name, t);
    }

    std::int64_t m_epoch = mono_ns() - 1'000'000'000;
    std::unique_ptr<Server> m_server;
    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::vector<Got> m_got;
};

TEST_F(MarkerServer, StoresTheClientsOwnTimestampsInTraceTime) {
    const auto start = mono_ns();
    m_server->open_run(start);
    const std::int64_t t1 = start + 10;
    const std::int64_t t2 = start + 20;
    ASSERT_EQ(send(Kind::begin, "train", t1), k_sent);
    ASSERT_EQ(send(Kind::end, "train", t2), k_sent);
    ASSERT_TRUE(wait_for(2)); // received by the server's thread while the run is open
    ASSERT_EQ(send(Kind::point, "epoch 1 done", t2 + 5), k_sent);
    m_server->close_run(mono_ns()); // takes what is still queued
    const auto g = got();
    ASSERT_EQ(g.size(), 3U);
    EXPECT_EQ(g[0].kind, Kind::begin);
    EXPECT_EQ(g[0].name, "train");
    EXPECT_EQ(g[0].t_ns, t1 - m_epoch);
    EXPECT_EQ(g[1].kind, Kind::end);
    EXPECT_EQ(g[1].t_ns, t2 - m_epoch);
    EXPECT_EQ(g[2].kind, Kind::point);
    EXPECT_EQ(g[2].name, "epoch 1 done");
    EXPECT_EQ(g[2].t_ns, t2 + 5 - m_epoch);
    EXPECT_EQ(m_server->counts().accepted, 3);
}

// "p3": appended rather than "p" + std::to_string(i), which GCC 12 at -O3
// wrongly warns about (-Wrestrict, GCC bug 105329).
std::string point_name(std::size_t i) {
    std::string s = "p";
    s += std::to_string(i);
    return s;
}

TEST_F(MarkerServer, MessagesSentJustBeforeTheEndAreNotLost) {
    const auto start = mono_ns();
    m_server->open_run(start);
    for (std::size_t i = 0; i < 8; ++i) {
        ASSERT_EQ(send(Kind::point, point_name(i), start + static_cast<std::int64_t>(i)), k_sent);
    }
    m_server->close_run(mono_ns());
    const auto g = got();
    ASSERT_EQ(g.size(), 8U);
    for (std::size_t i = 0; i < g.size(); ++i) {
        EXPECT_EQ(g[i].name, point_name(i));
    }
}

TEST_F(MarkerServer, RejectsMarkersOutsideTheRun) {
    ASSERT_EQ(send(Kind::point, "before the run", mono_ns()), k_sent);
    const auto start = mono_ns();
    m_server->open_run(start); // takes and rejects what came before
    ASSERT_EQ(send(Kind::point, "too early", start - 2 * Server::k_slack_ns), k_sent);
    ASSERT_EQ(send(Kind::point, "a hair early", start - Server::k_slack_ns / 2), k_sent);
    ASSERT_EQ(send(Kind::point, "from the future", mono_ns() + 2 * Server::k_slack_ns), k_sent);
    const auto end = mono_ns();
    m_server->close_run(end);
    ASSERT_EQ(send(Kind::point, "after the run", end), k_sent);
    m_server->open_run(mono_ns()); // takes and rejects what came between runs
    m_server->close_run(mono_ns());
    const auto g = got();
    ASSERT_EQ(g.size(), 1U);
    EXPECT_EQ(g[0].name, "a hair early");
    EXPECT_EQ(g[0].t_ns, start - m_epoch) << "clamped to the run's start";
    EXPECT_EQ(m_server->counts().rejected, 4);
}

TEST_F(MarkerServer, SocketLivesInAPrivateDirectoryRemovedAtTheEnd) {
    const std::filesystem::path sock = m_server->socket_path();
    const auto dir = sock.parent_path();
    struct stat st {};
    ASSERT_EQ(::stat(dir.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700U);
    EXPECT_EQ(st.st_uid, ::geteuid());
    EXPECT_LT(sock.string().size(), 108U);
    m_server.reset();
    EXPECT_FALSE(std::filesystem::exists(sock));
    EXPECT_FALSE(std::filesystem::exists(dir));
}

TEST_F(MarkerServer, ClientUsesTheEnvironmentAndStampsTheCall) {
    ::unsetenv(k_env_socket);
    EXPECT_FALSE(active());
    EXPECT_EQ(send_mark(Kind::point, "x"), k_inactive);
    // Outside a run the name is checked as inside one (and nothing else is done).
    EXPECT_EQ(send_mark(Kind::point, ""), -EINVAL);
    EXPECT_EQ(send_mark(Kind::begin, "two\nlines"), -EINVAL);
    EXPECT_EQ(send_mark(Kind::point, std::string(201, 'x')), -ENAMETOOLONG);
    ::setenv(k_env_socket, "", 1);
    EXPECT_FALSE(active()) << "an empty variable means no monitor";
    ::setenv(k_env_socket, m_server->socket_path().c_str(), 1);
    EXPECT_TRUE(active());
    m_server->open_run(mono_ns());
    const auto before = mono_ns();
    EXPECT_EQ(send_mark(Kind::begin, "stamped"), k_sent);
    const auto after = mono_ns();
    EXPECT_EQ(send_mark(Kind::point, ""), -EINVAL);
    EXPECT_EQ(send_mark(Kind::point, std::string(201, 'x')), -ENAMETOOLONG);
    m_server->close_run(mono_ns());
    const auto g = got();
    ASSERT_EQ(g.size(), 1U);
    EXPECT_GE(g[0].t_ns, before - m_epoch);
    EXPECT_LE(g[0].t_ns, after - m_epoch);
    m_server.reset();
    EXPECT_LT(send_mark(Kind::point, "monitor gone"), 0);
    ::unsetenv(k_env_socket);
}

// Sends one marker as user nobody from a child process; returns send_mark_to's result.
int send_as_nobody(const std::string& path) {
    const pid_t pid = ::fork();
    if (pid == 0) {
        if (::setgid(65534) != 0 || ::setuid(65534) != 0) {
            ::_exit(100);
        }
        const int r = send_mark_to(path.c_str(), Kind::point, "intruder", mono_ns());
        ::_exit(r == 0 ? 0 : r == -EACCES ? 1 : 2);
    }
    int st = 0;
    ::waitpid(pid, &st, 0);
    const int code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return code == 0 ? 0 : code == 1 ? -EACCES : -code;
}

TEST_F(MarkerServer, OnlyTheJobsUserCanMark) {
    if (::geteuid() != 0) {
        GTEST_SKIP() << "needs root to act as another user";
    }
    m_server->open_run(mono_ns());
    const std::filesystem::path sock = m_server->socket_path();
    EXPECT_EQ(send_as_nobody(sock), -EACCES) << "the 0700 directory keeps other users out";
    // Were the directory open to all, the sender's credentials still give it away.
    std::filesystem::permissions(sock.parent_path(), std::filesystem::perms::all);
    std::filesystem::permissions(sock, std::filesystem::perms::all);
    EXPECT_EQ(send_as_nobody(sock), 0);
    m_server->close_run(mono_ns());
    EXPECT_TRUE(got().empty());
    EXPECT_EQ(m_server->counts().rejected, 1);
}

TEST(MarkerClient, RefusesPathsThatDoNotFitAUnixSocket) {
    EXPECT_EQ(send_mark_to(std::string(200, 'a').c_str(), Kind::point, "x", 1), -ENAMETOOLONG);
    EXPECT_EQ(send_mark_to("", Kind::point, "x", 1), -ENAMETOOLONG);
    EXPECT_EQ(send_mark_to("/nonexistent/dir/sock", Kind::point, "x", 1), -ENOENT);
}

TEST_F(MarkerServer, RawGarbageIsRejectedNotFatal) {
    m_server->open_run(mono_ns());
    const int fd = ::socket(AF_UNIX, SOCK_DGRAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strcpy(addr.sun_path, m_server->socket_path().c_str());
    for (std::string_view d : {std::string_view{"hello"}, std::string_view{"jp1 begin 1"},
                               std::string_view{"\0\0\0", 3}}) {
        // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast)
        ::sendto(fd, d.data(), d.size(), 0, reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
    }
    const std::string big(4096, 'x');
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast)
    ::sendto(fd, big.data(), big.size(), 0, reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
    ::close(fd);
    ASSERT_EQ(send(Kind::point, "still fine", mono_ns()), k_sent);
    m_server->close_run(mono_ns());
    const auto g = got();
    ASSERT_EQ(g.size(), 1U);
    EXPECT_EQ(g[0].name, "still fine");
    EXPECT_EQ(m_server->counts().rejected, 4);
}

} // namespace
} // namespace jp::markers
