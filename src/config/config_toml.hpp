// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The config parser's TOML level, for programs that add tables of their own
// to jouleprof's config (jouleprofd). Kept out of config.hpp: toml++ is large.
#include "config/config.hpp"

#include <span>
#include <string_view>
#include <toml++/toml.h>

namespace jp {

// TOML text to a table; a syntax error names the file and line.
[[nodiscard]] Result<toml::table> parse_toml(std::string_view toml_text, std::string_view origin);
// The jouleprof tables of a parsed file ([node], [carbon], [report],
// [sensors.*], sysfs_root); extra_tables are top-level keys another program
// (jouleprofd) reads itself and that are not errors here.
[[nodiscard]] Result<Config> config_from_table(const toml::table& root,
                                               std::string_view origin,
                                               std::span<const std::string_view> extra_tables);

} // namespace jp
