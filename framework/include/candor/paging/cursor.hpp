// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Sealed keyset cursors: where a walk stands, bound to who may continue it and for what.
///
/// A cursor carries the key of the last item delivered (keyset, never an offset: the cost of
/// a page does not depend on its position) and the walk's state (snapshot, walk id, counts,
/// whether every page so far was clean). It is sealed with the server's key ring
/// (`candor::seal::key_ring`) and bound to the tool, the normalized query, the ordering,
/// the principal and the snapshot, with its issue time for the TTL. Opening one answers
/// exactly one of: valid, `CURSOR_INVALID` (malformed or tampered), `CURSOR_EXPIRED` (older
/// than the TTL). `CURSOR_MISMATCH` is decided by the collection, which knows the expected
/// binding (`mismatch`).

#include <candor/seal/key_ring.hpp>

#include <boost/assert/source_location.hpp>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/system/result.hpp>

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace candor::paging {

using seal::wall_time;

/// Purpose label of cursors in the MAC (a snapshot token cannot pass for a cursor).
inline constexpr std::string_view cursor_purpose = "candor.cursor.v1";

/// Everything a cursor says.
struct cursor_claims {
    std::string tool{};           ///< the collection tool
    std::string query{};          ///< fingerprint of the normalized query
    std::string ordering{};       ///< `ordering::to_string()`
    std::string principal{};      ///< fingerprint of the principal id
    std::string snapshot{};       ///< pinned snapshot id; empty for live sources
    wall_time issued{};           ///< when this cursor was sealed (TTL)
    boost::json::array after{};   ///< key of the last item delivered
    std::string walk{};           ///< walk id (evidence store)
    std::uint64_t delivered = 0;  ///< items delivered by the walk so far
    std::uint64_t pages = 0;      ///< pages delivered by the walk so far
    /// No page so far had a reason other than `MORE_PAGES_AVAILABLE`.
    bool clean = true;
    /// Reason codes of earlier pages that made the walk unclean (for the token).
    std::vector<std::string> taints{};
};

/// Why a cursor was refused when opened.
enum class cursor_error {
    invalid,  ///< malformed, tampered, or sealed with an unknown key → `CURSOR_INVALID`
    expired,  ///< older than the TTL → `CURSOR_EXPIRED`
};
std::string_view to_string(cursor_error e) noexcept;
[[noreturn]] void throw_exception_from_error(cursor_error e, const boost::source_location& loc);

/// Which binding a cursor fails, if any.
enum class cursor_binding { tool, query, ordering, principal };
/// "tool", "query", "ordering" or "principal".
std::string_view to_string(cursor_binding b) noexcept;

/// Seal a cursor. @complexity linear in the claims (the key is small)
std::string seal_cursor(const seal::key_ring& keys, const cursor_claims& claims);

/// Open a cursor and check its age.
/// @param now the current wall time (a controllable clock in tests)
/// @param ttl how long a cursor stays valid after it was issued
boost::system::result<cursor_claims, cursor_error> open_cursor(const seal::key_ring& keys, std::string_view text,
                                                               wall_time now, std::chrono::seconds ttl);

/// The first binding of `claims` that differs from `expected` (tool, query, ordering,
/// principal — in that order), or nothing when the cursor belongs to this call.
std::optional<cursor_binding> mismatch(const cursor_claims& claims, const cursor_claims& expected);

/// Why a query could not be normalized.
enum class query_error {
    too_deep,  ///< deeper than `candor::json::depth_ceiling` (the intake never lets that through)
};
[[noreturn]] void throw_exception_from_error(query_error e, const boost::source_location& loc);

/// The normalized query: `arguments` without the `excluded` members (paging controls such as
/// `cursor`, `page_size`, `deadline_ms`), as canonical JSON text (members sorted by key at
/// every level), so that the same query written in another member order binds the same.
/// @return the canonical text, or `too_deep` past `candor::json::depth_ceiling` levels
/// @complexity O(n log n) in the number of members; recursion bounded by the depth ceiling
boost::system::result<std::string, query_error> normalize_query(const boost::json::object& arguments,
                                                                std::initializer_list<std::string_view> excluded);

}  // namespace candor::paging
