// SPDX-License-Identifier: BSD-3-Clause
// The SPANK plugin under a hostile job owner (docs/security.md, "The Slurm
// plugin"): the plugin runs in slurmstepd as root, the monitor and everything
// in the step directory belong to the job's user (here: nobody). A stand-in
// `jouleprof` plays the user's part: it prints another process's pid, refuses
// to stop, puts a FIFO where a file was expected, swaps the step directory for
// a link to root's. Root must signal, read, wait on, or remove none of it.
#include "spank_host.hpp"

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace jp::test {
namespace {

namespace fs = std::filesystem;
constexpr uid_t k_nobody = 65534;
constexpr std::uint32_t k_batch_step = 0xfffffffb;

std::string slurp(const fs::path& p) {
    std::ifstream in{p};
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

class SpankAttack : public ::testing::Test {
protected:
    void SetUp() override {
        if (::geteuid() != 0) {
            GTEST_SKIP() << "slurmstepd runs the plugin as root: needs root";
        }
        std::string tmpl = (fs::temp_directory_path() / "jp-spank-XXXXXX").string();
        ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
        m_dir = tmpl;
        fs::permissions(m_dir, fs::perms::owner_all | fs::perms::group_read |
                                   fs::perms::group_exec | fs::perms::others_read |
                                   fs::perms::others_exec);
        m_work = m_dir / "work";
        fs::create_directory(m_work);
        ASSERT_EQ(::chown(m_work.c_str(), k_nobody, k_nobody), 0);
        ::setenv("SLURMD_NODENAME", "n1", 1);
        // The orphaned monitor becomes this process's child: how it ended is seen here.
        ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
        ::alarm(60); // a plugin that blocks on what the user put there fails the test
    }
    void TearDown() override {
        ::alarm(0);
        if (!m_dir.empty()) {
            std::error_code ec;
            fs::remove_all(m_dir, ec);
        }
    }

    // The stand-in monitor: a shell script run as the job's user in its work dir.
    std::string fake_jouleprof(const std::string& body) {
        const auto script = m_dir / "fake-jouleprof";
        std::ofstream{script} << "#!/bin/sh\necho \"$*\" >> " << (m_work / "calls.log").string()
                              << "\n"
                              << body;
        fs::permissions(script, fs::perms::owner_all | fs::perms::group_read |
                                    fs::perms::group_exec | fs::perms::others_read |
                                    fs::perms::others_exec);
        return script.string();
    }

    Step step(const std::string& jouleprof, std::uint32_t step_id) const {
        Step s;
        s.step_id = step_id;
        s.work_dir = m_work.string();
        s.args = {"jouleprof=" + jouleprof, "ready_timeout_ms=10000", "stop_timeout_ms=500"};
        return s;
    }

    [[nodiscard]] bool any_log(const std::string& text) const {
        for (const auto& l : SpankHost::log()) {
            if (l.find(text) != std::string::npos) {
                return true;
            }
        }
        return false;
    }

    fs::path m_dir;
    fs::path m_work;
};

// A well-behaved monitor's part of the protocol: "done" after "end".
constexpr const char* k_obedient = R"(while read -r line; do
    case "$line" in end*) echo "done ok"; exit 0;; esac
done
)";

TEST_F(SpankAttack, AMonitorPrintingAnotherPidGetsNoOtherProcessSignalled) {
    const pid_t victim = ::fork(); // a root process the attacker wants stopped
    ASSERT_GE(victim, 0);
    if (victim == 0) {
        for (;;) {
            ::pause();
        }
    }
    const auto jouleprof =
        fake_jouleprof(fmt::format("echo $$ > {}\necho \"ready {}\"\ntrap '' TERM\nexec sleep 60\n",
                                   (m_work / "monitor.pid").string(), victim));
    SpankHost host{JP_SPANK_PLUGIN, step(jouleprof, 0)};
    host.init("");
    host.user_init();
    ASSERT_TRUE(any_log("measuring into")) << "the monitor did not start";
    host.task_exit(0); // the monitor never says done: SIGTERM, then SIGKILL
    host.exit();

    int status = 0;
    EXPECT_EQ(::waitpid(victim, &status, WNOHANG), 0) << "the victim was signalled";
    ::kill(victim, SIGKILL);
    ::waitpid(victim, &status, 0);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

    const pid_t monitor = std::stoi(slurp(m_work / "monitor.pid"));
    ASSERT_EQ(::waitpid(monitor, &status, 0), monitor);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        << "the monitor itself was not the one stopped: " << status;
    EXPECT_TRUE(any_log("the monitor did not stop: killed"));
}

TEST_F(SpankAttack, AFifoWhereTheBatchNoteShouldBeIsNeitherWaitedOnNorRemoved) {
    const auto jouleprof = fake_jouleprof(
        "mkfifo jouleprof/4242.batch/.batch-output\necho \"ready $$\"\n" + std::string{k_obedient});
    SpankHost host{JP_SPANK_PLUGIN, step(jouleprof, k_batch_step)};
    host.init("");
    host.user_init();
    ASSERT_TRUE(any_log("measuring into")) << "the monitor did not start";
    const auto t0 = std::chrono::steady_clock::now();
    host.task_exit(0); // reads the note: a FIFO would block root's open forever
    host.exit();
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds{20});
    struct stat st {};
    ASSERT_EQ(::lstat((m_work / "jouleprof/4242.batch/.batch-output").c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was removed";
    EXPECT_EQ(slurp(m_work / "calls.log").find("report"), std::string::npos)
        << slurp(m_work / "calls.log");
}

TEST_F(SpankAttack, AStepDirectorySwappedForALinkToRootsDirectoryIsNotFollowed) {
    // Root's directory, as the user would aim at: an empty file named like the
    // node's log (removed when empty) and a root-only note naming an output path.
    const auto roots = m_dir / "roots";
    fs::create_directory(roots);
    std::ofstream{roots / "n1.log"}.flush();
    std::ofstream{roots / ".batch-output"} << (m_dir / "written-by-root").string();
    fs::permissions(roots / ".batch-output", fs::perms::owner_read | fs::perms::owner_write);
    const auto jouleprof = fake_jouleprof(
        fmt::format("mv jouleprof/4242.batch jouleprof/moved && ln -s {} jouleprof/4242.batch\n"
                    "echo \"ready $$\"\n{}",
                    roots.string(), k_obedient));
    SpankHost host{JP_SPANK_PLUGIN, step(jouleprof, k_batch_step)};
    host.init("");
    host.user_init();
    ASSERT_TRUE(any_log("measuring into")) << "the monitor did not start";
    host.task_exit(0);
    host.exit();
    EXPECT_TRUE(fs::exists(roots / "n1.log")) << "root removed a file in root's directory";
    EXPECT_TRUE(fs::exists(roots / ".batch-output")) << "root removed a file in root's directory";
    EXPECT_FALSE(fs::exists(m_dir / "written-by-root"));
    EXPECT_EQ(slurp(m_work / "calls.log").find("report"), std::string::npos)
        << slurp(m_work / "calls.log");
}

} // namespace
} // namespace jp::test
