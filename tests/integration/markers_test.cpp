// SPDX-License-Identifier: BSD-3-Clause
// Phases marked by the job, end to end with the real binary: `jouleprof mark`,
// the C API from a C program, and --mark-regex over the job's output.
#include "fake_sysfs.hpp"
#include "report/phases.hpp"
#include "shell.hpp"
#include "trace/reader.hpp"

#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace jp::test {
namespace {

constexpr std::int64_t k_ms = 1'000'000;

long lines_in(const std::string& s) {
    return std::count(s.begin(), s.end(), '\n');
}

struct RunMarkers {
    trace::RunInfo run;
    std::vector<trace::Marker> markers;
};

class Markers : public ::testing::Test {
protected:
    void SetUp() override {
        add_rapl_zone(fs, "intel-rapl:0", "package-0", 0, 4294967296ULL, 0444);
        fs.add({"/config.toml", "[sensors.estimate]\nenabled = false\n"});
    }
    // The monitor, quiet, with the test's sensors and a new trace file.
    std::string jp_run(const std::string& trace, const std::string& args) const {
        return fmt::format("{} -q --sysfs-root {} -c {} run --no-live -i 100ms -o {} {}", JP_BINARY,
                           fs.root().string(), fs.path("/config.toml").string(), file(trace), args);
    }
    std::string file(const std::string& name) const { return fs.path(name).string(); }
    std::vector<RunMarkers> read(const std::string& trace) const {
        auto reader = trace::Reader::open(file(trace));
        EXPECT_TRUE(reader) << reader.error().message();
        std::vector<RunMarkers> out;
        if (!reader) {
            return out;
        }
        for (const auto& run : reader->runs()) {
            auto m = reader->markers(run.id);
            EXPECT_TRUE(m);
            out.push_back({run, m ? *m : std::vector<trace::Marker>{}});
        }
        return out;
    }
    static void expect_marker(const trace::Marker& m, const char* kind, const std::string& name) {
        EXPECT_EQ(m.kind, kind);
        EXPECT_EQ(m.name, name);
    }
    static void expect_inside(const RunMarkers& r) {
        ASSERT_TRUE(r.run.end_ns);
        for (const auto& m : r.markers) {
            EXPECT_GE(m.t_ns, r.run.start_ns) << m.name;
            EXPECT_LE(m.t_ns, *r.run.end_ns) << m.name;
        }
    }
    FakeSysfs fs;
};

TEST_F(Markers, MarkCommandFromInsideTheJob) {
    const auto r = sh(jp_run("/m.jptrace", fmt::format("-- sh -c '{0} mark begin train; sleep 0.3; "
                                                       "{0} mark end train; {0} mark point done'",
                                                       JP_BINARY)));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    const auto runs = read("/m.jptrace");
    ASSERT_EQ(runs.size(), 1U);
    const auto& m = runs[0].markers;
    ASSERT_EQ(m.size(), 3U);
    expect_marker(m[0], "begin", "train");
    expect_marker(m[1], "end", "train");
    expect_marker(m[2], "point", "done");
    EXPECT_GE(m[1].t_ns - m[0].t_ns, 300 * k_ms);
    EXPECT_LT(m[1].t_ns - m[0].t_ns, 3000 * k_ms);
    EXPECT_LE(m[1].t_ns, m[2].t_ns);
    expect_inside(runs[0]);
    const auto phases = report::phases_of(m, runs[0].run.start_ns, *runs[0].run.end_ns);
    ASSERT_EQ(phases.phases.size(), 1U);
    EXPECT_EQ(phases.phases[0].name, "train");
    EXPECT_TRUE(phases.problems.empty());
}

TEST_F(Markers, MarkOutsideARunIsANoteUnlessStrict) {
    const std::string mark = fmt::format("env -u JOULEPROF_MARKER_SOCKET {} mark", JP_BINARY);
    auto r = sh(mark + " begin train 2>&1");
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.out, "jouleprof: note: not under `jouleprof run`; mark ignored\n");
    r = sh(mark + " --strict begin train 2>&1");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(lines_in(r.out), 1) << r.out;
    // A monitor that went away does not fail the job's script, unless --strict.
    const std::string gone =
        fmt::format("JOULEPROF_MARKER_SOCKET=/nonexistent/marker.sock {} mark", JP_BINARY);
    r = sh(gone + " point x 2>&1");
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(lines_in(r.out), 1) << r.out;
    EXPECT_EQ(sh(gone + " --strict point x 2>/dev/null").exit_code, 1);
}

TEST_F(Markers, MarkWithABadKindOrNameIsOneLineAndExit2) {
    const std::string mark = fmt::format("env -u JOULEPROF_MARKER_SOCKET {} mark", JP_BINARY);
    for (const char* args : {"start train", "begin ''", "point \"$(printf 'a\\nb')\"",
                             "point $(printf '%0201d' 0)", "begin"}) {
        const auto r = sh(mark + " " + args + " 2>&1");
        EXPECT_EQ(r.exit_code, 2) << args;
        EXPECT_EQ(lines_in(r.out), 1) << args << ": " << r.out;
    }
}

TEST_F(Markers, CApiFromACProgram) {
    const auto r = sh(jp_run("/c.jptrace", fmt::format("-- {}", JP_C_API_JOB)) + " 2>&1");
    ASSERT_EQ(r.exit_code, 0) << r.out;
    const auto runs = read("/c.jptrace");
    ASSERT_EQ(runs.size(), 1U);
    const auto& m = runs[0].markers;
    ASSERT_EQ(m.size(), 6U);
    expect_marker(m[0], "begin", "load");
    expect_marker(m[1], "point", "loaded 100 rows");
    expect_marker(m[2], "end", "load");
    expect_marker(m[3], "begin", "train");
    expect_marker(m[4], "end", "train");
    expect_marker(m[5], "point", std::string(200, 'x'));
    EXPECT_GE(m[1].t_ns - m[0].t_ns, 100 * k_ms);
    EXPECT_GE(m[4].t_ns - m[3].t_ns, 100 * k_ms);
    expect_inside(runs[0]);
    // Without a monitor every call is a no-op returning 1.
    const auto outside =
        sh(fmt::format("env -u JOULEPROF_MARKER_SOCKET {} --outside 2>&1", JP_C_API_JOB));
    EXPECT_EQ(outside.exit_code, 0) << outside.out;
}

TEST_F(Markers, CApiFromPythonCtypes) {
    if (!std::filesystem::exists("/usr/bin/python3")) {
        GTEST_SKIP() << "no /usr/bin/python3";
    }
    if (JP_TSAN) {
        GTEST_SKIP() << "Python cannot load a TSan-built library";
    }
    // An ASan-built library needs the ASan runtime loaded first in Python.
    const std::string preload =
        std::string{JP_ASAN_RUNTIME}.empty()
            ? ""
            : fmt::format("env LD_PRELOAD={} ASAN_OPTIONS=detect_leaks=0 ", JP_ASAN_RUNTIME);
    const std::string script = "import ctypes, sys; lib = ctypes.CDLL(sys.argv[1]); "
                               "assert lib.jp_active() == 1; "
                               "assert lib.jp_mark_point(b'from python') == 0";
    const auto r = sh(jp_run("/py.jptrace", fmt::format("-- {}/usr/bin/python3 -c \"{}\" {}",
                                                        preload, script, JP_C_API_LIBRARY)) +
                      " 2>&1");
    ASSERT_EQ(r.exit_code, 0) << r.out;
    const auto runs = read("/py.jptrace");
    ASSERT_EQ(runs.size(), 1U);
    ASSERT_EQ(runs[0].markers.size(), 1U);
    expect_marker(runs[0].markers[0], "point", "from python");
}

TEST_F(Markers, JobEnvironmentAndMarkersPerRepeat) {
    const auto r =
        sh("env -u PYTHONUNBUFFERED " +
           jp_run("/env.jptrace",
                  fmt::format(
                      R"(-r 2 -- sh -c '{} mark point "run $JOULEPROF_RUN_ID"; )"
                      R"(echo "$JOULEPROF_RUN_ID|$JOULEPROF_TRACE|${{PYTHONUNBUFFERED-unset}}|)"
                      R"($(stat -c %a $(dirname $JOULEPROF_MARKER_SOCKET))|)"
                      R"($JOULEPROF_MARKER_SOCKET"')",
                      JP_BINARY)));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    std::istringstream lines{r.out};
    std::string line;
    std::string socket;
    for (int run = 1; run <= 2; ++run) {
        ASSERT_TRUE(std::getline(lines, line)) << r.out;
        const auto prefix = fmt::format("{}|{}|unset|700|", run, file("/env.jptrace"));
        ASSERT_TRUE(line.starts_with(prefix)) << line;
        socket = line.substr(prefix.size());
    }
    EXPECT_FALSE(std::filesystem::exists(std::filesystem::path{socket}.parent_path()))
        << "the socket's directory is removed";
    const auto runs = read("/env.jptrace");
    ASSERT_EQ(runs.size(), 2U);
    for (const auto& run : runs) {
        ASSERT_EQ(run.markers.size(), 1U);
        expect_marker(run.markers[0], "point", fmt::format("run {}", run.run.id));
        expect_inside(run);
    }
}

TEST_F(Markers, MarkRegexEpochsBecomePhases) {
    const auto r =
        sh("env -u PYTHONUNBUFFERED " +
           jp_run("/re.jptrace",
                  "--mark-regex 'Epoch (\\d+)' -- sh -c 'for i in 1 2 3; do "
                  "echo \"Epoch $i\"; sleep 0.25; done; echo \"py=${PYTHONUNBUFFERED}\"'"));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    EXPECT_EQ(r.out, "Epoch 1\nEpoch 2\nEpoch 3\npy=1\n")
        << "output passes through, and Python is told not to buffer";
    const auto runs = read("/re.jptrace");
    ASSERT_EQ(runs.size(), 1U);
    expect_inside(runs[0]);
    const auto& run = runs[0].run;
    const auto p = report::phases_of(runs[0].markers, run.start_ns, *run.end_ns);
    EXPECT_TRUE(p.problems.empty());
    ASSERT_EQ(p.phases.size(), 3U);
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(p.phases[i].name, std::to_string(i + 1));
        EXPECT_FALSE(p.phases[i].open_at_end) << "closed by an end marker";
        EXPECT_GE(p.phases[i].end_ns - p.phases[i].begin_ns, 150 * k_ms) << i; // 250 ms apart
        EXPECT_LT(p.phases[i].end_ns - p.phases[i].begin_ns, 2000 * k_ms) << i;
    }
    EXPECT_EQ(p.phases[0].end_ns, p.phases[1].begin_ns);
    EXPECT_EQ(p.phases[2].end_ns, *run.end_ns) << "the last phase closes at the job's end";
}

TEST_F(Markers, MarkRegexPassesOutputThroughByteIdentical) {
    std::string payload;
    std::uint32_t x = 12345;
    for (int i = 0; i < 300'000; ++i) {
        x = x * 1664525U + 1013904223U;
        payload += static_cast<char>(x >> 24U); // any byte: NUL, CR, newline, invalid UTF-8
    }
    payload += "Epoch 1\nno newline at the end";
    fs.add({"/payload.bin", payload, 0644});
    const auto r =
        sh(jp_run("/bytes.jptrace", fmt::format("--mark-regex 'Epoch (\\d+)' "
                                                "--mark-regex point:end -- sh -c "
                                                "'cat {0}; cat {0} >&2' 2>{1}",
                                                file("/payload.bin"), file("/stderr.bin"))));
    ASSERT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.out.size(), payload.size());
    EXPECT_TRUE(r.out == payload) << "stdout differs from the job's own output";
    const auto err = slurp(file("/stderr.bin"));
    ASSERT_GE(err.size(), payload.size());
    EXPECT_TRUE(err.substr(0, payload.size()) == payload) << "stderr differs";
    const auto runs = read("/bytes.jptrace");
    ASSERT_EQ(runs.size(), 1U);
    bool epoch = false;
    for (const auto& m : runs[0].markers) {
        epoch = epoch || (m.kind == "begin" && m.name == "1");
    }
    EXPECT_TRUE(epoch);
}

TEST_F(Markers, MarkRegexForwardsPartialLinesAtOnce) {
    const auto cmd = jp_run("/partial.jptrace",
                            "--mark-regex x -- sh -c 'printf abc; sleep 1; printf \"def\\n\"'");
    FILE* p = ::popen(cmd.c_str(), "r");
    ASSERT_NE(p, nullptr);
    char buf[16] = {};
    ASSERT_EQ(::read(::fileno(p), buf, 3), 3);
    const auto t_abc = now_ns();
    EXPECT_EQ(std::string(buf, 3), "abc");
    std::string rest;
    ssize_t n = 0;
    while ((n = ::read(::fileno(p), buf, sizeof buf)) > 0) {
        rest.append(buf, static_cast<std::size_t>(n));
    }
    const auto t_def = now_ns();
    EXPECT_EQ(::pclose(p), 0);
    EXPECT_EQ(rest, "def\n");
    EXPECT_GT(t_def - t_abc, 700 * k_ms) << "'abc' was held back until its line was complete";
}

TEST_F(Markers, MarkRegexInvalidIsOneLineExit2BeforeTheJob) {
    const auto r =
        sh(jp_run("/bad.jptrace", fmt::format("--mark-regex 'Epoch (' -- touch {}", file("/ran"))) +
           " 2>&1");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(lines_in(r.out), 1) << r.out;
    EXPECT_NE(r.out.find("Epoch ("), std::string::npos) << r.out;
    EXPECT_FALSE(std::filesystem::exists(file("/ran"))) << "the job must not start";
    EXPECT_FALSE(std::filesystem::exists(file("/bad.jptrace")));
}

TEST_F(Markers, MarkRegexKeepsExitStatusAndSignals) {
    EXPECT_EQ(sh(jp_run("/x1.jptrace",
                        fmt::format("--mark-regex x -- {} 0.1 {} 3", JP_TEST_JOB, file("/j.txt"))))
                  .exit_code,
              3);
    EXPECT_EQ(sh(jp_run("/x2.jptrace", fmt::format("--mark-regex x -- {} --signal 9", JP_TEST_JOB)))
                  .exit_code,
              137);
    const auto cmd = jp_run("/x3.jptrace", fmt::format("--mark-regex x -- {} --wait-signal {}",
                                                       JP_TEST_JOB, file("/sig.txt")));
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::execl("/bin/sh", "sh", "-c", ("exec " + cmd).c_str(), nullptr);
        ::_exit(126);
    }
    ASSERT_TRUE(wait_until([&] { return std::filesystem::exists(file("/sig.txt") + ".ready"); }));
    ::kill(pid, SIGUSR1);
    int st = 0;
    ::waitpid(pid, &st, 0);
    ASSERT_TRUE(WIFEXITED(st));
    EXPECT_EQ(WEXITSTATUS(st), 10);
    std::ifstream got{file("/sig.txt")};
    int received = 0;
    got >> received;
    EXPECT_EQ(received, SIGUSR1);
}

} // namespace
} // namespace jp::test
