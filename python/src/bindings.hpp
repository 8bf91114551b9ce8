// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The jouleprof._core extension: measuring (session.cpp) and reading traces
// (trace.cpp). Errors reach Python as FileNotFoundError or jouleprof.TraceError.
#include "core/error.hpp"

#include <pybind11/pybind11.h>
#include <stdexcept>
#include <utility>

namespace jp::python {

// C++ exceptions translated at the boundary (so they may be thrown without the GIL).
struct MissingFile : std::runtime_error {
    using std::runtime_error::runtime_error;
};
struct TraceFailure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Raises the Python exception for a project error: FileNotFoundError for a
// missing file, TraceError (a ValueError) for everything else.
[[noreturn]] void raise(const Error& error);
[[noreturn]] void raise_missing(const std::string& path);

// A result's value, or its error raised as above.
template <class T> T value_or_raise(Result<T> r) {
    if (!r) {
        raise(r.error());
    }
    return std::move(*r);
}

void bind_session(pybind11::module_& m);
void bind_trace(pybind11::module_& m);

} // namespace jp::python
