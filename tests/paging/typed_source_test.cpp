#include <candor/paging/typed_source.hpp>

#include "paging/support.hpp"

#include <boost/describe/class.hpp>

#include <candor/envelope/envelope.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/monotonic_resource.hpp>

#include <algorithm>
#include <optional>

namespace typed_items {

struct account {
    std::string id;
    std::string team;
    int age_days = 0;
};
BOOST_DESCRIBE_STRUCT(account, (), (id, team, age_days))

// A typed keyset source over a sorted vector.
struct accounts final : candor::paging::typed_source<account> {
    std::vector<account> rows;
    std::string_view name() const noexcept override { return "accounts"; }
    candor::paging::snapshot_mode snapshots() const noexcept override { return candor::paging::snapshot_mode::live; }
    boost::asio::awaitable<boost::system::result<candor::paging::typed_page<account>, candor::paging::source_error>>
    fetch_items(const candor::paging::fetch_request& r) override {
        candor::paging::typed_page<account> out;
        auto it = rows.begin();
        if (r.after)
            it = std::upper_bound(rows.begin(), rows.end(), std::string_view(r.after->at(0).as_string()),
                                  [](std::string_view k, const account& a) { return k < a.id; });
        for (; it != rows.end() && out.items.size() < r.limit; ++it) out.items.push_back(*it);
        co_return out;
    }
};

}  // namespace typed_items

using namespace candor::test;

TEST(TypedSource, TypedItemsArePagedAsJsonObjects) {
    collection_harness h;
    auto src = std::make_shared<typed_items::accounts>();
    for (int i = 1; i <= 5; ++i) src->rows.push_back({"svc-00" + std::to_string(i), "team-a", i * 10});
    pg::collection_options o;
    o.keys = h.keys;
    o.default_page_size = 3;
    h.srv->add_tool(std::make_shared<pg::collection_tool>(mcp::tool_info("accounts", "Accounts."), pg::ordering{{"id"}},
                                                          src, o))
        .value();
    auto first = h.call("accounts", {});
    ASSERT_EQ(at(first, "data").as_array().size(), 3u);
    EXPECT_EQ(at(at(first, "data").as_array()[0], "age_days"), 10);
    auto rest = h.call("accounts", {{"cursor", at(first, "continuation", "cursor")}});
    EXPECT_EQ(at(rest, "complete"), true);
    EXPECT_EQ(at(at(rest, "data").as_array()[1], "id"), "svc-005");
}

TEST(TypedSource, APageLivesInOneArenaAndTheEnvelopeAdoptsIt) {
    typed_items::accounts src;
    for (int i = 1; i <= 3; ++i) src.rows.push_back({"svc-00" + std::to_string(i), "team-a", i});
    boost::asio::io_context io;
    std::optional<pg::fetch_result> got;
    boost::asio::co_spawn(
        io,
        [&]() -> boost::asio::awaitable<void> {
            const boost::json::object query;
            const std::string snapshot;
            const candor::mcp::principal caller;
            const pg::fetch_request r{query, nullptr, 10, snapshot, caller,
                                      std::chrono::steady_clock::now() + std::chrono::seconds(5)};
            auto f = co_await src.fetch(r);
            if (f) got = std::move(*f);
        },
        boost::asio::detached);
    io.run();
    ASSERT_TRUE(got);
    ASSERT_EQ(got->items.size(), 3u);
    // A shared (self-owning) arena, and every item in it.
    EXPECT_TRUE(got->storage.is_shared());
    for (const auto& item : got->items) EXPECT_EQ(item.storage().get(), got->storage.get());
    EXPECT_EQ(got->items[1].at("team"), "team-a");
    EXPECT_EQ(got->items[2].at("age_days"), 3);

    // The sealed envelope is built in the data's arena, so the data is moved into it, not copied;
    // data in a storage that does not own itself (an argument document's) is not adopted.
    boost::json::array data(got->storage);
    for (auto& i : got->items) data.push_back(std::move(i));
    auto sealed = candor::envelope::seal(candor::envelope::complete(std::move(data)), "accounts").value();
    EXPECT_EQ(sealed.storage().get(), got->storage.get());
    EXPECT_EQ(sealed.at("data").as_array().size(), 3u);
    boost::json::monotonic_resource borrowed;
    const boost::json::storage_ptr not_owned(&borrowed);
    boost::json::array other(not_owned);
    other.push_back(1);
    auto plain = candor::envelope::seal(candor::envelope::complete(std::move(other)), "accounts").value();
    EXPECT_NE(plain.storage().get(), not_owned.get());
}
