// SPDX-License-Identifier: BSD-3-Clause
// A trace whose disk fills during the job: the job goes on, the monitor keeps
// the rest of the measurement in memory, the summary covers the whole job (its
// energy still at the ground truth), and the file gets everything at the end
// if the disk has room again. The disk is a small tmpfs mounted in a private
// mount namespace (root only: skipped otherwise), filled by the job itself.
#include "fake_sysfs.hpp"
#include "profile_writer.hpp"
#include "shell.hpp"
#include "trace/reader.hpp"

#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>

namespace jp::test {
namespace {

std::size_t count(const std::string& text, std::string_view what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
        ++n;
    }
    return n;
}

class DiskFull : public ::testing::Test {
protected:
    void SetUp() override {
        fs.add({"/disk/.keep", ""});
        if (::geteuid() != 0 ||
            sh(fmt::format("unshare -m sh -c 'mount -t tmpfs -o size=64k tmpfs {}' 2>/dev/null",
                           file("/disk")))
                    .exit_code != 0) {
            GTEST_SKIP() << "mounting a small tmpfs needs root and mount namespaces";
        }
        add_rapl_zone(fs, "intel-rapl:0", "package-0", 0, 4294967296ULL, 0444);
        fs.add({"/config.toml", "[sensors.estimate]\nenabled = false\n"});
        p.base_w = 120;
        p.amp_w = 0; // constant: the energy of any span is known exactly
        writer = std::make_unique<ProfileWriter>(
            fs.path("/sys/class/powercap/intel-rapl:0/energy_uj"), p, now_ns());
    }
    std::string jp(const std::string& args) const {
        return fmt::format("{} --sysfs-root {} -c {} {}", JP_BINARY, fs.root().string(),
                           fs.path("/config.toml").string(), args);
    }
    std::string file(const char* name) const { return fs.path(name).string(); }
    // `script` runs in a private mount namespace with a 512 KiB tmpfs on
    // DISK; what it leaves there is copied out to /kept.jptrace.
    Outcome in_small_disk(const std::string& script) const {
        const auto disk = file("/disk");
        const auto all = fmt::format("mount -t tmpfs -o size=512k tmpfs {0} && ( {1} ); rc=$?; "
                                     "for f in {0}/t.jptrace*; do cp $f {2}${{f#{0}/t.jptrace}}; "
                                     "done; exit $rc",
                                     disk, script, file("/kept.jptrace"));
        return sh(fmt::format("unshare -m sh -c '{}'", all));
    }
    // A job that fills the disk, then runs until `until` holds.
    std::string job(const std::string& until) const {
        return fmt::format("sh -c \"dd if=/dev/zero of={} bs=4k 2>/dev/null; {}\"",
                           file("/disk/filler"), until);
    }

    FakeSysfs fs;
    ProfileWriter::Profile p;
    std::unique_ptr<ProfileWriter> writer;
};

TEST_F(DiskFull, TheSummaryCoversTheWholeJobFromMemory) {
    const auto r = in_small_disk(jp(fmt::format(
        "run -i 10ms --json --no-live -o {} -- {} 2>{}", file("/disk/t.jptrace"),
        job(fmt::format("{} 1.5 {}", JP_TEST_JOB, file("/job.txt"))), file("/err.txt"))));
    const auto err = slurp(file("/err.txt"));
    ASSERT_EQ(r.exit_code, 0) << r.out << err;
    EXPECT_EQ(count(err, "kept in memory"), 1U) << err;
    EXPECT_EQ(count(err, "only up to where the disk filled"), 1U) << err;
    EXPECT_EQ(count(err, "trace stops here"), 0U) << err;

    const auto j = nlohmann::json::parse(r.out);
    const auto& run = j["groups"][0]["runs"][0];
    EXPECT_EQ(run["status"], "complete");
    long long job_start = 0;
    long long job_end = 0;
    std::ifstream{file("/job.txt")} >> job_start >> job_end;
    ASSERT_GT(job_end, job_start);
    const double runtime = run["runtime_s"].get<double>();
    EXPECT_GE(runtime, static_cast<double>(job_end - job_start) * 1e-9)
        << "the summary covers the job after the disk filled";
    // Constant power: the energy over the recorded edges is power × runtime.
    EXPECT_NEAR(run["node"]["energy_j"].get<double>(), p.base_w * runtime,
                p.base_w * runtime * 0.001 + 2 * writer->stall_joules());
    EXPECT_GT(run["monitor_cpu_s"].get<double>(), 0.0);

    // The file holds what it took before the disk filled: the run, not its end.
    auto kept = trace::Reader::open(file("/kept.jptrace"));
    ASSERT_TRUE(kept) << kept.error().message();
    ASSERT_EQ(kept->runs().size(), 1U);
    EXPECT_FALSE(kept->runs()[0].end_ns.has_value());
}

TEST_F(DiskFull, TheFileGetsEverythingWhenTheDiskHasRoomAgain) {
    // The job frees the disk once the monitor has said it keeps the trace in memory.
    const auto err = file("/err.txt");
    const auto r = in_small_disk(fmt::format(
        "{} & pid=$!; until grep -q \"kept in memory\" {} 2>/dev/null; do sleep 0.05; done; "
        "rm {}; wait $pid; rc=$?; {} > {}; exit $rc",
        jp(fmt::format(
            "run -i 10ms --json --no-live -o {} -- {} > {} 2>{}", file("/disk/t.jptrace"),
            job(fmt::format("while [ -e {} ]; do sleep 0.05; done", file("/disk/filler"))),
            file("/out.json"), err)),
        err, file("/disk/filler"), jp(fmt::format("report --json {}", file("/disk/t.jptrace"))),
        file("/report.json")));
    ASSERT_EQ(r.exit_code, 0) << r.out << slurp(err);
    EXPECT_EQ(count(slurp(err), "holds the whole measurement"), 1U) << slurp(err);

    const auto summary = nlohmann::json::parse(slurp(file("/out.json")));
    const auto report = nlohmann::json::parse(slurp(file("/report.json")));
    const auto& a = summary["groups"][0]["runs"][0];
    const auto& b = report["groups"][0]["runs"][0];
    EXPECT_EQ(b["status"], "complete");
    EXPECT_DOUBLE_EQ(a["runtime_s"].get<double>(), b["runtime_s"].get<double>());
    EXPECT_DOUBLE_EQ(a["node"]["energy_j"].get<double>(), b["node"]["energy_j"].get<double>());
    EXPECT_GT(b["runtime_s"].get<double>(), 0.0);

    auto kept = trace::Reader::open(file("/kept.jptrace"));
    ASSERT_TRUE(kept) << kept.error().message();
    ASSERT_EQ(kept->runs().size(), 1U);
    EXPECT_TRUE(kept->runs()[0].end_ns.has_value()) << "the file holds the whole run";
}

TEST_F(DiskFull, StudySaysItsTableStopsWhereTheDiskFilledAndExits1) {
    // The first cell fills the disk; the study goes on, and says where its file and table stop.
    fs.add({"/full.toml",
            fmt::format("[study]\nname = \"full\"\ncooldown = \"20ms\"\ninterval = \"10ms\"\n"
                        "[[workload]]\nname = \"fill\"\n[workload.commands]\n"
                        "train = [\"sh\", \"-c\", \"dd if=/dev/zero of={} bs=4k 2>/dev/null; "
                        "sleep 0.3\"]\npredict = [\"sleep\", \"0.2\"]\n",
                        file("/disk/filler"))});
    const auto err = file("/err.txt");
    const auto r = in_small_disk(
        jp(fmt::format("study --no-live -d {} {} 2>{}", file("/disk"), file("/full.toml"), err)));
    EXPECT_EQ(r.exit_code, 1) << r.out << slurp(err);
    EXPECT_EQ(count(slurp(err), "the disk filled during the study"), 1U) << slurp(err);
    EXPECT_NE(r.out.find("fill"), std::string::npos) << "the table is printed: " << r.out;
}

} // namespace
} // namespace jp::test
