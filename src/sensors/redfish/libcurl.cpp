// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/redfish/libcurl.hpp"

#include "sensors/vendor_library.hpp"

namespace jp::sensors::redfish {
namespace {

Result<LoadedApi<LibCurl>> load() {
    auto loaded =
        load_api<LibCurl>({"libcurl.so.4", "libcurl-gnutls.so.4"},
                          "install libcurl (Debian: libcurl4)", [](Symbols& symbols, LibCurl& a) {
                              symbols.required(a.global_init, "curl_global_init");
                              symbols.required(a.easy_init, "curl_easy_init");
                              symbols.required(a.easy_cleanup, "curl_easy_cleanup");
                              symbols.required(a.easy_reset, "curl_easy_reset");
                              symbols.required(a.easy_setopt, "curl_easy_setopt");
                              symbols.required(a.easy_perform, "curl_easy_perform");
                              symbols.required(a.easy_getinfo, "curl_easy_getinfo");
                              symbols.required(a.easy_strerror, "curl_easy_strerror");
                              symbols.required(a.easy_header, "curl_easy_header");
                              symbols.required(a.slist_append, "curl_slist_append");
                              symbols.required(a.slist_free_all, "curl_slist_free_all");
                          });
    // libcurl's global state, once per process (never torn down: other threads may use it).
    if (loaded) {
        if (const CURLcode rc = loaded->api.global_init(CURL_GLOBAL_DEFAULT); rc != CURLE_OK) {
            return fail(ErrorKind::library, "curl_global_init",
                        "failed with code " + std::to_string(static_cast<int>(rc)));
        }
    }
    return loaded;
}

} // namespace

Result<const LibCurl*> libcurl() {
    // Loaded on first use (thread-safe), never unloaded.
    static const Result<LoadedApi<LibCurl>> loaded = load();
    if (!loaded) {
        return std::unexpected(loaded.error());
    }
    return &loaded->api;
}

} // namespace jp::sensors::redfish
