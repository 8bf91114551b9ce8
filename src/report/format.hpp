#pragma once
// Text and JSON forms of summaries.
#include "report/summary.hpp"

#include <nlohmann/json.hpp>
#include <string>

namespace jp::report {

// The study's form: energy in kJ, power in W, runtime hh:mm:ss; mean ± std with repeats.
[[nodiscard]] std::string format_text(const std::vector<RepeatSummary>& summaries,
                                      const NodeFacts& facts);
[[nodiscard]] nlohmann::json to_json(const std::vector<RepeatSummary>& summaries,
                                     const NodeFacts& facts);

} // namespace jp::report
