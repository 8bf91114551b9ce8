// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// OpenIPMI's ipmi_sim on 127.0.0.1 with the project's plug-in (tests/ipmi_sim/)
// answering DCMI and the XCC energy command from a scripted power profile; a
// fresh temporary directory per simulator, stopped by its PID.
#include "sensors/ipmi/lan.hpp"

#include <algorithm>
#include <arpa/inet.h>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <netinet/in.h>
#include <string>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace jp::sensors::ipmi::test {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

inline std::string find_sim() {
    for (const char* p : {"/usr/bin/ipmi_sim", "/usr/sbin/ipmi_sim"}) {
        if (::access(p, X_OK) == 0) {
            return p;
        }
    }
    return {};
}

inline std::string plugin_path() {
#ifdef JP_IPMI_SIM_PLUGIN
    return JP_IPMI_SIM_PLUGIN;
#else
    return {};
#endif
}

inline int free_udp_port() {
    const int fd = ::socket(AF_INET, SOCK_DGRAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    ::close(fd);
    return ntohs(a.sin_port);
}

inline double now_realtime() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// The profile: 250 W from start, 347 W from start + 50 s; start is 100 s ago.
struct Profile {
    double start = now_realtime() - 100.0;
    [[nodiscard]] double energy_at(double t) const {
        const double s = t - start;
        return s <= 50 ? 250 * s : 250 * 50 + 347 * (s - 50);
    }
};

// A stepped profile for end-to-end runs: (seconds after start, watts) steps,
// written over a simulator's profile file; energy between two real times.
struct StepProfile {
    double start = 0; // CLOCK_REALTIME seconds
    std::vector<std::pair<double, double>> steps{{0, 180},    {3.2, 320},  {7.7, 240},
                                                 {12.1, 410}, {16.4, 200}, {19.3, 290}};

    void write(const fs::path& file) const {
        std::ofstream out(file, std::ios::trunc);
        out << std::fixed << "start " << start << "\n";
        for (const auto& [at, w] : steps) {
            out << at << " " << w << "\n";
        }
    }
    // Joules between two CLOCK_REALTIME times.
    [[nodiscard]] double energy(double from_real, double to_real) const {
        const double from = from_real - start;
        const double to = to_real - start;
        double e = 0;
        for (std::size_t i = 0; i < steps.size(); ++i) {
            const double a = std::max(from, steps[i].first);
            const double b = std::min(to, i + 1 < steps.size() ? steps[i + 1].first : 1e18);
            e += b > a ? (b - a) * steps[i].second : 0;
        }
        return e;
    }
};

// ipmi_sim in a fresh temporary directory, stopped by its PID.
class SimBmc {
public:
    // emu_lines: more emulator commands before mc_enable (SDR sensors, Appendix B form).
    explicit SimBmc(const Profile& profile, const std::string& emu_lines = {})
        : m_dir(fs::temp_directory_path() /
                ("jp-ipmisim-" + std::to_string(::getpid()) + "-" + std::to_string(++s_count))),
          m_port(free_udp_port()) {
        fs::remove_all(m_dir);
        fs::create_directories(m_dir / "state");
        std::ofstream(m_dir / "profile")
            << std::fixed << "start " << profile.start << "\n0 250\n50 347\n";
        std::ofstream(m_dir / "lan.conf")
            << "name \"jptest\"\nset_working_mc 0x20\n  startlan 1\n    addr 127.0.0.1 " << m_port
            << "\n    priv_limit admin\n"
               "    allowed_auths_callback none md2 md5 straight\n"
               "    allowed_auths_user none md2 md5 straight\n"
               "    allowed_auths_operator none md2 md5 straight\n"
               "    allowed_auths_admin none md2 md5 straight\n"
               "    guid a123456789abcdefa123456789abcdef\n  endlan\n"
               "  user 2 true \"admin\" \"secret\" admin 10 none md2 md5 straight\n"
               "  user 3 true \"reader\" \"readpw\" user 10 none md2 md5 straight\n"
               "loadlib \""
            << plugin_path() << "\" \"profile=" << (m_dir / "profile").string() << "\"\n";
        std::ofstream(m_dir / "cmds.emu")
            << "mc_setbmc 0x20\nmc_add 0x20 0 no-device-sdrs 0x23 9 8 0x9f 0x1291 0xf02 "
               "persist_sdr\nsel_enable 0x20 1000 0x0a\n"
            << emu_lines << "mc_enable 0x20\n";
        // The admin's password for our client, in a root-only file as in production.
        std::ofstream(m_dir / "password") << "secret\n";
        fs::permissions(m_dir / "password", fs::perms::owner_read | fs::perms::owner_write);
    }
    ~SimBmc() {
        stop();
        std::error_code ec;
        fs::remove_all(m_dir, ec);
    }
    SimBmc(const SimBmc&) = delete;
    SimBmc& operator=(const SimBmc&) = delete;

    // Starts ipmi_sim and waits (up to 10 s) until an admin session opens.
    [[nodiscard]] bool start() {
        const std::string sim = find_sim();
        m_pid = ::fork();
        if (m_pid == 0) {
            const int null = ::open("/dev/null", O_RDONLY);
            const int log =
                ::open((m_dir / "sim.log").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
            ::dup2(null, 0);
            ::dup2(log, 1);
            ::dup2(log, 2);
            const std::string conf = (m_dir / "lan.conf").string();
            const std::string emu = (m_dir / "cmds.emu").string();
            const std::string state = (m_dir / "state").string();
            ::execl(sim.c_str(), sim.c_str(), "-c", conf.c_str(), "-f", emu.c_str(), "-s",
                    state.c_str(), "-n", static_cast<char*>(nullptr));
            ::_exit(127);
        }
        const auto deadline = std::chrono::steady_clock::now() + 10s;
        while (std::chrono::steady_clock::now() < deadline) {
            int status = 0;
            if (::waitpid(m_pid, &status, WNOHANG) == m_pid) {
                m_pid = -1;
                return false;
            }
            LanOptions o = options("admin", "secret", 4);
            o.timeout = 100ms;
            o.retries = 0;
            if (open_lan(o)) {
                return true;
            }
        }
        return false;
    }
    void stop() {
        if (m_pid > 0) {
            ::kill(m_pid, SIGTERM);
            ::waitpid(m_pid, nullptr, 0);
            m_pid = -1;
        }
    }
    [[nodiscard]] LanOptions
    options(std::string user, std::string password, std::uint8_t privilege) const {
        LanOptions o;
        o.host = "127.0.0.1";
        o.port = m_port;
        o.user = std::move(user);
        o.password = std::move(password);
        o.cipher_suite = 3;
        o.privilege = privilege;
        o.timeout = 500ms;
        o.retries = 1;
        return o;
    }
    [[nodiscard]] int port() const { return m_port; }
    [[nodiscard]] fs::path password_file() const { return m_dir / "password"; }
    [[nodiscard]] const fs::path& dir() const { return m_dir; }

private:
    static inline int s_count = 0;
    fs::path m_dir;
    int m_port;
    pid_t m_pid = -1;
};

} // namespace jp::sensors::ipmi::test
