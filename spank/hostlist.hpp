// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Slurm's compressed host lists ("node[01-03,7],gpu5"), expanded in order, so
// that a step's node id names its node (SLURM_STEP_NODELIST[node_id]).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jp::spank {

// The names in order; nullopt for a list this parser does not know (several
// bracket groups in one name) or one of over `limit` names.
[[nodiscard]] std::optional<std::vector<std::string>> expand_hostlist(std::string_view list,
                                                                      std::size_t limit = 100000);

} // namespace jp::spank
