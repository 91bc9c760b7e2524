// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Metrics in the Prometheus text exposition format (version 0.0.4): counters, gauges and
/// histograms with bounded label sets, and `call_metrics`, the observer that feeds the
/// catalogue of docs/operations.md from call records.
///
/// Every family caps its series: label values a family has not seen once it holds
/// `max_series` series are counted under the value `other`, so a client that invents client
/// names or codes cannot grow the server's memory or the scrape.

#include <candor/mcp/observer.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace candor::ops {

/// A label value as exposed: at most 64 bytes of [A-Za-z0-9._/:-]; anything else becomes '_'.
std::string label_value(std::string_view raw);

namespace detail {

/// How many threads have a shard of their own in a sharded count or family.
inline constexpr std::size_t thread_shards = 16;
/// The calling thread's shard: each thread its own, in turn, the first `thread_shards` of them.
std::size_t thread_shard() noexcept;

/// A count that threads change at once without writing a cache line in common: each changes
/// its own shard, and a read sums them (a change made on one thread and undone on another
/// still sums right).
class sharded_count {
public:
    void add(std::int64_t d) noexcept { cells_[thread_shard()].v.fetch_add(d, std::memory_order_relaxed); }
    std::int64_t sum() const noexcept {
        std::int64_t n = 0;
        for (const auto& c : cells_) n += c.v.load(std::memory_order_relaxed);
        return n;
    }

private:
    struct alignas(64) cell {
        std::atomic<std::int64_t> v{0};
    };
    std::array<cell, thread_shards> cells_;
};

}  // namespace detail

class registry {
public:
    enum class type { counter, gauge, histogram };

    /// One metric family. Thread-safe. A counter's or histogram's series are kept in shards,
    /// one per thread in turn (at most `shard_count`), each behind its own lock, and summed
    /// when the family is written: threads that count at once take no lock and write no cache
    /// line in common. A gauge has one shard (its value is set, not summed).
    class family {
    public:
        family(std::string name, std::string help, type t, std::vector<std::string> labels, std::vector<double> buckets,
               std::size_t max_series);
        /// The label values of one series, in the family's label order (missing ones are
        /// empty, extra ones ignored); each is exposed as `label_value` makes it.
        using label_values = std::initializer_list<std::string_view>;
        /// Add `v` to the series of `labels` (counters, gauges).
        void add(label_values labels, double v = 1);
        /// Set a gauge.
        void set(label_values labels, double v);
        /// Record one observation (histograms).
        void observe(label_values labels, double v);
        /// Series currently held.
        std::size_t series() const;
        void write(std::string& out) const;

    private:
        struct series_data {
            double value = 0;
            std::vector<std::uint64_t> bucket_counts;
            double sum = 0;
            std::uint64_t count = 0;
        };
        /// Orders label sets; also compares a stored set with one being looked up, so that a
        /// series already held is found without building its key.
        struct labels_less {
            using is_transparent = void;
            template <class A, class B>
            bool operator()(const A& a, const B& b) const noexcept {
                return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(),
                                                    [](std::string_view x, std::string_view y) { return x < y; });
            }
        };
        using series_map = std::map<std::vector<std::string>, series_data, labels_less>;
        static constexpr std::size_t shard_count = detail::thread_shards;
        struct alignas(64) shard {
            mutable std::mutex mu;
            series_map series;
        };
        /// The calling thread's shard (shard 0 for a gauge).
        shard& mine();
        /// The series of `labels` in `sh` (its lock held), made there the first time; a label
        /// set the family has not seen counts against `max_series` first.
        series_data& find(shard& sh, label_values labels);
        /// The exposed label set of `wanted` (under `known_mu_`): itself while the family may
        /// hold one more set, else every value "other".
        std::vector<std::string> admit(std::vector<std::string> wanted);

        std::string name_;
        std::string help_;
        type type_;
        std::vector<std::string> labels_;
        std::vector<double> buckets_;
        std::size_t max_series_;
        mutable std::mutex known_mu_;
        /// Every label set held in any shard (the bound on series counts these).
        std::set<std::vector<std::string>, labels_less> known_;
        std::unique_ptr<shard[]> shards_;
    };

    /// @param name a Prometheus metric name ([a-zA-Z_:][a-zA-Z0-9_:]*); counters end in `_total`
    family& counter(std::string name, std::string help, std::vector<std::string> labels = {},
                    std::size_t max_series = 500);
    family& gauge(std::string name, std::string help, std::vector<std::string> labels = {},
                  std::size_t max_series = 500);
    family& histogram(std::string name, std::string help, std::vector<std::string> labels, std::vector<double> buckets,
                      std::size_t max_series = 500);

    /// The whole registry in the text exposition format, families in registration order.
    std::string exposition() const;

private:
    std::vector<std::unique_ptr<family>> families_;
};

struct metrics_options {
    /// `candor_build_info`'s `server` and `server_version` labels: the server's name and
    /// version (`serverInfo`). Empty: "-".
    std::string server_name{};
    std::string server_version{};
    /// An open session that has made no request since `initialize` for this long or longer is
    /// counted as idle (`candor_sessions_idle`); 0: every session not used yet.
    std::chrono::steady_clock::duration session_idle_after = std::chrono::seconds(60);
    /// Expose the process's standard metrics (`process_cpu_seconds_total`, …) when they can be
    /// read (`/proc`, Linux).
    bool process_metrics = true;
};

/// The standard catalogue (docs/operations.md), fed by call records. Thread-safe.
class call_metrics : public mcp::call_observer {
public:
    explicit call_metrics(metrics_options opts = {});

    void on_call_started() override;
    void on_call_finished() override;
    void on_record(const mcp::call_record& r) override;
    void on_session_event(const mcp::session_event& e) override;
    bool reads_envelope_metadata() const noexcept override { return false; }

    /// Count lines the journal dropped (exposed as `candor_journal_dropped_total`).
    void set_journal_drops(std::uint64_t n);
    /// Count lines the server's log dropped (exposed as `candor_log_dropped_total`).
    void set_log_drops(std::uint64_t n);

    /// The whole catalogue in the text exposition format: the call families, the session and
    /// process gauges (read now), the build info.
    std::string exposition() const;

private:
    metrics_options opts_;
    registry reg_;
    registry::family& calls_;
    registry::family& duration_;
    registry::family& result_bytes_;
    registry::family& outcomes_;
    registry::family& partial_;
    registry::family& gaps_;
    registry::family& warnings_;
    registry::family& issues_;
    registry::family& external_issues_;
    registry::family& gate_refusals_;
    registry::family& server_errors_;
    registry::family& repairs_;
    registry::family& repair_successes_;
    registry::family& refused_actions_;
    registry::family& protocol_refusals_;
    registry::family& limits_;
    registry::family& bytes_in_;
    registry::family& bytes_out_;
    registry::family& in_flight_;
    registry::family& sessions_;
    registry::family& idle_sessions_;
    registry::family& journal_dropped_;
    registry::family& log_dropped_;
    registry::family& build_info_;
    // Read from the kernel at each scrape, and exposed only when that worked.
    registry process_reg_;
    registry::family& cpu_seconds_;
    registry::family& resident_bytes_;
    registry::family& virtual_bytes_;
    registry::family& open_fds_;
    registry::family& max_fds_;
    registry::family& start_time_;
    detail::sharded_count in_flight_count_;  // changed by every call: each thread its own
    std::atomic<std::int64_t> session_count_{0};
    // Open sessions that have made no request since `initialize`, by key: when each opened.
    mutable std::mutex unused_mu_;
    std::unordered_map<std::uintptr_t, std::chrono::steady_clock::time_point> unused_sessions_;
};

/// True for a call that was a refused action: a tool that writes (not read-only) answered
/// with an error, or any call stopped by an evidence gate.
bool is_refused_action(const mcp::call_record& r);

}  // namespace candor::ops
