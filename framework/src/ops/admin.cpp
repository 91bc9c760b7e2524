// SPDX-License-Identifier: BSL-1.0
#include <candor/ops/admin.hpp>

#include <candor/json/write.hpp>

#include <boost/url/parse.hpp>
#include <boost/url/url_view.hpp>

#include <cstdlib>
#include <string_view>

namespace candor::ops {

namespace {

// Equal without an early exit on the first difference (token checks must not leak timing).
bool same_secret(std::string_view given, std::string_view secret) {
    if (secret.empty()) return false;
    std::size_t diff = given.size() ^ secret.size();
    for (std::size_t i = 0; i < given.size(); ++i)
        diff |= static_cast<unsigned char>(given[i]) ^ static_cast<unsigned char>(secret[i % secret.size()]);
    return diff == 0;
}

// The value of `name` in a Cookie header ("a=1; b=2"), as sent.
std::optional<std::string_view> cookie_value(std::string_view list, std::string_view name) {
    while (!list.empty()) {
        const auto end = list.find(';');
        auto item = list.substr(0, end);
        while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
        const auto eq = item.find('=');
        if (eq != std::string_view::npos && item.substr(0, eq) == name) return item.substr(eq + 1);
        if (end == std::string_view::npos) break;
        list.remove_prefix(end + 1);
    }
    return std::nullopt;
}

// The decoded value of query parameter `name`.
std::optional<std::string> query_value(const boost::urls::url_view& u, std::string_view name) {
    for (const auto& p : u.params())
        if (p.key == name && p.has_value) return p.value;
    return std::nullopt;
}

transport::admin_response text(unsigned status, std::string body) {
    transport::admin_response r;
    r.status = status;
    r.body = std::move(body);
    return r;
}

void harden(transport::admin_response& r) {
    r.headers.emplace_back("Cache-Control", "no-store");
    r.headers.emplace_back("X-Content-Type-Options", "nosniff");
    r.headers.emplace_back("X-Frame-Options", "DENY");
    r.headers.emplace_back("Referrer-Policy", "no-referrer");
}

}  // namespace

std::optional<transport::admin_response> handle_admin(const admin_options& opts, const transport::admin_request& req) {
    auto target = boost::urls::parse_origin_form(req.target);
    if (!target) return std::nullopt;
    const std::string path = target->path();

    if (path == "/metrics" && opts.metrics) {
        if (req.method != "GET") return text(405, "GET only\n");
        if (opts.journal) opts.metrics->set_journal_drops(opts.journal->dropped());
        if (opts.log) opts.metrics->set_log_drops(opts.log->dropped());
        auto r = text(200, opts.metrics->exposition());
        r.content_type = "text/plain; version=0.0.4; charset=utf-8";
        return r;
    }

    const bool console_on = opts.console && !opts.console_token.empty();
    if (!console_on || (path != "/ops" && path != "/ops/feed")) return std::nullopt;
    if (req.method != "GET") return text(405, "GET only\n");

    bool authorized = false;
    bool set_cookie = false;
    constexpr std::string_view bearer = "Bearer ";
    if (req.authorization.size() > bearer.size() && req.authorization.substr(0, bearer.size()) == bearer)
        authorized = same_secret(req.authorization.substr(bearer.size()), opts.console_token);
    if (!authorized)
        if (auto c = cookie_value(req.cookie, console_cookie)) authorized = same_secret(*c, opts.console_token);
    if (!authorized && path == "/ops")
        if (auto t = query_value(*target, "token")) authorized = set_cookie = same_secret(*t, opts.console_token);
    if (!authorized) {
        auto r = text(401, "the console needs its token: open /ops?token=TOKEN or send Authorization: Bearer TOKEN\n");
        r.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"candor-ops\"");
        harden(r);
        return r;
    }

    transport::admin_response r;
    if (path == "/ops/feed") {
        std::uint64_t after = 0;
        if (auto a = query_value(*target, "after")) after = std::strtoull(a->c_str(), nullptr, 10);
        r.content_type = "application/json";
        auto body = json::to_string(opts.console->feed(after));
        r.body = body ? std::move(*body) : std::string("{}");
    } else {
        r.content_type = "text/html; charset=utf-8";
        r.body = console::page(opts.console->feed(0));
        r.headers.emplace_back("Content-Security-Policy",
                               "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
                               "connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; "
                               "frame-ancestors 'none'");
        if (set_cookie)
            r.headers.emplace_back("Set-Cookie", std::string(console_cookie) + "=" + opts.console_token +
                                                     "; Path=/ops; HttpOnly; SameSite=Strict");
    }
    harden(r);
    return r;
}

transport::admin_handler make_admin_handler(admin_options opts) {
    return [o = std::move(opts)](const transport::admin_request& req) { return handle_admin(o, req); };
}

}  // namespace candor::ops
