# SPDX-License-Identifier: BSD-3-Clause
# What `cmake --install` puts where (GNUInstallDirs, relative to the prefix; the
# Debian packages and the RPM spec install through it, so they agree with it):
#   bin/jouleprof, sbin/jouleprofd, lib*/libjouleprof.so.0 (the C marker API),
#   include/jouleprof/jouleprof.h, lib*/pkgconfig/jouleprof.pc,
#   lib*/cmake/jouleprof/ (find_package(jouleprof): the target jouleprof::jouleprof),
#   the daemon's config (SYSCONFDIR/jouleprof/jouleprofd.toml) and systemd unit
#   (JP_SYSTEMD_UNIT_DIR), the SPANK plugin (src/spank), the Python package
#   (python/), the documentation (DOCDIR).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# pkg-config: Cflags/Libs for the C API, relocatable (the prefix found from the .pc file's
# own folder, so `cmake --install --prefix DIR` anywhere gives a working file).
set(JP_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
if(NOT IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
    file(RELATIVE_PATH jp_pc_up "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
    string(REGEX REPLACE "/$" "" jp_pc_up "${jp_pc_up}")
    set(JP_PC_PREFIX "\${pcfiledir}/${jp_pc_up}")
endif()
foreach(dir LIBDIR INCLUDEDIR)
    if(IS_ABSOLUTE "${CMAKE_INSTALL_${dir}}")
        set(JP_PC_${dir} "${CMAKE_INSTALL_${dir}}")
    else()
        set(JP_PC_${dir} "\${prefix}/${CMAKE_INSTALL_${dir}}")
    endif()
endforeach()
configure_file(${PROJECT_SOURCE_DIR}/packaging/cmake/jouleprof.pc.in
               ${CMAKE_BINARY_DIR}/packaging/jouleprof.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/packaging/jouleprof.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)

# The CMake package: an imported target made relative to where the config file lies.
set(JP_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/jouleprof)
configure_package_config_file(${PROJECT_SOURCE_DIR}/packaging/cmake/jouleprofConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/packaging/jouleprofConfig.cmake
                              INSTALL_DESTINATION ${JP_CMAKE_DIR}
                              PATH_VARS CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/packaging/jouleprofConfigVersion.cmake
                                 COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/packaging/jouleprofConfig.cmake
              ${CMAKE_BINARY_DIR}/packaging/jouleprofConfigVersion.cmake
        DESTINATION ${JP_CMAKE_DIR} COMPONENT dev)

# The daemon: its config (never overwritten by a package upgrade: dpkg's conffile rules)
# and its systemd unit, which names the installed paths: made at configure time for the
# configured prefix (the tests read it), again at install time for the prefix installed to.
set(JP_SYSTEMD_UNIT_DIR "lib/systemd/system" CACHE STRING
    "Where the jouleprofd unit goes, relative to the prefix (or absolute)")
set(JP_UNIT_IN ${PROJECT_SOURCE_DIR}/packaging/jouleprofd.service.in)
configure_file(${JP_UNIT_IN} ${CMAKE_BINARY_DIR}/packaging/jouleprofd.service @ONLY)
set(JP_UNIT_INSTALLED ${CMAKE_BINARY_DIR}/packaging/install/jouleprofd.service)
install(CODE "set(JP_UNIT_IN \"${JP_UNIT_IN}\")
    set(JP_UNIT_OUT \"${JP_UNIT_INSTALLED}\")
    set(JP_SBINDIR \"${CMAKE_INSTALL_SBINDIR}\")
    set(JP_SYSCONFDIR \"${CMAKE_INSTALL_SYSCONFDIR}\")
    set(JP_DOCDIR \"${CMAKE_INSTALL_DOCDIR}\")
    include(\"${PROJECT_SOURCE_DIR}/cmake/InstallUnit.cmake\")" COMPONENT daemon)
install(FILES ${JP_UNIT_INSTALLED} DESTINATION ${JP_SYSTEMD_UNIT_DIR} COMPONENT daemon)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/jouleprofd.toml
        DESTINATION ${CMAKE_INSTALL_SYSCONFDIR}/jouleprof COMPONENT daemon)

# The documentation users are pointed to (error messages and man pages name docs/*.md).
install(FILES README.md LICENSE THIRD_PARTY.md CHANGELOG.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
file(GLOB JP_DOCS ${PROJECT_SOURCE_DIR}/docs/*.md)
install(FILES ${JP_DOCS} DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)
