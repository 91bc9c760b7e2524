// SPDX-License-Identifier: BSL-1.0
#pragma once
// What the stateless-revision and tasks tests share: a request's `_meta`, a request state
// sealer, and the elicitation a tool asks and the field of its answer.

#include <candor/evidence/request_state.hpp>
#include <candor/mcp/call_context.hpp>
#include <candor/mcp/stateless.hpp>
#include <candor/seal/key_ring.hpp>

#include <boost/json/object.hpp>
#include <boost/json/value_to.hpp>
#include <boost/system/result.hpp>

#include <memory>
#include <string>

namespace candor::test {

/// The `_meta` of a 2026-07-28 request from `client`.
inline boost::json::object modern_meta(boost::json::object capabilities, const char* client) {
    using boost::json::object;
    return object{{std::string(mcp::meta_key::protocol_version), "2026-07-28"},
                  {std::string(mcp::meta_key::client_info), object{{"name", client}, {"version", "1.0"}}},
                  {std::string(mcp::meta_key::client_capabilities), std::move(capabilities)}};
}

/// Seals request state with one fixed key.
inline std::shared_ptr<const mcp::state_sealer> test_sealer() {
    auto ring = seal::key_ring::from_keys({{"t1", std::string(32, 'k')}});
    return evidence::state_sealer_from(std::make_shared<const seal::key_ring>(std::move(ring.value())));
}

/// An elicitation that asks for one string `property`, under the request key `key`.
inline mcp::client_request form(const char* key, const char* property) {
    using boost::json::object;
    return {"elicitation/create",
            object{{"message", "please"},
                   {"requestedSchema",
                    object{{"type", "object"}, {"properties", object{{property, object{{"type", "string"}}}}}}}},
            key};
}

/// The string `name` of an elicitation's answer, or "error:<why>".
inline std::string answer_field(const boost::system::result<boost::json::object, mcp::client_request_error>& a,
                                const char* name) {
    if (!a) return "error:" + std::string(mcp::to_string(a.error()));
    return boost::json::value_to<std::string>(a->at("content").at(name));
}

}  // namespace candor::test
