// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The operators' web console: a bounded ring of recent call records and bounded aggregates
/// (per-tool completeness with paging apart from real gaps, top gap reasons, paging per tool,
/// argument issues apart from external, gate and server issues, refused actions, a per-minute
/// timeline), served as one JSON feed and one self-contained HTML page (docs/operations.md).

#include <candor/mcp/observer.hpp>

#include <boost/json/object.hpp>

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

namespace candor::ops {

struct console_options {
    /// Recent calls kept (oldest dropped first).
    std::size_t recent_calls = 200;
    /// Distinct keys per aggregate (tools, reason codes, issue codes, refused actions); calls
    /// beyond it are counted under "other".
    std::size_t max_keys = 200;
    /// Minutes of timeline kept.
    std::size_t timeline_minutes = 60;
};

class console : public mcp::call_observer {
public:
    explicit console(console_options opts = {});

    void on_record(const mcp::call_record& r) override;

    /// The feed: `{seq, calls: [records with seq > after], tools, reasons, paging, issues,
    /// other_issues, refused, timeline}`. Records carry their journal fields (principal and
    /// session included) and their envelope metadata (never data or messages).
    /// @param after the last sequence number the reader has; 0 for every recent call
    boost::json::object feed(std::uint64_t after = 0) const;

    /// The single page (HTML, CSS and script inline; no external asset), with `initial_feed`
    /// embedded so the first paint needs no request.
    static std::string page(const boost::json::object& initial_feed);

private:
    struct tool_counts {
        std::uint64_t calls = 0, complete = 0, paged = 0, incomplete = 0, error = 0, other = 0;
    };
    struct minute {
        std::int64_t start = 0;  // seconds since the epoch
        std::uint64_t calls = 0, paged = 0, incomplete = 0, error = 0;
    };
    using pair_counts = std::map<std::pair<std::string, std::string>, std::uint64_t>;
    void bump(pair_counts& m, std::string a, std::string b);

    console_options opts_;
    mutable std::mutex mu_;
    std::uint64_t seq_ = 0;
    std::deque<std::pair<std::uint64_t, boost::json::object>> recent_;
    std::map<std::string, tool_counts> tools_;
    pair_counts reasons_;       // (tool, reason code) of real gaps
    pair_counts paging_;        // (tool, reason code) of paging reasons
    pair_counts size_cuts_;     // (tool, code) of results cut to their byte budget
    pair_counts issues_;        // (issue code, layer) of the argument layers
    pair_counts other_issues_;  // (issue group, code) of the other groups
    pair_counts refused_;       // (tool, code)
    std::deque<minute> timeline_;
};

}  // namespace candor::ops
