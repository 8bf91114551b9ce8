// SPDX-License-Identifier: BSD-3-Clause
#pragma once
namespace jp::cli {
// The whole command line; returns the process exit status.
int main_entry(int argc, char** argv);
} // namespace jp::cli
