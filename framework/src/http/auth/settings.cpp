// SPDX-License-Identifier: BSL-1.0
#include <candor/http/auth/settings.hpp>

#include <candor/mcp/server.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <utility>

namespace candor::auth {

namespace {

struct setting {
    std::string_view flag;
    const char* env;
    std::string oauth_settings::*member;
};

constexpr std::array<setting, 5> settings{{
    {"--oauth-issuer", "CANDOR_OAUTH_ISSUER", &oauth_settings::issuer},
    {"--oauth-resource", "CANDOR_OAUTH_RESOURCE", &oauth_settings::resource},
    {"--oauth-jwks", "CANDOR_OAUTH_JWKS", &oauth_settings::jwks},
    {"--oauth-scopes", "CANDOR_OAUTH_SCOPES", &oauth_settings::scopes},
    {"--oauth-groups-claim", "CANDOR_OAUTH_GROUPS_CLAIM", &oauth_settings::groups_claim},
}};

using text_or_why = boost::system::result<std::string, std::string>;

// A JWKS file of at most `bound` bytes (the operator's file; its size is checked first).
text_or_why read_file(const std::string& path, std::size_t bound) {
    const auto fail = [](std::string why) { return text_or_why(boost::system::in_place_error, std::move(why)); };
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) return fail("cannot read the JWKS file '" + path + "': " + ec.message());
    if (size > bound) return fail("the JWKS file '" + path + "' is larger than " + std::to_string(bound) + " bytes");
    std::ifstream in(path, std::ios::binary);
    std::string text(static_cast<std::size_t>(size), '\0');
    if (!in.read(text.data(), static_cast<std::streamsize>(text.size())))
        return fail("cannot read the JWKS file '" + path + "'");
    return text_or_why(boost::system::in_place_value, std::move(text));
}

}  // namespace

std::string oauth_settings::*oauth_setting(std::string_view flag) noexcept {
    for (const auto& s : settings)
        if (s.flag == flag) return s.member;
    return nullptr;
}

std::vector<std::string_view> oauth_flags() {
    std::vector<std::string_view> flags;
    for (const auto& s : settings) flags.push_back(s.flag);
    return flags;
}

void read_environment(oauth_settings& out) {
    for (const auto& s : settings) {
        auto& value = out.*(s.member);
        if (!value.empty()) continue;
        if (const char* e = std::getenv(s.env); e && *e) value = e;
    }
}

std::string_view oauth_help() noexcept {
    return "    --oauth-issuer URL   OAuth 2.1 resource server: accept access tokens (JWT) of this\n"
           "                         issuer instead of --tokens (docs/auth.md)\n"
           "      --oauth-resource URI   this server's canonical URI, the audience tokens must name\n"
           "      --oauth-jwks PATH_OR_URL   the issuer's keys (default: its metadata's jwks_uri)\n"
           "      --oauth-scopes \"A B\"  scopes every call needs\n"
           "      --oauth-groups-claim CLAIM  groups or roles of the caller (e.g. realm_access.roles)\n"
           "                         each also from $CANDOR_OAUTH_ISSUER, _RESOURCE, _JWKS, _SCOPES,\n"
           "                         _GROUPS_CLAIM\n";
}

boost::system::result<std::shared_ptr<oauth_authenticator>, std::string> configure_oauth(mcp::server& srv,
                                                                                         const oauth_settings& s) {
    if (s.resource.empty())
        return std::string("--oauth-resource (or CANDOR_OAUTH_RESOURCE) is required with an issuer");
    oauth_options o;
    o.issuer = s.issuer;
    o.resource = s.resource;
    o.resource_name = srv.options().title.empty() ? srv.options().name : srv.options().title;
    o.log = srv.options().log;
    o.scopes = split_scopes(s.scopes);
    o.policy.groups_claim = s.groups_claim;
    const bool from_file = !s.jwks.empty() && !s.jwks.starts_with("https://") && !s.jwks.starts_with("http://");
    if (!from_file) {
        o.jwks_uri = s.jwks;
    } else {
        auto text = read_file(s.jwks, o.key_limits.max_bytes);
        if (!text) return text.error();
        o.jwks_document = std::move(*text);
    }
    auto made = make_oauth(srv, std::move(o));
    if (!made) return made.error();
    auto oauth = *made;
    if (from_file) return oauth;

    // Load the keys before serving, on a private io_context (this thread serves nothing yet).
    boost::asio::io_context ioc;
    auto loaded = boost::asio::co_spawn(ioc, oauth->load_keys(), boost::asio::use_future);
    ioc.run();
    if (auto r = loaded.get(); !r)
        srv.options().log(mcp::log_level::warning,
                          "oauth: the issuer's keys are not loaded yet (" + r.error() +
                              "); requests get 503 AUTHORIZATION_SERVER_UNAVAILABLE until they are");
    return oauth;
}

}  // namespace candor::auth
