// SPDX-License-Identifier: BSL-1.0
#include <candor/json/write.hpp>

#include <candor/json/document.hpp>
#include <candor/json/intake.hpp>

#include <boost/container/small_vector.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#if defined(__SSE2__)
#include <emmintrin.h>
#include <immintrin.h>
#include <tmmintrin.h>
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
        if (c == 0xE0 && b(i + 1) < 0xA0) return 0;  // overlong
        if (c == 0xED && b(i + 1) > 0x9F) return 0;  // surrogates
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (left < 4 || (b(i + 1) & 0xC0) != 0x80 || (b(i + 2) & 0xC0) != 0x80 || (b(i + 3) & 0xC0) != 0x80) return 0;
        if (c == 0xF0 && b(i + 1) < 0x90) return 0;  // overlong
        if (c == 0xF4 && b(i + 1) > 0x8F) return 0;  // above U+10FFFF
        return 4;
    }
    return 0;
}

using sink = text_sink;

// How many bytes each byte becomes inside a JSON string (bytes from 0x80 are checked as UTF-8
// sequences and copied as they are).
constexpr auto escaped_size = [] {
    std::array<unsigned char, 256> t{};
    for (int c = 0; c < 256; ++c) t[static_cast<std::size_t>(c)] = c < 0x20 ? 6 : 1;
    for (unsigned char c : {'"', '\\', '\n', '\r', '\t', '\b', '\f'}) t[c] = 2;
    return t;
}();

// Any byte, with its escapes and UTF-8 check.
bool append_string_general(std::string_view s, sink& out) {
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
    char* q = out.room(size);
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
    *q++ = '"';
    out.commit(q);
    return true;
}

// Short strings (keys, ids, most values) that need no escape at all are the common case: eight
// bytes at a time, no branch per byte.
constexpr std::uint64_t ones = 0x0101010101010101ull;
constexpr std::uint64_t highs = 0x8080808080808080ull;

std::uint64_t load8(const char* p) noexcept {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    return w;
}

// Non-zero if a byte of `w` is '"', '\\', below 0x20, or from 0x80.
constexpr std::uint64_t needs_care(std::uint64_t w) noexcept {
    const std::uint64_t q = w ^ (ones * '"');
    const std::uint64_t b = w ^ (ones * '\\');
    return ((q - ones) & ~q) | ((b - ones) & ~b) | ((w - ones * 0x20) & ~w) | w;
}

// True (and the string written) if `s` is plain: shorter than 16 bytes, nothing to escape.
bool append_short_plain(std::string_view s, sink& out) {
    const std::size_t n = s.size();
    const char* p = s.data();
    // The words checked are the words stored: two overlapping ones from 8 bytes on, one padded
    // word below (its padding overwritten by the closing quote, within the room asked for).
    std::uint64_t first;
    std::uint64_t second = 0;
    if (n >= 8) {
        first = load8(p);
        second = load8(p + n - 8);
        if (((needs_care(first) | needs_care(second)) & highs) != 0) return false;
    } else {
        // Assembled from two overlapping loads (or single bytes), without a call to memcpy;
        // the bytes past the string are padding that needs no care.
        first = 0;
        if (n >= 4) {
            std::uint32_t lo, hi;
            std::memcpy(&lo, p, 4);
            std::memcpy(&hi, p + n - 4, 4);
            first = lo | (std::uint64_t{hi} << (8 * (n - 4)));
        } else if (n > 0) {  // an empty view may have no data pointer
            first = std::uint64_t{static_cast<unsigned char>(p[0])} |
                    (std::uint64_t{static_cast<unsigned char>(p[n / 2])} << (8 * (n / 2))) |
                    (std::uint64_t{static_cast<unsigned char>(p[n - 1])} << (8 * (n - 1)));
        }
        first |= (ones * 'a') << (8 * n);
        if ((needs_care(first) & highs) != 0) return false;
    }
    char* q = out.room(n + 10);
    *q = '"';
    std::memcpy(q + 1, &first, 8);
    if (n >= 8) std::memcpy(q + 1 + n - 8, &second, 8);
    q[n + 1] = '"';
    out.commit(q + n + 2);
    return true;
}

#if defined(__SSE2__)

// Longer strings, 16 bytes at a time, two passes: count the quotes and backslashes (and notice
// anything that needs the general path: control characters, and bytes from 0x80 whose UTF-8
// must be checked), then fill, copying the runs between escapes with 16-byte stores that the
// next run overwrites. The typical long string is an envelope's JSON text inside
// content[0].text: printable ASCII with a quote every few bytes. The last bytes (fewer than a
// block) are copied into a padded block on the stack first, so nothing is read past the string;
// 16 bytes of slack are asked of the sink, so nothing is written past the output.
class sse_escaper {
public:
    // Bits set for the quotes and backslashes among the 16 bytes at `b`.
    unsigned escapes(const unsigned char* b) const noexcept {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b));
        return static_cast<unsigned>(
            _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, quote_), _mm_cmpeq_epi8(v, backslash_))));
    }

    // Counts the escapes in the 16 bytes at `b`; remembers any byte for the general path.
    void measure(const unsigned char* b) noexcept {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b));
        // 0xFF per escaped byte: subtracting it adds one to that byte's counter.
        counts_ = _mm_sub_epi8(counts_, _mm_or_si128(_mm_cmpeq_epi8(v, quote_), _mm_cmpeq_epi8(v, backslash_)));
        // Signed compare: below 0x20, and every byte from 0x80 (negative).
        special_ |= static_cast<unsigned>(_mm_movemask_epi8(_mm_cmplt_epi8(v, space_)));
        if (++blocks_ == 255) flush();  // before a byte counter can overflow
    }

    std::size_t total() noexcept {
        flush();
        return total_;
    }
    bool special() const noexcept { return special_ != 0; }

private:
    void flush() noexcept {
        const __m128i sums = _mm_sad_epu8(counts_, _mm_setzero_si128());
        total_ += static_cast<std::size_t>(_mm_cvtsi128_si64(sums)) +
                  static_cast<std::size_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums)));
        counts_ = _mm_setzero_si128();
        blocks_ = 0;
    }

    const __m128i quote_ = _mm_set1_epi8('"');
    const __m128i backslash_ = _mm_set1_epi8('\\');
    const __m128i space_ = _mm_set1_epi8(0x20);
    __m128i counts_ = _mm_setzero_si128();
    unsigned blocks_ = 0;
    unsigned special_ = 0;
    std::size_t total_ = 0;
};

// Writes the first `len` (≤ 16) bytes at `b`, escaped, at `q`; 32 bytes are readable at `b`
// and 16 writable past the output.
inline char* fill_block(const sse_escaper& e, const unsigned char* b, std::size_t len, char* q) noexcept {
    unsigned m = e.escapes(b) & ((1u << len) - 1u);
    std::size_t from = 0;
    while (m != 0) {
        const auto k = static_cast<std::size_t>(__builtin_ctz(m));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(q), _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + from)));
        q += k - from;
        *q++ = '\\';
        *q++ = static_cast<char>(b[k]);
        from = k + 1;
        m &= m - 1;
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(q), _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + from)));
    return q + (len - from);
}

// Where the CPU has SSSE3 (checked once at run time), one pass instead of two: 8 bytes at a
// time are spread into up to 16 with one shuffle (a table per pattern of bytes to escape says
// where each byte goes and where a backslash goes), written with one store, and the output
// grows by 8 plus the number of escapes. The worst case (every byte escaped) is asked of the
// sink up front and committed only at the end: anything for the general path found on the way
// leaves nothing behind.
struct expansion_tables {
    std::array<std::array<unsigned char, 16>, 256> shuffle{};       // output byte j takes input byte shuffle[j]
    std::array<std::array<unsigned char, 16>, 256> shuffle_high{};  // the same for input bytes 8…15
    std::array<std::array<unsigned char, 16>, 256> slash{};         // 0xFF where a backslash goes
    std::array<unsigned char, 256> length{};                        // output bytes for the 8 input bytes
};

constexpr expansion_tables make_expansion_tables() {
    expansion_tables t;
    for (unsigned m = 0; m < 256; ++m) {
        unsigned j = 0;
        for (unsigned i = 0; i < 8; ++i) {
            if ((m >> i) & 1u) {
                t.shuffle[m][j] = static_cast<unsigned char>(i);
                t.slash[m][j] = 0xFF;
                ++j;
            }
            t.shuffle[m][j] = static_cast<unsigned char>(i);
            ++j;
        }
        t.length[m] = static_cast<unsigned char>(j);
        for (; j < 16; ++j) t.shuffle[m][j] = 0x80;  // zero
        for (j = 0; j < 16; ++j)
            t.shuffle_high[m][j] = t.shuffle[m][j] == 0x80 ? 0x80 : static_cast<unsigned char>(t.shuffle[m][j] + 8);
    }
    return t;
}

constexpr expansion_tables expansion = make_expansion_tables();

// Spreads the first `len` (≤ 8) of the 8 bytes at `b` to `q`; returns the new end. Bits of
// `special` are set for bytes that need the general path.
__attribute__((target("ssse3"))) inline char* spread8(const unsigned char* b, std::size_t len, char* q,
                                                      unsigned& special) {
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i v = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(b));
    const unsigned keep = (1u << len) - 1u;
    const unsigned m =
        static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)))) &
        keep;
    special |= static_cast<unsigned>(_mm_movemask_epi8(_mm_cmplt_epi8(v, _mm_set1_epi8(0x20)))) & keep;
    const __m128i moved =
        _mm_shuffle_epi8(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(expansion.shuffle[m].data())));
    const __m128i slash = _mm_loadu_si128(reinterpret_cast<const __m128i*>(expansion.slash[m].data()));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(q),
                     _mm_or_si128(_mm_andnot_si128(slash, moved), _mm_and_si128(slash, backslash)));
    return q + (expansion.length[m] - (8 - len));
}

// The rest of `s` from byte `i`, spread at `q` 8 bytes at a time (the last bytes from a padded
// copy), and the closing quote; or, if any byte needs it, the general path from the start.
// `start`: the sink's size before the string's opening quote (what a fallback rewinds to).
__attribute__((target("ssse3"))) inline bool spread_rest(std::string_view s, std::size_t i, char* q, unsigned special,
                                                         std::size_t start, sink& out) {
    const std::size_t n = s.size();
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    for (; i + 8 <= n; i += 8) q = spread8(p + i, 8, q, special);
    if (i < n) {
        unsigned char last[8];
        std::memset(last, 'a', sizeof last);
        std::memcpy(last, p + i, n - i);
        q = spread8(last, n - i, q, special);
    }
    if (special != 0) {
        out.rewind(start);  // what was committed of the string so far
        return append_string_general(s, out);
    }
    *q++ = '"';
    out.commit(q);
    return true;
}

__attribute__((target("ssse3"))) bool append_string_ssse3(std::string_view s, sink& out) {
    const std::size_t start = out.size();
    char* q = out.room(2 * s.size() + 2 + 16);  // committed only at the end
    *q++ = '"';
    return spread_rest(s, 0, q, 0, start, out);
}

// With AVX2, 16 bytes a step: the block is in both halves of a 256-bit register, and one
// shuffle spreads its first 8 bytes in the low half and its last 8 in the high half (the high
// half's table indexes bytes 8…15); the halves are stored one after the other. Fewer than 16
// bytes left go through spread_rest.
__attribute__((target("avx2"))) inline __m256i halves(const std::array<unsigned char, 16>& low,
                                                      const std::array<unsigned char, 16>& high) {
    return _mm256_inserti128_si256(
        _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(low.data()))),
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(high.data())), 1);
}

__attribute__((target("avx2"))) inline char* spread16(const unsigned char* b, char* q, unsigned& special) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b));
    const unsigned m = static_cast<unsigned>(
        _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')))));
    special |= static_cast<unsigned>(_mm_movemask_epi8(_mm_cmplt_epi8(v, _mm_set1_epi8(0x20))));
    const unsigned low = m & 0xFFu, high = m >> 8;
    const __m256i moved = _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(v),
                                              halves(expansion.shuffle[low], expansion.shuffle_high[high]));
    const __m256i spread =
        _mm256_blendv_epi8(moved, _mm256_set1_epi8('\\'), halves(expansion.slash[low], expansion.slash[high]));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(q), _mm256_castsi256_si128(spread));
    q += expansion.length[low];
    _mm_storeu_si128(reinterpret_cast<__m128i*>(q), _mm256_extracti128_si256(spread, 1));
    return q + expansion.length[high];
}

__attribute__((target("avx2"))) bool append_string_avx2(std::string_view s, sink& out) {
    // Room for the worst case (every byte doubled) one block at a time, committed after each:
    // a sink zero-fills the room it adds, and most text grows by far less than twice.
    constexpr std::size_t block = 1024;  // a multiple of 16
    const std::size_t n = s.size();
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    const std::size_t start = out.size();
    char* q = out.room(2 * std::min(n, block) + 2 + 16);
    *q++ = '"';
    unsigned special = 0;
    std::size_t i = 0;
    while (n - i > block) {
        for (const std::size_t end = i + block; i < end; i += 16) q = spread16(p + i, q, special);
        out.commit(q);
        q = out.room(2 * std::min(n - i, block) + 2 + 16);
    }
    for (; i + 16 <= n; i += 16) q = spread16(p + i, q, special);
    return spread_rest(s, i, q, special, start, out);
}

using detail::escaper;

escaper best_escaper() noexcept {
    static const escaper best = __builtin_cpu_supports("avx2")    ? escaper::avx2
                                : __builtin_cpu_supports("ssse3") ? escaper::ssse3
                                                                  : escaper::portable;
    return best;
}

std::atomic<escaper> escaper_cap{escaper::avx2};  // detail::use_escaper (tests compare them)

escaper current_escaper() noexcept { return std::min(best_escaper(), escaper_cap.load(std::memory_order_relaxed)); }

// Strings that are not short and plain (see append_string).
[[gnu::noinline]] bool append_string_long(std::string_view s, sink& out) {
    const std::size_t n = s.size();
    switch (current_escaper()) {
        case escaper::avx2: return append_string_avx2(s, out);
        case escaper::ssse3: return append_string_ssse3(s, out);
        case escaper::portable: break;
    }
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    sse_escaper e;
    std::size_t i = 0;
    for (; i + 16 <= n; i += 16) e.measure(p + i);
    if (i < n) {
        unsigned char last[16];
        std::memset(last, 'a', sizeof last);
        std::memcpy(last, p + i, n - i);
        e.measure(last);
    }
    if (e.special()) return append_string_general(s, out);

    const std::size_t size = n + e.total() + 2;
    char* const start = out.room(size + 16);
    char* q = start;
    *q++ = '"';
    i = 0;
    for (; i + 32 <= n; i += 16) q = fill_block(e, p + i, 16, q);
    if (i < n) {  // fewer than 32 bytes left
        unsigned char rest[48];
        std::memset(rest, 'a', sizeof rest);
        std::memcpy(rest, p + i, n - i);
        const std::size_t left = n - i;
        q = fill_block(e, rest, std::min<std::size_t>(left, 16), q);
        if (left > 16) q = fill_block(e, rest + 16, left - 16, q);
    }
    *q = '"';
    out.commit(start + size);
    return true;
}

#else

// Without SSE2: count the quotes and backslashes (noticing anything for the general path), then
// store each byte as a backslash that the byte itself overwrites unless it is escaped.
constexpr auto byte_class = [] {
    std::array<unsigned char, 256> t{};  // 1: '"' or '\\'; 2: the general path; 0: copied
    for (int c = 0; c < 256; ++c) t[static_cast<std::size_t>(c)] = (c < 0x20 || c >= 0x80) ? 2 : 0;
    t['"'] = 1;
    t['\\'] = 1;
    return t;
}();

// Strings that are not short and plain (see append_string).
[[gnu::noinline]] bool append_string_long(std::string_view s, sink& out) {
    const std::size_t n = s.size();
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    std::size_t escapes = 0;
    unsigned special = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const unsigned k = byte_class[p[i]];
        escapes += k & 1u;
        special |= k & 2u;
    }
    if (special != 0) return append_string_general(s, out);
    char* q = out.room(n + escapes + 2);
    *q++ = '"';
    for (std::size_t i = 0; i < n; ++i) {
        const unsigned char c = p[i];
        const std::size_t e = byte_class[c];  // 0 or 1 here
        q[0] = '\\';
        q[e] = static_cast<char>(c);
        q += 1 + e;
    }
    *q++ = '"';
    out.commit(q);
    return true;
}

#endif

// Keys, ids and most values are short and need no escape: that path stays small enough to be
// inlined into its callers (no frame for the long paths' registers); the rest is a call.
inline bool append_string(std::string_view s, sink& out) {
    if (s.size() < 16 && append_short_plain(s, out)) return true;
    return append_string_long(s, out);
}

template <class Int>
void put_integer(Int i, sink& out) {
    char* q = out.room(24);
    out.commit(std::to_chars(q, q + 24, i).ptr);
}

bool write_scalar(const boost::json::value& v, sink& out) {
    switch (v.kind()) {
        case boost::json::kind::null: out.put("null"); return true;
        case boost::json::kind::bool_:
            out.put(v.get_bool() ? std::string_view("true") : std::string_view("false"));
            return true;
        case boost::json::kind::int64: put_integer(v.get_int64(), out); return true;
        case boost::json::kind::uint64: put_integer(v.get_uint64(), out); return true;
        case boost::json::kind::double_: {
            const double d = v.get_double();
            if (!std::isfinite(d)) return false;
            char buf[32];
            auto r = std::to_chars(buf, buf + sizeof buf, d);
            const std::string_view text(buf, static_cast<std::size_t>(r.ptr - buf));
            out.put(text);
            // Keep a double a double when it is read back ("3" would become an integer).
            if (text.find_first_of(".eE") == std::string_view::npos) out.put(".0");
            return true;
        }
        case boost::json::kind::string: return append_string(v.get_string(), out);
        default: return true;  // containers are handled by the caller
    }
}

// Writes a container (an object or an array, the other null) with an explicit stack.
boost::system::result<void, write_error> write_tree(const boost::json::object* root_object,
                                                    const boost::json::array* root_array, sink& out,
                                                    std::size_t max_depth) {
    struct frame {
        const boost::json::object* object;  // exactly one of the two is set
        const boost::json::array* array;
        std::size_t next;
    };
    const std::size_t restore = out.size();
    auto fail = [&](write_error e) -> boost::system::result<void, write_error> {
        out.rewind(restore);
        return e;
    };

    boost::container::small_vector<frame, 16> stack;
    auto open = [&](const boost::json::object* o, const boost::json::array* a) -> bool {
        if (stack.size() + 1 > max_depth) return false;
        out.put(o != nullptr ? '{' : '[');
        stack.push_back(frame{o, a, 0});
        return true;
    };

    if (!open(root_object, root_array)) return fail(write_error::too_deep);
    while (!stack.empty()) {
        frame& f = stack.back();
        const std::size_t size = f.object != nullptr ? f.object->size() : f.array->size();
        if (f.next == size) {
            out.put(f.object != nullptr ? '}' : ']');
            stack.pop_back();
            continue;
        }
        if (f.next > 0) out.put(',');
        const boost::json::value* child;
        if (f.object != nullptr) {
            const auto& kv = *(f.object->begin() + f.next);
            if (!append_string(kv.key(), out)) return fail(write_error::invalid_utf8);
            out.put(':');
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

boost::system::result<void, write_error> write(const boost::json::value& root, sink& out, std::size_t max_depth) {
    if (const auto* o = root.if_object()) return write_tree(o, nullptr, out, max_depth);
    if (const auto* a = root.if_array()) return write_tree(nullptr, a, out, max_depth);
    const std::size_t restore = out.size();
    if (write_scalar(root, out)) return {};
    out.rewind(restore);
    return root.is_double() ? write_error::non_finite_number : write_error::invalid_utf8;
}

boost::system::result<void, write_error> write(const boost::json::value& root, std::string& text,
                                               std::size_t max_depth) {
    sink out(text);
    return write(root, out, max_depth);
}

boost::system::result<void, write_error> write(const boost::json::object& root, std::string& text,
                                               std::size_t max_depth) {
    sink out(text);
    return write_tree(&root, nullptr, out, max_depth);
}

boost::system::result<void, write_error> write(const boost::json::array& root, std::string& text,
                                               std::size_t max_depth) {
    sink out(text);
    return write_tree(nullptr, &root, out, max_depth);
}

void text_sink::grow(std::size_t n) {
    // Within the capacity `out` has (a reserve made for this text is used up before anything
    // is reallocated), by what is asked for and at most 1 KiB more: `resize` zero-fills what it
    // adds, and a sink opened on a string with room to spare would otherwise fill all of it.
    // Beyond it, by what this sink wrote so far (at least 256 bytes): doubling, never in
    // proportion to what `out` held before.
    std::size_t to = len_ + std::max(n, len_ - start_ + 256);
    if (len_ + n <= out_.capacity()) to = std::min(len_ + std::max<std::size_t>(n, 1024), out_.capacity());
    out_.resize(to);
}

bool write_string(std::string_view s, sink& out) { return append_string(s, out); }

std::size_t string_size(std::string_view s) noexcept {
    std::size_t size = 2 + s.size();
    for (const char c : s) size += escaped_size[static_cast<unsigned char>(c)] - 1u;
    return size;
}

boost::json::value written::to_value() const {
    limits lim;
    lim.max_bytes = text_.size();
    lim.max_depth = depth_ceiling;
    lim.max_nodes = text_.size() + 1;  // a value takes at least one byte
    auto doc = parse(text_, lim);
    // Text these writers produced always parses; anything else was adopted against the rule.
    if (!doc) throw std::logic_error("json::written holds text that is not what json::write produces");
    return detach(doc->root());
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

namespace detail {
escaper use_escaper(escaper e) noexcept {
#if defined(__SSE2__)
    escaper_cap = e;
    return current_escaper();
#else
    (void)e;
    return escaper::portable;
#endif
}
}  // namespace detail

std::size_t append_valid_utf8(std::string_view s, std::string& out, std::size_t max_bytes) {
    constexpr std::string_view replacement = "\xEF\xBF\xBD";  // U+FFFD
    std::size_t i = 0, run = 0;                               // [run, i) is valid and not appended yet
    while (i < s.size()) {
        const std::size_t len = utf8_sequence(s, i);
        const std::size_t step = std::max<std::size_t>(len, 1);
        if (i + step > max_bytes) break;
        if (len == 0) {
            out.append(s.substr(run, i - run));
            out += replacement;
            run = i + 1;
        }
        i += step;
    }
    out.append(s.substr(run, i - run));
    return i;
}

boost::system::result<void, write_error> write_string(std::string_view s, std::string& text) {
    sink out(text);
    if (append_string(s, out)) return {};  // on failure it wrote nothing
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
