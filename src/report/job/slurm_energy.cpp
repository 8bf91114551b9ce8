// SPDX-License-Identifier: BSD-3-Clause
// Slurm's own energy for a step, read with `sacct`, to print beside ours.
#include "report/job/format.hpp"
#include "sys/command.hpp"

#include <charconv>
#include <thread>

namespace jp::report::job {
namespace {

// The first line of sacct's output: nullopt when the step has no record yet,
// 0 when its record has no energy (no plugin), else its joules; -1 when it is not a count.
std::optional<double> joules_of(const std::string& out) {
    const auto line = out.substr(0, out.find('\n'));
    if (line.empty()) {
        return std::nullopt;
    }
    std::uint64_t j = 0;
    const auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), j);
    if (ec != std::errc{} || end != line.data() + line.size()) {
        return -1.0;
    }
    return static_cast<double>(j);
}

} // namespace

std::optional<SlurmEnergy> slurm_energy(const JobResult& job, int tries) {
    if (job.job_id.empty() || job.step.empty()) {
        return std::nullopt;
    }
    const auto step = job.job_id + "." + job.step;
    for (int i = 0; i < tries; ++i) {
        if (i > 0) {
            std::this_thread::sleep_for(std::chrono::seconds{1});
        }
        auto out = sys::run_command({"sacct", "--noheader", "--parsable2", "--noconvert", "--jobs",
                                     step, "--format", "ConsumedEnergyRaw"},
                                    std::chrono::seconds{10});
        if (!out) {
            return std::nullopt; // no sacct here
        }
        if (out->exit_code != 0) {
            return std::nullopt; // accounting disabled, or no such job
        }
        const auto j = joules_of(out->out);
        if (j && *j > 0) {
            return SlurmEnergy{*j, step};
        }
        if (j) {
            return std::nullopt; // a record without energy: Slurm has no energy plugin
        }
    }
    return std::nullopt;
}

} // namespace jp::report::job
