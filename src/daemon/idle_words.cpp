// SPDX-License-Identifier: BSD-3-Clause
// How the idle learner's settings and each learned value are said in words (daemon/idle.hpp):
// the `how` of the channels reply, the /metrics HELP, a client's method line.
#include "daemon/idle.hpp"

#include <fmt/format.h>

namespace jp::daemon {

namespace {

// "24 h", "1 min", "200 ms": a setting's span in its largest whole unit.
std::string span_text(Nanos d) {
    const auto ns = d.count();
    for (const auto& [unit, size] :
         {std::pair{"h", 3'600'000'000'000LL}, std::pair{"min", 60'000'000'000LL},
          std::pair{"s", 1'000'000'000LL}}) {
        if (ns >= size && ns % size == 0) {
            return fmt::format("{} {}", ns / size, unit);
        }
    }
    return fmt::format("{:g} ms", static_cast<double>(ns) * 1e-6);
}

} // namespace

std::string describe(const IdleSettings& s) {
    const int p = static_cast<int>(s.percentile);
    const char* suffix = p % 100 >= 11 && p % 100 <= 13 ? "th"
                         : p % 10 == 1                  ? "st"
                         : p % 10 == 2                  ? "nd"
                         : p % 10 == 3                  ? "rd"
                                                        : "th";
    return fmt::format("the {}{} percentile of {} means over up to {}", p, suffix,
                       span_text(s.period), span_text(s.window));
}

std::string_view to_string(IdleBasis b) {
    switch (b) {
    case IdleBasis::quiet:
        return "quiet";
    case IdleBasis::extrapolated:
        return "extrapolated";
    case IdleBasis::busy:
        return "busy";
    case IdleBasis::all:
        break;
    }
    return "all";
}

std::string describe(const IdleSettings& s, const LearnedIdle& learned) {
    const auto least = learned.least_busy
                           ? fmt::format("; least {:.0f} %", *learned.least_busy * 100)
                           : std::string{};
    const char* what = learned.by == IdleUse::gpu             ? "GPU"
                       : learned.by == IdleUse::cpus_and_gpus ? "CPUs and GPUs"
                                                              : "CPUs";
    switch (learned.basis) {
    case IdleBasis::quiet:
        return fmt::format("{}, of the {} quiet ones ({} <= {} % busy)", describe(s),
                           learned.periods, what, s.quiet_busy_percent);
    case IdleBasis::extrapolated:
        return fmt::format("extrapolated to an idle {} from {} means over up to {} (too few <= "
                           "{} % busy{})",
                           learned.by == IdleUse::gpu ? "GPU" : "node", span_text(s.period),
                           span_text(s.window), s.quiet_busy_percent, least);
    case IdleBasis::busy:
        return fmt::format("{}; too few with the {} <= {} % busy{}: may be above idle", describe(s),
                           what, s.quiet_busy_percent, least);
    case IdleBasis::all:
        break;
    }
    return describe(s);
}

} // namespace jp::daemon
