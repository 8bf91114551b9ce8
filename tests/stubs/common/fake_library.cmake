# SPDX-License-Identifier: BSD-3-Clause
# Shared by the stand-in vendor libraries (included by path: this folder has no
# CMakeLists.txt of its own). jp_fake_library(<target> <output> <source> [<libraries>...])
# builds ${CMAKE_BINARY_DIR}/tests/stubs/lib<output>.so from <source>, with this folder on its
# include path, and makes the unit tests that load it depend on it.
set(JP_FAKE_COMMON_DIR ${CMAKE_CURRENT_LIST_DIR})

function(jp_fake_library target output source)
    add_library(${target} SHARED ${source})
    set_target_properties(${target} PROPERTIES
        OUTPUT_NAME ${output}
        LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests/stubs
        CXX_VISIBILITY_PRESET hidden  # only the JP_FAKE_EXPORT entry points are exported
        VISIBILITY_INLINES_HIDDEN ON)
    target_include_directories(${target} PRIVATE ${JP_FAKE_COMMON_DIR})
    target_link_libraries(${target} PRIVATE jp_settings jp_warnings ${ARGN})
    if(TARGET unit_sensors)
        add_dependencies(unit_sensors ${target})
    endif()
endfunction()
