// SPDX-License-Identifier: BSL-1.0
#pragma once
// What every `transport::session_records` implementation must do, written once and run on each
// (SQLite here, PostgreSQL in tests/postgres).

#include <candor/transport/session_records.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace candor::test {

using namespace std::chrono_literals;

/// A record of `owner`'s session `id`, used at `now`, expiring a minute later.
/// Now, in whole milliseconds (what the records keep).
inline std::chrono::system_clock::time_point now_ms() {
    return std::chrono::floor<std::chrono::milliseconds>(std::chrono::system_clock::now());
}

inline transport::session_record record(std::string id, std::string owner, std::chrono::system_clock::time_point now) {
    transport::session_record r;
    r.id = std::move(id);
    r.owner = std::move(owner);
    r.protocol_version = "2025-11-25";
    r.client_name = "client";
    r.client_version = "1.2";
    r.client_capabilities = R"({"elicitation":{}})";
    r.last_used = now;
    r.expires = now + 60s;
    return r;
}

inline void finds_until_expiry(transport::session_records& records) {
    const auto now = now_ms();
    ASSERT_TRUE(records.put(record("s1", "alice", now)));
    auto found = records.find("s1", now + 1s).value();
    ASSERT_TRUE(found);
    EXPECT_EQ(found->id, "s1");
    EXPECT_EQ(found->owner, "alice");
    EXPECT_EQ(found->protocol_version, "2025-11-25");
    EXPECT_EQ(found->client_name, "client");
    EXPECT_EQ(found->client_version, "1.2");
    EXPECT_EQ(found->client_capabilities, R"({"elicitation":{}})");
    EXPECT_EQ(std::chrono::duration_cast<std::chrono::milliseconds>(found->expires - now), 60s);
    EXPECT_FALSE(records.find("s1", now + 60s).value());
    EXPECT_FALSE(records.find("nope", now).value());
    // Put again (same id): replaced, not duplicated.
    auto again = record("s1", "alice", now);
    again.client_name = "other";
    ASSERT_TRUE(records.put(again));
    EXPECT_EQ(records.find("s1", now).value()->client_name, "other");
}

inline void throttles_touch(transport::session_records& records) {
    const auto now = now_ms();
    ASSERT_TRUE(records.put(record("s2", "alice", now)));
    // Less than a quarter of the idle timeout since the recorded use: nothing is written.
    EXPECT_FALSE(records.touch("s2", now + 10s, 60s).value());
    EXPECT_EQ(records.find("s2", now).value()->expires, now + 60s);
    // Past it: the use is recorded and the session lives an idle timeout from it.
    EXPECT_TRUE(records.touch("s2", now + 20s, 60s).value());
    const auto later = records.find("s2", now + 70s).value();
    ASSERT_TRUE(later);
    EXPECT_EQ(std::chrono::duration_cast<std::chrono::milliseconds>(later->expires - now), 80s);
    // Expired: stays gone.
    EXPECT_FALSE(records.touch("s2", now + 90s, 60s).value());
    EXPECT_FALSE(records.find("s2", now + 90s).value());
    EXPECT_FALSE(records.touch("unknown", now, 60s).value());
}

inline void removes_and_purges(transport::session_records& records) {
    const auto now = now_ms();
    (void)records.purge(now + 24h);  // what earlier tests on the same database left
    ASSERT_TRUE(records.put(record("s3", "alice", now)));
    ASSERT_TRUE(records.put(record("s4", "bob", now)));
    auto old = record("s5", "bob", now - 120s);
    old.expires = now - 60s;
    ASSERT_TRUE(records.put(old));
    EXPECT_TRUE(records.remove("s3").value());
    EXPECT_FALSE(records.remove("s3").value());
    EXPECT_FALSE(records.find("s3", now).value());
    EXPECT_EQ(records.purge(now).value(), 1u);  // s5 only
    EXPECT_TRUE(records.find("s4", now).value());
    EXPECT_EQ(records.purge(now + 60s).value(), 1u);  // s4, now expired
    EXPECT_FALSE(records.find("s4", now).value());
}

}  // namespace candor::test
