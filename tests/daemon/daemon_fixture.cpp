// SPDX-License-Identifier: BSD-3-Clause
#include "daemon_fixture.hpp"

#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <netinet/in.h>
#include <poll.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace jp::test {
namespace {

// Users and the group are created once (useradd as root) and kept.
void ensure_users() {
    if (sh(fmt::format("getent group {} >/dev/null", k_full_group)).exit_code != 0) {
        sh(fmt::format("groupadd --system {}", k_full_group));
    }
    for (const char* u : {k_alice, k_bob, k_carol}) {
        if (uid_of(u) < 0) {
            const std::string groups = u == k_carol ? fmt::format("-G {}", k_full_group) : "";
            sh(fmt::format("useradd --system --no-create-home --shell /usr/sbin/nologin {} {}",
                           groups, u));
        }
    }
}

void copy_executable(const std::string& from, const std::filesystem::path& to) {
    std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing);
    std::filesystem::permissions(to, std::filesystem::perms(0755));
}

bool serving(const std::string& socket) {
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, socket.c_str(), sizeof addr.sun_path - 1);
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the sockets API
    const bool ok = ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0;
    ::close(fd);
    return ok;
}

} // namespace

long uid_of(const char* user) {
    const passwd* pw = ::getpwnam(user);
    return pw == nullptr ? -1 : static_cast<long>(pw->pw_uid);
}

Peer::Peer(const std::vector<std::string>& argv) {
    int in[2];
    int out[2];
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) {
        throw std::runtime_error("pipe2");
    }
    m_pid = ::fork();
    if (m_pid == 0) {
        ::dup2(in[0], STDIN_FILENO);
        ::dup2(out[1], STDOUT_FILENO);
        std::vector<char*> args;
        for (const auto& a : argv) {
            args.push_back(const_cast<char*>(a.c_str())); // NOLINT: execvp's signature
        }
        args.push_back(nullptr);
        ::execvp(args[0], args.data());
        ::_exit(127);
    }
    ::close(in[0]);
    ::close(out[1]);
    m_in = in[1];
    m_out = out[0];
}

Peer::~Peer() {
    if (m_pid > 0) {
        ::kill(m_pid, SIGKILL);
        ::waitpid(m_pid, nullptr, 0);
    }
    for (int fd : {m_in, m_out}) {
        if (fd >= 0) {
            ::close(fd);
        }
    }
}

void Peer::send(std::string_view line) {
    send_raw(std::string{line} + "\n");
}

void Peer::send_raw(std::string_view bytes) {
    if (m_in >= 0) {
        (void)!::write(m_in, bytes.data(), bytes.size());
    }
}

void Peer::close_stdin() {
    ::close(m_in);
    m_in = -1;
}

std::optional<std::string> Peer::line(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
        if (const auto nl = m_buf.find('\n'); nl != std::string::npos) {
            auto l = m_buf.substr(0, nl);
            m_buf.erase(0, nl + 1);
            return l;
        }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        pollfd p{m_out, POLLIN, 0};
        if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) {
            return std::nullopt;
        }
        char buf[65536];
        const auto n = ::read(m_out, buf, sizeof buf);
        if (n <= 0) {
            return std::nullopt;
        }
        m_buf.append(buf, static_cast<std::size_t>(n));
    }
}

nlohmann::json Peer::reply(std::chrono::milliseconds timeout) {
    while (auto l = line(timeout)) {
        auto j = nlohmann::json::parse(*l, nullptr, false);
        if (j.is_object() && j.contains("event")) {
            events.push_back(std::move(j));
            continue;
        }
        if (j.is_object()) {
            return j;
        }
    }
    return nullptr;
}

nlohmann::json Peer::call(const nlohmann::json& request) {
    send(request.dump());
    return reply();
}

int Peer::wait() {
    int st = 0;
    ::waitpid(m_pid, &st, 0);
    m_pid = -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

void DaemonTest::SetUp() {
    if (::geteuid() != 0) {
        GTEST_SKIP() << "starting jouleprofd and creating test users needs root";
    }
    ensure_users();
    std::filesystem::permissions(fs.root(), std::filesystem::perms(0755));
    add_rapl_zone(fs, "intel-rapl:0", "package-0", 0, 4294967296ULL, 0400);
    ProfileWriter::Profile p;
    writer = std::make_unique<ProfileWriter>(fs.path("/sys/class/powercap/intel-rapl:0/energy_uj"),
                                             p, now_ns());
    bin = path("/bin");
    std::filesystem::create_directories(bin);
    copy_executable(JP_BINARY, fs.path("/bin/jouleprof"));
    copy_executable(JP_TEST_JOB, fs.path("/bin/jp_test_job"));
    copy_executable(JP_DAEMON_PROBE, fs.path("/bin/daemon_probe"));
    std::filesystem::create_directories(fs.path("/run"));
    socket = path("/run/jouleprofd.sock");
    fs.add({"/client.toml", "[sensors.estimate]\nenabled = false\n", 0644});
    for (const char* u : {k_alice, k_bob, k_carol}) {
        const auto dir = fs.path(fmt::format("/home/{}", u));
        std::filesystem::create_directories(dir);
        ::chown(dir.c_str(), static_cast<uid_t>(uid_of(u)), static_cast<gid_t>(-1));
    }
}

void DaemonTest::TearDown() {
    if (daemon_pid > 0) {
        stop_daemon(SIGKILL);
    }
    writer.reset();
}

void DaemonTest::start_daemon(const std::string& extra_toml) {
    const auto config =
        fmt::format("[access]\nfull_resolution_groups = [\"{}\"]\n{}\n", k_full_group, extra_toml);
    fs.add({"/jouleprofd.toml", config, 0644});
    const auto log = path("/jouleprofd.log");
    daemon_pid = ::fork();
    if (daemon_pid == 0) {
        const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        ::dup2(fd, STDOUT_FILENO);
        ::dup2(fd, STDERR_FILENO);
        const auto root = fs.root().string();
        const auto cfg = path("/jouleprofd.toml");
        ::execl(JP_DAEMON, JP_DAEMON, "--sysfs-root", root.c_str(), "-c", cfg.c_str(), "--socket",
                socket.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{20};
    while (!serving(socket)) {
        int st = 0;
        ASSERT_EQ(::waitpid(daemon_pid, &st, WNOHANG), 0) << "jouleprofd exited:\n" << daemon_log();
        ASSERT_LT(std::chrono::steady_clock::now(), deadline) << daemon_log();
        std::this_thread::sleep_for(std::chrono::milliseconds{20});
    }
}

int DaemonTest::stop_daemon(int sig) {
    ::kill(daemon_pid, sig);
    int st = 0;
    ::waitpid(daemon_pid, &st, 0);
    daemon_pid = -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

std::string DaemonTest::daemon_log() const {
    std::ifstream f{fs.path("/jouleprofd.log")};
    return {std::istreambuf_iterator<char>{f}, {}};
}

std::string DaemonTest::as(const char* user, const std::string& command) const {
    return fmt::format("cd {} && runuser -u {} -- env JOULEPROF_SOCKET={} {}", home(user), user,
                       socket, command);
}

std::string DaemonTest::jp(const std::string& args) const {
    return fmt::format("{}/jouleprof --sysfs-root {} -c {} {}", bin, fs.root().string(),
                       path("/client.toml"), args);
}

std::unique_ptr<Peer> DaemonTest::probe(const char* user) const {
    auto p = std::make_unique<Peer>(
        std::vector<std::string>{"runuser", "-u", user, "--", bin + "/daemon_probe", socket});
    return p;
}

std::string DaemonTest::home(const char* user) const {
    return fs.path(fmt::format("/home/{}", user)).string();
}

// A TCP port free on 127.0.0.1 right now.
int free_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    // NOLINTBEGIN(cppcoreguidelines-pro-type-reinterpret-cast): the sockets API
    ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t len = sizeof a;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    // NOLINTEND(cppcoreguidelines-pro-type-reinterpret-cast)
    ::close(fd);
    return ntohs(a.sin_port);
}

// GET http://127.0.0.1:port/target; the whole response, headers included.
std::string http_get(int port, const std::string& target) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    timeval tv{10, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the sockets API
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        ::close(fd);
        return {};
    }
    const auto req =
        fmt::format("GET {} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", target);
    (void)!::send(fd, req.data(), req.size(), MSG_NOSIGNAL);
    std::string out;
    char buf[8192];
    ssize_t n = 0;
    while ((n = ::recv(fd, buf, sizeof buf, 0)) > 0) {
        out.append(buf, static_cast<std::size_t>(n));
    }
    ::close(fd);
    return out;
}

std::string body_of(const std::string& response) {
    const auto at = response.find("\r\n\r\n");
    return at == std::string::npos ? std::string{} : response.substr(at + 4);
}

} // namespace jp::test
