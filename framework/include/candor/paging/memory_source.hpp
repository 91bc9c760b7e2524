// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// An in-memory, multi-version data source: pinned snapshots by version number, or a live
/// view; inserts, updates (also of the sort key) and deletes between pages; a visibility rule
/// per principal; and hooks to inject failures and to charge time per scanned row. For tests,
/// benchmarks and examples; seeking to a key is O(log n), so the cost of a page does not
/// depend on its position.

#include <candor/paging/source.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace candor::paging {

class memory_source : public data_source {
public:
    using steady_time_point = std::chrono::steady_clock::time_point;
    /// May this principal see this item? Default: everyone sees everything.
    using visibility_rule = std::function<bool(const boost::json::object& item, const mcp::principal& caller)>;
    /// Called before each fetch (call number from 0); an error makes that fetch fail.
    using fault_hook = std::function<std::optional<source_error>(std::size_t call)>;
    /// Called for each row examined (a test advances its clock here).
    using scan_hook = std::function<void()>;

    memory_source(std::string name, ordering order, snapshot_mode mode);

    std::string_view name() const noexcept override { return name_; }
    snapshot_mode snapshots() const noexcept override { return mode_; }

    /// Insert or replace the item with the same key (a new version). Thread-safe.
    void put(boost::json::object item);
    /// Delete the item with this key (a new version). @return whether it existed
    bool erase(const boost::json::array& key);
    /// Versions older than this can no longer be read (`snapshot_gone`).
    void forget_versions_before(std::uint64_t version);
    std::uint64_t version() const;
    /// The items visible at `version` in order (test oracles).
    std::vector<boost::json::object> items_at(std::uint64_t version) const;

    void set_visibility(visibility_rule v) { visibility_ = std::move(v); }
    void set_fault(fault_hook f) { fault_ = std::move(f); }
    void set_scan_hook(scan_hook h, std::function<steady_time_point()> clock);

    boost::asio::awaitable<boost::system::result<std::string, source_error>> open_snapshot(
        const boost::json::object& query, const mcp::principal& caller) override;
    boost::asio::awaitable<boost::system::result<fetch_result, source_error>> fetch(
        const fetch_request& request) override;

    /// Synchronous core of `fetch` (benchmarks).
    boost::system::result<fetch_result, source_error> fetch_now(const fetch_request& request);

private:
    struct version_entry {
        std::uint64_t from = 0;
        std::uint64_t to = UINT64_MAX;  // exclusive; max while current
        boost::json::object value;
    };
    struct key_less {
        bool operator()(const boost::json::array& a, const boost::json::array& b) const noexcept {
            return compare_keys(a, b) < 0;
        }
    };
    boost::json::array key_of(const boost::json::object& item) const;
    const version_entry* at_version(const std::vector<version_entry>& versions, std::uint64_t v) const;

    std::string name_;
    ordering order_;
    snapshot_mode mode_;
    mutable std::mutex mutex_;
    std::map<boost::json::array, std::vector<version_entry>, key_less> rows_;
    std::uint64_t version_ = 1;
    std::uint64_t oldest_ = 0;
    std::size_t calls_ = 0;
    visibility_rule visibility_;
    fault_hook fault_;
    scan_hook scan_;
    std::function<steady_time_point()> clock_;
};

}  // namespace candor::paging
