// SPDX-License-Identifier: BSL-1.0
#include <candor/json/document.hpp>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <new>
#include <utility>

namespace candor::json {

namespace detail {

void arena_deleter::operator()(boost::json::monotonic_resource* r) const noexcept {
    r->~monotonic_resource();
    ::operator delete(static_cast<void*>(r));
}

arena_ptr make_arena(std::size_t initial) {
    constexpr std::size_t head = (sizeof(boost::json::monotonic_resource) + alignof(std::max_align_t) - 1) /
                                 alignof(std::max_align_t) * alignof(std::max_align_t);
    void* block = ::operator new(head + initial);
    auto* buffer = static_cast<unsigned char*>(block) + head;
    return arena_ptr(::new (block) boost::json::monotonic_resource(buffer, initial));
}

}  // namespace detail

document::document() = default;
document::document(document&&) noexcept = default;
document::~document() = default;

document::document(detail::arena_ptr arena, boost::json::value&& root, std::size_t depth, std::size_t nodes,
                   std::string_view number_chars, const std::vector<number_span>& numbers)
    : arena_(std::move(arena)),
      root_(std::move(root)),  // move construction keeps the arena as the value's storage
      depth_(depth),
      nodes_(nodes),
      number_count_(numbers.size()) {
    if (!number_chars.empty()) {
        void* chars = arena_->allocate(number_chars.size(), 1);
        std::memcpy(chars, number_chars.data(), number_chars.size());
        number_chars_ = std::string_view(static_cast<const char*>(chars), number_chars.size());
    }
    if (!numbers.empty()) {
        void* spans = arena_->allocate(numbers.size() * sizeof(number_span), alignof(number_span));
        std::memcpy(spans, numbers.data(), numbers.size() * sizeof(number_span));
        numbers_ = static_cast<const number_span*>(spans);
    }
}

// Member-wise move assignment would be wrong twice over: boost::json::value's move assignment
// deep-copies when the storages differ, and the old arena would be freed while the old root
// still lives in it. Destroying and re-constructing keeps each value with its own arena.
document& document::operator=(document&& other) noexcept {
    if (this != &other) {
        this->~document();
        ::new (static_cast<void*>(this)) document(std::move(other));
    }
    return *this;
}

boost::json::value detach(const boost::json::value& v) {
    // Recursive inside Boost.JSON, bounded by the intake's depth ceiling.
    return boost::json::value(v, boost::json::storage_ptr());
}

std::optional<std::string_view> document::number_text(const boost::json::value& v) const {
    if (!v.is_number()) return std::nullopt;
    if (!indexed_) index_numbers();
    const auto it = std::lower_bound(number_index_.begin(), number_index_.end(), &v,
                                     [](const auto& entry, const boost::json::value* p) { return entry.first < p; });
    if (it == number_index_.end() || it->first != &v) return std::nullopt;
    const auto& span = numbers_[it->second];
    return number_chars_.substr(span.offset, span.size);
}

// Numbers were recorded in document order; a pre-order walk of the DOM (objects keep insertion
// order, and a duplicated key keeps its first position) meets them in the same order, except
// for the numbers of overwritten duplicates, which strict intake never lets through. The walk
// uses an explicit stack.
void document::index_numbers() const {
    indexed_ = true;
    number_index_.reserve(number_count_);
    std::size_t next = 0;
    std::vector<const boost::json::value*> stack{&root_};
    while (!stack.empty() && next < number_count_) {
        const boost::json::value* v = stack.back();
        stack.pop_back();
        if (v->is_number()) {
            number_index_.emplace_back(v, next++);
        } else if (v->is_array()) {
            const auto& a = v->get_array();
            for (auto it = a.rbegin(); it != a.rend(); ++it) stack.push_back(&*it);
        } else if (v->is_object()) {
            const auto& o = v->get_object();
            for (auto it = o.end(); it != o.begin();) {
                --it;
                stack.push_back(&it->value());
            }
        }
    }
    std::sort(number_index_.begin(), number_index_.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
}

}  // namespace candor::json
