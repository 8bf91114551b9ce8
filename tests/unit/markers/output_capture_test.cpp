// SPDX-License-Identifier: BSD-3-Clause
// The job's output through the monitor: byte for byte, at once, lines stamped.
#include "cli/output_capture.hpp"
#include "core/clock.hpp"

#include <csignal>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <mutex>
#include <poll.h>
#include <unistd.h>
#include <vector>

namespace jp::cli {
namespace {

struct Line {
    std::string text;
    std::int64_t mono;
};

class MarkOutputCapture : public ::testing::Test {
protected:
    void SetUp() override {
        std::signal(SIGPIPE, SIG_IGN);
        ASSERT_EQ(::pipe2(m_out, O_CLOEXEC), 0);
        ASSERT_EQ(::pipe2(m_err, O_CLOEXEC), 0);
        auto c = OutputCapture::create(
            [this](std::string_view line, std::int64_t mono) {
                const std::lock_guard lock{m_mutex};
                m_lines.push_back({std::string{line}, mono});
            },
            m_out[1], m_err[1]);
        ASSERT_TRUE(c) << c.error().message();
        m_capture = std::move(*c);
        // The test plays the job: it writes into copies of the child's ends.
        m_job_out = ::dup(m_capture->child_stdio().out);
        m_job_err = ::dup(m_capture->child_stdio().err);
        m_capture->start();
    }
    void TearDown() override {
        m_capture.reset();
        for (int fd : {m_out[0], m_out[1], m_err[0], m_err[1], m_job_out, m_job_err}) {
            if (fd >= 0) {
                ::close(fd);
            }
        }
    }
    // Reads what the monitor forwarded to fd, waiting up to timeout_ms for the first byte.
    static std::string forwarded(int fd, int timeout_ms = 2000) {
        std::string got;
        pollfd p{fd, POLLIN, 0};
        while (::poll(&p, 1, got.empty() ? timeout_ms : 50) > 0) {
            char buf[65536];
            const ssize_t n = ::read(fd, buf, sizeof buf);
            if (n <= 0) {
                break;
            }
            got.append(buf, static_cast<std::size_t>(n));
        }
        return got;
    }
    static void put(int fd, std::string_view s) {
        ASSERT_EQ(::write(fd, s.data(), s.size()), static_cast<ssize_t>(s.size()));
    }
    std::vector<Line> lines() {
        const std::lock_guard lock{m_mutex};
        return m_lines;
    }
    void close_job() {
        ::close(std::exchange(m_job_out, -1));
        ::close(std::exchange(m_job_err, -1));
    }

    int m_out[2] = {-1, -1};
    int m_err[2] = {-1, -1};
    int m_job_out = -1;
    int m_job_err = -1;
    std::unique_ptr<OutputCapture> m_capture;
    std::mutex m_mutex;
    std::vector<Line> m_lines;
};

TEST_F(MarkOutputCapture, PartialLinesAreForwardedAtOnce) {
    put(m_job_out, "Epoch 1: 3");
    EXPECT_EQ(forwarded(m_out[0]), "Epoch 1: 3") << "not held back until a newline";
    EXPECT_TRUE(lines().empty());
    const auto t0 = mono_ns();
    put(m_job_out, "0%\n");
    EXPECT_EQ(forwarded(m_out[0]), "0%\n");
    close_job();
    m_capture->finish();
    const auto l = lines();
    ASSERT_EQ(l.size(), 1U);
    EXPECT_EQ(l[0].text, "Epoch 1: 30%");
    EXPECT_GE(l[0].mono, t0) << "stamped when the line was complete";
}

TEST_F(MarkOutputCapture, BytesPassThroughUnchangedOnBothStreams) {
    std::string payload;
    for (int i = 0; i < 200'000; ++i) {
        payload += static_cast<char>((i * 7919) % 256); // NULs, CRs, newlines, high bytes
    }
    const std::string err = "warning: x\r\nno newline at the end";
    std::string got_out;
    std::thread reader{[&] {
        char buf[65536];
        ssize_t n = 0;
        while ((n = ::read(m_out[0], buf, sizeof buf)) > 0) { // until EOF
            got_out.append(buf, static_cast<std::size_t>(n));
        }
    }};
    put(m_job_out, payload);
    put(m_job_err, err);
    close_job();
    m_capture->finish();
    ::close(std::exchange(m_out[1], -1));
    reader.join();
    EXPECT_EQ(got_out.size(), payload.size());
    EXPECT_TRUE(got_out == payload) << "stdout differs";
    EXPECT_EQ(forwarded(m_err[0]), err);
    const auto l = lines();
    bool saw_warning = false;
    bool saw_tail = false;
    for (const auto& line : l) {
        saw_warning = saw_warning || line.text == "warning: x\r";
        saw_tail = saw_tail || line.text == "no newline at the end";
        EXPECT_LE(line.text.size(), 4096U);
    }
    EXPECT_TRUE(saw_warning);
    EXPECT_TRUE(saw_tail) << "the last line without a newline still counts";
}

TEST_F(MarkOutputCapture, FinishDoesNotWaitForeverOnABackgroundWriter) {
    put(m_job_out, "job done\n");
    // m_job_out stays open, as a background child of the job would keep it.
    const auto t0 = mono_ns();
    m_capture->finish();
    EXPECT_LT(mono_ns() - t0, 2 * OutputCapture::k_grace_ns + 500'000'000);
    EXPECT_EQ(forwarded(m_out[0]), "job done\n");
    // The pipe is closed now: the background writer gets EPIPE.
    EXPECT_EQ(::write(m_job_out, "x", 1), -1);
    EXPECT_EQ(errno, EPIPE);
}

TEST_F(MarkOutputCapture, AGoneDestinationClosesTheJobsPipe) {
    ::close(std::exchange(m_out[0], -1)); // like `jouleprof run ... | head -1` after head exited
    put(m_job_out, "first\n");
    ssize_t n = 1;
    for (int i = 0; i < 100 && n > 0; ++i) { // the monitor closes its end after its write fails
        ::usleep(20'000);
        n = ::write(m_job_out, "more\n", 5);
    }
    EXPECT_EQ(n, -1);
    EXPECT_EQ(errno, EPIPE) << "the job sees what it would see without the monitor";
    put(m_job_err, "stderr still works\n");
    EXPECT_EQ(forwarded(m_err[0]), "stderr still works\n");
}

} // namespace
} // namespace jp::cli
