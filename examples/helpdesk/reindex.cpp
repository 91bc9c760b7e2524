// SPDX-License-Identifier: BSL-1.0
// reindex_knowledge_base: a long-running job, run as a task. It rebuilds the knowledge base's
// word index (`kb_index`: one row per word and article), reporting progress as it goes, and
// stretches its work over `--reindex-seconds` (default 5) so that tests and demos can poll,
// cancel or lose it mid-way. The new index, the refresh time search_everywhere's STALE_INDEX
// warning reads, and a row in `kb_index_runs` (task_id, finished_at) are written in one
// transaction at the end: a run that was cancelled or lost is the row that never appears.
// GCC 12 reports -Wmismatched-new-delete on coroutine frames (see search_everywhere.cpp).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

#include "tools.hpp"

#include <candor/mcp/typed_tool.hpp>
#include <candor/seal/key_ring.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/describe/class.hpp>

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <functional>
#include <set>
#include <stdexcept>
#include <utility>

namespace helpdesk {

namespace ce = candor::envelope;
namespace mcp = candor::mcp;

namespace {

struct reindex_args {};
BOOST_DESCRIBE_STRUCT(reindex_args, (), ())

// The words of a text: runs of ASCII letters and digits, lower-cased, three characters or more.
void add_words(std::string_view text, const std::string& article, std::set<std::pair<std::string, std::string>>& out) {
    std::string word;
    auto flush = [&] {
        if (word.size() >= 3) out.emplace(word, article);
        word.clear();
    };
    for (char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (std::isalnum(u) && u < 0x80) word += static_cast<char>(std::tolower(u));
        else flush();
    }
    flush();
}

struct article_words {
    std::size_t articles = 0;
    std::set<std::pair<std::string, std::string>> entries;  // (word, article id)
};

boost::system::result<article_words, sc::db_error> read_words(sc::sql_database& db) {
    article_words out;
    auto r = db.query("SELECT id, title, body FROM kb_articles ORDER BY id", {}, [&](const sc::sql_row& row) {
        const auto& id = std::get<std::string>(row.at(0));
        add_words(std::get<std::string>(row.at(1)), id, out.entries);
        add_words(std::get<std::string>(row.at(2)), id, out.entries);
        ++out.articles;
        return true;
    });
    if (!r) return r.error();
    return out;
}

// The new index, the refresh time and the record of this run: all of it or none.
boost::system::result<void, sc::db_error> write_index(sc::sql_database& db, const article_words& words,
                                                      const std::string& task_id, std::int64_t finished_ms) {
    return db.transaction([&](sc::sql_database& tx) -> boost::system::result<void, sc::db_error> {
        if (auto r = tx.execute("DELETE FROM kb_index", {}); !r) return r.error();
        for (const auto& [word, article] : words.entries) {
            const sc::sql_value p[] = {word, article};
            if (auto r = tx.execute("INSERT INTO kb_index(word, article_id) VALUES(?, ?)", p); !r) return r.error();
        }
        const sc::sql_value at[] = {std::to_string(finished_ms)};
        if (auto r = tx.execute("UPDATE helpdesk_meta SET value = ? WHERE key = 'kb_refreshed_at'", at); !r)
            return r.error();
        const sc::sql_value run[] = {task_id.empty() ? sc::sql_value(nullptr) : sc::sql_value(task_id), finished_ms};
        if (auto r = tx.execute("INSERT INTO kb_index_runs(task_id, finished_at) VALUES(?, ?)", run); !r)
            return r.error();
        return {};
    });
}

candor::issue unavailable() {
    candor::issue i;
    i.code = "SOURCE_UNAVAILABLE";
    i.message = "the knowledge base could not be read or written; the index is unchanged; try again later";
    i.where = candor::layer::external;
    return i;
}

class reindex_knowledge_base final : public mcp::tool<reindex_args> {
public:
    explicit reindex_knowledge_base(const shared& s)
        : tool(mcp::tool_info("reindex_knowledge_base",
                              "Rebuild the knowledge base's search index. A long job: it runs as a task (poll "
                              "tasks/get), reports progress, and may be cancelled (tasks/cancel), which leaves "
                              "the index as it was. When it completes, search_everywhere no longer warns "
                              "STALE_INDEX.")
                   .with_title("Rebuild the knowledge-base index")
                   .with_action(mcp::action_class::reversible_write)
                   .with_task_support(mcp::task_support::required)
                   .with_deadline(s.config.reindex_duration + std::chrono::minutes(1))),
          db_(s.db),
          worker_(s.worker),
          duration_(s.config.reindex_duration),
          stale_after_(s.config.kb_stale_after),
          index_rebuilt_(s.index_rebuilt) {}

    boost::asio::awaitable<ce::envelope> call(reindex_args, mcp::call_context& ctx) override {
        // A fresh index is rebuilt only if the user wants it, when the client can ask them
        // (before anything changes: a question may come back in a retry).
        if (ctx.can_elicit()) {
            auto refreshed_at = [db = db_] { return kb_refreshed_at(*db); };
            const auto refreshed = co_await worker_->run(std::move(refreshed_at));
            if (!refreshed) co_return ce::failure({unavailable()});
            const auto age = std::chrono::system_clock::now() - *refreshed;
            if (age < stale_after_) {
                std::string question = "The knowledge-base index was rebuilt " +
                                       std::to_string(std::chrono::duration_cast<std::chrono::minutes>(age).count()) +
                                       " minute(s) ago and is not stale. Rebuild it anyway? It takes about " +
                                       std::to_string(duration_.count()) + " s.";
                boost::json::object no_fields{{"type", "object"}, {"properties", boost::json::object{}}};
                const auto answer = co_await ctx.elicit(std::move(question), std::move(no_fields));
                if (!answer || answer->action != mcp::elicitation_action::accept)
                    co_return ce::complete(boost::json::object{
                        {"rebuilt", false}, {"reason", "the index is fresh, and the user did not ask to rebuild it"}});
            }
        }
        auto read = [db = db_] { return read_words(*db); };
        auto words = co_await worker_->run(std::move(read));
        if (!words) co_return ce::failure({unavailable()});
        // The work is spread over the configured time, one step per article (at least ten
        // steps), each reported as progress.
        const std::size_t steps = std::max<std::size_t>(words->articles, 10);
        const auto step = std::chrono::duration_cast<std::chrono::milliseconds>(duration_) / steps;
        boost::asio::steady_timer wait(ctx.executor());
        for (std::size_t i = 0; i < steps; ++i) {
            wait.expires_after(step);
            auto [ec] = co_await wait.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
            if (ec || ctx.cancelled()) co_return cancelled();
            ctx.progress(static_cast<double>(i + 1), static_cast<double>(steps),
                         "indexed " + std::to_string((i + 1) * words->articles / steps) + " of " +
                             std::to_string(words->articles) + " articles");
        }
        if (ctx.cancelled()) co_return cancelled();
        const auto finished_ms = candor::seal::to_epoch_ms(std::chrono::system_clock::now());
        auto write = [&, task = ctx.task_id()] { return write_index(*db_, *words, task, finished_ms); };
        const auto written = co_await worker_->run(std::move(write));
        if (!written) co_return ce::failure({unavailable()});
        if (index_rebuilt_) index_rebuilt_();
        boost::json::object done{
            {"articles", words->articles}, {"index_entries", words->entries.size()}, {"finished_at_ms", finished_ms}};
        if (!ctx.task_id().empty()) done["task_id"] = ctx.task_id();
        co_return ce::complete(std::move(done));
    }

private:
    static ce::envelope cancelled() {
        candor::issue i;
        i.code = "REINDEX_CANCELLED";
        i.message = "the rebuild was cancelled; the index is unchanged";
        i.where = candor::layer::external;
        return ce::failure({std::move(i)});
    }

    std::shared_ptr<sc::sql_database> db_;
    std::shared_ptr<candor::offload::worker> worker_;
    std::chrono::seconds duration_;
    std::chrono::seconds stale_after_;
    std::function<void()> index_rebuilt_;
};

}  // namespace

std::shared_ptr<mcp::tool_handler> make_reindex_knowledge_base(const shared& s) {
    return std::make_shared<reindex_knowledge_base>(s);
}

boost::system::result<void, mcp::registration_error> add_index_resource(mcp::server& srv, const shared& s) {
    auto read = [db = s.db, worker = s.worker](const mcp::resource_request&)
        -> boost::asio::awaitable<std::optional<std::vector<mcp::resource_contents>>> {
        auto count = [db] {
            std::int64_t entries = 0, articles = 0;
            boost::json::value refreshed;  // null until a first rebuild
            auto r = db->query(
                "SELECT (SELECT COUNT(*) FROM kb_index), (SELECT COUNT(DISTINCT article_id) FROM "
                "kb_index), (SELECT value FROM helpdesk_meta WHERE key = 'kb_refreshed_at')",
                {}, [&](const sc::sql_row& row) {
                    entries = std::get<std::int64_t>(row.at(0));
                    articles = std::get<std::int64_t>(row.at(1));
                    std::int64_t ms = 0;
                    if (const auto* v = std::get_if<std::string>(&row.at(2));
                        v && std::from_chars(v->data(), v->data() + v->size(), ms).ec == std::errc{})
                        refreshed = ms;
                    return false;
                });
            return r ? std::optional<boost::json::object>(boost::json::object{
                           {"articles", articles}, {"index_entries", entries}, {"refreshed_at_ms", refreshed}})
                     : std::nullopt;
        };
        auto index = co_await worker->run(std::move(count));
        // The database failed: a reader has no error value of its own, and an empty index would
        // be a lie; the server answers -32603 and logs it.
        if (!index) throw std::runtime_error("the knowledge base could not be read");
        std::vector<mcp::resource_contents> out;
        out.push_back(mcp::resource_contents::of_text(std::string(kb_index_uri), "application/json",
                                                      boost::json::serialize(*index)));
        co_return out;
    };
    return srv.add_resource({std::string(kb_index_uri),
                             "knowledge-base-index",
                             "Knowledge-base index",
                             "The knowledge base's search index: how many articles and entries it holds, and when it "
                             "was last rebuilt (epoch ms). Updated when reindex_knowledge_base completes, on any "
                             "replica: subscribe to hear it.",
                             "application/json",
                             {}},
                            std::move(read));
}

}  // namespace helpdesk
