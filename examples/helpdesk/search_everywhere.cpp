// SPDX-License-Identifier: BSL-1.0
// search_everywhere: one query, three sources at once (tickets by title, the knowledge base,
// the chat log), each under its own deadline; late or failing sources are named, the rest kept.
// GCC 12 (at -O1 with the sanitizers) reports -Wmismatched-new-delete on coroutine frames:
// Asio's awaitable frame has its own operator new/delete pair; the warning is a false positive
// (see also validation/layers.hpp).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

#include "tools.hpp"

#include <candor/gather/fan_out.hpp>
#include <candor/mcp/typed_tool.hpp>
#include <candor/offload/worker.hpp>

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <ctime>
#include <stdexcept>

namespace helpdesk {

namespace ce = candor::envelope;
namespace mcp = candor::mcp;
namespace ga = candor::gather;

namespace {

constexpr std::size_t per_source_limit = 20;

struct source_query {
    std::string name;
    std::string sql;  // `uses` placeholders, each the LIKE pattern of the query text
    std::size_t uses = 1;
    std::vector<std::string> columns;
};

// `column` contains the pattern's text, ignoring case: lower() on both sides, so LIKE means
// the same on SQLite (case-insensitive for ASCII) and PostgreSQL (case-sensitive).
std::string contains(std::string_view column) {
    return "lower(" + std::string(column) + ") LIKE ('%' || lower(CAST(? AS TEXT)) || '%') ESCAPE '!'";
}

// The query text with LIKE's wildcards (and the escape character) escaped: it matches itself.
std::string like_pattern(std::string_view text) {
    std::string out;
    for (char c : text) {
        if (c == '%' || c == '_' || c == '!') out += '!';
        out += c;
    }
    return out;
}

const source_query& query_of(std::string_view name) {
    // The query is a bound parameter; the SQL runs on SQLite and PostgreSQL alike.
    static const std::string limit = " LIMIT " + std::to_string(per_source_limit + 1);
    static const source_query q[] = {
        {"tickets",
         "SELECT id, title, status FROM tickets WHERE candor_to IS NULL AND " + contains("title") + " ORDER BY id" +
             limit,
         1,
         {"id", "title", "status"}},
        // A snippet of each article (read_article reads the whole body).
        {"knowledge_base",
         "SELECT id, title, substr(body, 1, 200) FROM kb_articles WHERE " + contains("title") + " OR " +
             contains("body") + " ORDER BY id" + limit,
         2,
         {"id", "title", "snippet"}},
        {"chat",
         "SELECT id, channel, author, text, at FROM chat_messages WHERE " + contains("text") + " ORDER BY id" + limit,
         1,
         {"id", "channel", "author", "text", "at"}},
    };
    for (const auto& s : q)
        if (s.name == name) return s;
    throw std::logic_error("unknown source");
}

std::string iso_time(std::chrono::system_clock::time_point t) {
    const std::time_t tt = std::chrono::system_clock::to_time_t(t);
    std::tm tm{};
    gmtime_r(&tt, &tm);
    char b[32];
    std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return b;
}

/// What one source found, read on the worker (nothing here touches the strand).
struct found {
    boost::json::array items;
    /// knowledge_base only: when its index was last refreshed
    std::optional<std::chrono::system_clock::time_point> refreshed;
};

found read_source(sc::sql_database& db, const std::string& name, const std::string& text) {
    const auto& q = query_of(name);
    found out;
    const std::vector<sc::sql_value> params(q.uses, like_pattern(text));
    auto r = db.query(q.sql, params, [&](const sc::sql_row& row) {
        boost::json::object item;
        for (std::size_t i = 0; i < q.columns.size(); ++i)
            if (const auto* s = std::get_if<std::string>(&row[i])) item[q.columns[i]] = *s;
        out.items.push_back(std::move(item));
        return true;
    });
    if (!r) throw std::runtime_error("database: " + r.error().message);
    if (name == "knowledge_base") {
        auto refreshed = kb_refreshed_at(db);
        if (!refreshed) throw std::runtime_error("database: " + refreshed.error().message);
        out.refreshed = *refreshed;
    }
    return out;
}

boost::asio::awaitable<ce::envelope> ask(std::shared_ptr<sc::sql_database> db,
                                         std::shared_ptr<candor::offload::worker> worker, std::string name,
                                         std::string text, settings config) {
    if (config.fail_source == name) throw std::runtime_error("source failure injected by --fail-source");
    if (config.slow_source == name) {
        // Later than any default deadline; cancelled with the fan-out's timer.
        boost::asio::steady_timer t(co_await boost::asio::this_coro::executor, std::chrono::seconds(5));
        co_await t.async_wait(boost::asio::use_awaitable);
    }
    // SQLite blocks: the statement runs on the worker, and the source's deadline ends the wait
    // (the statement then finishes on its own and its rows are dropped).
    // Named, not a temporary in the co_await expression: GCC 12 destroys such a temporary twice.
    auto read = [db, name, text] { return read_source(*db, name, text); };
    auto f = co_await worker->run_cancellable(std::move(read));
    const bool more = f.items.size() > per_source_limit;
    if (more) f.items.pop_back();
    ce::envelope e = more ? ce::partial(std::move(f.items), {std::string(ce::reason_codes::result_limit_reached),
                                                             "more than " + std::to_string(per_source_limit) +
                                                                 " matches; use a more specific query",
                                                             {{"limit", per_source_limit}}})
                          : ce::complete(std::move(f.items));
    if (more) e.continue_with(ce::continuation::narrow_query("add words to the query"));
    if (f.refreshed) {
        const auto age =
            std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now() - *f.refreshed);
        if (age >= config.kb_stale_after)
            e.add_warning({std::string(ce::warning_codes::stale_index),
                           "the knowledge-base index was last refreshed " + iso_time(*f.refreshed) +
                               "; newer articles may be missing",
                           {{"refreshed_at", iso_time(*f.refreshed)}, {"age_seconds", age.count()}}});
    }
    co_return e;
}

struct search_args {
    std::string query;
    int deadline_ms = 2000;
};
BOOST_DESCRIBE_STRUCT(search_args, (), (query, deadline_ms))

void describe_contract(candor::contract::spec<search_args>& s) {
    s.field(&search_args::query).description("Words to look for in every source").length(1, 200);
    s.field(&search_args::deadline_ms)
        .description("Time each source has to answer, in milliseconds (default 2000).")
        .range(1, 60000)
        .optional();
}

class search_everywhere final : public mcp::tool<search_args> {
public:
    explicit search_everywhere(const shared& s)
        : tool(mcp::tool_info("search_everywhere",
                              "Search tickets (by title), the knowledge base and the chat log at once. Each "
                              "source has deadline_ms to answer; a late or failing source is named in "
                              "SOURCE_UNAVAILABLE and the others' results are kept.")
                   .with_title("Search everywhere")
                   .with_action(mcp::action_class::read_only)
                   // A client that declares the tasks extension may follow a slow search as a task.
                   .with_task_support(mcp::task_support::optional)
                   .with_deadline(std::chrono::seconds(65))),
          db_(s.db),
          worker_(s.worker),
          config_(s.config) {}

    boost::asio::awaitable<ce::envelope> call(search_args a, mcp::call_context& ctx) override {
        const std::chrono::milliseconds deadline(a.deadline_ms);
        // Progress (sent only to a client that passed a progressToken): the answer then comes as
        // a stream of several events.
        ctx.progress(0, 3, "asking the tickets, the knowledge base and the chat log");
        std::vector<ga::source> sources;
        for (const char* name : {"tickets", "knowledge_base", "chat"}) {
            sources.push_back(
                {name, deadline, [db = db_, w = worker_, n = std::string(name), text = a.query, c = config_] {
                     return ask(db, w, n, text, c);
                 }});
        }
        auto e = co_await ga::fan_out(std::move(sources), ctx.budget());
        ctx.progress(3, 3, "every source answered or gave up");
        co_return e;
    }

private:
    std::shared_ptr<sc::sql_database> db_;
    std::shared_ptr<candor::offload::worker> worker_;
    settings config_;
};

}  // namespace

std::shared_ptr<mcp::tool_handler> make_search_everywhere(const shared& s) {
    return std::make_shared<search_everywhere>(s);
}

}  // namespace helpdesk
