// SPDX-License-Identifier: BSL-1.0
// GCC 12 (at -O1 with the sanitizers) reports -Wmismatched-new-delete on coroutine frames:
// Asio's awaitable frame has its own operator new/delete pair; the warning is a false positive
// (see also validation/layers.hpp).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
#include "tools.hpp"

#include "orders.hpp"

#include <candor/mcp/typed_tool.hpp>
#include <candor/offload/worker.hpp>
#include <candor/paging/aggregate.hpp>
#include <candor/sql_collection/collection.hpp>
#include <candor/state/sql_plan_ledger.hpp>
#include <candor/validation/layers.hpp>

#include <algorithm>
#include <set>

#ifdef HELPDESK_FAULT_INJECTION
#include <csignal>
#include <cstdlib>
#endif

namespace helpdesk {

namespace ce = candor::envelope;
namespace ev = candor::evidence;
namespace mcp = candor::mcp;
namespace pg = candor::paging;
namespace cv = candor::validation;

// The evidence-gated actions take no arguments of their own: the evidence layer adds `ids` and
// `snapshot_token`, the approval layer `plan_token`. (Outside the anonymous namespace: GCC warns
// of coroutine frames of the framework's templates that name a type of this file only.)
struct archive_args {};
BOOST_DESCRIBE_STRUCT(archive_args, (), ())
struct suspend_args {};
BOOST_DESCRIBE_STRUCT(suspend_args, (), ())

namespace {

#ifdef HELPDESK_FAULT_INJECTION
// Test builds only (helpdesk_fault_injection): HELPDESK_KILL_AFTER=N kills the process with
// SIGKILL once the archive batch archived N accounts, before its commit; 'commit' kills it right
// after the commit, before the reply.
constexpr std::size_t fault_after_commit = static_cast<std::size_t>(-1);
void fault_point(std::size_t at) {
    static const char* spec = std::getenv("HELPDESK_KILL_AFTER");
    if (spec == nullptr) return;
    const std::string text(spec);
    if ((text == "commit" && at == fault_after_commit) || (text != "commit" && std::to_string(at) == text))
        ::raise(SIGKILL);
}
#else
constexpr std::size_t fault_after_commit = 0;
void fault_point(std::size_t) {}
#endif

pg::collection_options paging_options(const shared& s, std::size_t default_size) {
    pg::collection_options o;
    o.keys = s.keys;
    o.evidence = s.evidence;
    o.default_page_size = default_size;
    o.max_page_size = 100;
    o.token_ttl = s.config.token_ttl;
    return o;
}

std::shared_ptr<pg::collection_tool> search_tickets(const shared& s) {
    sc::collection_spec spec;
    spec.table = tickets_table();
    spec.worker = s.worker;
    // The argument budget (depth 5, 200 values) is checked first by the framework; this one
    // applies inside `filter`.
    spec.limits = {.max_depth = 2, .max_nodes = 190, .max_in = 50, .max_value_bytes = 200};
    auto o = paging_options(s, 20);
    o.accept_deadline = true;
    o.max_deadline_ms = 60'000;
    return sc::make_collection(
        s.db, std::move(spec),
        mcp::tool_info("search_tickets",
                       "Search helpdesk tickets, ordered by id, one page at a time over a pinned snapshot. "
                       "When the result says complete: false, read incomplete_reasons and continue with "
                       "continuation.cursor; absence of a ticket is only evidence when complete is true.")
            .with_title("Search tickets")
            .with_budget({.max_bytes = 64 * 1024, .max_depth = 5, .max_nodes = 200}),
        std::move(o));
}

// A table the helpdesk does not own: other programs (helpdesk-writer) insert, update and delete
// customers with plain SQL while agents walk it; each walk reads a held view of the database.
std::shared_ptr<pg::collection_tool> search_customers(const shared& s) {
    sc::collection_spec spec;
    spec.table = customers_table();
    spec.worker = s.worker;
    spec.limits = {.max_depth = 2, .max_nodes = 60, .max_in = 50, .max_value_bytes = 200};
    spec.orders = {{"by_region", {{"region"}}}, {"newest_first", {{"since", true}}}, {"by_name", {{"name"}}}};
    return sc::make_collection(
        s.db, std::move(spec),
        mcp::tool_info("search_customers",
                       "Search customers, one page at a time over one snapshot of a table other programs keep "
                       "changing. order_by: by_region (the default: region, then id), newest_first or by_name. "
                       "When complete is false, continue with continuation.cursor; SNAPSHOT_EXPIRED means start "
                       "the walk over.")
            .with_title("Search customers")
            .with_budget({.max_bytes = 16 * 1024, .max_depth = 5, .max_nodes = 80}),
        paging_options(s, 20));
}

struct accounts_query {
    std::optional<bool> owner_missing;
};
BOOST_DESCRIBE_STRUCT(accounts_query, (), (owner_missing))

void describe_contract(candor::contract::spec<accounts_query>& s) {
    s.field(&accounts_query::owner_missing)
        .description("true: only active accounts without an owner; false: only accounts with an owner");
}

// owner_missing: true  → unowned accounts that are still active (not archived)
//                false → accounts with an owner
boost::json::value accounts_filter(const accounts_query& q) {
    if (!q.owner_missing) return boost::json::object{};
    if (*q.owner_missing) return boost::json::object{{"owner", nullptr}, {"archived", false}};
    return boost::json::object{{"owner", boost::json::object{{"ne", nullptr}}}};
}

std::shared_ptr<pg::collection_tool> list_service_accounts(const shared& s) {
    sc::collection_spec spec;
    spec.table = accounts_table();
    spec.worker = s.worker;
    spec.visibility = account_visibility;
    return sc::make_collection<accounts_query>(
        s.db, std::move(spec),
        mcp::tool_info("list_service_accounts",
                       "List service accounts, ordered by id, over a pinned snapshot. The last page of a complete "
                       "walk carries snapshot_token: the evidence archive_service_accounts needs.")
            .with_title("List service accounts"),
        paging_options(s, 50), accounts_filter, "accounts-query/1");
}

struct find_unowned_args {
    int max_pages = 10;
    std::optional<std::string> cursor;
};
BOOST_DESCRIBE_STRUCT(find_unowned_args, (), (max_pages, cursor))

void describe_contract(candor::contract::spec<find_unowned_args>& s) {
    s.field(&find_unowned_args::max_pages)
        .description("Pages of 50 accounts to walk at most (default 10).")
        .range(1, 20)
        .optional();
    s.field(&find_unowned_args::cursor)
        .description("continuation.cursor of an earlier call, to resume its walk.")
        .min_length(1);
}

class find_unowned final : public mcp::tool<find_unowned_args> {
public:
    explicit find_unowned(std::shared_ptr<pg::collection_tool> accounts)
        : tool(mcp::tool_info("find_unowned_accounts",
                              "Inventory of active service accounts without an owner: walks "
                              "list_service_accounts (pages of 50) up to max_pages. complete: true with a "
                              "snapshot_token only if it walked everything; otherwise CLIENT_PAGE_LIMIT and a "
                              "continuation.cursor to pass back as cursor.")
                   .with_title("Find unowned service accounts")
                   .with_action(mcp::action_class::read_only)),
          accounts_(std::move(accounts)) {}

    boost::asio::awaitable<ce::envelope> call(find_unowned_args a, mcp::call_context& ctx) override {
        pg::walk_request r;
        r.query = {{"owner_missing", true}};
        r.cursor = std::move(a.cursor);
        r.caller = ctx.caller();
        r.deadline = ctx.deadline() - std::chrono::milliseconds(100);
        r.limits = {.max_pages = static_cast<std::size_t>(a.max_pages), .max_items = 100'000, .page_size = 50};
        r.budget = ctx.budget();
        auto e = co_await pg::walk_all(*accounts_, std::move(r));
        co_return e;
    }

private:
    std::shared_ptr<pg::collection_tool> accounts_;
};

// Archive unowned service accounts found by a complete list_service_accounts walk, once the
// user approved. All or nothing: every account is re-checked and archived in one transaction,
// together with the approval's use, so a crash leaves either all of it or none of it.

/// Re-check one account against the current state and archive it, in one serialized step inside
/// `tx` (no other archive can come between the check and the write, on any replica).
/// @return why it was skipped, or nothing when it was archived
boost::system::result<std::optional<ev::skip>, sc::db_error> archive_one(sc::sql_database& tx, const std::string& id,
                                                                         const mcp::principal& caller) {
    std::optional<ev::skip> skipped;
    auto written = sc::update_current(
        tx, accounts_table(), boost::json::value(id),
        [&](const std::optional<boost::json::object>& current) -> std::optional<boost::json::object> {
            if (!current) skipped = ev::skip{"ACCOUNT_NOT_FOUND", "no such account"};
            else if (!may_see_team(caller, std::string_view(current->at("team").as_string())))
                skipped = ev::skip{"ACCOUNT_NOT_VISIBLE", "the account is not visible to this caller"};
            else if (current->at("archived").as_bool())
                skipped = ev::skip{"ACCOUNT_ALREADY_ARCHIVED", "the account was archived already"};
            else if (!current->at("owner").is_null())
                skipped = ev::skip{"ACCOUNT_HAS_OWNER", "the account has an owner now"};
            else return boost::json::object{{"archived", true}};
            return std::nullopt;
        });
    if (!written) return written.error();
    return skipped;
}

boost::asio::awaitable<ce::envelope> archive(const shared& s, const cv::verdict& v, const mcp::principal& caller) {
    boost::json::array archived;
    boost::json::array skipped;
    cv::ledger_work batch = [&](sc::sql_database& tx) -> boost::system::result<void, sc::db_error> {
        fault_point(0);
        for (const auto& id : v.targets) {
            auto one = archive_one(tx, id, caller);
            if (!one) return one.error();
            if (*one) {
                skipped.push_back(
                    boost::json::object{{"id", id}, {"code", (*one)->code}, {"message", (*one)->message}});
            } else {
                archived.emplace_back(id);
                fault_point(archived.size());
            }
        }
        return {};
    };
    auto done = co_await v.commit(s.db, *s.worker, std::move(batch));
    if (!done) co_return ce::failure(std::move(done.error()));
    fault_point(fault_after_commit);
    // Ids the user left out when narrowing are skipped too, and say so.
    const std::set<std::string> kept(v.targets.begin(), v.targets.end());
    for (const auto& id : v.evidence->ids)
        if (kept.count(id) == 0)
            skipped.push_back(boost::json::object{{"id", id},
                                                  {"code", "NARROWED_BY_USER"},
                                                  {"message", "the user approved the action for other ids only"}});
    const bool any_skipped = !skipped.empty();
    auto e = ce::complete(boost::json::object{{"archived", std::move(archived)}, {"skipped", std::move(skipped)}});
    if (any_skipped)
        e.add_warning({std::string(ev::codes::objects_skipped), "some ids were not archived; see skipped for why", {}});
    co_return e;
}

std::shared_ptr<mcp::tool_handler> archive_accounts(const shared& s) {
    return cv::make_tool(
        mcp::tool_info("archive_service_accounts",
                       "Archive service accounts (irreversible: they stop authenticating). Needs the "
                       "snapshot_token of a complete list_service_accounts walk (e.g. from "
                       "find_unowned_accounts) and ids that walk returned, and the user's approval: "
                       "asked through elicitation when the client supports it; otherwise the first "
                       "call answers PLAN_TOKEN_REQUIRED with the plan and a plan_token, and a second "
                       "call with the same arguments plus that plan_token archives. Each account is "
                       "checked again (still unowned, not archived) when it is archived; the result "
                       "lists archived and skipped ids.")
            .with_title("Archive service accounts")
            .with_action(mcp::action_class::irreversible_write)
            .with_scopes({"accounts:archive"}),
        [s](archive_args, const cv::verdict& v, mcp::call_context& ctx) -> boost::asio::awaitable<ce::envelope> {
            // Named: GCC 12 destroys temporaries of a co_await expression twice.
            const mcp::principal caller = ctx.caller();
            co_return co_await archive(s, v, caller);
        },
        ev::evidence_requirement{"list_service_accounts", s.keys, s.evidence, 100, {}},
        cv::approval<archive_args>{
            .plan =
                [](const archive_args&, const cv::verdict& v) {
                    return cv::action_plan{.summary = "Archive " + std::to_string(v.targets.size()) +
                                                      " service account(s); archived accounts stop authenticating.",
                                           .targets = v.targets};
                },
            // The approval's use is recorded in the batch's transaction (`commit`), not before it.
            .use = cv::plan_use_timing::with_action,
            .options = s.approval});
}

struct read_article_args {
    std::string id;
    std::optional<std::int64_t> offset;
};
BOOST_DESCRIBE_STRUCT(read_article_args, (), (id, offset))

void describe_contract(candor::contract::spec<read_article_args>& s) {
    s.field(&read_article_args::id).description("The article's id (kb-001, …), as search_everywhere shows it.");
    s.field(&read_article_args::offset)
        .description(
            "Where in the body to start, in bytes (default 0): to read on after a FIELD_TRUNCATED "
            "body, offset plus the warning's kept.")
        .range(0, 100'000'000)
        .optional();
}

// Suspend customers (they may no longer order) found by a complete search_customers walk. The
// table is written by other programs too: a customer changed or deleted since the walk delivered
// it is skipped with TARGET_CHANGED — the agent (and whoever approved) saw the row as it was.

/// Suspend one customer if it is still as the walk `walk` delivered it.
boost::asio::awaitable<boost::system::result<void, ev::skip>> suspend_one(const shared& s, std::string walk,
                                                                          std::string id) {
    enum class outcome { done, changed, failed };
    auto suspend = [db = s.db, evidence = s.evidence, walk, id]() {
        // The row checked against the walk, then a write that happens only while the row is
        // still what was checked (another program may write in between).
        const std::string ids[] = {id};
        std::vector<boost::json::object> now;
        auto changed = sc::changed_since_walk(*db, customers_table(), *evidence, walk, ids,
                                              std::chrono::system_clock::now(), &now);
        if (!changed) return outcome::failed;
        if (!changed->empty()) return outcome::changed;
        const auto& row = now.front();
        const sc::sql_value cas[] = {id, sc::detail::to_sql(row.at("name")), sc::detail::to_sql(row.at("region")),
                                     sc::detail::to_sql(row.at("since"))};
        auto written = db->execute(
            "UPDATE customers SET may_order = 0 WHERE id = ? AND name = ? AND region = ? AND since = ?", cas);
        if (!written) return outcome::failed;
        return *written == 1 ? outcome::done : outcome::changed;
    };
    const auto result = co_await s.worker->run(std::move(suspend));
    if (result == outcome::failed)
        co_return ev::skip{"SOURCE_UNAVAILABLE", "the database failed; the customer was left unchanged"};
    if (result == outcome::changed)
        co_return ev::skip{std::string(ev::codes::target_changed),
                           "the customer changed or was deleted after the walk that found it; walk again"};
    boost::system::result<void, ev::skip> ok;
    co_return ok;
}

std::shared_ptr<mcp::tool_handler> suspend_customers(const shared& s) {
    return cv::make_tool(
        mcp::tool_info("suspend_customers",
                       "Suspend customers: they may no longer order. Needs the snapshot_token of a "
                       "complete search_customers walk and ids that walk returned. Other programs "
                       "change customers too: one changed or deleted since that walk is skipped with "
                       "TARGET_CHANGED (walk again to see it as it is now). The result lists "
                       "suspended (done) and skipped ids.")
            .with_title("Suspend customers")
            .with_action(mcp::action_class::reversible_write),
        [s](suspend_args, const cv::verdict& v, mcp::call_context&) -> boost::asio::awaitable<ce::envelope> {
            // The walk the evidence names is the one each customer is compared with.
            const std::string walk = v.evidence->claims.walk;
            ev::object_action suspend = [&s, walk](const std::string& id) { return suspend_one(s, walk, id); };
            co_return co_await ev::act_on_each(v.targets, std::move(suspend));
        },
        ev::evidence_requirement{"search_customers", s.keys, s.evidence, 100, {}});
}

// A knowledge-base article, whole or from an offset. A body longer than the result's byte budget
// is cut by the framework (FIELD_TRUNCATED), and its warning says how to read on.
class read_article final : public mcp::tool<read_article_args> {
public:
    explicit read_article(const shared& s)
        : tool(mcp::tool_info("read_article",
                              "Read a knowledge-base article's body, from offset (bytes; default 0). A long body "
                              "comes in parts: when the result carries FIELD_TRUNCATED, call again with offset "
                              "increased by its kept.")
                   .with_title("Read an article")
                   .with_action(mcp::action_class::read_only)
                   .with_truncated_rest("call read_article with the same id and offset increased by kept")),
          db_(s.db),
          worker_(s.worker) {}

    boost::asio::awaitable<ce::envelope> call(read_article_args a, mcp::call_context&) override {
        struct found {
            std::string title;
            std::string body;
        };
        std::optional<found> article;
        const sc::sql_value id[] = {a.id};
        auto r = co_await worker_->run([&] {
            return db_->query("SELECT title, body FROM kb_articles WHERE id = ?", id, [&](const sc::sql_row& row) {
                article = found{std::get<std::string>(row.at(0)), std::get<std::string>(row.at(1))};
                return false;
            });
        });
        candor::issue refused;
        refused.where = candor::layer::external;
        if (!r) {
            refused.code = "SOURCE_UNAVAILABLE";
            refused.message = "the knowledge base could not be read; try again later";
            co_return ce::failure({std::move(refused)});
        }
        if (!article) {
            refused.code = "ARTICLE_NOT_FOUND";
            refused.path = "/id";
            refused.message = "no article has this id";
            refused.repairable = true;
            co_return ce::failure({std::move(refused)});
        }
        const auto size = article->body.size();
        std::size_t from = static_cast<std::size_t>(a.offset.value_or(0));
        if (from > size) {
            refused.code = "OFFSET_PAST_END";
            refused.path = "/offset";
            refused.message = "the body has " + std::to_string(size) + " bytes";
            refused.repairable = true;
            refused.details["length"] = size;
            co_return ce::failure({std::move(refused)});
        }
        // Never start inside a character.
        while (from > 0 && from < size && (static_cast<unsigned char>(article->body[from]) & 0xC0) == 0x80) --from;
        co_return ce::complete(boost::json::object{{"id", a.id},
                                                   {"title", article->title},
                                                   {"offset", from},
                                                   {"length", size},
                                                   {"body", std::string_view(article->body).substr(from)}});
    }

private:
    std::shared_ptr<sc::sql_database> db_;
    std::shared_ptr<candor::offload::worker> worker_;
};

}  // namespace

boost::system::result<void, sc::db_error> add_tools(mcp::server& srv, shared s) {
    // One thread for SQLite's one connection; a PostgreSQL pool serves a few at once.
    if (!s.worker)
        s.worker =
            std::make_shared<candor::offload::worker>(s.db->dialect() == candor::store::sql_dialect::postgres ? 4 : 1);
    if (!s.approval.plan_ledger) {
        // Executed plans are remembered in the helpdesk's own database: across restarts, and in
        // the same transaction as the archive they approve.
        auto ledger = candor::state::sql_plan_ledger::open(s.db, s.worker);
        if (!ledger) return ledger.error();
        s.approval.plan_ledger = *ledger;
    }
    if (!s.approval.plan_keys) s.approval.plan_keys = s.keys;
    // A rebuilt index is news for whoever subscribed to it, on this replica and the others.
    s.index_rebuilt = [&srv] { srv.notify_resource_updated(kb_index_uri); };
    auto accounts = list_service_accounts(s);
    srv.add_tool(search_tickets(s)).value();
    srv.add_tool(search_customers(s)).value();
    srv.add_tool(suspend_customers(s)).value();
    srv.add_tool(accounts).value();
    srv.add_tool(std::make_shared<find_unowned>(accounts)).value();
    srv.add_tool(archive_accounts(s)).value();
    srv.add_tool(make_search_everywhere(s)).value();
    srv.add_tool(make_reindex_knowledge_base(s)).value();
    add_index_resource(srv, s).value();
    srv.add_tool(std::make_shared<read_article>(s)).value();
    srv.add_tool(make_order_tool(s.db, s.worker, s.repairs)).value();
    return {};
}

}  // namespace helpdesk
