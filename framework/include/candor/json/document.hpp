// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// A parsed JSON text: the DOM, its measured shape, and the raw text of its numbers.

#include <boost/json/monotonic_resource.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace candor::json {

namespace detail {
/// Frees an arena made by `make_arena` (the resource and its first block are one allocation).
struct arena_deleter {
    void operator()(boost::json::monotonic_resource* r) const noexcept;
};
using arena_ptr = std::unique_ptr<boost::json::monotonic_resource, arena_deleter>;
/// One allocation holding a monotonic resource and its first block of `initial` bytes.
arena_ptr make_arena(std::size_t initial);
}  // namespace detail

/// A deep copy of `v` in the default (heap) storage, safe to keep after its document is gone.
///
/// Beware: `boost::json::value(doc.root())` copies into the *same* storage as the original,
/// i.e. the document's arena, and dangles once the document is destroyed. Use `detach` (or
/// pass a storage explicitly) for anything that must outlive the document.
boost::json::value detach(const boost::json::value& v);

/// Owns the DOM of one accepted text and the arena it lives in. Destruction is O(1): the
/// arena is released whole, so the (bounded-depth) tree is never walked to free it.
/// Movable, not copyable.
class document {
public:
    document();
    document(document&&) noexcept;
    document& operator=(document&&) noexcept;
    ~document();

    const boost::json::value& root() const noexcept { return root_; }
    /// Container depth (root container = 1, scalar root = 0).
    std::size_t depth() const noexcept { return depth_; }
    /// Number of values, containers included, keys excluded.
    std::size_t nodes() const noexcept { return nodes_; }

    /// The exact source text of a number in this document (e.g. "19.99", "-0",
    /// "123456789012345678901234567890"), so that later layers can convert exactly instead of
    /// through a double. Empty for values that are not numbers of this document. The first call
    /// indexes the document; concurrent first calls on one document are not safe.
    std::optional<std::string_view> number_text(const boost::json::value& v) const;

    /// Mutable access to the root. Values moved out of it still live in the document's arena,
    /// so the document must outlive them.
    boost::json::value& mutable_root() noexcept { return root_; }

    /// Where a number's text sits in the document's number arena (an implementation detail
    /// shared with the intake).
    struct number_span {
        std::size_t offset;
        std::size_t size;
    };

private:
    friend class intake_handler;
    // The number texts and spans are copied into the arena, next to the values they belong to.
    document(detail::arena_ptr arena, boost::json::value&& root, std::size_t depth, std::size_t nodes,
             std::string_view number_chars, const std::vector<number_span>& numbers);
    void index_numbers() const;

    detail::arena_ptr arena_;
    boost::json::value root_;
    std::size_t depth_ = 0;
    std::size_t nodes_ = 0;
    // Raw number texts in document order (in the arena), and (built on first use) the map from
    // value to text.
    std::string_view number_chars_;
    const number_span* numbers_ = nullptr;
    std::size_t number_count_ = 0;
    // (value address, span index), sorted by address; a vector keeps the document cheap to move.
    mutable std::vector<std::pair<const boost::json::value*, std::size_t>> number_index_;
    mutable bool indexed_ = false;
};

}  // namespace candor::json
