// SPDX-License-Identifier: BSD-3-Clause
// A writer that moves to memory (the disk filled): the file keeps what was
// committed, the transaction that failed is dropped, the memory copy goes on
// from the committed state, a snapshot reads everything, and saving writes
// everything over the file as one file.
#include "fake_sysfs.hpp"
#include "trace/reader.hpp"
#include "trace/writer.hpp"

#include <gtest/gtest.h>

namespace jp::trace {
namespace {

std::vector<SampleRecord> samples(std::int64_t from_ns, int n) {
    std::vector<SampleRecord> out;
    for (int i = 0; i < n; ++i) {
        out.push_back({0, 0, from_ns + i * 1'000'000, 10.0 * i});
    }
    return out;
}

std::size_t sample_count(Reader& r, std::int64_t run) {
    auto s = r.samples(run, 0);
    return s ? s->points.size() : 0;
}

TEST(WriterInMemory, GoesOnFromWhatTheFileCommittedAndSavesEverything) {
    test::FakeSysfs fs;
    const auto path = fs.path("/t.jptrace");
    auto w = Writer::create(path, {{"label", "x"}});
    ASSERT_TRUE(w) << w.error().message();
    Channel c;
    c.name = "cpu0.package";
    c.quantity = Quantity::energy;
    ASSERT_TRUE(w->add_channels(std::span{&c, 1}));
    RunInfo run;
    run.label = "x";
    run.kind = "measure";
    run.id = *w->begin_run(run);
    ASSERT_TRUE(w->append(samples(0, 5), run.id));
    ASSERT_TRUE(w->commit());
    ASSERT_TRUE(w->append(samples(5'000'000, 3), run.id)); // the transaction that "failed"

    ASSERT_TRUE(w->move_to_memory());
    EXPECT_TRUE(w->in_memory());
    ASSERT_TRUE(w->append(samples(8'000'000, 4),
                          run.id)); // more; the 3 above are the writer's to write again
    run.end_ns = 20'000'000;
    run.status = "complete";
    ASSERT_TRUE(w->end_run(run));
    ASSERT_TRUE(w->commit());

    {
        auto file = Reader::open(path);
        ASSERT_TRUE(file) << file.error().message();
        EXPECT_EQ(sample_count(*file, run.id), 5U) << "the file keeps what it committed";
        EXPECT_FALSE(file->runs().at(0).end_ns.has_value());
    }
    auto copy = w->snapshot();
    ASSERT_TRUE(copy) << copy.error().message();
    auto memory = Reader::from_database(std::move(*copy), path);
    ASSERT_TRUE(memory) << memory.error().message();
    EXPECT_EQ(memory->path(), path);
    EXPECT_EQ(memory->meta().at("label"), "x");
    EXPECT_EQ(sample_count(*memory, run.id), 12U) << "the dropped transaction is not doubled";
    EXPECT_EQ(memory->runs().at(0).end_ns, 20'000'000);

    ASSERT_TRUE(w->save_to_file());
    auto saved = Reader::open(path);
    ASSERT_TRUE(saved) << saved.error().message();
    EXPECT_EQ(sample_count(*saved, run.id), 12U);
    EXPECT_EQ(saved->runs().at(0).status, "complete");
    EXPECT_FALSE(std::filesystem::exists(path.string() + "-wal")) << "one file";
}

} // namespace
} // namespace jp::trace
