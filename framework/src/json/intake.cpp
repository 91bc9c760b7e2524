// SPDX-License-Identifier: BSL-1.0
#include <candor/json/intake.hpp>

#include <candor/json/pointer.hpp>

#include <boost/container/small_vector.hpp>
#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/error.hpp>
#include <boost/json/value_stack.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <unordered_set>

namespace candor::json {

namespace {

// Objects with more keys than this get a hash index for duplicate detection; smaller ones are
// scanned linearly (cheaper for the small objects that tool arguments are made of).
constexpr std::size_t linear_key_scan = 16;

// A message that says what is wrong in the terms of RFC 8259; `at` is the byte the parser
// stopped on, when it is known.
std::string describe_parse_error(const boost::system::error_code& ec, std::size_t total,
                                 std::optional<unsigned char> at) {
    namespace je = boost::json;
    if (ec == je::error::incomplete) {
        return total == 0 ? std::string("empty input: a JSON value is required")
                          : std::string("unexpected end of input");
    }
    if (ec == je::error::extra_data) return "unexpected content after the JSON value";
    if (ec != je::error::syntax || !at) return ec.message();
    const unsigned char c = *at;
    if (c < 0x20) return "syntax error: unescaped control character";
    if (c >= 0x80) return "syntax error: invalid UTF-8";
    if (c == 'N' || c == 'I') return "syntax error: NaN and Infinity are not JSON numbers";
    if (c == '/') return "syntax error: comments are not allowed";
    if (c == ']' || c == '}') return "syntax error: trailing comma or missing value";
    if (c == '\'') return "syntax error: strings and keys must use double quotes";
    return std::string("syntax error: unexpected character '") + static_cast<char>(c) + "'";
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The basic_parser handler: builds the DOM through a value_stack while checking every rule.

class intake_handler {
public:
    static constexpr std::size_t max_object_size = static_cast<std::size_t>(-1);
    static constexpr std::size_t max_array_size = static_cast<std::size_t>(-1);
    static constexpr std::size_t max_key_size = static_cast<std::size_t>(-1);
    static constexpr std::size_t max_string_size = static_cast<std::size_t>(-1);

    intake_handler() : key_index_(0, key_hash{this}, key_eq{this}) {}

    /// Prepare for a new text. `size_hint` sizes the arena's first block (0: default).
    void start_document(const limits& lim, on_semantic_violation mode, std::size_t size_hint = 0) {
        lim_ = lim;
        lim_.max_depth = std::min(lim_.max_depth, depth_ceiling);
        mode_ = mode;
        arena_ = detail::make_arena(size_hint ? size_hint : 1024);
        values_.reset(boost::json::storage_ptr(arena_.get()));
        number_chars_.clear();
        numbers_.clear();
        frames_.clear();
        keys_.clear();
        key_recs_.clear();
        if (!key_index_.empty()) key_index_.clear();  // (clear() touches every bucket)
        indexed_frame_ = no_frame;
        stable_input_ = {};
        nodes_ = 0;
        max_depth_seen_ = 0;
        in_number_ = false;
        in_key_ = false;
        number_begin_ = 0;
        violations_.clear();
        fatal_.reset();
    }

    // --- basic_parser callbacks --------------------------------------------------------------
    bool on_document_begin(boost::system::error_code&) { return true; }
    bool on_document_end(boost::system::error_code&) { return true; }

    bool on_array_begin(boost::system::error_code& ec) { return open_container(false, ec); }
    bool on_object_begin(boost::system::error_code& ec) { return open_container(true, ec); }

    bool on_array_end(std::size_t n, boost::system::error_code&) {
        close_frame();
        values_.push_array(n);
        end_value();
        return true;
    }

    bool on_object_end(std::size_t n, boost::system::error_code&) {
        close_frame();
        values_.push_object(n);
        end_value();
        return true;
    }

    bool on_string_part(boost::json::string_view s, std::size_t, boost::system::error_code&) {
        values_.push_chars(s);
        return true;
    }

    bool on_string(boost::json::string_view s, std::size_t, boost::system::error_code& ec) {
        if (!begin_value(ec)) return false;
        values_.push_string(s);
        end_value();
        return true;
    }

    bool on_key_part(boost::json::string_view s, std::size_t, boost::system::error_code&) {
        if (!in_key_) begin_key();
        keys_.append(s.data(), s.size());
        return true;
    }

    bool on_key(boost::json::string_view s, std::size_t, boost::system::error_code& ec) {
        if (!in_key_ && in_stable_input(s)) {
            // The whole key arrived unescaped in one piece: it stays readable where it is for
            // as long as the object is open, so it is not copied.
            begin_key();
            auto& rec = key_recs_.back();
            rec.external = s.data();
            rec.size = s.size();
        } else {
            if (!in_key_) begin_key();
            keys_.append(s.data(), s.size());
            auto& rec = key_recs_.back();
            rec.size = keys_.size() - rec.offset;
        }
        in_key_ = false;
        values_.push_key(key_view(key_recs_.size() - 1));
        if (is_duplicate_key()) {
            if (!semantic(intake_code::duplicate_key,
                          "duplicate key '" + std::string(key_view(key_recs_.size() - 1)) +
                              "': an object may name each key once",
                          ec))
                return false;
        }
        return true;
    }

    bool on_number_part(boost::json::string_view s, boost::system::error_code&) {
        if (!in_number_) {
            in_number_ = true;
            number_begin_ = number_chars_.size();
        }
        number_chars_.append(s.data(), s.size());
        return true;
    }

    bool on_int64(std::int64_t i, boost::json::string_view s, boost::system::error_code& ec) {
        if (!begin_value(ec)) return false;
        record_number(s);
        values_.push_int64(i);
        end_value();
        return true;
    }

    bool on_uint64(std::uint64_t u, boost::json::string_view s, boost::system::error_code& ec) {
        if (!begin_value(ec)) return false;
        record_number(s);
        values_.push_uint64(u);
        end_value();
        return true;
    }

    bool on_double(double d, boost::json::string_view s, boost::system::error_code& ec) {
        if (!begin_value(ec)) return false;
        record_number(s);
        if (!std::isfinite(d)) {
            const auto& spans = numbers_;
            std::string text = number_chars_.substr(spans.back().offset, spans.back().size);
            if (text.size() > 40) text = text.substr(0, 37) + "...";
            // The DOM gets null in its place, so the number's text is not kept either.
            number_chars_.resize(spans.back().offset);
            numbers_.pop_back();
            if (!semantic(intake_code::non_finite_number,
                          "number " + text + " is out of range: it overflows to " + (d < 0 ? "-infinity" : "infinity"),
                          ec))
                return false;
            values_.push_null();
        } else {
            values_.push_double(nearest_double(d));
        }
        end_value();
        return true;
    }

    bool on_bool(bool b, boost::system::error_code& ec) {
        if (!begin_value(ec)) return false;
        values_.push_bool(b);
        end_value();
        return true;
    }

    bool on_null(boost::system::error_code& ec) {
        if (!begin_value(ec)) return false;
        values_.push_null();
        end_value();
        return true;
    }

    bool on_comment_part(boost::json::string_view, boost::system::error_code&) { return true; }
    bool on_comment(boost::json::string_view, boost::system::error_code&) { return true; }

    // --- state queries -----------------------------------------------------------------------
    std::string current_path() const {
        std::string path;
        for (std::size_t i = 0; i < frames_.size(); ++i) {
            const auto& f = frames_[i];
            if (f.is_object) {
                // A key still being read (the error is inside it) is not part of the path: its
                // text so far depends on how the input was chunked.
                const bool partial = in_key_ && i + 1 == frames_.size();
                const std::size_t complete_keys = partial ? f.keys - 1 : f.keys;
                if (complete_keys > 0) append_token(path, key_view(f.rec_begin + complete_keys - 1));
            } else {
                append_index(path, f.count);
            }
        }
        return path;
    }

    void fail(intake_code code, std::string path, std::string message, std::optional<std::size_t> limit = {},
              std::optional<std::size_t> offset = {}) {
        fatal_ = violation{code, std::move(path), std::move(message), limit, offset};
    }

    document take_document() {
        return document(std::move(arena_), values_.release(), max_depth_seen_, nodes_, number_chars_, numbers_);
    }

    /// Declare that the whole text is `text` and stays alive until the parse ends (single-shot
    /// parses): keys read unescaped from it are then referenced instead of copied.
    void set_stable_input(std::string_view text) noexcept { stable_input_ = text; }

    const limits& lim() const noexcept { return lim_; }
    std::optional<violation>& fatal() noexcept { return fatal_; }
    std::vector<violation>& violations() noexcept { return violations_; }

private:
    struct frame {
        bool is_object;
        std::size_t count;      // arrays: completed elements (= index of the current one)
        std::size_t keys;       // objects: keys seen so far
        std::size_t rec_begin;  // objects: first key record
        std::size_t key_bytes;  // objects: keys_ size when the object opened
    };
    // A key is either in `keys_` at `offset` (copied: escaped, split across chunks, or a
    // streaming parse) or, when `external` is set, in the stable input text.
    struct key_rec {
        std::size_t offset;
        std::size_t size;
        const char* external = nullptr;
    };
    struct key_hash {
        const intake_handler* h;
        std::size_t operator()(std::size_t rec) const noexcept {
            return std::hash<std::string_view>{}(h->key_view(rec));
        }
    };
    struct key_eq {
        const intake_handler* h;
        bool operator()(std::size_t a, std::size_t b) const noexcept { return h->key_view(a) == h->key_view(b); }
    };
    static constexpr std::size_t no_frame = static_cast<std::size_t>(-1);

    std::string_view key_view(std::size_t rec) const noexcept {
        const auto& r = key_recs_[rec];
        return r.external ? std::string_view(r.external, r.size) : std::string_view(keys_).substr(r.offset, r.size);
    }

    bool in_stable_input(boost::json::string_view s) const noexcept {
        // Compared as addresses (std::less gives a total order over unrelated pointers).
        const std::less<const char*> before;
        return !stable_input_.empty() && !before(s.data(), stable_input_.data()) &&
               !before(stable_input_.data() + stable_input_.size(), s.data() + s.size());
    }

    bool begin_value(boost::system::error_code& ec) {
        if (++nodes_ > lim_.max_nodes) [[unlikely]]
            return stop_at_node_limit(ec);
        return true;
    }

    // The failure paths are kept out of line so that the per-value checks inline.
    [[gnu::noinline, gnu::cold]] bool stop_at_node_limit(boost::system::error_code& ec) {
        fail(intake_code::node_limit, current_path(),
             "too many values: at most " + std::to_string(lim_.max_nodes) + " values (containers included) are allowed",
             lim_.max_nodes);
        ec = make_error_code(boost::system::errc::operation_canceled);
        return false;
    }

    [[gnu::noinline, gnu::cold]] bool stop_at_depth_limit(boost::system::error_code& ec) {
        fail(intake_code::depth_limit, current_path(),
             "nested too deeply: at most " + std::to_string(lim_.max_depth) +
                 " levels of objects and arrays are allowed",
             lim_.max_depth);
        ec = make_error_code(boost::system::errc::operation_canceled);
        return false;
    }

    void end_value() noexcept {
        if (!frames_.empty() && !frames_.back().is_object) ++frames_.back().count;
    }

    bool open_container(bool is_object, boost::system::error_code& ec) {
        if (!begin_value(ec)) return false;
        const std::size_t depth = frames_.size() + 1;
        if (depth > lim_.max_depth) [[unlikely]]
            return stop_at_depth_limit(ec);
        max_depth_seen_ = std::max(max_depth_seen_, depth);
        frames_.push_back(frame{is_object, 0, 0, key_recs_.size(), keys_.size()});
        return true;
    }

    void close_frame() {
        const frame f = frames_.back();
        frames_.pop_back();
        if (f.is_object) {
            if (indexed_frame_ == frames_.size()) {
                key_index_.clear();  // non-empty: it indexed this object
                indexed_frame_ = no_frame;
            }
            key_recs_.resize(f.rec_begin);
            keys_.resize(f.key_bytes);
        }
    }

    void begin_key() {
        in_key_ = true;
        auto& f = frames_.back();
        ++f.keys;
        key_recs_.push_back(key_rec{keys_.size(), 0});
    }

    // The newest key record belongs to the innermost object; is its key already there?
    bool is_duplicate_key() {
        auto& f = frames_.back();
        const std::size_t last = key_recs_.size() - 1;
        const std::size_t depth = frames_.size() - 1;
        if (f.keys <= linear_key_scan) {
            const auto k = key_view(last);
            for (std::size_t r = f.rec_begin; r < last; ++r)
                if (key_recs_[r].size == k.size() && key_view(r) == k) return true;
            return false;
        }
        // Only the innermost big object is indexed; an outer one that was indexed before a
        // nested big object took the index over is re-indexed when it is resumed.
        if (indexed_frame_ != depth) {
            key_index_.clear();
            indexed_frame_ = depth;
            for (std::size_t r = f.rec_begin; r < last; ++r) key_index_.insert(r);
        }
        return !key_index_.insert(last).second;
    }

    void record_number(boost::json::string_view last_part) {
        if (!in_number_) number_begin_ = number_chars_.size();
        in_number_ = false;
        number_chars_.append(last_part.data(), last_part.size());
        numbers_.push_back({number_begin_, number_chars_.size() - number_begin_});
    }

    // Boost.JSON 1.81 converts decimal text to double exactly only on its fast path (at most
    // 15 significant digits, small exponents); elsewhere it can be an ulp off, and the DOM
    // would then disagree with the text (1.5e-31 read back as 1.5000000000000001e-31). Such
    // numbers are converted again with std::from_chars, which rounds correctly.
    double nearest_double(double fast) const {
        const auto& span = numbers_.back();
        const std::string_view text = std::string_view(number_chars_).substr(span.offset, span.size);
        if (text.size() <= 15 && text.find_first_of("eE") == std::string_view::npos) return fast;
        double exact = 0;
        const auto r = std::from_chars(text.data(), text.data() + text.size(), exact);
        // out of range here means an underflow (overflow was caught as non-finite): keep
        // Boost's value, which is zero or a subnormal next to it.
        return r.ec == std::errc{} ? exact : fast;
    }

    // A semantic violation stops the parse in `stop` mode and is recorded in `collect` mode.
    bool semantic(intake_code code, std::string message, boost::system::error_code& ec) {
        if (mode_ == on_semantic_violation::stop) {
            fail(code, current_path(), std::move(message));
            ec = make_error_code(boost::system::errc::operation_canceled);
            return false;
        }
        violations_.push_back(violation{code, current_path(), std::move(message), {}, {}});
        return true;
    }

    limits lim_;
    on_semantic_violation mode_ = on_semantic_violation::stop;
    detail::arena_ptr arena_;
    std::string number_chars_;
    std::vector<document::number_span> numbers_;
    boost::json::value_stack values_;
    std::vector<frame> frames_;
    std::string keys_;
    std::vector<key_rec> key_recs_;
    std::unordered_set<std::size_t, key_hash, key_eq> key_index_;
    std::size_t indexed_frame_ = no_frame;
    std::string_view stable_input_;
    std::size_t nodes_ = 0;
    std::size_t max_depth_seen_ = 0;
    bool in_key_ = false;
    bool in_number_ = false;
    std::size_t number_begin_ = 0;
    std::vector<violation> violations_;
    std::optional<violation> fatal_;
};

// ---------------------------------------------------------------------------------------------

namespace {

boost::json::parse_options strict_options() {
    boost::json::parse_options opt;
    // Our handler stops at max_depth first; the parser's own ceiling is the last line of defence.
    opt.max_depth = depth_ceiling + 1;
    opt.allow_comments = false;
    opt.allow_trailing_commas = false;
    opt.allow_invalid_utf8 = false;
    return opt;
}

// One run of the handler over a text fed in chunks; shared by `parser` and `parse`/`scan`.
class engine {
public:
    engine() : p(strict_options()) {}

    void start(const limits& lim, on_semantic_violation mode, std::size_t size_hint = 0) {
        p.reset();
        h().start_document(lim, mode, size_hint);
        total = 0;
        failed = false;
        done = false;
    }

    boost::json::basic_parser<intake_handler> p;
    std::size_t total = 0;  // bytes fed so far
    bool failed = false;
    bool done = false;  // the final chunk has been written

    intake_handler& h() { return p.handler(); }

    void record_parse_error(const boost::system::error_code& ec, std::string_view chunk,
                            std::size_t consumed_in_chunk) {
        failed = true;
        if (h().fatal()) return;  // the handler stopped the parser and said why
        const std::size_t offset = total + consumed_in_chunk;
        if (ec == boost::json::error::exponent_overflow) {
            h().fail(intake_code::non_finite_number, h().current_path(),
                     "number at byte " + std::to_string(offset) + " has an exponent out of range");
            return;
        }
        h().fail(intake_code::invalid_json, h().current_path(),
                 describe_parse_error(
                     ec, offset,
                     consumed_in_chunk < chunk.size()
                         ? std::optional<unsigned char>(static_cast<unsigned char>(chunk[consumed_in_chunk]))
                         : std::nullopt) +
                     " at byte " + std::to_string(offset),
                 {}, offset);
    }

    bool write(std::string_view chunk, bool more) {
        if (failed) return false;
        if (chunk.size() > h().lim().max_bytes - std::min(total, h().lim().max_bytes)) {
            failed = true;
            h().fail(intake_code::input_too_large, "",
                     "input is larger than " + std::to_string(h().lim().max_bytes) + " bytes", h().lim().max_bytes);
            return false;
        }
        boost::system::error_code ec;
        const std::size_t n = p.write_some(more, chunk.data(), chunk.size(), ec);
        if (ec) {
            record_parse_error(ec, chunk, n);
            return false;
        }
        // The parser stops after a complete value; whatever it did not consume is extra.
        if (n < chunk.size()) {
            record_parse_error(make_error_code(boost::json::error::extra_data), chunk, n);
            return false;
        }
        total += n;
        done = !more;
        return true;
    }

    boost::system::result<scanned, violation> finish() {
        if (!failed && !done) write({}, false);
        if (failed) return std::move(*h().fatal());
        scanned out{h().take_document(), std::move(h().violations())};
        return out;
    }
};

}  // namespace

struct parser::impl {
    impl(const limits& l, on_semantic_violation m) : lim(l), mode(m) { e.start(lim, mode); }
    limits lim;
    on_semantic_violation mode;
    engine e;
};

parser::parser(const limits& lim, on_semantic_violation mode) : impl_(std::make_unique<impl>(lim, mode)) {}
parser::~parser() = default;

bool parser::write(std::string_view chunk) { return impl_->e.write(chunk, true); }

boost::system::result<scanned, violation> parser::finish() { return impl_->e.finish(); }

void parser::reset() { impl_->e.start(impl_->lim, impl_->mode); }

namespace {
boost::system::result<scanned, violation> run_once(std::string_view text, const limits& lim,
                                                   on_semantic_violation mode) {
    if (text.size() > lim.max_bytes) {
        return violation{intake_code::input_too_large,
                         "",
                         "input is " + std::to_string(text.size()) + " bytes; at most " +
                             std::to_string(lim.max_bytes) + " are allowed",
                         lim.max_bytes,
                         {}};
    }
    // One engine per thread, reused: its parser stack, value stack and scratch buffers keep
    // their capacity, so a parse allocates little more than the document's own arena.
    thread_local engine e;
    // A DOM takes two to four times the size of its text (small objects: their tables and
    // keys weigh more than their text); one block avoids a second allocation, and pages of
    // the block that are never touched cost nothing. A small request (a usual tools/call is
    // 100–300 bytes, its tree under 600) gets a block that glibc's per-thread cache serves
    // (at most 1,032 bytes with the resource in front); one of 4 KB went through the general
    // allocator on every request.
    e.start(lim, mode, std::max<std::size_t>(896, 4 * text.size()));
    e.h().set_stable_input(text);
    e.write(text, false);
    return e.finish();
}
}  // namespace

boost::system::result<document, violation> parse(std::string_view text, const limits& lim) {
    auto r = run_once(text, lim, on_semantic_violation::stop);
    if (!r) return r.error();
    return std::move(r->doc);
}

boost::system::result<scanned, violation> scan(std::string_view text, const limits& lim) {
    return run_once(text, lim, on_semantic_violation::collect);
}

// ---------------------------------------------------------------------------------------------

boost::system::result<shape, violation> measure(const boost::json::value& root, const limits& lim) {
    struct frame {
        const boost::json::value* container;
        std::size_t next;  // index of the next child to visit
    };
    const std::size_t max_depth = std::min(lim.max_depth, depth_ceiling);
    boost::container::small_vector<frame, 16> stack;  // arguments are rarely deeper: no allocation
    shape s;

    // Every frame's `next - 1` is the child on the way to the value being visited.
    auto path_of_current = [&] {
        std::string path;
        for (const auto& f : stack) {
            const std::size_t idx = f.next - 1;
            if (f.container->is_object()) {
                append_token(path, (f.container->get_object().begin() + idx)->key());
            } else {
                append_index(path, idx);
            }
        }
        return path;
    };

    // Visit a value: count it, and if it is a non-empty container descend into it.
    auto visit = [&](const boost::json::value& v) -> std::optional<violation> {
        if (++s.nodes > lim.max_nodes) {
            return violation{intake_code::node_limit,
                             path_of_current(),
                             "too many values: at most " + std::to_string(lim.max_nodes) +
                                 " values (containers included) are allowed",
                             lim.max_nodes,
                             {}};
        }
        if (v.is_object() || v.is_array()) {
            const std::size_t depth = stack.size() + 1;
            if (depth > max_depth) {
                return violation{intake_code::depth_limit,
                                 path_of_current(),
                                 "nested too deeply: at most " + std::to_string(max_depth) +
                                     " levels of objects and arrays are allowed",
                                 max_depth,
                                 {}};
            }
            s.depth = std::max(s.depth, depth);
            stack.push_back(frame{&v, 0});
        }
        return std::nullopt;
    };

    if (auto err = visit(root)) return *err;
    while (!stack.empty()) {
        auto& f = stack.back();
        const std::size_t size =
            f.container->is_object() ? f.container->get_object().size() : f.container->get_array().size();
        if (f.next == size) {
            stack.pop_back();
            continue;
        }
        const std::size_t idx = f.next++;
        const boost::json::value& child = f.container->is_object() ? (f.container->get_object().begin() + idx)->value()
                                                                   : f.container->get_array()[idx];
        if (auto err = visit(child)) return *err;
    }
    return s;
}

}  // namespace candor::json
