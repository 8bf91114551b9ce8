#include "sensors/nvml/nvml.hpp"

namespace jp::sensors::nvml {

// Placeholder until the backend lands: reports that it is not built yet.
Discovery discover(const Host& /*host*/) {
    Discovery d;
    d.notes.emplace_back("nvml: backend not implemented yet");
    return d;
}

} // namespace jp::sensors::nvml
