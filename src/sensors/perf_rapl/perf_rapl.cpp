#include "sensors/perf_rapl/perf_rapl.hpp"

namespace jp::sensors::perf_rapl {

// Placeholder until the backend lands: reports that it is not built yet.
Discovery discover(const Host& /*host*/) {
    Discovery d;
    d.notes.emplace_back("perf_rapl: backend not implemented yet");
    return d;
}

} // namespace jp::sensors::perf_rapl

namespace jp::sensors {
const PerfApi& real_perf_api() noexcept {
    static const PerfApi api{nullptr, nullptr, nullptr};
    return api;
}
} // namespace jp::sensors
