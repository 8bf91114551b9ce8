// SPDX-License-Identifier: BSD-3-Clause
// jouleprofd's own cost: CPU (share of one core) and resident memory of the
// daemon, idle, with 1,000 job sessions streaming to an unprivileged user, and
// with those sessions at a 100 ms floor; and how long an exact read takes with
// 1,000 sessions open. A real jouleprofd on a fake 6-counter powercap tree.
//   jp_bench_daemon [SECONDS_PER_PHASE] [PATH_TO_JOULEPROFD]
#include "daemon_client/client.hpp"
#include "fake_node.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <grp.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;

struct Usage {
    double cpu_s = 0;
    double rss_mib = 0;
};

// CPU time of every thread (schedstat: ns on the CPU) and resident memory.
Usage usage_of(pid_t pid) {
    Usage u;
    for (const auto& task :
         std::filesystem::directory_iterator(fmt::format("/proc/{}/task", pid))) {
        std::ifstream schedstat{task.path() / "schedstat"};
        double ns = 0;
        if (schedstat >> ns) {
            u.cpu_s += ns * 1e-9;
        }
    }
    std::ifstream status{fmt::format("/proc/{}/status", pid)};
    for (std::string line; std::getline(status, line);) {
        if (line.starts_with("VmRSS:")) {
            u.rss_mib = std::stod(line.substr(6)) / 1024.0;
        }
    }
    return u;
}

int connect_to(const std::string& socket) {
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, socket.c_str(), sizeof addr.sun_path - 1);
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the sockets API
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

pid_t start_daemon(const std::string& binary,
                   const std::filesystem::path& root,
                   const std::string& socket,
                   const std::string& config) {
    jp::bench::write_file(root / "jouleprofd.toml", config);
    ::chmod((root / "jouleprofd.toml").c_str(), 0644);
    const pid_t pid = ::fork();
    if (pid == 0) {
        const int null = ::open("/dev/null", O_WRONLY);
        ::dup2(null, STDERR_FILENO);
        const auto cfg = (root / "jouleprofd.toml").string();
        ::execl(binary.c_str(), binary.c_str(), "--sysfs-root", root.c_str(), "-c", cfg.c_str(),
                "--socket", socket.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    for (int i = 0; i < 500; ++i) {
        if (const int fd = connect_to(socket); fd >= 0) {
            ::close(fd);
            return pid;
        }
        std::this_thread::sleep_for(20ms);
    }
    std::fprintf(stderr, "jouleprofd did not start (%s)\n", binary.c_str());
    std::exit(1);
}

// A TCP port free on 127.0.0.1 now.
int free_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    // NOLINTBEGIN(cppcoreguidelines-pro-type-reinterpret-cast): the sockets API
    ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    // NOLINTEND(cppcoreguidelines-pro-type-reinterpret-cast)
    ::close(fd);
    return ntohs(a.sin_port);
}

// GET /metrics from 127.0.0.1:port; the bytes of the response.
std::size_t scrape(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the sockets API
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        ::close(fd);
        return 0;
    }
    const std::string req = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    (void)!::send(fd, req.data(), req.size(), MSG_NOSIGNAL);
    std::size_t total = 0;
    std::array<char, 65536> buf{};
    for (ssize_t n = 0; (n = ::recv(fd, buf.data(), buf.size(), 0)) > 0;) {
        total += static_cast<std::size_t>(n);
    }
    ::close(fd);
    return total;
}

void stop(pid_t pid) {
    ::kill(pid, SIGTERM);
    ::waitpid(pid, nullptr, 0);
}

// n clients in a child process (as nobody when run as root): each says hello,
// opens a session and streams at interval_ms; they read until killed.
pid_t start_clients(const std::string& socket, int n, int interval_ms) {
    const pid_t pid = ::fork();
    if (pid != 0) {
        return pid;
    }
    if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) {
        ::_exit(1);
    }
    std::vector<pollfd> fds;
    for (int i = 0; i < n; ++i) {
        const int fd = connect_to(socket);
        if (fd < 0) {
            ::_exit(2);
        }
        const auto hello = std::string{R"({"op":"hello","versions":[1]})"} + "\n";
        (void)!::write(fd, hello.data(), hello.size());
        fds.push_back({fd, POLLIN, 0});
    }
    std::vector<std::string> in(fds.size());
    std::vector<int> step(fds.size(), 0);
    char buf[65536];
    while (true) {
        if (::poll(fds.data(), fds.size(), -1) < 0) {
            continue;
        }
        for (std::size_t i = 0; i < fds.size(); ++i) {
            if ((fds[i].revents & POLLIN) == 0) {
                continue;
            }
            const auto got = ::read(fds[i].fd, buf, sizeof buf);
            if (got <= 0) {
                ::_exit(3);
            }
            in[i].append(buf, static_cast<std::size_t>(got));
            for (auto nl = in[i].find('\n'); nl != std::string::npos; nl = in[i].find('\n')) {
                const auto line = in[i].substr(0, nl);
                in[i].erase(0, nl + 1);
                std::string next;
                if (step[i] == 0) {
                    next = R"({"op":"open","label":"bench"})";
                } else if (step[i] == 1) {
                    const auto at = line.find("\"session\":\"");
                    next = fmt::format(R"({{"op":"stream","session":"{}","interval_ms":{}}})",
                                       line.substr(at + 11, 32), interval_ms);
                }
                if (!next.empty()) {
                    next += "\n";
                    (void)!::write(fds[i].fd, next.data(), next.size());
                }
                ++step[i];
            }
        }
    }
}

// n jobs: n client processes, each a job in the daemon's ledger (one session, streaming
// every interval_ms), pinned to CPU i % CPUs, each its own user when run as root (the
// ledger's views are rationed per user). Each says on `ready` whether its session streams
// ('r') or not ('x'); on a byte from `go` it stops its stream, asks for its ledger view once
// and writes the round trip (microseconds, a double; -1 where refused) to `times`, then exits.
struct JobPipes {
    int go[2] = {-1, -1};
    int ready[2] = {-1, -1};
    int times[2] = {-1, -1};
};

std::vector<pid_t> start_jobs(const std::string& socket, int n, int interval_ms, JobPipes& p) {
    std::vector<pid_t> jobs;
    const long cpus = std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN));
    for (int i = 0; i < n; ++i) {
        const pid_t pid = ::fork();
        if (pid != 0) {
            jobs.push_back(pid);
            continue;
        }
        const auto fail = [&] {
            (void)!::write(p.ready[1], "x", 1);
            ::_exit(1);
        };
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(static_cast<std::size_t>(i % cpus), &set);
        ::sched_setaffinity(0, sizeof set, &set);
        const auto uid = static_cast<uid_t>(61000 + i);
        if (::geteuid() == 0 &&
            (::setgroups(0, nullptr) != 0 || ::setgid(uid) != 0 || ::setuid(uid) != 0)) {
            fail();
        }
        auto c = jp::daemon::Client::connect(socket, 10s);
        if (!c) {
            fail();
        }
        auto s = (*c)->call({{"op", "open"}, {"label", "bench job"}}, 10s);
        if (!s || !(*s).contains("session")) {
            fail();
        }
        const auto session = (*s)["session"];
        auto st =
            (*c)->call({{"op", "stream"}, {"session", session}, {"interval_ms", interval_ms}}, 10s);
        if (!st || !(*st).value("ok", false)) {
            fail();
        }
        (void)!::write(p.ready[1], "r", 1);
        char byte = 0; // the client's own thread takes the stream meanwhile
        if (::read(p.go[0], &byte, 1) != 1) {
            ::_exit(2);
        }
        (void)!(*c)->call({{"op", "stream"}, {"session", session}, {"interval_ms", 0}}, 10s);
        const auto t0 = std::chrono::steady_clock::now();
        auto v = (*c)->call({{"op", "ledger"}, {"session", session}}, 10s);
        const double us =
            v && (*v).contains("segments")
                ? std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
                      .count()
                : -1.0;
        (void)!::write(p.times[1], &us, sizeof us);
        ::_exit(0);
    }
    // Only the children write to ready and times, only the parent to go: each end that is
    // not this process's is closed, so a child that died is an end of file, not a wait.
    for (int* fd : {&p.go[0], &p.ready[1], &p.times[1]}) {
        ::close(*fd);
        *fd = -1;
    }
    return jobs;
}

// The jobs that said they stream (an end of file: the rest died).
int ready_jobs(const JobPipes& p, int n) {
    int ready = 0;
    for (int i = 0; i < n; ++i) {
        char c = 0;
        if (::read(p.ready[0], &c, 1) != 1) {
            break;
        }
        ready += c == 'r' ? 1 : 0;
    }
    return ready;
}

void measure(const char* phase, pid_t daemon, double seconds) {
    std::this_thread::sleep_for(2s); // connections settle, streams start
    const auto u0 = usage_of(daemon);
    const auto t0 = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    const auto u1 = usage_of(daemon);
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("  %-52s %7.3f %% of one core   RSS %6.1f MiB\n", phase,
                100 * (u1.cpu_s - u0.cpu_s) / wall, u1.rss_mib);
}

// Says so where the clients' process ended during the phase (a refused session ends it):
// the figure above it is then not the one its line names.
// Reaps it then (false), so that it is not stopped again by a PID that may be another's.
bool still_streaming(pid_t clients) {
    int status = 0;
    if (::waitpid(clients, &status, WNOHANG) == clients) {
        std::printf("  (the clients stopped during the phase, exit %d: the line above is not "
                    "what it says)\n",
                    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        return false;
    }
    return true;
}

// Round-trip time of exact reads from a full-resolution client (the bench itself).
void exact_reads(const std::string& socket) {
    auto c = jp::daemon::Client::connect(socket, 2s);
    if (!c) {
        std::printf("  exact reads: %s\n", c.error().message.c_str());
        return;
    }
    auto s = (*c)->call({{"op", "open"}}, 2s);
    if (!s) {
        return;
    }
    std::vector<double> us;
    for (int i = 0; i < 1000; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        auto r = (*c)->call({{"op", "read"}, {"session", (*s)["session"]}}, 2s);
        if (r) {
            us.push_back(
                std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
                    .count());
        }
    }
    std::ranges::sort(us);
    if (!us.empty()) {
        std::printf("  %-52s p50 %.0f us, p99 %.0f us (%zu reads%s)\n",
                    "exact read, round trip, 1,000 sessions open", us[us.size() / 2],
                    us[us.size() * 99 / 100], us.size(),
                    ::geteuid() == 0 ? "" : "; not root: rationed");
    }
}

} // namespace

int main(int argc, char** argv) {
    const double seconds = argc > 1 ? std::atof(argv[1]) : 10.0;
    const std::string binary =
        argc > 2
            ? argv[2]
            : (std::filesystem::canonical("/proc/self/exe").parent_path() / "../src/jouleprofd")
                  .string();
    rlimit r{};
    ::getrlimit(RLIMIT_NOFILE, &r);
    r.rlim_cur = r.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &r);
    const auto root = jp::bench::fake_server("daemon");
    std::filesystem::permissions(root, std::filesystem::perms(0755));
    const auto socket = (root / "jouleprofd.sock").string();
    std::printf("jouleprofd cost: 6 RAPL counters sampled every 100 ms, %g s per phase%s\n",
                seconds, ::geteuid() == 0 ? "" : " (not root: clients run as the same user)");

    // One user's 1,000 sessions need the per-user limits raised (default: 32 connections,
    // 64 sessions); without, the clients are refused and the phase measures an idle daemon.
    const std::string many = "[daemon]\nmax_clients = 2000\nmax_clients_per_user = 1000\n"
                             "max_sessions_per_user = 1000\n";
    auto daemon = start_daemon(binary, root, socket, many);
    measure("idle, no client", daemon, seconds);
    auto clients = start_clients(socket, 1000, 500);
    measure("1,000 sessions streaming every 500 ms (1 s floor)", daemon, seconds);
    const bool streaming = still_streaming(clients);
    exact_reads(socket);
    if (streaming) {
        stop(clients);
    }
    stop(daemon);

    // The ledger: 1, 10 and 100 jobs at the daemon's defaults, then each asks for its view
    // at once, as a job array ending together would; then the same with every job's share
    // split for /metrics ([prometheus] per_job), and one scrape of it.
    for (const auto& [accounts, n] :
         {std::pair{false, 1}, {false, 10}, {false, 100}, {true, 1}, {true, 10}, {true, 100}}) {
        const int port = accounts ? free_port() : 0;
        daemon = start_daemon(binary, root, socket,
                              accounts ? fmt::format("[prometheus]\nlisten = \"127.0.0.1:{}\"\n"
                                                     "per_job = true\n",
                                                     port)
                                       : std::string{});
        JobPipes p;
        if (::pipe2(p.go, O_CLOEXEC) != 0 || ::pipe2(p.ready, O_CLOEXEC) != 0 ||
            ::pipe2(p.times, O_CLOEXEC) != 0) {
            std::perror("pipe");
            return 1;
        }
        const auto jobs = start_jobs(socket, n, 1000, p);
        const int ready = ready_jobs(p, n);
        measure(fmt::format("{} job{} {}, each streaming every 1 s{}", ready, ready == 1 ? "" : "s",
                            accounts ? "split for /metrics" : "in the ledger",
                            ready == n ? std::string{} : fmt::format(" ({} refused)", n - ready))
                    .c_str(),
                daemon, seconds);
        if (accounts) {
            const auto t0 = std::chrono::steady_clock::now();
            const auto size = scrape(port);
            const auto us =
                std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
                    .count();
            std::printf("  %-52s %.0f us, %zu bytes\n", "  one scrape of /metrics", us, size);
        }
        const std::string bytes(static_cast<std::size_t>(n), 'g');
        (void)!::write(p.go[1], bytes.data(), bytes.size());
        ::close(p.go[1]);
        std::vector<double> us;
        for (double t = 0; ::read(p.times[0], &t, sizeof t) == sizeof t;) {
            if (t >= 0) {
                us.push_back(t);
            }
        }
        for (const pid_t j : jobs) {
            ::waitpid(j, nullptr, 0);
        }
        ::close(p.ready[0]);
        ::close(p.times[0]);
        std::ranges::sort(us);
        if (!us.empty()) {
            std::printf("  %-52s p50 %.0f us, max %.0f us (%zu of %d answered)\n",
                        "  each job's ledger view, all at once", us[us.size() / 2], us.back(),
                        us.size(), ready);
        } else {
            std::printf("  %-52s none answered\n", "  each job's ledger view, all at once");
        }
        stop(daemon);
    }

    daemon = start_daemon(binary, root, socket,
                          many + "[access]\nfloor = \"100ms\"\njitter = \"100ms\"\n");
    clients = start_clients(socket, 1000, 100);
    measure("1,000 sessions streaming every 100 ms (100 ms floor)", daemon, seconds);
    if (still_streaming(clients)) {
        stop(clients);
    }
    stop(daemon);
    std::filesystem::remove_all(root);
}
