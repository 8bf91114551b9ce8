# SPDX-License-Identifier: BSD-3-Clause
# The man pages, generated at build time from one source each (scripts/man.py):
# jouleprof(1) and jouleprofd(8) from the built programs' own --help (every
# subcommand's), jouleprof.toml(5) and jouleprofd.toml(5) from the shipped
# annotated example configs. Installed to MANDIR; skipped without python3.
find_program(JP_PYTHON3 python3)
if(NOT JP_PYTHON3)
    message(STATUS "jouleprof man pages: skipped (no python3)")
    return()
endif()
set(JP_MAN_DIR ${CMAKE_BINARY_DIR}/man)
set(JP_MAN_SCRIPT ${PROJECT_SOURCE_DIR}/scripts/man.py)
set(jp_man_pages)
foreach(page "jouleprof;1;cli" "jouleprofd;8;daemon")
    list(GET page 0 program)
    list(GET page 1 section)
    list(GET page 2 component)
    add_custom_command(OUTPUT ${JP_MAN_DIR}/${program}.${section}
                       COMMAND ${CMAKE_COMMAND} -E make_directory ${JP_MAN_DIR}
                       COMMAND ${CMAKE_COMMAND} -E env JP_MAN_DOCDIR=${CMAKE_INSTALL_FULL_DOCDIR}
                               ${JP_PYTHON3} ${JP_MAN_SCRIPT} program $<TARGET_FILE:${program}> ${section}
                               ${JP_MAN_DIR}/${program}.${section}
                       DEPENDS ${program} ${JP_MAN_SCRIPT} VERBATIM)
    install(FILES ${JP_MAN_DIR}/${program}.${section} DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section}
            COMPONENT ${component})
    list(APPEND jp_man_pages ${JP_MAN_DIR}/${program}.${section})
endforeach()
foreach(config jouleprof jouleprofd)
    set(component cli)
    if(config STREQUAL "jouleprofd")
        set(component daemon)
    endif()
    add_custom_command(OUTPUT ${JP_MAN_DIR}/${config}.toml.5
                       COMMAND ${CMAKE_COMMAND} -E make_directory ${JP_MAN_DIR}
                       COMMAND ${JP_PYTHON3} ${JP_MAN_SCRIPT} config ${config}.toml 5
                               ${PROJECT_SOURCE_DIR}/packaging/${config}.toml ${JP_MAN_DIR}/${config}.toml.5
                       DEPENDS ${PROJECT_SOURCE_DIR}/packaging/${config}.toml ${JP_MAN_SCRIPT} VERBATIM)
    install(FILES ${JP_MAN_DIR}/${config}.toml.5 DESTINATION ${CMAKE_INSTALL_MANDIR}/man5
            COMPONENT ${component})
    list(APPEND jp_man_pages ${JP_MAN_DIR}/${config}.toml.5)
endforeach()
add_custom_target(jp_man_pages ALL DEPENDS ${jp_man_pages})
