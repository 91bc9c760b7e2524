// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Reading tool results as completeness envelopes, on the client: `read_envelope` never trusts
/// a field it cannot read, and `collect` follows a collection's `next_cursor` to the end of the
/// walk or of its budget, and cannot report a partial walk as complete.
///
/// A walk is `complete` only when every page was a readable envelope, the first call had no
/// cursor, no page said anything but "more pages follow" (`MORE_PAGES_AVAILABLE`, or
/// `RESULT_SIZE_LIMIT` for a page cut at an item) before the last, and the last said
/// `complete`. Otherwise `reasons` says why, with the client's own codes beside the server's:
/// - `CLIENT_PAGE_LIMIT`: the walk's budget (`max_calls`, `max_items` or `deadline`) ended it
///   while the server had more (`resume_cursor` goes on from there);
/// - `CURSOR_REPEATED`: the server gave a cursor it had given before (a loop: the walk stops);
/// - `ENVELOPE_UNREADABLE`: a page that is not a readable envelope;
/// - `WALK_NOT_FROM_START`: the arguments carried a `cursor`, so the walk saw only the rest;
/// - a `client_error` code (`TIMEOUT`, `SERVER_CLOSED`, `RPC_ERROR`, …): a call that got no
///   answer; the items of the pages before it are kept.

#include <candor/agent/decide.hpp>
#include <candor/client/client.hpp>

#include <chrono>
#include <string>
#include <vector>

namespace candor::client {

/// A reason, warning or error entry: `code`, `message`, and the whole entry as sent.
struct entry {
    std::string code{};
    std::string message{};
    boost::json::object fields{};
};

/// An envelope as the client reads it.
struct envelope_view {
    /// An object with `status` (`complete`, `partial` or `error`), a boolean `complete` that
    /// agrees with it, reasons when partial, errors when an error, and a readable continuation.
    bool readable = false;
    std::string status{};
    /// True only for a readable envelope that says so.
    bool complete = false;
    std::vector<entry> incomplete_reasons{}, warnings{}, errors{};
    /// `next_cursor`, `retry_after`, `restart`, …; empty: none.
    std::string continuation_kind{};
    /// The cursor of a `next_cursor` continuation.
    std::string next_cursor{};
    boost::json::value data{};
    /// The top-level `snapshot_token`, when the envelope carries one.
    std::string snapshot_token{};
};

envelope_view read_envelope(const boost::json::value& structured);

/// How far one walk may go. Items are counted per page: a walk stops after the page that
/// reached `max_items`.
struct walk_budget {
    std::size_t max_calls = 100;
    std::size_t max_items = 100'000;
    std::chrono::milliseconds deadline{std::chrono::minutes(5)};
};

struct walk_result {
    std::vector<boost::json::value> items{};
    /// Every page read and the last said complete: the absence of an item is evidence.
    bool complete = false;
    /// Every distinct reason met on the way (the server's and the client's), first met first;
    /// `fields["pages"]` counts the pages that gave it.
    std::vector<entry> reasons{};
    std::vector<entry> warnings{};
    std::size_t calls = 0;
    /// Where the walk can go on (`CLIENT_PAGE_LIMIT`); empty otherwise.
    std::string resume_cursor{};
    /// The last page's `snapshot_token` (evidence for an action, when `complete`).
    std::string snapshot_token{};
    /// What `agent::decide` says of the last page for a report.
    agent::decision next = agent::decision::refuse_or_request_review;
};

/// Call `tool` with `arguments`, then again with each `next_cursor`, until the walk is complete,
/// stops, or its budget ends.
boost::asio::awaitable<walk_result> collect(session& s, std::string tool, boost::json::object arguments,
                                            walk_budget budget);
/// With the default budget.
inline boost::asio::awaitable<walk_result> collect(session& s, std::string tool, boost::json::object arguments) {
    return collect(s, std::move(tool), std::move(arguments), walk_budget());
}

}  // namespace candor::client
