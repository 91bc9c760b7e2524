// SPDX-License-Identifier: BSL-1.0
#pragma once
// The helpdesk's tools.

#include "data.hpp"

#include <candor/envelope/envelope.hpp>
#include <candor/evidence/gate.hpp>
#include <candor/evidence/store.hpp>
#include <candor/mcp/server.hpp>
#include <candor/offload/worker.hpp>
#include <candor/seal/key_ring.hpp>
#include <candor/validation/approval_gate.hpp>
#include <candor/validation/repair_budget.hpp>

#include <functional>
#include <string_view>

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <memory>
#include <string>

namespace helpdesk {

struct settings {
    std::chrono::seconds token_ttl{15 * 60};
    std::chrono::seconds kb_stale_after{60 * 60};
    std::chrono::seconds reindex_duration{5};  ///< how long reindex_knowledge_base takes
    std::string slow_source;                   ///< this search_everywhere source answers after 5 s
    std::string fail_source;                   ///< this search_everywhere source fails at once
};

struct shared {
    std::shared_ptr<sc::sql_database> db;
    std::shared_ptr<const candor::seal::key_ring> keys;
    std::shared_ptr<candor::evidence::evidence_store> evidence;
    settings config;
    /// Runs the collections' statements and the archive's transactions off the I/O threads
    /// (default: one thread for SQLite, four for PostgreSQL).
    std::shared_ptr<candor::offload::worker> worker;
    /// Approval before archiving: elicitation when the client can be asked, else a plan and a
    /// `plan_token` (defaults: plan tokens sealed with `keys`, the ledger of executed plans the
    /// `candor_plan_use` table of `db`).
    candor::validation::approval_options approval;
    /// The repair budget of create_order_draft (default: one of its own, counted in this
    /// process); replicas share its counts (`repair_budget_options::shared`).
    std::shared_ptr<candor::validation::repair_budget> repairs;
    /// Called when reindex_knowledge_base has written a new index (`add_tools` sets it: the
    /// resource `helpdesk://kb/index` is updated, on every replica that shares notices).
    std::function<void()> index_rebuilt;
};

/// The knowledge base's index as a resource: its size and when it was last rebuilt.
inline constexpr std::string_view kb_index_uri = "helpdesk://kb/index";

/// Register search_tickets, list_service_accounts, find_unowned_accounts,
/// archive_service_accounts, search_everywhere, reindex_knowledge_base and read_article, and the
/// resource `helpdesk://kb/index`.
/// @return the database's failure when the plan ledger's table could not be created
boost::system::result<void, sc::db_error> add_tools(candor::mcp::server& srv, shared s);

/// search_everywhere (search_everywhere.cpp).
std::shared_ptr<candor::mcp::tool_handler> make_search_everywhere(const shared& s);

/// reindex_knowledge_base (reindex.cpp).
std::shared_ptr<candor::mcp::tool_handler> make_reindex_knowledge_base(const shared& s);
/// The resource `helpdesk://kb/index` (reindex.cpp).
boost::system::result<void, candor::mcp::registration_error> add_index_resource(candor::mcp::server& srv,
                                                                                const shared& s);

}  // namespace helpdesk
