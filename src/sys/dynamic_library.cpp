// SPDX-License-Identifier: BSD-3-Clause
#include "sys/dynamic_library.hpp"

#include <dlfcn.h>
#include <utility>

namespace jp::sys {

Result<DynamicLibrary> DynamicLibrary::open(const std::vector<std::string>& names) {
    std::string reasons;
    for (const auto& name : names) {
        void* handle = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle != nullptr) {
            return DynamicLibrary{handle, name};
        }
        const char* why = ::dlerror();
        if (!reasons.empty()) {
            reasons += "; ";
        }
        reasons += why != nullptr ? why : name + ": not found";
    }
    return fail(ErrorKind::not_found, "dlopen", reasons);
}

DynamicLibrary::DynamicLibrary(DynamicLibrary&& other) noexcept
    : m_handle(std::exchange(other.m_handle, nullptr)), m_name(std::move(other.m_name)) {}

DynamicLibrary& DynamicLibrary::operator=(DynamicLibrary&& other) noexcept {
    if (this != &other) {
        if (m_handle != nullptr) {
            ::dlclose(m_handle);
        }
        m_handle = std::exchange(other.m_handle, nullptr);
        m_name = std::move(other.m_name);
    }
    return *this;
}

DynamicLibrary::~DynamicLibrary() {
    if (m_handle != nullptr) {
        ::dlclose(m_handle);
    }
}

Result<void*> DynamicLibrary::raw_symbol(const char* name) const {
    ::dlerror();
    void* sym = ::dlsym(m_handle, name);
    if (sym == nullptr) {
        return fail(ErrorKind::not_found, m_name, std::string{"symbol "} + name + " missing");
    }
    return sym;
}

} // namespace jp::sys
