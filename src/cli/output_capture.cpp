// SPDX-License-Identifier: BSD-3-Clause
#include "cli/output_capture.hpp"

#include "core/clock.hpp"
#include "core/log.hpp"
#include "sys/thread_name.hpp"

#include <array>
#include <cerrno>
#include <csignal>
#include <cstddef>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

namespace jp::cli {
namespace {

constexpr std::size_t k_max_line = 4096;                // longer lines are cut for matching
constexpr std::size_t k_chunk = std::size_t{64} * 1024; // one read
constexpr std::size_t k_final_drain = 16 * k_chunk;     // read after the grace, at most
constexpr int k_pipe_size = 1024 * 1024;                // room while the thread is descheduled

void close_fd(int& fd) {
    if (fd >= 0) {
        ::close(fd);
        fd = -1;
    }
}

// A pipe whose ends are >= 3, so dup2 onto 1 and 2 in the child never clobbers one.
Result<void> make_pipe(int (&fds)[2]) {
    if (::pipe2(fds, O_CLOEXEC) != 0) {
        return std::unexpected(errno_error(errno, "pipe2"));
    }
    for (int& fd : fds) {
        if (fd < 3) {
            const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
            ::close(fd);
            fd = moved;
        }
    }
    if (fds[0] < 0 || fds[1] < 0) {
        close_fd(fds[0]);
        close_fd(fds[1]);
        return std::unexpected(errno_error(errno, "fcntl"));
    }
    ::fcntl(fds[0], F_SETPIPE_SZ, k_pipe_size); // best effort
    ::fcntl(fds[0], F_SETFL, O_NONBLOCK);       // the read end only: the job's end blocks
    return {};
}

// Writes everything unless the destination is gone; false then.
bool write_all(int fd, const char* data, std::size_t size) {
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size);
        if (n > 0) {
            data += n;
            size -= static_cast<std::size_t>(n);
        } else if (n < 0 && errno == EAGAIN) {
            pollfd p{fd, POLLOUT, 0};
            ::poll(&p, 1, 100);
        } else if (n < 0 && errno != EINTR) {
            return false;
        }
    }
    return true;
}

struct Stream {
    int& in;
    int out;
    std::string pending; // the current line so far
};

// Moves a stream's bytes to where they were going and hands its lines to the
// callback (cut to k_max_line for matching); a failing callback costs one
// line's markers, never the output.
class Pump {
public:
    explicit Pump(const OutputCapture::LineCallback& on_line) : m_on_line(on_line) {}

    // Reads once; false at end of file or error (the stream is then closed).
    bool read_once(Stream& s) {
        const ssize_t n = ::read(s.in, m_buf.data(), m_buf.size());
        if (n > 0) {
            take(s, {m_buf.data(), static_cast<std::size_t>(n)}, mono_ns());
            return s.in >= 0;
        }
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
            return true;
        }
        if (!s.pending.empty()) {
            emit(s, mono_ns()); // a last line without a newline
        }
        close_fd(s.in);
        return false;
    }

    // After the grace, a background child may still hold the pipe: take what
    // is there now, then close (its next write gets EPIPE).
    void drain_and_close(Stream& s) {
        std::size_t taken = 0;
        while (s.in >= 0 && taken < k_final_drain && read_once(s)) {
            taken += m_buf.size();
            pollfd p{s.in, POLLIN, 0};
            if (s.in < 0 || ::poll(&p, 1, 0) <= 0) {
                break;
            }
        }
        if (s.in >= 0) {
            if (!s.pending.empty()) {
                emit(s, mono_ns());
            }
            close_fd(s.in);
        }
    }

private:
    void emit(Stream& s, std::int64_t t) {
        try {
            m_on_line(s.pending, t);
        } catch (...) {
            if (!std::exchange(m_callback_failed, true)) {
                JP_LOG_ERROR("output markers: an error stopped one line's markers");
            }
        }
        s.pending.clear();
    }

    void take(Stream& s, std::string_view data, std::int64_t t) {
        if (!write_all(s.out, data.data(), data.size())) {
            // Where the job's output went is gone (e.g. `| head`): close the
            // pipe so the job sees EPIPE/SIGPIPE as it would without us.
            close_fd(s.in);
        }
        std::size_t nl = 0;
        while ((nl = data.find('\n')) != std::string_view::npos) {
            s.pending.append(data.substr(0, std::min(nl, k_max_line - s.pending.size())));
            emit(s, t);
            data.remove_prefix(nl + 1);
        }
        s.pending.append(data.substr(0, std::min(data.size(), k_max_line - s.pending.size())));
    }

    const OutputCapture::LineCallback& m_on_line;
    std::vector<char> m_buf = std::vector<char>(k_chunk);
    bool m_callback_failed = false;
};

} // namespace

Result<std::unique_ptr<OutputCapture>>
OutputCapture::create(LineCallback on_line, int stdout_fd, int stderr_fd) {
    std::unique_ptr<OutputCapture> c{new OutputCapture(std::move(on_line))};
    c->m_to_out = stdout_fd;
    c->m_to_err = stderr_fd;
    for (auto* fds : {&c->m_out, &c->m_err, &c->m_wake}) {
        if (auto r = make_pipe(*fds); !r) {
            return std::unexpected(r.error());
        }
    }
    return c;
}

OutputCapture::~OutputCapture() {
    finish();
    for (int* fd : {&m_out[0], &m_out[1], &m_err[0], &m_err[1], &m_wake[0], &m_wake[1]}) {
        close_fd(*fd);
    }
}

void OutputCapture::start() {
    close_fd(m_out[1]);
    close_fd(m_err[1]);
    m_thread = std::thread([this] { loop(); });
}

void OutputCapture::finish() {
    if (m_thread.joinable()) {
        const char byte = 1;
        (void)(::write(m_wake[1], &byte, 1) == 0);
        m_thread.join();
    }
}

void OutputCapture::loop() noexcept {
    sys::name_this_thread("jp-output");
    // A closed stdout must not kill the monitor: this thread gets EPIPE instead.
    sigset_t pipe_signal;
    sigemptyset(&pipe_signal);
    sigaddset(&pipe_signal, SIGPIPE);
    ::pthread_sigmask(SIG_BLOCK, &pipe_signal, nullptr);

    std::array<Stream, 2> streams{Stream{m_out[0], m_to_out, {}}, Stream{m_err[0], m_to_err, {}}};
    Pump pump{m_on_line};
    bool finishing = false;
    std::int64_t deadline = 0;
    while (streams[0].in >= 0 || streams[1].in >= 0) {
        int timeout = -1;
        if (finishing) {
            const std::int64_t left = deadline - mono_ns();
            if (left <= 0) {
                break;
            }
            timeout = static_cast<int>(left / 1'000'000) + 1;
        }
        std::array<pollfd, 3> fds{pollfd{streams[0].in, POLLIN, 0},
                                  pollfd{streams[1].in, POLLIN, 0},
                                  pollfd{finishing ? -1 : m_wake[0], POLLIN, 0}};
        if (::poll(fds.data(), fds.size(), timeout) < 0) {
            continue; // EINTR
        }
        for (std::size_t i = 0; i < streams.size(); ++i) {
            if (fds[i].fd >= 0 && fds[i].revents != 0) {
                pump.read_once(streams[i]);
            }
        }
        if (fds[2].fd >= 0 && fds[2].revents != 0) {
            finishing = true;
            deadline = mono_ns() + k_grace_ns;
        }
    }
    for (auto& st : streams) {
        pump.drain_and_close(st);
    }
}

} // namespace jp::cli
