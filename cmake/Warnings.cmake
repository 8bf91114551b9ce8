# jp_warnings: linked PRIVATE by every first-party target, never by third-party code.
add_library(jp_warnings INTERFACE)
target_compile_options(jp_warnings INTERFACE
    -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion -Wnon-virtual-dtor
    -Wold-style-cast -Wcast-align -Woverloaded-virtual -Wnull-dereference -Wdouble-promotion
    -Wformat=2 -Wimplicit-fallthrough)
if(JP_WARNINGS_AS_ERRORS)
    target_compile_options(jp_warnings INTERFACE -Werror)
endif()
