// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The evidence store: which ids a walk over a pinned snapshot delivered.
///
/// A snapshot token names a walk; the store holds the walk's exact id set, so that an
/// evidence-gated action can check, before it runs, that every id it is asked to touch was
/// delivered by that (complete) walk. Implementations: in memory (one process, tests; here) and
/// SQLite (survives restarts, shared by processes on one host; sqlite_store.hpp, component
/// sqlite); PostgreSQL can come later behind the same interface.
///
/// The interface is synchronous and each call is short (an insert batch or one indexed
/// lookup per id); implementations are thread-safe.

#include <candor/evidence/seal.hpp>

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace candor::evidence {

class evidence_store {
public:
    virtual ~evidence_store() = default;

    /// Add delivered ids to an open walk (created on first use). Repeating an id is harmless
    /// (a page fetched twice with the same cursor delivers the same ids).
    /// @param open_until the open walk is dropped by `purge` after this time unless another
    ///        page extends it: a walk whose cursor expired can never be continued, so an
    ///        abandoned walk does not stay forever (collections pass now + the cursor TTL)
    virtual void record(std::string_view walk, std::span<const std::string> ids, wall_time open_until) = 0;

    /// The walk ended: keep its set until `expiry`, after which it is gone.
    virtual void close(std::string_view walk, wall_time expiry) = 0;

    /// The ids of `ids` that the closed walk did not deliver (in the order given).
    /// @return the uncovered ids (empty: all covered), or nothing when the walk is unknown,
    ///         not closed, or expired at `now`
    /// @complexity one lookup per id
    virtual std::optional<std::vector<std::string>> uncovered(std::string_view walk, std::span<const std::string> ids,
                                                              wall_time now) const = 0;

    /// Drop every walk, closed or abandoned, whose time is up at `now` (closed: its expiry;
    /// open: its `open_until`).
    virtual void purge(wall_time now) = 0;
};

/// An in-process store (a hash set per walk).
std::shared_ptr<evidence_store> make_memory_store();

}  // namespace candor::evidence
