// SPDX-License-Identifier: BSD-3-Clause
#include "data/load_data.hpp"

#include "data/text.hpp"
#include "sys/file.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <map>
#include <optional>

namespace jp::workload {
namespace {

constexpr double k_nan = std::numeric_limits<double>::quiet_NaN();

std::int64_t days_from_civil(int y, unsigned m, unsigned d) {
    using namespace std::chrono;
    return sys_days{year{y} / month{m} / day{d}}.time_since_epoch().count();
}

// `YYYY-MM-DD HH:MM:SS` with an optional `T`, and `Z`, `±HH:MM` or nothing (UTC).
Result<std::int64_t> parse_utc_seconds(std::string_view s, std::string_view where) {
    int y = 0, mo = 0, d = 0, h = 0, mi = 0, se = 0;
    auto bad = [&] {
        return fail(ErrorKind::parse, std::string{where},
                    fmt::format("'{}' is not a time like 2015-01-01 00:00:00+00:00", s));
    };
    if (s.size() < 19 || s[4] != '-' || s[7] != '-' || (s[10] != ' ' && s[10] != 'T') ||
        s[13] != ':' || s[16] != ':' || !parse_int(s.substr(0, 4), y) ||
        !parse_int(s.substr(5, 2), mo) || !parse_int(s.substr(8, 2), d) ||
        !parse_int(s.substr(11, 2), h) || !parse_int(s.substr(14, 2), mi) ||
        !parse_int(s.substr(17, 2), se) || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 ||
        mi > 59 || se > 60) {
        return bad();
    }
    auto rest = s.substr(19);
    if (!rest.empty() && rest.front() == '.') { // fractional seconds: ignored
        const auto end = rest.find_first_not_of("0123456789", 1);
        rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end);
    }
    std::int64_t offset = 0;
    if (rest == "Z" || rest.empty()) {
        offset = 0;
    } else if ((rest.front() == '+' || rest.front() == '-') && rest.size() == 6 && rest[3] == ':') {
        int oh = 0, om = 0;
        if (!parse_int(rest.substr(1, 2), oh) || !parse_int(rest.substr(4, 2), om)) {
            return bad();
        }
        offset = (rest.front() == '-' ? -1 : 1) * (oh * 3600 + om * 60);
    } else {
        return bad();
    }
    const auto days = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
    return days * 86400 + h * 3600 + mi * 60 + se - offset;
}

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
    return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0);
}

} // namespace

std::int64_t hour_of_year_start(int year) {
    return days_from_civil(year, 1, 1) * 24;
}

Result<LoadSeries>
parse_load_csv(std::string_view text, std::string country, std::string_view where) {
    CsvLines lines{text};
    auto header = lines.next();
    if (!header) {
        return fail(ErrorKind::parse, std::string{where}, "empty file");
    }
    if (header->fields.size() < 3 || lower(header->fields[0]) != "start" ||
        lower(header->fields[1]) != "end") {
        return fail(ErrorKind::parse, std::string{where},
                    "the header must be start,end,<load column> (e.g. start,end,load)");
    }
    std::vector<std::pair<std::int64_t, double>> rows; // (second, MW)
    while (auto line = lines.next()) {
        const auto at = fmt::format("{}:{}", where, line->number);
        if (line->fields.size() < 3) {
            return fail(ErrorKind::parse, at, "expected start,end,load");
        }
        auto t = parse_utc_seconds(line->fields[0], at);
        if (!t) {
            return std::unexpected(t.error());
        }
        double mw = k_nan;
        const auto v = sys::trim(line->fields[2]);
        if (!v.empty() && lower(v) != "nan" && !parse_double(v, mw)) {
            return fail(ErrorKind::parse, at, fmt::format("load '{}' is not a number", v));
        }
        if (!rows.empty() && *t <= rows.back().first) {
            return fail(ErrorKind::parse, at, "rows must be in time order with no duplicates");
        }
        rows.emplace_back(*t, mw);
    }
    if (rows.empty()) {
        return fail(ErrorKind::parse, std::string{where}, "no data rows");
    }
    LoadSeries out;
    out.country = std::move(country);
    out.first_hour = floor_div(rows.front().first, 3600);
    const auto last = floor_div(rows.back().first, 3600);
    out.mw.assign(static_cast<std::size_t>(last - out.first_hour + 1), k_nan);
    std::vector<int> count(out.mw.size(), 0);
    for (const auto& [t, mw] : rows) {
        if (std::isnan(mw)) {
            continue;
        }
        const auto i = static_cast<std::size_t>(floor_div(t, 3600) - out.first_hour);
        out.mw[i] = count[i] == 0 ? mw : out.mw[i] + mw;
        ++count[i];
    }
    for (std::size_t i = 0; i < out.mw.size(); ++i) {
        if (count[i] > 1) {
            out.mw[i] /= count[i];
        }
    }
    return out;
}

namespace {

// "fr.csv" and "fr.csv.gz" name country "fr"; anything else is not a load file.
std::optional<std::string> load_file_country(const std::filesystem::path& file) {
    std::string name = file.filename().string();
    for (std::string_view suffix : {".csv", ".csv.gz"}) {
        if (name.size() > suffix.size() && name.ends_with(suffix)) {
            return name.substr(0, name.size() - suffix.size());
        }
    }
    return std::nullopt;
}

} // namespace

Result<LoadSeries> read_load_csv(const std::filesystem::path& path) {
    auto text = read_text(path);
    if (!text) {
        return std::unexpected(text.error());
    }
    auto country = load_file_country(path);
    return parse_load_csv(*text, country ? *country : path.stem().string(), path.string());
}

Result<std::vector<LoadSeries>> read_load_dir(const std::filesystem::path& dir) {
    std::error_code ec;
    std::map<std::string, std::filesystem::path> files; // country -> file, in name order
    for (const auto& e : std::filesystem::directory_iterator{dir, ec}) {
        const auto country = load_file_country(e.path());
        if (!country || !e.is_regular_file()) {
            continue;
        }
        auto [at, added] = files.emplace(*country, e.path());
        if (!added) {
            return fail(ErrorKind::config, dir.string(),
                        fmt::format("country '{}' is given twice ({} and {}): keep one", *country,
                                    at->second.filename().string(), e.path().filename().string()));
        }
    }
    if (ec) {
        return fail(ErrorKind::io, dir.string(), ec.message());
    }
    if (files.empty()) {
        return fail(ErrorKind::not_found, dir.string(),
                    "no <country>.csv or <country>.csv.gz files (start,end,load) in this "
                    "directory");
    }
    std::vector<LoadSeries> out;
    for (const auto& [country, f] : files) {
        auto s = read_load_csv(f);
        if (!s) {
            return std::unexpected(s.error());
        }
        out.push_back(std::move(*s));
    }
    return out;
}

Result<FillCounts> fill_gaps(LoadSeries& s) {
    FillCounts counts;
    const auto n = static_cast<std::ptrdiff_t>(s.mw.size());
    auto usable = [](double v) { return std::isfinite(v) && v != 0.0; };
    const std::vector<double> raw = s.mw; // the next days' values, before cleaning
    for (std::ptrdiff_t i = 0; i < n; ++i) {
        double& v = s.mw[static_cast<std::size_t>(i)];
        if (usable(v)) {
            continue;
        }
        ++(std::isnan(v) ? counts.missing : counts.zeros);
        double sum = 0;
        int used = 0;
        for (int k = 1; k <= 4 && i - 24 * k >= 0; ++k) {
            sum += s.mw[static_cast<std::size_t>(i - 24 * k)]; // cleaned already
            ++used;
        }
        for (int k = 1; used == 0 && k <= 4 && i + 24 * k < n; ++k) {
            if (const double next = raw[static_cast<std::size_t>(i + 24 * k)]; usable(next)) {
                sum += next;
                ++used;
            }
        }
        if (used == 0) {
            return fail(ErrorKind::parse, s.country,
                        fmt::format("hour {} has no reading within 4 days to fill it from",
                                    s.first_hour + i));
        }
        v = sum / used;
    }
    return counts;
}

Result<std::vector<double>> years(const LoadSeries& s, int from_year, int to_year) {
    const auto begin = hour_of_year_start(from_year) - s.first_hour;
    const auto end = hour_of_year_start(to_year + 1) - s.first_hour;
    if (begin < 0 || end > static_cast<std::int64_t>(s.mw.size())) {
        return fail(ErrorKind::config, s.country,
                    fmt::format("the data do not cover {}–{} (UTC) entirely", from_year, to_year));
    }
    return std::vector<double>(s.mw.begin() + begin, s.mw.begin() + end);
}

std::vector<Range> normalise(LoadSet& set) {
    std::vector<Range> ranges;
    for (std::size_t c = 0; c < set.countries.size(); ++c) {
        auto v = set.country(c);
        const auto [lo, hi] = std::ranges::minmax(v);
        ranges.push_back({lo, hi});
        const float span = hi - lo;
        for (float& x : v) {
            x = span > 0 ? (x - lo) / span : 0.0F;
        }
    }
    return ranges;
}

Result<double> mape_percent(std::span<const float> forecast, std::span<const float> reference) {
    if (forecast.size() != reference.size() || forecast.empty()) {
        return fail(
            ErrorKind::config, "MAPE",
            fmt::format("{} forecasts for {} reference values", forecast.size(), reference.size()));
    }
    double sum = 0;
    for (std::size_t i = 0; i < forecast.size(); ++i) {
        if (reference[i] == 0.0F) {
            return fail(ErrorKind::config, "MAPE", "a reference value is 0");
        }
        sum += std::abs(1.0 - static_cast<double>(forecast[i]) / static_cast<double>(reference[i]));
    }
    return 100.0 * sum / static_cast<double>(forecast.size());
}

namespace {

Result<void> append_years(LoadSet& set, const LoadSeries& s, int from, int to) {
    auto v = years(s, from, to);
    if (!v) {
        return std::unexpected(v.error());
    }
    if (set.countries.empty()) {
        set.hours = v->size();
    }
    set.countries.push_back(s.country);
    for (double x : *v) {
        set.values.push_back(static_cast<float>(x));
    }
    return {};
}

} // namespace

Result<LoadSplits> make_splits(std::vector<LoadSeries> series, const SplitYears& y) {
    LoadSplits out;
    for (auto& s : series) {
        auto filled = fill_gaps(s);
        if (!filled) {
            return std::unexpected(filled.error());
        }
        out.filled.push_back(*filled);
        for (auto [set, from, to] :
             {std::tuple{&out.train, y.train_from, y.train_to},
              std::tuple{&out.valid, y.valid, y.valid}, std::tuple{&out.test, y.test, y.test}}) {
            if (auto r = append_years(*set, s, from, to); !r) {
                return std::unexpected(r.error());
            }
        }
    }
    return out;
}

} // namespace jp::workload
