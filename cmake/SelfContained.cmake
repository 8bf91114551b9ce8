# SPDX-License-Identifier: BSD-3-Clause
# The libraries jouleprof's own code links, as interface targets (jp_fmt, jp_toml,
# jp_sqlite) so that one switch picks how they are linked.
#
# JP_SELF_CONTAINED (the release preset): {fmt} and toml++ compiled in from their
# headers, SQLite from its static archive into every executable, and the jouleprof and
# jouleprofd executables with libstdc++ and libgcc linked in too, so that a monitor maps
# only libc, libm and the dynamic loader besides itself. A monitor that stays on for every
# job then keeps fewer resident pages (each shared library is mapped, relocated and faulted
# in whole 64 KiB runs, however little of it a monitor uses) and starts faster
# (docs/overhead.md has the figures). Shared objects (the Python module, the C API) keep the
# shared SQLite: Debian's libsqlite3.a is not position-independent. Sanitizer builds keep
# the shared C++ runtime, whose allocation functions the sanitizers replace.
option(JP_SELF_CONTAINED
       "Compile {fmt} and toml++ in, link SQLite, libstdc++ and libgcc statically into the executables"
       OFF)

add_library(jp_fmt INTERFACE)
add_library(jp_toml INTERFACE)
add_library(jp_sqlite INTERFACE)
if(NOT JP_SELF_CONTAINED)
    target_link_libraries(jp_fmt INTERFACE fmt::fmt)
    target_link_libraries(jp_toml INTERFACE tomlplusplus::tomlplusplus)
    target_link_libraries(jp_sqlite INTERFACE SQLite::SQLite3)
    function(jp_self_contained_executable target)
    endfunction()
    return()
endif()

target_link_libraries(jp_fmt INTERFACE fmt::fmt-header-only)
# Debian's toml++ target links its shared library (TOML_SHARED_LIB); its headers alone
# are the library too (TOML_HEADER_ONLY=1, the default when nothing is defined).
get_target_property(jp_toml_include tomlplusplus::tomlplusplus INTERFACE_INCLUDE_DIRECTORIES)
target_include_directories(jp_toml SYSTEM INTERFACE ${jp_toml_include})
target_compile_definitions(jp_toml INTERFACE TOML_HEADER_ONLY=1)

find_library(JP_SQLITE_ARCHIVE NAMES libsqlite3.a)
if(NOT JP_SQLITE_ARCHIVE)
    message(FATAL_ERROR "JP_SELF_CONTAINED needs SQLite's static archive libsqlite3.a "
                        "(Debian: apt-get install libsqlite3-dev), or -DJP_SELF_CONTAINED=OFF")
endif()
# The archive in executables, the shared library in shared objects (the head target's type).
set(jp_exe "$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>")
target_include_directories(jp_sqlite SYSTEM INTERFACE ${SQLite3_INCLUDE_DIRS})
target_link_libraries(jp_sqlite INTERFACE
    "$<${jp_exe}:${JP_SQLITE_ARCHIVE};m;${CMAKE_DL_LIBS};Threads::Threads>"
    "$<$<NOT:${jp_exe}>:SQLite::SQLite3>")

# Every function and object in a section of its own, so that the link drops what nothing
# uses (the binary's text fell from 6.7 to 4.6 MB) and what a run touches sits closer.
add_compile_options(-ffunction-sections -fdata-sections)

# jouleprof and jouleprofd: the C++ runtime linked in as well, unused sections dropped.
function(jp_self_contained_executable target)
    target_link_options(${target} PRIVATE LINKER:--gc-sections)
    if(NOT JP_SANITIZE)
        target_link_options(${target} PRIVATE -static-libstdc++ -static-libgcc)
    endif()
endfunction()
message(STATUS "jouleprof: self-contained executables (JP_SELF_CONTAINED): {fmt}, toml++, "
               "SQLite (${JP_SQLITE_ARCHIVE}) compiled or linked in")
