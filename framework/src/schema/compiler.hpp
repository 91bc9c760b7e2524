// SPDX-License-Identifier: BSL-1.0
#pragma once
// Internal: the schema compiler's state, shared by compile.cpp (documents, resources,
// references, dynamic scope, cycles) and lower.cpp (one schema object into one node).

#include "program.hpp"

#include <boost/json/value.hpp>
#include <boost/system/result.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace candor::schema::detail {

namespace bj = boost::json;

struct document_entry {
    std::string uri;
    std::unique_ptr<bj::value> root;
    std::uint8_t vocab = v_applicator | v_unevaluated | v_validation;
};

struct location {
    int doc = 0;
    std::string pointer;
    const bj::value* value = nullptr;
};

struct pending {
    index node;
    int doc;
    std::string pointer;
    const bj::value* value;
    std::string base;
};

struct dynamic_anchor_site {
    std::string resource_uri;
    int doc;
    std::string pointer;
};

struct dynamic_ref_site {
    index node;
    std::string name;  // plain-name fragment, or "" when the fragment is not a name
};
class compiler {
public:
    explicit compiler(program& p) : p_(p) {}

    boost::system::result<void, schema_error> run();

private:
    program& p_;
    std::vector<document_entry> docs_;
    // Absolute URI (no fragment) of each resource, and "URI#name" of each anchor -> location.
    std::unordered_map<std::string, std::pair<int, std::string>> ids_;
    std::unordered_map<std::string, index> node_by_key_;
    std::unordered_map<std::string, index> resource_by_uri_;
    std::unordered_map<std::string, std::vector<dynamic_anchor_site>> dynamic_anchors_;
    std::unordered_map<index, std::string> node_dynamic_anchor_;
    std::vector<dynamic_ref_site> dynamic_refs_;
    std::vector<pending> work_;
    std::optional<schema_error> error_;

    void fail(std::string where, std::string message);

    std::string doc_location(int doc, std::string_view pointer) const;

    index resource_for(const std::string& uri);

    std::uint8_t vocabulary_of(const bj::value& root, int doc);

    /// A document by absolute URI: built in, or from the caller's resolver.
    std::optional<bj::value> load(const std::string& uri);

    int add_document(std::string uri, const bj::value& v);

    /// Register the resources ($id) and anchors of one document, walking only schema
    /// positions (an `$id` inside `enum` or `const` is data, not an identifier).
    void scan(int doc);

    /// The base URI in force at `pointer` of `doc`: the document's URI, changed by every
    /// `$id` on the way down (including the one at `pointer` itself).
    std::string base_at(int doc, std::string_view pointer);

    index get_node(int doc, const std::string& pointer, const bj::value* v);

    /// Resolve `ref` against `base` to a schema location, loading documents as needed.
    std::optional<location> locate(const std::string& base, std::string_view ref, const std::string& where,
                                   std::string* fragment_name = nullptr);

    index subschema(const pending& w, const std::string& pointer, const bj::value& v, const std::string& where);

    void drain();

    void compile_node(const pending& w);

    /// Every `$dynamicRef` whose static target carries the `$dynamicAnchor` it names may be
    /// rebound at run time to the same-named dynamic anchor of any resource in the dynamic
    /// scope: precompute those (resource, node) pairs so evaluation never compares names.
    void bind_dynamic_refs();

    /// A cycle through `$ref` and `allOf` alone re-enters a schema without consuming any part
    /// of the instance: evaluation could never end, so such a schema is refused here.
    void check_cycles();
};

}  // namespace candor::schema::detail
