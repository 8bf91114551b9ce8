// SPDX-License-Identifier: BSD-3-Clause
// In-band IPMI through the kernel's device, with the device's calls injected:
// a fake kernel answers each request with replies recorded from a real BMC
// simulator (ipmi_sim with tests/ipmi_sim/, read with `ipmitool raw`), so the
// same transport, parsers, discovery and sensor as on a node are exercised.
#include "config/config.hpp"
#include "sensors/ipmi/device.hpp"
#include "sensors/ipmi/ipmi.hpp"
#include "sensors/ipmi/ipmi_sensor.hpp"
#include "sensors/ipmi/readings.hpp"

#include <cerrno>
#include <cstring>
#include <deque>
#include <gtest/gtest.h>
#include <linux/ipmi.h>
#include <map>
#include <thread>
#include <utility>

namespace jp::sensors::ipmi {
namespace {

using Bytes = std::vector<std::uint8_t>;

// `ipmitool raw 0x3a 0x32 4 2 0 0 0` against the simulator: 30259.707 J at 1795578859.366 s.
const Bytes k_xcc_reply{0x00, 0x00, 0x00, 0x33, 0x76, 0x00, 0x00, 0xc3,
                        0x02, 0xeb, 0x5b, 0x06, 0x6b, 0x6e, 0x01};
// `ipmitool raw 0x2c 0x02 0xdc 0x01 0x00 0x00`: 347 W now, 250 min, 347 max, 299 avg, 1 s period.
const Bytes k_dcmi_reply{0x00, 0xdc, 0x5b, 0x01, 0xfa, 0x00, 0x5b, 0x01, 0x2b, 0x01,
                         0xeb, 0x5b, 0x06, 0x6b, 0xe8, 0x03, 0x00, 0x00, 0x40};
// `ipmitool raw 0x2c 0x01 0xdc 0x01`: DCMI 1.5, power management available.
const Bytes k_caps_reply{0x00, 0xdc, 0x01, 0x05, 0x02, 0x00, 0x01, 0x00};
const Bytes k_invalid_command{0xc1};
const Bytes k_insufficient_privilege{0xd4};

// The fake kernel: one device, replies by (NetFn, cmd), in order.
struct FakeKernel {
    std::map<std::pair<int, int>, std::deque<Bytes>> replies;
    std::deque<std::pair<long, Bytes>> pending; // msgid, completion + data
    std::vector<Request> sent;
    int open_errno = 0;
    bool events_first = false;      // an asynchronous event arrives before each reply
    bool stale_reply_first = false; // a late reply to an earlier request arrives first
    int opened = 0;
    int closed = 0;
};
FakeKernel* g_kernel = nullptr;

int fake_open(const char* /*path*/, int /*flags*/) {
    if (g_kernel->open_errno != 0) {
        errno = g_kernel->open_errno;
        return -1;
    }
    ++g_kernel->opened;
    return 42;
}

int fake_send(int fd, ipmi_req* req) {
    EXPECT_EQ(fd, 42);
    const auto* addr = reinterpret_cast<const ipmi_system_interface_addr*>(req->addr);
    EXPECT_EQ(addr->addr_type, IPMI_SYSTEM_INTERFACE_ADDR_TYPE);
    EXPECT_EQ(addr->channel, IPMI_BMC_CHANNEL);
    Request r{req->msg.netfn, req->msg.cmd,
              Bytes(req->msg.data, req->msg.data + req->msg.data_len)};
    g_kernel->sent.push_back(r);
    auto& q = g_kernel->replies[{r.netfn, r.cmd}];
    if (q.empty()) {
        return 0; // the BMC never answers
    }
    if (g_kernel->events_first) {
        g_kernel->pending.emplace_back(-1, Bytes{0x00, 0x01});
    }
    if (g_kernel->stale_reply_first) {
        g_kernel->pending.emplace_back(req->msgid - 1, k_insufficient_privilege);
    }
    g_kernel->pending.emplace_back(req->msgid, q.front());
    if (q.size() > 1) {
        q.pop_front();
    }
    return 0;
}

int fake_receive(int /*fd*/, ipmi_recv* recv) {
    if (g_kernel->pending.empty()) {
        errno = EAGAIN;
        return -1;
    }
    auto [id, bytes] = g_kernel->pending.front();
    g_kernel->pending.pop_front();
    recv->recv_type = id < 0 ? IPMI_ASYNC_EVENT_RECV_TYPE : IPMI_RESPONSE_RECV_TYPE;
    recv->msgid = id;
    const auto n = std::min<std::size_t>(bytes.size(), recv->msg.data_len);
    std::memcpy(recv->msg.data, bytes.data(), n);
    recv->msg.data_len = static_cast<unsigned short>(n);
    return 0;
}

int fake_wait(int /*fd*/, int /*timeout_ms*/) {
    return g_kernel->pending.empty() ? 0 : 1;
}

int fake_close(int /*fd*/) {
    ++g_kernel->closed;
    return 0;
}

constexpr DeviceApi k_fake{fake_open, fake_send, fake_receive, fake_wait, fake_close};

class InBand : public ::testing::Test {
protected:
    void SetUp() override { g_kernel = &m_kernel; }
    void TearDown() override { g_kernel = nullptr; }
    void answer(int netfn, int cmd, Bytes reply) {
        m_kernel.replies[{netfn, cmd}].push_back(std::move(reply));
    }
    Discovery discover_with(const std::string& source = "auto") {
        m_config.ipmi.emplace();
        m_config.ipmi->source = source;
        m_config.ipmi->timeout = std::chrono::milliseconds{50};
        Host host;
        host.config = &m_config;
        host.ipmi_device = &k_fake;
        return ipmi::discover(host);
    }
    FakeKernel m_kernel;
    Config m_config;
};

TEST_F(InBand, ParsesTheRecordedReplies) {
    auto x = parse_xcc_energy({0x00, Bytes(k_xcc_reply.begin() + 1, k_xcc_reply.end())});
    ASSERT_TRUE(x) << x.error().message();
    EXPECT_DOUBLE_EQ(x->joules, 30259.707);
    EXPECT_DOUBLE_EQ(x->timestamp, 1795578859.366);
    auto d = parse_dcmi_power({0x00, Bytes(k_dcmi_reply.begin() + 1, k_dcmi_reply.end())});
    ASSERT_TRUE(d) << d.error().message();
    EXPECT_EQ(d->current_watts, 347U);
    EXPECT_EQ(d->minimum_watts, 250U);
    EXPECT_EQ(d->maximum_watts, 347U);
    EXPECT_EQ(d->average_watts, 299U);
    EXPECT_EQ(d->period_ms, 1000U);
    EXPECT_TRUE(d->measurement_active);
    auto c = parse_dcmi_capabilities({0x00, Bytes(k_caps_reply.begin() + 1, k_caps_reply.end())});
    ASSERT_TRUE(c) << c.error().message();
    EXPECT_EQ(c->major, 1);
    EXPECT_EQ(c->minor, 5);
    EXPECT_TRUE(c->power_management);
}

TEST_F(InBand, RefusesShortGarbledAndFailedReplies) {
    EXPECT_NE(parse_xcc_energy({0x00, {0x00, 0x01}}).error().message().find("reply of 2 bytes"),
              std::string::npos);
    EXPECT_NE(
        parse_dcmi_power({0xd4, {}}).error().message().find("insufficient privilege level (0xD4)"),
        std::string::npos);
    Bytes not_dcmi(k_dcmi_reply.begin() + 1, k_dcmi_reply.end());
    not_dcmi[0] = 0x00;
    EXPECT_NE(parse_dcmi_power({0x00, not_dcmi}).error().message().find("DCMI group id"),
              std::string::npos);
    Bytes bad_mj(k_xcc_reply.begin() + 1, k_xcc_reply.end());
    bad_mj[6] = 0xff;
    bad_mj[7] = 0xff; // 65535 mJ: not this counter
    EXPECT_FALSE(parse_xcc_energy({0x00, bad_mj}));
}

TEST_F(InBand, XccEnergyCounterIsTheNodeMeter) {
    answer(0x3A, 0x32, k_xcc_reply);
    auto d = discover_with();
    ASSERT_EQ(d.sensors.size(), 1U) << (d.unreadable.empty() ? "" : d.unreadable[0].reason);
    auto& s = *d.sensors[0];
    EXPECT_TRUE(s.slow());
    EXPECT_TRUE(s.read_at_edges());
    ASSERT_EQ(s.channels().size(), 1U);
    const auto& ch = s.channels()[0];
    EXPECT_EQ(ch.name, "ipmi.node");
    EXPECT_EQ(ch.domain, Domain::node);
    EXPECT_EQ(ch.quantity, Quantity::energy);
    EXPECT_EQ(ch.provenance, Provenance::measured);
    EXPECT_EQ(ch.wrap_joules, k_xcc_wrap_joules);
    EXPECT_NE(ch.source.find("ipmi:xcc in-band /dev/ipmi0"), std::string::npos) << ch.source;
    std::vector<Value> v(1);
    s.read(v);
    EXPECT_EQ(v[0].status, ReadStatus::ok);
    EXPECT_DOUBLE_EQ(v[0].value, 30259.707);
    // The exact request Slurm's xcc plugin sends.
    EXPECT_EQ(m_kernel.sent.back().data, (Bytes{0x04, 0x02, 0x00, 0x00, 0x00}));
}

TEST_F(InBand, DcmiWhenTheBmcIsNoXcc) {
    answer(0x3A, 0x32, k_invalid_command);
    answer(0x2C, 0x01, k_caps_reply);
    answer(0x2C, 0x02, k_dcmi_reply);
    auto d = discover_with();
    ASSERT_EQ(d.sensors.size(), 1U);
    const auto& ch = d.sensors[0]->channels()[0];
    EXPECT_EQ(ch.quantity, Quantity::power);
    EXPECT_EQ(ch.averaging_ns, 1'000'000'000); // "the BMC reports 1 s averages"
    EXPECT_NE(ch.source.find("ipmi:dcmi"), std::string::npos);
    EXPECT_NE(ch.source.find("DCMI 1.5"), std::string::npos);
    EXPECT_GE(d.sensors[0]->min_interval(), std::chrono::seconds{1});
    std::vector<Value> v(1);
    d.sensors[0]->read(v);
    EXPECT_EQ(v[0].status, ReadStatus::ok);
    EXPECT_EQ(v[0].value, 347);
}

TEST_F(InBand, SkipsEventsAndLateRepliesToEarlierRequests) {
    m_kernel.events_first = true;
    m_kernel.stale_reply_first = true;
    answer(0x3A, 0x32, k_xcc_reply);
    auto d = discover_with("xcc");
    ASSERT_EQ(d.sensors.size(), 1U);
    std::vector<Value> v(1);
    d.sensors[0]->read(v);
    EXPECT_EQ(v[0].status, ReadStatus::ok);
    EXPECT_DOUBLE_EQ(v[0].value, 30259.707);
}

TEST_F(InBand, InactiveMeasurementIsNotAReading) {
    answer(0x3A, 0x32, k_invalid_command);
    answer(0x2C, 0x01, k_caps_reply);
    Bytes inactive = k_dcmi_reply;
    inactive.back() = 0x00;
    answer(0x2C, 0x02, inactive);
    auto d = discover_with("dcmi");
    ASSERT_TRUE(d.sensors.empty());
    ASSERT_EQ(d.unreadable.size(), 1U);
    EXPECT_NE(d.unreadable[0].reason.find("not active"), std::string::npos);
}

TEST_F(InBand, PrivilegeRefusalSaysWhatFixesIt) {
    answer(0x3A, 0x32, k_insufficient_privilege);
    answer(0x2C, 0x01, k_insufficient_privilege);
    answer(0x2C, 0x02, k_insufficient_privilege);
    auto d = discover_with("dcmi");
    ASSERT_TRUE(d.sensors.empty());
    ASSERT_EQ(d.unreadable.size(), 1U);
    const auto& f = d.unreadable[0];
    EXPECT_EQ(f.channel, "ipmi.node");
    EXPECT_NE(f.reason.find("insufficient privilege level (0xD4)"), std::string::npos) << f.reason;
    EXPECT_NE(f.hint.find("privilege"), std::string::npos) << f.hint;
    EXPECT_EQ(f.reason.find('\n'), std::string::npos);
}

TEST_F(InBand, SilentBmcTimesOutWithOneLine) {
    auto t = open_device("/dev/ipmi0", std::chrono::milliseconds{20}, &k_fake);
    ASSERT_TRUE(t);
    auto r = (*t)->call(xcc_energy_request()); // nothing scripted: no reply
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message().find("no reply from the BMC within 20 ms"), std::string::npos)
        << r.error().message();
    t->reset();
    EXPECT_EQ(m_kernel.closed, 1);
}

TEST_F(InBand, UnreadableDeviceNamesJouleprofd) {
    m_kernel.open_errno = EACCES;
    auto d = discover_with();
    ASSERT_EQ(d.unreadable.size(), 1U);
    EXPECT_NE(d.unreadable[0].reason.find("/dev/ipmi0"), std::string::npos);
    EXPECT_NE(d.unreadable[0].hint.find("jouleprofd"), std::string::npos);
}

TEST_F(InBand, StaleWhenTheBmcClockStandsStill) {
    answer(0x3A, 0x32, k_xcc_reply); // the same stamp every time
    auto d = discover_with("xcc");
    ASSERT_EQ(d.sensors.size(), 1U);
    auto t = open_device("/dev/ipmi0", std::chrono::milliseconds{20}, &k_fake);
    ASSERT_TRUE(t);
    IpmiSensor s{std::move(*t),
                 Source::xcc,
                 d.sensors[0]->channels()[0],
                 std::chrono::milliseconds{1},
                 std::nullopt,
                 std::chrono::milliseconds{30}};
    std::vector<Value> v(1);
    s.read(v);
    EXPECT_EQ(v[0].status, ReadStatus::ok);
    s.read(v);
    EXPECT_EQ(v[0].status, ReadStatus::ok); // within the window: a slow BMC, not a stale one
    std::this_thread::sleep_for(std::chrono::milliseconds{60});
    s.read(v);
    EXPECT_EQ(v[0].status, ReadStatus::retry);
}

} // namespace
} // namespace jp::sensors::ipmi
