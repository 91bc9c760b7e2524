// SPDX-License-Identifier: BSL-1.0
#pragma once
// Tasks across replicas: two servers (two replicas) that share one task table, each with its own
// client, on one io_context. What every `mcp::shared_task_table` must let them do, written once
// and run on each (SQLite in tests/store, PostgreSQL in tests/postgres).
// GCC 12 reports -Wmismatched-new-delete on coroutine frames: a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

#include "mcp/fixture.hpp"
#include "mcp/stateless_support.hpp"

#include <candor/mcp/shared_tasks.hpp>

#include <boost/asio/as_tuple.hpp>

#include <functional>

namespace candor::test {

/// A table that passes everything on, except that its renewals can be stopped: a replica that
/// can no longer reach the database (or died) renews no lease and reads no mail.
class pausable_table final : public mcp::shared_task_table {
public:
    explicit pausable_table(std::shared_ptr<mcp::shared_task_table> inner) : inner_(std::move(inner)) {}
    bool paused = false;
    /// Renewals only are held back: the replica writes, but has not read the table yet.
    bool deaf = false;

    void publish(mcp::task_record r, std::uint64_t version, std::string holder, time_point lease_until) override {
        if (!paused) inner_->publish(std::move(r), version, std::move(holder), lease_until);
    }
    awaitable<boost::system::result<bool, store::db_error>> publish_now(mcp::task_record r, std::uint64_t version,
                                                                        std::string holder,
                                                                        time_point lease_until) override {
        return inner_->publish_now(std::move(r), version, std::move(holder), lease_until);
    }
    awaitable<boost::system::result<std::optional<mcp::shared_task>, store::db_error>> find(std::string id,
                                                                                            time_point now) override {
        return inner_->find(std::move(id), now);
    }
    awaitable<boost::system::result<std::optional<mcp::shared_task>, store::db_error>> modify(
        std::string id, time_point now, std::function<bool(mcp::shared_task&)> change,
        boost::json::object answers) override {
        return inner_->modify(std::move(id), now, std::move(change), std::move(answers));
    }
    awaitable<boost::system::result<std::vector<mcp::task_mail>, store::db_error>> renew(std::string holder,
                                                                                         time_point lease_until,
                                                                                         time_point now) override {
        if (paused) co_return store::db_error{"paused by the test"};
        if (deaf) co_return std::vector<mcp::task_mail>{};
        co_return co_await inner_->renew(std::move(holder), lease_until, now);
    }
    awaitable<boost::system::result<mcp::live_tasks, store::db_error>> count_live(std::string owner,
                                                                                  time_point now) override {
        return inner_->count_live(std::move(owner), now);
    }

private:
    std::shared_ptr<mcp::shared_task_table> inner_;
};

class two_replicas {
public:
    boost::asio::io_context ioc;
    std::shared_ptr<pausable_table> table_of_first;
    std::unique_ptr<mcp::server> first;
    std::unique_ptr<mcp::server> second;
    std::unique_ptr<mcp::memory_client> on_first;
    std::unique_ptr<mcp::memory_client> on_second;
    std::shared_ptr<boost::asio::steady_timer> gate;
    bool saw_cancellation = false;

    /// @param table the first replica's view of the shared table
    /// @param other the second's (another connection to the same database), or the same
    /// @param per_principal each replica's `max_tasks_per_principal`
    two_replicas(const std::shared_ptr<mcp::shared_task_table>& table,
                 const std::shared_ptr<mcp::shared_task_table>& other,
                 std::chrono::milliseconds lease = std::chrono::seconds(15), std::size_t per_principal = 100) {
        gate = std::make_shared<boost::asio::steady_timer>(ioc, std::chrono::hours(1));
        table_of_first = std::make_shared<pausable_table>(table);
        first = make_server(table_of_first, lease, per_principal);
        second = make_server(other ? other : table, lease, per_principal);
        on_first = std::make_unique<mcp::memory_client>(*first, ioc, mcp::connection_options{{"alice"}, ""});
        on_second = std::make_unique<mcp::memory_client>(*second, ioc, mcp::connection_options{{"alice"}, ""});
    }
    ~two_replicas() {
        on_first.reset();
        on_second.reset();
        gate->cancel();
        ioc.run_for(std::chrono::milliseconds(50));
    }

    static boost::json::object meta() {
        boost::json::object caps;
        caps["extensions"] = boost::json::object{{"io.modelcontextprotocol/tasks", boost::json::object{}}};
        caps["elicitation"] = boost::json::object{};
        return modern_meta(std::move(caps), "replica-test");
    }

    /// Start `tool` on `c`: its task id.
    static std::string start(mcp::memory_client& c, std::string_view tool) {
        auto r = c.request("tools/call", {{"name", tool}, {"arguments", boost::json::object{}}, {"_meta", meta()}});
        EXPECT_EQ(at(r, "result", "resultType"), "task") << r;
        const auto id = at(r, "result", "taskId");
        return id.is_string() ? std::string(id.as_string()) : std::string();
    }
    static boost::json::value task_request(mcp::memory_client& c, std::string_view method, const std::string& id,
                                           boost::json::object extra = {}) {
        extra["taskId"] = id;
        extra["_meta"] = meta();
        return c.request(method, std::move(extra));
    }
    /// Poll `tasks/get` on `c` until the task is `status` (between polls the io_context runs for a
    /// millisecond; bounded: 10,000 polls).
    boost::json::value wait_for(mcp::memory_client& c, const std::string& id, std::string_view status) {
        boost::json::value r;
        for (int i = 0; i < 10000; ++i) {
            r = task_request(c, "tasks/get", id);
            if (at(r, "result", "status") == boost::json::value(boost::json::string_view(status.data(), status.size())))
                return r;
            ioc.run_for(std::chrono::milliseconds(1));
        }
        ADD_FAILURE() << "task " << id << " never reached " << status << "; last: " << r;
        return r;
    }
    /// Run the io_context until `done` (bounded: 10,000 slices of a millisecond).
    void run_until(const std::function<bool()>& done) {
        for (int i = 0; i < 10000 && !done(); ++i) ioc.run_for(std::chrono::milliseconds(1));
        EXPECT_TRUE(done());
    }

private:
    std::unique_ptr<mcp::server> make_server(std::shared_ptr<mcp::shared_task_table> table,
                                             std::chrono::milliseconds lease, std::size_t per_principal) {
        auto log = std::make_shared<server_log>();
        auto o = test_options(log);
        o.tasks.shared = std::move(table);
        o.tasks.lease = lease;
        o.tasks.max_tasks_per_principal = per_principal;
        o.tasks.shared_poll_interval = std::chrono::milliseconds(10);
        auto srv = std::make_unique<mcp::server>(o);
        srv->set_request_state_sealer(test_sealer());
        auto g = gate;
        srv
            ->add_tool(mcp::make_content_tool(
                mcp::tool_info("gated", "Waits for the test's gate.").with_task_support(mcp::task_support::optional),
                [this, g](const boost::json::object&, mcp::call_context& ctx) -> awaitable<mcp::content_result> {
                    co_await g->async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
                    saw_cancellation = saw_cancellation || ctx.cancelled();
                    co_return mcp::content_result{
                        boost::json::array{boost::json::object{{"type", "text"}, {"text", "opened"}}}};
                }))
            .value();
        srv->add_tool(mcp::make_content_tool(
                          mcp::tool_info("asking", "Asks the user's name inside its task.")
                              .with_task_support(mcp::task_support::optional),
                          [](const boost::json::object&, mcp::call_context& ctx) -> awaitable<mcp::content_result> {
                              boost::asio::steady_timer t(ctx.executor(), std::chrono::milliseconds(1));
                              co_await t.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
                              std::vector<mcp::client_request> one;
                              one.push_back(form("name", "name"));
                              auto a = co_await ctx.request_client_all(std::move(one));
                              co_return mcp::content_result{boost::json::array{boost::json::object{
                                  {"type", "text"}, {"text", "Hello, " + answer_field(a[0], "name")}}}};
                          }))
            .value();
        return srv;
    }
};

/// A task started on one replica is polled on the other, to its result.
inline void polled_elsewhere_to_its_result(const std::shared_ptr<mcp::shared_task_table>& table,
                                           const std::shared_ptr<mcp::shared_task_table>& other = nullptr) {
    two_replicas r(table, other);
    const auto id = two_replicas::start(*r.on_first, "gated");
    ASSERT_FALSE(id.empty());
    r.wait_for(*r.on_second, id, "working");
    r.gate->cancel();
    auto done = r.wait_for(*r.on_second, id, "completed");
    EXPECT_EQ(at(item(at(done, "result", "result", "content"), 0), "text"), "opened");
    // Another principal on either replica does not see it.
    mcp::memory_client bob(*r.second, r.ioc, mcp::connection_options{{"bob"}, ""});
    EXPECT_EQ(at(two_replicas::task_request(bob, "tasks/get", id), "error", "data", "code"), "TASK_NOT_FOUND");
    EXPECT_EQ(at(two_replicas::task_request(*r.on_second, "tasks/get", "no-such-task"), "error", "data", "code"),
              "TASK_NOT_FOUND");
}

/// Cancelled on the other replica: the task is cancelled there at once, and its tool, on the
/// replica that runs it, is stopped.
inline void cancelled_elsewhere_stops_the_tool(const std::shared_ptr<mcp::shared_task_table>& table,
                                               const std::shared_ptr<mcp::shared_task_table>& other = nullptr) {
    two_replicas r(table, other);
    const auto id = two_replicas::start(*r.on_first, "gated");
    ASSERT_FALSE(id.empty());
    r.wait_for(*r.on_second, id, "working");
    auto ack = two_replicas::task_request(*r.on_second, "tasks/cancel", id);
    EXPECT_EQ(at(ack, "result", "resultType"), "complete") << ack;
    EXPECT_EQ(at(two_replicas::task_request(*r.on_second, "tasks/get", id), "result", "status"), "cancelled");
    r.run_until([&] { return r.saw_cancellation; });
    r.wait_for(*r.on_first, id, "cancelled");
}

/// Cancelled on the other replica while its tool finishes here before this replica read the
/// table: the cancellation came first, and every replica says `cancelled`.
inline void a_cancellation_elsewhere_wins_over_a_later_end(
    const std::shared_ptr<mcp::shared_task_table>& table,
    const std::shared_ptr<mcp::shared_task_table>& other = nullptr) {
    two_replicas r(table, other);
    const auto id = two_replicas::start(*r.on_first, "gated");
    ASSERT_FALSE(id.empty());
    r.wait_for(*r.on_second, id, "working");
    r.table_of_first->deaf = true;
    EXPECT_EQ(at(two_replicas::task_request(*r.on_second, "tasks/cancel", id), "result", "resultType"), "complete");
    r.gate->cancel();  // the tool ends, unaware of the cancellation
    r.wait_for(*r.on_first, id, "cancelled");
    EXPECT_EQ(at(two_replicas::task_request(*r.on_second, "tasks/get", id), "result", "status"), "cancelled");
}

/// A request to the client raised on one replica is answered by `tasks/update` on the other.
inline void answered_elsewhere(const std::shared_ptr<mcp::shared_task_table>& table,
                               const std::shared_ptr<mcp::shared_task_table>& other = nullptr) {
    two_replicas r(table, other);
    const auto id = two_replicas::start(*r.on_first, "asking");
    ASSERT_FALSE(id.empty());
    auto asked = r.wait_for(*r.on_second, id, "input_required");
    ASSERT_TRUE(at(asked, "result", "inputRequests").as_object().contains("name")) << asked;
    auto wrong = two_replicas::task_request(*r.on_second, "tasks/update", id,
                                            {{"inputResponses", {{"name", {{"action", "maybe"}}}}}});
    EXPECT_EQ(at(wrong, "error", "data", "code"), "INPUT_RESPONSES_INVALID") << wrong;
    auto ack = two_replicas::task_request(
        *r.on_second, "tasks/update", id,
        {{"inputResponses", {{"name", {{"action", "accept"}, {"content", {{"name", "Ada"}}}}}}}});
    EXPECT_EQ(at(ack, "result", "resultType"), "complete") << ack;
    auto done = r.wait_for(*r.on_second, id, "completed");
    EXPECT_EQ(at(item(at(done, "result", "result", "content"), 0), "text"), "Hello, Ada");
}

/// A replica that stops renewing its lease loses its tasks: past the lease the other replica
/// answers `failed` with TASK_LOST, and the replica, once it reads the table again, stops the tool.
inline void a_replica_that_stops_renewing_loses_its_tasks(
    const std::shared_ptr<mcp::shared_task_table>& table,
    const std::shared_ptr<mcp::shared_task_table>& other = nullptr) {
    two_replicas r(table, other, std::chrono::milliseconds(200));
    const auto id = two_replicas::start(*r.on_first, "gated");
    ASSERT_FALSE(id.empty());
    r.wait_for(*r.on_second, id, "working");
    r.table_of_first->paused = true;
    auto lost = r.wait_for(*r.on_second, id, "failed");
    EXPECT_EQ(at(at(lost, "result", "error"), "data", "code"), "TASK_LOST") << lost;
    r.table_of_first->paused = false;
    r.run_until([&] { return r.saw_cancellation; });
    auto here = r.wait_for(*r.on_first, id, "failed");
    EXPECT_EQ(at(at(here, "result", "error"), "data", "code"), "TASK_LOST") << here;
}

/// The limits on tasks hold across replicas: a caller who holds as many tasks as one may, on one
/// replica, is refused another on the other, before its tool runs; once the first ended, the
/// other replica starts one.
inline void the_limits_on_tasks_hold_across_replicas(const std::shared_ptr<mcp::shared_task_table>& table,
                                                     const std::shared_ptr<mcp::shared_task_table>& other = nullptr) {
    two_replicas r(table, other, std::chrono::seconds(15), 1);
    const auto id = two_replicas::start(*r.on_first, "gated");
    ASSERT_FALSE(id.empty());
    r.wait_for(*r.on_second, id, "working");  // in the table
    auto refused = r.on_second->request(
        "tools/call", {{"name", "gated"}, {"arguments", boost::json::object{}}, {"_meta", two_replicas::meta()}});
    EXPECT_EQ(at(first_error(refused), "code"), "TOO_MANY_TASKS") << refused;
    EXPECT_EQ(at(first_error(refused), "scope"), "principal") << refused;
    EXPECT_EQ(at(first_error(refused), "limit"), 1) << refused;
    r.gate->cancel();
    r.wait_for(*r.on_second, id, "completed");
    // The first has ended: the other replica takes a task of the same caller now.
    auto second = r.on_second->request(
        "tools/call", {{"name", "gated"}, {"arguments", boost::json::object{}}, {"_meta", two_replicas::meta()}});
    EXPECT_EQ(at(second, "result", "resultType"), "task") << second;
}

}  // namespace candor::test
