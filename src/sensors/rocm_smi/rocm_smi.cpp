#include "sensors/rocm_smi/rocm_smi.hpp"

namespace jp::sensors::rocm_smi {

// Placeholder until the backend lands: reports that it is not built yet.
Discovery discover(const Host& /*host*/) {
    Discovery d;
    d.notes.emplace_back("rocm_smi: backend not implemented yet");
    return d;
}

} // namespace jp::sensors::rocm_smi
