// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A real Redfish peer for the tests: nginx-light serving a copy of one of DMTF's
// mockups (data/redfish) on 127.0.0.1 over TLS, with Basic auth or an
// emulated SessionService, from a per-test temporary directory. Certificates
// come from two test CAs made with the openssl CLI; nginx is stopped by its PID.
#include <filesystem>
#include <string>
#include <string_view>
#include <sys/types.h>

namespace jp::test::redfish {

namespace fs = std::filesystem;

struct ServerOptions {
    std::string tree = "public-rackmount1"; // under data/redfish
    char ca = 'A';        // the test CA that signed the server's certificate ('A' or 'B')
    bool basic = true;    // Basic auth, user admin, password "secret"
    bool session = false; // POST .../Sessions gives X-Auth-Token `token`; others need it
    std::string token = "jp-token-1";
    bool tls = true; // false: plain http://
};

inline constexpr const char* k_password = "secret";
inline constexpr const char* k_session_path = "/redfish/v1/SessionService/Sessions/jp1";

class RedfishServer {
public:
    explicit RedfishServer(ServerOptions options = {});
    ~RedfishServer();
    RedfishServer(const RedfishServer&) = delete;
    RedfishServer& operator=(const RedfishServer&) = delete;
    RedfishServer(RedfishServer&&) = delete;
    RedfishServer& operator=(RedfishServer&&) = delete;

    // Starts nginx on a free port and waits (up to 5 s) until it accepts.
    [[nodiscard]] bool start();
    void stop();
    // Stops nginx and starts it again with other options on the same port.
    [[nodiscard]] bool restart(ServerOptions options);

    [[nodiscard]] std::string url() const; // https://127.0.0.1:PORT (http:// without tls)
    // The served copy: <tree>/redfish/v1 (rewrite files in it to change readings).
    [[nodiscard]] fs::path root() const { return m_dir / "www/redfish/v1"; }
    [[nodiscard]] fs::path dir() const { return m_dir; }
    // "METHOD URI STATUS" a line. nginx logs a request after its response is
    // sent, so a client can be ahead of the log: access_log(ending) waits (up
    // to 30 s) until the log ends with `ending`, then returns it.
    [[nodiscard]] std::string access_log() const;
    [[nodiscard]] std::string access_log(std::string_view ending) const;
    [[nodiscard]] std::string error_log() const;
    // A password file holding password, with these permission bits.
    [[nodiscard]] fs::path password_file(const std::string& password, fs::perms perms) const;

    // The PEM of test CA 'A' or 'B' (made once per test process).
    [[nodiscard]] static fs::path ca_file(char which);

private:
    void write_config() const;
    [[nodiscard]] bool launch(); // nginx on m_port; false when it exits or does not answer

    ServerOptions m_options;
    fs::path m_dir;
    int m_port = 0;
    pid_t m_pid = -1;
};

// Whether nginx and openssl are installed (the tests skip otherwise).
[[nodiscard]] bool have_tools();
// A port on 127.0.0.1 that nothing listens on (bound, then closed).
[[nodiscard]] int free_port();

// A TCP socket on 127.0.0.1 that accepts connections and never answers.
class SilentServer {
public:
    SilentServer();
    ~SilentServer();
    SilentServer(const SilentServer&) = delete;
    SilentServer& operator=(const SilentServer&) = delete;
    SilentServer(SilentServer&&) = delete;
    SilentServer& operator=(SilentServer&&) = delete;
    [[nodiscard]] std::string url() const;

private:
    int m_port = 0; // before m_fd: set while m_fd is made
    int m_fd = -1;
};

// Replaces file's content atomically (nginx never serves half of it).
void write_file(const fs::path& file, const std::string& content);
[[nodiscard]] std::string read_file(const fs::path& file);

} // namespace jp::test::redfish
