#pragma once
// The helpdesk's tools.

#include "data.hpp"

#include <candor/envelope/envelope.hpp>
#include <candor/evidence/gated_action.hpp>
#include <candor/evidence/seal.hpp>
#include <candor/evidence/store.hpp>
#include <candor/mcp/server.hpp>

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace helpdesk {

struct settings {
    std::chrono::seconds token_ttl{15 * 60};
    std::chrono::seconds kb_stale_after{60 * 60};
    std::string slow_source;  ///< this search_everywhere source answers after 5 s
    std::string fail_source;  ///< this search_everywhere source fails at once
};

/// The approval step between archive's evidence gate and the archive itself. Return an
/// envelope to answer with instead of archiving (a plan waiting for approval, a refusal), or
/// nothing to go ahead. Unset: no approval step (the seam where `candor::validation`'s
/// elicitation / plan_token approval plugs in).
using approval_step = std::function<boost::asio::awaitable<std::optional<candor::envelope::envelope>>(
    const candor::evidence::verified_evidence&, const boost::json::object& arguments, candor::mcp::call_context&)>;

struct shared {
    std::shared_ptr<sc::sql_database> db;
    std::shared_ptr<const candor::evidence::key_ring> keys;
    std::shared_ptr<candor::evidence::evidence_store> evidence;
    settings config;
    approval_step approval;
};

/// Register search_tickets, list_service_accounts, find_unowned_accounts,
/// archive_service_accounts and search_everywhere.
void add_tools(candor::mcp::server& srv, const shared& s);

/// search_everywhere (search_everywhere.cpp).
std::shared_ptr<candor::mcp::tool_handler> make_search_everywhere(const shared& s);

}  // namespace helpdesk
