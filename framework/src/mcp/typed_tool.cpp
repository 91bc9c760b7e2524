// SPDX-License-Identifier: BSL-1.0
#include <candor/mcp/typed_tool.hpp>

#include <stdexcept>

namespace candor::mcp::detail {

boost::json::object input_schema_from(const boost::json::value& schema) {
    if (const auto* o = schema.if_object()) return boost::json::object(*o, boost::json::storage_ptr());
    // A contract always generates an object schema for a struct; anything else is a bug there,
    // and advertising an empty object schema instead would hide it from every client.
    throw std::logic_error("typed tool: the argument contract generated a schema that is not an object");
}

void declare_contract(tool_info& info, const boost::json::value& schema, std::string contract_version) {
    info.input_schema = input_schema_from(schema);
    info.contract_version = std::move(contract_version);
}

}  // namespace candor::mcp::detail
