// SPDX-License-Identifier: BSD-3-Clause
// The analysis commands end to end: report, compare, sweep and export run as
// the real binary on traces with known content, and sweep measures a tiny job
// on a fake RAPL tree driven by a known power profile.
#include "fake_sysfs.hpp"
#include "profile_writer.hpp"
#include "shell.hpp"
#include "trace_builder.hpp"

#include <cstdio>
#include <ctime>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>
#include <sys/wait.h>

namespace jp::test {
namespace {

std::size_t line_count(const std::string& s) {
    return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}

std::string read_file(const std::filesystem::path& p) {
    std::ifstream in{p};
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// node, cpu0.package and gpu0 energy counters; training (10..30 s) draws more.
double load(std::size_t ch, double t) {
    static constexpr double before[] = {500, 200, 100};
    static constexpr double train[] = {900, 250, 500};
    return t >= 10 && t < 30 ? train[ch] : before[ch];
}

class Analysis : public ::testing::Test {
protected:
    std::string jp(const std::string& args) const {
        return fmt::format("{} -c {} {}", JP_BINARY, fs.path("/config.toml").string(), args);
    }
    std::string file(const char* name) const { return fs.path(name).string(); }
    // A trace of `runs` runs of 40 s with a marked training phase.
    std::string phased_trace(const char* name, const std::string& label, int runs) {
        TraceBuilder b{fs.path(name),
                       {channel("node", Domain::node, Quantity::energy),
                        channel("cpu0.package", Domain::cpu_package, Quantity::energy),
                        channel("gpu0", Domain::gpu, Quantity::energy)},
                       {{"node.rated_watts", "1000"}}};
        for (int i = 0; i < runs; ++i) {
            auto spec = make_run(label, 40, load);
            spec.markers = {{10, "begin", "train"}, {30, "end", "train"}};
            b.run(spec);
        }
        return b.path().string();
    }
    FakeSysfs fs{{"/config.toml", "[sensors.estimate]\nenabled = false\n"}};
};

TEST_F(Analysis, ReportPrintsTheStudysTableWithPhasesAndPowerAgainstRating) {
    const auto trace = phased_trace("/p.jptrace", "gpu-node", 2);
    const auto r = sh(jp("report --threshold 800 " + trace));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    for (const char* s :
         {"Consumption [kJ]", "Average power [W]", "Runtime", "Provenance",
          "gpu-node  (2 runs; job)", "phase train", "rest", "measured (test)", "derived",
          "40.000 ± 0.000 s", "20.000 ± 0.000 s", "peak 900.0 W = 90 % of rated 1.0 kW (config)",
          "above 800 W for 20.0 ± 0.0 s"}) {
        EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
    }
    // Node energy over the run and over the phase, computed from the profile.
    const double node_kj = exact_joules(load, 0, 1, 0, 40) * 1e-3;
    const double train_kj = exact_joules(load, 0, 1, 10, 30) * 1e-3;
    EXPECT_NE(r.out.find(fmt::format("{:.3f} ± 0.000", node_kj)), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(fmt::format("{:.3f} ± 0.000", train_kj)), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("footprint"), std::string::npos) << "no carbon factors, no footprint";
}

TEST_F(Analysis, ReportJsonCarriesPhasesPowerAndFootprint) {
    const auto trace = phased_trace("/j.jptrace", "a", 1);
    const auto r = sh(jp("report --json --carbon-intensity 400 --pue 1.5 --price 0.3 "
                         "--currency EUR " +
                         trace));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    const auto j = nlohmann::json::parse(r.out);
    const auto& g = j["groups"][0];
    const double node_j = exact_joules(load, 0, 1, 0, 40);
    EXPECT_NEAR(g["node_energy_j"]["mean"].get<double>(), node_j, 1e-6);
    EXPECT_EQ(g["phases"][0]["name"], "train");
    EXPECT_NEAR(g["phases"][0]["node_energy_j"]["mean"].get<double>(), 900 * 20.0, 1e-6);
    EXPECT_NEAR(g["power"]["peak_w"].get<double>(), 900, 1e-6);
    const double kwh = node_j * 1.5 / 3.6e6;
    EXPECT_NEAR(g["footprint"]["kg_co2e"].get<double>(), kwh * 400 / 1000, 1e-12);
    EXPECT_NEAR(g["footprint"]["cost"].get<double>(), kwh * 0.3, 1e-12);
    EXPECT_EQ(g["footprint"]["currency"], "EUR");
    EXPECT_EQ(j["trace"], trace);
}

TEST_F(Analysis, ReportReadsCarbonFromTheConfigAndOptionsOverrideIt) {
    const auto trace = phased_trace("/c.jptrace", "a", 1);
    fs.add({"/carbon.toml", "[carbon]\nintensity_g_per_kwh = 300\npue = 1.2\n"});
    const auto base = fmt::format("{} -c {} report ", JP_BINARY, file("/carbon.toml"));
    const auto r = sh(base + trace);
    EXPECT_NE(r.out.find("footprint: facility energy"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("at 300 g/kWh"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("PUE 1.20"), std::string::npos) << r.out;
    const auto o = sh(base + "--carbon-intensity 50 " + trace);
    EXPECT_NE(o.out.find("at 50 g/kWh"), std::string::npos) << o.out;
}

TEST_F(Analysis, ReportMergesTheSameLabelAcrossTraces) {
    const auto a = phased_trace("/m1.jptrace", "gpu", 1);
    const auto b = phased_trace("/m2.jptrace", "gpu", 2);
    const auto r = sh(jp(fmt::format("report --json {} {}", a, b)));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    const auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["groups"].size(), 1U);
    EXPECT_EQ(j["groups"][0]["runs"].size(), 3U);
    EXPECT_EQ(j["traces"].size(), 2U);
    const auto apart =
        nlohmann::json::parse(sh(jp(fmt::format("report --json --by-trace {} {}", a, b))).out);
    EXPECT_EQ(apart["groups"].size(), 2U);
    // Kept apart, the table names each group by its trace, as compare does.
    const auto text = sh(jp(fmt::format("report --by-trace {} {}", a, b))).out;
    for (const char* name : {"m1:gpu  (1 run", "m2:gpu  (2 runs", "\nm1:gpu:\n", "\nm2:gpu:\n"}) {
        EXPECT_NE(text.find(name), std::string::npos) << name << "\n" << text;
    }
}

TEST_F(Analysis, ReportBadOptionsAreOneLineAndExit2) {
    const auto trace = phased_trace("/b.jptrace", "a", 1);
    for (const char* bad :
         {"--pue 0.5", "--pue 1e308", "--threshold -3", "--idle-util 300", "--price -1"}) {
        const auto r = sh(jp(fmt::format("report {} {} 2>&1", bad, trace)));
        EXPECT_EQ(r.exit_code, 2) << bad;
        EXPECT_EQ(line_count(r.out), 1U) << r.out;
        // Only the option given is named.
        EXPECT_NE(r.out.find(std::string{bad}.substr(0, std::string{bad}.find(' ')) + ": must"),
                  std::string::npos)
            << r.out;
    }
    // Not a number at all: the option and what it wanted, not CLI11's "Could not convert".
    for (const auto& [bad, option] :
         {std::pair{"--threshold abc", "--threshold"}, std::pair{"--pue 1.2x", "--pue"},
          std::pair{"--price ''", "--price"}, std::pair{"--price ' 5'", "--price"},
          std::pair{"--threshold 0x10", "--threshold"}, std::pair{"--threshold inf", "--threshold"},
          std::pair{"--threshold ++5", "--threshold"},
          std::pair{"--threshold +-5", "--threshold"}}) {
        const auto r = sh(jp(fmt::format("report {} {} 2>&1", bad, trace)));
        EXPECT_EQ(r.exit_code, 2) << bad;
        EXPECT_EQ(line_count(r.out), 1U) << r.out;
        EXPECT_NE(r.out.find(option), std::string::npos) << r.out;
        EXPECT_NE(r.out.find("expected a finite number, got"), std::string::npos) << r.out;
    }
    const auto tiny = sh(jp(fmt::format("report --threshold 1e-400 {} 2>&1", trace)));
    EXPECT_EQ(tiny.exit_code, 2);
    EXPECT_NE(tiny.out.find("'1e-400' is out of the range"), std::string::npos) << tiny.out;
    // Numbers as people write them: a sign of +, an exponent, a trailing point.
    for (const char* good : {"--threshold +5", "--threshold 1e3", "--pue 1.", "--price 0.25"}) {
        EXPECT_EQ(sh(jp(fmt::format("report {} {} >/dev/null", good, trace))).exit_code, 0) << good;
    }
}

// report TRACE:LABEL, as compare takes it: that label's runs only, in the table, the JSON and the
// page; a label the trace lacks is named with the labels it has.
TEST_F(Analysis, ReportTakesOneLabelOfATraceAsCompareDoes) {
    TraceBuilder b{fs.path("/two.jptrace"), {channel("node", Domain::node, Quantity::energy)}};
    b.run(make_run("small-batch", 20, flat(300), 10));
    b.run(make_run("large-batch", 10, flat(700), 10));
    const auto t = b.path().string();
    const auto labels = [&](const std::string& args) {
        const auto r = sh(jp("report --json " + args));
        EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.out;
        std::vector<std::string> out;
        const auto j = nlohmann::json::parse(r.out);
        for (const auto& g : j["groups"]) {
            out.push_back(g["label"].get<std::string>());
        }
        return out;
    };
    EXPECT_EQ(labels(t + ":large-batch"), std::vector<std::string>{"large-batch"});
    EXPECT_EQ(labels(t + ":large-batch " + t + ":small-batch"),
              (std::vector<std::string>{"small-batch", "large-batch"}))
        << "each once, in the trace's order";
    EXPECT_EQ(labels(t + ":large-batch " + t),
              (std::vector<std::string>{"small-batch", "large-batch"}))
        << "named whole too: whole";
    const auto html = file("/one.html");
    ASSERT_EQ(sh(jp(fmt::format("report --html {} {}:small-batch >/dev/null", html, t))).exit_code,
              0);
    EXPECT_NE(read_file(html).find("small-batch"), std::string::npos);
    EXPECT_EQ(read_file(html).find("large-batch"), std::string::npos) << "the page is the label's";
    EXPECT_NE(read_file(html).find("two.jptrace · only small-batch</h2>"), std::string::npos);
    // The JSON says what was asked; a trace named through two paths is one trace, with a label
    // that holds ':' (a sweep's "dev=cuda:0").
    const auto j = nlohmann::json::parse(sh(jp("report --json " + t + ":large-batch")).out);
    EXPECT_EQ(j["selections"], nlohmann::json::parse(fmt::format(
                                   R"([{{"trace": "{}", "label": "large-batch"}}])", t)));
    TraceBuilder colon{fs.path("/c.jptrace"), {channel("node", Domain::node, Quantity::energy)}};
    colon.run(make_run("dev=cuda:0", 5, flat(100), 1));
    colon.run(make_run("dev=cuda:1", 5, flat(200), 1));
    const auto c = colon.path().string();
    const auto dot = fs.path("/./c.jptrace").string();
    EXPECT_EQ(labels(c + ":dev=cuda:1 " + dot + ":dev=cuda:0"),
              (std::vector<std::string>{"dev=cuda:0", "dev=cuda:1"}));
    const auto cmp = sh(jp(fmt::format("compare --json {}:dev=cuda:1 {}:dev=cuda:0", c, dot)));
    ASSERT_EQ(cmp.exit_code, 0) << cmp.out;
    EXPECT_EQ(nlohmann::json::parse(cmp.out)["entries"][1]["name"], "dev=cuda:0");
    // A group asked for twice (whole, and by its label) is compared once.
    const auto twice = sh(jp(fmt::format("compare --json {} {}:dev=cuda:0", c, dot)));
    ASSERT_EQ(twice.exit_code, 0) << twice.out;
    EXPECT_EQ(nlohmann::json::parse(twice.out)["entries"].size(), 2U) << twice.out;
    // Two traces of one name in two directories, kept apart: named by their directories.
    std::filesystem::create_directories(fs.path("/other"));
    TraceBuilder other{fs.path("/other/c.jptrace"),
                       {channel("node", Domain::node, Quantity::energy)}};
    other.run(make_run("dev=cuda:0", 5, flat(100), 1));
    const auto apart =
        sh(jp(fmt::format("report --by-trace {} {} 2>&1", c, file("/other/c.jptrace"))));
    EXPECT_NE(apart.out.find("\nother/c:dev=cuda:0  (1 run"), std::string::npos) << apart.out;
    std::filesystem::create_directories(fs.path("/job"));
    TraceBuilder node{fs.path("/job/n0.jptrace"),
                      {channel("node", Domain::node, Quantity::energy)},
                      {{"recorded", "jouleprof record"}}};
    node.run(make_run("job", 5, flat(100), 1));
    for (const auto& [bad, says] :
         {std::pair{t + ":tiny-batch",
                    std::string{"no measured runs labelled 'tiny-batch' (its labels: "
                                "small-batch, large-batch)"}},
          std::pair{fs.path("/job").string() + ":x", std::string{"a label is of a trace file"}},
          std::pair{fs.path("/job").string() + " " + t + ":small-batch",
                    std::string{"is a file among directories"}},
          std::pair{file("/none.jptrace") + ":x",
                    std::string{"(" + file("/none.jptrace") + ": no such file)"}},
          std::pair{std::string{":x"}, std::string{"(:x: no such file)"}},
          std::pair{std::string{"''"},
                    std::string{"an empty argument where a trace was expected"}}}) {
        const auto r = sh(jp("report " + bad + " 2>&1"));
        EXPECT_EQ(r.exit_code, 2) << bad << "\n" << r.out;
        EXPECT_EQ(line_count(r.out), 1U) << r.out;
        EXPECT_NE(r.out.find(says), std::string::npos) << bad << "\n" << r.out;
    }
}

// Table 2 of Caspart et al.: GPU ≈ ¼ of the CPU-only energy, 7.4× faster; CPU-mix ≈ 1.7×.
TEST_F(Analysis, CompareThreeTracesAgainstTheFirst) {
    std::vector<std::string> traces;
    for (const auto& [name, label, seconds, watts] :
         {std::tuple{"/cpu.jptrace", "cpu-only", 740.0, 400.0},
          std::tuple{"/gpu.jptrace", "gpu", 100.0, 740.0},
          std::tuple{"/mix.jptrace", "cpu-mix", 629.0, 800.0}}) {
        TraceBuilder b{fs.path(name), {channel("node", Domain::node, Quantity::energy)}};
        b.run(make_run(label, seconds, flat(watts), 10));
        traces.push_back(b.path().string());
    }
    const auto args = fmt::format("{} {} {}", traces[0], traces[1], traces[2]);
    const auto r = sh(jp("compare --json " + args));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    const auto j = nlohmann::json::parse(r.out);
    const auto& e = j["entries"];
    EXPECT_NEAR(j["p_const_w"].get<double>(), 400, 1e-9);
    EXPECT_NEAR(e[1]["energy_ratio"].get<double>(), 74000.0 / 296000.0, 1e-9);
    EXPECT_NEAR(1 / e[1]["runtime_ratio"].get<double>(), 7.4, 1e-9);
    EXPECT_NEAR(e[2]["energy_ratio"].get<double>(), 1.7, 1e-9);
    EXPECT_NEAR(e[1]["estimate_error_percent"].get<double>(), (40000.0 - 74000) / 74000 * 100,
                1e-9);
    const auto text = sh(jp("compare --baseline gpu " + args));
    EXPECT_NE(text.out.find("baseline: #2 gpu"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("4.000"), std::string::npos) << text.out;
    const auto one = sh(jp(fmt::format("compare --json {}:gpu {}", traces[1], traces[0])));
    ASSERT_EQ(one.exit_code, 0) << one.out;
    EXPECT_EQ(nlohmann::json::parse(one.out)["entries"][0]["name"], "gpu");
    for (const auto& [bad, says] :
         {std::pair{"--baseline tpu " + args, std::string{"tpu"}},
          std::pair{traces[0] + ":nolabel", std::string{"no measured runs labelled 'nolabel' "
                                                        "(its labels: cpu-only)"}},
          std::pair{std::string{"/nonexistent.jptrace"}, std::string{"(/nonexistent.jptrace: "
                                                                     "no such file)"}}}) {
        const auto b = sh(jp("compare " + bad + " 2>&1"));
        EXPECT_EQ(b.exit_code, 2) << bad << "\n" << b.out;
        EXPECT_EQ(line_count(b.out), 1U) << b.out;
        EXPECT_NE(b.out.find(says), std::string::npos) << bad << "\n" << b.out;
    }
}

TEST_F(Analysis, ExportWritesCsvFilesAndJson) {
    const auto trace = phased_trace("/x.jptrace", "a", 1);
    const auto out = file("/out.csv");
    ASSERT_EQ(sh(jp(fmt::format("export {} --format csv -o {}", trace, out))).exit_code, 0);
    const auto samples = read_file(out);
    EXPECT_EQ(samples.substr(0, samples.find('\n')),
              "run_id,label,channel,quantity,unit,t_s,value,flags");
    EXPECT_EQ(line_count(samples), 1U + 3 * 41);
    EXPECT_EQ(line_count(read_file(file("/out.markers.csv"))), 3U);
    EXPECT_NE(read_file(file("/out.summary.csv")).find(",train,node,18000,900,"),
              std::string::npos);
    const auto stdout_csv = sh(jp(fmt::format("export {} -f csv", trace)));
    EXPECT_EQ(stdout_csv.out, samples);
    const auto j = sh(jp(fmt::format("export {} --format json", trace)));
    ASSERT_EQ(j.exit_code, 0);
    EXPECT_EQ(nlohmann::json::parse(j.out)["runs"][0]["samples"]["gpu0"]["value"].size(), 41U);
    const auto bad = sh(jp(fmt::format("export {} --format xml 2>&1", trace)));
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_EQ(line_count(bad.out), 1U) << bad.out;
}

TEST_F(Analysis, ReportWritesHtml) {
    const auto trace = phased_trace("/h.jptrace", "a", 1);
    const auto out = file("/r.html");
    const auto r =
        sh(jp(fmt::format("report --html {} {} --price 0.25 --currency EUR", out, trace)));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    EXPECT_NE(r.out.find("Consumption [kJ]"), std::string::npos) << "the table is still printed";
    const auto html = read_file(out);
    EXPECT_NE(html.find("<html"), std::string::npos);
    // The footprint the text gives, on the page too (it had none).
    const auto footprint = r.out.substr(r.out.find("footprint: ") + 11);
    EXPECT_NE(html.find("Footprint: " + footprint.substr(0, footprint.find('\n'))),
              std::string::npos)
        << footprint;
}

// sweep runs the real job on a fake RAPL package drawing a constant 150 W, so
// each point's energy is 150 W × its runtime.
class Sweep : public Analysis {
protected:
    void SetUp() override {
        add_rapl_zone(fs, "intel-rapl:0", "package-0", 0, 4294967296ULL, 0444);
        // All of the package's 150 W is its idle power, and each job holds the whole node: its
        // share is the node's energy. Without it, the whole energy is split by CPU time, and
        // a sleeping job's share follows whatever else the machine runs (a CI run's other
        // tests once made the longer point the cheaper).
        fs.add({"/config.toml",
                "[sensors.estimate]\nenabled = false\n[attribution]\nidle_watts = { "
                "\"cpu0.package\" = 150 }\n",
                0644});
        ProfileWriter::Profile p;
        p.amp_w = 0;
        timespec ts{};
        clock_gettime(CLOCK_MONOTONIC, &ts);
        writer.emplace(fs.path("/sys/class/powercap/intel-rapl:0/energy_uj"), p,
                       static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec);
    }
    std::string sweep(const std::string& args) const {
        return fmt::format("{} --sysfs-root {} -c {} sweep --no-live -i 50ms {}", JP_BINARY,
                           fs.root().string(), file("/config.toml"), args);
    }
    std::optional<ProfileWriter> writer;
};

TEST_F(Sweep, EveryGridPointIsMeasuredAndTheOptimumNamed) {
    const auto dir = file("/sw");
    const auto r = sh(sweep(fmt::format("-p secs=0.6,0.3 -p tag=a -r 2 -o {} --json -- {} {{secs}} "
                                        "{}/{{tag}}-{{secs}}.txt",
                                        dir, JP_TEST_JOB, dir)));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    const auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["points"].size(), 2U);
    EXPECT_EQ(j["points"][0]["label"], "secs=0.6,tag=a");
    EXPECT_EQ(j["energy_optimal"], "secs=0.3,tag=a");
    for (const auto& p : j["points"]) {
        EXPECT_EQ(p["runs"], 2);
        const double rt = p["runtime_s"]["mean"].get<double>();
        EXPECT_NEAR(p["node_energy_j"]["mean"].get<double>(), 150 * rt, 150 * rt * 0.01);
        EXPECT_TRUE(std::filesystem::exists(p["trace"].get<std::string>()));
    }
    // Each point ran its own command: at least as long as the job slept (how much
    // longer depends on the machine, which a test does not assert).
    EXPECT_GE(j["points"][0]["runtime_s"]["mean"].get<double>(), 0.6);
    EXPECT_GE(j["points"][1]["runtime_s"]["mean"].get<double>(), 0.3);
    EXPECT_TRUE(std::filesystem::exists(dir + "/a-0.3.txt")) << "placeholders substituted";
    EXPECT_TRUE(std::filesystem::exists(dir + "/sweep.json"));
    EXPECT_TRUE(std::filesystem::exists(dir + "/01-secs-0.6_tag-a.jptrace"));
    // The text form names the optimum too.
    const auto text = sh(
        sweep(fmt::format("-p secs=0.2 -o {}/t -- {} {{secs}} {}/t.txt", dir, JP_TEST_JOB, dir)));
    EXPECT_NE(text.out.find("energy-optimal: secs=0.2"), std::string::npos) << text.out;
}

TEST_F(Sweep, AFailingPointIsReportedAndTheOthersStillRun) {
    const auto dir = file("/fail");
    const auto r = sh(
        sweep(fmt::format("-p code=3,0 -o {} -- {} 0.1 {}/j.txt {{code}}", dir, JP_TEST_JOB, dir)));
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_NE(r.out.find("failed (exit status 3)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("energy-optimal: code=0"), std::string::npos) << r.out;
    const auto j = nlohmann::json::parse(read_file(dir + "/sweep.json"));
    EXPECT_FALSE(j["points"][0]["ok"].get<bool>());
    EXPECT_TRUE(j["points"][1]["ok"].get<bool>());
}

TEST_F(Sweep, UnknownPlaceholderIsOneLineAndExit2) {
    const auto r = sh(
        sweep(fmt::format("-p batch=1,2 -o {} -- {} {{epochs}} x 2>&1", file("/u"), JP_TEST_JOB)));
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(line_count(r.out), 1U) << r.out;
    EXPECT_NE(r.out.find("{epochs}"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("(the parameters: {batch})"), std::string::npos) << r.out;
    EXPECT_FALSE(std::filesystem::exists(file("/u"))) << "nothing runs";
    EXPECT_EQ(sh(sweep("-p batch= -- true 2>&1")).exit_code, 2);
}

TEST_F(Analysis, LabelsPhasesAndCommandsFromATraceCannotInjectIntoATerminalOrBreakJson) {
    // A trace from someone else: an escape sequence, a C1 control, a newline
    // and bytes that are not UTF-8 in its label, its phase and its command.
    const std::string evil = "x\x1b]0;owned\x07\x1b[2J\xC2\x9B"
                             "31m\nfake line\xFF\xFE";
    TraceBuilder b{fs.path("/evil.jptrace"), {channel("node", Domain::node, Quantity::energy)}};
    auto spec = make_run(evil, 10, [](std::size_t, double) { return 100.0; });
    spec.command = evil + std::string(500, 'c');
    spec.markers = {{2, "begin", evil}, {8, "end", evil}};
    b.run(spec);
    const auto text = sh(jp("report " + file("/evil.jptrace")));
    ASSERT_EQ(text.exit_code, 0) << text.out;
    EXPECT_EQ(text.out.find('\x1b'), std::string::npos) << "no ESC reaches the terminal";
    EXPECT_EQ(text.out.find("\xC2\x9B"), std::string::npos) << "no C1 CSI either";
    EXPECT_NE(text.out.find("\\x1b"), std::string::npos) << "shown escaped instead";
    EXPECT_EQ(text.out.find(std::string(200, 'c')), std::string::npos) << "long command cut";
    for (const char* cmd : {"report --json {}", "export {} -f json"}) {
        const auto r = sh(jp(fmt::format(fmt::runtime(cmd), file("/evil.jptrace"))));
        ASSERT_EQ(r.exit_code, 0) << cmd << r.out;
        const auto j = nlohmann::json::parse(r.out, nullptr, false);
        EXPECT_FALSE(j.is_discarded()) << cmd << ": not valid JSON";
    }
}

} // namespace
} // namespace jp::test
