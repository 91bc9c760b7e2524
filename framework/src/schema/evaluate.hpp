// SPDX-License-Identifier: BSL-1.0
#pragma once
// Internal: evaluation of an instance against a compiled program.

#include "messages.hpp"
#include "program.hpp"

#include <candor/error/issue.hpp>

#include <boost/container/small_vector.hpp>

#include <vector>

namespace candor::schema::detail {

/// Which items / members of the current instance some subschema has evaluated (the
/// annotations that `unevaluatedItems` / `unevaluatedProperties` depend on). Only collected
/// below a node that has one of those keywords.
struct annotations {
    std::size_t prefix = 0;   // items [0, prefix) evaluated
    bool all_items = false;   // every item evaluated
    std::vector<char> items;  // per-item flags (contains, unevaluatedItems)
    bool all_props = false;
    std::vector<char> props;  // per-member flags, by member position

    void mark_item(std::size_t i, std::size_t n);
    void mark_prop(std::size_t i, std::size_t n);
    bool item(std::size_t i) const { return all_items || i < prefix || (i < items.size() && items[i]); }
    bool prop(std::size_t i) const { return all_props || (i < props.size() && props[i]); }
    void merge(const annotations& o);
};

/// One evaluation of one instance. Recursion: one C++ frame per schema entered, bounded by
/// `options::max_evaluation_depth` (exceeding it is a SCHEMA_MISMATCH issue, never a crash).
class evaluator {
public:
    /// @param out where issues go; nullptr for the fast yes/no path (no strings built).
    evaluator(const program& p, issue_list* out) : p_(p), out_(out) {}

    bool eval(index n, const boost::json::value& instance, annotations* ann);

    /// True when evaluation was cut by a depth or step bound; the verdict is then "invalid".
    bool aborted() const noexcept { return aborted_; }
    /// The issue explaining the cut (valid only when `aborted()`).
    issue abort_issue() const;

private:
    const program& p_;
    issue_list* out_;
    std::size_t depth_ = 0;
    // Inline for usual depths: a validation allocates nothing for its bookkeeping.
    boost::container::small_vector<segment, 16> path_;
    boost::container::small_vector<index, 8> scope_;
    std::size_t steps_ = 0;
    bool aborted_ = false;
    std::string abort_path_, abort_keyword_, abort_reason_;

    bool quiet(index n, const boost::json::value& instance, annotations* ann);
    void report(const node& n, std::string_view keyword, std::string_view code, std::string message,
                const segment* extra = nullptr, boost::json::object details = {});
    bool eval_child(index n, const boost::json::value& v, segment s);
    bool check_number(const node& n, const boost::json::value& v);
    bool check_string(const node& n, const boost::json::value& v);
    bool check_array(const node& n, const boost::json::array& a, annotations* ann);
    bool check_object(const node& n, const boost::json::value& v, annotations* ann);
    bool check_combinators(const node& n, const boost::json::value& v, annotations* ann);
    void summarise(const node& n, std::string_view keyword, const std::vector<index>& branches,
                   const boost::json::value& v, std::string lead);
    std::string type_phrase(const node& n) const;
};

}  // namespace candor::schema::detail
