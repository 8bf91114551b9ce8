// SPDX-License-Identifier: BSD-3-Clause
// What reaches the user's streams and disk (docs/reports.md): JSON on a stream
// of its own, traces in the state directory and never in the working
// directory, -q silence, nothing left behind by a run that never started.
#include "fake_sysfs.hpp"
#include "shell.hpp"

#include <csignal>
#include <filesystem>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <string_view>
#include <sys/stat.h>
#include <utility>

namespace jp::test {
namespace {

namespace fs = std::filesystem;
constexpr auto npos = std::string::npos;

class Output : public ::testing::Test {
protected:
    void SetUp() override {
        add_rapl_zone(fs_, "intel-rapl:0", "package-0", 0, 4294967296ULL, 0444);
        fs_.add({"/config.toml", "[sensors.estimate]\nenabled = false\n"});
        fs_.add({"/work/keep", ""});
        fs_.add({"/state/keep", ""});
    }
    // jouleprof in /work with the state directory under the test's root and no
    // JOULEPROF_TRACE_DIR of the caller's.
    std::string jp(const std::string& args, const std::string& env = {}) const {
        return fmt::format("cd {} && env -u JOULEPROF_TRACE_DIR XDG_STATE_HOME={} {} {} "
                           "--sysfs-root {} -c {} {}",
                           file("/work"), file("/state"), env, JP_BINARY, fs_.root().string(),
                           file("/config.toml"), args);
    }
    std::string file(const char* name) const { return fs_.path(name).string(); }
    static std::vector<fs::path> traces_in(const fs::path& dir) {
        std::vector<fs::path> out;
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(dir, ec)) {
            if (e.path().extension() == ".jptrace") {
                out.push_back(e.path());
            }
        }
        return out;
    }
    static std::string shell_quote(const std::string& s) {
        std::string out = "'";
        for (char c : s) {
            out += c == '\'' ? std::string{"'\\''"} : std::string{c};
        }
        return out + "'";
    }
    FakeSysfs fs_;
};

TEST_F(Output, RunJsonIsAloneOnStdoutWhateverTheJobPrints) {
    const auto r = sh(jp("run --no-live --json -- sh -c 'echo noise; echo more noise >&2' "
                         "2>/dev/null"));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    const auto j = nlohmann::json::parse(r.out); // throws on anything but the JSON
    EXPECT_EQ(j["groups"].size(), 1U);
    // The job's stdout went to stderr, not lost; with --mark-regex as well.
    const auto both = sh(jp("run --no-live --json --mark-regex 'point:x=^noise' -- sh -c 'echo "
                            "noise' 2>&1 >/dev/null"));
    EXPECT_NE(both.out.find("noise"), npos) << both.out;
    const auto marked = sh(jp("run --no-live --json --mark-regex 'point:x=^noise' -- sh -c 'echo "
                              "noise' 2>/dev/null"));
    EXPECT_TRUE(nlohmann::json::accept(marked.out)) << marked.out;
    // Without --json the job keeps its stdout.
    const auto plain = sh(jp("-q run --no-live -- sh -c 'echo noise'"));
    EXPECT_EQ(plain.out, "noise\n");
}

TEST_F(Output, JsonFileLeavesTheTextWhereItWasAndDashIsStdout) {
    const auto out = file("/work/s.json");
    const auto r = sh(jp(fmt::format("run --no-live --json-file {} -- true 2>&1", out)));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    EXPECT_NE(r.out.find("label / item"), npos) << r.out; // the table, as without it
    const auto j = nlohmann::json::parse(slurp(out));
    const auto trace = j["trace"].get<std::string>();
    EXPECT_TRUE(fs::exists(trace)) << trace;
    // report, compare, merge, sensors and study report take the same options.
    for (const auto& cmd : {fmt::format("report --json-file - {}", trace),
                            fmt::format("compare --json-file - {} {}", trace, trace),
                            std::string{"sensors --json-file -"},
                            fmt::format("study report --json-file - {}", trace)}) {
        const auto c = sh(jp(cmd + " 2>/dev/null"));
        EXPECT_TRUE(nlohmann::json::accept(c.out)) << cmd << "\n" << c.out;
    }
    // A file is replaced (it is derived), never an input, and a missing directory is said
    // before the job runs.
    EXPECT_EQ(sh(jp(fmt::format("report --json-file {} {}", out, trace))).exit_code, 0);
    const auto input = sh(jp(fmt::format("report --json-file {} {} 2>&1", trace, trace)));
    EXPECT_EQ(input.exit_code, 2);
    EXPECT_NE(input.out.find("--json-file " + trace + ": is the input"), npos) << input.out;
    const auto missing =
        sh(jp(fmt::format("run --no-live --json-file {}/no/s.json -- touch {} 2>&1", file("/work"),
                          file("/work/ran"))));
    EXPECT_EQ(missing.exit_code, 2) << missing.out;
    EXPECT_NE(missing.out.find("--json-file"), npos) << missing.out;
    EXPECT_FALSE(fs::exists(file("/work/ran")));
}

TEST_F(Output, AnOutputNeverReplacesADeviceAPipeALinkOrATrace) {
    const auto t = file("/work/t.jptrace");
    ASSERT_EQ(sh(jp(fmt::format("-q run --no-live -o {} -- true", t))).exit_code, 0);
    const auto fifo = file("/work/fifo");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    fs::create_symlink(file("/work/elsewhere.json"), file("/work/link.json"));
    fs::create_directories(file("/work/d"));
    fs::copy_file(t, file("/work/d/n1.jptrace"));
    for (const auto& [cmd, why] :
         {std::pair{fmt::format("report {} --json-file {}", t, fifo), "is not a regular file"},
          std::pair{fmt::format("report {} --json-file {}", t, file("/work/link.json")),
                    "is a symbolic link"},
          std::pair{
              fmt::format("report {} --json-file {}", file("/work/d"), file("/work/d/n1.jptrace")),
              "is a trace"},
          std::pair{fmt::format("export {} -f json --force -o {}", t, fifo),
                    "is not a regular file"}}) {
        const auto r = sh(jp(cmd + " 2>&1 >/dev/null"));
        EXPECT_NE(r.exit_code, 0) << cmd;
        EXPECT_NE(r.out.find(why), npos) << cmd << "\n" << r.out;
    }
    struct stat st {};
    ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode));
    EXPECT_TRUE(fs::is_symlink(fs::symlink_status(file("/work/link.json"))));
    EXPECT_FALSE(fs::exists(file("/work/elsewhere.json")));
    EXPECT_EQ(slurp(file("/work/d/n1.jptrace")), slurp(t));
    // sweep: a JSON file in its own new directory is fine, one of its traces is not.
    EXPECT_EQ(sh(jp(fmt::format("-q sweep -o {0} -p n=1 --json-file {0}/out.json -- true",
                                file("/work/sw1"))))
                  .exit_code,
              0);
    EXPECT_TRUE(nlohmann::json::accept(slurp(file("/work/sw1/out.json"))));
    EXPECT_EQ(sh(jp(fmt::format("-q sweep -o {0} -p n=1 --json-file {0}/01-n-1.jptrace -- true "
                                "2>/dev/null",
                                file("/work/sw2"))))
                  .exit_code,
              2);
    EXPECT_FALSE(fs::exists(file("/work/sw2")));
    // run: the JSON file is never its own trace, said before the job runs.
    const auto same = sh(jp(fmt::format("run --no-live -o {0} --json-file {0} -- touch {1} 2>&1",
                                        file("/work/s.jptrace"), file("/work/ran"))));
    EXPECT_EQ(same.exit_code, 2) << same.out;
    EXPECT_FALSE(fs::exists(file("/work/ran")));
}

TEST_F(Output, APlantedLinkIsNeverFollowedWhenATraceIsMade) {
    const auto target = file("/work/victim");
    fs::create_symlink(target, file("/work/planted.jptrace")); // dangling
    const auto r =
        sh(jp(fmt::format("run --no-live -o {} -- true 2>&1", file("/work/planted.jptrace"))));
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_NE(r.out.find("already exists"), npos) << r.out;
    EXPECT_FALSE(fs::exists(target));
}

TEST_F(Output, AJobWithoutPathStillFindsTheSystemsPrograms) {
    // The monitor adds its own directory for `jouleprof mark`; the C library's default
    // PATH stays in front when the job had none.
    const auto r = sh(fmt::format("cd {} && env -i JOULEPROF_TRACE_DIR={} {} --sysfs-root {} -c {} "
                                  "-q run --no-live -- sh -c 'ls / >/dev/null && echo ok' 2>&1",
                                  file("/work"), file("/work"), JP_BINARY, fs_.root().string(),
                                  file("/config.toml")));
    EXPECT_EQ(r.exit_code, 0) << r.out;
    EXPECT_EQ(r.out, "ok\n");
}

TEST_F(Output, QuietRunPrintsTheJobsOutputAndErrorsOnly) {
    const auto r = sh(jp("-q run --no-live -- sh -c 'echo out; echo err >&2' 2>&1"));
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.out, "out\nerr\n");
    // The summary when asked for.
    const auto j = sh(jp("-q run --no-live --json -- true 2>&1"));
    EXPECT_TRUE(nlohmann::json::accept(j.out)) << j.out;
    const auto bad = sh(jp("-q run --no-live -o /nonexistent/t.jptrace -- true 2>&1"));
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_EQ(bad.out, "jouleprof: error: -o /nonexistent/t.jptrace: the directory /nonexistent "
                       "does not exist\n");
}

TEST_F(Output, TracesGoToTheStateDirectoryAndTheSummarySaysWhere) {
    const auto r = sh(jp("run --no-live -- true 2>&1"));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    const auto dir = fs::path{file("/state")} / "jouleprof" / "traces";
    const auto made = traces_in(dir);
    ASSERT_EQ(made.size(), 1U) << r.out;
    EXPECT_NE(r.out.find("trace: " + made.front().string()), npos) << r.out;
    EXPECT_TRUE(traces_in(file("/work")).empty());
    struct stat st {};
    ASSERT_EQ(::stat(dir.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700U);
    // JOULEPROF_TRACE_DIR before XDG; -o DIR: a new file there; -o '' refused.
    fs_.add({"/mine/keep", ""});
    EXPECT_EQ(sh(jp("run --no-live -- true", "JOULEPROF_TRACE_DIR=" + file("/mine"))).exit_code, 0);
    EXPECT_EQ(traces_in(file("/mine")).size(), 1U);
    EXPECT_EQ(sh(jp("run --no-live -o . -- true 2>/dev/null")).exit_code, 0);
    EXPECT_EQ(traces_in(file("/work")).size(), 1U);
    EXPECT_EQ(sh(jp("run --no-live -o '' -- true 2>/dev/null")).exit_code, 2);
    // A state directory that cannot be made: the temp directory, said in a warning.
    const auto odd = sh(jp("run --no-live -- true 2>&1", "XDG_STATE_HOME=" + file("/work/keep")));
    EXPECT_EQ(odd.exit_code, 0) << odd.out;
    EXPECT_NE(odd.out.find("writing the trace to the temp directory"), npos) << odd.out;
    const auto at = odd.out.find("trace: " + fs::temp_directory_path().string());
    ASSERT_NE(at, npos) << odd.out;
    const auto name = odd.out.substr(at + 7, odd.out.find('\n', at) - at - 7);
    EXPECT_TRUE(fs::remove(name)) << name;
    // In a private directory of its own there (0700, a random name).
    struct stat tmp_st {};
    ASSERT_EQ(::stat(fs::path{name}.parent_path().c_str(), &tmp_st), 0);
    EXPECT_EQ(tmp_st.st_mode & 0777, 0700U);
    EXPECT_TRUE(fs::remove(fs::path{name}.parent_path()));
}

TEST_F(Output, ARunThatNeverStartedLeavesNoTrace) {
    const auto t = file("/work/never.jptrace");
    const auto r = sh(jp(fmt::format("run --no-live -o {} -- no-such-program-here 2>&1", t)));
    EXPECT_EQ(r.exit_code, 127) << r.out;
    EXPECT_FALSE(fs::exists(t));
    EXPECT_EQ(sh(jp("run --no-live -- no-such-program-here 2>/dev/null")).exit_code, 127);
    EXPECT_TRUE(traces_in(fs::path{file("/state")} / "jouleprof" / "traces").empty());
    // The same name works at once (nothing half-made blocks it).
    EXPECT_EQ(sh(jp(fmt::format("-q run --no-live -o {} -- true", t))).exit_code, 0);
    EXPECT_TRUE(fs::exists(t));
}

TEST_F(Output, TheStudysStdoutIsItsTableOnly) {
    fs_.add({"/s.toml", "[study]\nname = \"s\"\nrepeat = 1\nwarmup = 0\nnode_type = \"n\"\n"
                        "interval = \"100ms\"\ncooldown = \"0s\"\n"
                        "[[workload]]\nname = \"w\"\n[workload.commands]\n"
                        "run = [\"sh\", \"-c\", \"echo job-output\"]\n"
                        "[[setting]]\nname = \"one\"\n"});
    const auto r =
        sh(jp(fmt::format("study --no-live -d {} {} 2>/dev/null", file("/st"), file("/s.toml"))));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    EXPECT_EQ(r.out.find("job-output"), npos) << r.out;
    EXPECT_NE(r.out.find("w"), npos) << r.out;
    const auto j = sh(jp(fmt::format("study --no-live -d {} --json {} 2>&1 >/dev/null",
                                     file("/st2"), file("/s.toml"))));
    EXPECT_NE(j.out.find("job-output"), npos) << j.out; // on stderr, not lost
}

TEST_F(Output, TheStudysOutputsMayGoIntoTheFolderItMakes) {
    // As bench/gpu/round2.sh first did on a lent GPU: -d D --json-file D/s.json --html D/s.html
    // with D not there yet was refused ("its directory D does not exist").
    fs_.add({"/s.toml", "[study]\nname = \"s\"\nrepeat = 1\nwarmup = 0\nnode_type = \"n\"\n"
                        "interval = \"100ms\"\ncooldown = \"0s\"\n"
                        "[[workload]]\nname = \"w\"\n[workload.commands]\n"
                        "run = [\"true\"]\n[[setting]]\nname = \"one\"\n"});
    const auto d = file("/new/study");
    const auto r = sh(jp(fmt::format("-q study --no-live -d {0} --json-file {0}/s.json --html "
                                     "{0}/s.html {1}",
                                     d, file("/s.toml"))));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    EXPECT_TRUE(fs::is_regular_file(d + "/s.json"));
    EXPECT_TRUE(fs::is_regular_file(d + "/s.html"));
    // A refused output leaves no folder behind that the refused study made, parents too.
    const auto e = file("/other");
    const auto bad =
        sh(jp(fmt::format("-q study --no-live -d {0}/a/b --json-file {0}/a/b/no/s.json "
                          "{1} 2>&1",
                          e, file("/s.toml"))));
    EXPECT_EQ(bad.exit_code, 2) << bad.out;
    EXPECT_NE(bad.out.find("does not exist"), npos) << bad.out;
    EXPECT_FALSE(fs::exists(e));
    // So does a refused trace (-o in a folder that is not there), and a folder the user had
    // stays.
    fs::create_directories(file("/mine"));
    const auto trace =
        sh(jp(fmt::format("-q study --no-live -d {0}/new -o {0}/no/t.jptrace {1} 2>&1",
                          file("/mine"), file("/s.toml"))));
    EXPECT_EQ(trace.exit_code, 2) << trace.out;
    EXPECT_FALSE(fs::exists(file("/mine/new")));
    EXPECT_TRUE(fs::is_directory(file("/mine")));
    // A dangling link as --dir: one line that says so.
    fs::create_symlink(file("/nowhere"), file("/dangling"));
    const auto link =
        sh(jp(fmt::format("-q study --no-live -d {} {} 2>&1", file("/dangling"), file("/s.toml"))));
    EXPECT_EQ(link.exit_code, 2) << link.out;
    EXPECT_NE(link.out.find("symbolic link to nothing"), npos) << link.out;
}

TEST_F(Output, TheStatusLineSaysWhichRunAndWhatItShows) {
    // A pseudo-terminal (script(1)), so the live line is drawn as a user sees it.
    const auto r = sh(fmt::format("script -qfec {} /dev/null 2>&1",
                                  shell_quote(jp("run -i 100ms -w 1 -r 2 -- sleep 1.2"))));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    for (const char* what : {"warm-up 1/1", "run 1/2", "run 2/2"}) {
        EXPECT_NE(r.out.find(std::string{"[jouleprof] "} + what + "  "), npos) << what << r.out;
    }
    EXPECT_NE(r.out.find(" J  measured"), npos) << r.out;
    // A sweep value with escape sequences reaches the terminal escaped.
    const auto esc = sh(fmt::format(
        "script -qfec {} /dev/null 2>&1",
        shell_quote(jp(fmt::format("sweep -o {} -p \"n=a$(printf '\\033]0;PWNED\\007'),b\" -- "
                                   "sleep 0.7",
                                   file("/sw"))))));
    EXPECT_NE(esc.out.find("point 1/2"), npos) << esc.out;
    EXPECT_EQ(esc.out.find("\033]0;PWNED"), npos) << esc.out;
    // The first line is drawn after 500 ms, with a power (no first-window artefact).
    EXPECT_EQ(r.out.find("[jouleprof] run 1/2  0.0 s"), npos) << r.out;
}

TEST_F(Output, MarksWorkFromAJobWhosePathLacksJouleprof) {
    // The README's `jouleprof mark` from a job, jouleprof started by its full path with
    // only the system's directories on PATH: the monitor's directory is added at the end.
    const auto ok =
        sh(fmt::format("cd {} && env PATH=/usr/bin:/bin XDG_STATE_HOME={} {} --sysfs-root {} -c {} "
                       "run --no-live -o {} -- sh -c 'jouleprof mark point here' 2>&1",
                       file("/work"), file("/state"), JP_BINARY, fs_.root().string(),
                       file("/config.toml"), file("/work/m2.jptrace")));
    ASSERT_EQ(ok.exit_code, 0) << ok.out;
    const auto report = sh(jp(fmt::format("export {} -f json 2>&1", file("/work/m2.jptrace"))));
    EXPECT_NE(report.out.find("\"here\""), npos) << report.out;
}

TEST_F(Output, ProcessesTheJobLeftRunningAreNamed) {
    const auto r = sh(jp("run --no-live -- sh -c 'sleep 20 >/dev/null 2>&1 & echo started' 2>&1"));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    const auto at = r.out.find("the job left 1 process running after it ended: ");
    if (r.out.find("its CPU time from cgroup") == npos) {
        GTEST_SKIP() << "no cgroup of its own here: the process tree cannot see orphans\n" << r.out;
    }
    ASSERT_NE(at, npos) << r.out;
    const auto pid_at =
        at + std::string_view{"the job left 1 process running after it ended: "}.size();
    const pid_t pid = std::stoi(r.out.substr(pid_at));
    // The background process, named: "sleep", or "sh" when the job ended before its fork
    // had become sleep.
    const auto named = r.out.substr(r.out.find(' ', pid_at), 8);
    EXPECT_TRUE(named == " (sleep)" || named.starts_with(" (sh)")) << r.out;
    ASSERT_GT(pid, 1);
    ::kill(pid, SIGKILL);
}

} // namespace
} // namespace jp::test
