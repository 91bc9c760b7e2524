// SPDX-License-Identifier: BSL-1.0
// books: the tutorial's collection tool (docs/first-collection-tool.md) — 1,000 books in memory,
// searched a page at a time, with sealed cursors, a snapshot token for a complete walk, and
// rare books that only a librarian sees.
//   books --stdio          serve an MCP client over stdin/stdout (the caller: $BOOKS_READER)
//   books --http 8080      serve it over Streamable HTTP (--tokens FILE names the callers)
//   books tools            print the tool with its generated schemas
#include <candor/candor.hpp>
#include <candor/evidence/store.hpp>
#include <candor/http/command_line.hpp>
#include <candor/keys/command_line.hpp>
#include <candor/paging/typed_collection.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

// What one item looks like to the agent: the output schema is generated from it.
struct book {
    std::int64_t id = 0;
    std::string title;
    std::string author;
    int year = 0;
};
BOOST_DESCRIBE_STRUCT(book, (), (id, title, author, year))

// What the agent may ask: the input schema is generated from it, and every call is checked
// against it before the source sees the query.
struct book_query {
    std::optional<std::string> author;
    std::optional<int> published_after;
};
BOOST_DESCRIBE_STRUCT(book_query, (), (author, published_after))

void describe_contract(candor::contract::spec<book_query>& s) {
    s.field(&book_query::author).description("Only books by this author (exact name)").length(1, 100);
    s.field(&book_query::published_after).description("Only books published after this year").range(0, 3000);
}

// The data: books in id order. Books are only ever added, each with the version it was added in,
// so a walk pinned to a version sees exactly the books that existed when it started.
class library final : public candor::paging::query_source<book_query, book> {
public:
    library() {
        for (std::int64_t i = 1; i <= 1000; ++i)
            add({i, "Book " + std::to_string(i), "Author " + std::to_string(i % 40), 1900 + static_cast<int>(i % 120)},
                /*rare=*/i % 50 == 0);
    }

    std::string_view name() const noexcept override { return "library"; }

    // Pinned: every page of a walk reads the same version, so a complete walk is a complete
    // inventory and earns a snapshot token.
    candor::paging::snapshot_mode snapshots() const noexcept override { return candor::paging::snapshot_mode::pinned; }
    boost::asio::awaitable<boost::system::result<std::string, candor::paging::source_error>> open_snapshot(
        const boost::json::object&, const candor::mcp::principal&) override {
        co_return std::to_string(version_);
    }

    // Up to r.limit books after the key r.after that match q, in id order, as of r.snapshot.
    page_result fetch_matching(const book_query& q, const candor::paging::fetch_request& r) override {
        const std::uint64_t as_of = std::stoull(r.snapshot);
        const bool librarian = r.caller.id == "librarian";
        page out;
        auto it = shelf_.begin();
        if (r.after)
            it = std::upper_bound(shelf_.begin(), shelf_.end(), r.after->at(0).to_number<std::int64_t>(),
                                  [](std::int64_t id, const entry& e) { return id < e.item.id; });
        for (; it != shelf_.end() && out.items.size() < r.limit; ++it) {
            ++out.items_scanned;
            if (it->added_in > as_of) continue;
            if (q.author && it->item.author != *q.author) continue;
            if (q.published_after && it->item.year <= *q.published_after) continue;
            // Never hand out what the caller may not see, and never hide that something is hidden.
            if (it->rare && !librarian) {
                out.hidden_in_scope = true;
                continue;
            }
            out.items.push_back(it->item);
        }
        co_return out;
    }

private:
    struct entry {
        book item;
        std::uint64_t added_in = 0;
        bool rare = false;
    };
    void add(book b, bool rare) { shelf_.push_back({std::move(b), ++version_, rare}); }

    std::vector<entry> shelf_;
    std::uint64_t version_ = 0;
};

int main(int argc, char** argv) {
    candor::mcp::server srv({.name = "books", .version = "1.0.0"});
    // Cursors and snapshot tokens are sealed (HMAC) with these keys: --sealing-keys FILE, or
    // $CANDOR_SEALING_KEYS, the same on every replica and across restarts; without them, a key
    // that dies with the process.
    auto keys = std::make_shared<candor::keys::command_line>();

    // Once the command line is read, the keys are known: the tool is made with them.
    const auto add_books = [&] {
        candor::paging::collection_options options;
        options.default_page_size = 20;
        options.keys = keys->ring();
        // The ids a pinned walk delivered are kept here, so that a snapshot token can later prove
        // which objects a complete inventory held (SQLite or PostgreSQL stores keep them durably).
        options.evidence = candor::evidence::make_memory_store();
        return candor::paging::add_collection(
                   srv, candor::mcp::tool_info("search_books", "Search the library's books, a page at a time."),
                   candor::paging::ordering{{"id"}}, std::make_shared<library>(), std::move(options))
            .has_value();
    };
    // Over --stdio the caller is $BOOKS_READER (e.g. librarian); over --http, a token's principal.
    const char* reader = std::getenv("BOOKS_READER");
    return candor::app::run(srv, argc, argv,
                            {.summary = "1,000 books as a collection tool; the tutorial's example.",
                             .stdio_caller = {.id = reader && *reader ? reader : "guest"},
                             .prepare = add_books,
                             .extensions = {std::make_shared<candor::app::http_command_line>(), keys}});
}
