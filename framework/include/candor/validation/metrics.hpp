// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Validation metrics per tool and per client (`clientInfo.name`, the closest thing MCP has to
/// "which model"): plain counters behind a mutex, read as a snapshot. Exporters (the
/// operators' `/metrics`, the console) read `snapshot()`; nothing here formats or sends.
///
/// Cardinality is bounded: client names are cut to 64 bytes, and past `max_series`
/// (tool, client) pairs further clients are counted under the client name "(other)".

#include <candor/error/issue.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace candor::validation {

/// The counters of one (tool, client) pair.
struct counters {
    /// Calls that reached validation (argument intake passed).
    std::uint64_t calls = 0;
    /// Calls with no failed attempt pending for their caller, and how many of them passed
    /// every layer.
    std::uint64_t first_pass_calls = 0;
    std::uint64_t first_pass_valid = 0;
    /// Calls refused by a validation layer (any attempt).
    std::uint64_t failed_attempts = 0;
    /// Calls made while a failed attempt was pending (repairs), and how many of them passed.
    std::uint64_t repair_attempts = 0;
    std::uint64_t repair_successes = 0;
    /// Failed attempts answered `REPAIR_LIMIT_EXCEEDED`.
    std::uint64_t repair_limit_hits = 0;
    /// Issues reported, by code and by layer ("intake", "contract", "business", "external").
    std::map<std::string, std::uint64_t> issues_by_code{};
    std::map<std::string, std::uint64_t> issues_by_layer{};
    /// Values the backend substituted itself (`VALUE_NORMALIZED`).
    std::uint64_t fixed_by_backend = 0;
    /// Write tools (reversible or irreversible) stopped before their side effect: refused by
    /// a layer, by evidence, or by approval.
    std::uint64_t stopped_before_write = 0;
    /// Reversible writes stored as unverified drafts.
    std::uint64_t unverified_drafts = 0;
    /// External checks run, those that failed or timed out, and their latency.
    std::uint64_t external_checks = 0;
    std::uint64_t external_unavailable = 0;
    std::uint64_t external_latency_us_total = 0;
    std::uint64_t external_latency_us_max = 0;

    /// Issues reported in total (the sum of `issues_by_code`).
    std::uint64_t issues() const noexcept;
    /// first_pass_valid / first_pass_calls (0 when no call).
    double first_pass_validity_rate() const noexcept;
    /// repair_attempts / failed_attempts: how often a refused caller came back.
    double repair_rate() const noexcept;
    /// repair_successes / repair_attempts.
    double repair_success_rate() const noexcept;
    /// fixed_by_backend / (fixed_by_backend + issues): the share of problems the backend
    /// settled without a round trip.
    double backend_fix_share() const noexcept;
};

struct series {
    std::string tool{};
    std::string client{};
    counters values{};
};

/// What one validated call contributes (filled in by the pipeline, recorded once).
struct call_observation {
    bool first_pass = true;
    bool valid = false;
    bool repair_limit_hit = false;
    bool write = false;
    bool stopped_before_write = false;
    bool unverified_draft = false;
    std::uint64_t fixed_by_backend = 0;
    std::vector<std::pair<std::string, layer>> issues{};
    struct check_timing {
        std::chrono::microseconds latency{};
        bool unavailable = false;
    };
    std::vector<check_timing> external_checks{};
};

/// Thread-safe; the lock is held only while a call's observation is added or a snapshot copied.
class metrics {
public:
    explicit metrics(std::size_t max_series = 1024) : max_series_(max_series) {}

    void record(std::string_view tool, std::string_view client, const call_observation& o);

    /// Every series, ordered by tool then client.
    std::vector<series> snapshot() const;
    /// One series (zeros when never recorded).
    counters of(std::string_view tool, std::string_view client) const;

    /// The process-wide instance validated tools use unless given their own.
    static const std::shared_ptr<metrics>& shared();

private:
    std::size_t max_series_;
    mutable std::mutex mutex_;
    std::map<std::pair<std::string, std::string>, counters> series_;
};

}  // namespace candor::validation
