// SPDX-License-Identifier: BSL-1.0
#include <candor/validation/metrics.hpp>

#include <algorithm>

namespace candor::validation {

namespace {
double ratio(std::uint64_t a, std::uint64_t b) noexcept {
    return b == 0 ? 0.0 : static_cast<double>(a) / static_cast<double>(b);
}
constexpr std::size_t max_client_name = 64;
constexpr std::string_view other_client = "(other)";
}  // namespace

std::uint64_t counters::issues() const noexcept {
    std::uint64_t n = 0;
    for (const auto& [code, count] : issues_by_code) n += count;
    return n;
}
double counters::first_pass_validity_rate() const noexcept { return ratio(first_pass_valid, first_pass_calls); }
double counters::repair_rate() const noexcept { return ratio(repair_attempts, failed_attempts); }
double counters::repair_success_rate() const noexcept { return ratio(repair_successes, repair_attempts); }
double counters::backend_fix_share() const noexcept { return ratio(fixed_by_backend, fixed_by_backend + issues()); }

void metrics::record(std::string_view tool, std::string_view client, const call_observation& o) {
    std::string name(client.substr(0, std::min(client.size(), max_client_name)));
    std::lock_guard lock(mutex_);
    auto key = std::make_pair(std::string(tool), std::move(name));
    auto it = series_.find(key);
    if (it == series_.end()) {
        if (series_.size() >= max_series_) key.second = other_client;
        it = series_.try_emplace(std::move(key)).first;
    }
    counters& c = it->second;
    ++c.calls;
    if (o.first_pass) {
        ++c.first_pass_calls;
        if (o.valid) ++c.first_pass_valid;
    } else {
        ++c.repair_attempts;
        if (o.valid) ++c.repair_successes;
    }
    if (!o.valid && !o.issues.empty()) ++c.failed_attempts;
    if (o.repair_limit_hit) ++c.repair_limit_hits;
    for (const auto& [code, where] : o.issues) {
        ++c.issues_by_code[code];
        ++c.issues_by_layer[std::string(to_string(where))];
    }
    c.fixed_by_backend += o.fixed_by_backend;
    if (o.write && o.stopped_before_write) ++c.stopped_before_write;
    if (o.unverified_draft) ++c.unverified_drafts;
    for (const auto& t : o.external_checks) {
        ++c.external_checks;
        if (t.unavailable) ++c.external_unavailable;
        const auto us = static_cast<std::uint64_t>(std::max<std::int64_t>(0, t.latency.count()));
        c.external_latency_us_total += us;
        c.external_latency_us_max = std::max(c.external_latency_us_max, us);
    }
}

std::vector<series> metrics::snapshot() const {
    std::lock_guard lock(mutex_);
    std::vector<series> out;
    out.reserve(series_.size());
    for (const auto& [key, values] : series_) out.push_back({key.first, key.second, values});
    return out;
}

counters metrics::of(std::string_view tool, std::string_view client) const {
    std::lock_guard lock(mutex_);
    auto it = series_.find(std::make_pair(std::string(tool), std::string(client)));
    return it == series_.end() ? counters{} : it->second;
}

const std::shared_ptr<metrics>& metrics::shared() {
    static const std::shared_ptr<metrics> instance = std::make_shared<metrics>();
    return instance;
}

}  // namespace candor::validation
