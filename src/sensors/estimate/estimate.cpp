#include "sensors/estimate/estimate.hpp"

namespace jp::sensors::estimate {

// Placeholder until the backend lands: reports that it is not built yet.
Discovery discover(const Host& /*host*/) {
    Discovery d;
    d.notes.emplace_back("estimate: backend not implemented yet");
    return d;
}

} // namespace jp::sensors::estimate
