// SPDX-License-Identifier: BSD-3-Clause
// Attribution through the real binary (docs/attribution.md). The node is
// jp_fake_powercap --follow-cpu IDLE:K: each package draws IDLE W plus K W per
// busy CPU of the machine's real /proc/stat (CPU N on package N % 2), so the
// truth of a job's dynamic energy is K x its CPU time. Jobs run pinned with
// taskset (given one CPU, so one package, each), side by side, as on a shared node.
#include "shell.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <thread>

namespace jp::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr double k_idle_w = 10;
constexpr double k_per_cpu_w = 20;

struct Attribution : ::testing::TestWithParam<const char*> {
    fs::path dir = fs::temp_directory_path() / fmt::format("jp-attrib-{}", ::getpid());
    void SetUp() override {
        if (::sysconf(_SC_NPROCESSORS_ONLN) < 2) {
            GTEST_SKIP() << "needs two CPUs";
        }
        fs::remove_all(dir);
        fs::create_directories(dir);
        std::ofstream{dir / "c.toml"} << fmt::format(
            "[attribution]\njob_cpu = \"{}\"\nidle_watts = {{ \"cpu0.package\" = {}, "
            "\"cpu1.package\" = {} }}\n",
            GetParam(), k_idle_w, k_idle_w);
    }
    void TearDown() override { fs::remove_all(dir); }

    // `jouleprof run` of a shell job pinned to cpu, as a line for sh.
    [[nodiscard]] std::string job(int cpu, const std::string& name, const std::string& cmd) const {
        return fmt::format("taskset -c {} {} -q --sysfs-root {} -c {} run -i 100ms -o {} -- sh -c "
                           "'{}' >/dev/null 2>{}",
                           cpu, JP_BINARY, (dir / "node").string(), (dir / "c.toml").string(),
                           (dir / (name + ".jptrace")).string(), cmd,
                           (dir / (name + ".err")).string());
    }
    // Runs `lines` concurrently on the fake node.
    void on_node(const std::vector<std::string>& lines) const {
        std::string all;
        for (const auto& l : lines) {
            all += l + " & ";
        }
        all += "wait";
        const auto cmd =
            fmt::format("{} --follow-cpu {}:{} --hz 1000 {} -- sh -c \"{}\"", JP_FAKE_POWERCAP,
                        k_idle_w, k_per_cpu_w, (dir / "node").string(), all);
        ASSERT_EQ(sh(cmd).exit_code, 0) << cmd;
    }
    [[nodiscard]] json attribution(const std::string& name) const {
        const auto r =
            sh(fmt::format("{} report --json {}", JP_BINARY, (dir / (name + ".jptrace")).string()));
        EXPECT_EQ(r.exit_code, 0) << slurp(dir / (name + ".err"));
        const auto j = json::parse(r.out, nullptr, false);
        return j.is_discarded() ? json{} : j.at("groups").at(0).at("runs").at(0);
    }
    // Skips the cgroup variants where this machine does not let the test make groups (a
    // skip inside a helper returns from the helper only: callers return when IsSkipped()).
    void need_way(const json& a) const {
        const std::string method = a.value("job_cpu", "");
        const std::string want = GetParam();
        if (want == "cgroup-v1" && method.find("cgroup v1") == std::string::npos) {
            GTEST_SKIP() << "no writable cgroup v1 cpuacct here: " << method;
        }
        if (want == "cgroup-v2" && method.find("cgroup v2") == std::string::npos) {
            GTEST_SKIP() << "no writable cgroup v2 here: " << method;
        }
        if (want == "process-tree") {
            EXPECT_NE(method.find("process tree"), std::string::npos) << method;
        }
    }
};

const json& part(const json& a, const std::string& name) {
    for (const auto& p : a.at("parts")) {
        if (p.at("name") == name) {
            return p;
        }
    }
    throw std::runtime_error("no part " + name);
}

// Job + unallocated + other = the node, part by part, against the report's own figures.
void expect_conserved(const json& run) {
    const auto& a = run.at("attribution");
    double sum = 0;
    for (const auto& p : run.at("parts")) {
        const auto& s = p.at("share");
        EXPECT_NEAR(s.at("job_j").get<double>() + s.at("unallocated_j").get<double>() +
                        s.at("other_j").get<double>(),
                    p.at("energy_j").get<double>(), 1e-3)
            << p.at("name");
        sum += s.at("node_j").get<double>();
    }
    EXPECT_NEAR(sum, run.at("node").at("energy_j").get<double>(), 1e-3);
    EXPECT_NEAR(a.at("node_j").get<double>(), sum, 1e-3);
}

// A job pinned to one CPU of package pkg: its dynamic share is K x its CPU time (within
// tolerance), and its package's idle power all its own (one CPU, given), exactly.
void expect_own_share(const json& run, const std::string& pkg, double tolerance) {
    const auto& a = run.at("attribution");
    const double job_cpu = a.at("job_cpu_s").get<double>();
    const auto& p = part(a, pkg);
    EXPECT_NEAR(p.at("dynamic_j").get<double>(), k_per_cpu_w * job_cpu,
                tolerance * k_per_cpu_w * job_cpu)
        << a.dump();
    const double runtime = run.at("runtime_s").get<double>();
    EXPECT_NEAR(p.at("idle_j").get<double>(), k_idle_w * runtime, 0.005 * k_idle_w * runtime);
}

TEST_P(Attribution, TwoJobsSideBySideEachGetTheirOwnShare) {
    // CPU use 1:3 — a on cpu0 busy 1 s of 3, b on cpu1 busy 3 s of 3.
    on_node({job(0, "a", "timeout 1 sh -c \\\"while :; do :; done\\\"; sleep 2"),
             job(1, "b", "timeout 3 sh -c \\\"while :; do :; done\\\"")});
    const auto ra = attribution("a");
    const auto rb = attribution("b");
    ASSERT_TRUE(ra.contains("attribution") && rb.contains("attribution"));
    need_way(ra.at("attribution"));
    if (IsSkipped()) {
        return;
    }
    for (const auto& [run, pkg, cpu_s] :
         {std::tuple{ra, "cpu0.package", 1.0}, std::tuple{rb, "cpu1.package", 3.0}}) {
        const auto& a = run.at("attribution");
        const double job_cpu = a.at("job_cpu_s").get<double>();
        // At most its busy loop's wall time (a loaded machine gives it less: the check
        // below is against the CPU time it got, whatever that was).
        EXPECT_GT(job_cpu, 0.2 * cpu_s) << a.dump();
        EXPECT_LT(job_cpu, 1.1 * cpu_s + 0.1) << a.dump();
        // Its dynamic share is K x its CPU time (the other job's would double it). The fake
        // node's power follows /proc's 10 ms ticks, which are samples (a tick goes to whoever
        // runs at that instant), whatever method reads the job: on a quiet machine a cgroup's
        // nanoseconds land within 3 %, but with other tests on both cores a CI run saw 19 %
        // (2026-11-27, cgroup v1). The process tree reads ticks too, and a job's lagging ticks
        // are carried into intervals others kept busy: 3-25 % seen, and 35 % once in CI as
        // an unprivileged user (2026-11-27). Hence 25 % and 40 %.
        const bool tree = a.at("job_cpu").get<std::string>().starts_with("process tree");
        expect_own_share(run, pkg, tree ? 0.40 : 0.25);
        // The other package's idle power is not its own at all.
        const double runtime = run.at("runtime_s").get<double>();
        const auto& other =
            part(a, std::string{pkg} == "cpu0.package" ? "cpu1.package" : "cpu0.package");
        EXPECT_NEAR(other.at("idle_j").get<double>(), 0, 1e-9);
        // The fake node's writer steps its counters every 1 ms; on a loaded 2-core machine
        // it lags a little behind the runtime's clock (0.58 % seen once in a clean-clone CI
        // run, 2026-11-28; 0.1-0.3 % otherwise).
        EXPECT_NEAR(other.at("unallocated_j").get<double>(), k_idle_w * runtime,
                    0.01 * k_idle_w * runtime);
        EXPECT_FALSE(a.at("exclusive").get<bool>());
        expect_conserved(run);
        // The sensors' bound on the job's share (its counters read every 100 ms, cut where
        // they were read): around the figure, and far narrower than it (1.3 % seen for a).
        const double job_j = a.at("job_j").get<double>();
        ASSERT_TRUE(a.contains("job_low_j")) << a.dump();
        EXPECT_LE(a.at("job_low_j").get<double>(), job_j);
        EXPECT_GE(a.at("job_high_j").get<double>(), job_j);
        EXPECT_LT(a.at("job_bound_j").get<double>(), 0.1 * job_j) << a.dump();
    }
}

TEST_P(Attribution, ACpuBurnerOutsideAnyJobIsOtherProcessesNotTheJob) {
    // The burner runs from before the job's start to after its end.
    on_node({"sleep 0.5 && " + job(0, "a", "sleep 2"),
             "taskset -c 0 timeout 3.5 sh -c 'while :; do :; done'"});
    const auto ra = attribution("a");
    ASSERT_TRUE(ra.contains("attribution"));
    need_way(ra.at("attribution"));
    if (IsSkipped()) {
        return;
    }
    const auto& p = part(ra.at("attribution"), "cpu0.package");
    const double dynamic =
        p.at("node_j").get<double>() - k_idle_w * ra.at("runtime_s").get<double>();
    EXPECT_GT(dynamic, 0.5 * k_per_cpu_w * 2) << ra.at("attribution").dump();
    // The job's dynamic share is its own CPU time's (sleep's and the monitor's, which counts
    // as the job's), never the burner's.
    const double job_cpu = ra.at("attribution").at("job_cpu_s").get<double>();
    EXPECT_LT(job_cpu, 0.25) << ra.at("attribution").dump();
    // The fake node's power follows /proc's 10 ms ticks, which are samples, whatever method
    // reads the job (see above): a job of 30-40 ms of CPU is three or four ticks, and a tick
    // or two more under load missed a bound without them twice in CI (2026-11-27: cgroup v2
    // 0.96 J against 0.91, process tree 1.38 against 1.25). Hence two ticks, and 30 % for the
    // process tree's own tick reading.
    const bool tree =
        ra.at("attribution").at("job_cpu").get<std::string>().starts_with("process tree");
    const double slack = tree ? 1.3 : 1.1;
    const double ticks_s = 0.02;
    EXPECT_LT(p.at("dynamic_j").get<double>(), slack * k_per_cpu_w * (job_cpu + ticks_s) + 0.2)
        << ra.at("attribution").dump();
    EXPECT_GT(p.at("other_j").get<double>(), 0.9 * dynamic);
    expect_conserved(ra);
}

// `jouleprof record --job PID`, as the Slurm plugin runs it: the monitor is not the job's
// parent; the job is the step PID leads — its Slurm cgroup (made here with Slurm's names,
// where this machine lets the test make groups) or its process tree.
struct RecordedStep {
    fs::path group; // job_99/step_0 of a hierarchy, or empty: the process tree
    std::vector<fs::path> made;
    ~RecordedStep() {
        for (auto it = made.rbegin(); it != made.rend(); ++it) {
            ::rmdir(it->c_str());
        }
    }
};

TEST_P(Attribution, RecordedStepsSideBySideEachGetTheirOwnShare) {
    const std::string way = GetParam();
    RecordedStep steps[2];
    for (int i = 0; i < 2 && way != "process-tree"; ++i) {
        fs::path mount = way == "cgroup-v2" ? fs::path{"/sys/fs/cgroup/unified"}
                                            : fs::path{"/sys/fs/cgroup/cpuacct"};
        if (way == "cgroup-v2" && !fs::exists(mount / "cgroup.controllers")) {
            mount = "/sys/fs/cgroup"; // a unified machine
        }
        auto group = mount / fmt::format("jp-test-{}-{}", ::getpid(), i);
        for (const auto* name : {"", "job_99", "step_0"}) {
            group /= name;
            if (::mkdir(group.c_str(), 0755) != 0 && errno != EEXIST) {
                GTEST_SKIP() << "cannot make " << group << " here: " << std::strerror(errno);
            }
            steps[i].made.push_back(group);
        }
        steps[i].group = group;
    }
    // The step: this shell leads it (slurmstepd's part), its task is the busy loop, and the
    // monitor, reading to the end of its input, ends with it. As slurmstepd does, the task
    // starts once the monitor says `ready` (its start edge taken): an ASan monitor sharing
    // the loop's CPU took over a second to start, and saw none of a loop begun at once.
    std::ofstream{dir / "step.sh"} << fmt::format(
        "[ \"$4\" != - ] && echo $$ > \"$4/cgroup.procs\"\n"
        "{{ n=0; until grep -q '^ready' {}/$1.out 2>/dev/null || [ $n -ge 600 ]; do sleep 0.05; "
        "n=$((n + 1)); done; timeout $2 sh -c 'while :; do :; done'; sleep $3; }} | {} -q "
        "--sysfs-root {} -c {} record --job $$ -i 100ms -o {}/$1.jptrace >{}/$1.out 2>{}/$1.err\n",
        dir.string(), JP_BINARY, (dir / "node").string(), (dir / "c.toml").string(), dir.string(),
        dir.string(), dir.string());
    const auto step = [&](int cpu, const char* name, int busy, int sleep) {
        const auto g = steps[cpu].group.empty() ? std::string{"-"} : steps[cpu].group.string();
        return fmt::format("taskset -c {} sh {} {} {} {} {}", cpu, (dir / "step.sh").string(), name,
                           busy, sleep, g);
    };
    on_node({step(0, "a", 1, 2), step(1, "b", 3, 0)});
    for (const auto& [name, pkg, cpu_s] :
         {std::tuple{"a", "cpu0.package", 1.0}, std::tuple{"b", "cpu1.package", 3.0}}) {
        const auto run = attribution(name);
        ASSERT_TRUE(run.contains("attribution")) << slurp(dir / (std::string{name} + ".err"));
        const auto& a = run.at("attribution");
        const auto method = a.at("job_cpu").get<std::string>();
        if (way == "process-tree") {
            EXPECT_TRUE(method.starts_with("process tree of pid")) << method;
        } else {
            EXPECT_NE(method.find("Slurm job 99's cgroup"), std::string::npos) << method;
        }
        const double job_cpu = a.at("job_cpu_s").get<double>();
        EXPECT_GT(job_cpu, 0.2 * cpu_s) << a.dump();
        EXPECT_LT(job_cpu, 1.1 * cpu_s + 0.2) << a.dump(); // the monitor's own CPU is in it
        // As for `run` above: /proc's ticks make the fake node's truth.
        expect_own_share(run, pkg, way == "process-tree" ? 0.40 : 0.25);
        EXPECT_FALSE(a.at("exclusive").get<bool>());
        expect_conserved(run);
    }
}

TEST(RecordJob, AJobThatIsNoProcessIsOneLineAndExitTwo) {
    pid_t tid = 0;
    std::atomic<bool> stop{false};
    std::thread thread{[&] {
        tid = static_cast<pid_t>(::gettid());
        while (!stop) {
            std::this_thread::sleep_for(std::chrono::milliseconds{5});
        }
    }};
    while (tid == 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds{1});
    }
    const auto out = fs::temp_directory_path() / fmt::format("jp-recjob-{}.jptrace", ::getpid());
    for (const auto& [arg, expect] : std::vector<std::pair<std::string, std::string>>{
             {"0", "expects a process ID (a whole number above 0), got '0'"},
             {"-3", "expects a process ID"},
             {"0x10", "expects a process ID"},
             {"99999999999", "expects a process ID"},
             {"1", "process 1 leads every process"},
             {"2147483647", "no process 2147483647"},
             {std::to_string(tid),
              fmt::format("{} is a thread of process {}, not a process", tid, ::getpid())}}) {
        const auto r = sh(
            fmt::format("{} record -o {} --job {} </dev/null 2>&1", JP_BINARY, out.string(), arg));
        EXPECT_EQ(r.exit_code, 2) << arg << ": " << r.out;
        EXPECT_NE(r.out.find(expect), std::string::npos) << arg << ": " << r.out;
        EXPECT_EQ(std::ranges::count(r.out, '\n'), 1) << "one line: " << r.out;
        EXPECT_FALSE(fs::exists(out)) << "nothing written for " << arg;
    }
    stop = true;
    thread.join();
    fs::remove(out);
}

INSTANTIATE_TEST_SUITE_P(JobCpu,
                         Attribution,
                         ::testing::Values("cgroup-v1", "cgroup-v2", "process-tree"),
                         [](const auto& p) {
                             std::string s = p.param;
                             std::erase(s, '-');
                             return s;
                         });

} // namespace
} // namespace jp::test
