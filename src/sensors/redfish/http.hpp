// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// HTTPS requests through one libcurl easy handle (kept for the sensor's life,
// so its connection and TLS session are reused between polls); libcurl itself
// is loaded when the first Http is made (sensors/redfish/libcurl.hpp). Transport
// failures (refused, timeout, an untrusted certificate) become one-line Errors
// with a hint; HTTP statuses are returned for the caller to judge.
#include "core/duration.hpp"
#include "core/error.hpp"

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

namespace jp::sensors::redfish {

struct LibCurl;

struct TlsOptions {
    std::optional<std::filesystem::path> ca_file; // unset: the system's CA store
    bool insecure = false;                        // skip verification (an explicit opt-in)
};

// A user and password for Basic auth or a session's login. The password never
// goes into a URL, a log line, an error or a trace.
struct Credentials {
    std::string user;
    std::string password;
};

enum class Method : std::uint8_t { get, post, del };

struct Request {
    Method method = Method::get;
    std::string url;
    std::string body;                   // POST: JSON
    const Credentials* basic = nullptr; // Basic auth, when set
    std::string token;                  // X-Auth-Token, when not empty
};

struct Response {
    long status = 0; // libcurl's type
    std::string body;
    std::string token;    // X-Auth-Token header (a session's login)
    std::string location; // Location header
};

class Http {
public:
    Http(TlsOptions tls, Nanos timeout);
    ~Http();
    Http(const Http&) = delete;
    Http& operator=(const Http&) = delete;
    Http(Http&&) = delete;
    Http& operator=(Http&&) = delete;

    // One request within the timeout (connect, TLS and transfer together).
    // Fails with ErrorKind::io (refused, timeout, TLS), where = "GET URL".
    [[nodiscard]] Result<Response> perform(const Request& r);

    // Answers larger than this are cut off as an error (a BMC's resources are small).
    static constexpr std::size_t k_max_body = 4U << 20U;

private:
    const LibCurl* m_api = nullptr; // libcurl, loaded on first use
    Error m_unavailable;            // why not, when it could not be
    void* m_curl = nullptr;         // CURL*
    TlsOptions m_tls;
    Nanos m_timeout;
};

// "GET", "POST", "DELETE".
[[nodiscard]] std::string_view to_string(Method m);

} // namespace jp::sensors::redfish
