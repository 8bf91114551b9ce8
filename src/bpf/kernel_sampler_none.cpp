// SPDX-License-Identifier: BSD-3-Clause
// The kernel sampler in a build without libbpf, bpftool or clang's BPF target: start()
// says so, and callers read their counters from a timer.
#include "bpf/kernel_sampler.hpp"

namespace jp::bpf {

struct KernelSampler::State {};

bool built_in() noexcept {
    return false;
}

KernelSampler::KernelSampler(std::unique_ptr<State> state) : m_state(std::move(state)) {}

KernelSampler::~KernelSampler() = default;

std::expected<std::unique_ptr<KernelSampler>, std::string>
KernelSampler::start(std::span<const CounterSpec> /*counters*/, const Options& /*options*/) {
    return std::unexpected(std::string{
        "this jouleprof was built without the eBPF kernel sampler (libbpf-dev, bpftool and "
        "clang were not all found at build time; JP_BPF)"});
}

std::expected<void, std::string> KernelSampler::set_period(std::int64_t /*period_ns*/) {
    return std::unexpected(std::string{"built without the eBPF kernel sampler"});
}

void KernelSampler::stop() noexcept {}

void KernelSampler::drain(std::vector<Reading>& /*out*/, std::vector<std::uint64_t>& lost_out) {
    lost_out.clear();
}

std::int64_t KernelSampler::period_ns() const noexcept {
    return 0;
}

std::size_t KernelSampler::ring_bytes() const noexcept {
    return 0;
}

ProgramStats KernelSampler::stats() const {
    return {};
}

} // namespace jp::bpf
