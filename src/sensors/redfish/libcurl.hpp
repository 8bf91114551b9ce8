// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// libcurl, loaded when a Redfish source first makes a request. Linked, it and
// the TLS, LDAP and Kerberos libraries it pulls in (about 30) cost every run
// their load time and about 3 MiB of resident pages although most runs never
// speak HTTP (docs/overhead.md). The prototypes come from curl's own header,
// so the pointers have the library's exact C ABI.
#include "core/error.hpp"

#include <curl/curl.h>

namespace jp::sensors::redfish {

struct LibCurl {
    decltype(&curl_global_init) global_init = nullptr;
    decltype(&curl_easy_init) easy_init = nullptr;
    decltype(&curl_easy_cleanup) easy_cleanup = nullptr;
    decltype(&curl_easy_reset) easy_reset = nullptr;
    decltype(&curl_easy_setopt) easy_setopt = nullptr;
    decltype(&curl_easy_perform) easy_perform = nullptr;
    decltype(&curl_easy_getinfo) easy_getinfo = nullptr;
    decltype(&curl_easy_strerror) easy_strerror = nullptr;
    decltype(&curl_easy_header) easy_header = nullptr;
    decltype(&curl_slist_append) slist_append = nullptr;
    decltype(&curl_slist_free_all) slist_free_all = nullptr;
};

// The process's libcurl (libcurl.so.4), loaded and globally initialised once
// and kept; an error that names the library and what to install when it
// cannot be loaded.
[[nodiscard]] Result<const LibCurl*> libcurl();

} // namespace jp::sensors::redfish
