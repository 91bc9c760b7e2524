// SPDX-License-Identifier: BSL-1.0
#pragma once
// The conformance fixture server's parts.

#include <candor/mcp/server.hpp>

namespace conformance {

/// The fixtures of the 2026-07-28 scenarios (multi round-trip tools and prompt, a tool that
/// needs a client capability, list changes, a mirrored header parameter).
void add_stateless_fixtures(candor::mcp::server& srv);

}  // namespace conformance
