#include <candor/paging/cursor.hpp>

#include <candor/json/intake.hpp>
#include <candor/json/write.hpp>

#include <boost/container/small_vector.hpp>

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace candor::paging {

namespace {

const boost::json::string* string_at(const boost::json::object& o, std::string_view k) {
    const auto* v = o.if_contains(k);
    return v ? v->if_string() : nullptr;
}

bool canonical(const boost::json::value& v, std::string& out, std::size_t depth);

// An object's members sorted by key, but those in `excluded`, written as an object.
bool canonical_object(const boost::json::object& o, std::string& out, std::size_t depth,
                      std::initializer_list<std::string_view> excluded = {}) {
    boost::container::small_vector<const boost::json::key_value_pair*, 8> members;
    members.reserve(o.size());
    for (const auto& kv : o)
        if (std::find(excluded.begin(), excluded.end(), kv.key()) == excluded.end()) members.push_back(&kv);
    std::sort(members.begin(), members.end(), [](const auto* a, const auto* b) { return a->key() < b->key(); });
    out.push_back('{');
    bool first = true;
    for (const auto* kv : members) {
        if (!first) out.push_back(',');
        first = false;
        if (!json::write_string(kv->key(), out)) return false;
        out.push_back(':');
        if (!canonical(kv->value(), out, depth + 1)) return false;
    }
    out.push_back('}');
    return true;
}

// Canonical text of a value: members sorted at every level. The depth is bounded explicitly
// (arguments passed the intake's ceiling, so this never trips in practice; if it does, the
// caller gets `too_deep` rather than a stack overflow).
bool canonical(const boost::json::value& v, std::string& out, std::size_t depth) {
    if (depth > json::depth_ceiling) return false;
    if (const auto* o = v.if_object()) return canonical_object(*o, out, depth);
    if (const auto* a = v.if_array()) {
        out.push_back('[');
        bool first = true;
        for (const auto& e : *a) {
            if (!first) out.push_back(',');
            first = false;
            if (!canonical(e, out, depth + 1)) return false;
        }
        out.push_back(']');
        return true;
    }
    return static_cast<bool>(json::write(v, out));
}

}  // namespace

std::string_view to_string(cursor_error e) noexcept { return e == cursor_error::expired ? "expired" : "invalid"; }

void throw_exception_from_error(cursor_error e, const boost::source_location&) {
    throw std::invalid_argument("cursor refused: " + std::string(to_string(e)));
}

void throw_exception_from_error(query_error, const boost::source_location&) {
    throw std::invalid_argument("query deeper than the JSON depth ceiling");
}

std::string_view to_string(cursor_binding b) noexcept {
    switch (b) {
    case cursor_binding::tool: return "tool";
    case cursor_binding::query: return "query";
    case cursor_binding::ordering: return "ordering";
    case cursor_binding::principal: return "principal";
    }
    return "unknown";
}

std::string seal_cursor(const evidence::key_ring& keys, const cursor_claims& c) {
    // The claims as a JSON object, written member by member (a cursor is sealed on every page
    // that has a next one; building an object to serialize it cost more than the writing).
    std::string text;
    // Names, punctuation and numbers take about 100 bytes; the rest is the strings'.
    std::size_t size = 128 + c.tool.size() + c.query.size() + c.ordering.size() + c.principal.size() + c.snapshot.size() +
                       c.walk.size() + 16 * c.after.size();
    for (const auto& t : c.taints) size += t.size() + 3;
    text.reserve(size);
    auto key = [&](std::string_view k) {
        text += text.empty() ? "{\"" : ",\"";
        text += k;
        text += "\":";
    };
    auto string = [&](std::string_view k, std::string_view v) {
        key(k);
        json::write_string(v, text).value();  // throws on invalid UTF-8 (a source's snapshot id)
    };
    auto number = [&](std::string_view k, auto v) {
        key(k);
        text += std::to_string(v);
    };
    string("t", c.tool);
    string("q", c.query);
    string("o", c.ordering);
    string("p", c.principal);
    string("s", c.snapshot);
    number("i", evidence::to_epoch_ms(c.issued));
    key("a");
    json::write(c.after, text).value();
    string("w", c.walk);
    number("d", c.delivered);
    number("g", c.pages);
    key("c");
    text += c.clean ? "true" : "false";
    key("n");
    text += '[';
    for (std::size_t i = 0; i < c.taints.size(); ++i) {
        if (i > 0) text += ',';
        json::write_string(c.taints[i], text).value();
    }
    text += "]}";
    return keys.seal(cursor_purpose, text);
}

boost::system::result<cursor_claims, cursor_error> open_cursor(const evidence::key_ring& keys, std::string_view text,
                                                               wall_time now, std::chrono::seconds ttl) {
    auto payload = keys.open(cursor_purpose, text);
    if (!payload) return cursor_error::invalid;
    auto doc = json::parse(*payload, json::limits{64u << 10, 8, 4096});
    if (!doc || !doc->root().is_object()) return cursor_error::invalid;
    const auto& o = doc->root().get_object();
    cursor_claims c;
    const boost::json::string* s[] = {string_at(o, "t"), string_at(o, "q"), string_at(o, "o"),
                                      string_at(o, "p"), string_at(o, "s"), string_at(o, "w")};
    for (const auto* f : s)
        if (!f) return cursor_error::invalid;
    c.tool = *s[0];
    c.query = *s[1];
    c.ordering = *s[2];
    c.principal = *s[3];
    c.snapshot = *s[4];
    c.walk = *s[5];
    const auto* issued = o.if_contains("i");
    const auto* after = o.if_contains("a");
    const auto* delivered = o.if_contains("d");
    const auto* pages = o.if_contains("g");
    const auto* clean = o.if_contains("c");
    const auto* taints = o.if_contains("n");
    if (!issued || !issued->is_int64() || !after || !after->is_array() || !delivered || !pages || !clean ||
        !clean->is_bool() || !taints || !taints->is_array())
        return cursor_error::invalid;
    auto count = [](const boost::json::value& v) -> std::optional<std::uint64_t> {
        if (v.is_uint64()) return v.get_uint64();
        if (v.is_int64() && v.get_int64() >= 0) return static_cast<std::uint64_t>(v.get_int64());
        return std::nullopt;
    };
    auto d = count(*delivered);
    auto g = count(*pages);
    if (!d || !g) return cursor_error::invalid;
    c.delivered = *d;
    c.pages = *g;
    c.clean = clean->get_bool();
    c.after = json::detach(*after).as_array();
    for (const auto& t : taints->get_array()) {
        if (!t.is_string()) return cursor_error::invalid;
        c.taints.emplace_back(t.get_string());
    }
    c.issued = evidence::from_epoch_ms(issued->get_int64());
    if (now - c.issued > ttl) return cursor_error::expired;
    return c;
}

std::optional<cursor_binding> mismatch(const cursor_claims& claims, const cursor_claims& expected) {
    if (claims.tool != expected.tool) return cursor_binding::tool;
    if (claims.query != expected.query) return cursor_binding::query;
    if (claims.ordering != expected.ordering) return cursor_binding::ordering;
    if (claims.principal != expected.principal) return cursor_binding::principal;
    return std::nullopt;
}

boost::system::result<std::string, query_error> normalize_query(const boost::json::object& arguments,
                                                                std::initializer_list<std::string_view> excluded) {
    std::string out;
    out.reserve(256);  // one allocation for a usual query, not one per doubling
    if (!canonical_object(arguments, out, 0, excluded)) return query_error::too_deep;
    return out;
}

}  // namespace candor::paging
