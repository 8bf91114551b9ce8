# SPDX-License-Identifier: BSD-3-Clause
# Compile through ccache where it is installed (JP_CCACHE, ON by default), so a
# second build of the same sources - another clone, another checkout, CI after a
# developer's build on the same machine - reuses the objects instead of
# compiling them again. Paths under the source tree are hashed relative to it
# (CCACHE_BASEDIR) and the build directory is left out of the hash
# (CCACHE_NOHASHDIR), so two clones in different folders share one cache; the
# debug information of a reused object then names the folder that built it first.
# Where ccache is missing, nothing changes. Off: -DJP_CCACHE=OFF.
find_program(JP_CCACHE_PROGRAM ccache)
option(JP_CCACHE "Compile through ccache when it is installed" ON)
if(JP_CCACHE AND JP_CCACHE_PROGRAM AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
    set(_jp_launcher ${CMAKE_COMMAND} -E env CCACHE_BASEDIR=${PROJECT_SOURCE_DIR}
                     CCACHE_NOHASHDIR=1 ${JP_CCACHE_PROGRAM})
    set(CMAKE_C_COMPILER_LAUNCHER ${_jp_launcher})
    set(CMAKE_CXX_COMPILER_LAUNCHER ${_jp_launcher})
    message(STATUS "jouleprof: compiling through ${JP_CCACHE_PROGRAM}")
endif()
