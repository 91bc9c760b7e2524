// SPDX-License-Identifier: BSL-1.0
// library: the tutorial's approved action (docs/first-approved-action.md) — 5,000 books in
// SQLite, looked up one at a time (lookup_book), searched a page at a time (search_books), and
// withdrawn from the shelves (withdraw_books) only by a librarian, only on books a complete
// search delivered, and only once the user approved the plan.
//   library --stdio          serve an MCP client over stdin/stdout (the caller: $LIBRARY_CALLER)
//   library --http 8080      serve it over Streamable HTTP (--tokens FILE names the callers)
//   library tools            print the tools with their generated schemas
#include <candor/candor.hpp>
#include <candor/http/command_line.hpp>
#include <candor/keys/command_line.hpp>
#include <candor/offload/worker.hpp>
#include <candor/sql_collection/collection.hpp>
#include <candor/state/sqlite_evidence_store.hpp>
#include <candor/validation/layers.hpp>

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cv = candor::validation;
namespace sc = candor::sql_collection;
using candor::envelope::envelope;

// The table: its fields (the only names that ever reach SQL) and its unique key.
const sc::table_spec books{
    .table = "books",
    .fields = {{.name = "isbn"},
               {.name = "title"},
               {.name = "author"},
               {.name = "year", .type = sc::field_type::integer},
               {.name = "withdrawn", .type = sc::field_type::boolean, .description = "no longer on the shelves"}},
    .key = "isbn"};

struct lookup_args {
    std::string isbn;
};
BOOST_DESCRIBE_STRUCT(lookup_args, (), (isbn))

// What a withdrawal takes besides the layers' arguments: `ids` and `snapshot_token` (evidence),
// `plan_token` (approval).
struct withdraw_args {
    std::string reason;
};
BOOST_DESCRIBE_STRUCT(withdraw_args, (), (reason))

void describe_contract(candor::contract::spec<withdraw_args>& s) {
    s.field(&withdraw_args::reason).description("Why the books leave the shelves, for the record").length(5, 200);
}

// Approval is not authorization: who may withdraw at all is checked first, before anyone is asked.
cv::external_check<withdraw_args> librarians_only{
    "roles", std::chrono::milliseconds(500),
    [](const withdraw_args&,
       candor::mcp::call_context& ctx) -> boost::asio::awaitable<cv::check_result<withdraw_args>> {
        cv::check_result<withdraw_args> r;
        if (ctx.caller().id != "librarian")
            r.issues.push_back(candor::make_issue(candor::layer::external, "PERMISSION_DENIED", "",
                                                  "Only a librarian may withdraw books.", false));
        co_return r;
    }};

// What the user is asked to approve: a sentence, and the books.
cv::action_plan plan_withdrawal(const withdraw_args& a, const cv::verdict& v) {
    return {.summary = "Withdraw " + std::to_string(v.targets.size()) + " book(s): " + a.reason, .targets = v.targets};
}

// A book still on the shelf is withdrawn; one gone or withdrawn already is left as it is.
std::optional<boost::json::object> on_shelf_then_withdrawn(const std::optional<boost::json::object>& now) {
    if (!now || now->at("withdrawn").as_bool()) return std::nullopt;
    return boost::json::object{{"withdrawn", true}};
}

// The withdrawal, once every layer passed: the books `v.targets` names (those the evidence
// covered, or the ones the user narrowed the plan to), each re-checked as it is written — one
// withdrawn since the walk is skipped — all in one transaction with the approval's use.
boost::asio::awaitable<envelope> withdraw(std::shared_ptr<sc::sql_database> db,
                                          std::shared_ptr<candor::offload::worker> worker, const cv::verdict& v) {
    boost::json::array withdrawn, skipped;
    cv::ledger_work work = [&](sc::sql_database& tx) -> boost::system::result<void, sc::db_error> {
        for (const auto& isbn : v.targets) {
            auto written = sc::update_current(tx, books, boost::json::value(isbn), on_shelf_then_withdrawn);
            if (!written) return written.error();
            (*written ? withdrawn : skipped).emplace_back(isbn);
        }
        return {};
    };
    auto done = co_await v.commit(db, *worker, std::move(work));
    if (!done) co_return candor::envelope::failure(std::move(done.error()));
    co_return candor::envelope::complete(boost::json::object{{"withdrawn", withdrawn}, {"skipped", skipped}});
}

int main(int argc, char** argv) {
    auto db = sc::open_sqlite(":memory:").value();  // with a file, create and seed it once
    sc::create_table(*db, books).value();
    std::vector<boost::json::object> rows;
    for (int i = 1; i <= 5000; ++i)
        rows.push_back({{"isbn", "978-" + std::to_string(1000000 + i)},
                        {"title", "Book " + std::to_string(i)},
                        {"author", "Author " + std::to_string(i % 40)},
                        {"year", 1900 + i % 120},
                        {"withdrawn", false}});
    sc::insert_rows(*db, books, rows).value();
    auto worker = std::make_shared<candor::offload::worker>(1);  // SQLite's calls, off the I/O threads

    candor::mcp::server srv({.name = "library", .version = "1.0.0"});
    auto keys = std::make_shared<candor::keys::command_line>();  // --sealing-keys FILE
    const auto add_tools = [&] {
        // lookup_book: one book, or BOOK_NOT_FOUND naming the argument that named it.
        candor::mcp::add_tool(
            srv,
            candor::mcp::tool_info("lookup_book", "One book by its ISBN.")
                .with_action(candor::mcp::action_class::read_only),
            [db, worker](lookup_args a) -> boost::asio::awaitable<envelope> {
                auto read = [&] { return sc::read_current(*db, books, boost::json::value(a.isbn)); };
                auto book = co_await worker->run(read);
                if (!book)
                    co_return candor::envelope::failure(
                        {candor::make_issue(candor::layer::external, "SOURCE_UNAVAILABLE", "",
                                            "the catalogue failed; try again later", false)});
                if (!*book)
                    co_return candor::envelope::failure({candor::make_issue(candor::layer::external, "BOOK_NOT_FOUND",
                                                                            "/isbn", "no book has this ISBN", true)});
                co_return candor::envelope::complete(std::move(**book));
            })
            .value();

        // search_books: pages of books; a walk to the end earns a snapshot_token.
        candor::paging::collection_options paging;
        paging.keys = keys->ring();
        paging.evidence = candor::state::open_sqlite_store(":memory:").value();
        srv.add_tool(sc::make_collection(db, {.table = books, .orders = {{"by_isbn", {{"isbn"}}}}},
                                         candor::mcp::tool_info("search_books", "Search the library's books."), paging))
            .value();

        // withdraw_books: the layers run in order, and `withdraw` only once all of them passed.
        return cv::add_tool(
                   srv,
                   candor::mcp::tool_info("withdraw_books",
                                          "Withdraw books from the shelves (irreversible). Needs the "
                                          "snapshot_token of a complete search_books walk and ISBNs "
                                          "it returned, and the user's approval.")
                       .with_action(candor::mcp::action_class::irreversible_write),
                   [db, worker](withdraw_args, const cv::verdict& v, candor::mcp::call_context&) {
                       return withdraw(db, worker, v);
                   },
                   librarians_only,
                   candor::evidence::evidence_requirement{
                       .resource = "search_books", .keys = paging.keys, .store = paging.evidence},
                   cv::approval<withdraw_args>{.plan = plan_withdrawal, .options = {.plan_keys = keys->ring()}})
            .has_value();
    };
    const char* caller = std::getenv("LIBRARY_CALLER");
    return candor::app::run(
        srv, argc, argv,
        {.summary = "A library: lookup, search and approved withdrawal; the action tutorial's example.",
         .stdio_caller = {.id = caller && *caller ? caller : "librarian"},
         .prepare = add_tools,
         .extensions = {std::make_shared<candor::app::http_command_line>(), keys}});
}
