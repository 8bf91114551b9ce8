// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Integration tests of jouleprofd: a real daemon (root) on a fake powercap
// tree whose energy_uj is mode 0400 and follows a known power profile, and
// clients run as unprivileged users through runuser.
#include "fake_sysfs.hpp"
#include "profile_writer.hpp"
#include "shell.hpp"

#include <chrono>
#include <gtest/gtest.h>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace jp::test {

// A process with pipes to its stdin and stdout; killed by its pid when it goes.
class Peer {
public:
    explicit Peer(const std::vector<std::string>& argv);
    Peer(const Peer&) = delete;
    Peer& operator=(const Peer&) = delete;
    Peer(Peer&&) = delete;
    Peer& operator=(Peer&&) = delete;
    ~Peer();

    void send(std::string_view line); // a '\n' is added
    void send_raw(std::string_view bytes);
    void close_stdin();
    // The next line of its stdout, or nullopt after timeout or at its end.
    std::optional<std::string> line(std::chrono::milliseconds timeout = std::chrono::seconds{10});
    // The next stdout line that is a reply (not an event), parsed; null on timeout.
    nlohmann::json reply(std::chrono::milliseconds timeout = std::chrono::seconds{10});
    // Sends a request and returns its reply.
    nlohmann::json call(const nlohmann::json& request);
    // Events seen while waiting for replies.
    std::vector<nlohmann::json> events;
    [[nodiscard]] pid_t pid() const noexcept { return m_pid; }
    // Waits for it to exit; its exit code (128+N for signal N).
    int wait();

private:
    pid_t m_pid = -1;
    int m_in = -1;
    int m_out = -1;
    std::string m_buf;
};

inline constexpr const char* k_alice = "jpd-alice"; // floored
inline constexpr const char* k_bob = "jpd-bob";     // floored, another user
inline constexpr const char* k_carol = "jpd-carol"; // in the full-resolution group
inline constexpr const char* k_full_group = "jpd-full";

class DaemonTest : public ::testing::Test {
protected:
    void SetUp() override;
    void TearDown() override;

    // Writes the daemon's config (the [access] table names k_full_group, plus
    // extra TOML) and starts jouleprofd; waits until it serves.
    void start_daemon(const std::string& extra_toml = "");
    // Sends sig to the daemon and waits for it; its exit code.
    int stop_daemon(int sig = SIGTERM);
    [[nodiscard]] std::string daemon_log() const;

    // A command line run as user, with the daemon's socket in its environment.
    [[nodiscard]] std::string as(const char* user, const std::string& command) const;
    // jouleprof with the fake root and a config without the estimate.
    [[nodiscard]] std::string jp(const std::string& args) const;
    [[nodiscard]] std::unique_ptr<Peer> probe(const char* user) const;
    // A directory the user owns, for traces and job output.
    [[nodiscard]] std::string home(const char* user) const;
    [[nodiscard]] std::string path(const char* p) const { return fs.path(p).string(); }

    FakeSysfs fs;
    std::unique_ptr<ProfileWriter> writer;
    std::string bin;    // copies of the binaries any user can run
    std::string socket; // the daemon's socket
    pid_t daemon_pid = -1;
};

// The uid of a user name (-1 if none).
[[nodiscard]] long uid_of(const char* user);

// A TCP port free on 127.0.0.1 right now.
[[nodiscard]] int free_port();
// GET http://127.0.0.1:port/target; the whole response, headers included ("" if refused).
[[nodiscard]] std::string http_get(int port, const std::string& target);
// A response's body.
[[nodiscard]] std::string body_of(const std::string& response);

} // namespace jp::test
