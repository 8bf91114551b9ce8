// SPDX-License-Identifier: BSD-3-Clause
#include "markers/protocol.hpp"

#include "core/text.hpp"

#include <charconv>

namespace jp::markers {

std::string_view to_string(Kind kind) noexcept {
    switch (kind) {
    case Kind::begin:
        return "begin";
    case Kind::end:
        return "end";
    case Kind::point:
        return "point";
    }
    return "point";
}

std::optional<Kind> parse_kind(std::string_view text) noexcept {
    for (Kind k : {Kind::begin, Kind::end, Kind::point}) {
        if (text == to_string(k)) {
            return k;
        }
    }
    return std::nullopt;
}

const char* name_problem(std::string_view name) noexcept {
    if (name.empty()) {
        return "the name is empty";
    }
    if (name.size() > k_max_name) {
        return "the name is longer than 200 bytes";
    }
    if (name.find_first_of(std::string_view{"\n\r\0", 3}) != std::string_view::npos) {
        return "the name contains a newline, carriage return or NUL";
    }
    if (text_problem(name) != nullptr) {
        return "the name contains a control character or is not valid UTF-8";
    }
    return nullptr;
}

std::string format_message(Kind kind, std::int64_t t_mono_ns, std::string_view name) {
    std::string out = "jp1 ";
    out += to_string(kind);
    out += ' ';
    out += std::to_string(t_mono_ns);
    out += ' ';
    out += name;
    return out;
}

std::expected<Message, std::string> parse_message(std::string_view d) {
    constexpr std::string_view magic = "jp1 ";
    if (!d.starts_with(magic)) {
        return std::unexpected("not a jp1 marker message");
    }
    d.remove_prefix(magic.size());
    const auto kind_end = d.find(' ');
    if (kind_end == std::string_view::npos) {
        return std::unexpected("no timestamp");
    }
    const auto kind = parse_kind(d.substr(0, kind_end));
    if (!kind) {
        return std::unexpected("the kind is not begin, end or point");
    }
    d.remove_prefix(kind_end + 1);
    const auto t_end = d.find(' ');
    if (t_end == std::string_view::npos) {
        return std::unexpected("no name");
    }
    std::int64_t t = 0;
    const auto digits = d.substr(0, t_end);
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), t);
    if (ec != std::errc{} || ptr != digits.data() + digits.size() || t < 0 || digits.empty()) {
        return std::unexpected("bad timestamp");
    }
    const auto name = d.substr(t_end + 1);
    if (const char* problem = name_problem(name)) {
        return std::unexpected(problem);
    }
    return Message{*kind, t, std::string{name}};
}

std::string_view truncate_utf8(std::string_view text, std::size_t max) noexcept {
    if (text.size() <= max) {
        return text;
    }
    std::size_t n = max;
    // Step back over continuation bytes (10xxxxxx) so no sequence is split.
    while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0U) == 0x80U) {
        --n;
    }
    return text.substr(0, n);
}

} // namespace jp::markers
