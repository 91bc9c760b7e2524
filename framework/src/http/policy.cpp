// SPDX-License-Identifier: BSL-1.0
#include <candor/http/policy.hpp>

#include "ascii.hpp"

#include <candor/jsonrpc/encode.hpp>
#include <candor/mcp/protocol.hpp>

#include <openssl/rand.h>

#include <algorithm>
#include <array>
#include <stdexcept>

namespace candor::transport::http_policy {

namespace {

using detail::iequals;
using detail::trim_ows;

// "q=0", "q=0.0", "q=0.000": the client refuses this type.
bool is_zero_quality(std::string_view params) noexcept {
    while (!params.empty()) {
        const auto semi = params.find(';');
        auto p = trim_ows(params.substr(0, semi));
        params = semi == std::string_view::npos ? std::string_view{} : params.substr(semi + 1);
        if (p.size() < 2 || detail::ascii_lower(p[0]) != 'q' || p[1] != '=') continue;
        p.remove_prefix(2);
        if (p.empty() || p[0] != '0') return false;
        p.remove_prefix(1);
        if (!p.empty() && p[0] == '.') p.remove_prefix(1);
        return std::all_of(p.begin(), p.end(), [](char c) { return c == '0'; });
    }
    return false;
}

// Host part of "host[:port]" or "[v6]:port".
std::string_view host_of(std::string_view authority) noexcept {
    if (!authority.empty() && authority.front() == '[') {
        const auto close = authority.find(']');
        return close == std::string_view::npos ? authority : authority.substr(0, close + 1);
    }
    return authority.substr(0, authority.find(':'));
}

bool port_ok(std::string_view authority, std::string_view host) noexcept {
    auto rest = authority.substr(host.size());
    if (rest.empty()) return true;
    if (rest.front() != ':' || rest.size() == 1 || rest.size() > 6) return false;
    rest.remove_prefix(1);
    return std::all_of(rest.begin(), rest.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool is_loopback_host(std::string_view host) noexcept {
    return iequals(host, "localhost") || host == "127.0.0.1" || host == "[::1]";
}

}  // namespace

bool lists_media_type(std::string_view accept, std::string_view media_type) noexcept {
    while (!accept.empty()) {
        const auto comma = accept.find(',');
        const auto item = accept.substr(0, comma);
        accept = comma == std::string_view::npos ? std::string_view{} : accept.substr(comma + 1);
        const auto semi = item.find(';');
        const auto type = trim_ows(item.substr(0, semi));
        if (!iequals(type, media_type)) continue;
        if (semi != std::string_view::npos && is_zero_quality(item.substr(semi + 1))) continue;
        return true;
    }
    return false;
}

bool is_json(std::string_view content_type) noexcept {
    return iequals(trim_ows(content_type.substr(0, content_type.find(';'))), "application/json");
}

bool origin_allowed(std::string_view origin, const std::vector<std::string>& extra) noexcept {
    for (const auto& e : extra)
        if (e == "*" || iequals(e, origin)) return true;
    std::string_view rest;
    if (origin.substr(0, 7) == "http://") rest = origin.substr(7);
    else if (origin.substr(0, 8) == "https://") rest = origin.substr(8);
    else return false;
    const auto host = host_of(rest);
    return is_loopback_host(host) && port_ok(rest, host);
}

bool host_allowed(std::string_view host_header, const std::vector<std::string>& extra) noexcept {
    const auto host = host_of(trim_ows(host_header));
    if (!port_ok(trim_ows(host_header), host)) return false;
    if (is_loopback_host(host)) return true;
    for (const auto& e : extra)
        if (e == "*" || iequals(e, host)) return true;
    return false;
}

std::optional<std::string_view> bearer_token(std::string_view authorization) noexcept {
    authorization = trim_ows(authorization);
    if (authorization.size() < 7 || !iequals(authorization.substr(0, 6), "bearer") || authorization[6] != ' ')
        return std::nullopt;
    auto token = trim_ows(authorization.substr(7));
    if (token.empty()) return std::nullopt;
    return token;
}

bool protocol_version_supported(std::string_view version) noexcept {
    auto rules = mcp::rules_for(version);
    return rules && !rules->stateless;
}

bool claims_stateless_version(std::string_view version) noexcept {
    return !trim_ows(version).empty() && !protocol_version_supported(trim_ows(version));
}

std::string new_session_id() {
    std::array<unsigned char, 16> bytes{};
    if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1)
        throw std::runtime_error("RAND_bytes failed: no session id can be issued");
    static constexpr char digits[] = "0123456789abcdef";
    std::string id;
    id.reserve(bytes.size() * 2);
    for (unsigned char b : bytes) {
        id.push_back(digits[b >> 4]);
        id.push_back(digits[b & 0xF]);
    }
    return id;
}

std::string refusal_body(const refusal& r) {
    jsonrpc::error_object e;
    e.code = -32000;
    e.message = r.message;
    e.data = boost::json::value(boost::json::object{{"code", r.code}});
    return jsonrpc::encode_error(std::nullopt, e);
}

}  // namespace candor::transport::http_policy
