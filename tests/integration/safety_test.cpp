// SPDX-License-Identifier: BSD-3-Clause
// What the commands do with files and streams they do not own: no output over
// an input trace or an existing file (without --force), traces read without a
// byte written beside them, a stdout that cannot be written is an error, and
// every terminating signal sent to the monitor reaches the job and ends the
// trace as interrupted, never "running".
#include "core/signal_name.hpp"
#include "fake_sysfs.hpp"
#include "shell.hpp"
#include "trace/reader.hpp"

#include <csignal>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace jp::test {
namespace {

class Safety : public ::testing::Test {
protected:
    void SetUp() override {
        add_rapl_zone(fs, "intel-rapl:0", "package-0", 0, 4294967296ULL, 0444);
        fs.add({"/config.toml", "[sensors.estimate]\nenabled = false\n"});
        const auto r = sh(jp(fmt::format("-q run --no-live -o {} -- true 2>&1", trace)));
        ASSERT_EQ(r.exit_code, 0) << r.out;
        original = slurp(trace);
    }
    std::string jp(const std::string& args) const {
        return fmt::format("{} --sysfs-root {} -c {} {}", JP_BINARY, fs.root().string(),
                           fs.path("/config.toml").string(), args);
    }
    std::string file(const char* name) const { return fs.path(name).string(); }
    // Starts `jouleprof ARGS` in the background; returns its pid.
    pid_t spawn(const std::string& args) const {
        const auto cmd = "ulimit -c 0; exec " + jp(args);
        const pid_t pid = ::fork();
        if (pid == 0) {
            ::execl("/bin/sh", "sh", "-c", cmd.c_str(), nullptr);
            ::_exit(126);
        }
        return pid;
    }
    static int exit_status(pid_t pid) {
        int st = 0;
        ::waitpid(pid, &st, 0);
        return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    }
    FakeSysfs fs;
    std::string trace = fs.path("/t.jptrace").string();
    std::string original;
};

TEST_F(Safety, NoCommandWritesOverItsInputTraceOrItsSqliteFiles) {
    for (const auto& out : {trace, trace + "-wal", trace + "-shm", trace + "-journal"}) {
        for (const auto& cmd : {fmt::format("report {} --html {} --force", trace, out),
                                fmt::format("export {} -f csv -o {} --force", trace, out),
                                fmt::format("export {} -f json -o {} --force", trace, out),
                                fmt::format("study report {} --html {} --force", trace, out)}) {
            const auto r = sh(jp(cmd + " 2>&1"));
            EXPECT_EQ(r.exit_code, 2) << cmd; // the caller's to change, as `run -o`'s
            EXPECT_NE(r.out.find("write the output elsewhere"), std::string::npos) << r.out;
            EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
        }
    }
    // Through a symbolic link, too.
    std::filesystem::create_symlink(trace, file("/link.html"));
    EXPECT_NE(sh(jp(fmt::format("report {} --html {} --force 2>&1", trace, file("/link.html"))))
                  .exit_code,
              0);
    EXPECT_EQ(slurp(trace), original) << "the input trace was changed";
}

TEST_F(Safety, AnExistingOutputIsReplacedOnlyWithForce) {
    for (const auto& [flag, out] : {std::pair{std::string{"--html"}, file("/r.html")},
                                    std::pair{std::string{"-f json -o"}, file("/r.json")}}) {
        const auto cmd = flag == "--html" ? fmt::format("report {} --html {}", trace, out)
                                          : fmt::format("export {} {} {}", trace, flag, out);
        std::ofstream{out} << "mine\n";
        const auto r = sh(jp(cmd + " 2>&1 >/dev/null"));
        EXPECT_EQ(r.exit_code, 2) << cmd; // as `run -o` on an existing trace
        EXPECT_NE(r.out.find("already exists (use --force"), std::string::npos) << r.out;
        EXPECT_EQ(slurp(out), "mine\n") << "refused, and the file left as it was";
        EXPECT_EQ(sh(jp(cmd + " --force >/dev/null")).exit_code, 0);
        EXPECT_NE(slurp(out), "mine\n");
    }
    // No temporary file is left behind.
    for (const auto& e : std::filesystem::directory_iterator(fs.path("/"))) {
        EXPECT_EQ(e.path().filename().string().find(".jp-"), std::string::npos) << e.path();
    }
}

TEST_F(Safety, HtmlAndJsonFileNeverNameOneFile) {
    const auto out = file("/both.out");
    for (const auto& cmd :
         {fmt::format("report {} --json-file {} --html {}", trace, out, out),
          fmt::format("report {} --json-file {} --html {}/./both.out --force", trace, out,
                      fs.path("/").string()),
          fmt::format("study report {} --json-file {} --html {}", trace, out, out),
          // neither exists yet: a bare name and ./ the same name, from the folder they are in
          fmt::format("report {} --json-file both.out --html ./both.out", trace),
          fmt::format("report {} --json-file {} --html both.out", trace, out)}) {
        const auto r = sh(fmt::format("cd {} && {}", fs.path("/").string(), jp(cmd + " 2>&1")));
        EXPECT_EQ(r.exit_code, 2) << cmd << ": " << r.out;
        EXPECT_NE(r.out.find("is also the --json-file"), std::string::npos) << r.out;
        EXPECT_FALSE(std::filesystem::exists(out)) << cmd;
    }
}

TEST_F(Safety, ACsvExportWritesNoneOfItsFilesWhereOneExists) {
    std::ofstream{file("/x.markers.csv")} << "mine\n";
    const auto r = sh(jp(fmt::format("export {} -f csv -o {} 2>&1", trace, file("/x.csv"))));
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
    EXPECT_NE(r.out.find("x.markers.csv: already exists"), std::string::npos) << r.out;
    EXPECT_FALSE(std::filesystem::exists(file("/x.csv")));
    EXPECT_FALSE(std::filesystem::exists(file("/x.summary.csv")));
    EXPECT_EQ(slurp(file("/x.markers.csv")), "mine\n");
}

TEST_F(Safety, ASweepDirectoryThatHoldsFilesNeedsForce) {
    std::filesystem::create_directories(file("/sweep"));
    std::ofstream{file("/sweep/notes.txt")} << "mine\n";
    const auto cmd = [&](const char* force) {
        return jp(fmt::format("sweep --no-live {} -p n=1 -o {} -- true", force, file("/sweep")));
    };
    const auto r = sh(cmd("") + " 2>&1");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.out.find("already holds files (use --force"), std::string::npos) << r.out;
    EXPECT_EQ(sh(cmd("--force") + " >/dev/null 2>&1").exit_code, 0);
    EXPECT_EQ(slurp(file("/sweep/notes.txt")), "mine\n");
}

TEST_F(Safety, ReadingATraceWritesNothingBesideIt) {
    // A finished trace is one file, and readers open it read-only: a trace in
    // another user's directory is never touched.
    EXPECT_FALSE(std::filesystem::exists(trace + "-wal"));
    for (const char* cmd :
         {"report {}", "report --json {}", "export {} -f json", "compare {} {}"}) {
        const auto r = sh(jp(fmt::format(fmt::runtime(cmd), trace, trace) + " >/dev/null 2>&1"));
        EXPECT_EQ(r.exit_code, 0) << cmd;
    }
    EXPECT_FALSE(std::filesystem::exists(trace + "-wal"));
    EXPECT_FALSE(std::filesystem::exists(trace + "-shm"));
    EXPECT_EQ(slurp(trace), original);
}

TEST_F(Safety, AStdoutThatCannotBeWrittenIsOneLineAndAFailure) {
    for (const auto& cmd : {fmt::format("report {}", trace), fmt::format("report --json {}", trace),
                            fmt::format("export {} -f json", trace), std::string{"sensors"}}) {
        const auto r = sh(jp(cmd + " 2>&1 >/dev/full"));
        EXPECT_EQ(r.exit_code, 1) << cmd;
        EXPECT_NE(r.out.find("cannot write to standard output"), std::string::npos) << r.out;
        EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
    }
}

TEST_F(Safety, SigquitSentToTheMonitorReachesTheJob) {
    const auto got = file("/q.txt");
    const pid_t pid = spawn(fmt::format("-q run --no-live -o {} -- {} --wait-signal {}",
                                        file("/q.jptrace"), JP_TEST_JOB, got));
    ASSERT_TRUE(wait_until([&] { return std::filesystem::exists(got + ".ready"); }));
    ::kill(pid, SIGQUIT);
    EXPECT_EQ(exit_status(pid), 0) << "the job caught SIGQUIT and exited 0";
    EXPECT_EQ(slurp(got), fmt::format("{}\n", SIGQUIT));
}

TEST_F(Safety, AnInterruptedRunEndsInterruptedAndIsShownAsSuch) {
    for (int sig : {SIGINT, SIGQUIT, SIGALRM}) {
        const auto t = file("/i.jptrace");
        std::filesystem::remove(t);
        const pid_t pid = spawn(
            fmt::format("-q run --no-live -o {} -- {} 60 {}", t, JP_TEST_JOB, file("/never.txt")));
        ASSERT_TRUE(wait_until([&] {
            auto r = trace::Reader::open(t);
            return r && !r->runs().empty() && r->runs().front().status == "running";
        }));
        ::kill(pid, sig);
        EXPECT_EQ(exit_status(pid), 128 + sig);
        auto reader = trace::Reader::open(t);
        ASSERT_TRUE(reader);
        const auto& run = reader->runs().front();
        EXPECT_EQ(run.status, "interrupted") << sig;
        EXPECT_TRUE(run.end_ns.has_value());
        EXPECT_EQ(run.signal, sig);
        const auto r = sh(jp(fmt::format("report {}", t)));
        EXPECT_NE(r.out.find(fmt::format("1 run, interrupted ({})", signal_name(sig))),
                  std::string::npos)
            << r.out;
    }
}

TEST_F(Safety, AnExplicitOptionThatCannotBeHonouredIsAnError) {
    std::ofstream{file("/not-a-trace.txt")} << "hello\n";
    for (const auto& args : {fmt::format("--replay {} sensors", file("/not-a-trace.txt")),
                             fmt::format("--replay {} sensors", file("/missing.jptrace")),
                             fmt::format("--nvml-library {} sensors", file("/missing.so")),
                             fmt::format("--rocm-library {} sensors", file("/not-a-trace.txt")),
                             fmt::format("report {} --threshold nan", trace),
                             fmt::format("report {} --pue inf", trace),
                             fmt::format("report {} --price -nan", trace)}) {
        const auto r = sh(jp(args + " 2>&1"));
        EXPECT_EQ(r.exit_code, 2) << args << ": " << r.out;
        EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << args << ": " << r.out;
        EXPECT_NE(r.out.find("error"), std::string::npos) << r.out;
    }
}

// A library the config file names is honoured or an error too, unless the
// config disables that backend.
TEST_F(Safety, ALibraryTheConfigNamesThatCannotBeLoadedIsAnError) {
    std::ofstream{file("/nvml.toml")}
        << fmt::format("[sensors.nvml]\nlibrary = \"{}\"\n", file("/missing.so"));
    std::ofstream{file("/rocm.toml")} << "[sensors.rocm_smi]\nlibrary = \"libno-such-rocm.so\"\n";
    for (const auto& [config, says] : {std::pair{"/nvml.toml", "[sensors.nvml] library"},
                                       std::pair{"/rocm.toml", "[sensors.rocm_smi] library"}}) {
        const auto r = sh(fmt::format("{} --sysfs-root {} -c {} sensors 2>&1", JP_BINARY,
                                      fs.root().string(), file(config)));
        EXPECT_EQ(r.exit_code, 2) << config << ": " << r.out;
        EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
        EXPECT_NE(r.out.find(says), std::string::npos) << r.out;
    }
    std::ofstream{file("/off.toml")}
        << fmt::format("[sensors.nvml]\nenabled = false\nlibrary = \"{}\"\n", file("/missing.so"));
    const auto off = sh(fmt::format("{} --sysfs-root {} -c {} sensors 2>&1", JP_BINARY,
                                    fs.root().string(), file("/off.toml")));
    EXPECT_EQ(off.exit_code, 0) << off.out;
}

} // namespace
} // namespace jp::test
