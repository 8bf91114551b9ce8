// SPDX-License-Identifier: BSD-3-Clause
#include "daemon/idle_store.hpp"

#include "core/text.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>

namespace jp::daemon {
namespace {

constexpr const char* k_format = "jouleprofd-idle";
constexpr const char* k_what = "idle history";
constexpr std::size_t k_max_channels = 4096;
constexpr std::size_t k_max_means = 100'000; // as many as a window may hold (settings.cpp)
constexpr std::int64_t k_latest_unix_s = std::int64_t{1} << 40; // a saved time beyond: damaged

// A channel is the same one only where all of these agree.
bool same_channel(const nlohmann::json& e, const Channel& c) {
    return e.value("name", "") == c.name && e.value("quantity", "") == to_string(c.quantity) &&
           e.value("backend", "") == c.backend && e.value("device", "") == c.device;
}

bool is_text(const nlohmann::json& j, const char* key) {
    const auto it = j.find(key);
    return it != j.end() && it->is_string() && it->get_ref<const std::string&>().size() <= 4096;
}

std::string age_text(std::int64_t s) {
    return s < 120      ? fmt::format("{} s", s)
           : s < 7200   ? fmt::format("{} min", s / 60)
           : s < 172800 ? fmt::format("{} h", s / 3600)
                        : fmt::format("{} days", s / 86400);
}

Result<std::string> restore_checked(std::string_view text,
                                    IdleLearner& learner,
                                    const std::vector<Channel>& channels,
                                    std::int64_t now_unix_s,
                                    std::vector<AbsentIdle>* absent);

// How many of a window's periods have passed since saved_unix_s (a clock set back: none).
std::size_t periods_since(std::int64_t saved_unix_s,
                          std::int64_t now_unix_s,
                          std::int64_t period_ns,
                          std::size_t capacity) {
    const auto age_s = std::max<std::int64_t>(0, now_unix_s - saved_unix_s);
    const auto missed = static_cast<double>(age_s) * 1e9 / static_cast<double>(period_ns);
    return missed >= static_cast<double>(capacity) ? capacity : static_cast<std::size_t>(missed);
}

// Each period's CPU use, null where unknown (JSON has no NaN).
nlohmann::json busy_json(const std::vector<double>& busy) {
    auto out = nlohmann::json::array();
    for (const double b : busy) {
        out.push_back(std::isfinite(b) ? nlohmann::json(b) : nlohmann::json(nullptr));
    }
    return out;
}

// A channel's "busy": absent (a file from before it was kept), or one CPU use (0..1) or
// null per mean.
bool busy_fits(const nlohmann::json& e, std::size_t means) {
    const auto busy = e.find("busy");
    return busy == e.end() || (busy->is_array() && busy->size() == means &&
                               std::ranges::all_of(*busy, [](const auto& b) {
                                   return b.is_null() ||
                                          (b.is_number() && b.template get<double>() >= 0 &&
                                           b.template get<double>() <= 1);
                               }));
}

// A channel's own "saved_unix_s" (one absent at the last save: when its newest mean was
// taken): absent, or a time within range.
bool saved_fits(const nlohmann::json& e) {
    const auto saved = e.find("saved_unix_s");
    return saved == e.end() || (saved->is_number_integer() && saved->get<std::int64_t>() >= 0 &&
                                saved->get<std::int64_t>() <= k_latest_unix_s);
}

} // namespace

std::string idle_json(const IdleLearner& learner,
                      const std::vector<Channel>& channels,
                      std::int64_t now_unix_s,
                      const std::vector<AbsentIdle>& absent) {
    nlohmann::json j{{"format", k_format},
                     {"version", 1},
                     {"saved_unix_s", now_unix_s},
                     {"period_ns", learner.settings().period.count()},
                     {"channels", nlohmann::json::array()}};
    for (std::size_t i = 0; i < channels.size(); ++i) {
        auto means = learner.means(i);
        if (means.empty()) {
            continue;
        }
        const auto& c = channels[i];
        j["channels"].push_back({{"name", c.name},
                                 {"quantity", to_string(c.quantity)},
                                 {"backend", c.backend},
                                 {"device", c.device},
                                 {"means", std::move(means)},
                                 {"busy", busy_json(learner.busy(i))}});
    }
    // Channels absent now: their newest means that are still inside the window.
    const auto period_ns = learner.settings().period.count();
    for (const auto& a : absent) {
        const auto room = learner.capacity() -
                          periods_since(a.saved_unix_s, now_unix_s, period_ns, learner.capacity());
        const auto keep = std::min(room, a.means.size());
        if (keep == 0 || j["channels"].size() >= k_max_channels) {
            continue;
        }
        const auto from = static_cast<std::ptrdiff_t>(a.means.size() - keep);
        nlohmann::json e{{"name", a.name},
                         {"quantity", a.quantity},
                         {"backend", a.backend},
                         {"device", a.device},
                         {"saved_unix_s", a.saved_unix_s},
                         {"means", std::vector<double>(a.means.begin() + from, a.means.end())}};
        if (a.busy.size() == a.means.size()) {
            e["busy"] = busy_json(std::vector<double>(a.busy.begin() + from, a.busy.end()));
        }
        j["channels"].push_back(std::move(e));
    }
    // A name read from sysfs may hold bytes that are not UTF-8 (a hwmon label): replaced.
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

Result<std::string> restore_idle(std::string_view text,
                                 IdleLearner& learner,
                                 const std::vector<Channel>& channels,
                                 std::int64_t now_unix_s,
                                 std::vector<AbsentIdle>* absent) {
    try {
        return restore_checked(text, learner, channels, now_unix_s, absent);
    } catch (const nlohmann::json::exception& e) { // a field of another type than checked
        return fail(ErrorKind::parse, k_what,
                    fmt::format("not a jouleprofd idle history: {}", one_line(e.what(), 120)));
    }
}

namespace {

// A channel's means (and busy) taken k at a time from the newest, each group's mean one
// mean of a period k times as long; the oldest that make no whole group are dropped. A
// group's use is known only where each of its periods' was.
void combine(nlohmann::json& e, std::size_t k) {
    const auto means = e.at("means").get<std::vector<double>>();
    const auto n = means.size() / k;
    const auto first = means.size() - (n * k);
    const auto busy = e.find("busy");
    auto out_means = nlohmann::json::array();
    auto out_busy = nlohmann::json::array();
    for (std::size_t g = 0; g < n; ++g) {
        double sum = 0;
        double use = 0;
        bool known = true;
        for (std::size_t i = first + (g * k); i < first + ((g + 1) * k); ++i) {
            sum += means[i];
            if (busy != e.end()) {
                const auto& b = (*busy)[i];
                known = known && b.is_number();
                use += b.is_number() ? b.get<double>() : 0.0;
            }
        }
        out_means.push_back(sum / static_cast<double>(k));
        out_busy.push_back(known ? nlohmann::json(use / static_cast<double>(k))
                                 : nlohmann::json(nullptr));
    }
    e["means"] = std::move(out_means);
    if (busy != e.end()) {
        e["busy"] = std::move(out_busy);
    }
}

// Each channel of the file that this node has now goes into the learner (the newest means
// still inside the window), the others into absent (where given). Returns the means taken
// and the channels matched.
std::pair<std::size_t, std::size_t> take_channels(const nlohmann::json& list,
                                                  std::int64_t saved_unix_s,
                                                  std::int64_t now_unix_s,
                                                  IdleLearner& learner,
                                                  const std::vector<Channel>& channels,
                                                  std::vector<AbsentIdle>* absent) {
    const auto period_ns = learner.settings().period.count();
    const auto capacity = learner.capacity();
    const auto busy_of = [](const nlohmann::json& e) {
        std::vector<double> busy;
        if (const auto b = e.find("busy"); b != e.end()) {
            for (const auto& v : *b) {
                busy.push_back(v.is_number() ? v.get<double>()
                                             : std::numeric_limits<double>::quiet_NaN());
            }
        }
        return busy;
    };
    std::size_t taken = 0;
    std::size_t matched = 0;
    std::vector<bool> used(list.size(), false);
    for (std::size_t i = 0; i < channels.size(); ++i) {
        for (std::size_t k = 0; k < list.size(); ++k) {
            const auto& e = list[k];
            if (used[k] || !same_channel(e, channels[i])) {
                continue;
            }
            const auto all = e.at("means").get<std::vector<double>>();
            const auto busy = busy_of(e);
            const auto room = capacity - periods_since(e.value("saved_unix_s", saved_unix_s),
                                                       now_unix_s, period_ns, capacity);
            const auto keep = std::min(room, all.size());
            taken += learner.restore(i, std::span{all}.last(keep),
                                     busy.empty() ? std::span<const double>{}
                                                  : std::span<const double>{busy}.last(keep));
            used[k] = true;
            ++matched;
            break;
        }
    }
    for (std::size_t k = 0; absent != nullptr && k < list.size(); ++k) {
        const auto& e = list[k];
        if (!used[k]) { // not on this node now: kept, for a later start that has it
            absent->push_back({e.at("name").get<std::string>(), e.at("quantity").get<std::string>(),
                               e.at("backend").get<std::string>(),
                               e.at("device").get<std::string>(),
                               e.at("means").get<std::vector<double>>(), busy_of(e),
                               e.value("saved_unix_s", saved_unix_s)});
        }
    }
    return {taken, matched};
}

Result<std::string> restore_checked(std::string_view text,
                                    IdleLearner& learner,
                                    const std::vector<Channel>& channels,
                                    std::int64_t now_unix_s,
                                    std::vector<AbsentIdle>* absent) {
    const auto damaged = [](std::string why) {
        return fail(ErrorKind::parse, k_what,
                    fmt::format("not a jouleprofd idle history: {}", why));
    };
    auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
        return damaged("not a JSON object");
    }
    const auto format = j.find("format");
    const auto version = j.find("version");
    if (format == j.end() || !format->is_string() || *format != k_format || version == j.end() ||
        !version->is_number_integer() || *version != 1) {
        return damaged("another format or version");
    }
    const auto saved = j.find("saved_unix_s");
    const auto period = j.find("period_ns");
    const auto list = j.find("channels");
    if (saved == j.end() || !saved->is_number_integer() || saved->get<std::int64_t>() < 0 ||
        saved->get<std::int64_t>() > k_latest_unix_s || period == j.end() ||
        !period->is_number_integer() || list == j.end() || !list->is_array() ||
        list->size() > k_max_channels) {
        return damaged("saved_unix_s, period_ns or channels missing or out of range");
    }
    for (const auto& e : *list) {
        const auto means = e.is_object() ? e.find("means") : e.end();
        if (!e.is_object() || !is_text(e, "name") || !is_text(e, "quantity") ||
            !is_text(e, "backend") || !is_text(e, "device") || means == e.end() ||
            !means->is_array() || means->size() > k_max_means ||
            !std::ranges::all_of(*means,
                                 [](const auto& m) {
                                     return m.is_number() &&
                                            std::isfinite(m.template get<double>()) &&
                                            m.template get<double>() >= 0;
                                 }) ||
            !busy_fits(e, means->size()) || !saved_fits(e)) {
            return damaged("a channel without a name, quantity, backend, device or means, or "
                           "with a busy list that does not match them");
        }
    }
    const auto period_ns = learner.settings().period.count();
    const auto file_period_ns = period->get<std::int64_t>();
    std::string combined;
    if (file_period_ns != period_ns) {
        // A whole number of the file's periods make one of ours: their means (of equal
        // spans) average into ours. Otherwise the file is not this learner's.
        if (file_period_ns <= 0 || period_ns % file_period_ns != 0) {
            return fail(ErrorKind::unsupported, k_what,
                        fmt::format("learned over periods of {:g} s, not {:g} s",
                                    static_cast<double>(file_period_ns) * 1e-9,
                                    static_cast<double>(period_ns) * 1e-9));
        }
        const auto k = static_cast<std::size_t>(period_ns / file_period_ns);
        for (auto& e : *list) {
            combine(e, k);
        }
        combined = fmt::format(" (learned over periods of {:g} s: every {} combined into one of "
                               "{:g} s)",
                               static_cast<double>(file_period_ns) * 1e-9, k,
                               static_cast<double>(period_ns) * 1e-9);
    }
    // The daemon was down since the file was written: that many periods were not seen, and
    // the oldest means have left the window meanwhile (counted for each channel from when
    // its newest mean was taken). A clock set back counts as no time.
    const auto age_s = std::max<std::int64_t>(0, now_unix_s - saved->get<std::int64_t>());
    const auto [taken, matched] =
        take_channels(*list, saved->get<std::int64_t>(), now_unix_s, learner, channels, absent);
    return fmt::format(
        "idle history: {} means of {} channel{} taken from a file written {} ago{}{}", taken,
        matched, matched == 1 ? "" : "s", age_text(age_s), combined,
        list->size() > matched
            ? fmt::format("; {} channel{} not on this node now{}", list->size() - matched,
                          list->size() - matched == 1 ? "" : "s",
                          absent != nullptr ? " (kept in the file until their means leave the "
                                              "window)"
                                            : "")
            : std::string{});
}

} // namespace

std::optional<std::int64_t> idle_file_period(std::string_view text) {
    const auto j = nlohmann::json::parse(text, nullptr, false);
    const auto p = j.is_object() ? j.find("period_ns") : j.end();
    if (!j.is_object() || p == j.end() || !p->is_number_integer() || p->get<std::int64_t>() <= 0) {
        return std::nullopt;
    }
    return p->get<std::int64_t>();
}

std::string idle_file_for(std::int64_t period_ns) {
    return fmt::format("idle-history.{}ns.json", period_ns);
}

} // namespace jp::daemon
