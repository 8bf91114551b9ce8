// SPDX-License-Identifier: BSD-3-Clause
#pragma once
#include "config/config.hpp"
#include "sensors/host.hpp"
#include "trace/reader.hpp"

#include <cstdio>
#include <filesystem>
#include <vector>

namespace jp::cli {

// `jouleprof sensors [--json]`: every sensor found, its channels, whether it
// can be read and why not. Returns 0.
int list_sensors(const sensors::Host& host, bool json);

// Prints one trace's summary: JSON on stdout, or text on text_out. Returns 0,
// or 1 when the trace cannot be read or summarised.
int print_trace_summary(const std::filesystem::path& trace, bool json, std::FILE* text_out);
// The same for a trace already open (one kept in memory when the disk was full).
int print_trace_summary(trace::Reader& trace, bool json, std::FILE* text_out);

} // namespace jp::cli
