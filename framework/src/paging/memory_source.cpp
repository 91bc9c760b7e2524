// SPDX-License-Identifier: BSL-1.0
#include <candor/paging/memory_source.hpp>

#include <stdexcept>

namespace candor::paging {

namespace {

// An item matches a query when every query member equals the item's member.
bool matches(const boost::json::object& item, const boost::json::object& query) {
    for (const auto& kv : query) {
        const auto* v = item.if_contains(kv.key());
        if (!v || *v != kv.value()) return false;
    }
    return true;
}

}  // namespace

memory_source::memory_source(std::string name, ordering order, snapshot_mode mode)
    : name_(std::move(name)), order_(std::move(order)), mode_(mode) {}

boost::json::array memory_source::key_of(const boost::json::object& item) const {
    boost::json::array key;
    for (const auto& f : order_.fields) {
        const auto* v = item.if_contains(f);
        if (!v) throw std::invalid_argument("memory_source: item without ordering field '" + f + "'");
        key.push_back(*v);
    }
    return key;
}

void memory_source::put(boost::json::object item) {
    std::lock_guard lock(mutex_);
    auto key = key_of(item);
    const std::uint64_t v = ++version_;
    auto& versions = rows_[std::move(key)];
    if (!versions.empty() && versions.back().to == UINT64_MAX) versions.back().to = v;
    versions.push_back({v, UINT64_MAX, std::move(item)});
}

bool memory_source::erase(const boost::json::array& key) {
    std::lock_guard lock(mutex_);
    auto it = rows_.find(key);
    if (it == rows_.end() || it->second.empty() || it->second.back().to != UINT64_MAX) return false;
    it->second.back().to = ++version_;
    return true;
}

void memory_source::forget_versions_before(std::uint64_t version) {
    std::lock_guard lock(mutex_);
    oldest_ = version;
}

std::uint64_t memory_source::version() const {
    std::lock_guard lock(mutex_);
    return version_;
}

const memory_source::version_entry* memory_source::at_version(const std::vector<version_entry>& versions,
                                                              std::uint64_t v) const {
    for (auto it = versions.rbegin(); it != versions.rend(); ++it)
        if (it->from <= v && v < it->to) return &*it;
    return nullptr;
}

std::vector<boost::json::object> memory_source::items_at(std::uint64_t version) const {
    std::lock_guard lock(mutex_);
    std::vector<boost::json::object> out;
    for (const auto& [key, versions] : rows_)
        if (const auto* e = at_version(versions, version)) out.push_back(e->value);
    return out;
}

void memory_source::set_scan_hook(scan_hook h, std::function<steady_time_point()> clock) {
    scan_ = std::move(h);
    clock_ = std::move(clock);
}

boost::asio::awaitable<boost::system::result<std::string, source_error>> memory_source::open_snapshot(
    const boost::json::object&, const mcp::principal&) {
    if (mode_ == snapshot_mode::live) co_return std::string();
    std::string id = "v";
    id += std::to_string(version());
    co_return id;
}

boost::asio::awaitable<boost::system::result<fetch_result, source_error>> memory_source::fetch(
    const fetch_request& request) {
    co_return fetch_now(request);
}

boost::system::result<fetch_result, source_error> memory_source::fetch_now(const fetch_request& request) {
    std::lock_guard lock(mutex_);
    const std::size_t call = calls_++;
    if (fault_)
        if (auto err = fault_(call)) return *err;
    std::uint64_t v = version_;
    if (mode_ == snapshot_mode::pinned) {
        if (request.snapshot.size() < 2 || request.snapshot[0] != 'v')
            return source_error{source_error::kind::snapshot_gone, "not a snapshot of this source", {}};
        v = std::stoull(request.snapshot.substr(1));
        if (v < oldest_) return source_error{source_error::kind::snapshot_gone, "snapshot forgotten", {}};
    }
    fetch_result out;
    auto it = request.after ? rows_.upper_bound(*request.after) : rows_.begin();
    for (; it != rows_.end() && out.items.size() < request.limit; ++it) {
        const auto* e = at_version(it->second, v);
        if (!e) continue;
        ++out.items_scanned;
        if (scan_) scan_();
        if (matches(e->value, request.query)) {
            if (!visibility_ || visibility_(e->value, request.caller)) out.items.emplace_back(e->value);
        }
        if (clock_ && clock_() >= request.deadline && out.items.size() < request.limit &&
            std::next(it) != rows_.end()) {
            out.out_of_time = true;
            break;
        }
    }
    // Hidden rows anywhere in the scope make every page say so (a full scan, paid only when a
    // visibility rule is set).
    if (visibility_) {
        for (const auto& [key, versions] : rows_) {
            const auto* e = at_version(versions, v);
            if (e && matches(e->value, request.query) && !visibility_(e->value, request.caller)) {
                out.hidden_in_scope = true;
                break;
            }
        }
    }
    return out;
}

}  // namespace candor::paging
