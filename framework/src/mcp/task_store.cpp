// SPDX-License-Identifier: BSL-1.0
// The task table of this process.

#include <candor/mcp/task_store.hpp>

#include <map>
#include <mutex>

namespace candor::mcp {

std::string_view to_string(task_status s) noexcept {
    switch (s) {
        case task_status::working: return "working";
        case task_status::input_required: return "input_required";
        case task_status::completed: return "completed";
        case task_status::failed: return "failed";
        case task_status::cancelled: return "cancelled";
    }
    return "working";
}

std::optional<task_status> task_status_from(std::string_view name) noexcept {
    for (auto s : {task_status::working, task_status::input_required, task_status::completed, task_status::failed,
                   task_status::cancelled})
        if (to_string(s) == name) return s;
    return std::nullopt;
}

bool is_terminal(task_status s) noexcept {
    return s == task_status::completed || s == task_status::failed || s == task_status::cancelled;
}

namespace {

class memory_task_store final : public task_store {
public:
    boost::system::result<void, task_refusal> insert(task_record r, std::size_t max_total, std::size_t max_per_owner,
                                                     std::chrono::system_clock::time_point now) override {
        std::lock_guard lock(mu_);
        sweep(now);
        if (tasks_.size() >= max_total) return task_refusal::server_full;
        auto& owned = per_owner_[r.owner];
        if (owned >= max_per_owner) {
            if (owned == 0) per_owner_.erase(r.owner);
            return task_refusal::principal_full;
        }
        ++owned;
        auto id = r.id;
        if (r.expires) expiring_.emplace(*r.expires, id);
        tasks_.insert_or_assign(std::move(id), std::move(r));
        return {};
    }

    std::optional<task_record> find(std::string_view id, std::chrono::system_clock::time_point now) override {
        std::lock_guard lock(mu_);
        sweep(now);
        auto it = tasks_.find(id);
        if (it == tasks_.end()) return std::nullopt;
        return it->second;
    }

    bool modify(std::string_view id, std::chrono::system_clock::time_point now,
                const std::function<bool(task_record&)>& change) override {
        std::lock_guard lock(mu_);
        sweep(now);
        auto it = tasks_.find(id);
        if (it == tasks_.end()) return false;
        const bool had_expiry = it->second.expires.has_value();
        if (change(it->second) && !had_expiry && it->second.expires) expiring_.emplace(*it->second.expires, it->first);
        return true;
    }

    void erase(std::string_view id) override {
        std::lock_guard lock(mu_);
        auto it = tasks_.find(id);
        if (it != tasks_.end()) drop(it);
    }

private:
    using map = std::map<std::string, task_record, std::less<>>;

    // Drop every task whose expiry has passed: the index holds each expiring task once.
    void sweep(std::chrono::system_clock::time_point now) {
        while (!expiring_.empty() && expiring_.begin()->first <= now) {
            auto it = tasks_.find(expiring_.begin()->second);
            expiring_.erase(expiring_.begin());
            if (it != tasks_.end() && it->second.expires && *it->second.expires <= now) drop(it);
        }
    }

    void drop(map::iterator it) {
        if (auto o = per_owner_.find(it->second.owner); o != per_owner_.end() && --o->second == 0) per_owner_.erase(o);
        tasks_.erase(it);
    }

    std::mutex mu_;
    map tasks_;
    std::map<std::string, std::size_t, std::less<>> per_owner_;
    std::multimap<std::chrono::system_clock::time_point, std::string> expiring_;
};

}  // namespace

std::shared_ptr<task_store> make_memory_task_store() { return std::make_shared<memory_task_store>(); }

}  // namespace candor::mcp
