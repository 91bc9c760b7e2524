// SPDX-License-Identifier: BSL-1.0
#include <candor/mcp/protocol.hpp>

namespace candor::mcp {

std::optional<protocol_rules> rules_for(std::string_view version) noexcept {
    if (version == "2025-11-25" || version == "2025-06-18") {
        protocol_rules r;
        r.version = version == "2025-11-25" ? supported_versions[0] : supported_versions[1];
        return r;
    }
    if (version == "2025-03-26") {
        protocol_rules r;
        r.version = supported_versions[2];
        r.titles = false;
        r.structured_content = false;
        return r;
    }
    return std::nullopt;
}

protocol_rules latest_rules() noexcept { return *rules_for(supported_versions[0]); }

protocol_rules negotiate(std::string_view requested) noexcept {
    if (auto r = rules_for(requested)) return *r;
    return latest_rules();
}

}  // namespace candor::mcp
