// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The OAuth settings of the standard command line (`candor::app::http_command_line`): each flag, else its
/// environment variable, and the resource server they make (docs/auth.md).
///
///     --oauth-issuer URL          CANDOR_OAUTH_ISSUER        turns OAuth on
///     --oauth-resource URI        CANDOR_OAUTH_RESOURCE      required with an issuer
///     --oauth-jwks PATH_OR_URL    CANDOR_OAUTH_JWKS          default: the issuer's jwks_uri
///     --oauth-scopes "a b"        CANDOR_OAUTH_SCOPES        scopes every call needs
///     --oauth-groups-claim CLAIM  CANDOR_OAUTH_GROUPS_CLAIM  groups or roles (dotted path)

#include <candor/http/auth/oauth.hpp>

#include <boost/system/result.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace candor::mcp {
class server;
}

namespace candor::auth {

struct oauth_settings {
    std::string issuer{};
    std::string resource{};
    std::string jwks{};
    std::string scopes{};
    std::string groups_claim{};

    /// OAuth is on when an issuer is set.
    bool enabled() const noexcept { return !issuer.empty(); }
};

/// The setting `flag` sets (`--oauth-issuer` → `&oauth_settings::issuer`), or null for a flag
/// that is not one of them.
std::string oauth_settings::*oauth_setting(std::string_view flag) noexcept;

/// Every flag's name, in `oauth_help`'s order ("--oauth-issuer", …).
std::vector<std::string_view> oauth_flags();

/// Fill the settings the command line left empty from the environment (`CANDOR_OAUTH_*`).
void read_environment(oauth_settings& s);

/// The flags' lines for `--help`.
std::string_view oauth_help() noexcept;

/// Build the resource server from the settings: check them, read a JWKS file (a value that is
/// not an http(s) URL is a path), and load the keys now, waiting at most the fetch timeout —
/// when they cannot be loaded yet, that is logged and requests get 503 until they can.
/// @return the authenticator for `http_options::authenticator`, or what is wrong (a sentence)
boost::system::result<std::shared_ptr<oauth_authenticator>, std::string> configure_oauth(mcp::server& srv,
                                                                                         const oauth_settings& s);

}  // namespace candor::auth
