#include <candor/json/document.hpp>

#include <utility>

namespace candor::json {

document::document() = default;
document::document(document&&) noexcept = default;
document& document::operator=(document&&) noexcept = default;
document::~document() = default;

std::optional<std::string_view> document::number_text(const boost::json::value& v) const {
    if (!v.is_number()) return std::nullopt;
    if (!indexed_) index_numbers();
    const auto it = number_index_.find(&v);
    if (it == number_index_.end()) return std::nullopt;
    const auto& span = numbers_[it->second];
    return std::string_view(number_chars_).substr(span.offset, span.size);
}

// Numbers were recorded in document order; a pre-order walk of the DOM (objects keep insertion
// order, and a duplicated key keeps its first position) meets them in the same order, except
// for the numbers of overwritten duplicates, which strict intake never lets through. The walk
// uses an explicit stack.
void document::index_numbers() const {
    indexed_ = true;
    number_index_.reserve(numbers_.size());
    std::size_t next = 0;
    std::vector<const boost::json::value*> stack{&root_};
    while (!stack.empty() && next < numbers_.size()) {
        const boost::json::value* v = stack.back();
        stack.pop_back();
        if (v->is_number()) {
            number_index_.emplace(v, next++);
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
}

}  // namespace candor::json
