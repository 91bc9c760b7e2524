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

#include <candor/evidence/seal.hpp>
#include <candor/evidence/store.hpp>

#include <boost/system/result.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace candor::evidence {

/// Purpose label of snapshot tokens in the MAC (a cursor cannot pass for a token).
inline constexpr std::string_view snapshot_token_purpose = "candor.snapshot.v1";

/// What a snapshot token says.
struct snapshot_claims {
    std::string resource;              ///< the collection tool that delivered the ids
    std::string query;                 ///< fingerprint of the normalized query
    std::string principal;             ///< fingerprint of the principal the walk ran for
    std::string snapshot;              ///< the pinned snapshot id
    std::string walk;                  ///< the walk's id in the evidence store
    bool complete = false;             ///< every item of the snapshot in scope was delivered exactly once
    std::vector<std::string> reasons;  ///< reason codes that made the walk incomplete
    wall_time expiry{};
};

/// Seal the claims. @complexity linear in the claims
std::string seal_snapshot_token(const key_ring& keys, const snapshot_claims& claims);

/// Open a token; any encoding, key or MAC failure, and a payload that does not have the
/// expected shape, is `seal_error` (the caller answers `EVIDENCE_INVALID`). Expiry is not
/// checked here (the caller answers `EVIDENCE_EXPIRED` with its own clock).
boost::system::result<snapshot_claims, seal_error> open_snapshot_token(const key_ring& keys, std::string_view token);

/// The fingerprint of a principal id, as cursors and tokens carry it.
std::string principal_fingerprint(std::string_view principal_id);

}  // namespace candor::evidence
