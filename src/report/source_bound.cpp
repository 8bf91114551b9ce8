// SPDX-License-Identifier: BSD-3-Clause
#include "report/source_bound.hpp"

#include "report/window.hpp"

namespace jp::report {

std::optional<Source> source_of(const RunData& d, std::size_t i) {
    const auto& c = (*d.channels)[i];
    if (d.series[i].empty()) {
        return std::nullopt;
    }
    if (c.quantity == Quantity::energy && d.estimated[i].empty()) {
        return Source{i, counter_limits(d, i), std::nullopt};
    }
    if (c.quantity == Quantity::power && c.provenance == Provenance::measured) {
        return Source{i, std::nullopt, field_limits_of(d, i)};
    }
    return std::nullopt;
}

std::optional<Bound> bound_over(const RunData& d, const Source& s, std::int64_t a, std::int64_t b) {
    auto out = s.counter ? counter_bound(d.series[s.channel], a, b, *s.counter)
                         : field_bound(d.series[s.channel], a, b, *s.field);
    // An anchored counter is read at the run's edges only: between them its values follow
    // its power profile.
    if (out && d.profiled[s.channel] && (a != d.t0 || b != d.t1)) {
        out->assumed.profile = true;
    }
    return out;
}

} // namespace jp::report
