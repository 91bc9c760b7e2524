// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The `requestState` of multi round-trip requests (MCP 2026-07-28), sealed with the server's
/// key ring: what `mcp::server_options::request_state_sealer` wants.

#include <candor/mcp/stateless.hpp>
#include <candor/seal/key_ring.hpp>

#include <memory>

namespace candor::evidence {

/// A sealer over `keys`, purpose `candor.request-state.v1` (a cursor or a snapshot token can
/// never pass for a request state, nor one for them). Sealed with the ring's current key,
/// opened with any key of it: replicas sharing `CANDOR_SEALING_KEYS` continue each other's
/// requests, and keys rotate as for cursors. Digests are `fingerprint`s (SHA-256, 128 bits).
std::shared_ptr<const mcp::state_sealer> state_sealer_from(std::shared_ptr<const seal::key_ring> keys);

}  // namespace candor::evidence
