// SPDX-License-Identifier: BSD-3-Clause
// `jouleprof record -o PATH`: measures the node from now until told to stop,
// as one "measure" run with exact edges; the job is not a child of it. Used by
// the Slurm SPANK plugin (spank/), which starts it before a step's first task
// and stops it after the last one; usable by hand or from a prolog/epilog too.
// With --job PID the trace holds the job's share of the node too: the Slurm
// step PID runs in (its cgroup), else PID's process tree (docs/attribution.md).
//
// Stops on end of standard input or on SIGINT/SIGTERM/SIGHUP/SIGQUIT. Lines on
// standard input, all optional:
//   meta KEY=VALUE     stored in the trace's meta (at the end: e.g. task pids)
//   end STATUS         the run's status: complete (default), failed or interrupted
// Standard output says "env KEY=VALUE" for each variable that lets the job mark
// phases into the run (`jouleprof mark`), then "ready PID" once the start edge
// is taken, and "done STATUS" once the trace is closed, or "error: WHY" when
// nothing is measured. The trace's meta holds this node's clock offset to the
// file system the trace is written to (sys/clock_probe.hpp), so that traces of
// several nodes are laid on one time axis.
#include "cli/command.hpp"
#include "cli/measurement.hpp"
#include "cli/usage_hints.hpp"
#include "core/log.hpp"
#include "core/text.hpp"
#include "sys/clock_probe.hpp"
#include "sys/file.hpp"
#include "trace/sqlite.hpp"

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <poll.h>
#include <string>
#include <sys/signalfd.h>
#include <unistd.h>
#include <vector>

namespace jp::cli {
namespace {

struct RecordOptions {
    std::filesystem::path output;
    Nanos interval{std::chrono::milliseconds{500}};
    std::string label = "default";
    std::string command = "(recorded until stopped)";
    std::vector<std::string> meta; // KEY=VALUE
    std::string job_text;          // --job as given
    pid_t job = 0;                 // a process of the job whose share is recorded; 0: none
};

// What standard input asked for so far.
struct Control {
    std::map<std::string, std::string> meta;
    std::string status = "complete";
    std::string pending; // a line not yet ended
    bool ended = false;  // "end" seen or end of input
};

void say(const std::string& line) {
    std::fputs((line + "\n").c_str(), stdout);
    std::fflush(stdout);
}

void take_line(Control& c, const std::string& line) {
    if (line.starts_with("meta ")) {
        const auto eq = line.find('=', 5);
        if (eq != std::string::npos && eq > 5) {
            c.meta[line.substr(5, eq - 5)] = line.substr(eq + 1);
            return;
        }
    } else if (line == "end" || line.starts_with("end ")) {
        const auto status = line.size() > 4 ? line.substr(4) : std::string{"complete"};
        if (status == "complete" || status == "failed" || status == "interrupted") {
            c.status = status;
            c.ended = true;
            return;
        }
    }
    JP_LOG_WARN("record: ignored a control line: '{}'", line.substr(0, 80));
}

// Reads what standard input has; false at its end.
bool read_control(Control& c) {
    char buf[4096];
    const ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
    if (n < 0) {
        return errno == EINTR || errno == EAGAIN;
    }
    if (n == 0) {
        return false;
    }
    c.pending.append(buf, static_cast<std::size_t>(n));
    for (auto nl = c.pending.find('\n'); nl != std::string::npos; nl = c.pending.find('\n')) {
        take_line(c, c.pending.substr(0, nl));
        c.pending.erase(0, nl + 1);
    }
    return c.pending.size() < 65536;
}

// Waits for the end: an "end" line, the end of input, or a stopping signal (returned).
std::optional<int> wait_for_end(Control& c) {
    sigset_t set;
    sigemptyset(&set);
    for (const int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) {
        sigaddset(&set, s);
    }
    const int sfd = ::signalfd(-1, &set, SFD_CLOEXEC); // blocked since main_entry
    pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {sfd, POLLIN, 0}};
    while (!c.ended) {
        if (::poll(fds, sfd >= 0 ? 2 : 1, -1) < 0) {
            continue; // EINTR
        }
        if ((fds[1].revents & POLLIN) != 0) {
            signalfd_siginfo info{};
            const auto n = ::read(sfd, &info, sizeof info);
            ::close(sfd);
            return n == sizeof info ? static_cast<int>(info.ssi_signo) : SIGTERM;
        }
        if (fds[0].revents != 0 && !read_control(c)) {
            c.ended = true;
        }
    }
    if (sfd >= 0) {
        ::close(sfd);
    }
    return std::nullopt;
}

// Meta given on standard input is written once the session has closed the trace.
bool store_meta(const std::filesystem::path& path, const std::map<std::string, std::string>& meta) {
    if (meta.empty()) {
        return true;
    }
    auto db = trace::Database::open(path, trace::Database::Mode::create);
    if (!db) {
        return false;
    }
    db->set_busy_timeout(2000);
    auto st = db->prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)");
    bool ok = st.has_value();
    for (const auto& [key, value] : meta) {
        ok = ok && st->bind(1, key).bind(2, value).run().has_value();
    }
    return ok;
}

// This node's clock against the file system's and the kernel's own account of it.
void add_clock_meta(const std::filesystem::path& output, std::map<std::string, std::string>& meta) {
    const auto dir = output.has_parent_path() ? output.parent_path() : std::filesystem::path{"."};
    if (auto o = sys::probe_file_system_clock(dir)) {
        meta["clock.offset_ns"] = std::to_string(o->offset_ns);
        meta["clock.offset_error_ns"] = std::to_string(o->error_ns);
        meta["clock.reference"] = "file system of " + dir.string();
    } else {
        JP_LOG_WARN("clock: {}; this node's trace is aligned with others by its own clock",
                    o.error().message());
    }
    if (const auto sync = sys::kernel_clock_sync()) {
        meta["clock.synchronized"] = sync->synchronized ? "yes" : "no";
        meta["clock.esterror_ns"] = std::to_string(sync->esterror_ns);
    }
}

int record(const RecordOptions& o, const sensors::Host& host, const Config& config) {
    SessionOptions so{
        o.output, o.interval,
        false,    {},
        false,    {{"command", o.command}, {"label", o.label}, {"recorded", "jouleprof record"}}};
    add_clock_meta(o.output, so.meta);
    for (const auto& kv : o.meta) {
        const auto eq = kv.find('=');
        so.meta[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    const auto so_meta = so.meta;
    auto session = MeasurementSession::open(std::move(so), host, config);
    if (!session) {
        say("error: " + session.error().message());
        JP_LOG_ERROR("{}", session.error().message());
        return 2;
    }
    const auto path = (*session)->path();
    if (auto r = (*session)->reader(); r && r->channels().empty()) {
        session->reset();
        std::filesystem::remove(path);
        say("error: no energy sensor can be read on this node, neither directly nor through "
            "jouleprofd (see `jouleprof sensors`)");
        return 3;
    }
    BlockJob job;
    if (o.job > 0) {
        // The job's environment as the batch system gave it (its GPUs): the Slurm plugin
        // passes it as meta slurm.env.NAME; the monitor's own is not the job's.
        job = {BlockJob::Kind::process, o.job, [meta = so_meta](const char* name) {
                   const auto it = meta.find(std::string{"slurm.env."} + name);
                   return it == meta.end() ? std::nullopt : std::optional{it->second};
               }};
    }
    (*session)->begin_block(o.label, o.command, job);
    for (const auto& [key, value] : (*session)->block_env()) {
        say(fmt::format("env {}={}", key, value));
    }
    say(fmt::format("ready {}", ::getpid()));
    Control control;
    const auto sig = wait_for_end(control);
    const auto run = (*session)->end_block(sig ? "interrupted" : control.status);
    (*session)->finish();
    session->reset();
    if (!store_meta(path, control.meta)) {
        JP_LOG_WARN("{}: the meta given on standard input could not be stored", path.string());
    }
    say("done " + run.status);
    return 0;
}

// The process --job names: a whole number, a process (not one of its threads) that runs.
pid_t job_pid(const std::string& text) {
    const auto v = sys::parse_u64(text);
    if (text.size() > 10 || !v || *v == 0 || *v > static_cast<std::uint64_t>(INT32_MAX)) {
        throw CLI::ValidationError("--job", "expects a process ID (a whole number above 0), got '" +
                                                one_line(text, 40) + "'");
    }
    const auto pid = static_cast<pid_t>(*v);
    if (pid == 1) {
        throw CLI::ValidationError("--job", "process 1 leads every process: that is the node, "
                                            "not a job (leave --job out to measure the node)");
    }
    const auto status = sys::read_text(fmt::format("/proc/{}/status", pid));
    const auto at = status ? status->find("\nTgid:") : std::string::npos;
    if (at == std::string::npos) {
        throw CLI::ValidationError("--job", fmt::format("no process {}", pid));
    }
    const auto from = at + 6;
    const auto tgid = sys::parse_u64(
        sys::trim(std::string_view{*status}.substr(from, status->find('\n', from) - from)));
    if (!tgid || *tgid != *v) {
        throw CLI::ValidationError(
            "--job",
            fmt::format("{} is a thread of process {}, not a process", pid, tgid ? *tgid : 0));
    }
    return pid;
}

} // namespace

void register_record(CLI::App& app, Commands& out) {
    auto o = std::make_shared<RecordOptions>();
    auto* cmd = app.add_subcommand(
        "record", "Measure the node until stdin ends or SIGTERM (for batch systems: spank/)");
    cmd->add_option("-o,--output", o->output, "Trace file to write (must not exist)")
        ->required()
        ->check(non_empty_path());
    add_duration(cmd, "-i,--interval", o->interval, "Sampling interval (default 500ms)");
    cmd->add_option("-l,--label", o->label, "Label of the run");
    cmd->add_option("--command", o->command, "What the run measures, as its trace names it");
    cmd->add_option("--meta", o->meta, "KEY=VALUE stored in the trace's meta (repeatable)");
    auto* job =
        cmd->add_option("--job", o->job_text,
                        "PID of a process of the job to attribute to (slurmstepd's): the job's "
                        "share of the node, from its Slurm step's cgroup, else its process tree");
    out.push_back(Command{
        cmd,
        [o, job] {
            if (o->interval < std::chrono::milliseconds{1}) {
                throw CLI::ValidationError("--interval", "must be at least 1ms");
            }
            for (const auto* text : {&o->label, &o->command}) {
                if (const char* why = text_problem(*text); why != nullptr || text->size() > 4096) {
                    throw CLI::ValidationError("record", std::string{"a label or command "} +
                                                             (why != nullptr ? why : "too long"));
                }
            }
            if (job->count() > 0) {
                o->job = job_pid(o->job_text);
            }
            for (const auto& kv : o->meta) {
                if (kv.find('=') == std::string::npos || kv.front() == '=') {
                    throw CLI::ValidationError("--meta", "expects KEY=VALUE, got '" + kv + "'");
                }
            }
        },
        [o](const Context& ctx) { return record(*o, ctx.host, ctx.config); }});
}

} // namespace jp::cli
