// SPDX-License-Identifier: BSL-1.0
// Schema compilation: load documents, find their resources and anchors, resolve references,
// and lower every reachable schema object into a `node` (lower.cpp) with a worklist, never
// recursing on the schema; then bind dynamic references and refuse in-place cycles.
#include "compile.hpp"
#include "compiler.hpp"

#include "metaschema.hpp"

#include <candor/json/intake.hpp>
#include <candor/json/pointer.hpp>

#include <boost/json/string.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/url.hpp>

#include <array>
#include <unordered_map>

namespace candor::schema::detail {

program::program() = default;
program::~program() = default;

namespace {

constexpr std::string_view default_base = "urn:candor:root";
// Deeper schema documents than this are refused; the intake admits at most depth_ceiling.
constexpr std::size_t max_schema_depth = json::depth_ceiling + 8;

// Keywords whose value is one subschema / an object of subschemas / an array of subschemas.
constexpr std::array<std::string_view, 11> single_schema_keywords{
    "additionalProperties", "propertyNames",         "items",        "contains", "not", "if", "then", "else",
    "unevaluatedItems",     "unevaluatedProperties", "contentSchema"};
constexpr std::array<std::string_view, 5> object_schema_keywords{"properties", "patternProperties", "$defs",
                                                                 "dependentSchemas", "definitions"};
constexpr std::array<std::string_view, 4> array_schema_keywords{"allOf", "anyOf", "oneOf", "prefixItems"};

std::string strip_empty_fragment(std::string s) {
    if (!s.empty() && s.back() == '#') s.pop_back();
    return s;
}

std::optional<std::string> resolve_uri(std::string_view base, std::string_view ref) {
    auto b = boost::urls::parse_uri(base);
    auto r = boost::urls::parse_uri_reference(ref);
    if (!b || !r) return std::nullopt;
    boost::urls::url dest;
    if (!boost::urls::resolve(*b, *r, dest)) return std::nullopt;
    return std::string(dest.buffer());
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

std::string percent_decode(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '%' && i + 2 < s.size() && hex_digit(s[i + 1]) >= 0 && hex_digit(s[i + 2]) >= 0) {
            out += static_cast<char>(hex_digit(s[i + 1]) * 16 + hex_digit(s[i + 2]));
            i += 2;
        } else {
            out += s[i];
        }
    }
    return out;
}

/// Walk a JSON Pointer (already percent-decoded, still ~-escaped) from `v`.
const bj::value* walk_pointer(const bj::value* v, std::string_view pointer) {
    std::size_t pos = 0;
    std::string token;
    while (v && pos < pointer.size()) {
        if (pointer[pos] != '/') return nullptr;
        std::size_t next = pointer.find('/', pos + 1);
        std::string_view raw =
            pointer.substr(pos + 1, next == std::string_view::npos ? std::string_view::npos : next - pos - 1);
        token.clear();
        if (!json::unescape_token(raw, token)) return nullptr;
        if (const auto* o = v->if_object()) {
            auto it = o->find(token);
            v = it == o->end() ? nullptr : &it->value();
        } else if (const auto* a = v->if_array()) {
            if (token.empty() || (token.size() > 1 && token[0] == '0')) return nullptr;
            std::size_t i = 0;
            for (char c : token) {
                if (c < '0' || c > '9') return nullptr;
                i = i * 10 + static_cast<std::size_t>(c - '0');
                if (i > a->size()) return nullptr;
            }
            v = i < a->size() ? &(*a)[i] : nullptr;
        } else {
            return nullptr;
        }
        pos = next == std::string_view::npos ? pointer.size() : next;
    }
    return v;
}

}  // namespace

boost::system::result<void, schema_error> compiler::run() {
    int doc = add_document(std::string(default_base), p_.schema);
    if (error_) return *error_;
    p_.root = get_node(doc, "", docs_[static_cast<std::size_t>(doc)].root.get());
    while (true) {
        drain();
        if (error_) return *error_;
        std::size_t before = p_.nodes.size();
        bind_dynamic_refs();
        if (error_) return *error_;
        if (p_.nodes.size() == before && work_.empty()) break;
    }
    check_cycles();
    if (error_) return *error_;
    return {};
}

void compiler::fail(std::string where, std::string message) {
    if (!error_) error_ = schema_error{std::move(where), std::move(message)};
}

std::string compiler::doc_location(int doc, std::string_view pointer) const {
    if (doc == 0) return std::string(pointer);
    return docs_[static_cast<std::size_t>(doc)].uri + "#" + std::string(pointer);
}

index compiler::resource_for(const std::string& uri) {
    auto it = resource_by_uri_.find(uri);
    if (it != resource_by_uri_.end()) return it->second;
    index r = static_cast<index>(p_.resources.size());
    p_.resources.push_back(resource{uri});
    resource_by_uri_.emplace(uri, r);
    return r;
}

std::uint8_t compiler::vocabulary_of(const bj::value& root, int doc) {
    std::uint8_t all = v_applicator | v_unevaluated | v_validation;
    const auto* o = root.if_object();
    if (!o) return all;
    auto it = o->find("$schema");
    if (it == o->end()) return all;
    if (!it->value().is_string()) {
        fail(doc_location(doc, "/$schema"), "$schema must be a string (a URI)");
        return all;
    }
    std::string uri = strip_empty_fragment(std::string(it->value().get_string()));
    if (uri == metaschema_uri) return all;
    auto meta = load(uri);
    if (!meta) return all;  // unknown dialect: treated as 2020-12
    const auto* mo = meta->if_object();
    if (!mo) return all;
    auto vit = mo->find("$vocabulary");
    if (vit == mo->end() || !vit->value().is_object()) return all;
    std::uint8_t bits = 0;
    constexpr std::string_view prefix = "https://json-schema.org/draft/2020-12/vocab/";
    for (const auto& kv : vit->value().get_object()) {
        std::string_view k = kv.key();
        bool required = kv.value().is_bool() && kv.value().get_bool();
        std::string_view name = k.substr(0, prefix.size()) == prefix ? k.substr(prefix.size()) : std::string_view{};
        if (name == "applicator") bits |= v_applicator;
        else if (name == "unevaluated") bits |= v_unevaluated;
        else if (name == "validation") bits |= v_validation;
        else if (name == "format-assertion") bits |= v_format_assertion;
        else if (name == "core" || name == "meta-data" || name == "format-annotation" || name == "content") {
        } else if (required) {
            fail(doc_location(doc, "/$schema"), "the metaschema requires the unknown vocabulary " + std::string(k));
        }
    }
    return bits;
}

std::optional<bj::value> compiler::load(const std::string& uri) {
    if (auto text = builtin_document(uri)) {
        auto doc = json::parse(*text);
        if (doc) return bj::value(doc->root(), bj::storage_ptr());
        return std::nullopt;
    }
    if (p_.opts.resolve) return p_.opts.resolve(uri);
    return std::nullopt;
}

int compiler::add_document(std::string uri, const bj::value& v) {
    int doc = static_cast<int>(docs_.size());
    docs_.push_back(document_entry{uri, std::make_unique<bj::value>(v, bj::storage_ptr()), 0});
    docs_.back().vocab = vocabulary_of(*docs_.back().root, doc);
    scan(doc);
    return doc;
}

void compiler::scan(int doc) {
    struct item {
        const bj::value* v;
        std::string pointer;
        std::string base;
        std::size_t depth;
    };
    const auto& entry = docs_[static_cast<std::size_t>(doc)];
    std::vector<item> stack;
    stack.push_back({entry.root.get(), "", entry.uri, 0});
    ids_.emplace(entry.uri, std::make_pair(doc, std::string()));
    resource_for(entry.uri);
    while (!stack.empty() && !error_) {
        item it = std::move(stack.back());
        stack.pop_back();
        if (it.depth > max_schema_depth) {
            fail(doc_location(doc, it.pointer), "schema nested too deeply");
            return;
        }
        const auto* o = it.v->if_object();
        if (!o) continue;
        std::string base = it.base;
        if (auto id = o->find("$id"); id != o->end()) {
            if (!id->value().is_string()) {
                fail(doc_location(doc, it.pointer + "/$id"), "$id must be a string (a URI reference)");
                return;
            }
            std::string_view idv = id->value().get_string();
            auto hash = idv.find('#');
            if (hash != std::string_view::npos && hash + 1 != idv.size()) {
                fail(doc_location(doc, it.pointer + "/$id"), "$id must not contain a non-empty fragment");
                return;
            }
            auto resolved = resolve_uri(base, idv);
            if (!resolved) {
                fail(doc_location(doc, it.pointer + "/$id"), "$id is not a valid URI reference");
                return;
            }
            base = strip_empty_fragment(*resolved);
            ids_.emplace(base, std::make_pair(doc, it.pointer));
            resource_for(base);
        }
        for (std::string_view kw : {std::string_view("$anchor"), std::string_view("$dynamicAnchor")}) {
            auto a = o->find(kw);
            if (a == o->end()) continue;
            if (!a->value().is_string() || a->value().get_string().empty()) {
                fail(doc_location(doc, it.pointer + "/" + std::string(kw)),
                     std::string(kw) + " must be a non-empty string");
                return;
            }
            std::string name(a->value().get_string());
            char first = name[0];
            if (!((first >= 'A' && first <= 'Z') || (first >= 'a' && first <= 'z') || first == '_')) {
                fail(doc_location(doc, it.pointer + "/" + std::string(kw)),
                     std::string(kw) + " must start with a letter or '_'");
                return;
            }
            ids_.emplace(base + "#" + name, std::make_pair(doc, it.pointer));
            if (kw == "$dynamicAnchor") dynamic_anchors_[name].push_back({base, doc, it.pointer});
        }
        auto push = [&](const bj::value& child, std::string pointer) {
            stack.push_back({&child, std::move(pointer), base, it.depth + 1});
        };
        for (std::string_view kw : single_schema_keywords)
            if (auto c = o->find(kw); c != o->end()) push(c->value(), json::child_pointer(it.pointer, kw));
        for (std::string_view kw : object_schema_keywords) {
            auto c = o->find(kw);
            if (c == o->end() || !c->value().is_object()) continue;
            std::string p = json::child_pointer(it.pointer, kw);
            for (const auto& kv : c->value().get_object()) push(kv.value(), json::child_pointer(p, kv.key()));
        }
        for (std::string_view kw : array_schema_keywords) {
            auto c = o->find(kw);
            if (c == o->end() || !c->value().is_array()) continue;
            std::string p = json::child_pointer(it.pointer, kw);
            std::size_t i = 0;
            for (const auto& v : c->value().get_array()) {
                std::string q = p;
                json::append_index(q, i++);
                push(v, std::move(q));
            }
        }
    }
}

std::string compiler::base_at(int doc, std::string_view pointer) {
    const auto& entry = docs_[static_cast<std::size_t>(doc)];
    std::string base = entry.uri;
    const bj::value* v = entry.root.get();
    auto apply_id = [&](const bj::value* at) {
        if (const auto* o = at->if_object()) {
            auto id = o->find("$id");
            if (id != o->end() && id->value().is_string()) {
                if (auto r = resolve_uri(base, id->value().get_string())) base = strip_empty_fragment(*r);
            }
        }
    };
    apply_id(v);
    std::size_t pos = 0;
    while (v && pos < pointer.size()) {
        std::size_t next = pointer.find('/', pos + 1);
        std::string_view prefix = pointer.substr(0, next == std::string_view::npos ? pointer.size() : next);
        v = walk_pointer(entry.root.get(), prefix);
        if (v) apply_id(v);
        pos = next == std::string_view::npos ? pointer.size() : next;
    }
    return base;
}

index compiler::get_node(int doc, const std::string& pointer, const bj::value* v) {
    std::string key = std::to_string(doc) + "#" + pointer;
    auto it = node_by_key_.find(key);
    if (it != node_by_key_.end()) return it->second;
    index n = static_cast<index>(p_.nodes.size());
    p_.nodes.emplace_back();
    node_by_key_.emplace(std::move(key), n);
    std::string base = base_at(doc, pointer);
    auto& nd = p_.nodes.back();
    nd.location = doc_location(doc, pointer);
    nd.resource = resource_for(base);
    nd.vocab = docs_[static_cast<std::size_t>(doc)].vocab;
    work_.push_back({n, doc, pointer, v, std::move(base)});
    return n;
}

std::optional<location> compiler::locate(const std::string& base, std::string_view ref, const std::string& where,
                                         std::string* fragment_name) {
    auto abs = resolve_uri(base, ref);
    if (!abs) {
        fail(where, "not a valid URI reference: " + std::string(ref));
        return std::nullopt;
    }
    std::string uri = *abs, fragment;
    if (auto hash = uri.find('#'); hash != std::string::npos) {
        fragment = percent_decode(std::string_view(uri).substr(hash + 1));
        uri.resize(hash);
    }
    if (!ids_.count(uri)) {
        auto doc = load(uri);
        if (!doc) {
            fail(where, "cannot resolve the reference " + std::string(ref) + " (" + uri +
                            "): no such schema resource, and no resolver provided it");
            return std::nullopt;
        }
        add_document(uri, *doc);
        if (error_) return std::nullopt;
        if (!ids_.count(uri)) ids_.emplace(uri, std::make_pair(static_cast<int>(docs_.size() - 1), std::string()));
    }
    std::pair<int, std::string> target;
    if (fragment.empty() || fragment[0] == '/') {
        target = ids_.at(uri);
        target.second += fragment;
    } else {
        if (fragment_name) *fragment_name = fragment;
        auto a = ids_.find(uri + "#" + fragment);
        if (a == ids_.end()) {
            fail(where, "no anchor named '" + fragment + "' in " + uri);
            return std::nullopt;
        }
        target = a->second;
    }
    const bj::value* v = walk_pointer(docs_[static_cast<std::size_t>(target.first)].root.get(), target.second);
    if (!v) {
        fail(where, "the reference " + std::string(ref) + " points to nothing");
        return std::nullopt;
    }
    return location{target.first, target.second, v};
}

index compiler::subschema(const pending& w, const std::string& pointer, const bj::value& v, const std::string& where) {
    if (!v.is_object() && !v.is_bool()) {
        fail(where, "must be a schema (an object or a boolean)");
        return none;
    }
    return get_node(w.doc, pointer, &v);
}

void compiler::drain() {
    while (!work_.empty() && !error_) {
        pending w = std::move(work_.back());
        work_.pop_back();
        compile_node(w);
    }
}

void compiler::bind_dynamic_refs() {
    for (const auto& site : dynamic_refs_) {
        auto& nd = p_.nodes[static_cast<std::size_t>(site.node)];
        if (site.name.empty()) continue;
        auto a = node_dynamic_anchor_.find(nd.dynamic_ref);
        if (a == node_dynamic_anchor_.end() || a->second != site.name) continue;
        auto sites = dynamic_anchors_.find(site.name);
        if (sites == dynamic_anchors_.end()) continue;
        std::vector<dynamic_candidate> candidates;
        for (const auto& s : sites->second) {
            const bj::value* v = walk_pointer(docs_[static_cast<std::size_t>(s.doc)].root.get(), s.pointer);
            if (!v) continue;
            index target = get_node(s.doc, s.pointer, v);
            candidates.push_back({resource_for(s.resource_uri), target});
        }
        auto& n2 = p_.nodes[static_cast<std::size_t>(site.node)];
        n2.dynamic_ref_rebinds = true;
        n2.dynamic_candidates = std::move(candidates);
        p_.uses_dynamic_scope = true;
    }
}

void compiler::check_cycles() {
    const std::size_t n = p_.nodes.size();
    std::vector<std::uint8_t> state(n, 0);  // 0 new, 1 on stack, 2 done
    struct frame {
        index node;
        std::size_t next;
    };
    auto edges = [&](index i, std::size_t k) -> index {
        const auto& nd = p_.nodes[static_cast<std::size_t>(i)];
        if (nd.ref != none) {
            if (k == 0) return nd.ref;
            --k;
        }
        if (nd.dynamic_ref != none && !nd.dynamic_ref_rebinds) {
            if (k == 0) return nd.dynamic_ref;
            --k;
        }
        if (k < nd.all_of.size()) return nd.all_of[k];
        return -2;
    };
    std::vector<frame> stack;
    for (std::size_t s = 0; s < n && !error_; ++s) {
        if (state[s] != 0) continue;
        stack.push_back({static_cast<index>(s), 0});
        state[s] = 1;
        while (!stack.empty()) {
            frame& f = stack.back();
            index next = edges(f.node, f.next++);
            if (next == -2) {
                state[static_cast<std::size_t>(f.node)] = 2;
                stack.pop_back();
                continue;
            }
            if (next < 0) continue;
            auto& st = state[static_cast<std::size_t>(next)];
            if (st == 1) {
                fail(p_.nodes[static_cast<std::size_t>(f.node)].location,
                     "reference cycle: this schema re-enters " + p_.nodes[static_cast<std::size_t>(next)].location +
                         " through $ref/allOf without consuming any part of the instance");
                return;
            }
            if (st == 0) {
                st = 1;
                stack.push_back({next, 0});
            }
        }
    }
}

boost::system::result<void, schema_error> compile_program(program& p) {
    compiler c(p);
    return c.run();
}

}  // namespace candor::schema::detail
