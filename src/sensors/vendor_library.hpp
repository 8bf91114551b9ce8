// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What the GPU backends that reach a vendor library through dlopen (NVML, ROCm SMI) share:
// filling their table of entry points, the session that keeps the library loaded and
// initialised, and the discovery-time choice of a power source and the channels it gives.
// Each backend keeps its own ABI declarations and its own wording of return codes.
//
// A backend describes its library with a traits struct `Library`:
//   using Api = ...;                                   // entry points, filled by load()
//   static constexpr std::string_view backend;         // "nvml": the `where` of every note
//   static constexpr std::string_view none_measured;   // "no NVIDIA GPUs measured"
//   static constexpr std::string Host::*host_library;  // overrides default_names if set
//   static constexpr std::array default_names;         // sonames, tried in turn
//   static constexpr auto shutdown;                    // &Api::<the library's shutdown>
//   static void load(Symbols& symbols, Api& api);      // required() and optional() calls
//   static Result<void> init(const Api& api);          // error: where = the call, detail =
//                                                      // its return code, hint
//   static Result<unsigned int> count(const Api& api); // the GPUs; error as for init
//   static constexpr std::string_view no_gpus;         // noted when count() is 0
#include "core/channel.hpp"
#include "core/error.hpp"
#include "sensors/host.hpp"
#include "sensors/sensor.hpp"
#include "sys/dynamic_library.hpp"

#include <array>
#include <cstddef>
#include <fmt/format.h>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace jp::sensors {

// Fills a table of entry points from a loaded library.
class Symbols {
public:
    explicit Symbols(const sys::DynamicLibrary& library) : m_library(&library) {}

    // A missing required symbol is remembered (the first one) and makes the library unusable.
    template <class Fn> void required(Fn& fn, const char* name) {
        if (auto sym = m_library->symbol<Fn>(name)) {
            fn = *sym;
        } else if (m_missing.empty()) {
            m_missing = sym.error().message();
        }
    }

    // Absent optional entry points stay null; the backend then falls back or skips a channel.
    template <class Fn> void optional(Fn& fn, const char* name) {
        auto sym = m_library->symbol<Fn>(name);
        fn = sym ? *sym : nullptr;
    }

    // The first required symbol not found, as DynamicLibrary words it; empty when none.
    [[nodiscard]] const std::string& missing() const noexcept { return m_missing; }

private:
    const sys::DynamicLibrary* m_library;
    std::string m_missing;
};

// A C library loaded on first use and kept for the process's life (libcurl, libcrypto): the
// handle and its table of entry points.
template <class Api> struct LoadedApi {
    sys::DynamicLibrary library;
    Api api;
};

// Loads the first of names and fills Api with bind(Symbols&, Api&) (required() calls). Fails
// with where = names.front(), "cannot be loaded: …" and the hint (what to install), or with
// the first symbol missing.
template <class Api, class Bind>
Result<LoadedApi<Api>>
load_api(const std::vector<std::string>& names, std::string hint, Bind&& bind) {
    auto lib = sys::DynamicLibrary::open(names);
    if (!lib) {
        return fail(ErrorKind::library, names.front(), "cannot be loaded: " + lib.error().detail,
                    std::move(hint));
    }
    LoadedApi<Api> loaded{std::move(*lib), {}};
    Symbols symbols{loaded.library};
    std::forward<Bind>(bind)(symbols, loaded.api);
    if (!symbols.missing().empty()) {
        return fail(ErrorKind::library, loaded.library.name(), symbols.missing());
    }
    return loaded;
}

// The library, loaded and initialised; its shutdown call, then dlclose, on destruction.
// Shared by every GPU's sensor so that the library stays initialised while any of them lives.
template <class Library> class VendorSession {
public:
    using Api = typename Library::Api;

    // Fails with a message fit for Discovery::notes: library absent, a required symbol
    // missing, or the init call failing.
    static Result<std::shared_ptr<const VendorSession>> open(const Host& host) {
        const auto names = library_names(host);
        auto lib = sys::DynamicLibrary::open(names);
        if (!lib) {
            return fail(ErrorKind::not_found, std::string{Library::backend},
                        fmt::format("{} not found: {} ({})", names.front(), Library::none_measured,
                                    lib.error().detail));
        }
        Api api{};
        Symbols symbols{*lib};
        Library::load(symbols, api);
        if (!symbols.missing().empty()) {
            return fail(ErrorKind::unsupported, std::string{Library::backend},
                        fmt::format("{}: {}", symbols.missing(), Library::none_measured));
        }
        if (auto init = Library::init(api); !init) {
            return fail(ErrorKind::library, std::string{Library::backend},
                        fmt::format("{} failed: {}: {}", init.error().where, init.error().detail,
                                    Library::none_measured),
                        init.error().hint);
        }
        return std::shared_ptr<const VendorSession>(new VendorSession(std::move(*lib), api));
    }

    VendorSession(const VendorSession&) = delete;
    VendorSession& operator=(const VendorSession&) = delete;
    VendorSession(VendorSession&&) = delete;
    VendorSession& operator=(VendorSession&&) = delete;
    ~VendorSession() { (m_api.*Library::shutdown)(); }

    [[nodiscard]] const Api& api() const noexcept { return m_api; }

private:
    VendorSession(sys::DynamicLibrary library, Api api)
        : m_library(std::move(library)), m_api(api) {}

    static std::vector<std::string> library_names(const Host& host) {
        if (const std::string& chosen = host.*Library::host_library; !chosen.empty()) {
            return {chosen};
        }
        return {Library::default_names.begin(), Library::default_names.end()};
    }

    sys::DynamicLibrary m_library; // dlclosed after ~VendorSession() has shut the library down
    Api m_api;
};

// A backend's discover(): opens the session, counts the GPUs and calls
// add_gpu(session, index, out) for each. What went wrong before that is noted in `out`.
template <class Library, class AddGpu> Discovery discover_gpus(const Host& host, AddGpu&& add_gpu) {
    Discovery out;
    auto session = VendorSession<Library>::open(host);
    if (!session) {
        out.notes.push_back(session.error().message());
        return out;
    }
    const auto count = Library::count((*session)->api());
    if (!count) {
        out.notes.push_back(fmt::format("{}: {}", Library::backend, count.error().message()));
        return out;
    }
    if (*count == 0) {
        out.notes.push_back(fmt::format("{}: {}", Library::backend, Library::no_gpus));
    }
    for (unsigned int i = 0; i < *count; ++i) {
        add_gpu(*session, i, out);
    }
    return out;
}

// A way of reading a GPU's power, tried at discovery, and the call it makes (for notes).
template <class Source> struct PowerAttempt {
    Source source;
    std::string_view call;
};

// Tries the attempts in order at discovery and returns the source of the first whose
// try_one(source) answers (returns nullopt), or Source::none. `failed` gets "<call>: <what
// try_one returned>" for each one that did not; when a later one answers, the note
// "<backend>: <gpu>: <failed>; power from <call><aside(source)>" says so.
template <class Source, std::size_t N, class TryOne, class Aside>
Source choose_power_source(const std::array<PowerAttempt<Source>, N>& attempts,
                           TryOne&& try_one,
                           Aside&& aside,
                           std::string_view backend,
                           const std::string& gpu,
                           std::string& failed,
                           std::vector<std::string>& notes) {
    for (const auto& attempt : attempts) {
        const std::optional<std::string> outcome = try_one(attempt.source);
        if (!outcome) {
            if (!failed.empty()) {
                notes.push_back(fmt::format("{}: {}: {}; power from {}{}", backend, gpu, failed,
                                            attempt.call, aside(attempt.source)));
            }
            return attempt.source;
        }
        failed += fmt::format("{}{}: {}", failed.empty() ? "" : "; ", attempt.call, *outcome);
    }
    return Source::none;
}

// A GPU's identity as every one of its channels carries it: "gpuN", domain gpu, the
// backend and source "<backend>:N <product name>"; the caller sets the device.
[[nodiscard]] inline Channel
gpu_identity(std::string_view backend, unsigned int index, std::string_view product) {
    Channel c;
    c.name = fmt::format("gpu{}", index);
    c.domain = Domain::gpu;
    c.backend = std::string{backend};
    c.source = fmt::format("{}:{} {}", backend, index, product);
    return c;
}

// A GPU's channels: "gpuN" if it has a power source (quantity energy for its
// `energy_counter`, power otherwise; `limit_watts()` is asked only then), then "gpuN.util"
// (not counted) if its utilisation answers. `Source` is the backend's enum of power sources.
template <class Source, class LimitWatts>
[[nodiscard]] std::vector<Channel>
gpu_channels(Channel identity, Source power, bool utilization, LimitWatts&& limit_watts) {
    std::vector<Channel> channels;
    if (power != Source::none) {
        Channel c = identity;
        c.quantity = power == Source::energy_counter ? Quantity::energy : Quantity::power;
        c.limit_watts = limit_watts();
        channels.push_back(std::move(c));
    }
    if (utilization) {
        identity.name += ".util";
        identity.quantity = Quantity::utilization;
        identity.counted = false; // not energy: never summed
        channels.push_back(std::move(identity));
    }
    return channels;
}

} // namespace jp::sensors
