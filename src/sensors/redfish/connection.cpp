// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/redfish/connection.hpp"

#include "core/text.hpp"
#include "sensors/redfish/json.hpp"

#include <cstring>
#include <fmt/format.h>

namespace jp::sensors::redfish {
namespace {

bool success(const Response& r) {
    return r.status >= 200 && r.status < 300;
}

// Redfish's error body: {"error": {"message": "..."}}; empty when it has none.
std::string redfish_message(const std::string& body) {
    auto j = parse_json(body);
    if (!j) {
        return {};
    }
    const Json* e = member(*j, "error");
    return e == nullptr ? std::string{} : one_line(string_at(*e, "message").value_or(""), 120);
}

void wipe(std::string& secret) noexcept {
    ::explicit_bzero(secret.data(), secret.size());
    secret.clear();
}

} // namespace

Connection::Connection(ConnectionOptions options)
    : m_options(std::move(options)), m_http(m_options.tls, m_options.timeout) {}

Connection::~Connection() {
    logout();
    if (m_options.credentials) {
        wipe(m_options.credentials->password);
    }
}

Result<std::unique_ptr<Connection>> Connection::open(ConnectionOptions options) {
    // NOLINTNEXTLINE(cppcoreguidelines-owning-memory): the constructor is private
    std::unique_ptr<Connection> c{new Connection(std::move(options))};
    if (c->m_options.auth == Auth::session) {
        if (!c->m_options.credentials) {
            return fail(ErrorKind::config, "[sensors.redfish] auth = \"session\"",
                        "needs a user and password_file to log in",
                        "set [sensors.redfish] user and password_file");
        }
        if (auto r = c->login(); !r) {
            return std::unexpected(r.error());
        }
    }
    return c;
}

std::string Connection::url(std::string_view path) const {
    return m_options.url + std::string{path};
}

Result<void> Connection::login() {
    const auto& cred = *m_options.credentials;
    Request req{Method::post, url(k_sessions), {}, nullptr, {}};
    req.body = Json{{"UserName", cred.user}, {"Password", cred.password}}.dump(
        -1, ' ', false, Json::error_handler_t::replace);
    auto r = m_http.perform(req);
    wipe(req.body);
    const auto where = fmt::format("POST {}", req.url);
    if (!r) {
        return std::unexpected(r.error());
    }
    if (!success(*r)) {
        return std::unexpected(status_error(*r, where));
    }
    if (r->token.empty()) {
        return fail(ErrorKind::unsupported, where, "the login was answered without X-Auth-Token",
                    "set [sensors.redfish] auth = \"basic\"");
    }
    m_token = r->token;
    std::string location = r->location;
    if (location.empty()) { // some services name the session only in the body
        if (auto j = parse_json(r->body)) {
            location = string_at(*j, "@odata.id").value_or("");
        }
    }
    // The token goes back to this service only: an absolute Location elsewhere is not followed.
    if (location.starts_with(m_options.url + "/")) {
        m_location = location;
    } else if (location.starts_with('/')) {
        m_location = url(location);
    }
    return {};
}

void Connection::logout() noexcept {
    if (m_token.empty()) {
        return;
    }
    try {
        if (!m_location.empty()) {
            (void)m_http.perform(Request{Method::del, m_location, {}, nullptr, m_token});
        }
    } catch (...) { // NOLINT(bugprone-empty-catch): a session the BMC ends by itself later
    }
    wipe(m_token);
    m_location.clear();
}

Result<Response> Connection::get_once(const std::string& url) {
    const bool basic = m_options.auth == Auth::basic && m_options.credentials;
    return m_http.perform(
        Request{Method::get, url, {}, basic ? &*m_options.credentials : nullptr, m_token});
}

Result<std::string> Connection::get(std::string_view path) {
    const auto u = url(path);
    auto r = get_once(u);
    if (r && r->status == 401 && m_options.auth == Auth::session) {
        // The BMC ended the session (its idle timeout): log in again, once. The old
        // one is deleted first, so sessions never pile up on a BMC that keeps refusing.
        logout();
        if (auto l = login(); !l) {
            return std::unexpected(l.error());
        }
        r = get_once(u);
    }
    if (!r) {
        return std::unexpected(r.error());
    }
    if (!success(*r)) {
        return std::unexpected(status_error(*r, fmt::format("GET {}", u)));
    }
    return std::move(r->body);
}

Error Connection::status_error(const Response& r, const std::string& where) const {
    const auto said = redfish_message(r.body);
    const auto tail = said.empty() ? std::string{} : ": " + said;
    const auto user = m_options.credentials ? one_line(m_options.credentials->user, 64) : "";
    switch (r.status) {
    case 401:
        if (!m_options.credentials) {
            return {ErrorKind::permission, where,
                    "HTTP 401 Unauthorized: the service wants a login",
                    "set [sensors.redfish] user and password_file"};
        }
        return {ErrorKind::permission, where,
                fmt::format("HTTP 401 Unauthorized: the BMC refused user \"{}\" (wrong user or "
                            "password?)",
                            user),
                "check [sensors.redfish] user and the password in password_file"};
    case 403:
        return {ErrorKind::permission, where,
                fmt::format("HTTP 403 Forbidden: user \"{}\" may not read this{}", user, tail),
                "give the BMC account a role that may log in and read (ReadOnly suffices)"};
    case 404:
        return {ErrorKind::not_found, where, "HTTP 404 Not Found", ""};
    default:
        return {ErrorKind::io, where, fmt::format("HTTP {}{}", r.status, tail), ""};
    }
}

} // namespace jp::sensors::redfish
