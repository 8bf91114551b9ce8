# SPDX-License-Identifier: BSD-3-Clause
# Run at install time (install(CODE) in cmake/Install.cmake): the daemon's systemd unit with
# the paths of this install — `cmake --install --prefix DIR` names DIR's daemon and config,
# not the configured prefix's (DESTDIR, a package's staging folder, is not named).
# In: JP_UNIT_IN, JP_UNIT_OUT, JP_SBINDIR, JP_SYSCONFDIR, JP_DOCDIR (GNUInstallDirs' values).
foreach(dir SBINDIR SYSCONFDIR DOCDIR)
    if(IS_ABSOLUTE "${JP_${dir}}")
        set(CMAKE_INSTALL_FULL_${dir} "${JP_${dir}}")
    else()
        set(CMAKE_INSTALL_FULL_${dir} "${CMAKE_INSTALL_PREFIX}/${JP_${dir}}")
    endif()
endforeach()
configure_file("${JP_UNIT_IN}" "${JP_UNIT_OUT}" @ONLY)
