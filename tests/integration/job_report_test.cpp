// SPDX-License-Identifier: BSD-3-Clause
// `jouleprof report DIR` and `jouleprof merge` as the real binary: a job's
// node traces (as the Slurm plugin lays them out) give one result per step,
// in text, JSON and HTML; bad input is one line and a non-zero exit.
#include "shell.hpp"
#include "trace_builder.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace jp::test {
namespace {

class JobReport : public ::testing::Test {
protected:
    std::filesystem::path dir =
        std::filesystem::path{::testing::TempDir()} / fmt::format("jp-jobreport-{}", ::getpid());
    void SetUp() override {
        std::filesystem::remove_all(dir);
        std::filesystem::create_directories(dir / "jouleprof" / "42.0");
        std::filesystem::create_directories(dir / "jouleprof" / "42.1");
        for (int n = 0; n < 2; ++n) {
            node(dir / "jouleprof" / "42.0", n, "0", 100.0 * (n + 1));
        }
        node(dir / "jouleprof" / "42.1", 0, "1", 50);
    }
    void TearDown() override { std::filesystem::remove_all(dir); }

    static void node(const std::filesystem::path& step, int n, const std::string& id, double w) {
        TraceBuilder b(step / fmt::format("n{}.jptrace", n),
                       {channel("cpu0.package", Domain::cpu_package, Quantity::energy)},
                       {{"epoch_wall_ns", "1790000000000000000"},
                        {"clock.offset_ns", "0"},
                        {"clock.offset_error_ns", "1000000"},
                        {"slurm.job_id", "42"},
                        {"slurm.step", "42." + id},
                        {"slurm.node", fmt::format("n{}", n)},
                        {"slurm.node_id", std::to_string(n)},
                        {"slurm.nnodes", id == "0" ? "2" : "1"}});
        b.run(make_run("slurm", 10, flat(w)));
    }
    static std::string jp(const std::string& args) {
        return fmt::format("{} {} 2>&1", JP_BINARY, args);
    }
};

TEST_F(JobReport, ADirectoryOfStepsGivesOneResultPerStep) {
    const auto text = sh(jp("report --no-sacct " + (dir / "jouleprof").string()));
    ASSERT_EQ(text.exit_code, 0) << text.out;
    EXPECT_NE(text.out.find("Job 42, step 0 (slurm): 2 nodes, complete\n"), std::string::npos)
        << text.out;
    EXPECT_NE(text.out.find("Job 42, step 1 (slurm): 1 node, complete\n"), std::string::npos)
        << text.out;
    const auto json = sh(jp("report --json --no-sacct " + (dir / "jouleprof").string()));
    ASSERT_EQ(json.exit_code, 0) << json.out;
    const auto j = nlohmann::json::parse(json.out);
    ASSERT_EQ(j["steps"].size(), 2U);
    EXPECT_NEAR(j["steps"][0]["energy_j"].get<double>(), 1000.0 + 2000.0, 1e-6);
    EXPECT_EQ(j["steps"][0]["nodes"].size(), 2U);
    EXPECT_NEAR(j["steps"][1]["energy_j"].get<double>(), 500.0, 1e-6);
}

TEST_F(JobReport, MergeTakesTheGivenTracesAsOneStep) {
    const auto step = dir / "jouleprof" / "42.0";
    const auto out =
        sh(jp(fmt::format("merge --json --no-sacct {} {}", (step / "n0.jptrace").string(),
                          (step / "n1.jptrace").string())));
    ASSERT_EQ(out.exit_code, 0) << out.out;
    const auto j = nlohmann::json::parse(out.out)["steps"][0];
    EXPECT_NEAR(j["energy_j"].get<double>(), 3000.0, 1e-6);
    EXPECT_FALSE(j["partial"].get<bool>());
    // One node of two: partial, said so.
    const auto half = sh(jp("merge --no-sacct " + (step / "n1.jptrace").string()));
    ASSERT_EQ(half.exit_code, 0) << half.out;
    EXPECT_NE(half.out.find("1 of 2 nodes, complete, PARTIAL"), std::string::npos) << half.out;
    EXPECT_NE(half.out.find("missing: node id 0"), std::string::npos) << half.out;
}

// An --html or --json-file it may not write is refused before any node trace is read: exit 2,
// one line, for merge and for report on a step's directory alike, and never one of the node
// traces' files.
TEST_F(JobReport, AnHtmlItMayNotWriteIsRefusedFirst) {
    const auto step = dir / "jouleprof" / "42.0";
    const auto page = (dir / "mine.html").string();
    std::ofstream{page} << "mine\n";
    const auto wal = (step / "n0.jptrace-wal").string();
    std::ofstream{wal} << "not SQLite\n"; // a node trace's WAL: its header is not SQLite's
    for (const auto& cmd :
         {fmt::format("merge {} {} --html {}", (step / "n0.jptrace").string(),
                      (step / "n1.jptrace").string(), page),
          fmt::format("report --no-sacct {} --html {}", step.string(), page),
          fmt::format("merge {} --html {} --force", step.string(), wal),
          fmt::format("report --no-sacct {} --html {} --force", step.string(), wal),
          // The JSON is always replaced where it may be, so never over a node trace's file.
          fmt::format("merge {} --json-file {}", step.string(), wal),
          fmt::format("report --no-sacct {} --json-file {}", step.string(), wal),
          fmt::format("report --no-sacct {} --json-file {}", (dir / "jouleprof").string(), wal)}) {
        const auto r = sh(jp(cmd));
        EXPECT_EQ(r.exit_code, 2) << cmd << "\n" << r.out;
        EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << cmd << "\n" << r.out;
        const auto* option =
            cmd.find("--json-file") != std::string::npos ? "--json-file" : "--html";
        EXPECT_NE(r.out.find(option), std::string::npos) << cmd << ": names " << option << "\n"
                                                         << r.out;
    }
    EXPECT_EQ(slurp(page), "mine\n");
    EXPECT_EQ(slurp(wal), "not SQLite\n");
}

// A directory of ordinary runs (a sweep's, say) is not taken for a job's nodes by report:
// it says how to report them; merge, asked for nodes in so many words, still merges them.
TEST_F(JobReport, ADirectoryOfRunsIsNotTakenForAJobsNodes) {
    const auto sweep = dir / "jouleprof" / "my sweep";
    std::filesystem::create_directories(sweep);
    for (int i = 0; i < 2; ++i) {
        TraceBuilder b(sweep / fmt::format("0{}-n-{}.jptrace", i, i),
                       {channel("cpu0.package", Domain::cpu_package, Quantity::energy)});
        b.run(make_run(fmt::format("n={}", i), 5, flat(20.0 * (i + 1))));
    }
    const auto quoted = "'" + sweep.string() + "'";
    const auto r = sh(jp("report --no-sacct " + quoted + "/"));
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_NE(r.out.find("holds traces of runs, not of a job's nodes"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("(jouleprof report " + quoted + "/*.jptrace)"), std::string::npos)
        << "a path the user can paste: " << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
    // With a page it may not write as well: 2 either way (it was 1 for the directory, said
    // first, and 2 for the page).
    const auto page =
        sh(jp("report --no-sacct " + quoted + " --html " + quoted + "/00-n-0.jptrace 2>&1"));
    EXPECT_EQ(page.exit_code, 2) << page.out;
    EXPECT_EQ(sh(jp("merge --no-sacct " + quoted)).exit_code, 0);
    // Among a job's steps, it is left out with a warning and the steps are reported.
    const auto all = sh(jp("report --no-sacct " + (dir / "jouleprof").string()));
    EXPECT_EQ(all.exit_code, 0) << all.out;
    EXPECT_NE(all.out.find("my sweep: left out: its traces are runs'"), std::string::npos)
        << all.out;
    EXPECT_NE(all.out.find("Job 42, step 1 (slurm)"), std::string::npos) << all.out;
    // A directory of such directories alone: refused, its traces named by a glob that holds.
    const auto sweeps = dir / "sweeps";
    for (const auto* name : {"a", "b"}) {
        std::filesystem::create_directories(sweeps / name);
        std::filesystem::copy_file(sweep / "00-n-0.jptrace", sweeps / name / "00-n-0.jptrace");
    }
    const auto both = sh(jp("report --no-sacct " + sweeps.string()));
    EXPECT_EQ(both.exit_code, 2) << both.out;
    EXPECT_NE(both.out.find("(jouleprof report " + sweeps.string() + "/*/*.jptrace)"),
              std::string::npos)
        << both.out;
    // A trace record made is a node's, with or without Slurm: one among them is enough.
    TraceBuilder recorded(sweep / "node.jptrace",
                          {channel("cpu0.package", Domain::cpu_package, Quantity::energy)},
                          {{"recorded", "jouleprof record"}});
    recorded.run(make_run("job", 5, flat(30)));
    const auto again = sh(jp("report --no-sacct " + quoted));
    EXPECT_EQ(again.out.find("holds traces of runs"), std::string::npos) << again.out;
}

TEST_F(JobReport, HtmlIsWrittenOnceUnlessForced) {
    const auto step = (dir / "jouleprof" / "42.0").string();
    const auto page = (dir / "job.html").string();
    ASSERT_EQ(sh(jp(fmt::format("report --no-sacct {} --html {}", step, page))).exit_code, 0);
    const auto html = slurp(page);
    EXPECT_NE(html.find("Each node's power, stacked on the same axis"), std::string::npos);
    EXPECT_NE(html.find("<svg"), std::string::npos);
    const auto again = sh(jp(fmt::format("report --no-sacct {} --html {}", step, page)));
    EXPECT_EQ(again.exit_code, 2);
    EXPECT_NE(again.out.find("--force"), std::string::npos) << again.out;
    EXPECT_EQ(sh(jp(fmt::format("report --no-sacct {} --html {} --force", step, page))).exit_code,
              0);
}

TEST_F(JobReport, BadInputIsOneLineAndANonZeroExit) {
    const auto jobs = (dir / "jouleprof").string();
    // --html writes one step.
    auto r = sh(jp(fmt::format("report --no-sacct {} --html {}", jobs, (dir / "x.html").string())));
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
    EXPECT_FALSE(std::filesystem::exists(dir / "x.html"));
    // A file among directories.
    r = sh(jp(fmt::format("report --no-sacct {} {}", jobs,
                          (dir / "jouleprof" / "42.1" / "n0.jptrace").string())));
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_NE(r.out.find("is a file among directories"), std::string::npos) << r.out;
    // A directory without traces.
    std::filesystem::create_directories(dir / "empty");
    r = sh(jp("report --no-sacct " + (dir / "empty").string()));
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_NE(r.out.find("holds no node traces"), std::string::npos) << r.out;
    // Options a job's result cannot honour are refused, not ignored.
    r = sh(jp("report --no-sacct --by-trace " + jobs));
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_NE(r.out.find("--by-trace applies to trace files"), std::string::npos) << r.out;
    r = sh(jp("report --pue 1.2 " + jobs));
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_NE(r.out.find("--pue applies to trace files"), std::string::npos)
        << "only what was given: " << r.out;
    r = sh(jp("report --pue 1.2 --price 0.2 " + jobs));
    EXPECT_NE(r.out.find("--pue and --price apply to trace files"), std::string::npos) << r.out;
    r = sh(jp("report --wait 1s " + (dir / "jouleprof" / "42.1" / "n0.jptrace").string()));
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_NE(r.out.find("apply to a job's directory"), std::string::npos) << r.out;
    // Traces of two steps given as one.
    r = sh(jp(fmt::format("merge --no-sacct {} {}",
                          (dir / "jouleprof" / "42.0" / "n0.jptrace").string(),
                          (dir / "jouleprof" / "42.1" / "n0.jptrace").string())));
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_NE(r.out.find("merge the traces of one step at a time"), std::string::npos) << r.out;
}

} // namespace
} // namespace jp::test
