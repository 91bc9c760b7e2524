// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// `--http [HOST:]PORT` for the standard command line (component http): serves over the
/// Streamable HTTP transport, with its options
///
///     --stateless          no sessions; every POST is self-contained
///     --tokens FILE        bearer tokens: lines 'TOKEN PRINCIPAL'
///     --oauth-issuer URL   an OAuth 2.1 resource server instead (and the other --oauth-*
///                          flags of candor/http/auth/settings.hpp; docs/auth.md)
///     --allow-origin O     a browser Origin accepted besides loopback ones (repeatable)
///     --threads N          I/O threads
///
/// A server asks for it in `app_options::extensions`:
///
///     return candor::app::run(srv, argc, argv, {.extensions = {std::make_shared<candor::app::http_command_line>()}});

#include <candor/app/command_line.hpp>
#include <candor/http/auth/settings.hpp>
#include <candor/http/server.hpp>

#include <chrono>
#include <string>
#include <vector>

namespace candor::app {

class http_command_line final : public command_line_extension {
public:
    /// @param defaults the transport's settings before the flags change them (limits, endpoint)
    explicit http_command_line(transport::http_options defaults = {});

    /// The transport's settings as the flags left them; a server may still change them in
    /// `app_options::prepare` (and `ops_command_line` sets `admin` here before serving).
    transport::http_options& http_options() noexcept { return opts_; }

    std::vector<extra_option> flags() override;
    std::string help() const override;
    std::string synopsis() const override;
    bool serving() const override { return serving_; }
    std::string check(bool serving) override;
    bool start(mcp::server& srv) override;
    int serve(mcp::server& srv) override;

private:
    extra_option milliseconds_flag(std::string name, std::chrono::milliseconds& out);

    transport::http_options opts_;
    auth::oauth_settings oauth_;
    bool serving_ = false;
    bool http_only_flag_ = false;  // --stateless/--tokens/--allow-origin/--threads/--oauth-* seen
};

}  // namespace candor::app
