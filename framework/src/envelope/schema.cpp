// SPDX-License-Identifier: BSL-1.0
#include <candor/envelope/schema.hpp>

#include <candor/envelope/envelope.hpp>

#include <boost/json/parse.hpp>

#include <string>

namespace candor::envelope {

namespace {

// Written as JSON text because that is what reviewers compare with docs/envelope.md; it is our
// own constant, parsed once per call (tool registration), never untrusted input.
constexpr const char* envelope_schema_text = R"({
  "type": "object",
  "properties": {
    "status": {"type": "string", "enum": ["complete", "partial", "error"]},
    "complete": {"type": "boolean"},
    "incomplete_reasons": {
      "type": "array",
      "items": {
        "type": "object",
        "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
        "required": ["code", "message"]
      }
    },
    "continuation": {
      "anyOf": [
        {"type": "null"},
        {"type": "object",
         "properties": {"kind": {"const": "next_cursor"}, "cursor": {"type": "string"}},
         "required": ["kind", "cursor"]},
        {"type": "object",
         "properties": {"kind": {"const": "retry_after"}, "seconds": {"type": "integer", "minimum": 1}},
         "required": ["kind", "seconds"]},
        {"type": "object",
         "properties": {"kind": {"const": "retry_with_deadline"},
                        "minimum_ms": {"type": "integer", "minimum": 1}},
         "required": ["kind", "minimum_ms"]},
        {"type": "object",
         "properties": {"kind": {"const": "narrow_query"}, "hint": {"type": "string"}},
         "required": ["kind", "hint"]},
        {"type": "object",
         "properties": {"kind": {"const": "restart"}, "reason": {"type": "string"}},
         "required": ["kind", "reason"]}
      ]
    },
    "scope": {
      "type": "object",
      "properties": {
        "resource": {"type": "string"},
        "visibility": {"type": "string"},
        "snapshot": {"type": "string"}
      },
      "required": ["resource", "visibility", "snapshot"]
    },
    "warnings": {
      "type": "array",
      "items": {
        "type": "object",
        "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
        "required": ["code", "message"]
      }
    },
    "errors": {
      "type": "array",
      "minItems": 1,
      "items": {
        "type": "object",
        "properties": {
          "code": {"type": "string"},
          "path": {"type": "string"},
          "message": {"type": "string"},
          "repairable": {"type": "boolean"},
          "layer": {"type": "string", "enum": ["intake", "contract", "business", "external"]}
        },
        "required": ["code", "path", "message", "repairable", "layer"]
      }
    }
  },
  "required": ["status", "complete", "incomplete_reasons", "continuation", "scope", "warnings"]
})";

}  // namespace

boost::json::object output_schema(const boost::json::value& data_schema) {
    auto schema = boost::json::parse(envelope_schema_text).as_object();
    // Clients validate `outputSchema` with their own meta-model: the TypeScript SDK (zod) takes
    // only object schemas under `properties`, so boolean schemas are written in object form.
    boost::json::value data = data_schema;
    if (data.is_bool())
        data = data.get_bool() ? boost::json::value(boost::json::object{})
                               : boost::json::value(boost::json::object{{"not", boost::json::object{}}});
    schema["properties"].as_object()["data"] = std::move(data);
    return schema;
}

}  // namespace candor::envelope
