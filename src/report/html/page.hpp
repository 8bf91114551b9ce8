// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The HTML report's fixed parts: its stylesheet and its small script (run
// selector, a cursor on the profiles that reads out the fraction of runtime).
// Both are inlined into the page; neither loads anything.
#include <string_view>

namespace jp::report::html {

[[nodiscard]] std::string_view page_style();
// Adds <div id="jp-ready" hidden> to the body once it has run without error
// (the browser test looks for it).
[[nodiscard]] std::string_view page_script();

} // namespace jp::report::html
