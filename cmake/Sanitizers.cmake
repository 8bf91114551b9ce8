# SPDX-License-Identifier: BSD-3-Clause
# JP_SANITIZE is a ;-list such as "address;undefined" or "thread".
add_library(jp_settings INTERFACE)
target_compile_features(jp_settings INTERFACE cxx_std_23)
if(JP_SANITIZE)
    list(JOIN JP_SANITIZE "," _jp_san)
    target_compile_options(jp_settings INTERFACE -fsanitize=${_jp_san} -fno-omit-frame-pointer
                                                 -fno-sanitize-recover=all)
    target_link_options(jp_settings INTERFACE -fsanitize=${_jp_san})
endif()
