// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A Redfish service as the backend uses it: GET a resource by path, with Basic
// auth or a session (POST SessionService/Sessions, X-Auth-Token on every
// request, DELETE of the session when done). HTTP errors become one line with
// a hint (401: the credentials, 404: the path).
#include "sensors/redfish/http.hpp"

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace jp::sensors::redfish {

enum class Auth : std::uint8_t { basic, session };

struct ConnectionOptions {
    std::string url; // https://bmc (no trailing slash); paths are appended to it
    std::optional<Credentials> credentials;
    TlsOptions tls;
    Auth auth = Auth::basic;
    Nanos timeout = std::chrono::seconds{5};
};

class Connection {
public:
    // Opens a session first when options.auth is session (fails as get() does).
    [[nodiscard]] static Result<std::unique_ptr<Connection>> open(ConnectionOptions options);
    // Ends the session (DELETE of its Location), if one was opened.
    ~Connection();
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;
    Connection(Connection&&) = delete;
    Connection& operator=(Connection&&) = delete;

    // The body of GET url + path ("/redfish/v1/Chassis"). An HTTP status other than
    // 2xx fails with where = "GET URL": 401/403 ErrorKind::permission, 404
    // not_found, others io. A session the BMC has dropped (401) is opened again once.
    [[nodiscard]] Result<std::string> get(std::string_view path);
    // url + path, as shown in channel sources and messages.
    [[nodiscard]] std::string url(std::string_view path) const;
    [[nodiscard]] bool insecure() const noexcept { return m_options.tls.insecure; }

    static constexpr std::string_view k_sessions = "/redfish/v1/SessionService/Sessions";

private:
    explicit Connection(ConnectionOptions options);
    [[nodiscard]] Result<void> login();
    void logout() noexcept;
    [[nodiscard]] Result<Response> get_once(const std::string& url);
    [[nodiscard]] Error status_error(const Response& r, const std::string& where) const;

    ConnectionOptions m_options;
    Http m_http;
    std::string m_token;    // the session's X-Auth-Token; empty with Basic auth
    std::string m_location; // the session's URL, DELETEd at the end
};

} // namespace jp::sensors::redfish
