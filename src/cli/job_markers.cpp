// SPDX-License-Identifier: BSD-3-Clause
#include "cli/job_markers.hpp"

#include "core/log.hpp"
#include "process/runner.hpp"

#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace jp::cli {

std::expected<std::vector<markers::LineRule>, std::string>
parse_mark_regexes(const std::vector<std::string>& specs) {
    std::vector<markers::LineRule> rules;
    for (const auto& spec : specs) {
        auto rule = markers::parse_line_rule(spec);
        if (!rule) {
            return std::unexpected(rule.error());
        }
        rules.push_back(std::move(*rule));
    }
    return rules;
}

namespace {

// The README's `jouleprof mark` from a job whose PATH lacks jouleprof (a build
// tree, ~/bin): the job's PATH with the monitor's own directory at its end, so
// a jouleprof the PATH has is still the one found; nothing when the PATH finds
// one already or the monitor is not the jouleprof program (the Python layer).
std::optional<std::string> path_with_monitor() {
    const auto dir = process::executable_dir();
    std::error_code ec;
    // A ':' would split the directory into other entries (one of them relative).
    if (dir.empty() || dir.string().find(':') != std::string::npos ||
        !std::filesystem::exists(dir / "jouleprof", ec) ||
        std::filesystem::read_symlink("/proc/self/exe", ec).filename() != "jouleprof" ||
        process::resolve_program("jouleprof")) {
        return std::nullopt;
    }
    // No PATH: the job's exec would search the C library's default one; it stays first.
    const char* path = std::getenv("PATH");
    std::string base = path != nullptr ? path : "";
    if (base.empty()) {
        base.resize(::confstr(_CS_PATH, nullptr, 0));
        ::confstr(_CS_PATH, base.data(), base.size());
        base.resize(std::strlen(base.c_str()));
    }
    return base.empty() ? dir.string() : base + ":" + dir.string();
}

} // namespace

JobMarkers::JobMarkers(std::vector<markers::LineRule> rules,
                       Recorder& recorder,
                       std::int64_t epoch_mono_ns,
                       const std::filesystem::path& trace,
                       bool stdout_to_stderr)
    : m_recorder(recorder), m_epoch(epoch_mono_ns),
      m_lines(
          std::move(rules),
          [this](markers::Kind k, std::int64_t t, const std::string& name) { add(k, t, name); }),
      m_stdout_to_stderr(stdout_to_stderr) {
    std::error_code ec;
    m_trace = std::filesystem::absolute(trace, ec).string();
    auto server =
        markers::Server::start(epoch_mono_ns, [this](markers::Kind k, std::int64_t t,
                                                     const std::string& name) { add(k, t, name); });
    if (server) {
        m_server = std::move(*server);
    } else {
        JP_LOG_WARN("markers: {}; `jouleprof mark` and the C API are ignored in this job",
                    server.error().message());
    }
}

JobMarkers::~JobMarkers() = default;

void JobMarkers::add(markers::Kind kind, std::int64_t t_ns, const std::string& name) {
    m_recorder.add_marker(t_ns, markers::to_string(kind), name);
}

JobMarkers::Job JobMarkers::prepare(std::int64_t run_id) {
    Job job;
    // Empty when there is no socket, so a job nested in another jouleprof run
    // does not mark into the outer one.
    job.env.emplace_back(markers::k_env_socket, m_server ? m_server->socket_path() : "");
    job.env.emplace_back(markers::k_env_trace, m_trace);
    job.env.emplace_back(markers::k_env_run_id, std::to_string(run_id));
    if (auto path = path_with_monitor()) {
        job.env.emplace_back("PATH", std::move(*path));
    }
    m_end_mono = INT64_MAX;
    const int to_out = m_stdout_to_stderr ? STDERR_FILENO : STDOUT_FILENO;
    if (m_lines.empty()) {
        job.stdio.out = m_stdout_to_stderr ? STDERR_FILENO : -1;
        return job; // the job keeps the monitor's stdout (or its stderr) and stderr
    }
    auto capture = OutputCapture::create(
        [this](std::string_view line, std::int64_t mono) {
            m_lines.line(line, std::min(mono, m_end_mono.load()) - m_epoch);
        },
        to_out, STDERR_FILENO);
    if (!capture) {
        JP_LOG_WARN("--mark-regex: {}; the job's output is not matched this run",
                    capture.error().message());
        job.stdio.out = m_stdout_to_stderr ? STDERR_FILENO : -1;
        return job;
    }
    m_capture = std::move(*capture);
    job.stdio = m_capture->child_stdio();
    // Python buffers stdout in 8 KiB blocks when it is not a terminal: lines
    // would reach the monitor (and be stamped) late.
    if (std::getenv("PYTHONUNBUFFERED") == nullptr) {
        job.env.emplace_back("PYTHONUNBUFFERED", "1");
    }
    return job;
}

void JobMarkers::spawned() {
    if (m_capture) {
        m_capture->start();
    }
}

void JobMarkers::started(std::int64_t start_mono_ns) {
    if (m_server) {
        m_server->open_run(start_mono_ns);
    }
}

void JobMarkers::ended(std::int64_t end_mono_ns) {
    if (m_server) {
        m_server->close_run(end_mono_ns);
    }
    m_end_mono = end_mono_ns; // output read from now on is stamped at the end
    if (m_capture) {
        m_capture->finish();
        m_capture.reset();
    }
    m_lines.finish(end_mono_ns - m_epoch);
}

} // namespace jp::cli
