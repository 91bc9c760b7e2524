// SPDX-License-Identifier: BSL-1.0
#pragma once
// Internal: the compiled form of a schema. Not installed; included by the schema sources only.
//
// A program is a flat vector of nodes, one per schema object (or boolean schema) that can be
// reached from the root. Every applicator refers to its subschemas by index, `$ref` is
// resolved to an index at compile time, and `$dynamicRef` carries the precomputed list of
// resources that could rebind it, so evaluation never looks anything up by URI or name.

#include <candor/schema/validator.hpp>

#include "pattern.hpp"

#include <boost/json/value.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace candor::schema::detail {

using index = std::int32_t;
inline constexpr index none = -1;

enum type_bits : std::uint8_t {
    t_null = 1,
    t_boolean = 2,
    t_object = 4,
    t_array = 8,
    t_number = 16,
    t_string = 32,
    t_integer = 64,
};

enum class format_kind : std::uint8_t {
    unset,
    date,
    date_time,
    time,
    duration,
    email,
    idn_email,
    hostname,
    idn_hostname,
    ipv4,
    ipv6,
    uri,
    uri_reference,
    iri,
    iri_reference,
    uri_template,
    uuid,
    json_pointer,
    relative_json_pointer,
    regex,
    other,  // unknown format names are annotations only
};

/// Vocabularies in force for a node (from its document's metaschema `$vocabulary`).
enum vocab_bits : std::uint8_t {
    v_applicator = 1,
    v_unevaluated = 2,
    v_validation = 4,
    v_format_assertion = 8,
};

struct property {
    std::string name;
    index schema = none;
    /// Position of this name in `required` (< 64), or -1: lets the member loop tick off
    /// required names instead of looking each one up.
    std::int32_t required_slot = -1;
};
struct pattern_property {
    index regex = none;
    std::string source;
    index schema = none;
};
struct required_dependency {
    std::string name;
    std::vector<std::string> required;
    /// Every required name is a `properties` name and there are at most 64 of them.
    bool required_by_mask = false;
};
struct dependent_schema {
    std::string name;
    index schema = none;
};
/// A resource in which a `$dynamicRef` may be rebound, and the node it would bind to.
struct dynamic_candidate {
    index resource = none;
    index target = none;
};

struct node {
    /// Where this schema is: a JSON Pointer for the root document, "URI#pointer" otherwise.
    std::string location;
    index resource = 0;
    bool is_boolean = false;
    bool boolean_value = true;
    std::uint8_t vocab = v_applicator | v_unevaluated | v_validation;

    // core
    index ref = none;
    index dynamic_ref = none;          // static target of $dynamicRef
    bool dynamic_ref_rebinds = false;  // the static target carries the matching $dynamicAnchor
    std::vector<dynamic_candidate> dynamic_candidates;

    // validation
    std::uint8_t types = 0;  // 0: no `type`
    bool has_const = false;
    boost::json::value const_value;
    bool has_enum = false;
    std::vector<boost::json::value> enum_values;
    std::optional<boost::json::value> multiple_of, minimum, maximum, exclusive_minimum, exclusive_maximum;
    std::optional<std::size_t> min_length, max_length, min_items, max_items, min_contains, max_contains, min_properties,
        max_properties;
    bool unique_items = false;
    index pattern = none;
    std::string pattern_source;
    std::vector<std::string> required;
    /// Every required name is a `properties` name and there are at most 64 of them.
    bool required_by_mask = false;
    std::vector<required_dependency> dependent_required;
    format_kind format = format_kind::unset;
    bool format_assert = false;
    std::string format_name;

    // applicators
    std::vector<index> all_of, any_of, one_of;
    index not_ = none, if_ = none, then_ = none, else_ = none;
    std::vector<dependent_schema> dependent_schemas;
    std::vector<index> prefix_items;
    index items = none, contains = none;
    std::vector<property> properties;
    std::vector<pattern_property> pattern_properties;
    index additional_properties = none, property_names = none;
    index unevaluated_items = none, unevaluated_properties = none;

    /// Fast rejection: true when the node has any keyword beyond `type` that applies to
    /// objects / arrays / strings / numbers (so evaluation can skip whole groups).
    bool object_keywords = false, array_keywords = false, string_keywords = false, number_keywords = false;
};

struct resource {
    std::string uri;
};

struct program {
    boost::json::value schema;
    options opts;
    std::vector<node> nodes;
    std::vector<resource> resources;
    std::vector<compiled_pattern> regexes;
    index root = 0;
    bool uses_dynamic_scope = false;
    program();
    ~program();
};

}  // namespace candor::schema::detail
