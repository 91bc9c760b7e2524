// SPDX-License-Identifier: BSL-1.0
// The helpdesk's long-running job, over stdio on the stateless revision with the tasks
// extension: reindex_knowledge_base runs as a task that a client polls to its end and finds
// recorded under its task id in kb_index_runs; a cancelled run leaves no row and the index as it
// was; search_everywhere may run as a task too.
#include "helpdesk_process.hpp"

#include <candor/sqlite/sql_database.hpp>

#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace json = boost::json;
using helpdesk_test::helpdesk_process;

json::object stateless_meta() {
    return {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
            {"io.modelcontextprotocol/clientInfo", {{"name", "reindex-test"}, {"version", "1"}}},
            {"io.modelcontextprotocol/clientCapabilities",
             {{"extensions", {{"io.modelcontextprotocol/tasks", json::object{}}}}}}};
}

// A database file of its own, removed at the end.
struct temp_db {
    std::string path;
    explicit temp_db(const char* name)
        : path((std::filesystem::temp_directory_path() /
                ("candor-" + std::string(name) + "-" + std::to_string(::getpid()) + ".db"))
                   .string()) {
        remove();
    }
    ~temp_db() { remove(); }
    void remove() const {
        std::error_code ec;
        for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix, ec);
    }
};

std::string start_task(helpdesk_process& p, std::string_view tool, json::object arguments = {}) {
    auto r =
        p.request("tools/call", {{"name", tool}, {"arguments", std::move(arguments)}, {"_meta", stateless_meta()}});
    const auto* result = r.is_object() ? r.as_object().if_contains("result") : nullptr;
    EXPECT_TRUE(result && result->at("resultType") == "task") << json::serialize(r);
    if (!result || !result->as_object().contains("taskId")) return {};
    return std::string(result->at("taskId").as_string());
}

json::value task_request(helpdesk_process& p, std::string_view method, const std::string& id) {
    return p.request(method, {{"taskId", id}, {"_meta", stateless_meta()}});
}

// Polls tasks/get as a client does, until the task leaves `working` (bounded: 60 s of polls).
json::value poll_to_end(helpdesk_process& p, const std::string& id) {
    json::value r;
    for (int i = 0; i < 1200; ++i) {
        r = task_request(p, "tasks/get", id);
        const auto* result = r.is_object() ? r.as_object().if_contains("result") : nullptr;
        if (!result || result->at("status") != "working") return r;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ADD_FAILURE() << "task " << id << " still working; last: " << json::serialize(r);
    return r;
}

struct index_state {
    std::vector<std::string> runs;  // kb_index_runs.task_id, in order
    std::int64_t entries = 0;       // rows of kb_index
};

index_state read_index(const std::string& path) {
    index_state out;
    auto db = candor::sqlite::open_sql_database(path);
    EXPECT_TRUE(db) << path;
    if (!db) return out;
    auto runs = (*db)->query("SELECT task_id FROM kb_index_runs ORDER BY rowid", {}, [&](const auto& row) {
        const auto* s = std::get_if<std::string>(&row[0]);
        out.runs.push_back(s ? *s : "(null)");
        return true;
    });
    EXPECT_TRUE(runs);
    auto count = (*db)->query("SELECT COUNT(*) FROM kb_index", {}, [&](const auto& row) {
        out.entries = std::get<std::int64_t>(row[0]);
        return false;
    });
    EXPECT_TRUE(count);
    return out;
}

TEST(HelpdeskReindex, ARunIsATaskPolledToItsEndAndRecordedUnderItsTaskId) {
    temp_db db("reindex-done");
    std::string id;
    {
        helpdesk_process p(db.path, nullptr, {"--reindex-seconds", "1"});
        id = start_task(p, "reindex_knowledge_base");
        ASSERT_FALSE(id.empty());
        auto done = poll_to_end(p, id);
        ASSERT_EQ(done.at("result").at("status"), "completed") << json::serialize(done);
        const auto& envelope = done.at("result").at("result").at("structuredContent");
        EXPECT_EQ(envelope.at("status"), "complete") << json::serialize(envelope);
        EXPECT_EQ(envelope.at("data").at("task_id"), json::value(id));
        EXPECT_GT(envelope.at("data").at("index_entries").as_int64(), 0);
        p.close_input();
        EXPECT_EQ(p.wait_end(), 0);
    }
    const auto after = read_index(db.path);
    EXPECT_EQ(after.runs, std::vector<std::string>{id});
    EXPECT_GT(after.entries, 0);
}

TEST(HelpdeskReindex, ACancelledRunLeavesNoRowAndTheIndexAsItWas) {
    temp_db db("reindex-cancelled");
    {
        // Long enough that the cancellation comes first; a run that ignored it would be recorded
        // before the server ends.
        helpdesk_process p(db.path, nullptr, {"--reindex-seconds", "20"});
        const auto id = start_task(p, "reindex_knowledge_base");
        ASSERT_FALSE(id.empty());
        auto ack = task_request(p, "tasks/cancel", id);
        ASSERT_TRUE(ack.as_object().contains("result")) << json::serialize(ack);
        auto got = task_request(p, "tasks/get", id);
        EXPECT_EQ(got.at("result").at("status"), "cancelled") << json::serialize(got);
        // The server ends once what it runs has ended: the cancelled run cannot write later.
        p.close_input();
        EXPECT_EQ(p.wait_end(), 0);
    }
    const auto after = read_index(db.path);
    EXPECT_TRUE(after.runs.empty());
    EXPECT_EQ(after.entries, 0);
}

TEST(HelpdeskReindex, SearchEverywhereMayRunAsATask) {
    temp_db db("search-task");
    helpdesk_process p(db.path, nullptr);
    const auto id = start_task(p, "search_everywhere", {{"query", "password"}});
    ASSERT_FALSE(id.empty());
    auto done = poll_to_end(p, id);
    ASSERT_EQ(done.at("result").at("status"), "completed") << json::serialize(done);
    EXPECT_TRUE(done.at("result").at("result").at("structuredContent").as_object().contains("status"));
}

}  // namespace

namespace {

// A fresh index (the seeding refreshed it) is rebuilt only when the user says so: with a client
// that can be asked, the task waits in input_required; accepted, it rebuilds and records its run.
TEST(HelpdeskReindex, ARebuildOfAFreshIndexAsksTheUserFirst) {
    temp_db db("reindex-asks");
    helpdesk_process p(db.path, nullptr, {"--reindex-seconds", "1"});
    auto meta = stateless_meta();
    meta["io.modelcontextprotocol/clientCapabilities"].as_object()["elicitation"] = json::object{};
    auto started =
        p.request("tools/call", {{"name", "reindex_knowledge_base"}, {"arguments", json::object{}}, {"_meta", meta}});
    const auto* result = started.is_object() ? started.as_object().if_contains("result") : nullptr;
    ASSERT_TRUE(result && result->at("resultType") == "task") << json::serialize(started);
    const std::string id(result->at("taskId").as_string());
    const auto asked = poll_to_end(p, id);
    ASSERT_EQ(asked.at("result").at("status"), "input_required") << json::serialize(asked);
    const auto& requests = asked.at("result").at("inputRequests").as_object();
    ASSERT_EQ(requests.size(), 1u);
    EXPECT_TRUE(read_index(db.path).runs.empty());  // nothing done while it asks
    auto ack = p.request(
        "tasks/update",
        {{"taskId", id}, {"inputResponses", {{requests.begin()->key(), {{"action", "accept"}}}}}, {"_meta", meta}});
    EXPECT_EQ(ack.at("result").at("resultType"), "complete") << json::serialize(ack);
    const auto done = poll_to_end(p, id);
    EXPECT_EQ(done.at("result").at("status"), "completed") << json::serialize(done);
    EXPECT_EQ(read_index(db.path).runs, std::vector<std::string>{id});
}

}  // namespace
