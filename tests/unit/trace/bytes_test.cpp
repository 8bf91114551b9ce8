// SPDX-License-Identifier: BSD-3-Clause
// A trace opened from its bytes (the fuzz target's way in) reads as the file
// does, and is as closed to writing; bytes that are no trace are one error.
#include "fake_sysfs.hpp"
#include "trace/reader.hpp"
#include "trace/writer.hpp"

#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

namespace jp::trace {
namespace {

TEST(ReaderFromBytes, ReadsAsTheFileDoesAndRefusesWhatIsNoTrace) {
    test::FakeSysfs fs;
    const auto path = fs.path("/t.jptrace");
    {
        auto w = Writer::create(path, {{"label", "bytes"}});
        ASSERT_TRUE(w) << w.error().message();
        RunInfo run;
        run.label = "bytes";
        run.kind = "measure";
        ASSERT_TRUE(w->begin_run(run));
        ASSERT_TRUE(w->commit());
    }
    std::ifstream in{path, std::ios::binary};
    std::stringstream bytes;
    bytes << in.rdbuf();

    auto r = Reader::from_bytes(bytes.str(), "copy.jptrace");
    ASSERT_TRUE(r) << r.error().message();
    EXPECT_EQ(r->meta().at("label"), "bytes");
    ASSERT_EQ(r->runs().size(), 1U);
    EXPECT_EQ(r->path(), "copy.jptrace");

    for (const std::string& junk : {std::string{}, std::string{"not a trace"},
                                    bytes.str().substr(0, 100), std::string(4096, '\0')}) {
        const auto bad = Reader::from_bytes(junk, "junk.jptrace");
        ASSERT_FALSE(bad);
        EXPECT_NE(bad.error().message().find("junk.jptrace"), std::string::npos)
            << bad.error().message();
    }
}

} // namespace
} // namespace jp::trace
