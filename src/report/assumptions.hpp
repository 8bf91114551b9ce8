// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What a bound rests on beyond a sensor's stated limits (docs/uncertainty.md). A figure
// made of several bounded ones rests on all that theirs do: |= them.

namespace jp::report {

struct Assumptions {
    // The most the domain can draw is twice the highest power seen: its sensor states none.
    bool peak = false;
    // A window that ends between an anchored counter's reads (report/anchored.hpp): its
    // energy there follows the counter's power profile, so the bound holds if the profile's
    // shape does; only the counter's reads bound it otherwise.
    bool profile = false;
    // A power field's instantaneous readings (report/field_bound.hpp): the power between two
    // neighbouring readings stayed between their values.
    bool field = false;
    // A power field's averaged readings whose own-lag guarantee says nothing useful: each
    // reading's window follows the one before (all lag alike).
    bool windows = false;

    constexpr Assumptions& operator|=(const Assumptions& o) noexcept {
        peak = peak || o.peak;
        profile = profile || o.profile;
        field = field || o.field;
        windows = windows || o.windows;
        return *this;
    }
    [[nodiscard]] friend constexpr Assumptions operator|(Assumptions a,
                                                         const Assumptions& b) noexcept {
        return a |= b;
    }
    [[nodiscard]] constexpr bool any() const noexcept {
        return peak || profile || field || windows;
    }
    friend constexpr bool operator==(const Assumptions&, const Assumptions&) = default;
};

} // namespace jp::report
