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
#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace candor::ops {

/// A label value as exposed: at most 64 bytes of [A-Za-z0-9._/:-]; anything else becomes '_'.
std::string label_value(std::string_view raw);

class registry {
public:
    enum class type { counter, gauge, histogram };

    /// One metric family. Thread-safe.
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
        series_data& find(label_values labels);

        std::string name_;
        std::string help_;
        type type_;
        std::vector<std::string> labels_;
        std::vector<double> buckets_;
        std::size_t max_series_;
        mutable std::mutex mu_;
        std::map<std::vector<std::string>, series_data, labels_less> series_;
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

/// The standard catalogue (docs/operations.md), fed by call records. Thread-safe.
class call_metrics : public mcp::call_observer {
public:
    call_metrics();

    void on_call_started() override;
    void on_call_finished() override;
    void on_record(const mcp::call_record& r) override;
    void on_session(bool opened) override;
    bool reads_envelope_metadata() const noexcept override { return false; }

    /// Count lines the journal dropped (exposed as `candor_journal_dropped_total`).
    void set_journal_drops(std::uint64_t n);

    std::string exposition() const;

private:
    registry reg_;
    registry::family& calls_;
    registry::family& duration_;
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
    registry::family& journal_dropped_;
    std::atomic<std::int64_t> in_flight_count_{0};
    std::atomic<std::int64_t> session_count_{0};
};

/// True for a call that was a refused action: a tool that writes (not read-only) answered
/// with an error, or any call stopped by an evidence gate.
bool is_refused_action(const mcp::call_record& r);

}  // namespace candor::ops
