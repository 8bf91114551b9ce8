// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A scripted jouleprofd on a real Unix socket, for the client's tests: it accepts one client
// and answers each request line with answer(request); hello_reply() answers a hello.
#include "daemon_client/wire.hpp"
#include "fake_sysfs.hpp"
#include "sys/socket.hpp"

#include <atomic>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <poll.h>
#include <stdexcept>
#include <string>
#include <sys/socket.h>
#include <thread>
#include <vector>

namespace jp::daemon {

class ScriptedServer {
public:
    using json = nlohmann::json;
    using Answer = std::function<std::string(const json& request)>;
    explicit ScriptedServer(Answer answer) : m_answer(std::move(answer)) {
        m_path = m_dir.path("/d.sock");
        auto fd = sys::listen_unix(m_path, 0600, 4);
        if (!fd) {
            throw std::runtime_error(fd.error().message());
        }
        m_listen = std::move(*fd);
        m_thread = std::thread([this] { serve(); });
    }
    ~ScriptedServer() {
        m_stop = true;
        m_thread.join();
    }
    ScriptedServer(const ScriptedServer&) = delete;
    ScriptedServer& operator=(const ScriptedServer&) = delete;
    [[nodiscard]] const std::filesystem::path& path() const { return m_path; }
    void say(std::string line) { // an unsolicited line (an event)
        const std::lock_guard lock{m_mutex};
        m_said.push_back(std::move(line));
    }
    std::atomic<bool> hang_up{false};

private:
    void serve() {
        pollfd p{m_listen.get(), POLLIN, 0};
        while (!m_stop && ::poll(&p, 1, 50) == 0) {
        }
        sys::UniqueFd c{::accept4(m_listen.get(), nullptr, nullptr, SOCK_CLOEXEC)};
        LineReader lines{1U << 20U};
        while (!m_stop && !hang_up) {
            {
                const std::lock_guard lock{m_mutex};
                for (const auto& l : m_said) {
                    (void)sys::send_all(c.get(), l + "\n");
                }
                m_said.clear();
            }
            pollfd q{c.get(), POLLIN, 0};
            if (::poll(&q, 1, 20) <= 0) {
                continue;
            }
            char buf[4096];
            const auto n = ::recv(c.get(), buf, sizeof buf, 0);
            if (n <= 0) {
                return;
            }
            lines.append({buf, static_cast<std::size_t>(n)});
            while (auto line = lines.next()) {
                const auto out = m_answer(json::parse(*line));
                if (!out.empty()) {
                    (void)sys::send_all(c.get(), out + "\n");
                }
            }
        }
    }

    jp::test::FakeSysfs m_dir;
    std::filesystem::path m_path;
    sys::UniqueFd m_listen;
    Answer m_answer;
    std::mutex m_mutex;
    std::vector<std::string> m_said;
    std::atomic<bool> m_stop{false};
    std::thread m_thread;
};

inline std::string hello_reply(const nlohmann::json& req, int version = 1) {
    using nlohmann::json;
    return json{{"id", req["id"]},
                {"ok", true},
                {"version", version},
                {"daemon", "jouleprofd test"},
                {"access", "floor"},
                {"interval_ms", 100},
                {"floor_ms", 1000},
                {"jitter_ms", 500},
                {"edge_reads", {{"burst", 4}, {"per_minute", 2.0}}},
                {"mono_ns", 0}}
        .dump();
}

} // namespace jp::daemon
