# SPDX-License-Identifier: BSD-3-Clause
# jp_warnings: linked PRIVATE by every first-party target, never by third-party code.
# No -Wnull-dereference: with GCC 12 at -O2 it fires inside libstdc++ and CLI11
# code inlined into ours (false positives the release preset would fail on).
add_library(jp_warnings INTERFACE)
target_compile_options(jp_warnings INTERFACE
    -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion -Wnon-virtual-dtor
    -Wold-style-cast -Wcast-align -Woverloaded-virtual -Wdouble-promotion
    -Wformat=2 -Wimplicit-fallthrough)
# Clang with Debian 12's libstdc++ 12 in C++23: std::stable_sort's own call to
# std::get_temporary_buffer (deprecated in C++23) is reported at our call sites.
if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    target_compile_options(jp_warnings INTERFACE -Wno-deprecated-declarations)
endif()
if(JP_WARNINGS_AS_ERRORS)
    target_compile_options(jp_warnings INTERFACE -Werror)
endif()
