# SPDX-License-Identifier: BSD-3-Clause
# JP_SANITIZE is a ;-list such as "address;undefined" or "thread".
add_library(jp_settings INTERFACE)
target_compile_features(jp_settings INTERFACE cxx_std_23)
if(JP_SANITIZE)
    list(JOIN JP_SANITIZE "," _jp_san)
    target_compile_options(jp_settings INTERFACE -fsanitize=${_jp_san} -fno-omit-frame-pointer
                                                 -fno-sanitize-recover=all)
    target_link_options(jp_settings INTERFACE -fsanitize=${_jp_san})
    # UBSan's check sites hold ~3.4 million pointers in a sanitized jouleprof (93 MB of .data).
    # As a position-independent executable each of them is relocated, and its page written, at
    # every start: 0.65 s before main. Linked at a fixed address, nothing is relocated and a
    # start takes 0.3 s, which the suite's ~1,000 test processes and the commands they run pay
    # each time (docs/ci.md). Shared libraries and modules stay position-independent, and
    # the sanitizers that need a position-independent executable (thread, memory) keep it.
    if(NOT "thread" IN_LIST JP_SANITIZE AND NOT "memory" IN_LIST JP_SANITIZE)
        target_link_options(jp_settings INTERFACE
                            $<$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>:-no-pie>)
    endif()
endif()
