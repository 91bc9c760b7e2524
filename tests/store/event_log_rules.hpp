// SPDX-License-Identifier: BSL-1.0
#pragma once
// What every `transport::event_log` implementation must do, written once and run on each (in
// memory and SQLite here, PostgreSQL in tests/postgres).

#include <candor/transport/event_log.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace candor::test {

/// Event `seq` of `stream` in session `session`, expiring `life` after `now`.
inline transport::logged_event event(std::string session, std::string stream, std::uint64_t seq,
                                     std::chrono::system_clock::time_point now,
                                     std::chrono::milliseconds life = std::chrono::minutes(1)) {
    transport::logged_event e;
    e.session_id = std::move(session);
    e.stream_id = std::move(stream);
    e.seq = seq;
    e.text = seq == 0 ? ""
                      : R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":)" +
                            std::to_string(seq) + "}}";
    e.expires = now + life;
    return e;
}

/// A stream reads back in order from any point, and only within its session.
inline void reads_a_stream_in_order(transport::event_log& log) {
    const auto now = std::chrono::system_clock::now();
    for (std::uint64_t seq : {0, 2, 1, 3}) ASSERT_TRUE(log.append(event("s1", "pA", seq, now), 100));
    auto last = event("s1", "pA", 4, now);
    last.final = true;
    last.text = R"({"jsonrpc":"2.0","id":1,"result":{}})";
    ASSERT_TRUE(log.append(last, 100));
    ASSERT_TRUE(log.append(event("s1", "pB", 0, now), 100));
    ASSERT_TRUE(log.append(event("s2", "pA", 7, now), 100));

    const auto all = log.read("s1", "pA", 0, 100, now).value();
    ASSERT_EQ(all.size(), 5u);
    for (std::uint64_t i = 0; i < all.size(); ++i) {
        EXPECT_EQ(all[i].seq, i);
        EXPECT_EQ(all[i].session_id, "s1");
        EXPECT_EQ(all[i].stream_id, "pA");
        EXPECT_EQ(all[i].final, i == 4);
    }
    EXPECT_TRUE(all[0].text.empty());
    EXPECT_EQ(all[4].text, last.text);
    const auto page = log.read("s1", "pA", 2, 2, now).value();
    ASSERT_EQ(page.size(), 2u);
    EXPECT_EQ(page[0].seq, 2u);
    EXPECT_EQ(page[1].seq, 3u);
    EXPECT_TRUE(log.read("s1", "pA", 5, 100, now).value().empty());
    EXPECT_TRUE(log.read("s2", "pB", 0, 100, now).value().empty()) << "another session's stream";
    EXPECT_EQ(log.read("s2", "pA", 0, 100, now).value().size(), 1u);
}

/// Past `keep` events a stream drops its oldest; expired events are not read and are purged.
inline void bounds_and_expires(transport::event_log& log) {
    const auto now = std::chrono::system_clock::now();
    for (std::uint64_t seq = 0; seq < 10; ++seq) ASSERT_TRUE(log.append(event("s1", "pA", seq, now), 4));
    const auto kept = log.read("s1", "pA", 0, 100, now).value();
    ASSERT_EQ(kept.size(), 4u);
    EXPECT_EQ(kept.front().seq, 6u);
    EXPECT_EQ(kept.back().seq, 9u);

    ASSERT_TRUE(log.append(event("s1", "pB", 0, now, std::chrono::milliseconds(10)), 100));
    ASSERT_TRUE(log.append(event("s1", "pB", 1, now, std::chrono::hours(1)), 100));
    const auto later = now + std::chrono::seconds(1);
    const auto left = log.read("s1", "pB", 0, 100, later).value();
    ASSERT_EQ(left.size(), 1u);
    EXPECT_EQ(left[0].seq, 1u);
    // Every event of pA (a minute) and pB's first are purged an hour less a second on.
    EXPECT_EQ(log.purge(now + std::chrono::minutes(2)).value(), 5u);
    EXPECT_EQ(log.read("s1", "pB", 0, 100, now).value().size(), 1u);
    EXPECT_TRUE(log.read("s1", "pA", 0, 100, now).value().empty());
}

}  // namespace candor::test
