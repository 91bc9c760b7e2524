#include <candor/json/write.hpp>

#include <array>
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <cmath>
#include <stdexcept>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace candor::json {

namespace {

constexpr char hex_digits[] = "0123456789abcdef";

// Length of the valid UTF-8 sequence starting at s[i], or 0 if it is not valid.
std::size_t utf8_sequence(std::string_view s, std::size_t i) noexcept {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = b(i);
    const std::size_t left = s.size() - i;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) return (left >= 2 && (b(i + 1) & 0xC0) == 0x80) ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        if (left < 3 || (b(i + 1) & 0xC0) != 0x80 || (b(i + 2) & 0xC0) != 0x80) return 0;
        if (c == 0xE0 && b(i + 1) < 0xA0) return 0;   // overlong
        if (c == 0xED && b(i + 1) > 0x9F) return 0;   // surrogates
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (left < 4 || (b(i + 1) & 0xC0) != 0x80 || (b(i + 2) & 0xC0) != 0x80 ||
            (b(i + 3) & 0xC0) != 0x80)
            return 0;
        if (c == 0xF0 && b(i + 1) < 0x90) return 0;   // overlong
        if (c == 0xF4 && b(i + 1) > 0x8F) return 0;   // above U+10FFFF
        return 4;
    }
    return 0;
}


// How many bytes each byte becomes inside a JSON string (bytes from 0x80 are checked as UTF-8
// sequences and copied as they are).
constexpr auto escaped_size = [] {
    std::array<unsigned char, 256> t{};
    for (int c = 0; c < 256; ++c) t[static_cast<std::size_t>(c)] = c < 0x20 ? 6 : 1;
    for (unsigned char c : {'"', '\\', '\n', '\r', '\t', '\b', '\f'}) t[c] = 2;
    return t;
}();

// The common case in one class per byte: 1 for '"' and '\\' (written as a backslash and the
// byte), 2 for what needs the general path (control characters, and bytes from 0x80, whose
// UTF-8 must be checked), 0 for a byte copied as it is.
constexpr auto byte_class = [] {
    std::array<unsigned char, 256> t{};
    for (int c = 0; c < 256; ++c) t[static_cast<std::size_t>(c)] = (c < 0x20 || c >= 0x80) ? 2 : 0;
    t['"'] = 1;
    t['\\'] = 1;
    return t;
}();

// Any byte, with its escapes and UTF-8 check; `size` is what it will take, quotes included.
bool append_string_general(std::string_view s, std::string& out) {
    const std::size_t n = s.size();
    std::size_t size = 2;
    for (std::size_t i = 0; i < n;) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        if (c >= 0x80) {
            const std::size_t len = utf8_sequence(s, i);
            if (len == 0) return false;
            size += len;
            i += len;
        } else {
            size += escaped_size[c];
            ++i;
        }
    }
    const std::size_t at = out.size();
    out.resize(at + size);
    char* q = out.data() + at;
    *q++ = '"';
    for (std::size_t i = 0; i < n; ++i) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        if (escaped_size[c] == 1) {
            *q++ = static_cast<char>(c);
            continue;
        }
        *q++ = '\\';
        switch (c) {
            case '"': *q++ = '"'; break;
            case '\\': *q++ = '\\'; break;
            case '\n': *q++ = 'n'; break;
            case '\r': *q++ = 'r'; break;
            case '\t': *q++ = 't'; break;
            case '\b': *q++ = 'b'; break;
            case '\f': *q++ = 'f'; break;
            default:
                *q++ = 'u';
                *q++ = '0';
                *q++ = '0';
                *q++ = hex_digits[c >> 4];
                *q++ = hex_digits[c & 0xF];
        }
    }
    *q = '"';
    return true;
}

// Two passes: count the quotes and backslashes (and notice anything that needs the general
// path: control characters, and bytes from 0x80 whose UTF-8 must be checked), then grow `out`
// once and fill it. Strings here are mostly printable ASCII with a quote every few bytes —
// keys, ids, and above all an envelope's JSON text inside content[0].text — so both passes look
// at 16 bytes at a time where SSE2 is there, and copy the runs between escapes with 16-byte
// stores that the next run overwrites.
bool append_string(std::string_view s, std::string& out) {
    const std::size_t n = s.size();
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    std::size_t escapes = 0;
    unsigned special = 0;
    std::size_t i = 0;
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i space = _mm_set1_epi8(0x20);
    auto escape_mask = [&](__m128i v) {
        return static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash))));
    };
    for (; i + 16 <= n; i += 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
        escapes += static_cast<std::size_t>(__builtin_popcount(escape_mask(v)));
        // Signed compare: below 0x20, and every byte from 0x80 (negative).
        special |= static_cast<unsigned>(_mm_movemask_epi8(_mm_cmplt_epi8(v, space)));
    }
#endif
    for (; i < n; ++i) {
        const unsigned k = byte_class[p[i]];
        escapes += k & 1u;
        special |= k & 2u;
    }
    if (special != 0) return append_string_general(s, out);

    const std::size_t at = out.size();
    out.resize(at + n + escapes + 2);
    char* q = out.data() + at;
    *q++ = '"';
    if (escapes == 0) {
        std::memcpy(q, p, n);
        q += n;
    } else {
        i = 0;
#if defined(__SSE2__)
        // A 16-byte store at q stays inside the output as long as 16 bytes of input are left
        // after the run it copies (the output is never shorter than the input): blocks are
        // taken while 32 bytes remain.
        for (; i + 32 <= n; i += 16) {
            const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
            unsigned m = escape_mask(v);
            std::size_t from = 0;
            while (m != 0) {
                const auto k = static_cast<std::size_t>(__builtin_ctz(m));
                _mm_storeu_si128(reinterpret_cast<__m128i*>(q), _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i + from)));
                q += k - from;
                *q++ = '\\';
                *q++ = static_cast<char>(p[i + k]);
                from = k + 1;
                m &= m - 1;
            }
            _mm_storeu_si128(reinterpret_cast<__m128i*>(q), _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i + from)));
            q += 16 - from;
        }
#endif
        // Each byte is stored as a backslash that the byte itself overwrites unless escaped.
        for (; i < n; ++i) {
            const unsigned char c = p[i];
            const std::size_t e = byte_class[c];  // 0 or 1 here
            q[0] = '\\';
            q[e] = static_cast<char>(c);
            q += 1 + e;
        }
    }
    *q = '"';
    return true;
}

bool write_scalar(const boost::json::value& v, std::string& out) {
    char buf[32];
    switch (v.kind()) {
        case boost::json::kind::null: out.append("null"); return true;
        case boost::json::kind::bool_: out.append(v.get_bool() ? "true" : "false"); return true;
        case boost::json::kind::int64: {
            auto r = std::to_chars(buf, buf + sizeof buf, v.get_int64());
            out.append(buf, r.ptr);
            return true;
        }
        case boost::json::kind::uint64: {
            auto r = std::to_chars(buf, buf + sizeof buf, v.get_uint64());
            out.append(buf, r.ptr);
            return true;
        }
        case boost::json::kind::double_: {
            const double d = v.get_double();
            if (!std::isfinite(d)) return false;
            auto r = std::to_chars(buf, buf + sizeof buf, d);
            const std::string_view text(buf, static_cast<std::size_t>(r.ptr - buf));
            out.append(text);
            // Keep a double a double when it is read back ("3" would become an integer).
            if (text.find_first_of(".eE") == std::string_view::npos) out.append(".0");
            return true;
        }
        case boost::json::kind::string: return append_string(v.get_string(), out);
        default: return true;  // containers are handled by the caller
    }
}

}  // namespace

namespace {

// Writes a container (an object or an array, the other null) with an explicit stack.
boost::system::result<void, write_error> write_tree(const boost::json::object* root_object,
                                                    const boost::json::array* root_array, std::string& out,
                                                    std::size_t max_depth) {
    struct frame {
        const boost::json::object* object;  // exactly one of the two is set
        const boost::json::array* array;
        std::size_t next;
    };
    const std::size_t restore = out.size();
    auto fail = [&](write_error e) -> boost::system::result<void, write_error> {
        out.resize(restore);
        return e;
    };

    std::vector<frame> stack;
    auto open = [&](const boost::json::object* o, const boost::json::array* a) -> bool {
        if (stack.size() + 1 > max_depth) return false;
        out.push_back(o != nullptr ? '{' : '[');
        stack.push_back(frame{o, a, 0});
        return true;
    };

    if (!open(root_object, root_array)) return fail(write_error::too_deep);
    while (!stack.empty()) {
        frame& f = stack.back();
        const std::size_t size = f.object != nullptr ? f.object->size() : f.array->size();
        if (f.next == size) {
            out.push_back(f.object != nullptr ? '}' : ']');
            stack.pop_back();
            continue;
        }
        if (f.next > 0) out.push_back(',');
        const boost::json::value* child;
        if (f.object != nullptr) {
            const auto& kv = *(f.object->begin() + f.next);
            if (!append_string(kv.key(), out)) return fail(write_error::invalid_utf8);
            out.push_back(':');
            child = &kv.value();
        } else {
            child = &(*f.array)[f.next];
        }
        ++f.next;
        if (const auto* o = child->if_object()) {
            if (!open(o, nullptr)) return fail(write_error::too_deep);
        } else if (const auto* a = child->if_array()) {
            if (!open(nullptr, a)) return fail(write_error::too_deep);
        } else if (!write_scalar(*child, out)) {
            return fail(child->is_double() ? write_error::non_finite_number : write_error::invalid_utf8);
        }
    }
    return {};
}

template <class T>
boost::system::result<std::string, write_error> into_string(const T& v, std::size_t max_depth) {
    std::string out;
    auto r = write(v, out, max_depth);
    if (!r) return r.error();
    return out;
}

}  // namespace

boost::system::result<void, write_error> write(const boost::json::value& root, std::string& out,
                                               std::size_t max_depth) {
    if (const auto* o = root.if_object()) return write_tree(o, nullptr, out, max_depth);
    if (const auto* a = root.if_array()) return write_tree(nullptr, a, out, max_depth);
    const std::size_t restore = out.size();
    if (write_scalar(root, out)) return {};
    out.resize(restore);
    return root.is_double() ? write_error::non_finite_number : write_error::invalid_utf8;
}

boost::system::result<void, write_error> write(const boost::json::object& root, std::string& out,
                                               std::size_t max_depth) {
    return write_tree(&root, nullptr, out, max_depth);
}

boost::system::result<void, write_error> write(const boost::json::array& root, std::string& out,
                                               std::size_t max_depth) {
    return write_tree(nullptr, &root, out, max_depth);
}

boost::system::result<std::string, write_error> to_string(const boost::json::value& v, std::size_t max_depth) {
    return into_string(v, max_depth);
}

boost::system::result<std::string, write_error> to_string(const boost::json::object& v, std::size_t max_depth) {
    return into_string(v, max_depth);
}

boost::system::result<std::string, write_error> to_string(const boost::json::array& v, std::size_t max_depth) {
    return into_string(v, max_depth);
}

boost::system::result<void, write_error> write_string(std::string_view s, std::string& out) {
    if (append_string(s, out)) return {};  // on failure it left `out` as it was
    return write_error::invalid_utf8;
}

std::string_view to_string(write_error e) noexcept {
    switch (e) {
        case write_error::non_finite_number: return "NON_FINITE_NUMBER";
        case write_error::invalid_utf8: return "INVALID_UTF8";
        case write_error::too_deep: return "DEPTH_LIMIT";
    }
    return "INVALID_UTF8";
}

void throw_exception_from_error(write_error e, const boost::source_location&) {
    throw std::runtime_error("candor::json::write: " + std::string(to_string(e)));
}

}  // namespace candor::json
