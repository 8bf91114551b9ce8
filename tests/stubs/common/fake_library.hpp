// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Shared by the stand-in vendor libraries (fake_nvml, fake_rocm_smi): the scripted state
// behind their entry points. The fixture is re-read and the clock restarted on every init
// call; the GPU-independent directives are parsed here, the vendor's `gpu` directive by the
// vendor. Like profile.hpp, everything has internal linkage so that two stubs loaded into
// one process never bind to each other's symbols.
//
// Fixture: one directive per line, '#' starts a comment line, t in seconds since init.
//   init_error <code>                   the init call returns <code>
//   gpu <index> ...                     the vendor's own options for GPU <index>
//   power <index> <t> <watts>           a point of the GPU's piecewise-linear power profile
//   util <index> <percent>              the GPU's busy percent (absent: NOT_SUPPORTED)
//   lost <index> <t> [code=<Vendor::lost>] [until=<t>]
//                                       every call on the GPU returns <code> from t on
// With JP_FAKE_ORIGIN_FILE set, each successful init writes the clock's origin there (the
// CLOCK_MONOTONIC ns that profile time 0 stands for), so that a test can set a trace's
// times against the profile.
#include "profile.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <limits>
#include <optional>
#include <string>

#define JP_FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace jp::fake {
namespace {

constexpr std::size_t k_max_gpus = 16;

// One GPU as the fixture scripts it: the vendor's options (set by its `gpu` directive) and
// what every vendor plays alike.
template <class Vendor> struct Gpu : Vendor::Options {
    std::optional<std::uint32_t> util;
    Profile profile;
    double lost_from = std::numeric_limits<double>::infinity();
    double lost_until = std::numeric_limits<double>::infinity();
    typename Vendor::Code lost_code = Vendor::lost;
};

// The library's state and the logic every vendor's entry points share. Vendor provides:
//   using Code;                                   // its status enum
//   struct Options;                               // per-GPU options, with their defaults
//   static constexpr const char* label;           // "fake nvml", in messages on stderr
//   static constexpr const char* fixture_env;     // "JP_FAKE_NVML_FIXTURE"
//   static constexpr Code success, uninitialized, invalid_argument, unknown;
//   static constexpr Code lost;                   // the default code of `lost`
//   static bool apply_gpu(Options&, const Line&); // the `gpu` directive; false: malformed
template <class Vendor> class FakeLibrary {
public:
    using Code = typename Vendor::Code;
    using FakeGpu = Gpu<Vendor>;

    // The init call: forgets all but the session count, re-reads the fixture and restarts
    // the clock.
    static Code init() {
        State& s = state();
        const int open = s.sessions;
        s = State{};
        s.sessions = open;
        if (!load_fixture(s)) {
            return Vendor::unknown;
        }
        if (s.init_error != Vendor::success) {
            return s.init_error;
        }
        s.origin = mono_seconds();
        if (const char* path = std::getenv("JP_FAKE_ORIGIN_FILE"); path != nullptr) {
            if (std::ofstream out{path}; out) {
                out << static_cast<long long>(std::llround(s.origin * 1e9)) << '\n';
            }
        }
        ++s.sessions;
        return Vendor::success;
    }

    // The shutdown call: false when no session was open.
    static bool end_session() {
        State& s = state();
        if (s.sessions == 0) {
            return false;
        }
        --s.sessions;
        return true;
    }

    // Init calls not yet matched by a shutdown (the stubs' test hook).
    static int sessions() { return state().sessions; }

    // The count call.
    template <class Count> static Code count(Count* out) {
        if (state().sessions == 0) {
            return Vendor::uninitialized;
        }
        if (out == nullptr) {
            return Vendor::invalid_argument;
        }
        *out = state().count;
        return Vendor::success;
    }

    // fn(gpu, t) for the GPU at `index` at profile time t, or the status a real library would
    // return instead: not initialised, invalid argument (k_max_gpus stands for no GPU at
    // all), or the GPU's lost code inside its lost window.
    template <class Fn> static Code on_gpu(std::size_t index, Fn&& fn) {
        State& s = state();
        if (s.sessions == 0) {
            return Vendor::uninitialized;
        }
        if (index >= s.count) {
            return Vendor::invalid_argument;
        }
        FakeGpu& gpu = s.gpus[index];
        const double t = mono_seconds() - s.origin;
        if (t >= gpu.lost_from && t < gpu.lost_until) {
            return gpu.lost_code;
        }
        return fn(gpu, t);
    }

private:
    struct State {
        Code init_error = Vendor::success;
        std::uint32_t count = 0;
        std::array<FakeGpu, k_max_gpus> gpus;
        double origin = 0; // mono_seconds() at the init call
        int sessions = 0;  // init calls minus shutdown calls
    };

    static State& state() {
        static State s;
        return s;
    }

    // Applies one directive; false when it is not understood.
    static bool apply(State& s, const Line& line) {
        const auto& w = line.words;
        if (w.size() == 2 && w[0] == "init_error") {
            s.init_error = static_cast<Code>(std::stoul(w[1]));
            return true;
        }
        const auto index = w.size() >= 2 ? std::stoul(w[1]) : k_max_gpus;
        if (index >= k_max_gpus) {
            return false;
        }
        s.count = std::max(s.count, static_cast<std::uint32_t>(index) + 1);
        FakeGpu& g = s.gpus[index];
        if (w[0] == "gpu") {
            return Vendor::apply_gpu(g, line);
        }
        if (w[0] == "power" && w.size() == 4) {
            g.profile.add(std::stod(w[2]), std::stod(w[3]));
        } else if (w[0] == "util" && w.size() == 3) {
            g.util = static_cast<std::uint32_t>(std::stoul(w[2]));
        } else if (w[0] == "lost" && w.size() == 3) {
            g.lost_from = std::stod(w[2]);
            const auto code = line.options.find("code");
            g.lost_code = code == line.options.end() ? Vendor::lost
                                                     : static_cast<Code>(std::stoul(code->second));
            g.lost_until = std::stod(line.option("until", "inf"));
        } else {
            return false;
        }
        return true;
    }

    static bool load_fixture(State& s) {
        const char* path = std::getenv(Vendor::fixture_env);
        std::ifstream in{path == nullptr ? "" : path};
        if (!in) {
            std::fprintf(stderr, "%s: cannot read %s '%s'\n", Vendor::label, Vendor::fixture_env,
                         path == nullptr ? "" : path);
            return false;
        }
        std::string text;
        while (std::getline(in, text)) {
            if (text.empty() || text.starts_with('#')) {
                continue;
            }
            try {
                if (apply(s, split_line(text))) {
                    continue;
                }
            } catch (const std::exception&) { // NOLINT(bugprone-empty-catch): reported below
            }
            std::fprintf(stderr, "%s: bad fixture line '%s'\n", Vendor::label, text.c_str());
            return false;
        }
        return true;
    }
};

// Copies `text` and its terminating NUL into out[0..size); false when it does not fit.
inline bool copy_text(const std::string& text, char* out, std::size_t size) {
    if (out == nullptr || text.size() + 1 > size) {
        return false;
    }
    std::memcpy(out, text.c_str(), text.size() + 1);
    return true;
}

} // namespace
} // namespace jp::fake
