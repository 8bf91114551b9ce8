// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The monitor's side of the marker protocol: a Unix datagram socket in a
// private mode-0700 directory (so only the job's user can reach it), a
// thread that receives, validates and converts markers to trace time, and
// hands them to a sink. Only markers stamped inside the open run are kept.
#include "core/error.hpp"
#include "markers/protocol.hpp"

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace jp::markers {

class Server {
public:
    // t_ns: nanoseconds since the trace epoch. Called on the server's thread
    // or in close_run(), never concurrently.
    using Sink = std::function<void(Kind kind, std::int64_t t_ns, std::string name)>;

    // A marker stamped this far outside the run is still taken (and clamped
    // into it); farther out it is rejected.
    static constexpr std::int64_t k_slack_ns = 100'000'000;

    // Creates the directory under $TMPDIR (or /tmp) and starts listening.
    static Result<std::unique_ptr<Server>> start(std::int64_t epoch_mono_ns, Sink sink);
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;
    Server(Server&&) = delete;
    Server& operator=(Server&&) = delete;
    // Stops the thread, removes the socket and its directory.
    ~Server();

    [[nodiscard]] const std::string& socket_path() const noexcept { return m_socket_path; }

    // Accepts markers stamped from start_mono_ns on.
    void open_run(std::int64_t start_mono_ns);
    // Takes every message still queued (all the job sent before it was
    // reaped), then accepts none until the next open_run().
    void close_run(std::int64_t end_mono_ns);

    struct Counts {
        std::int64_t accepted = 0;
        std::int64_t rejected = 0;
    };
    [[nodiscard]] Counts counts() const;

private:
    Server(std::int64_t epoch, Sink sink);
    void loop();
    void receive_all_locked();
    void handle_locked(std::string_view datagram, bool truncated, std::optional<unsigned> uid);
    void reject_locked(const std::string& why);

    std::int64_t m_epoch;
    Sink m_sink;
    std::string m_dir;
    std::string m_socket_path;
    int m_fd = -1;
    int m_wake[2] = {-1, -1};
    mutable std::mutex m_mutex;
    bool m_open = false;
    std::int64_t m_start = 0;
    std::optional<std::int64_t> m_end;
    Counts m_counts;
    std::thread m_thread;
};

} // namespace jp::markers
