// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Snapshot tokens: the sealed receipt of a walk over a pinned snapshot.
///
/// The token is issued on the envelope that ends a walk (the last page, or an aggregation that
/// stopped). It binds the walk to the collection tool, the normalized query, the principal and
/// the snapshot, expires, and names the walk whose exact id set the evidence store holds. It
/// also says whether the walk was complete: an evidence-gated action refuses an incomplete
/// one with `EVIDENCE_INCOMPLETE` (naming the walk's reasons) instead of a vaguer error.

#include <candor/evidence/store.hpp>
#include <candor/seal/key_ring.hpp>

#include <boost/system/result.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace candor::evidence {

/// Purpose label of snapshot tokens in the MAC (a cursor cannot pass for a token).
inline constexpr std::string_view snapshot_token_purpose = "candor.snapshot.v1";

/// What a snapshot token says.
struct snapshot_claims {
    std::string resource{};              ///< the collection tool that delivered the ids
    std::string query{};                 ///< fingerprint of the normalized query
    std::string principal{};             ///< fingerprint of the principal the walk ran for
    std::string snapshot{};              ///< the pinned snapshot id
    std::string walk{};                  ///< the walk's id in the evidence store
    bool complete = false;               ///< every item of the snapshot in scope was delivered exactly once
    std::vector<std::string> reasons{};  ///< reason codes that made the walk incomplete
    seal::wall_time expiry{};
};

/// The evidence entry saying that a walk delivered object `id` as `item_text` (the item's JSON):
/// `id`, a 0x1F byte and the text's fingerprint. Collections over sources whose objects other
/// programs change (`paging::data_source::fingerprints_items`) record it beside each id, so that
/// an action can tell an object that changed since the walk saw it (`TARGET_CHANGED`).
std::string seen_as(std::string_view id, std::string_view item_text);

/// Seal the claims. @complexity linear in the claims
std::string seal_snapshot_token(const seal::key_ring& keys, const snapshot_claims& claims);

/// Open a token; any encoding, key or MAC failure, and a payload that does not have the
/// expected shape, is `seal::seal_error` (the caller answers `EVIDENCE_INVALID`). Expiry is not
/// checked here (the caller answers `EVIDENCE_EXPIRED` with its own clock).
boost::system::result<snapshot_claims, seal::seal_error> open_snapshot_token(const seal::key_ring& keys,
                                                                             std::string_view token);

/// The fingerprint of a principal id, as cursors and tokens carry it.
std::string principal_fingerprint(std::string_view principal_id);

}  // namespace candor::evidence
