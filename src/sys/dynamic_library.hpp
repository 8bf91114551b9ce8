// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// RAII wrapper around dlopen/dlsym.
#include "core/error.hpp"

#include <string>
#include <vector>

namespace jp::sys {

class DynamicLibrary {
public:
    // Tries each name in turn (e.g. "libnvidia-ml.so.1", "libnvidia-ml.so").
    static Result<DynamicLibrary> open(const std::vector<std::string>& names);
    DynamicLibrary(DynamicLibrary&& other) noexcept;
    DynamicLibrary& operator=(DynamicLibrary&& other) noexcept;
    DynamicLibrary(const DynamicLibrary&) = delete;
    DynamicLibrary& operator=(const DynamicLibrary&) = delete;
    ~DynamicLibrary();

    // Typed symbol lookup; not_found when the library lacks it.
    template <class Fn> Result<Fn> symbol(const char* name) const {
        auto raw = raw_symbol(name);
        if (!raw) {
            return std::unexpected(raw.error());
        }
        return reinterpret_cast<Fn>(*raw); // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
    }
    [[nodiscard]] const std::string& name() const noexcept { return m_name; }

private:
    DynamicLibrary(void* handle, std::string name) : m_handle(handle), m_name(std::move(name)) {}
    [[nodiscard]] Result<void*> raw_symbol(const char* name) const;
    void* m_handle = nullptr;
    std::string m_name;
};

} // namespace jp::sys
