// SPDX-License-Identifier: BSL-1.0
// Scopes and groups of an authenticated caller, and a tool's scope requirement.
#include <candor/mcp/tool.hpp>

#include "server_core.hpp"

#include <boost/json/array.hpp>

#include <algorithm>

namespace candor::mcp {

bool credential::has_scope(std::string_view scope) const noexcept {
    return std::find(scopes.begin(), scopes.end(), scope) != scopes.end();
}

bool credential::in_group(std::string_view group) const noexcept {
    return std::find(groups.begin(), groups.end(), group) != groups.end();
}

std::vector<std::string> missing_scopes(const tool_info& info, const principal& caller) {
    std::vector<std::string> missing;
    if (!caller.credential) return missing;
    for (const auto& s : info.scopes)
        if (!caller.credential->has_scope(s)) missing.push_back(s);
    return missing;
}

namespace detail {

namespace {
std::string joined(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v) out.append(out.empty() ? "" : " ").append(s);
    return out;
}
boost::json::array to_array(const std::vector<std::string>& v) {
    boost::json::array a;
    for (const auto& s : v) a.emplace_back(s);
    return a;
}
}  // namespace

issue insufficient_scope(const tool_info& info, std::vector<std::string> missing) {
    issue i;
    i.code = "INSUFFICIENT_SCOPE";
    i.message = "tool '" + info.name + "' needs the scopes '" + joined(info.scopes) +
                "'; the caller's credential lacks '" + joined(missing) + "'";
    i.repairable = false;
    i.where = layer::external;
    i.details["required_scopes"] = to_array(info.scopes);
    i.details["missing_scopes"] = to_array(missing);
    return i;
}

}  // namespace detail

}  // namespace candor::mcp
