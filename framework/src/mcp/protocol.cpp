// SPDX-License-Identifier: BSL-1.0
#include <candor/mcp/protocol.hpp>

#include <algorithm>

namespace candor::mcp {

std::optional<protocol_rules> rules_for(std::string_view version) noexcept {
    protocol_rules r;
    if (version == stateless_versions[0]) {
        r.version = stateless_versions[0];
        r.requires_initialize = false;
        r.stateless = true;
        return r;
    }
    if (version == handshake_versions[0] || version == handshake_versions[1]) {
        r.version = version == handshake_versions[0] ? handshake_versions[0] : handshake_versions[1];
        return r;
    }
    if (version == handshake_versions[2]) {
        r.version = handshake_versions[2];
        r.titles = false;
        r.structured_content = false;
        return r;
    }
    return std::nullopt;
}

bool is_stateless_version(std::string_view version) noexcept {
    return std::find(stateless_versions.begin(), stateless_versions.end(), version) != stateless_versions.end();
}

protocol_rules latest_rules() noexcept { return *rules_for(handshake_versions[0]); }

protocol_rules negotiate(std::string_view requested) noexcept {
    if (auto r = rules_for(requested); r && !r->stateless) return *r;
    return latest_rules();
}

}  // namespace candor::mcp
