// SPDX-License-Identifier: BSL-1.0
// GCC 12 reports -Wmismatched-new-delete on coroutine frames (Asio's frame allocator pairs its
// own operator new and delete; see validation/layers.hpp): a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
#include <candor/validation/plan_ledger.hpp>

namespace candor::validation {

memory_plan_ledger::memory_plan_ledger(std::size_t max_entries) : max_entries_(max_entries) {}

plan_verdict memory_plan_ledger::record(const plan_use& use, std::chrono::system_clock::time_point now) {
    std::lock_guard lock(mutex_);
    while (!by_expiry_.empty() && by_expiry_.begin()->first <= now) {
        used_.erase(by_expiry_.begin()->second);
        by_expiry_.erase(by_expiry_.begin());
    }
    if (used_.contains(use.nonce)) return plan_verdict::used;
    if (used_.size() >= max_entries_) return plan_verdict::full;
    used_.emplace(use.nonce, use.expiry);
    by_expiry_.emplace(use.expiry, use.nonce);
    return plan_verdict::fresh;
}

boost::asio::awaitable<boost::system::result<plan_verdict, store::db_error>> memory_plan_ledger::consume(
    const plan_use& use, std::chrono::system_clock::time_point now) {
    co_return record(use, now);
}

boost::asio::awaitable<boost::system::result<plan_verdict, store::db_error>> memory_plan_ledger::consume_with(
    const plan_use&, std::chrono::system_clock::time_point, ledger_work) {
    co_return store::db_error{"the in-memory plan ledger has no database to share a transaction with"};
}

boost::asio::awaitable<boost::system::result<std::size_t, store::db_error>> memory_plan_ledger::size() {
    std::lock_guard lock(mutex_);
    co_return used_.size();
}

}  // namespace candor::validation
