// SPDX-License-Identifier: BSD-3-Clause
// Trace schema 2 (sample blocks): what the writer is given comes back from the
// reader exactly, across blocks and runs, also while the trace is written; an
// empty trace is small; a version 1 trace written by jouleprof 0.1 still reads
// sample for sample; and the documented format is enough for a reader that
// is not ours (contrib/jptrace.py, Python's standard library only).
#include "fake_sysfs.hpp"
#include "trace/reader.hpp"
#include "trace/writer.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <random>
#include <sstream>

namespace jp::trace {
namespace {

namespace fs = std::filesystem;

std::vector<Channel> two_channels() {
    Channel energy;
    energy.name = "cpu0.package";
    energy.quantity = Quantity::energy;
    Channel power;
    power.name = "gpu0";
    power.domain = Domain::gpu;
    power.quantity = Quantity::power;
    return {energy, power};
}

// 1 kHz for `n` ticks from t0: channel 0 a counter, channel 1 noisy watts,
// and a late interpolated edge of channel 1 written after later readings.
std::vector<SampleRecord> series(std::int64_t t0, int n, std::uint64_t seed) {
    std::mt19937_64 rng{seed};
    std::vector<SampleRecord> out;
    double e = 0;
    for (int i = 0; i < n; ++i) {
        const std::int64_t t =
            t0 + std::int64_t{i} * 1'000'000 + static_cast<std::int64_t>(rng() % 50'000);
        e += 0.05 + static_cast<double>(rng() % 1000) * 1e-6;
        out.push_back({0, i == 0 ? std::uint8_t{1} : std::uint8_t{0}, t, e});
        out.push_back({1, 0, t, 200 + static_cast<double>(rng() % 100'000) * 1e-3});
    }
    out.push_back({1, k_flag_interpolated | k_flag_edge, t0 + 500'000, 201.5});
    return out;
}

void expect_same(Reader& r, std::int64_t run, const std::vector<SampleRecord>& written) {
    for (std::int32_t ch = 0; ch < 2; ++ch) {
        std::vector<SampleRecord> want;
        for (const auto& s : written) {
            if (s.channel == ch) {
                want.push_back(s);
            }
        }
        std::ranges::stable_sort(want, {}, &SampleRecord::t_ns);
        auto got = r.samples(run, static_cast<std::size_t>(ch));
        ASSERT_TRUE(got) << got.error().message();
        ASSERT_EQ(got->points.size(), want.size()) << "channel " << ch;
        for (std::size_t i = 0; i < want.size(); ++i) {
            ASSERT_EQ(got->points[i].t_ns, want[i].t_ns) << ch << " " << i;
            ASSERT_EQ(std::bit_cast<std::uint64_t>(got->points[i].value),
                      std::bit_cast<std::uint64_t>(want[i].value))
                << ch << " " << i;
            ASSERT_EQ(got->flags[i], want[i].flags) << ch << " " << i;
        }
    }
}

std::int64_t start(Writer& w, const char* label) {
    RunInfo run;
    run.label = label;
    auto id = w.begin_run(run);
    EXPECT_TRUE(id) << id.error().message();
    return id.value_or(0);
}

TEST(TraceFormat, WhatIsWrittenReadsBackExactlyAcrossBlocksAndRuns) {
    test::FakeSysfs tmp;
    const auto path = tmp.path("/t.jptrace");
    const auto first = series(1'000'000, 3000, 1);   // many blocks per channel
    const auto second = series(9'000'000'000, 3, 2); // one small block each
    std::int64_t run1 = 0;
    std::int64_t run2 = 0;
    {
        auto w = Writer::create(path, {});
        ASSERT_TRUE(w) << w.error().message();
        const auto chans = two_channels();
        ASSERT_TRUE(w->add_channels(chans));
        run1 = start(*w, "a");
        for (std::size_t i = 0; i < first.size(); i += 97) { // batches as the recorder hands over
            const auto n = std::min<std::size_t>(97, first.size() - i);
            ASSERT_TRUE(w->append(std::span{first}.subspan(i, n), run1));
            if (i % 5 == 0) {
                ASSERT_TRUE(w->commit());
            }
        }
        ASSERT_TRUE(w->commit());

        // Readable while written: what is committed, and only that.
        run2 = start(*w, "b");
        ASSERT_TRUE(w->append(second, run2));
        {
            auto during = Reader::open(path);
            ASSERT_TRUE(during) << during.error().message();
            expect_same(*during, run1, first);
            auto none = during->samples(run2, 0);
            ASSERT_TRUE(none);
            EXPECT_TRUE(none->points.empty()) << "not committed yet";
        }
        ASSERT_TRUE(w->commit());
        const SampleRecord bad{2, 0, 1, 1.0};
        EXPECT_FALSE(w->append(std::span{&bad, 1}, run2)) << "a channel the trace lacks";
    }
    auto r = Reader::open(path);
    ASSERT_TRUE(r) << r.error().message();
    EXPECT_EQ(r->version(), 2);
    expect_same(*r, run1, first);
    expect_same(*r, run2, second);
    auto last = r->last_sample_time(run1);
    ASSERT_TRUE(last && *last);
    EXPECT_EQ(**last, first[first.size() - 2].t_ns);
}

TEST(TraceFormat, AnEnergyCounterAtOneKilohertzTakesUnderTwelveBytesASampleOnDisk) {
    test::FakeSysfs tmp;
    const auto path = tmp.path("/k.jptrace");
    auto all = series(0, 20'000, 4);
    std::erase_if(all, [](const SampleRecord& s) { return s.channel != 0; });
    {
        auto w = Writer::create(path, {});
        ASSERT_TRUE(w);
        const auto chans = two_channels();
        ASSERT_TRUE(w->add_channels(chans));
        const auto run = start(*w, "k");
        for (std::size_t i = 0; i < all.size(); i += 500) { // a commit every 0.5 s
            ASSERT_TRUE(w->append(
                std::span{all}.subspan(i, std::min<std::size_t>(500, all.size() - i)), run));
            ASSERT_TRUE(w->commit());
        }
    }
    // The whole file: blocks, their rows and index, the schema and meta.
    const auto bytes = fs::file_size(path);
    EXPECT_LT(static_cast<double>(bytes) / static_cast<double>(all.size()), 12.0) << bytes;
}

TEST(TraceFormat, AnEmptyTraceIsUnderSixteenKilobytes) {
    test::FakeSysfs tmp;
    const auto path = tmp.path("/empty.jptrace");
    {
        auto w = Writer::create(path, {{"command", "true"}});
        ASSERT_TRUE(w);
        const auto chans = two_channels();
        ASSERT_TRUE(w->add_channels(chans));
        start(*w, "x");
        ASSERT_TRUE(w->commit());
    }
    EXPECT_LE(fs::file_size(path), 16U * 1024U);
}

std::string slurp(const fs::path& p) {
    std::ifstream in{p, std::ios::binary};
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

TEST(TraceFormat, AVersionOneTraceStillReadsSampleForSample) {
    // Written by jouleprof 0.1 (schema 1); v1.export.csv is what its own
    // `export --format csv` gave for it.
    const fs::path dir = fs::path{JP_TEST_SOURCE_DIR} / "data/trace-v1";
    auto r = Reader::open(dir / "v1.jptrace");
    ASSERT_TRUE(r) << r.error().message();
    EXPECT_EQ(r->version(), 1);
    ASSERT_EQ(r->runs().size(), 2U);
    std::istringstream csv{slurp(dir / "v1.export.csv")};
    std::string line;
    std::getline(csv, line); // header
    std::map<std::pair<std::int64_t, std::string>, std::vector<std::pair<double, double>>> want;
    int flag_total = 0;
    while (std::getline(csv, line)) {
        // run_id,label,channel,quantity,unit,t_s,value,flags
        std::vector<std::string> f;
        std::istringstream cells{line};
        for (std::string cell; std::getline(cells, cell, ',');) {
            f.push_back(cell);
        }
        ASSERT_EQ(f.size(), 8U) << line;
        want[{std::stoll(f[0]), f[2]}].emplace_back(std::stod(f[5]), std::stod(f[6]));
        flag_total += std::stoi(f[7]);
    }
    ASSERT_FALSE(want.empty());
    int got_flags = 0;
    for (const auto& run : r->runs()) {
        for (std::size_t c = 0; c < r->channels().size(); ++c) {
            auto s = r->samples(run.id, c);
            ASSERT_TRUE(s) << s.error().message();
            const auto& w = want[{run.id, r->channels()[c].name}];
            ASSERT_EQ(s->points.size(), w.size()) << r->channels()[c].name;
            for (std::size_t i = 0; i < w.size(); ++i) {
                EXPECT_NEAR(static_cast<double>(s->points[i].t_ns) * 1e-9, w[i].first, 1e-9);
                EXPECT_EQ(s->points[i].value, w[i].second);
                got_flags += s->flags[i];
            }
        }
    }
    EXPECT_EQ(got_flags, flag_total);
}

TEST(TraceFormat, TheDocumentedFormatReadsWithoutOurCode) {
    if (!fs::exists("/usr/bin/python3")) {
        GTEST_SKIP() << "no /usr/bin/python3 (scripts/setup.sh installs it)";
    }
    test::FakeSysfs tmp;
    const auto path = tmp.path("/py.jptrace");
    const auto written = series(5'000'000, 700, 3);
    std::int64_t run = 0;
    {
        auto w = Writer::create(path, {});
        ASSERT_TRUE(w);
        const auto chans = two_channels();
        ASSERT_TRUE(w->add_channels(chans));
        run = start(*w, "py");
        ASSERT_TRUE(w->append(written, run));
        ASSERT_TRUE(w->commit());
    }
    const auto cmd = fmt::format("/usr/bin/python3 {}/../contrib/jptrace.py {}", JP_TEST_SOURCE_DIR,
                                 path.string());
    std::FILE* p = ::popen(cmd.c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::string out;
    char buf[4096];
    for (std::size_t n = 0; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) {
        out.append(buf, n);
    }
    ASSERT_EQ(::pclose(p), 0) << out;

    auto r = Reader::open(path);
    ASSERT_TRUE(r);
    std::string want;
    for (std::size_t c = 0; c < 2; ++c) {
        auto s = r->samples(run, c);
        ASSERT_TRUE(s);
        for (std::size_t i = 0; i < s->points.size(); ++i) {
            // Python's float.hex(): 0x1.<13 hex digits>p<exp>, or 0x0.0p+0.
            want += fmt::format("{} {} {} {:a} {}\n", run, r->channels()[c].name, s->points[i].t_ns,
                                s->points[i].value, s->flags[i]);
        }
    }
    // fmt's %a drops trailing zeros of the mantissa; Python's keeps 13 digits:
    // compare after parsing both back.
    std::istringstream a{out};
    std::istringstream b{want};
    std::string la;
    std::string lb;
    std::size_t lines = 0;
    while (std::getline(b, lb)) {
        ASSERT_TRUE(std::getline(a, la)) << "python printed fewer lines";
        std::istringstream fa{la};
        std::istringstream fb{lb};
        std::string ra, ca, ta, va, fla, rb, cb, tb, vb, flb;
        fa >> ra >> ca >> ta >> va >> fla;
        fb >> rb >> cb >> tb >> vb >> flb;
        EXPECT_EQ(std::tie(ra, ca, ta, fla), std::tie(rb, cb, tb, flb)) << la << " | " << lb;
        EXPECT_EQ(std::strtod(va.c_str(), nullptr), std::strtod(vb.c_str(), nullptr)) << la;
        ++lines;
    }
    EXPECT_FALSE(std::getline(a, la)) << "python printed more lines";
    EXPECT_EQ(lines, written.size());
}

} // namespace
} // namespace jp::trace
