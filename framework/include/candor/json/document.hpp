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
#include <unordered_map>
#include <vector>

namespace candor::json {

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

private:
    friend class intake_handler;
    struct number_span {
        std::size_t offset;
        std::size_t size;
    };
    void index_numbers() const;

    std::unique_ptr<boost::json::monotonic_resource> arena_;
    boost::json::value root_;
    std::size_t depth_ = 0;
    std::size_t nodes_ = 0;
    // Raw number texts in document order, and (built on first use) the map from value to text.
    std::string number_chars_;
    std::vector<number_span> numbers_;
    mutable std::unordered_map<const boost::json::value*, std::size_t> number_index_;
    mutable bool indexed_ = false;
};

}  // namespace candor::json
