// SPDX-License-Identifier: BSL-1.0
#include <candor/ops/console.hpp>

#include <candor/envelope/codes.hpp>

#include <candor/ops/journal.hpp>
#include <candor/ops/metrics.hpp>
#include <candor/ops/outcome.hpp>

#include <boost/json/array.hpp>

#include <algorithm>
#include <vector>

namespace candor::ops {

namespace {

constexpr std::size_t top_n = 20;

// The `n` largest counts, largest first (ties by key).
boost::json::array top(const std::map<std::pair<std::string, std::string>, std::uint64_t>& m, std::string_view first,
                       std::string_view second) {
    std::vector<std::pair<std::uint64_t, const std::pair<std::string, std::string>*>> v;
    v.reserve(m.size());
    for (const auto& [k, n] : m) v.emplace_back(n, &k);
    const auto n = std::min(top_n, v.size());
    std::partial_sort(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n), v.end(), [](const auto& a, const auto& b) {
        return a.first > b.first || (a.first == b.first && *a.second < *b.second);
    });
    boost::json::array out;
    for (std::size_t i = 0; i < n; ++i)
        out.push_back(
            boost::json::object{{first, v[i].second->first}, {second, v[i].second->second}, {"count", v[i].first}});
    return out;
}

}  // namespace

console::console(console_options opts) : opts_(opts) {}

void console::bump(pair_counts& m, std::string a, std::string b) {
    auto key = std::make_pair(std::move(a), std::move(b));
    auto it = m.find(key);
    if (it == m.end() && m.size() + 1 >= opts_.max_keys) it = m.try_emplace(std::make_pair("other", "other"), 0).first;
    else if (it == m.end()) it = m.emplace(std::move(key), 0).first;
    ++it->second;
}

void console::on_record(const mcp::call_record& r) {
    auto entry = to_json(r);
    entry["metadata"] = r.envelope_metadata;
    const auto secs = std::chrono::duration_cast<std::chrono::seconds>(r.time.time_since_epoch()).count();

    std::lock_guard lock(mu_);
    const auto seq = ++seq_;
    entry["seq"] = seq;
    recent_.emplace_back(seq, std::move(entry));
    while (recent_.size() > opts_.recent_calls) recent_.pop_front();
    if (r.what != mcp::call_record::kind::tool_call) return;

    auto tool = r.tool;
    if (!tools_.count(tool) && tools_.size() + 1 >= opts_.max_keys) tool = "other";
    auto& t = tools_[tool];
    const auto outcome = outcome_of(r);
    ++t.calls;
    switch (outcome) {
        case call_outcome::complete: ++t.complete; break;
        case call_outcome::paged: ++t.paged; break;
        case call_outcome::incomplete: ++t.incomplete; break;
        case call_outcome::error: ++t.error; break;
        default: ++t.other; break;
    }
    for (const auto& c : r.reason_codes) {
        bump(is_paging_reason(c) ? paging_ : reasons_, r.tool, c);
        if (c == envelope::reason_codes::result_size_limit) bump(size_cuts_, r.tool, c);
    }
    for (const auto& c : r.warning_codes)
        if (c == envelope::warning_codes::field_truncated) bump(size_cuts_, r.tool, c);
    for (const auto& i : r.issues) {
        const auto layer = to_string(i.where);
        const auto group = group_of(i.code, layer);
        if (group == issue_group::argument) bump(issues_, i.code, std::string(layer));
        else bump(other_issues_, std::string(to_string(group)), i.code);
    }
    if (is_refused_action(r)) bump(refused_, r.tool, r.issues.empty() ? "-" : r.issues.front().code);

    const std::int64_t start = secs - secs % 60;
    if (timeline_.empty() || timeline_.back().start < start) timeline_.push_back(minute{start});
    auto& m = timeline_.back();
    ++m.calls;
    if (outcome == call_outcome::paged) ++m.paged;
    if (outcome == call_outcome::incomplete) ++m.incomplete;
    if (outcome == call_outcome::error) ++m.error;
    while (timeline_.size() > opts_.timeline_minutes) timeline_.pop_front();
}

boost::json::object console::feed(std::uint64_t after) const {
    boost::json::object out;
    std::lock_guard lock(mu_);
    out["seq"] = seq_;
    boost::json::array calls;
    for (const auto& [seq, entry] : recent_)
        if (seq > after) calls.push_back(entry);
    out["calls"] = std::move(calls);
    boost::json::array tools;
    for (const auto& [name, t] : tools_)
        tools.push_back(boost::json::object{{"tool", name},
                                            {"calls", t.calls},
                                            {"complete", t.complete},
                                            {"paged", t.paged},
                                            {"incomplete", t.incomplete},
                                            {"error", t.error},
                                            {"other", t.other}});
    out["tools"] = std::move(tools);
    out["reasons"] = top(reasons_, "tool", "code");
    out["paging"] = top(paging_, "tool", "code");
    out["size_cuts"] = top(size_cuts_, "tool", "code");
    out["issues"] = top(issues_, "code", "layer");
    out["other_issues"] = top(other_issues_, "group", "code");
    out["refused"] = top(refused_, "tool", "code");
    boost::json::array timeline;
    for (const auto& m : timeline_)
        timeline.push_back(boost::json::object{{"start", m.start},
                                               {"calls", m.calls},
                                               {"paged", m.paged},
                                               {"incomplete", m.incomplete},
                                               {"error", m.error}});
    out["timeline"] = std::move(timeline);
    return out;
}

}  // namespace candor::ops
