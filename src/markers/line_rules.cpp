// SPDX-License-Identifier: BSD-3-Clause
#include "markers/line_rules.hpp"

#include "core/text.hpp"

#include <fmt/format.h>
#include <utility>

namespace jp::markers {
namespace {

// Whether text can be a NAME template rather than part of the regex.
bool looks_like_name(std::string_view text) {
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '\\') {
            const char next = i + 1 < text.size() ? text[i + 1] : '\0';
            if (next == '\\' || (next >= '1' && next <= '9')) {
                ++i;
                continue;
            }
            return false;
        }
        if (std::string_view{"()[]{}*+?|^$"}.find(c) != std::string_view::npos) {
            return false;
        }
    }
    return true;
}

std::optional<RuleKind> rule_kind(std::string_view text) {
    if (text == "phase") {
        return RuleKind::phase;
    }
    if (auto k = parse_kind(text)) {
        switch (*k) {
        case Kind::begin:
            return RuleKind::begin;
        case Kind::end:
            return RuleKind::end;
        case Kind::point:
            return RuleKind::point;
        }
    }
    return std::nullopt;
}

// A job's output may hold anything: control characters become spaces and
// bytes that are not UTF-8 become U+FFFD, so the name is one printable line.
std::string clean_name(std::string name) {
    for (char& c : name) {
        if (static_cast<unsigned char>(c) < 0x20U || c == 0x7F) {
            c = ' ';
        }
    }
    name = valid_utf8(name);
    for (std::size_t i = 0; i + 1 < name.size(); ++i) { // C1 controls (U+0080..U+009F)
        if (static_cast<unsigned char>(name[i]) == 0xC2U &&
            static_cast<unsigned char>(name[i + 1]) <= 0x9FU) {
            name.replace(i, 2, " ");
        }
    }
    return std::string{truncate_utf8(name, k_max_name)};
}

} // namespace

std::expected<LineRule, std::string> parse_line_rule(std::string_view spec) {
    LineRule rule;
    rule.spec = std::string{spec};
    std::string_view rest = spec;
    if (const auto colon = rest.find(':'); colon != std::string_view::npos) {
        if (auto k = rule_kind(rest.substr(0, colon))) {
            rule.kind = *k;
            rest.remove_prefix(colon + 1);
        }
    }
    if (const auto eq = rest.find('='); eq != std::string_view::npos) {
        const auto name = rest.substr(0, eq);
        if (looks_like_name(name)) {
            if (!name.empty()) {
                rule.name = std::string{name};
            }
            rest.remove_prefix(eq + 1);
        }
    }
    if (rest.empty()) {
        return std::unexpected("'" + rule.spec + "': empty regular expression");
    }
    auto regex = Regex::compile(rest);
    if (!regex) {
        return std::unexpected("'" + rule.spec + "': invalid regular expression: " + regex.error());
    }
    const auto groups = regex->groups();
    if (rule.name) {
        const auto& n = *rule.name;
        for (std::size_t i = 0; i + 1 < n.size(); ++i) {
            if (n[i] == '\\' && n[i + 1] == '\\') {
                ++i;
            } else if (n[i] == '\\' && n[i + 1] >= '1' && n[i + 1] <= '9' &&
                       static_cast<std::size_t>(n[i + 1] - '0') > groups) {
                return std::unexpected(fmt::format("'{}': the name refers to group {} but the "
                                                   "regular expression has {}",
                                                   rule.spec, n[i + 1], groups));
            }
        }
    }
    rule.regex = std::move(*regex);
    return rule;
}

std::string
marker_name(const LineRule& rule, std::string_view line, const std::vector<Regex::Group>& m) {
    const auto text = [&](std::size_t g) {
        return std::string{line.substr(m[g].begin, m[g].end - m[g].begin)};
    };
    std::string out;
    if (!rule.name) {
        out = m.size() > 1 && m[1].matched && m[1].end > m[1].begin ? text(1) : text(0);
        return clean_name(std::move(out));
    }
    const auto& t = *rule.name;
    for (std::size_t i = 0; i < t.size(); ++i) {
        if (t[i] == '\\' && i + 1 < t.size()) {
            const char next = t[i + 1];
            if (next == '\\') {
                out += '\\';
                ++i;
                continue;
            }
            if (next >= '1' && next <= '9') {
                const auto g = static_cast<std::size_t>(next - '0');
                if (g < m.size() && m[g].matched) {
                    out += text(g);
                }
                ++i;
                continue;
            }
        }
        out += t[i];
    }
    return clean_name(std::move(out));
}

LineMarker::LineMarker(std::vector<LineRule> rules, Sink sink) : m_sink(std::move(sink)) {
    for (auto& r : rules) {
        m_rules.push_back(State{std::move(r), std::nullopt});
    }
}

void LineMarker::line(std::string_view text, std::int64_t t_ns) {
    if (text.ends_with('\r')) {
        text.remove_suffix(1);
    }
    const auto s = text.substr(0, k_max_line);
    for (auto& st : m_rules) {
        if (!st.rule.regex.search(s, m_match)) {
            continue;
        }
        auto name = marker_name(st.rule, s, m_match);
        if (name.empty()) {
            continue;
        }
        switch (st.rule.kind) {
        case RuleKind::phase:
            if (st.open) {
                m_sink(Kind::end, t_ns, *std::exchange(st.open, std::nullopt));
            }
            st.open = name;
            m_sink(Kind::begin, t_ns, std::move(name));
            break;
        case RuleKind::begin:
            m_sink(Kind::begin, t_ns, std::move(name));
            break;
        case RuleKind::end:
            m_sink(Kind::end, t_ns, std::move(name));
            break;
        case RuleKind::point:
            m_sink(Kind::point, t_ns, std::move(name));
            break;
        }
    }
}

void LineMarker::finish(std::int64_t t_ns) {
    for (auto& st : m_rules) {
        if (st.open) {
            m_sink(Kind::end, t_ns, *std::exchange(st.open, std::nullopt));
        }
    }
}

} // namespace jp::markers
