// SPDX-License-Identifier: BSD-3-Clause
#pragma once
#include "trace/sqlite.hpp"

namespace jp::trace {

// Creates every table of schema k_schema_version (documented in docs/trace-format.md).
Result<void> create_schema(Database& db);
// The usage and allocation tables (attribution), made when first written.
Result<void> create_usage_tables(Database& db);
// The read_time table (how long each channel's reads took), made when first written.
Result<void> create_read_time_table(Database& db);
// Checks the file is a jouleprof trace of a version this build reads.
Result<int> check_schema(Database& db);

} // namespace jp::trace
