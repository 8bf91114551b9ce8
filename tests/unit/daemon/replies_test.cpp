// SPDX-License-Identifier: BSD-3-Clause
// What jouleprof reads from jouleprofd, as untrusted input: the hello reply,
// the channel list and the readings (found by fuzz/daemon_reply: a jitter of
// 2e52 ms was converted to an integer, undefined behaviour).
#include "daemon_client/hello.hpp"
#include "sensors/jouleprofd/offer.hpp"
#include "sensors/jouleprofd/readings.hpp"
#include "trace/time_range.hpp"

#include <gtest/gtest.h>

namespace jp::daemon {
namespace {

using nlohmann::json;
namespace jpd = sensors::jouleprofd;

constexpr std::int64_t k_before = 1'000'000'000'000;
constexpr std::int64_t k_after = k_before + 2'000'000;

json hello_reply() {
    return json::parse(R"({"version":1,"daemon":"jouleprofd 0.1.0","access":"floor",
        "interval_ms":100,"floor_ms":1000,"jitter_ms":200,
        "edge_reads":{"burst":4,"per_minute":2.0},"mono_ns":1000001000000})");
}

TEST(DaemonReplies, AHelloIsRead) {
    const auto h = parse_hello(hello_reply(), k_before, k_after);
    ASSERT_TRUE(h) << h.error();
    EXPECT_EQ(h->version, 1);
    EXPECT_EQ(h->floor, std::chrono::milliseconds{1000});
    EXPECT_EQ(h->jitter, std::chrono::milliseconds{200});
    EXPECT_EQ(h->edge_burst, 4);
    EXPECT_EQ(h->clock_offset_ns, 0) << "the same clock";
    auto other = hello_reply();
    other["mono_ns"] = 5'000;
    EXPECT_EQ(parse_hello(other, k_before, k_after)->clock_offset_ns,
              5'000 - (k_before + 1'000'000))
        << "another time namespace's clock";
}

TEST(DaemonReplies, AHelloWithFiguresNoDaemonSendsIsMalformed) {
    for (const auto& [key, value] :
         std::vector<std::pair<std::string, json>>{{"jitter_ms", 2e52},
                                                   {"jitter_ms", -1},
                                                   {"interval_ms", 86'400'001},
                                                   {"floor_ms", "1000"},
                                                   {"version", 1.5},
                                                   {"mono_ns", (std::int64_t{1} << 61) + 1},
                                                   {"mono_ns", 1e30},
                                                   {"mono_ns", 18446744073709551615ULL}}) {
        auto reply = hello_reply();
        reply[key] = value;
        const auto h = parse_hello(reply, k_before, k_after);
        ASSERT_FALSE(h) << key << "=" << value.dump();
        EXPECT_NE(h.error().find("jouleprofd sent a malformed hello reply ("), std::string::npos)
            << h.error();
    }
    auto reply = hello_reply();
    reply["edge_reads"]["burst"] = -4;
    EXPECT_FALSE(parse_hello(reply, k_before, k_after));
    EXPECT_FALSE(parse_hello(json::array(), k_before, k_after));
}

TEST(DaemonReplies, ReadingsOutsideWhatATraceHoldsAreDropped) {
    const auto big = trace::k_max_time_ns;
    const auto r = json::parse(R"({"values":[[0,1000,5.5],[1,1000,1e30],[2.5,1000,1],[-1,1000,1],
        [3,1.5e3,1],[4,"1000",1],[5,1000],[6,1000,null]]})");
    const auto got = jpd::reply_readings(r, -500);
    ASSERT_EQ(got.size(), 2U);
    EXPECT_EQ(got[0].channel, 0);
    EXPECT_EQ(got[0].t_ns, 1500) << "on our clock";
    EXPECT_EQ(got[1].value, 1e30);
    const json edge{{"values", {{0, big, 1.0}, {1, big + 1, 1.0}, {2, -big, 1.0}}}};
    EXPECT_EQ(jpd::reply_readings(edge, 0).size(), 2U);
    EXPECT_TRUE(jpd::reply_readings(edge, -1).size() == 1U) << "past 2^61 once on our clock";
    EXPECT_TRUE(jpd::reply_readings(json::parse(R"({"values":{"0":1}})"), 0).empty());
    EXPECT_TRUE(jpd::reply_readings(json::parse("[1,2,3]"), 0).empty());
}

TEST(DaemonReplies, AReadsCallLengthsAreWholeNanosecondsAndAtMostAMinute) {
    const auto r = json::parse(R"({"read_ns":[[0,3900000],[1,-1],[2,60000000001],[3,1.5],
        [4,"7"],[5],[6,7,8],[-1,5],7,[8,60000000000]]})");
    const auto got = jpd::reply_read_times(r);
    ASSERT_EQ(got.size(), 3U);
    EXPECT_EQ(got[0], (std::pair<int, std::int64_t>{0, 3'900'000}));
    EXPECT_EQ(got[1], (std::pair<int, std::int64_t>{2, 60'000'000'000}))
        << "a stalled call counts as a minute: the bound widens, never narrows";
    EXPECT_EQ(got[2], (std::pair<int, std::int64_t>{8, 60'000'000'000}));
    EXPECT_TRUE(jpd::reply_read_times(json::parse(R"({"values":[]})")).empty()) << "older daemon";
    EXPECT_TRUE(jpd::reply_read_times(json::parse(R"({"read_ns":{"0":1}})")).empty());
    EXPECT_TRUE(jpd::reply_read_times(json::parse("[1,2]")).empty());
}

TEST(DaemonReplies, AStreamEventGivesTheNewestReadingOfEachRowOfItsSession) {
    const auto e = json::parse(R"({"event":"samples","session":"s1","seq":3,"lost":0,
        "data":[[0,12,100,1.0,200,2.0],[2,4,300,3.0],[1,1,1e40,1.0],[3,1],[4,1,100,1.0,7]]})");
    const auto got = jpd::stream_readings(e, "s1", 0);
    ASSERT_EQ(got.size(), 2U);
    EXPECT_EQ(got[0].t_ns, 200);
    EXPECT_EQ(got[0].value, 2.0);
    EXPECT_EQ(got[1].channel, 2);
    EXPECT_TRUE(jpd::stream_readings(e, "s2", 0).empty()) << "another session's";
    auto closing = e;
    closing["event"] = "closing";
    EXPECT_TRUE(jpd::stream_readings(closing, "s1", 0).empty());
}

TEST(DaemonReplies, AChannelsFiguresATraceCouldNotHoldAreLeftOut) {
    const auto list = json::parse(R"([
        {"index":0,"name":"node","domain":"node","quantity":"power","provenance":"measured",
         "limit_watts":-5,"max_watts":0,"update_ns":0,"averaging_ns":4611686018427387904,
         "resolution_ms":1e30},
        {"index":1,"name":"gpu0","domain":"gpu","quantity":"energy","provenance":"measured",
         "limit_watts":700,"max_watts":null,"update_ns":20000000,"averaging_ns":1000000},
        {"index":2.5,"name":"x","domain":"dram","quantity":"energy","provenance":"measured"}])",
                                  nullptr, false);
    ASSERT_FALSE(list.is_discarded());
    const auto o = jpd::offered(list, {});
    ASSERT_EQ(o.channels.size(), 2U) << "an index that is not a whole number names no channel";
    EXPECT_FALSE(o.channels[0].limit_watts);
    EXPECT_FALSE(o.channels[0].max_watts);
    EXPECT_FALSE(o.channels[0].update_ns);
    EXPECT_FALSE(o.channels[0].averaging_ns);
    EXPECT_EQ(o.channels[1].limit_watts, 700.0);
    EXPECT_EQ(o.channels[1].update_ns, 20'000'000);
    EXPECT_EQ(o.channels[1].averaging_ns, 1'000'000);
    EXPECT_EQ(o.index, (std::vector<int>{0, 1}));
    EXPECT_THROW((void)jpd::offered(json::parse(R"([{"index":0}])"), {}), json::exception)
        << "a channel without a name: discovery says the reply is malformed";
}

} // namespace
} // namespace jp::daemon
