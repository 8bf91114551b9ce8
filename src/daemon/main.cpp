// SPDX-License-Identifier: BSD-3-Clause
// jouleprofd: the node daemon that measures as root and serves every local
// user what they may see (docs/daemon.md, docs/daemon-protocol.md, docs/security.md).
#include "cli/globals.hpp"
#include "core/build_info.hpp"
#include "core/log.hpp"
#include "daemon/server.hpp"

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

using namespace jp;

struct Options {
    cli::Globals globals;
    std::string socket;
    bool check = false;
};

// --config, or the default file when it exists, or the built-in defaults.
Result<daemon::DaemonConfig> load(const Options& o, std::filesystem::path& reload_path) {
    std::filesystem::path path = o.globals.config_path;
    std::error_code ec;
    if (path.empty() && std::filesystem::exists(daemon::k_default_config, ec)) {
        path = daemon::k_default_config;
    }
    if (path.empty()) {
        JP_LOG_INFO("no {}: built-in defaults", daemon::k_default_config);
        return daemon::DaemonConfig{};
    }
    reload_path = path;
    return daemon::load_daemon_config(path);
}

void raise_fd_limit() {
    rlimit r{};
    if (::getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
        r.rlim_cur = r.rlim_max;
        ::setrlimit(RLIMIT_NOFILE, &r);
    }
}

int serve(daemon::DaemonConfig config, const sensors::Host& host, std::filesystem::path reload) {
    raise_fd_limit();
    if (::geteuid() != 0) {
        JP_LOG_WARN("jouleprofd runs as uid {}, not root: it serves only what that user can read",
                    ::geteuid());
    }
    const auto dir = config.daemon.socket.parent_path();
    std::error_code ec;
    if (!dir.empty() && !std::filesystem::exists(dir, ec)) {
        std::filesystem::create_directories(dir, ec);
        ::chmod(dir.c_str(), 0755);
    }
    auto engine = daemon::Engine::start(host, config);
    if (!engine) {
        JP_LOG_ERROR("{}", engine.error().message());
        return 1;
    }
    for (const auto& note : (*engine)->notes()) {
        JP_LOG_INFO("{}", note);
    }
    std::string names;
    for (const auto& c : (*engine)->channels()) {
        names += (names.empty() ? "" : ", ") + c.name;
    }
    const auto socket = config.daemon.socket;
    const auto access = config.access;
    auto server = daemon::Server::create(std::move(config), std::move(*engine), std::move(reload));
    if (!server) {
        JP_LOG_ERROR("{}", server.error().message());
        return 1;
    }
    JP_LOG_INFO("{} serving {} on {} (others: {}, floor {}, jitter {})",
                jp::version_line("jouleprofd"), names, socket.string(),
                access.others_allowed ? "floored" : "denied", format_duration(access.floor),
                format_duration(access.jitter));
    (*server)->run();
    JP_LOG_INFO("jouleprofd stopped");
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    sigset_t set;
    sigemptyset(&set);
    for (int sig : {SIGTERM, SIGINT, SIGHUP}) {
        sigaddset(&set, sig);
    }
    pthread_sigmask(SIG_BLOCK, &set, nullptr); // before any thread: served by a signalfd
    std::signal(SIGPIPE, SIG_IGN);

    CLI::App app{"jouleprofd: measures the node as root and serves every local user", "jouleprofd"};
    app.set_version_flag("--version", jp::version_line("jouleprofd"));
    Options o;
    cli::add_globals(app, o.globals);
    app.get_option("--config")
        ->description(
            "jouleprofd's config (default /etc/jouleprof/jouleprofd.toml; jouleprofd.toml(5))");
    app.add_option("--socket", o.socket,
                   "Unix socket to serve (default from the config, or "
                   "/run/jouleprof/jouleprofd.sock)");
    app.add_flag("--check", o.check,
                 "Check the config file, then exit; the sensors are "
                 "found when it starts");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) {
            return app.exit(e);
        }
        std::fprintf(stderr, "jouleprofd: error: %s\n", e.what());
        return 2;
    }
    log::set_program("jouleprofd");
    log::set_level(log::Level::info); // a daemon says what it does; -q for errors only
    cli::set_log_level(o.globals);
    try {
        std::filesystem::path reload;
        auto config = load(o, reload);
        if (!config) {
            std::fprintf(stderr, "jouleprofd: error: %s\n", config.error().message().c_str());
            return 2;
        }
        if (!o.socket.empty()) {
            config->daemon.socket = o.socket;
        }
        const auto host = cli::make_host(o.globals, config->sensors);
        if (o.check) {
            std::printf("jouleprofd: %s is valid\n",
                        reload.empty() ? "the built-in default config" : reload.c_str());
            return 0;
        }
        return serve(std::move(*config), host, std::move(reload));
    } catch (const Fatal& e) {
        std::fprintf(stderr, "jouleprofd: error: %s\n", e.what());
        return 2;
    }
}
