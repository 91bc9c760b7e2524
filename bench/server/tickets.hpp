// SPDX-License-Identifier: BSL-1.0
#pragma once
// The load benchmark's dataset (docs/performance.md, "Load"): 100,000 tickets made at start-up,
// in id order. Shared by bench-server and by the by-hand reference server (stdio-direct), so
// that both serve the same rows.
#include <boost/describe.hpp>

#include <array>
#include <cstdio>
#include <string>
#include <vector>

struct ticket {
    std::string id;
    std::string department;
    std::string status;
    int priority = 0;
    std::string title;
    std::string created_at;
};
BOOST_DESCRIBE_STRUCT(ticket, (), (id, department, status, priority, title, created_at))

inline constexpr int ticket_count = 100'000;

inline std::string day_after_2026_01_01(int days) {
    static constexpr std::array<int, 12> month_days{31, 28, 31, 30, 31, 30,
                                                    31, 31, 30, 31, 30, 31};  // 2026: no leap day
    int month = 0;
    while (days >= month_days[static_cast<std::size_t>(month)]) days -= month_days[static_cast<std::size_t>(month++)];
    char text[32];
    std::snprintf(text, sizeof text, "2026-%02d-%02d", month + 1, days + 1);
    return text;
}

inline std::vector<ticket> make_tickets() {
    static constexpr std::array<const char*, 3> statuses{"open", "pending", "closed"};
    std::vector<ticket> out;
    out.reserve(ticket_count);
    for (int i = 1; i <= ticket_count; ++i) {
        char id[16];
        std::snprintf(id, sizeof id, "T-%06d", i);
        out.push_back({id, "dept-" + std::to_string(i % 8), statuses[static_cast<std::size_t>((i * 7) % 3)], 1 + i % 5,
                       "Ticket " + std::to_string(i), day_after_2026_01_01(i % 300)});
    }
    return out;  // ids are zero-padded: generation order is id order
}
