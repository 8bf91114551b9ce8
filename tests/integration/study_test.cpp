// SPDX-License-Identifier: BSD-3-Clause
// `jouleprof study` end to end: the real binary measures a study file's
// workloads × modes × settings (jp_test_job as the workload, phases marked with
// `jouleprof mark`) on a fake RAPL package drawing a constant 150 W, into one
// results file; `jouleprof study report` merges results of two node types.
#include "fake_sysfs.hpp"
#include "profile_writer.hpp"
#include "shell.hpp"
#include "trace/reader.hpp"

#include <csignal>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace jp::test {
namespace {

constexpr std::size_t npos = std::string::npos;

bool has_line_with(const std::string& text, const std::vector<std::string>& words) {
    std::istringstream in{text};
    for (std::string line; std::getline(in, line);) {
        if (std::ranges::all_of(words, [&](const auto& w) { return line.find(w) != npos; })) {
            return true;
        }
    }
    return false;
}

class Study : public ::testing::Test {
protected:
    void SetUp() override {
        add_rapl_zone(fs, "intel-rapl:0", "package-0", 0, 4294967296ULL, 0444);
        fs.add({"/config.toml", "[sensors.estimate]\nenabled = false\n"});
        ProfileWriter::Profile p;
        p.amp_w = 0;
        writer.emplace(fs.path("/sys/class/powercap/intel-rapl:0/energy_uj"), p, now_ns());
    }
    std::string jp(const std::string& args, const std::string& binary = JP_BINARY) const {
        return fmt::format("{} --sysfs-root {} -c {} {}", binary, fs.root().string(),
                           file("/config.toml"), args);
    }
    std::string file(const char* name) const { return fs.path(name).string(); }
    std::string study_file(const char* name, const std::string& text) {
        fs.add({name, text});
        return file(name);
    }
    // [study] with short durations, then the workloads and settings.
    static std::string
    study(const std::string& head, const std::string& body, const char* cooldown = "20ms") {
        return fmt::format("[study]\nname = \"it\"\ncooldown = \"{}\"\ninterval = \"50ms\"\n{}\n{}",
                           cooldown, head, body);
    }
    // Train marks its phase from inside the job; predict does not.
    static std::string workload(const std::string& name) {
        return fmt::format(
            "[[workload]]\nname = \"{0}\"\n[workload.commands]\n"
            "train = [\"sh\", \"-c\", \"{1} mark begin train && {2} {{secs}} "
            "{{dir}}/{{workload}}-{{mode}}-{{setting}}.txt && {1} mark end train\"]\n"
            "predict = [\"{2}\", \"0.05\", \"{{dir}}/{{workload}}-{{mode}}-{{setting}}.txt\"]\n",
            name, JP_BINARY, JP_TEST_JOB);
    }
    FakeSysfs fs;
    std::optional<ProfileWriter> writer;
};

constexpr const char* k_settings = "[[setting]]\nname = \"fast\"\nvars = { secs = 0.05 }\n"
                                   "[[setting]]\nname = \"slow\"\nvars = { secs = \"0.15\" }\n";

TEST_F(Study, EveryRunOfTheMatrixGoesIntoOneFileAndTwoNodeTypesMerge) {
    const auto dir = file("/out");
    const auto path =
        study_file("/full.toml", study("repeat = 2\nwarmup = 1\nnode_type = \"cpu-node\"",
                                       workload("lstm") + workload("vgg") + k_settings));
    const auto r = sh(jp(fmt::format("study --no-live -d {} {} 2>{}", dir, path, file("/err"))));
    ASSERT_EQ(r.exit_code, 0) << r.out << slurp(file("/err"));
    const auto results = dir + "/it-cpu-node.jptrace";
    auto reader = trace::Reader::open(results);
    ASSERT_TRUE(reader) << reader.error().message();
    EXPECT_EQ(reader->meta().at("node_type"), "cpu-node");
    EXPECT_EQ(reader->meta().at("study"), "it");
    std::map<std::string, std::multiset<std::string>> kinds;
    for (const auto& run : reader->runs()) {
        kinds[run.label].insert(run.kind);
        EXPECT_EQ(run.exit_code, 0) << run.label;
    }
    std::map<std::string, std::multiset<std::string>> expected;
    for (const char* w : {"lstm", "vgg"}) {
        for (const char* m : {"train", "predict"}) {
            for (const char* s : {"fast", "slow"}) {
                expected[fmt::format("{}/{}@{}", w, m, s)] = {"measure", "measure", "warmup"};
                EXPECT_TRUE(std::filesystem::exists(fmt::format("{}/{}-{}-{}.txt", dir, w, m, s)));
                EXPECT_TRUE(has_line_with(r.out, {w, m, "cpu-node", s, "ok"}))
                    << w << m << s << "\n"
                    << r.out;
            }
        }
    }
    EXPECT_EQ(kinds, expected);
    EXPECT_NE(r.out.find("phase train"), npos) << r.out;
    const auto err = slurp(file("/err"));
    EXPECT_NE(err.find("jouleprof study [1/24] lstm/train@fast warm-up 1/1"), npos) << err;
    EXPECT_NE(err.find("jouleprof study [24/24] vgg/predict@slow repeat 2/2"), npos) << err;

    // Fewer runs on a second node type, then one table over both files.
    const auto small =
        study_file("/small.toml", study("repeat = 1\nwarmup = 0", workload("lstm") + k_settings));
    const auto g =
        sh(jp(fmt::format("-q study --no-live --node-type gpu-node -d {} {}", dir, small)));
    ASSERT_EQ(g.exit_code, 0) << g.out;
    const auto merged =
        sh(jp(fmt::format("study report --json {} {}/it-gpu-node.jptrace", results, dir)));
    ASSERT_EQ(merged.exit_code, 0) << merged.out;
    const auto j = nlohmann::json::parse(merged.out);
    EXPECT_EQ(j["node_types"], (nlohmann::json{"cpu-node", "gpu-node"}));
    ASSERT_EQ(j["rows"].size(), 8U + 4U);
    for (const auto& row : j["rows"]) {
        const bool gpu = row["node_type"] == "gpu-node";
        EXPECT_EQ(row["runs"], gpu ? 1 : 2) << row["label"];
        const double rt = row["runtime_s"]["mean"].get<double>();
        // 2 %, plus 5 ms at 150 W: the fake counter's writer thread can stall that
        // long at an edge on a loaded machine (the runs last only ~0.1 s; exactness
        // against the profile's ground truth is the end-to-end tests' job).
        EXPECT_NEAR(row["node_energy_j"]["mean"].get<double>(), 150 * rt,
                    150 * rt * 0.02 + 150 * 0.005)
            << row["label"];
        EXPECT_EQ(row["energy_ratio"].is_number(), row["workload"] == "lstm") << row["label"];
    }
    const auto text = sh(jp(fmt::format("study report {} {}/it-gpu-node.jptrace", results, dir)));
    EXPECT_TRUE(has_line_with(text.out, {"lstm", "train", "gpu-node", "slow"})) << text.out;
}

TEST_F(Study, AFailingCellIsReportedAndTheOthersStillRun) {
    const auto dir = file("/fail");
    const auto path = study_file(
        "/fail.toml", study("repeat = 2\nwarmup = 0\nnode_type = \"n\"",
                            fmt::format("[[workload]]\nname = \"w\"\n[workload.commands]\n"
                                        "train = [\"{0}\", \"0.05\", \"{{dir}}/t.txt\", \"3\"]\n"
                                        "predict = [\"{0}\", \"0.05\", \"{{dir}}/p.txt\"]\n",
                                        JP_TEST_JOB)));
    const auto r = sh(jp(fmt::format("study --no-live -d {} {} 2>{}", dir, path, file("/err"))));
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_TRUE(has_line_with(r.out, {"w", "train", "failed (exit status 3) (1 of 1 runs)"}))
        << r.out;
    EXPECT_TRUE(has_line_with(r.out, {"w", "predict", "2", "ok"})) << r.out;
    EXPECT_NE(slurp(file("/err")).find("study: w/train failed (exit status 3)"), npos);
    auto reader = trace::Reader::open(dir + "/it-n.jptrace");
    ASSERT_TRUE(reader);
    EXPECT_EQ(reader->runs().size(), 3U) << "train's second repeat is skipped";
}

TEST_F(Study, SigtermStopsTheStudyAndKeepsItsRuns) {
    const auto dir = file("/int");
    const auto path = study_file(
        "/int.toml", study("repeat = 3\nwarmup = 0\nnode_type = \"n\"",
                           fmt::format("[[workload]]\nname = \"w\"\n[workload.commands]\n"
                                       "run = [\"{}\", \"0.05\", \"{{dir}}/r.txt\"]\n",
                                       JP_TEST_JOB),
                           "30s"));
    const auto cmd =
        jp(fmt::format("study --no-live -d {} {} > {} 2>/dev/null", dir, path, file("/table")));
    const auto t0 = now_ns();
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::execl("/bin/sh", "sh", "-c", ("exec " + cmd).c_str(), nullptr);
        ::_exit(126);
    }
    // The first run is done: the study is in its 30 s cooldown.
    ASSERT_TRUE(wait_until([&] {
        auto r = trace::Reader::open(dir + "/it-n.jptrace");
        return r && !r->runs().empty() && r->runs().front().end_ns.has_value() &&
               r->runs().front().status != "running";
    }));
    ::kill(pid, SIGTERM);
    int st = 0;
    ::waitpid(pid, &st, 0);
    ASSERT_TRUE(WIFEXITED(st));
    EXPECT_EQ(WEXITSTATUS(st), 128 + SIGTERM);
    EXPECT_LT(now_ns() - t0, 10'000'000'000) << "the 30 s cooldown was not interrupted";
    auto reader = trace::Reader::open(dir + "/it-n.jptrace");
    ASSERT_TRUE(reader);
    EXPECT_EQ(reader->runs().size(), 1U);
    EXPECT_TRUE(has_line_with(slurp(file("/table")), {"w", "run", "1", "ok"}));
}

TEST_F(Study, ProgramsBuiltNextToJouleprofAreFound) {
    fs.add({"/bin/keep", ""});
    const auto bin = fs.path("/bin");
    std::filesystem::copy_file(JP_BINARY, bin / "jouleprof");
    std::filesystem::copy_file(JP_TEST_JOB, bin / "jp-study-job");
    const auto path =
        study_file("/next.toml", study("repeat = 1\nwarmup = 0\nnode_type = \"n\"",
                                       "[[workload]]\nname = \"w\"\n[workload.commands]\n"
                                       "run = [\"jp-study-job\", \"0.05\", \"{dir}/done.txt\"]\n"));
    const auto dir = file("/next");
    const auto r =
        sh(jp(fmt::format("-q study --no-live -d {} {}", dir, path), (bin / "jouleprof").string()));
    EXPECT_EQ(r.exit_code, 0) << r.out;
    EXPECT_TRUE(std::filesystem::exists(dir + "/done.txt"));
    // The build's own jouleprof has no such neighbour: one line, nothing runs.
    const auto missing = sh(jp(fmt::format("study -d {}/x {} 2>&1", dir, path)));
    EXPECT_EQ(missing.exit_code, 2);
    EXPECT_EQ(std::ranges::count(missing.out, '\n'), 1) << missing.out;
    EXPECT_NE(missing.out.find("w/run: jp-study-job"), npos) << missing.out;
    EXPECT_FALSE(std::filesystem::exists(dir + "/x"));
}

TEST_F(Study, BadStudyFilesAreOneLineAndNothingRuns) {
    const std::vector<std::pair<std::string, std::string>> cases{
        {study("repet = 2", workload("w")), "[study] repet"},
        {study("", workload("w")), "unknown placeholder {secs} in w/train"},
        {study("", workload("w") + "[[setting]]\nname = \"a\"\nvars = { secs = 1 }\n"
                                   "[[setting]]\nname = \"b\"\n"),
         "setting 'b' has no var 'secs'"},
        {study("repeat = 0", workload("w")), "[study] repeat"},
        {"[study]\nname = \"it\"\n", "nothing to measure"},
    };
    for (const auto& [text, says] : cases) {
        const auto path = study_file("/bad.toml", text);
        const auto r = sh(jp(fmt::format("study -d {} {} 2>&1", file("/bad"), path)));
        EXPECT_EQ(r.exit_code, 2) << says;
        EXPECT_EQ(std::ranges::count(r.out, '\n'), 1) << r.out;
        EXPECT_NE(r.out.find(says), npos) << r.out;
        EXPECT_FALSE(std::filesystem::exists(file("/bad"))) << "nothing may run: " << says;
    }
    EXPECT_EQ(sh(jp("study 2>&1")).exit_code, 2);
    EXPECT_EQ(sh(jp("study report 2>&1")).exit_code, 2);
}

} // namespace
} // namespace jp::test
