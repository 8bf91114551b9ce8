// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/redfish/http.hpp"

#include "core/text.hpp"
#include "sensors/redfish/libcurl.hpp"

#include <array>
#include <cstring>
#include <fmt/format.h>
#include <memory>

namespace jp::sensors::redfish {
namespace {

struct SlistFree {
    const LibCurl* api;
    void operator()(curl_slist* l) const noexcept { api->slist_free_all(l); }
};
using Headers = std::unique_ptr<curl_slist, SlistFree>;

std::size_t on_body(char* data, std::size_t size, std::size_t n, void* user) noexcept {
    auto& body = *static_cast<std::string*>(user);
    const std::size_t bytes = size * n;
    if (body.size() + bytes > Http::k_max_body) {
        return 0; // libcurl stops with CURLE_WRITE_ERROR
    }
    try {
        body.append(data, bytes);
    } catch (...) {
        return 0;
    }
    return bytes;
}

std::string header(const LibCurl& api, CURL* curl, const char* name) {
    curl_header* h = nullptr;
    if (api.easy_header(curl, name, 0, CURLH_HEADER, -1, &h) != CURLHE_OK || h == nullptr) {
        return {};
    }
    return h->value;
}

Headers request_headers(const LibCurl& api, const Request& r) {
    curl_slist* l = api.slist_append(nullptr, "Accept: application/json");
    l = api.slist_append(l, "OData-Version: 4.0");
    if (r.method == Method::post) {
        l = api.slist_append(l, "Content-Type: application/json");
    }
    if (!r.token.empty()) {
        l = api.slist_append(l, ("X-Auth-Token: " + r.token).c_str());
    }
    return Headers{l, SlistFree{&api}};
}

// The transport failure as one line, and what fixes it.
Error transport_error(
    const LibCurl& api, CURLcode rc, std::string_view errbuf, int os_errno, Nanos timeout) {
    const std::string said = one_line(errbuf.empty() ? api.easy_strerror(rc) : errbuf, 200);
    switch (rc) {
    case CURLE_COULDNT_CONNECT:
        return {ErrorKind::io,
                {},
                fmt::format("cannot connect: {}",
                            os_errno != 0 ? std::string{std::strerror(os_errno)} : said),
                "check [sensors.redfish] url: nothing accepts connections at that host and port"};
    case CURLE_COULDNT_RESOLVE_HOST:
        return {ErrorKind::io, {}, said, "check the host name in [sensors.redfish] url"};
    case CURLE_OPERATION_TIMEDOUT:
        return {ErrorKind::io,
                {},
                fmt::format("no answer within {}", format_duration(timeout)),
                "check [sensors.redfish] url (is it the BMC's HTTPS port?), or raise its timeout"};
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CONNECT_ERROR:
        return {ErrorKind::io,
                {},
                fmt::format("TLS: {}", said),
                "set [sensors.redfish] ca_file to the CA certificate that signed the BMC's "
                "certificate (insecure = true skips the check, and the output says so)"};
    case CURLE_SSL_CACERT_BADFILE:
        return {ErrorKind::config,
                {},
                fmt::format("ca_file: {}", said),
                "[sensors.redfish] ca_file must be a readable PEM file of CA certificates"};
    case CURLE_WRITE_ERROR:
        return {ErrorKind::io,
                {},
                fmt::format("answer larger than {} MiB", Http::k_max_body >> 20U),
                ""};
    default:
        return {ErrorKind::io, {}, said, ""};
    }
}

void set_tls(const LibCurl& api, CURL* c, const TlsOptions& tls) {
    api.easy_setopt(c, CURLOPT_SSL_VERIFYPEER, tls.insecure ? 0L : 1L);
    api.easy_setopt(c, CURLOPT_SSL_VERIFYHOST, tls.insecure ? 0L : 2L);
    if (tls.ca_file) {
        api.easy_setopt(c, CURLOPT_CAINFO, tls.ca_file->c_str());
    }
}

void set_method(const LibCurl& api, CURL* c, const Request& r) {
    switch (r.method) {
    case Method::get:
        api.easy_setopt(c, CURLOPT_HTTPGET, 1L);
        break;
    case Method::post:
        api.easy_setopt(c, CURLOPT_POSTFIELDSIZE, static_cast<long>(r.body.size()));
        api.easy_setopt(c, CURLOPT_POSTFIELDS, r.body.c_str());
        break;
    case Method::del:
        api.easy_setopt(c, CURLOPT_CUSTOMREQUEST, "DELETE");
        break;
    }
    if (r.basic != nullptr) {
        api.easy_setopt(c, CURLOPT_HTTPAUTH, static_cast<long>(CURLAUTH_BASIC));
        api.easy_setopt(c, CURLOPT_USERNAME, r.basic->user.c_str());
        api.easy_setopt(c, CURLOPT_PASSWORD, r.basic->password.c_str());
    }
}

} // namespace

std::string_view to_string(Method m) {
    switch (m) {
    case Method::get:
        return "GET";
    case Method::post:
        return "POST";
    case Method::del:
        return "DELETE";
    }
    return "?";
}

Http::Http(TlsOptions tls, Nanos timeout) : m_tls(std::move(tls)), m_timeout(timeout) {
    auto api = libcurl();
    if (!api) {
        m_unavailable = api.error();
        return;
    }
    m_api = *api;
    m_curl = m_api->easy_init();
}

Http::~Http() {
    if (m_curl != nullptr) {
        m_api->easy_cleanup(static_cast<CURL*>(m_curl));
    }
}

Result<Response> Http::perform(const Request& r) {
    const auto where = fmt::format("{} {}", to_string(r.method), r.url);
    if (m_api == nullptr) {
        return std::unexpected(m_unavailable);
    }
    const LibCurl& api = *m_api;
    auto* c = static_cast<CURL*>(m_curl);
    if (c == nullptr) {
        return fail(ErrorKind::library, where, "libcurl could not make a handle");
    }
    // Options from the last request are cleared; the connection and TLS session are kept.
    api.easy_reset(c);
    const auto timeout_ms = static_cast<long>(
        std::max<std::int64_t>(1, std::chrono::ceil<std::chrono::milliseconds>(m_timeout).count()));
    std::array<char, CURL_ERROR_SIZE> errbuf{};
    Response out;
    const Headers headers = request_headers(api, r);
    api.easy_setopt(c, CURLOPT_URL, r.url.c_str());
    api.easy_setopt(c, CURLOPT_PROTOCOLS_STR, "https,http");
    api.easy_setopt(c, CURLOPT_PROXY, ""); // a BMC is reached directly, never through $https_proxy
    api.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    api.easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
    api.easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
    api.easy_setopt(c, CURLOPT_USERAGENT, "jouleprof");
    api.easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf.data());
    api.easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
    api.easy_setopt(c, CURLOPT_WRITEFUNCTION, &on_body);
    api.easy_setopt(c, CURLOPT_WRITEDATA, &out.body);
    set_tls(api, c, m_tls);
    set_method(api, c, r);
    const CURLcode rc = api.easy_perform(c);
    api.easy_setopt(c, CURLOPT_ERRORBUFFER, nullptr); // errbuf dies here
    if (rc != CURLE_OK) {
        long os_errno = 0; // libcurl's type
        api.easy_getinfo(c, CURLINFO_OS_ERRNO, &os_errno);
        auto e = transport_error(api, rc, errbuf.data(), static_cast<int>(os_errno), m_timeout);
        e.where = where;
        return std::unexpected(std::move(e));
    }
    api.easy_getinfo(c, CURLINFO_RESPONSE_CODE, &out.status);
    out.token = header(api, c, "X-Auth-Token");
    out.location = header(api, c, "Location");
    return out;
}

} // namespace jp::sensors::redfish
