// SPDX-License-Identifier: BSL-1.0
#include <candor/paging/cursor.hpp>

#include <candor/json/intake.hpp>
#include <candor/json/write.hpp>

#include <boost/container/small_vector.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
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

// The claims' wire form (format 2): bytes, not JSON — about half the size (a first page's cursor
// is 176 characters instead of 320: what an agent reads and sends back), and opened without a
// parse:
//   0x02, tool, query, ordering, principal, snapshot (texts), issued (8 bytes, epoch ms),
//   after (count, then each scalar: a type byte and its value), walk (text), delivered, pages
//   (numbers), clean (0 or 1), taints (count, then texts).
// A text is a length and its bytes — or, when it is 32 lowercase hex digits (fingerprints and
// walk ids), a marker and the 16 bytes they spell. Numbers and lengths are LEB128.
// Format 1 (a JSON object, the first byte `{`) is still opened: cursors sealed by an earlier
// version stay valid for their TTL.
namespace {

constexpr unsigned char claims_format = 2;
enum : unsigned char { text_bytes = 0, text_hex128 = 1 };
enum : unsigned char {
    key_null = 0,
    key_false = 1,
    key_true = 2,
    key_int64 = 3,
    key_uint64 = 4,
    key_double = 5,
    key_string = 6
};

// A lowercase hex digit's value, or -1. From a table: the digits of fingerprints and walk ids
// are random, and a comparison chain mispredicts on about every other one.
constexpr std::array<signed char, 256> hex_values = [] {
    std::array<signed char, 256> t{};
    for (auto& v : t) v = -1;
    for (int c = '0'; c <= '9'; ++c) t[static_cast<std::size_t>(c)] = static_cast<signed char>(c - '0');
    for (int c = 'a'; c <= 'f'; ++c) t[static_cast<std::size_t>(c)] = static_cast<signed char>(c - 'a' + 10);
    return t;
}();

int hex_digit(char c) { return hex_values[static_cast<unsigned char>(c)]; }

class claims_writer {
public:
    explicit claims_writer(std::string& out) : out_(out) {}

    void byte(unsigned char b) { out_.push_back(static_cast<char>(b)); }
    void number(std::uint64_t n) {
        char buf[10];
        std::size_t k = 0;
        do {
            const auto low = static_cast<unsigned char>(n & 0x7f);
            n >>= 7;
            buf[k++] = static_cast<char>(n ? (low | 0x80) : low);
        } while (n);
        out_.append(buf, k);
    }
    void fixed64(std::uint64_t n) {
        char buf[8];
        for (int i = 0; i < 8; ++i) buf[i] = static_cast<char>((n >> (8 * i)) & 0xff);
        out_.append(buf, 8);
    }
    void bytes(std::string_view s) {
        number(s.size());
        out_.append(s);
    }
    void text(std::string_view s) {
        if (s.size() == 32) {
            char raw[16];
            int invalid = 0;  // negative once any character was not a digit
            for (std::size_t i = 0; i < 16; ++i) {
                const int hi = hex_digit(s[2 * i]), lo = hex_digit(s[2 * i + 1]);
                invalid |= hi | lo;
                raw[i] = static_cast<char>(((hi & 0xf) << 4) | (lo & 0xf));
            }
            if (invalid >= 0) {
                byte(text_hex128);
                out_.append(raw, 16);
                return;
            }
        }
        byte(text_bytes);
        bytes(s);
    }
    void key_value(const boost::json::value& v) {
        switch (v.kind()) {
            case boost::json::kind::null: byte(key_null); return;
            case boost::json::kind::bool_: byte(v.get_bool() ? key_true : key_false); return;
            case boost::json::kind::int64:
                byte(key_int64);
                fixed64(static_cast<std::uint64_t>(v.get_int64()));
                return;
            case boost::json::kind::uint64:
                byte(key_uint64);
                fixed64(v.get_uint64());
                return;
            case boost::json::kind::double_: {
                std::uint64_t bits;
                const double d = v.get_double();
                std::memcpy(&bits, &d, sizeof bits);
                byte(key_double);
                fixed64(bits);
                return;
            }
            case boost::json::kind::string:
                byte(key_string);
                bytes(v.get_string());
                return;
            default: throw std::logic_error("a cursor key field must be a scalar");  // the keyset contract
        }
    }

private:
    std::string& out_;
};

class claims_reader {
public:
    explicit claims_reader(std::string_view in) : in_(in) {}

    bool done() const noexcept { return ok_ && in_.empty(); }
    bool ok() const noexcept { return ok_; }

    unsigned char byte() {
        if (in_.empty()) return fail(), 0;
        const auto b = static_cast<unsigned char>(in_.front());
        in_.remove_prefix(1);
        return b;
    }
    std::uint64_t number() {
        std::uint64_t n = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            const unsigned char b = byte();
            if (!ok_) return 0;
            const std::uint64_t low = b & 0x7f;
            if (shift == 63 && low > 1) break;  // past 64 bits
            n |= low << shift;
            if (!(b & 0x80)) {
                if (b == 0 && shift > 0) break;  // not the shortest form: one number, one text
                return n;
            }
        }
        return fail(), 0;
    }
    std::uint64_t fixed64() {
        if (in_.size() < 8) return fail(), 0;
        std::uint64_t n = 0;
        for (int i = 0; i < 8; ++i)
            n |= std::uint64_t{static_cast<unsigned char>(in_[static_cast<std::size_t>(i)])} << (8 * i);
        in_.remove_prefix(8);
        return n;
    }
    std::string_view bytes() {
        const std::uint64_t n = number();
        if (!ok_ || n > in_.size()) return fail(), std::string_view();
        const auto out = in_.substr(0, static_cast<std::size_t>(n));
        in_.remove_prefix(static_cast<std::size_t>(n));
        return out;
    }
    std::string text() {
        const unsigned char how = byte();
        if (how == text_bytes) return std::string(bytes());
        if (how != text_hex128 || in_.size() < 16) return fail(), std::string();
        std::string out;
        out.reserve(32);
        seal::detail::append_hex(out, in_.substr(0, 16));
        in_.remove_prefix(16);
        return out;
    }
    boost::json::value key_value() {
        switch (byte()) {
            case key_null: return nullptr;
            case key_false: return false;
            case key_true: return true;
            case key_int64: return static_cast<std::int64_t>(fixed64());
            case key_uint64: return fixed64();
            case key_double: {
                const std::uint64_t bits = fixed64();
                double d;
                std::memcpy(&d, &bits, sizeof d);
                return d;
            }
            case key_string: return boost::json::string(bytes());
            default: return fail(), nullptr;
        }
    }

private:
    void fail() noexcept { ok_ = false; }
    std::string_view in_;
    bool ok_ = true;
};

// Format 1: the claims as a JSON object.
boost::system::result<cursor_claims, cursor_error> read_json_claims(std::string_view payload) {
    auto doc = json::parse(payload, json::limits{64u << 10, 8, 4096});
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
    const auto when = seal::payload_time(issued->get_int64());
    if (!when) return cursor_error::invalid;
    c.issued = *when;
    return c;
}

// Format 2, as written by seal_cursor.
boost::system::result<cursor_claims, cursor_error> read_claims(std::string_view payload) {
    claims_reader r(payload);
    if (r.byte() != claims_format) return cursor_error::invalid;
    cursor_claims c;
    c.tool = r.text();
    c.query = r.text();
    c.ordering = r.text();
    c.principal = r.text();
    c.snapshot = r.text();
    const auto when = seal::payload_time(static_cast<std::int64_t>(r.fixed64()));
    if (!when) return cursor_error::invalid;
    c.issued = *when;
    const std::uint64_t fields = r.number();
    if (!r.ok() || fields > payload.size()) return cursor_error::invalid;  // a key field takes a byte at least
    c.after.reserve(static_cast<std::size_t>(fields));
    for (std::uint64_t i = 0; i < fields && r.ok(); ++i) c.after.push_back(r.key_value());
    c.walk = r.text();
    c.delivered = r.number();
    c.pages = r.number();
    const unsigned char clean = r.byte();
    if (clean > 1) return cursor_error::invalid;
    c.clean = clean == 1;
    const std::uint64_t taints = r.number();
    if (!r.ok() || taints > payload.size()) return cursor_error::invalid;
    for (std::uint64_t i = 0; i < taints && r.ok(); ++i) c.taints.push_back(r.text());
    if (!r.done()) return cursor_error::invalid;  // cut short, or bytes left over
    return c;
}

}  // namespace

std::string seal_cursor(const seal::key_ring& keys, const cursor_claims& c) {
    std::string payload;
    std::size_t size = 64 + c.tool.size() + c.query.size() + c.ordering.size() + c.principal.size() +
                       c.snapshot.size() + c.walk.size() + 16 * c.after.size();
    for (const auto& t : c.taints) size += t.size() + 2;
    payload.reserve(size);
    claims_writer w(payload);
    w.byte(claims_format);
    w.text(c.tool);
    w.text(c.query);
    w.text(c.ordering);
    w.text(c.principal);
    w.text(c.snapshot);
    w.fixed64(static_cast<std::uint64_t>(seal::to_epoch_ms(c.issued)));
    w.number(c.after.size());
    for (const auto& k : c.after) w.key_value(k);
    w.text(c.walk);
    w.number(c.delivered);
    w.number(c.pages);
    w.byte(c.clean ? 1 : 0);
    w.number(c.taints.size());
    for (const auto& t : c.taints) w.text(t);
    return keys.seal(cursor_purpose, payload);
}

boost::system::result<cursor_claims, cursor_error> open_cursor(const seal::key_ring& keys, std::string_view text,
                                                               wall_time now, std::chrono::seconds ttl) {
    auto payload = keys.open(cursor_purpose, text);
    if (!payload || payload->empty()) return cursor_error::invalid;
    auto c = payload->front() == '{' ? read_json_claims(*payload) : read_claims(*payload);
    if (!c) return c.error();
    if (now - c->issued > ttl) return cursor_error::expired;
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
