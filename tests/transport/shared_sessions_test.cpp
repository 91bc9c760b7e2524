// SPDX-License-Identifier: BSL-1.0
// Two replicas (two servers, two io_contexts, two ports) sharing their session records in one
// SQLite file: a session initialized on one goes on on the other.
#include <candor/http/server.hpp>
#include <candor/sqlite/sql_database.hpp>

#include <candor/mcp/tool.hpp>
#include <candor/offload/worker.hpp>
#include <candor/state/sql_notice_feed.hpp>
#include <candor/state/sql_session_records.hpp>

#include "transport/http_client.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <unistd.h>

namespace {

namespace net = boost::asio;
namespace http = boost::beast::http;
namespace mcp = candor::mcp;
namespace st = candor::store;
namespace tr = candor::transport;
using boost::json::array;
using boost::json::object;
using namespace std::chrono_literals;
using candor::test::call_body;

// The database as the replicas share it, with a switch that makes every statement fail (or
// wait) as a database that is down (or stuck) would.
class switchable_database final : public st::sql_database {
public:
    explicit switchable_database(std::shared_ptr<st::sql_database> db) : db_(std::move(db)) {}

    std::atomic<bool> failing{false};
    std::atomic<int> stall_ms{0};

    st::sql_dialect dialect() const noexcept override { return db_->dialect(); }

    boost::system::result<void, st::db_error> query(std::string_view sql, std::span<const st::sql_value> params,
                                                    const std::function<bool(const st::sql_row&)>& on_row) override {
        if (auto e = trouble()) return *e;
        return db_->query(sql, params, on_row);
    }
    boost::system::result<std::int64_t, st::db_error> execute(std::string_view sql,
                                                              std::span<const st::sql_value> params) override {
        if (auto e = trouble()) return *e;
        return db_->execute(sql, params);
    }
    boost::system::result<void, st::db_error> transaction(
        const std::function<boost::system::result<void, st::db_error>(st::sql_database&)>& work) override {
        if (auto e = trouble()) return *e;
        return db_->transaction(work);
    }

private:
    std::optional<st::db_error> trouble() const {
        if (const int ms = stall_ms.load()) std::this_thread::sleep_for(std::chrono::milliseconds(ms));
        if (failing) return st::db_error{"the database is down"};
        return std::nullopt;
    }
    std::shared_ptr<st::sql_database> db_;
};

const std::string list_body = R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})";

// `initialize` declaring elicitation, as a client that can answer it would.
const std::string initialize_with_elicitation =
    R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",)"
    R"("capabilities":{"elicitation":{}},"clientInfo":{"name":"shared-client","version":"7"}}})";

std::string text_of(const candor::test::http_reply& r) {
    return std::string(boost::json::parse(r.body).at("result").at("content").at(0).at("text").as_string());
}

std::string error_code_of(const candor::test::http_reply& r) {
    const auto v = boost::json::parse(r.body);
    return std::string(v.at("error").at("data").at("code").as_string());
}

// One replica: its own MCP server and HTTP server.
struct replica {
    std::unique_ptr<mcp::server> srv;
    std::unique_ptr<tr::http_server> http;
    candor::test::mcp_client client{};
    /// Kept when `slow` ends cancelled.
    std::promise<void> slow_cancelled;
    std::atomic<bool> slow_started{false};

    void start(tr::http_options opts, std::shared_ptr<mcp::shared_notices> notices) {
        srv = std::make_unique<mcp::server>(mcp::server_options{.log = {}});
        if (notices) srv->set_shared_notices(std::move(notices), {.poll_interval = 10ms});
        srv
            ->add_tool(mcp::make_content_tool(
                mcp::tool_info("slow", "Runs until it is cancelled.").with_action(mcp::action_class::read_only),
                [this](const object&, mcp::call_context& ctx) -> net::awaitable<mcp::content_result> {
                    net::steady_timer forever(ctx.executor(), std::chrono::hours(1));
                    slow_started = true;
                    co_await forever.async_wait(net::as_tuple(net::use_awaitable));
                    if (ctx.cancelled()) slow_cancelled.set_value();
                    co_return mcp::content_result{array{object{{"type", "text"}, {"text", "done"}}}};
                }))
            .value();
        srv->add_tool(mcp::make_content_tool(
                          mcp::tool_info("whoami", "The caller and the client, as the session says.")
                              .with_action(mcp::action_class::read_only),
                          [](const object&, mcp::call_context& ctx) -> net::awaitable<mcp::content_result> {
                              const auto& s = ctx.session();
                              const auto text = ctx.caller().id + " " + s.client_name + "/" + s.client_version + " " +
                                                s.protocol_version + " " +
                                                boost::json::serialize(s.client_capabilities) +
                                                (ctx.can_elicit() ? " can-elicit" : " cannot-elicit");
                              co_return mcp::content_result{array{object{{"type", "text"}, {"text", text}}}};
                          }))
            .value();
        opts.threads = 2;
        http = std::make_unique<tr::http_server>(*srv, std::move(opts));
        ASSERT_TRUE(http->start());
        client.port = http->port();
    }
    ~replica() {
        if (http) http->stop();
    }
};

class SharedSessions : public ::testing::Test {
protected:
    void SetUp() override {
        path_ = std::filesystem::temp_directory_path() /
                ("candor_shared_sessions_" + std::to_string(::getpid()) + "_" +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".db");
        remove_files();
    }
    void TearDown() override {
        a_.reset();
        b_.reset();
        remove_files();
    }

    // Both replicas on one database file, each with its own connection and worker.
    /// @param notices the replicas share a notice feed too (in the same file)
    void start(tr::http_options opts = {}, bool notices = false) {
        a_ = std::make_unique<replica>();
        b_ = std::make_unique<replica>();
        auto for_a = replica_options(opts, db_a_);  // opens db_a_
        auto for_b = replica_options(opts, db_b_);
        a_->start(std::move(for_a), notices ? notice_feed(db_a_) : nullptr);
        b_->start(std::move(for_b), notices ? notice_feed(db_b_) : nullptr);
    }
    static std::shared_ptr<mcp::shared_notices> notice_feed(const std::shared_ptr<switchable_database>& db) {
        return candor::state::sql_notice_feed::open(db, std::make_shared<candor::offload::worker>(1)).value();
    }

    tr::http_options replica_options(tr::http_options opts, std::shared_ptr<switchable_database>& db) {
        db = std::make_shared<switchable_database>(candor::sqlite::open_sql_database(path_.string()).value());
        opts.shared_sessions = candor::state::sql_session_records::open(db).value();
        opts.shared_sessions_worker = std::make_shared<candor::offload::worker>(1);
        return opts;
    }

    void remove_files() {
        for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path_.string() + suffix);
    }

    std::filesystem::path path_;
    std::shared_ptr<switchable_database> db_a_, db_b_;
    std::unique_ptr<replica> a_, b_;
};

TEST_F(SharedSessions, ASessionInitializedOnOneReplicaGoesOnOnTheOther) {
    start();
    auto init = a_->client.post(initialize_with_elicitation);
    ASSERT_EQ(init.status, 200u) << init.body;
    const auto id = init.header("Mcp-Session-Id");
    ASSERT_FALSE(id.empty());
    EXPECT_EQ(b_->http->session_count(), 0u);

    auto listed = b_->client.post(list_body, {{"Mcp-Session-Id", id}});
    ASSERT_EQ(listed.status, 200u) << listed.body;
    EXPECT_EQ(boost::json::parse(listed.body).at("result").at("tools").as_array().size(), 2u);  // whoami, slow
    EXPECT_EQ(b_->http->session_count(), 1u);

    // The client's capabilities came along: elicitation is checked against them on B.
    auto called = b_->client.post(call_body(3, "whoami"), {{"Mcp-Session-Id", id}});
    ASSERT_EQ(called.status, 200u) << called.body;
    EXPECT_EQ(text_of(called), R"( shared-client/7 2025-11-25 {"elicitation":{}} can-elicit)");
    // And A still serves it.
    EXPECT_EQ(a_->client.post(call_body(4, "whoami"), {{"Mcp-Session-Id", id}}).status, 200u);
}

TEST_F(SharedSessions, DeleteOnOneReplicaEndsTheSessionOnBoth) {
    tr::http_options opts;
    opts.shared_session_recheck = 0ms;
    start(opts);
    const auto id = a_->client.initialize();
    ASSERT_EQ(b_->client.post(list_body, {{"Mcp-Session-Id", id}}).status, 200u);
    EXPECT_EQ(b_->client.send(http::verb::delete_, "/mcp", "", {{"Mcp-Session-Id", id}}).status, 204u);
    EXPECT_EQ(b_->client.post(list_body, {{"Mcp-Session-Id", id}}).status, 404u);
    const auto on_a = a_->client.post(list_body, {{"Mcp-Session-Id", id}});
    EXPECT_EQ(on_a.status, 404u);
    EXPECT_EQ(error_code_of(on_a), "SESSION_NOT_FOUND");
    EXPECT_EQ(a_->http->session_count(), 0u);
}

TEST_F(SharedSessions, DeleteOnAReplicaThatNeverHeldTheSessionEndsIt) {
    start();
    const auto id = a_->client.initialize();
    EXPECT_EQ(b_->client.send(http::verb::delete_, "/mcp", "", {{"Mcp-Session-Id", id}}).status, 204u);
    EXPECT_EQ(b_->client.post(list_body, {{"Mcp-Session-Id", id}}).status, 404u);
}

TEST_F(SharedSessions, ATakenOverSessionCountsAgainstTheLocalTableAndItsEvictionKeepsTheRecord) {
    tr::http_options opts;
    opts.max_sessions = 1;
    start(opts);
    const auto first = a_->client.initialize();
    const auto second = b_->client.initialize();  // B holds it: its table is full
    ASSERT_EQ(b_->http->session_count(), 1u);
    // Taking `first` over on B makes `second` give way there (used once, the least recently).
    ASSERT_EQ(b_->client.post(list_body, {{"Mcp-Session-Id", first}}).status, 200u);
    EXPECT_EQ(b_->http->session_count(), 1u);
    // `second` lives on in its record: A takes it over, and B again later.
    EXPECT_EQ(a_->client.post(list_body, {{"Mcp-Session-Id", second}}).status, 200u);
    EXPECT_EQ(b_->client.post(list_body, {{"Mcp-Session-Id", second}}).status, 200u);
    EXPECT_EQ(b_->http->session_count(), 1u);
}

TEST_F(SharedSessions, AnotherPrincipalsTokenFindsNoSessionOnAnyReplica) {
    tr::http_options opts;
    opts.tokens.emplace("alice-token", mcp::principal{"alice"});
    opts.tokens.emplace("bob-token", mcp::principal{"bob"});
    start(opts);
    auto init = a_->client.post(candor::test::initialize_body(), {{"Authorization", "Bearer alice-token"}});
    ASSERT_EQ(init.status, 200u);
    const auto id = init.header("Mcp-Session-Id");
    const auto as_bob = b_->client.post(list_body, {{"Mcp-Session-Id", id}, {"Authorization", "Bearer bob-token"}});
    EXPECT_EQ(as_bob.status, 404u);
    EXPECT_EQ(error_code_of(as_bob), "SESSION_NOT_FOUND");
    EXPECT_EQ(b_->http->session_count(), 0u);
    EXPECT_EQ(
        b_->client
            .send(http::verb::delete_, "/mcp", "", {{"Mcp-Session-Id", id}, {"Authorization", "Bearer bob-token"}})
            .status,
        404u);
    auto as_alice =
        b_->client.post(call_body(3, "whoami"), {{"Mcp-Session-Id", id}, {"Authorization", "Bearer alice-token"}});
    ASSERT_EQ(as_alice.status, 200u) << as_alice.body;
    EXPECT_EQ(text_of(as_alice).substr(0, 6), "alice ");
}

TEST_F(SharedSessions, AnExpiredRecordIsAnUnknownSession) {
    start();
    auto records =
        candor::state::sql_session_records::open(candor::sqlite::open_sql_database(path_.string()).value()).value();
    tr::session_record old;
    old.id = "0123456789abcdef0123456789abcdef";
    old.protocol_version = "2025-11-25";
    old.last_used = std::chrono::system_clock::now() - 2h;
    old.expires = std::chrono::system_clock::now() - 1h;
    ASSERT_TRUE(records->put(old));
    auto fresh = old;
    fresh.id = "fedcba9876543210fedcba9876543210";
    fresh.expires = std::chrono::system_clock::now() + 1h;
    ASSERT_TRUE(records->put(fresh));
    EXPECT_EQ(b_->client.post(list_body, {{"Mcp-Session-Id", old.id}}).status, 404u);
    EXPECT_EQ(b_->client.post(list_body, {{"Mcp-Session-Id", fresh.id}}).status, 200u);
}

TEST_F(SharedSessions, ARecordUsedOnAnyReplicaStaysAlive) {
    tr::http_options opts;
    opts.session_idle_timeout = 800ms;
    opts.shared_session_recheck = 0ms;
    start(opts);
    const auto id = a_->client.initialize();
    // Used on B every 150 ms for longer than the idle timeout: B's touches keep the record alive
    // for A too.
    for (int i = 0; i < 8; ++i) {
        ASSERT_EQ(b_->client.post(list_body, {{"Mcp-Session-Id", id}}).status, 200u) << i;
        std::this_thread::sleep_for(150ms);
    }
    EXPECT_EQ(a_->client.post(list_body, {{"Mcp-Session-Id", id}}).status, 200u);
}

TEST_F(SharedSessions, RecordsDownIs503NotAForgottenSession) {
    start();
    const auto id = a_->client.initialize();
    db_b_->failing = true;
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = b_->client.post(list_body, {{"Mcp-Session-Id", id}});
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s);
    EXPECT_EQ(r.status, 503u);
    EXPECT_EQ(error_code_of(r), "SESSION_STORE_UNAVAILABLE");
    EXPECT_EQ(r.header("Retry-After"), "1");
    EXPECT_EQ(b_->client.send(http::verb::delete_, "/mcp", "", {{"Mcp-Session-Id", id}}).status, 503u);
    // An initialize cannot be recorded: it does not begin.
    const auto init = b_->client.post(candor::test::initialize_body());
    EXPECT_EQ(init.status, 503u);
    EXPECT_EQ(error_code_of(init), "SESSION_STORE_UNAVAILABLE");
    EXPECT_EQ(b_->http->session_count(), 0u);
    // The replica that holds the session goes on while its records are down.
    db_a_->failing = true;
    EXPECT_EQ(a_->client.post(list_body, {{"Mcp-Session-Id", id}}).status, 200u);
    // Back up: B takes the session over.
    db_b_->failing = false;
    EXPECT_EQ(b_->client.post(list_body, {{"Mcp-Session-Id", id}}).status, 200u);
}

TEST_F(SharedSessions, AStuckDatabaseIs503WithinTheTimeout) {
    tr::http_options opts;
    opts.shared_session_timeout = 200ms;
    start(opts);
    const auto id = a_->client.initialize();
    db_b_->stall_ms = 1500;
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = b_->client.post(list_body, {{"Mcp-Session-Id", id}});
    const auto took = std::chrono::steady_clock::now() - t0;
    EXPECT_EQ(r.status, 503u);
    EXPECT_EQ(error_code_of(r), "SESSION_STORE_UNAVAILABLE");
    EXPECT_LT(took, 1s);
    db_b_->stall_ms = 0;
}

}  // namespace

namespace {

// The 2025-11-25 session goes on on either replica; a call it runs on A is cancelled by a
// notifications/cancelled that the balancer sent to B: B does not run it, and passes it on.
TEST_F(SharedSessions, ACancellationSentToTheReplicaThatDoesNotRunTheCallStopsIt) {
    start({}, true);
    const auto id = a_->client.initialize();
    // B reads the feed once it holds the session.
    ASSERT_EQ(b_->client.post(list_body, {{"Mcp-Session-Id", id}}).status, 200u);
    auto cancelled = a_->slow_cancelled.get_future();
    std::thread call([&] { (void)a_->client.post(call_body(41, "slow"), {{"Mcp-Session-Id", id}}); });
    while (!a_->slow_started) std::this_thread::yield();  // the event: the tool runs on A
    const auto sent = b_->client.post(
        R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":41,"reason":"stop"}})",
        {{"Mcp-Session-Id", id}});
    EXPECT_EQ(sent.status, 202u);
    EXPECT_EQ(cancelled.wait_for(30s), std::future_status::ready) << "the call on A never heard the cancellation";
    a_->http->stop();  // the cancelled call is never answered: end its stream
    call.join();
}

}  // namespace
