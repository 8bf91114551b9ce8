// SPDX-License-Identifier: BSD-3-Clause
// The HTML report in a real browser: Debian's chromium, headless, renders a
// report of a study-like trace. (a) A screenshot is kept as an artefact next to
// this test's build folder (report.png; views-*.png of a short run, constant power and
// 15,000 steps) and must be a PNG of the window's size
// with real content; (b) the page must load without console messages (script
// errors, invalid SVG attributes) and its script must have run (it adds
// #jp-ready). Skipped only when chromium is not installed (JP_CHROMIUM or
// /usr/bin/chromium).
#include "png.hpp"
#include "report/html/report.hpp"
#include "trace_maker.hpp"

#include <array>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <fcntl.h>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <set>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <tuple>
#include <unistd.h>

extern char** environ;

namespace jp {
namespace {

namespace fs = std::filesystem;
using test::channel;
using test::k_sec;

const fs::path k_out_dir = JP_BROWSER_OUT_DIR;

std::string slurp(const fs::path& p) {
    std::ifstream in{p, std::ios::binary};
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::optional<fs::path> chromium() {
    const char* env = std::getenv("JP_CHROMIUM");
    fs::path p = env != nullptr && *env != '\0' ? fs::path{env} : fs::path{"/usr/bin/chromium"};
    if (::access(p.c_str(), X_OK) == 0) {
        return p;
    }
    return std::nullopt;
}

// Deterministic noise in [-1, 1].
double noise(double t, double seed) {
    const double x = std::sin(t * 12.9898 + seed * 78.233) * 43758.5453;
    return 2 * (x - std::floor(x)) - 1;
}

// The study's GPU node: LSTM training then inference on one of four GPUs,
// three GPUs idle, two CPU packages, DRAM estimated; a CPU-only node too.
void make_study_trace(const fs::path& path) {
    std::vector<test::ChannelSpec> specs;
    const auto busy = [](double t) {
        if (t < 20) {
            return 0.15; // loading data
        }
        if (t < 380) {
            return 0.9 + 0.08 * std::sin(t / 9.0);
        }
        return 0.55 + 0.1 * std::sin(t / 4.0);
    };
    const auto gpu0 = [busy](double t) {
        return 70 + 330 * busy(t) + 15 * noise(t, 1) + (std::abs(t - 250) < 0.3 ? 120 : 0);
    };
    const auto cpu = [busy](double t, double seed) {
        return 95 + 60 * busy(t) + 6 * noise(t, seed);
    };
    const auto idle_gpu = [](double t, double seed) { return 58 + 2 * noise(t, seed); };
    specs.push_back({channel("node", Domain::node, Quantity::energy), [=](double t) {
                         return gpu0(t) + cpu(t, 2) + cpu(t, 3) + idle_gpu(t, 4) + idle_gpu(t, 5) +
                                idle_gpu(t, 6) + 35 + 420 + 8 * noise(t, 7);
                     }});
    specs.push_back({channel("cpu0.package", Domain::cpu_package, Quantity::energy),
                     [=](double t) { return cpu(t, 2); }});
    specs.push_back({channel("cpu1.package", Domain::cpu_package, Quantity::energy),
                     [=](double t) { return cpu(t, 3); }});
    specs.push_back({channel("dram", Domain::dram, Quantity::power, Provenance::estimated),
                     [](double) { return 35.0; }});
    for (int g = 0; g < 4; ++g) {
        auto c = channel("gpu" + std::to_string(g), Domain::gpu, Quantity::energy);
        c.limit_watts = 700;
        c.backend = "nvml";
        if (g == 0) {
            specs.push_back({c, gpu0});
        } else {
            specs.push_back({c, [=](double t) { return idle_gpu(t, 3 + g); }});
        }
    }
    for (int g = 0; g < 4; ++g) {
        specs.push_back(
            {channel("gpu" + std::to_string(g) + ".util", Domain::gpu, Quantity::utilization),
             [=](double t) { return g == 0 ? 100 * busy(t) : 0.0; }});
    }
    const std::vector<trace::Marker> phases{
        {0, 2 * k_sec, "begin", "load data"},   {0, 20 * k_sec, "end", "load data"},
        {0, 20 * k_sec, "begin", "training"},   {0, 380 * k_sec, "end", "training"},
        {0, 380 * k_sec, "begin", "inference"}, {0, 470 * k_sec, "end", "inference"},
        {0, 200 * k_sec, "point", "checkpoint"}};
    std::vector<test::RunSpec> runs;
    runs.push_back({"gpu-node <lstm>", "baseline", "", 30, 0.5, {}});
    for (double len : {480.0, 486.0, 474.0}) {
        runs.push_back(
            {"gpu-node <lstm>", "measure", "python lstm.py --device cuda:0", len, 0.5, phases});
    }
    runs.push_back({"cpu-only", "measure", "python lstm.py --device cpu", 300, 0.5, {}});
    ASSERT_TRUE(test::make_trace(path, specs, runs,
                                 {{"host", "hkn0901"},
                                  {"node.rated_watts", "2000"},
                                  {"epoch_utc", "2026-11-22T07:00:00Z"},
                                  {"interval_ns", "500000000"}}));
}

struct Exit {
    int status = -1;
    bool timed_out = false;
};

// Runs argv with stdout and stderr to files, in its own process group, which
// is killed after `timeout`.
Exit run(const std::vector<std::string>& argv,
         const fs::path& out,
         const fs::path& err,
         std::chrono::seconds timeout) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
    std::vector<char*> args;
    for (const auto& a : argv) {
        args.push_back(const_cast<char*>(a.c_str()));
    }
    args.push_back(nullptr);
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, args[0], &fa, &attr, args.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    Exit e;
    if (rc != 0) {
        return e;
    }
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        int status = 0;
        const pid_t w = ::waitpid(pid, &status, WNOHANG);
        if (w == pid) {
            e.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            break;
        }
        if (std::chrono::steady_clock::now() > deadline) {
            ::kill(-pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            e.timed_out = true;
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ::kill(-pid, SIGKILL); // helpers chromium may leave behind in its group
    return e;
}

std::vector<std::string> chromium_args(const fs::path& exe, const fs::path& profile) {
    return {exe.string(),
            "--headless",
            "--no-sandbox", // CI runs as root
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
            "--hide-scrollbars",
            "--user-data-dir=" + profile.string()};
}

class Browser : public ::testing::Test {
protected:
    void SetUp() override {
        exe = chromium();
        if (!exe) {
            GTEST_SKIP() << "chromium not installed (apt-get install chromium, or set "
                            "JP_CHROMIUM)";
        }
        fs::create_directories(k_out_dir);
        const auto trace = k_out_dir / "report.jptrace";
        fs::remove(trace);
        fs::remove(fs::path{trace} += "-wal");
        fs::remove(fs::path{trace} += "-shm");
        make_study_trace(trace);
        page = k_out_dir / "report.html";
        report::HtmlOptions ho;
        ho.force = true; // the page of an earlier run of the test is replaced
        auto r = report::write_html_report({trace}, page, ho);
        ASSERT_TRUE(r) << r.error().message();
        std::string tmpl = (fs::temp_directory_path() / "jp-chromium-XXXXXX").string();
        ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
        profile = tmpl;
    }
    void TearDown() override {
        if (!profile.empty()) {
            std::error_code ec;
            fs::remove_all(profile, ec);
        }
    }
    std::optional<fs::path> exe;
    fs::path page;
    fs::path profile;
};

// A screenshot of `html` at 1200 × height kept as `png`: its share of inked pixels and
// how many colours it has (nullopt, with the test failed, when chromium fails).
struct Shot {
    double inked = 0;
    std::size_t colours = 0;
};

std::optional<Shot> screenshot(const fs::path& exe,
                               const fs::path& profile,
                               const fs::path& html,
                               const fs::path& png,
                               unsigned height) {
    fs::remove(png);
    auto args = chromium_args(exe, profile);
    args.push_back(fmt::format("--window-size=1200,{}", height));
    args.push_back("--screenshot=" + png.string());
    args.push_back("file://" + fs::absolute(html).string());
    const auto e = run(args, k_out_dir / "screenshot.out", k_out_dir / "screenshot.err",
                       std::chrono::seconds{120});
    EXPECT_FALSE(e.timed_out) << "chromium did not finish in 120 s";
    EXPECT_EQ(e.status, 0) << slurp(k_out_dir / "screenshot.err");
    std::string why;
    const auto img = test::decode_png(slurp(png), why);
    EXPECT_TRUE(img) << png << ": " << why;
    if (!img || e.timed_out || e.status != 0) {
        return std::nullopt;
    }
    EXPECT_EQ(img->width, 1200U);
    EXPECT_EQ(img->height, height);
    // Real content: many non-white pixels and the figures' colours.
    std::size_t inked = 0;
    std::set<std::uint32_t> colours;
    for (std::size_t i = 0; i + img->channels <= img->pixels.size(); i += img->channels) {
        const auto r = img->pixels[i];
        const auto g = img->pixels[i + 1];
        const auto b = img->pixels[i + 2];
        if (r < 200 || g < 200 || b < 200) {
            ++inked;
        }
        if (colours.size() < 5000) {
            colours.insert(static_cast<std::uint32_t>(r) << 16U |
                           static_cast<std::uint32_t>(g) << 8U | b);
        }
    }
    Shot shot{static_cast<double>(inked) / (img->width * img->height), colours.size()};
    std::cout << "screenshot: " << png.string() << " (" << fs::file_size(png) << " bytes, "
              << shot.inked * 100 << " % inked, " << shot.colours << "+ colours)\n";
    return shot;
}

TEST_F(Browser, ScreenshotOfTheReportHasContent) {
    const auto shot = screenshot(*exe, profile, page, k_out_dir / "report.png", 2400);
    ASSERT_TRUE(shot);
    EXPECT_GT(shot->inked, 0.02) << "the page looks empty";
    EXPECT_GT(shot->colours, 200U) << "too few colours for text and figures";
}

// The views a user reported as broken, kept as artefacts to look at (views-*.png): a run
// shorter than two profile windows, constant power, and 15,000 training steps.
TEST_F(Browser, ScreenshotsOfTheShortTheFlatAndTheManyPhaseViews) {
    const auto node = channel("node", Domain::node, Quantity::energy);
    const auto cpu = channel("cpu0.package", Domain::cpu_package, Quantity::energy);
    std::vector<trace::Marker> steps;
    for (std::int64_t i = 0; i < 15000; ++i) {
        steps.push_back({0, i * 4'000'000, "begin", "step"});
        steps.push_back({0, i * 4'000'000 + 3'000'000, "end", "step"});
    }
    const std::vector<std::tuple<std::string, std::vector<test::ChannelSpec>, test::RunSpec>> views{
        {"short",
         {{node, [](double) { return 180.0; }}, {cpu, [](double) { return 60.0; }}},
         {"short", "measure", "./s", 0.02, 0.02, {}}},
        {"flat",
         {{node, [](double) { return 16.6; }}, {cpu, [](double) { return 6.0; }}},
         {"flat", "measure", "./f", 10, 0.1, {}}},
        {"steps",
         {{node, [](double t) { return 300 + 100 * std::sin(t); }},
          {cpu, [](double) { return 90.0; }}},
         {"steps", "measure", "./t", 70, 0.1, steps}}};
    for (const auto& [name, specs, run_spec] : views) {
        const auto trace = k_out_dir / ("views-" + name + ".jptrace");
        const auto html = k_out_dir / ("views-" + name + ".html");
        fs::remove(trace);
        ASSERT_TRUE(test::make_trace(trace, specs, {run_spec})) << name;
        report::HtmlOptions ho;
        ho.force = true;
        ASSERT_TRUE(report::write_html_report({trace}, html, ho)) << name;
        const auto shot =
            screenshot(*exe, profile, html, k_out_dir / ("views-" + name + ".png"), 2000);
        ASSERT_TRUE(shot) << name;
        EXPECT_GT(shot->inked, 0.02) << name;
        const auto text = slurp(html);
        EXPECT_EQ(text.find("per 0 W bin"), std::string::npos) << name;
        EXPECT_NE(text.find("Time since the run began"), std::string::npos) << name;
    }
    EXPECT_NE(slurp(k_out_dir / "views-steps.html").find(">step ×15000<"), std::string::npos);
    EXPECT_LT(fs::file_size(k_out_dir / "views-steps.html"), 300'000U);
    EXPECT_NE(slurp(k_out_dir / "views-short.html").find("shorter than two of the profile"),
              std::string::npos);
}

TEST_F(Browser, PageLoadsWithoutConsoleErrorsAndItsScriptRuns) {
    auto args = chromium_args(*exe, profile);
    args.push_back("--enable-logging=stderr");
    args.push_back("--v=0");
    args.push_back("--dump-dom");
    args.push_back("file://" + fs::absolute(page).string());
    const auto out = k_out_dir / "dom.html";
    const auto err = k_out_dir / "dom.err";
    const auto e = run(args, out, err, std::chrono::seconds{120});
    ASSERT_FALSE(e.timed_out) << "chromium did not finish in 120 s";
    ASSERT_EQ(e.status, 0) << slurp(err);
    const auto dom = slurp(out);
    EXPECT_NE(dom.find("id=\"jp-ready\""), std::string::npos)
        << "the page's script did not run to its end";
    EXPECT_NE(dom.find("class=\"jp-profile\""), std::string::npos);
    // Every console message (errors, warnings, invalid SVG attributes) is a failure.
    std::istringstream log{slurp(err)};
    std::string line;
    std::string console;
    while (std::getline(log, line)) {
        if (line.find("CONSOLE") != std::string::npos ||
            line.find("Uncaught") != std::string::npos) {
            console += line + "\n";
        }
    }
    EXPECT_TRUE(console.empty()) << console;
}

} // namespace
} // namespace jp
