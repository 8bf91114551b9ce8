// SPDX-License-Identifier: BSD-3-Clause
// jouleprof._core: the C++ engine for the jouleprof Python package.
#include "bindings.hpp"
#include "core/build_info.hpp"
#include "core/duration.hpp"
#include "jp_version.hpp"

#include <string>

namespace py = pybind11;

namespace jp::python {

void raise(const Error& error) {
    if (error.kind == ErrorKind::not_found) {
        throw MissingFile(error.message());
    }
    throw TraceFailure(error.message());
}

void raise_missing(const std::string& path) {
    throw MissingFile(path + ": no such file");
}

} // namespace jp::python

PYBIND11_MODULE(_core, m) {
    m.doc() = "The jouleprof engine: sensors, sampler, trace writer and reader, summaries.";
    m.attr("__version__") = JP_VERSION;
    m.attr("__commit__") = std::string{jp::build_commit()};
    static PyObject* trace_error =
        PyErr_NewExceptionWithDoc("jouleprof._core.TraceError",
                                  "A trace could not be read or written, or a measurement could "
                                  "not start (the message says which file and why).",
                                  PyExc_ValueError, nullptr);
    m.attr("TraceError") = py::handle(trace_error);
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) {
                std::rethrow_exception(p);
            }
        } catch (const jp::python::MissingFile& e) {
            PyErr_SetString(PyExc_FileNotFoundError, e.what());
        } catch (const jp::python::TraceFailure& e) {
            PyErr_SetString(trace_error, e.what());
        }
    });
    // The CLI's durations ("100ms", "2s") in seconds, with the CLI's words for bad ones.
    m.def(
        "parse_duration",
        [](const std::string& text) {
            auto d = jp::parse_duration(text);
            if (!d) {
                throw py::value_error(d.error().message());
            }
            return static_cast<double>(d->count()) * 1e-9;
        },
        py::arg("text"), "A duration such as '500ms' or '2s', in seconds.");
    jp::python::bind_session(m);
    jp::python::bind_trace(m);
}
