// SPDX-License-Identifier: BSD-3-Clause
#include "sys/dynamic_library.hpp"

#include "sys/trusted_file.hpp"

#include <dlfcn.h>
#include <filesystem>
#include <fmt/format.h>
#include <unistd.h>
#include <utility>

namespace jp::sys {

Result<DynamicLibrary> DynamicLibrary::open(const std::vector<std::string>& names) {
    std::string reasons;
    for (const auto& name : names) {
        // As root, a library named by path is one no other user could have chosen or
        // changed: the file and every directory and link on its way are checked as it is
        // opened, and the loader is given the path those checks resolved, which no one
        // but root can change (the library's own $ORIGIN and name stay as they are).
        std::string load = name;
        if (name.find('/') != std::string::npos && ::geteuid() == 0) {
            auto fd = open_trusted(name, "library", true);
            if (!fd) {
                reasons += (reasons.empty() ? "" : "; ") + fd.error().message();
                continue;
            }
            std::error_code ec;
            load = std::filesystem::read_symlink(fmt::format("/proc/self/fd/{}", fd->get()), ec);
            if (ec) {
                reasons += (reasons.empty() ? "" : "; ") + name + ": " + ec.message();
                continue;
            }
        }
        void* handle = ::dlopen(load.c_str(), RTLD_NOW | RTLD_LOCAL);
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
