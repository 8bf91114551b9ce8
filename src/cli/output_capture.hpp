// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Passes the job's stdout and stderr through the monitor byte for byte (each
// chunk written on as soon as it is read, partial lines too) and hands every
// complete line to a callback with the time it arrived. A thread drains both
// pipes all the time, so the job never waits on the monitor.
#include "core/error.hpp"
#include "process/runner.hpp"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>
#include <thread>

namespace jp::cli {

class OutputCapture {
public:
    // A line without its newline and CLOCK_MONOTONIC when it arrived.
    using LineCallback = std::function<void(std::string_view line, std::int64_t mono_ns)>;
    // After the job was reaped, output still held open by its children is
    // forwarded for this long before the pipes are closed.
    static constexpr std::int64_t k_grace_ns = 100'000'000;

    // Creates the pipes; forwards to the monitor's stdout_fd/stderr_fd.
    static Result<std::unique_ptr<OutputCapture>>
    create(LineCallback on_line, int stdout_fd = 1, int stderr_fd = 2);
    OutputCapture(const OutputCapture&) = delete;
    OutputCapture& operator=(const OutputCapture&) = delete;
    OutputCapture(OutputCapture&&) = delete;
    OutputCapture& operator=(OutputCapture&&) = delete;
    ~OutputCapture();

    // The pipes' write ends, for the child.
    [[nodiscard]] process::Stdio child_stdio() const noexcept { return {m_out[1], m_err[1]}; }
    // After the fork: closes the write ends here and starts forwarding.
    void start();
    // After the job was reaped: forwards the rest (see k_grace_ns) and stops.
    void finish();

private:
    explicit OutputCapture(LineCallback on_line) : m_on_line(std::move(on_line)) {}
    void loop() noexcept;

    LineCallback m_on_line;
    int m_to_out = 1;
    int m_to_err = 2;
    int m_out[2] = {-1, -1};
    int m_err[2] = {-1, -1};
    int m_wake[2] = {-1, -1};
    std::thread m_thread;
};

} // namespace jp::cli
