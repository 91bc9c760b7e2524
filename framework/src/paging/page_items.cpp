// SPDX-License-Identifier: BSL-1.0
// The items of one page: what the source delivered, checked against its contract and the
// keyset invariant, fingerprinted for the evidence, cut down to the fields asked for, written
// for a byte budget, and put in the page's envelope.

#include "page.hpp"

#include <candor/evidence/token.hpp>

#include <algorithm>
#include <span>
#include <stdexcept>
#include <utility>

namespace candor::paging::detail {

namespace {

// The key of an item under the ordering; a source that hands out items without their key
// fields breaks the keyset contract (a bug, so an exception → INTERNAL_ERROR).
boost::json::array key_of(const boost::json::value& item, const ordering& order) {
    const auto* o = item.if_object();
    if (!o) throw std::logic_error("data source returned an item that is not an object");
    boost::json::array key;
    key.reserve(order.fields.size());
    for (const auto& f : order.fields) {
        const auto* v = o->if_contains(f);
        if (!v || v->is_object() || v->is_array())
            throw std::logic_error("data source returned an item without a scalar '" + f + "'");
        key.push_back(*v);
    }
    return key;
}

// A written item's key (its ordering fields' values, as the source reported them) must be
// scalars, as key_of requires of an item value.
void check_key(std::span<const boost::json::value> key, const ordering& order) {
    for (std::size_t k = 0; k < key.size(); ++k)
        if (key[k].is_object() || key[k].is_array())
            throw std::logic_error("data source returned an item without a scalar '" + order.fields[k] + "'");
}

std::string id_text(const boost::json::value& v) {
    if (const auto* s = v.if_string()) return std::string(*s);
    return json::to_string(v).value();
}

}  // namespace

void take_items(delivered_items& d, fetch_result& f, const ordering& order, std::size_t effective, bool as_written,
                bool keep_ids) {
    if (f.items_written) {
        if (!as_written) throw std::logic_error("data source wrote items that were asked for as values");
        d.written = std::move(f.items_written);
        d.written_ends = std::move(f.written_ends);
        d.written_keys = std::move(f.written_keys);
        d.count = d.written_ends.size();
        d.order_checked = f.written_order_checked;
        if (d.order_checked && keep_ids) throw std::logic_error("data source left out keys that were asked for");
        d.keys_from = d.order_checked ? d.count - std::min<std::size_t>(d.count, 2) : 0;
        if (d.written_keys.size() != (d.count - d.keys_from) * order.fields.size())
            throw std::logic_error("data source wrote items without their key fields");
        // The item ends must cut the array where items end: increasing, inside "[…]".
        const auto text = d.written->text();
        std::size_t from = 1;
        for (const auto end : d.written_ends) {
            if (end <= from || end >= text.size())
                throw std::logic_error("data source wrote item ends outside its text");
            from = end + 1;  // past the comma
        }
        if (text.size() < 2 || text.front() != '[' || text.back() != ']')
            throw std::logic_error("data source wrote items that are not one JSON array");
    } else {
        d.items = std::move(f.items);
        d.storage = f.storage;
        d.count = d.items.size();
    }
    if (d.count > effective + 1) throw std::logic_error("data source returned more items than asked for");
    d.returned = d.count;
    if (d.count > effective) {
        d.more = true;
        d.count = effective;
    }
}

void check_keys(delivered_items& d, const boost::json::array& after, const ordering& order, bool keep_ids,
                bool keep_keys) {
    using key_view = std::span<const boost::json::value>;
    const std::size_t fields = order.fields.size();
    if (keep_ids) d.ids.reserve(d.count);
    if (keep_keys) d.item_keys.reserve(d.count);
    if (d.order_checked) {  // by the source: only the last key delivered is needed
        if (d.count > 0) {
            const key_view key(d.written_keys.data() + (d.count - 1 - d.keys_from) * fields, fields);
            check_key(key, order);
            d.last_key = boost::json::array(key.begin(), key.end());
        }
    } else {
        key_view last(after.data(), after.size());
        boost::json::array last_built;  // the last key taken out of an item value
        for (std::size_t i = 0; i < d.returned; ++i) {
            key_view key;
            boost::json::array built;
            if (d.written) {
                key = key_view(d.written_keys.data() + i * fields, fields);
                check_key(key, order);
            } else {
                built = key_of(d.items[i], order);
                key = key_view(built.data(), built.size());
            }
            if (!last.empty() && compare_keys(last, key, order) >= 0)
                throw std::logic_error("data source returned items out of order or before the cursor");
            if (keep_ids && i < d.count) d.ids.push_back(id_text(key.back()));
            if (keep_keys && i < d.count) d.item_keys.emplace_back(key.begin(), key.end());
            if (i + 1 == d.count) d.last_key = boost::json::array(key.begin(), key.end());
            if (d.written) {
                last = key;
            } else {
                last_built = std::move(built);
                last = key_view(last_built.data(), last_built.size());
            }
        }
    }
    if (d.count == 0) d.last_key = after;
}

void note_seen(delivered_items& d) {
    d.seen.reserve(d.count);
    std::string text;
    for (std::size_t i = 0, from = 1; i < d.count; ++i) {
        if (d.written) {
            const auto all = d.written->text();
            text.assign(all.substr(from, d.written_ends[i] - from));
            from = d.written_ends[i] + 1;
        } else {
            text.clear();
            {
                json::text_sink sink(text);  // the text is cut to what was written when it goes
                if (!json::write(d.items[i], sink, json::depth_ceiling))
                    throw std::logic_error("data source returned an item that cannot be written");
            }
        }
        d.seen.push_back(evidence::seen_as(d.ids[i], text));
    }
}

void keep_fields(delivered_items& d, const std::vector<std::string>& fields) {
    if (d.written) {
        const auto text = d.written->text();
        d.items.clear();
        for (std::size_t i = 0, from = 1; i < d.count; from = d.written_ends[i] + 1, ++i)
            d.items.push_back(
                json::written::adopt(std::string(text.substr(from, d.written_ends[i] - from))).to_value());
        d.written.reset();
        d.written_ends.clear();
        d.storage = {};
    }
    d.items.resize(d.count);
    for (auto& it : d.items) {
        auto* o = it.if_object();
        if (!o) continue;
        for (auto m = o->begin(); m != o->end();) {
            if (std::find(fields.begin(), fields.end(), m->key()) == fields.end()) m = o->erase(m);
            else ++m;
        }
    }
}

void write_items(delivered_items& d) {
    std::string text = "[";
    d.written_ends.clear();
    for (std::size_t i = 0; i < d.count; ++i) {
        if (i != 0) text.push_back(',');
        {
            json::text_sink sink(text);  // the text is cut to what was written when it goes
            if (auto w = json::write(d.items[i], sink, json::depth_ceiling); !w)
                throw std::logic_error("data source returned an item that cannot be written");
        }
        d.written_ends.push_back(text.size());
    }
    text.push_back(']');
    d.written = json::written::adopt(std::move(text));
    d.items.clear();
}

boost::json::array key_at(const delivered_items& d, const boost::json::array& after, std::size_t k,
                          const ordering& order) {
    if (k == 0) return after;
    if (k == d.count) return d.last_key;
    if (!d.item_keys.empty()) return d.item_keys[k - 1];
    // A source that checked the order itself reported the last keys only: read the item.
    const auto text = d.written->text();
    const std::size_t from = k == 1 ? 1 : d.written_ends[k - 2] + 1;
    return key_of(json::written::adopt(std::string(text.substr(from, d.written_ends[k - 1] - from))).to_value(), order);
}

void put_items(delivered_items& d, envelope::envelope& e, std::size_t keep, bool keep_ids) {
    if (d.written) {
        // Without the look-ahead item (and what the budget left out): the text up to the end of
        // the last item kept.
        std::string text = std::move(*d.written).release();
        text.resize(keep == 0 ? 1 : d.written_ends[keep - 1]);
        text.push_back(']');
        e.data_written = json::written::adopt(std::move(text));
    } else {
        d.items.resize(keep);
        boost::json::array data(d.storage);
        data.reserve(d.items.size());
        for (auto& i : d.items) data.push_back(std::move(i));
        e.data = std::move(data);
    }
    if (keep_ids) {
        d.ids.resize(keep);
        for (std::size_t i = 0; i < keep && i < d.seen.size(); ++i) d.ids.push_back(std::move(d.seen[i]));
    }
}

}  // namespace candor::paging::detail
