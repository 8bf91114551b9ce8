# SPDX-License-Identifier: BSD-3-Clause
# The kernel sampler (src/bpf/, docs/kernel-sampling.md): tick.bpf.c compiled with clang's
# BPF target, made into a libbpf skeleton by bpftool, linked with libbpf (LGPL-2.1 OR
# BSD-2-Clause). Debian: libbpf-dev, bpftool, clang (any version with the BPF target).
set(JP_BPF "AUTO" CACHE STRING
    "The eBPF kernel sampler: AUTO (built where libbpf, bpftool and clang are found), ON (required), OFF")
set_property(CACHE JP_BPF PROPERTY STRINGS AUTO ON OFF)

set(jp_bpf_sources ${PROJECT_SOURCE_DIR}/src/bpf/ring_size.cpp)
set(jp_bpf_ok OFF)
if(NOT JP_BPF STREQUAL "OFF")
    find_package(PkgConfig QUIET)
    if(PkgConfig_FOUND)
        pkg_check_modules(LIBBPF QUIET IMPORTED_TARGET libbpf>=1.0)
    endif()
    find_program(JP_BPFTOOL bpftool PATHS /usr/sbin /sbin)
    find_program(JP_BPF_CLANG NAMES clang-19 clang-18 clang-17 clang-16 clang-15 clang-14 clang)
    if(LIBBPF_FOUND AND JP_BPFTOOL AND JP_BPF_CLANG)
        set(jp_bpf_ok ON)
    elseif(JP_BPF STREQUAL "ON")
        message(FATAL_ERROR "JP_BPF=ON: libbpf (${LIBBPF_FOUND}), bpftool (${JP_BPFTOOL}) and clang (${JP_BPF_CLANG}) are all needed")
    else()
        message(STATUS "jouleprof: the eBPF kernel sampler is not built (libbpf-dev, bpftool and clang are needed); counters are read from a timer")
    endif()
endif()

if(jp_bpf_ok)
    set(jp_bpf_gen ${CMAKE_BINARY_DIR}/generated/bpf)
    set(jp_bpf_arch_include /usr/include/${CMAKE_LIBRARY_ARCHITECTURE})
    add_custom_command(
        OUTPUT ${jp_bpf_gen}/tick.skel.h
        COMMAND ${CMAKE_COMMAND} -E make_directory ${jp_bpf_gen}
        COMMAND ${JP_BPF_CLANG} -target bpf -O2 -g -Wall -Werror
                # The object is embedded in the executables: its debug information (BTF needs
                # -g) names no folder of the build machine (tests/install checks).
                -ffile-prefix-map=${CMAKE_BINARY_DIR}/= -ffile-prefix-map=${PROJECT_SOURCE_DIR}/=
                -I${PROJECT_SOURCE_DIR}/src -I${jp_bpf_arch_include}
                -c ${PROJECT_SOURCE_DIR}/src/bpf/tick.bpf.c -o ${jp_bpf_gen}/tick.bpf.o
        COMMAND ${JP_BPFTOOL} gen skeleton ${jp_bpf_gen}/tick.bpf.o name jp_tick > ${jp_bpf_gen}/tick.skel.h
        DEPENDS ${PROJECT_SOURCE_DIR}/src/bpf/tick.bpf.c ${PROJECT_SOURCE_DIR}/src/bpf/tick_record.h
        COMMENT "eBPF: the kernel sampler's program and its skeleton"
        VERBATIM)
    add_custom_target(jp_bpf_skeleton DEPENDS ${jp_bpf_gen}/tick.skel.h)
    # The skeleton is libbpf's generated C: compiled apart (tick_skel.c), with C warnings only,
    # and not linted; the loader sees it through tick_skel.h.
    add_library(jp_bpf_skel OBJECT ${PROJECT_SOURCE_DIR}/src/bpf/tick_skel.c)
    target_include_directories(jp_bpf_skel PRIVATE ${PROJECT_SOURCE_DIR}/src)
    target_include_directories(jp_bpf_skel SYSTEM PRIVATE ${jp_bpf_gen} ${LIBBPF_INCLUDE_DIRS})
    target_compile_options(jp_bpf_skel PRIVATE -Wall -Wextra $<$<BOOL:${JP_WARNINGS_AS_ERRORS}>:-Werror>)
    target_link_libraries(jp_bpf_skel PRIVATE jp_settings)
    add_dependencies(jp_bpf_skel jp_bpf_skeleton)
    list(APPEND jp_bpf_sources ${PROJECT_SOURCE_DIR}/src/bpf/kernel_sampler.cpp
                               $<TARGET_OBJECTS:jp_bpf_skel>)
    message(STATUS "jouleprof: the eBPF kernel sampler is built (${JP_BPF_CLANG}, ${JP_BPFTOOL})")
else()
    list(APPEND jp_bpf_sources ${PROJECT_SOURCE_DIR}/src/bpf/kernel_sampler_none.cpp)
endif()
add_library(jp_bpf STATIC ${jp_bpf_sources})
jp_module(jp_bpf)
target_link_libraries(jp_bpf PUBLIC jp_core)
if(jp_bpf_ok)
    add_dependencies(jp_bpf jp_bpf_skeleton)
    # Shared, in every build (JP_SELF_CONTAINED too): libelf, which libbpf needs, is LGPL, and
    # Debian's archives are not position-independent. A monitor with the kernel sampler maps
    # libbpf, libelf and zlib besides libc (docs/kernel-sampling.md).
    target_link_libraries(jp_bpf PRIVATE PkgConfig::LIBBPF)
    target_compile_definitions(jp_bpf PUBLIC JP_HAVE_BPF=1)
endif()
# The fallback of a build without the kernel sampler, compiled (not linked) wherever the
# sampler is built, so that CI, which always builds the sampler, keeps it compiling.
if(jp_bpf_ok)
    add_library(jp_bpf_none_check OBJECT ${PROJECT_SOURCE_DIR}/src/bpf/kernel_sampler_none.cpp)
    jp_module(jp_bpf_none_check)
    target_link_libraries(jp_bpf_none_check PRIVATE jp_core)
endif()
