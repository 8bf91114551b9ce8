#include "sensors/replay/replay.hpp"

namespace jp::sensors::replay {

// Placeholder until the backend lands: reports that it is not built yet.
Discovery discover(const Host& /*host*/) {
    Discovery d;
    d.notes.emplace_back("replay: backend not implemented yet");
    return d;
}

} // namespace jp::sensors::replay
