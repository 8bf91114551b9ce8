// SPDX-License-Identifier: BSD-3-Clause
// jouleprof._core.Session: one trace, one sampler, in-process runs (blocks),
// markers with exact edges and the runs' summaries, over cli::MeasurementSession.
#include "bindings.hpp"
#include "cli/globals.hpp"
#include "cli/measurement.hpp"
#include "core/log.hpp"
#include "report/format.hpp"
#include "window.hpp"

#include <memory>
#include <mutex>

namespace py = pybind11;

namespace jp::python {
namespace {

std::string dump(const nlohmann::json& j) {
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// A summary's figures as the pair Python turns into a Result: `run --json`'s
// run object (JSON text) and the study's table as text.
py::tuple as_pair(const report::RunSummary& s) {
    const auto group = report::aggregate_runs(s.run.label, {s});
    return py::make_tuple(dump(report::run_to_json(s)), report::format_text({group}));
}

class Session {
public:
    Session(const std::string& output,
            double interval_s,
            const std::string& command,
            const std::string& sysfs_root,
            const std::string& config_path) {
        if (!(interval_s >= 0.001)) {
            throw py::value_error("interval must be at least 0.001 s");
        }
        Config config;
        if (!config_path.empty()) {
            config = value_or_raise(load_config(config_path));
        }
        cli::Globals g;
        g.sysfs_root = sysfs_root;
        sensors::Host host;
        try {
            host = cli::make_host(g, config);
        } catch (const Fatal& e) {
            throw py::value_error(e.what());
        }
        cli::SessionOptions o;
        o.output = output;
        o.interval = Nanos{static_cast<std::int64_t>(interval_s * 1e9)};
        o.live = false;
        o.meta = {{"command", command}, {"label", "python"}};
        py::gil_scoped_release unlocked;
        m_session = value_or_raise(cli::MeasurementSession::open(std::move(o), host, config));
    }

    std::int64_t begin(const std::string& label, const std::string& command) {
        const std::lock_guard lock{m_mutex};
        return live().begin_block(label, command, {cli::BlockJob::Kind::self, 0, {}});
    }
    std::int64_t mark(const std::string& kind, const std::string& name) {
        const std::lock_guard lock{m_mutex};
        return live().mark_block(kind, name);
    }
    std::int64_t end(const std::string& status) {
        const std::lock_guard lock{m_mutex};
        return live().end_block(status).id;
    }
    py::tuple result(std::int64_t run_id) {
        report::RunSummary s;
        {
            py::gil_scoped_release unlocked;
            const std::lock_guard lock{m_mutex};
            s = value_or_raise(live().summarize(run_id));
        }
        return as_pair(s);
    }
    py::tuple window(std::int64_t run_id,
                     const std::string& label,
                     std::int64_t t0,
                     std::int64_t t1,
                     const std::string& status) {
        report::RunSummary s;
        {
            py::gil_scoped_release unlocked;
            const std::lock_guard lock{m_mutex};
            auto reader = value_or_raise(live().reader());
            s = window_summary(reader, run_id, label, t0, t1, status);
        }
        return as_pair(s);
    }
    bool finish() {
        py::gil_scoped_release unlocked;
        const std::lock_guard lock{m_mutex};
        if (!m_session) {
            return true;
        }
        live().end_block("interrupted"); // a block still open (no-op otherwise)
        const bool whole = m_session->finish();
        m_path = m_session->path();
        m_session.reset();
        return whole;
    }
    [[nodiscard]] std::string path() const {
        return m_session ? m_session->path().string() : m_path.string();
    }
    [[nodiscard]] bool closed() const { return !m_session; }

private:
    cli::MeasurementSession& live() {
        if (!m_session) {
            throw py::value_error("this session is closed (finish() was called)");
        }
        return *m_session;
    }

    std::mutex m_mutex;
    std::unique_ptr<cli::MeasurementSession> m_session;
    std::filesystem::path m_path;
};

} // namespace

void bind_session(py::module_& m) {
    using R = py::call_guard<py::gil_scoped_release>;
    py::class_<Session>(m, "Session", "One trace and one sampler; blocks are its runs.")
        .def(py::init<const std::string&, double, const std::string&, const std::string&,
                      const std::string&>(),
             py::arg("output") = "", py::arg("interval") = 0.5, py::arg("command") = "python",
             py::arg("sysfs_root") = "", py::arg("config") = "",
             "Discovers the node's sensors and creates the trace (a new file in the current "
             "directory when output is empty).")
        .def("begin", &Session::begin, py::arg("label"), py::arg("command"), R{},
             "Begins a run at an exact edge; returns its id (0 if one is open).")
        .def("mark", &Session::mark, py::arg("kind"), py::arg("name"), R{},
             "A marker (begin/end/point) in the open run at an exact read; returns its time.")
        .def("end", &Session::end, py::arg("status") = "complete", R{},
             "Ends the open run at an exact edge; returns its id.")
        .def("result", &Session::result, py::arg("run_id"), "(json, text) of one run's summary.")
        .def("window", &Session::window, py::arg("run_id"), py::arg("label"), py::arg("t0"),
             py::arg("t1"), py::arg("status") = "complete",
             "(json, text) of [t0, t1] of a run, as a run of its own.")
        .def("finish", &Session::finish,
             "Ends an open run, stores the summaries and closes the trace.")
        .def_property_readonly("path", &Session::path)
        .def_property_readonly("closed", &Session::closed);
}

} // namespace jp::python
