// SPDX-License-Identifier: BSD-3-Clause
// The compute processes on a GPU through the stand-in NVML (sensors/nvml/processes.hpp):
// the PIDs the driver lists, in the 24-byte entries of most drivers and the 32-byte ones
// R535 drivers write under the same name (nvitop PR #79, go-nvml issue #75), and a layout
// neither: no guess.
#include "sensors/nvml/processes.hpp"
#include "stub_fixture.hpp"

#include <cstdlib>
#include <fstream>
#include <gtest/gtest.h>
#include <unistd.h>

namespace jp::sensors {
namespace {

struct NvmlProcesses : ::testing::Test {
    std::string list = ::testing::TempDir() + "jp-nvml-procs-" + std::to_string(::getpid());
    void SetUp() override { ::setenv("JP_FAKE_NVML_PROCESSES", list.c_str(), 1); }
    void TearDown() override {
        ::unsetenv("JP_FAKE_NVML_PROCESSES");
        ::unsetenv("JP_FAKE_NVML_PROCESS_STRIDE");
        std::remove(list.c_str());
    }
    static std::optional<nvml::Processes> open(std::string& why) {
        Host h;
        h.nvml_library = JP_TEST_STUB_DIR "/libfake-nvidia-ml.so";
        return nvml::Processes::open(h, why);
    }
};

TEST_F(NvmlProcesses, EachGpusPidsInEitherLayout) {
    const test::StubFixture fx{"JP_FAKE_NVML_FIXTURE",
                               "gpu 0 00000000:3B:00.0\ngpu 1 00000000:3C:00.0\n"};
    std::ofstream{list} << "0 101\n1 202\n0 4000000\n0 103\n";
    for (const char* stride : {"24", "32"}) {
        ::setenv("JP_FAKE_NVML_PROCESS_STRIDE", stride, 1);
        std::string why;
        const auto p = open(why);
        ASSERT_TRUE(p) << why;
        EXPECT_EQ(p->gpus(), (std::vector<int>{0, 1}));
        EXPECT_EQ(p->pids(0), (std::vector<pid_t>{101, 4000000, 103})) << stride;
        EXPECT_EQ(p->pids(1), (std::vector<pid_t>{202})) << stride;
        EXPECT_FALSE(p->pids(2)); // no such GPU
        EXPECT_FALSE(p->pids(-1));
    }
    std::ofstream{list} << "";
    std::string why;
    const auto p = open(why);
    ASSERT_TRUE(p) << why;
    EXPECT_EQ(p->pids(0), std::vector<pid_t>{}); // nobody
}

TEST(NvmlProcessLayout, TheBytesWrittenTellTheLayout) {
    std::vector<unsigned char> bytes(5 * 32, nvml::k_unwritten);
    std::fill_n(bytes.begin(), 2 * 24, 0xFF);
    EXPECT_EQ(nvml::entry_stride(bytes, 2), 24U);
    std::fill_n(bytes.begin(), 2 * 32, 0x00);
    EXPECT_EQ(nvml::entry_stride(bytes, 2), 32U);
    EXPECT_FALSE(nvml::entry_stride(bytes, 3)); // 64 bytes for three: neither
    EXPECT_FALSE(nvml::entry_stride(bytes, 0));
}

} // namespace
} // namespace jp::sensors
