#include "sensors/hwmon/hwmon.hpp"

namespace jp::sensors::hwmon {

// Placeholder until the backend lands: reports that it is not built yet.
Discovery discover(const Host& /*host*/) {
    Discovery d;
    d.notes.emplace_back("hwmon: backend not implemented yet");
    return d;
}

} // namespace jp::sensors::hwmon
