// SPDX-License-Identifier: BSL-1.0
// GCC 12 reports -Wmismatched-new-delete on coroutine frames (Asio's frame allocator pairs its
// own operator new and delete): a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
#include <candor/validation/repair_budget.hpp>

namespace candor::validation {

repair_budget::repair_budget(repair_budget_options opts) : opts_(std::move(opts)) {
    if (opts_.max_entries == 0) opts_.max_entries = 1;
}

std::chrono::steady_clock::time_point repair_budget::now() const {
    return opts_.clock ? opts_.clock() : std::chrono::steady_clock::now();
}

bool repair_budget::expired(const entry& e, std::chrono::steady_clock::time_point t) const noexcept {
    return t - e.last >= opts_.window;
}

std::size_t repair_budget::failures(std::string_view key) const {
    const auto t = now();
    std::lock_guard lock(mutex_);
    auto it = entries_.find(std::string(key));
    if (it == entries_.end() || expired(it->second, t)) return 0;
    return it->second.failures;
}

void repair_budget::evict_for_insert(std::chrono::steady_clock::time_point t) {
    // Oldest first: the front of `order_` failed longest ago, so expired keys sit there.
    while (!order_.empty() && entries_.size() >= opts_.max_entries) {
        auto it = entries_.find(order_.front());
        const bool was_expired = it == entries_.end() || expired(it->second, t);
        if (it != entries_.end()) entries_.erase(it);
        order_.pop_front();
        if (!was_expired) break;  // evicted the least recently failed live key: room now
    }
    // Expired keys are also dropped a few at a time on every insert, so the map does not
    // keep dead keys until it is full.
    for (int i = 0; i < 2 && !order_.empty(); ++i) {
        auto it = entries_.find(order_.front());
        if (it == entries_.end() || expired(it->second, t)) {
            if (it != entries_.end()) entries_.erase(it);
            order_.pop_front();
        } else {
            break;
        }
    }
}

std::size_t repair_budget::record_failure(std::string_view key) {
    const auto t = now();
    std::lock_guard lock(mutex_);
    std::string k(key);
    auto it = entries_.find(k);
    if (it != entries_.end()) {
        entry& e = it->second;
        if (expired(e, t)) e.failures = 0;
        ++e.failures;
        e.last = t;
        order_.splice(order_.end(), order_, e.order);
        return e.failures;
    }
    evict_for_insert(t);
    order_.push_back(k);
    entry e;
    e.failures = 1;
    e.last = t;
    e.order = std::prev(order_.end());
    entries_.emplace(std::move(k), e);
    return 1;
}

void repair_budget::record_success(std::string_view key) {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(std::string(key));
    if (it == entries_.end()) return;
    order_.erase(it->second.order);
    entries_.erase(it);
}

shared_repair_counts::wall_time repair_budget::wall_now() const {
    return opts_.wall_clock ? opts_.wall_clock() : std::chrono::system_clock::now();
}

boost::asio::awaitable<std::size_t> repair_budget::count_failure(std::string key) {
    if (opts_.shared) {
        auto n = co_await opts_.shared->add_failure(key, wall_now(), opts_.window);
        if (n) co_return *n;
    }
    co_return record_failure(key);
}

boost::asio::awaitable<std::size_t> repair_budget::count_of(std::string key) {
    if (opts_.shared) {
        auto n = co_await opts_.shared->failures(key, wall_now(), opts_.window);
        if (n) co_return *n;
    }
    co_return failures(key);
}

boost::asio::awaitable<std::size_t> repair_budget::clear(std::string key) {
    std::size_t had = failures(key);
    record_success(key);
    if (opts_.shared) {
        auto n = co_await opts_.shared->clear(key, wall_now(), opts_.window);
        if (n) had = *n;
    }
    co_return had;
}

std::size_t repair_budget::remaining_after(std::size_t failures) const noexcept {
    // The first failure opens `max_repairs` rounds; each further failure uses one.
    if (failures == 0) return opts_.max_repairs;
    const std::size_t used = failures - 1;
    return used >= opts_.max_repairs ? 0 : opts_.max_repairs - used;
}

std::size_t repair_budget::size() const {
    std::lock_guard lock(mutex_);
    return entries_.size();
}

std::string repair_budget::key(std::string_view tool, std::string_view session_id, std::string_view principal_id) {
    std::string k(tool);
    // '\n' cannot occur in a tool name, so the parts cannot run into each other.
    if (!session_id.empty()) {
        k += "\ns:";
        k += session_id;
    } else {
        k += "\np:";
        k += principal_id;
    }
    return k;
}

}  // namespace candor::validation
