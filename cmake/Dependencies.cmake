# SPDX-License-Identifier: BSD-3-Clause
# Every dependency is a Debian package; nothing is downloaded at configure time.
find_package(Threads REQUIRED)
find_package(fmt REQUIRED)
find_package(SQLite3 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(nlohmann_json REQUIRED)
find_package(tomlplusplus REQUIRED)
# Redfish (HTTPS to the BMC) and IPMI 2.0 RMCP+ (HMAC, AES-CBC): their headers only; the
# libraries are loaded with dlopen when such a source is configured (src/CMakeLists.txt).
find_package(CURL REQUIRED)
find_package(OpenSSL REQUIRED)
include(${CMAKE_CURRENT_LIST_DIR}/SelfContained.cmake)
if(JP_BUILD_TESTS)
    find_package(GTest REQUIRED)
endif()
if(JP_BUILD_BENCH)
    find_package(benchmark QUIET)
    if(NOT benchmark_FOUND)
        message(STATUS "jouleprof: Google Benchmark not found, bench/ not built")
    endif()
endif()
