// SPDX-License-Identifier: BSL-1.0
#include <candor/mcp/typed_tool.hpp>

namespace candor::mcp::detail {

boost::json::object input_schema_from(const boost::json::value& schema) {
    if (const auto* o = schema.if_object()) return boost::json::object(*o, boost::json::storage_ptr());
    // A contract always generates an object schema for a struct; anything else is a bug there.
    return boost::json::object{{"type", "object"}};
}

}  // namespace candor::mcp::detail
