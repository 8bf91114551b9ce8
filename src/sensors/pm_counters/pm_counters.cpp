#include "sensors/pm_counters/pm_counters.hpp"

namespace jp::sensors::pm_counters {

// Placeholder until the backend lands: reports that it is not built yet.
Discovery discover(const Host& /*host*/) {
    Discovery d;
    d.notes.emplace_back("pm_counters: backend not implemented yet");
    return d;
}

} // namespace jp::sensors::pm_counters
