// SPDX-License-Identifier: BSD-3-Clause
#include "core/clock.hpp"
#include "daemon_world.hpp"

#include <gtest/gtest.h>
#include <limits>

namespace jp::daemon {
namespace {

using nlohmann::json;
using test::hello;
using test::World;

TEST(Handlers, HelloComesFirstAndNegotiatesTheVersion) {
    World w;
    auto c = w.connect(1000);
    EXPECT_EQ(w.call(*c, {{"op", "channels"}})["error"], "hello_first");
    EXPECT_EQ(w.call(*c, {{"op", "hello"}})["error"], "bad_request");
    EXPECT_EQ(w.call(*c, {{"op", "hello"}, {"versions", {2, 3}}})["error"], "unsupported_version");
    const auto h = w.call(*c, {{"op", "hello"}, {"versions", {1, 2}}, {"id", 9}});
    EXPECT_EQ(h["ok"], true);
    EXPECT_EQ(h["id"], 9);
    EXPECT_EQ(h["version"], 1);
    EXPECT_EQ(h["access"], "floor");
    EXPECT_EQ(h["uid"], 1000);
    EXPECT_EQ(h["edge_reads"]["burst"], 16);
    EXPECT_GT(h["mono_ns"].get<std::int64_t>(), 0);
}

TEST(Handlers, MalformedRequestsGetAReasonNotACrash) {
    World w;
    auto c = w.connect(1000);
    for (const char* line : {"", "nul", "42", "[]", "{\"op\":3}", "{\"id\":1.5,\"op\":\"hello\"}",
                             "{\"op\":\"hello\",\"versions\":[1],\"id\":\"x\"}"}) {
        const auto r = json::parse(handle_line(*w.state, *c, line, 0));
        EXPECT_EQ(r["ok"], false) << line;
        EXPECT_EQ(r["error"], "bad_request") << line;
    }
    ASSERT_EQ(w.call(*c, hello())["ok"], true);
    EXPECT_EQ(w.call(*c, {{"op", "teleport"}})["error"], "unknown_op");
    EXPECT_EQ(w.call(*c, {{"op", "open"}, {"label", 5}})["error"], "bad_request");
    EXPECT_EQ(w.call(*c, {{"op", "open"}, {"label", std::string(300, 'x')}})["error"],
              "bad_request");
    EXPECT_EQ(w.call(*c, {{"op", "read"}})["error"], "bad_request") << "no session named";
    EXPECT_EQ(w.call(*c, {{"op", "read"}, {"session", "nope"}})["error"], "no_such_session");
}

TEST(Handlers, AJobSessionFromOpenToClose) {
    World w;
    auto c = w.connect(1000);
    w.call(*c, hello());
    const auto list = w.call(*c, {{"op", "channels"}})["channels"];
    ASSERT_EQ(list.size(), 2U);
    EXPECT_EQ(list[0]["name"], "cpu0.package");
    EXPECT_EQ(list[0]["floored"], true);
    EXPECT_EQ(list[0]["resolution_ms"], 1000);
    EXPECT_EQ(list[0]["limit_watts"], 165.0);
    const auto opened = w.call(*c, {{"op", "open"}, {"label", "train"}});
    ASSERT_EQ(opened["ok"], true);
    const auto id = opened["session"].get<std::string>();
    EXPECT_EQ(id.size(), 32U);
    w.set_energy_uj(4'000'000);
    // (A second on: no floored read comes within the floor of the daemon's start.)
    const auto r = w.call(*c, {{"op", "read"}, {"session", id}}, mono_ns() + 1'000'000'000);
    ASSERT_EQ(r["ok"], true) << r;
    EXPECT_NEAR(r["values"][0][2].get<double>(), 3.0, 1e-9) << "exact: 3 J since the start";
    const auto m = w.call(
        *c,
        {{"op", "mark"}, {"session", id}, {"kind", "begin"}, {"name", "epoch 1"}, {"t_ns", 77}});
    EXPECT_EQ(m["ok"], true) << m;
    EXPECT_EQ(
        w.call(*c, {{"op", "mark"}, {"session", id}, {"kind", "middle"}, {"name", "x"}})["error"],
        "bad_request");
    EXPECT_EQ(w.call(*c, {{"op", "mark"}, {"session", id}, {"name", ""}})["error"], "bad_request");
    const auto info = w.call(*c, {{"op", "session"}, {"session", id}});
    EXPECT_EQ(info["label"], "train");
    EXPECT_EQ(info["exact_reads"], 1);
    EXPECT_EQ(info["markers"], json::array({json::array({77, "begin", "epoch 1"})}));
    EXPECT_EQ(w.call(*c, {{"op", "close"}, {"session", id}})["ok"], true);
    EXPECT_EQ(w.call(*c, {{"op", "session"}, {"session", id}})["error"], "no_such_session");
}

TEST(Handlers, AClientWhosePidNowNamesAnotherProcessGetsNoSession) {
    World w;
    auto c = w.connect(1000);
    ASSERT_EQ(w.call(*c, hello())["ok"], true);
    // The process that connected ended and its pid names another now (started at another time).
    c->peer_start_time = c->peer_start_time.value_or(0) + 1;
    const auto r = w.call(*c, {{"op", "open"}, {"label", "x"}});
    EXPECT_EQ(r["error"], "bad_request") << r.dump();
    EXPECT_NE(r["message"].get<std::string>().find("has ended"), std::string::npos) << r.dump();
    EXPECT_EQ(w.state->sessions.size(), 0U);
}

TEST(Handlers, OnlyTheOwnerAndRootMayUseASession) {
    World w;
    auto alice = w.greeted(1000);
    auto bob = w.greeted(1001);
    auto root = w.greeted(0);
    const auto id = w.call(*alice, {{"op", "open"}})["session"].get<std::string>();
    for (const char* op : {"read", "latest", "session", "close"}) {
        EXPECT_EQ(w.call(*bob, {{"op", op}, {"session", id}})["error"], "not_yours") << op;
    }
    EXPECT_EQ(w.call(*bob, {{"op", "mark"}, {"session", id}, {"name", "x"}})["error"], "not_yours");
    EXPECT_TRUE(w.call(*bob, {{"op", "sessions"}})["sessions"].empty());
    EXPECT_EQ(w.call(*root, {{"op", "sessions"}})["sessions"].size(), 1U);
    EXPECT_EQ(w.call(*root, {{"op", "latest"}, {"session", id}})["ok"], true);
    EXPECT_EQ(w.state->sessions.close_connection(alice->id), 1U) << "ends with its connection";
}

// Alice (floored) and root, each with a session open.
struct TwoUsers {
    explicit TwoUsers(World& w)
        : alice(w.greeted(1000)), root(w.greeted(0)),
          a(w.call(*alice, {{"op", "open"}})["session"]),
          r(w.call(*root, {{"op", "open"}})["session"]) {}
    std::unique_ptr<Connection> alice;
    std::unique_ptr<Connection> root;
    json a; // alice's session
    json r; // root's
};

TEST(Handlers, ExactReadsAreRationedForFlooredUsersOnly) {
    DaemonConfig c;
    c.access.edge_reads_burst = 2;
    World w{c};
    TwoUsers u{w};
    auto& alice = u.alice;
    auto& root = u.root;
    const auto& a = u.a;
    const auto& r = u.r;
    // Spaced by the floor (1 s), so that only the budget can refuse.
    const auto now = mono_ns();
    constexpr std::int64_t s = 1'000'000'000;
    EXPECT_EQ(w.call(*alice, {{"op", "read"}, {"session", a}}, now + s)["ok"], true);
    EXPECT_EQ(w.call(*alice, {{"op", "read"}, {"session", a}}, now + 2 * s + s / 10)["ok"], true);
    const auto refused = w.call(*alice, {{"op", "read"}, {"session", a}}, now + 4 * s);
    EXPECT_EQ(refused["error"], "rate_limited");
    // 3 s of refill at 6 a minute since the first read: 0.3 of a read, 0.7 to wait at 6 a minute.
    EXPECT_NEAR(refused["retry_after_ms"].get<double>(), 7'000, 2) << refused;
    EXPECT_NE(refused["message"].get<std::string>().find("2 at once"), std::string::npos);
    for (int i = 0; i < 10; ++i) {
        EXPECT_EQ(w.call(*root, {{"op", "read"}, {"session", r}}, now)["ok"], true);
    }
    EXPECT_EQ(w.call(*alice, {{"op", "latest"}, {"session", a}}, now)["ok"], true)
        << "floored readings are never rationed";
}

TEST(Handlers, NoFlooredExactReadWithinTheFloorOfTheDaemonsStart) {
    World w; // floor 1 s
    TwoUsers u{w};
    const auto at_start = w.call(*u.alice, {{"op", "read"}, {"session", u.a}, {"edge", "start"}},
                                 w.engine->started_ns() + 300'000'000);
    EXPECT_EQ(at_start["error"], "too_soon") << at_start;
    EXPECT_NEAR(at_start["retry_after_ms"].get<double>(), 700, 1) << at_start;
    EXPECT_EQ(w.call(*u.root, {{"op", "read"}, {"session", u.r}}, w.engine->started_ns())["ok"],
              true)
        << "root is not floored";
}

TEST(Handlers, AFlooredUsersExactReadsAreTheFloorApart) {
    DaemonConfig c;
    c.access.floor = std::chrono::milliseconds{500};
    World w{c};
    TwoUsers u{w};
    auto& alice = u.alice;
    auto& root = u.root;
    const auto& a = u.a;
    const auto& r = u.r;
    const auto now = mono_ns() + 500'000'000; // the floor after the daemon's start
    w.set_energy_uj(2'000'000);
    const auto first = w.call(*alice, {{"op", "read"}, {"session", a}, {"edge", "start"}}, now);
    ASSERT_EQ(first["ok"], true) << first;
    EXPECT_FALSE(first.contains("reused_ns"));
    ASSERT_TRUE(first.contains("read_ns")) << "an exact read says how long its calls take";
    EXPECT_EQ(first["read_ns"][0][0], 0);
    EXPECT_GT(first["read_ns"][0][1].get<std::int64_t>(), 0);
    const auto first_t = first["values"][0][1].get<std::int64_t>();
    w.set_energy_uj(2'500'000);

    // An end edge 100 ms later waits for the floor; a start edge is given the same reading.
    constexpr std::int64_t ms = 1'000'000;
    const auto soon =
        w.call(*alice, {{"op", "read"}, {"session", a}, {"edge", "end"}}, now + 100 * ms);
    EXPECT_EQ(soon["error"], "too_soon") << soon;
    const auto wait = soon["retry_after_ms"].get<std::int64_t>();
    EXPECT_GE(wait, 400);
    EXPECT_LE(wait, 400 + std::max<std::int64_t>(0, first_t - now) / ms + 1);
    EXPECT_NE(soon["message"].get<std::string>().find("at least 500 ms apart"), std::string::npos);
    const auto again =
        w.call(*alice, {{"op", "read"}, {"session", a}, {"edge", "start"}}, now + 100 * ms);
    ASSERT_EQ(again["ok"], true) << again;
    EXPECT_EQ(again["values"], first["values"]) << "nothing new: the reading alice holds";
    EXPECT_EQ(again["reused_ns"], now + 100 * ms - (first_t > now ? first_t : now));
    EXPECT_FALSE(again.contains("read_ns")) << "not rationed, so nothing new in it";
    EXPECT_FALSE(w.call(*alice, {{"op", "latest"}, {"session", a}}, now).contains("read_ns"))
        << "latest is never rationed: a floored caller gets read times with exact reads only";
    EXPECT_TRUE(w.call(*root, {{"op", "latest"}, {"session", r}}, now).contains("read_ns"));
    EXPECT_EQ(w.call(*alice, {{"op", "read"}, {"session", a}}, now + 100 * ms)["error"], "too_soon")
        << "an edge not named is an end";
    EXPECT_EQ(w.call(*alice, {{"op", "read"}, {"session", a}, {"edge", "middle"}})["error"],
              "bad_request");

    // Root is never spaced; alice reads afresh once the floor has passed.
    EXPECT_FALSE(
        w.call(*root, {{"op", "read"}, {"session", r}}, now + 100 * ms).contains("reused_ns"));
    const auto later = w.call(*alice, {{"op", "read"}, {"session", a}}, now + 600 * ms);
    ASSERT_EQ(later["ok"], true) << later;
    EXPECT_NEAR(later["values"][0][2].get<double>(), 1.5, 1e-9) << "exact: 1.5 J since the start";
}

TEST(Handlers, SessionsPerUserAreBounded) {
    DaemonConfig c;
    c.daemon.max_sessions_per_user = 2;
    World w{c};
    auto alice = w.connect(1000);
    w.call(*alice, hello());
    EXPECT_EQ(w.call(*alice, {{"op", "open"}})["ok"], true);
    EXPECT_EQ(w.call(*alice, {{"op", "open"}})["ok"], true);
    EXPECT_EQ(w.call(*alice, {{"op", "open"}})["error"], "too_many_sessions");
}

TEST(Handlers, DeniedUsersGetNothing) {
    DaemonConfig c;
    c.access.others_allowed = false;
    World w{c};
    auto bob = w.connect(1001);
    const auto h = w.call(*bob, hello());
    EXPECT_EQ(h["error"], "denied");
    EXPECT_EQ(w.call(*bob, {{"op", "channels"}})["error"], "hello_first");
}

TEST(Handlers, StreamsDeliverEveryReadingInOrderAndCountWhatWasLost) {
    DaemonConfig c;
    c.daemon.interval = std::chrono::milliseconds{10};
    c.daemon.history = std::chrono::seconds{10};
    World w{c};
    auto root = w.connect(0);
    w.call(*root, hello());
    auto& s = **w.state->sessions.open(root->id, root->peer, root->peer_start_time, Grant::full, "",
                                       0, 10);
    const auto st = w.call(*root, {{"op", "stream"}, {"session", s.id}, {"interval_ms", 1}});
    EXPECT_EQ(st["interval_ms"], 10) << "no faster than the daemon samples";
    EXPECT_EQ(w.call(*root, {{"op", "stream"}, {"session", s.id}, {"interval_ms", -1}})["error"],
              "bad_request");
    std::uint64_t expected = 0;
    std::int64_t last_t = 0;
    for (int i = 0; i < 30; ++i) {
        std::vector<std::pair<std::size_t, Reading>> ignored;
        w.engine->read_now(ignored);
        w.engine->tick(mono_ns());
        const auto line = stream_event(*w.state, s, s.next_push_ns); // due every time
        if (line.empty()) {
            continue;
        }
        const auto e = json::parse(line);
        EXPECT_EQ(e["lost"], 0);
        for (const auto& row : e["data"]) {
            if (row[0] != 0) {
                continue;
            }
            const auto first = row[1].get<std::uint64_t>();
            EXPECT_TRUE(expected == 0 || first == expected) << "gap at " << first;
            expected = first + (row.size() - 2) / 2;
            for (std::size_t k = 2; k < row.size(); k += 2) {
                EXPECT_GT(row[k].get<std::int64_t>(), last_t);
                last_t = row[k].get<std::int64_t>();
            }
        }
    }
    EXPECT_GT(expected, 30U);
    // A client that falls behind more than the history holds is told how much it missed.
    s.next_seq[0] = 1;
    for (std::size_t i = 0; i < w.engine->history(0).capacity(); ++i) {
        std::vector<std::pair<std::size_t, Reading>> ignored;
        w.engine->read_now(ignored);
        w.engine->tick(mono_ns());
    }
    const auto e = json::parse(stream_event(*w.state, s, s.next_push_ns));
    EXPECT_GT(e["lost"].get<std::uint64_t>(), 0U);
}

TEST(Handlers, StatusSaysHowTheDaemonIsDoing) {
    World w;
    auto c = w.connect(1000);
    w.call(*c, hello());
    w.state->clients = 1;
    const auto s = w.call(*c, {{"op", "status"}});
    EXPECT_EQ(s["protocol"], 1);
    EXPECT_EQ(s["channels"], 2);
    // Others' activity is not shown to a floored user (the daemon's memory grows with their
    // sessions and markers); root sees it.
    EXPECT_FALSE(s.contains("clients")) << s;
    EXPECT_FALSE(s.contains("sessions")) << s;
    EXPECT_FALSE(s.contains("rss_bytes")) << s;
    auto root = w.connect(0);
    w.call(*root, hello());
    const auto r = w.call(*root, {{"op", "status"}});
    EXPECT_EQ(r["clients"], 1);
    EXPECT_EQ(r["sessions"], 0);
    EXPECT_GT(r["rss_bytes"].get<std::uint64_t>(), 0U);
}

TEST(Handlers, LabelsAndMarkerNamesWithControlCharactersAreRefused) {
    World w;
    auto c = w.connect(1000);
    w.call(*c, hello());
    const auto bad = w.call(*c, {{"op", "open"}, {"label", "job\n[fake] line"}});
    EXPECT_EQ(bad["error"], "bad_request") << bad;
    EXPECT_EQ(w.call(*c, {{"op", "open"},
                          {"label", "\xC2\x9B"
                                    "31mRED"}})["error"],
              "bad_request");
    const auto s = w.call(*c, {{"op", "open"}, {"label", "train"}})["session"];
    // C1's one-byte CSI (U+009B, a review got it through), a right-to-left override, a line
    // separator: each as it would reach a terminal.
    for (const char* name : {"epoch\x1b[31m", "a\rb", "tab\there", "del\x7f",
                             "\xC2\x9B"
                             "31mRED",
                             "\xE2\x80\xAE"
                             "fdp.exe",
                             "a\xE2\x80\xA8"
                             "b"}) {
        const auto r = w.call(*c, {{"op", "mark"}, {"session", s}, {"name", name}});
        EXPECT_EQ(r["error"], "bad_request") << name;
    }
    EXPECT_TRUE(w.call(*c, {{"op", "mark"}, {"session", s}, {"name", "epoch 3 ü"}})["ok"]);
}

TEST(Handlers, MarkerTimesOutsideTheSessionAreRefused) {
    World w;
    auto c = w.connect(1000);
    const auto now = mono_ns();
    w.call(*c, hello(), now);
    const auto s = w.call(*c, {{"op", "open"}}, now)["session"];
    for (std::int64_t t :
         {std::int64_t{0}, now - 3'600'000'000'000, now + 3'600'000'000'000,
          std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min()}) {
        const auto r =
            w.call(*c, {{"op", "mark"}, {"session", s}, {"name", "x"}, {"t_ns", t}}, now);
        EXPECT_EQ(r["error"], "bad_request") << t;
    }
    EXPECT_TRUE(w.call(*c, {{"op", "mark"}, {"session", s}, {"name", "x"}, {"t_ns", now - 1000}},
                       now)["ok"]);
}

TEST(Handlers, OneUsersMarkersAreBoundedInBytesAndComeBackInPages) {
    World w;
    auto c = w.connect(1000);
    w.call(*c, hello());
    const std::string name(250, 'm');
    std::size_t accepted = 0;
    json refused;
    // Sessions of one user share the bound: spread over several, it holds all the same.
    for (int k = 0; k < 8 && refused.is_null(); ++k) {
        const auto s = w.call(*c, {{"op", "open"}})["session"];
        for (std::size_t i = 0; i < SessionTable::k_max_markers; ++i) {
            auto r = w.call(*c, {{"op", "mark"}, {"session", s}, {"name", name}});
            if (!r.value("ok", false)) {
                refused = r;
                break;
            }
            ++accepted;
        }
    }
    ASSERT_FALSE(refused.is_null()) << "no bound was reached";
    EXPECT_NE(refused["message"].get<std::string>().find("MiB of markers"), std::string::npos);
    EXPECT_LE(accepted * name.size(), SessionTable::k_max_marker_bytes_per_user);
    EXPECT_GT(accepted * (name.size() + sizeof(MarkerEntry) + 16),
              SessionTable::k_max_marker_bytes_per_user * 9 / 10);
    // A session's markers come back a page at a time, every one of them once.
    const auto first = w.call(*c, {{"op", "sessions"}})["sessions"][0];
    const auto id = first["session"];
    const auto count = first["markers_count"].get<std::size_t>();
    std::size_t seen = 0;
    std::size_t from = 0;
    for (int pages = 0; pages < 1000; ++pages) {
        const auto page = w.call(*c, {{"op", "session"}, {"session", id}, {"markers_from", from}});
        EXPECT_LE(page.dump().size(), std::size_t{1} << 20) << "a page stays under 1 MiB";
        seen += page["markers"].size();
        if (!page.contains("markers_next")) {
            break;
        }
        from = page["markers_next"].get<std::size_t>();
    }
    EXPECT_EQ(seen, count);
}

} // namespace
} // namespace jp::daemon
