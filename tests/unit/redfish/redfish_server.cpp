// SPDX-License-Identifier: BSD-3-Clause
#include "redfish_server.hpp"

#include <arpa/inet.h>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <fstream>
#include <netinet/in.h>
#include <sstream>
#include <stdexcept>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace jp::test::redfish {
namespace {

using namespace std::chrono_literals;

constexpr const char* k_nginx = "/usr/sbin/nginx";
constexpr const char* k_openssl = "/usr/bin/openssl";

// Runs argv (no shell) with stdout and stderr into out; its exit status.
int run(const std::vector<std::string>& argv, const fs::path& out) {
    std::vector<char*> args; // made before fork: the child only opens, dups and execs
    args.reserve(argv.size() + 1);
    for (const auto& a : argv) {
        args.push_back(const_cast<char*>(a.c_str()));
    }
    args.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) {
        const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0) {
            ::_exit(126);
        }
        ::dup2(fd, 1);
        ::dup2(fd, 2);
        ::execv(args[0], args.data());
        ::_exit(127);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void must(const std::vector<std::string>& argv, const fs::path& log) {
    if (run(argv, log) != 0) {
        throw std::runtime_error(argv[1] + " failed: " + read_file(log));
    }
}

// Two test CAs and a server certificate (subjectAltName IP:127.0.0.1) from each,
// made once per test process and removed at its exit.
struct TestPki {
    fs::path dir = fs::temp_directory_path() / ("jp-redfish-pki-" + std::to_string(::getpid()));

    TestPki() {
        fs::remove_all(dir);
        fs::create_directories(dir);
        write_file(dir / "server.ext", "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n"
                                       "keyUsage=digitalSignature,keyEncipherment\n"
                                       "extendedKeyUsage=serverAuth\n");
        for (const char* ca : {"A", "B"}) {
            make(ca);
        }
    }
    ~TestPki() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
    TestPki(const TestPki&) = delete;
    TestPki& operator=(const TestPki&) = delete;
    TestPki(TestPki&&) = delete;
    TestPki& operator=(TestPki&&) = delete;

    [[nodiscard]] std::string p(const std::string& name) const { return (dir / name).string(); }

    void make(const std::string& ca) const {
        const std::vector<std::string> ec{"-newkey", "ec", "-pkeyopt",
                                          "ec_paramgen_curve:prime256v1", "-nodes"};
        std::vector<std::string> req{k_openssl, "req", "-x509"};
        req.insert(req.end(), ec.begin(), ec.end());
        req.insert(req.end(), {"-keyout", p("ca" + ca + ".key"), "-out", p("ca" + ca + ".pem"),
                               "-days", "2", "-subj", "/CN=jouleprof test CA " + ca});
        must(req, dir / "openssl.log");
        std::vector<std::string> csr{k_openssl, "req"};
        csr.insert(csr.end(), ec.begin(), ec.end());
        csr.insert(csr.end(), {"-keyout", p("server" + ca + ".key"), "-out",
                               p("server" + ca + ".csr"), "-subj", "/CN=127.0.0.1"});
        must(csr, dir / "openssl.log");
        must({k_openssl, "x509", "-req", "-in", p("server" + ca + ".csr"), "-CA",
              p("ca" + ca + ".pem"), "-CAkey", p("ca" + ca + ".key"), "-CAcreateserial", "-out",
              p("server" + ca + ".pem"), "-days", "2", "-extfile", p("server.ext")},
             dir / "openssl.log");
    }
};

const TestPki& pki() {
    static const TestPki k_pki;
    return k_pki;
}

bool accepts(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return false;
    }
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    ::close(fd);
    return ok;
}

std::string session_locations(const std::string& token) {
    return std::string{"    location = /redfish/v1/SessionService/Sessions {\n"
                       "      if ($request_method = POST) {\n"
                       "        add_header X-Auth-Token "} +
           token +
           " always;\n"
           "        add_header Location " +
           k_session_path +
           " always;\n"
           "        return 201 '{\"@odata.id\":\"" +
           k_session_path +
           "\"}';\n"
           "      }\n"
           "      return 405;\n"
           "    }\n"
           "    location = " +
           k_session_path +
           " {\n"
           "      if ($request_method = DELETE) { return 204; }\n"
           "      return 405;\n"
           "    }\n";
}

// A socket bound to 127.0.0.1 on a port the kernel picks; -1 on failure.
int bound_socket(int& port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
        if (fd >= 0) {
            ::close(fd);
        }
        throw std::runtime_error("cannot bind a socket on 127.0.0.1");
    }
    port = ntohs(a.sin_port);
    return fd;
}

} // namespace

bool have_tools() {
    return ::access(k_nginx, X_OK) == 0 && ::access(k_openssl, X_OK) == 0;
}

int free_port() {
    int port = 0;
    ::close(bound_socket(port));
    return port;
}

void write_file(const fs::path& file, const std::string& content) {
    const auto tmp = fs::path{file.string() + ".tmp"};
    std::ofstream(tmp, std::ios::binary | std::ios::trunc) << content;
    fs::rename(tmp, file);
}

std::string read_file(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

fs::path RedfishServer::ca_file(char which) {
    return pki().dir / (std::string{"ca"} + which + ".pem");
}

RedfishServer::RedfishServer(ServerOptions options) : m_options(std::move(options)) {
    static int count = 0;
    m_dir = fs::temp_directory_path() /
            ("jp-redfish-" + std::to_string(::getpid()) + "-" + std::to_string(++count));
    fs::remove_all(m_dir);
    fs::create_directories(m_dir / "tmp");
    fs::create_directories(root());
    fs::copy(fs::path{JP_DATA_DIR} / "redfish" / m_options.tree, root(),
             fs::copy_options::recursive);
    const std::string ca{m_options.ca};
    fs::copy_file(pki().dir / ("server" + ca + ".pem"), m_dir / "server.pem");
    fs::copy_file(pki().dir / ("server" + ca + ".key"), m_dir / "server.key");
    must({k_openssl, "passwd", "-apr1", k_password}, m_dir / "hash");
    auto hash = read_file(m_dir / "hash");
    write_file(m_dir / "htpasswd", "admin:" + hash);
}

RedfishServer::~RedfishServer() {
    stop();
    std::error_code ec;
    fs::remove_all(m_dir, ec);
}

void RedfishServer::write_config() const {
    const auto d = m_dir.string();
    std::string auth;
    if (m_options.basic) {
        auth += "      auth_basic \"redfish\";\n      auth_basic_user_file " + d + "/htpasswd;\n";
    }
    if (m_options.session) {
        auth += "      if ($rf_token_ok = 0) { return 401 '{\"error\":{\"message\":\"no "
                "session\"}}'; }\n";
    }
    std::ostringstream c;
    c << "daemon off;\nmaster_process off;\nworker_processes 1;\npid " << d << "/nginx.pid;\n"
      << "error_log " << d << "/error.log info;\nevents { worker_connections 64; }\nhttp {\n"
      << "  log_format rf '$request_method $request_uri $status';\n"
      << "  access_log " << d << "/access.log rf;\n";
    for (const char* t : {"client_body", "proxy", "fastcgi", "uwsgi", "scgi"}) {
        c << "  " << t << "_temp_path " << d << "/tmp/" << t << ";\n";
    }
    c << "  default_type application/json;\n"

      << "  map $http_x_auth_token $rf_token_ok { \"" << m_options.token << "\" 1; default 0; }\n"
      << "  server {\n    listen 127.0.0.1:" << m_port << (m_options.tls ? " ssl" : "") << ";\n"
      << "    ssl_certificate " << d << "/server.pem;\n    ssl_certificate_key " << d
      << "/server.key;\n    root " << d << "/www;\n"
      << (m_options.session ? session_locations(m_options.token) : "")
      << "    location /redfish/v1 {\n"
      << auth << "      try_files $uri/index.json $uri =404;\n    }\n  }\n}\n";
    write_file(m_dir / "nginx.conf", c.str());
}

bool RedfishServer::launch() {
    write_config();
    const auto out = (m_dir / "nginx.out").string();
    const auto err = (m_dir / "error.log").string();
    const auto conf = (m_dir / "nginx.conf").string();
    m_pid = ::fork();
    if (m_pid == 0) {
        const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
        if (fd < 0) {
            ::_exit(126);
        }
        ::dup2(fd, 1);
        ::dup2(fd, 2);
        ::execl(k_nginx, k_nginx, "-e", err.c_str(), "-c", conf.c_str(),
                static_cast<char*>(nullptr));
        ::_exit(127);
    }
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (std::chrono::steady_clock::now() < deadline) {
        if (::waitpid(m_pid, nullptr, WNOHANG) == m_pid) {
            m_pid = -1; // exited: the port was taken meanwhile, or a bad config
            return false;
        }
        if (accepts(m_port)) {
            return true;
        }
        std::this_thread::sleep_for(10ms);
    }
    stop();
    return false;
}

bool RedfishServer::start() {
    for (int attempt = 0; attempt < 3; ++attempt) {
        m_port = free_port();
        if (launch()) {
            return true;
        }
    }
    return false;
}

bool RedfishServer::restart(ServerOptions options) {
    stop();
    m_options = std::move(options);
    return launch();
}

void RedfishServer::stop() {
    if (m_pid > 0) {
        ::kill(m_pid, SIGTERM);
        ::waitpid(m_pid, nullptr, 0);
        m_pid = -1;
    }
}

std::string RedfishServer::url() const {
    return (m_options.tls ? "https://127.0.0.1:" : "http://127.0.0.1:") + std::to_string(m_port);
}

std::string RedfishServer::access_log() const {
    return read_file(m_dir / "access.log");
}

std::string RedfishServer::access_log(std::string_view ending) const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    auto log = access_log();
    while (!log.ends_with(ending) && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        log = access_log();
    }
    return log;
}

std::string RedfishServer::error_log() const {
    return read_file(m_dir / "error.log") + read_file(m_dir / "nginx.out");
}

fs::path RedfishServer::password_file(const std::string& password, fs::perms perms) const {
    const auto f = m_dir / "password";
    write_file(f, password + "\n");
    fs::permissions(f, perms);
    return f;
}

SilentServer::SilentServer() : m_fd(bound_socket(m_port)) {
    // The kernel completes connections; nobody ever accepts or answers them.
    if (::listen(m_fd, 16) != 0) {
        ::close(m_fd);
        throw std::runtime_error("cannot listen on 127.0.0.1");
    }
}

SilentServer::~SilentServer() {
    ::close(m_fd);
}

std::string SilentServer::url() const {
    return "https://127.0.0.1:" + std::to_string(m_port);
}

} // namespace jp::test::redfish
