// SPDX-License-Identifier: BSD-3-Clause
// jouleprof._core.TraceFile: a trace's meta, channels, runs, markers and
// samples (numpy arrays), and `jouleprof report --json` over it.
#include "bindings.hpp"
#include "report/format.hpp"
#include "report/html/fragment.hpp"
#include "trace/reader.hpp"
#include "window.hpp"

#include <filesystem>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

namespace py = pybind11;

namespace jp::python {
namespace {

template <class T> py::object opt(const std::optional<T>& v) {
    return v ? py::cast(*v) : py::none();
}

py::dict channel_dict(const Channel& c) {
    py::dict d;
    d["name"] = c.name;
    d["domain"] = std::string{to_string(c.domain)};
    d["quantity"] = std::string{to_string(c.quantity)};
    d["unit"] = std::string{unit_of(c.quantity)};
    d["provenance"] = std::string{to_string(c.provenance)};
    d["backend"] = c.backend;
    d["source"] = c.source;
    d["counted"] = c.counted;
    d["parent"] = c.parent;
    return d;
}

py::dict run_dict(const trace::RunInfo& r) {
    py::dict d;
    d["id"] = r.id;
    d["label"] = r.label;
    d["kind"] = r.kind;
    d["repeat"] = r.repeat;
    d["command"] = r.command;
    d["start_ns"] = r.start_ns;
    d["end_ns"] = opt(r.end_ns);
    d["start_utc"] = r.start_utc;
    d["exit_code"] = opt(r.exit_code);
    d["signal"] = opt(r.signal);
    d["monitor_cpu_s"] = r.monitor_cpu_s;
    d["status"] = r.status;
    return d;
}

class TraceFile {
public:
    explicit TraceFile(const std::string& path) : m_reader(open(path)) {}

    [[nodiscard]] py::dict info() const {
        py::dict d;
        d["path"] = m_reader.path().string();
        d["version"] = m_reader.version();
        py::dict meta;
        for (const auto& [k, v] : m_reader.meta()) {
            meta[py::str(k)] = v;
        }
        d["meta"] = meta;
        py::list channels;
        for (const auto& c : m_reader.channels()) {
            channels.append(channel_dict(c));
        }
        d["channels"] = channels;
        py::list runs;
        for (const auto& r : m_reader.runs()) {
            runs.append(run_dict(r));
        }
        d["runs"] = runs;
        return d;
    }

    py::list markers(std::int64_t run_id) {
        py::list out;
        for (const auto& m : value(m_reader.markers(run_id))) {
            out.append(py::make_tuple(m.t_ns, m.kind, m.name));
        }
        return out;
    }

    py::tuple samples(std::int64_t run_id, std::size_t channel) {
        if (channel >= m_reader.channels().size()) {
            throw py::index_error("no channel " + std::to_string(channel));
        }
        trace::ChannelSamples s;
        {
            py::gil_scoped_release unlocked;
            s = value(m_reader.samples(run_id, channel));
        }
        const auto n = static_cast<py::ssize_t>(s.points.size());
        py::array_t<std::int64_t> t(n);
        py::array_t<double> v(n);
        py::array_t<std::uint8_t> f(n);
        auto tm = t.mutable_unchecked<1>();
        auto vm = v.mutable_unchecked<1>();
        auto fm = f.mutable_unchecked<1>();
        for (py::ssize_t i = 0; i < n; ++i) {
            const auto k = static_cast<std::size_t>(i);
            tm(i) = s.points[k].t_ns;
            vm(i) = s.points[k].value;
            fm(i) = k < s.flags.size() ? s.flags[k] : 0;
        }
        return py::make_tuple(t, v, f);
    }

    // What `jouleprof report --json TRACE` prints (without a config).
    [[nodiscard]] std::string report_json() const {
        const std::vector<std::filesystem::path> paths{m_reader.path()};
        nlohmann::json j;
        {
            py::gil_scoped_release unlocked;
            auto groups = value(report::summarize_traces(paths));
            j = report::to_json(groups, report::FormatOptions{});
        }
        const std::vector<report::TraceSelection> whole{{m_reader.path(), std::nullopt}};
        j.update(report::inputs_json(whole));
        return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }

    // One run as the notebook's HTML fragment: table, profile, phases.
    std::string html(std::int64_t run_id) {
        py::gil_scoped_release unlocked;
        for (const auto& run : m_reader.runs()) {
            if (run.id == run_id) {
                auto s = value(report::summarize_run(m_reader, run));
                return value(report::run_fragment(m_reader, s));
            }
        }
        throw py::value_error("no run " + std::to_string(run_id));
    }

    // A span of a run (a nested measurement) as the notebook's HTML fragment.
    std::string
    window_html(std::int64_t run_id, const std::string& label, std::int64_t t0, std::int64_t t1) {
        py::gil_scoped_release unlocked;
        const auto s = window_summary(m_reader, run_id, label, t0, t1, "complete");
        return value(report::run_fragment(m_reader, s));
    }

private:
    template <class T> static T value(Result<T> r) {
        if (!r) {
            raise(r.error());
        }
        return std::move(*r);
    }
    static trace::Reader open(const std::string& path) {
        std::error_code ec;
        if (!std::filesystem::exists(path, ec)) {
            raise_missing(path);
        }
        if (std::filesystem::is_directory(path, ec)) {
            throw TraceFailure(path + ": is a directory, not a trace");
        }
        return value(trace::Reader::open(path));
    }

    trace::Reader m_reader;
};

} // namespace

void bind_trace(py::module_& m) {
    py::class_<TraceFile>(m, "TraceFile", "A jouleprof trace opened for reading.")
        .def(py::init<const std::string&>(), py::arg("path"))
        .def("info", &TraceFile::info, "meta, channels and runs as plain Python data")
        .def("markers", &TraceFile::markers, py::arg("run_id"), "[(t_ns, kind, name)] of a run")
        .def("samples", &TraceFile::samples, py::arg("run_id"), py::arg("channel"),
             "(t_ns, value, flags) numpy arrays of one channel in one run")
        .def("html", &TraceFile::html, py::arg("run_id"), "One run as an HTML fragment")
        .def("window_html", &TraceFile::window_html, py::arg("run_id"), py::arg("label"),
             py::arg("t0"), py::arg("t1"), "[t0, t1] of a run as an HTML fragment")
        .def("report_json", &TraceFile::report_json, "`jouleprof report --json` of this trace");
}

} // namespace jp::python
