// SPDX-License-Identifier: BSL-1.0
#include <candor/evidence/store.hpp>

#include <algorithm>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace candor::evidence {

namespace {

struct string_hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};

class memory_store final : public evidence_store {
public:
    void record(std::string_view walk, std::span<const std::string> ids, seal::wall_time open_until) override {
        std::lock_guard lock(mutex_);
        auto& w = walks_[std::string(walk)];
        if (w.closed) return;  // a closed set never grows: the token refers to exactly it
        w.expiry = std::max(w.expiry, open_until);
        for (const auto& id : ids) w.ids.insert(id);
    }

    void close(std::string_view walk, seal::wall_time expiry) override {
        std::lock_guard lock(mutex_);
        auto& w = walks_[std::string(walk)];
        w.closed = true;
        w.expiry = expiry;
    }

    std::optional<std::vector<std::string>> uncovered(std::string_view walk, std::span<const std::string> ids,
                                                      seal::wall_time now) const override {
        std::lock_guard lock(mutex_);
        auto it = walks_.find(walk);
        if (it == walks_.end() || !it->second.closed || it->second.expiry <= now) return std::nullopt;
        std::vector<std::string> out;
        for (const auto& id : ids)
            if (!it->second.ids.contains(id)) out.push_back(id);
        return out;
    }

    void purge(seal::wall_time now) override {
        std::lock_guard lock(mutex_);
        std::erase_if(walks_, [now](const auto& kv) { return kv.second.expiry <= now; });
    }

private:
    struct walk_set {
        std::unordered_set<std::string, string_hash, std::equal_to<>> ids;
        bool closed = false;
        seal::wall_time expiry{};  // closed: the token's expiry; open: until when it may continue
    };
    mutable std::mutex mutex_;
    std::unordered_map<std::string, walk_set, string_hash, std::equal_to<>> walks_;
};

}  // namespace

std::shared_ptr<evidence_store> make_memory_store() { return std::make_shared<memory_store>(); }

}  // namespace candor::evidence
