// SPDX-License-Identifier: BSD-3-Clause
#include "cli/app.hpp"

#include <cstdio>
#include <exception>

int main(int argc, char** argv) {
    try {
        return jp::cli::main_entry(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "jouleprof: error: %s\n", e.what());
        return 2;
    }
}
