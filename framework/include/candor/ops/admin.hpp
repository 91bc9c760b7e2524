// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The operators' HTTP paths on the transport's listener: `GET /metrics` (Prometheus text
/// format) and, when a console token is set, `GET /ops` (the console page) and
/// `GET /ops/feed?after=SEQ` (its JSON feed). Without a token `/ops` does not exist (404).
///
/// The console has its own bearer token, never the agents' ones. A browser opens
/// `/ops?token=TOKEN` once: the answer sets an HttpOnly, SameSite=Strict cookie scoped to
/// `/ops`, and the page removes the token from the address bar. Scripts may send
/// `Authorization: Bearer TOKEN` instead.

#include <candor/http/server.hpp>
#include <candor/ops/console.hpp>
#include <candor/ops/journal.hpp>
#include <candor/ops/log.hpp>
#include <candor/ops/metrics.hpp>

#include <memory>
#include <optional>
#include <string>

namespace candor::ops {

struct admin_options {
    /// Serves `/metrics` when set.
    std::shared_ptr<call_metrics> metrics{};
    /// Serves `/ops` when set together with a non-empty `console_token`.
    std::shared_ptr<ops::console> console{};
    std::string console_token{};
    /// Its drop count is exposed on `/metrics`.
    std::shared_ptr<ops::journal> journal{};
    /// The server's log; its drop count is exposed on `/metrics`.
    std::shared_ptr<ops::log_writer> log{};
};

/// The name of the console's cookie.
inline constexpr std::string_view console_cookie = "candor_ops";

/// Answer one admin request, or nothing for a path that is not served.
std::optional<transport::admin_response> handle_admin(const admin_options& opts, const transport::admin_request& req);

/// `handle_admin` bound to `opts`, for `http_options::admin`.
transport::admin_handler make_admin_handler(admin_options opts);

}  // namespace candor::ops
