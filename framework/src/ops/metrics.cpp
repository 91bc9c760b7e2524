// SPDX-License-Identifier: BSL-1.0
#include <candor/ops/metrics.hpp>

#include <candor/mcp/version.hpp>
#include <candor/ops/outcome.hpp>
#include <candor/ops/process.hpp>

#include <boost/container/small_vector.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace candor::ops {

namespace {

constexpr std::size_t max_label_bytes = 64;

bool exposable(char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-' || c == '/' || c == ':';
}

/// `v` is exposed as it is (`label_value(v) == v`).
bool exposed_as_is(std::string_view v) noexcept {
    return v.size() <= max_label_bytes && std::all_of(v.begin(), v.end(), exposable);
}

// Shortest round-tripping text of a sample value, as the exposition format wants it.
std::string number(double v) {
    if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
    if (std::isnan(v)) return "NaN";
    if (v == std::floor(v) && std::fabs(v) < 1e15) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.0f", v);
        return buf;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    // Prefer the shortest text that reads back as the same double.
    for (int p = 1; p <= 17; ++p) {
        char t[32];
        std::snprintf(t, sizeof t, "%.*g", p, v);
        if (std::strtod(t, nullptr) == v) return t;
    }
    return buf;
}

void write_labels(std::string& out, const std::vector<std::string>& names, const std::vector<std::string>& values,
                  std::string_view extra_name = {}, std::string_view extra_value = {}) {
    if (names.empty() && extra_name.empty()) return;
    out += '{';
    bool first = true;
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (!first) out += ',';
        first = false;
        out += names[i];
        out += "=\"";
        out += values[i];
        out += '"';
    }
    if (!extra_name.empty()) {
        if (!first) out += ',';
        out += extra_name;
        out += "=\"";
        out += extra_value;
        out += '"';
    }
    out += '}';
}

// Result sizes around the budgets that matter: clients that cut at 10,000 and 25,000 characters,
// the default budget of 24,000 bytes.
const std::vector<double> result_bytes_buckets = {1024,   2048,   4096,   8192,   10'000,  16'384,
                                                  24'000, 25'000, 32'768, 65'536, 262'144, 1'048'576};
const std::vector<double> duration_buckets = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                              0.25,   0.5,   1,      2.5,   5,    10,    30};

}  // namespace

std::string label_value(std::string_view raw) {
    std::string out;
    out.reserve(std::min(raw.size(), max_label_bytes));
    for (char c : raw.substr(0, max_label_bytes)) out += exposable(c) ? c : '_';
    return out;
}

// ---------------------------------------------------------------------------------------------
// registry

registry::family::family(std::string name, std::string help, type t, std::vector<std::string> labels,
                         std::vector<double> buckets, std::size_t max_series)
    : name_(std::move(name)),
      help_(std::move(help)),
      type_(t),
      labels_(std::move(labels)),
      buckets_(std::move(buckets)),
      max_series_(std::max<std::size_t>(max_series, 1)),
      shards_(std::make_unique<shard[]>(shard_count)) {}

std::size_t detail::thread_shard() noexcept {
    static std::atomic<std::size_t> next{0};
    thread_local const std::size_t index = next.fetch_add(1, std::memory_order_relaxed) % thread_shards;
    return index;
}

registry::family::shard& registry::family::mine() {
    if (type_ == type::gauge) return shards_[0];
    return shards_[detail::thread_shard()];
}

std::vector<std::string> registry::family::admit(std::vector<std::string> wanted) {
    std::lock_guard lock(known_mu_);
    if (known_.contains(wanted)) return wanted;
    if (known_.size() + 1 >= max_series_) {
        // Full: one last series takes every label set not seen before.
        wanted.assign(labels_.size(), "other");
    }
    known_.insert(wanted);
    return wanted;
}

registry::family::series_data& registry::family::find(shard& sh, label_values raw) {
    // The common case: every value is already what `label_value` would make of it, so the
    // series is looked up with the values as they are; nothing is allocated for a series held.
    boost::container::small_vector<std::string_view, 4> wanted;
    wanted.reserve(labels_.size());
    bool as_is = true;
    for (std::size_t i = 0; i < labels_.size(); ++i) {
        const std::string_view v = i < raw.size() ? raw.begin()[i] : std::string_view();
        as_is = as_is && exposed_as_is(v);
        wanted.push_back(v);
    }
    if (as_is) {
        if (auto it = sh.series.find(wanted); it != sh.series.end()) return it->second;
    }
    std::vector<std::string> labels;
    labels.reserve(labels_.size());
    for (std::string_view v : wanted) labels.push_back(label_value(v));
    if (auto it = sh.series.find(labels); it != sh.series.end()) return it->second;
    labels = admit(std::move(labels));
    auto it = sh.series.find(labels);
    if (it != sh.series.end()) return it->second;
    series_data fresh;
    fresh.bucket_counts.assign(buckets_.size(), 0);
    return sh.series.emplace(std::move(labels), std::move(fresh)).first->second;
}

void registry::family::add(label_values labels, double v) {
    auto& sh = mine();
    std::lock_guard lock(sh.mu);
    find(sh, labels).value += v;
}

void registry::family::set(label_values labels, double v) {
    auto& sh = mine();
    std::lock_guard lock(sh.mu);
    find(sh, labels).value = v;
}

void registry::family::observe(label_values labels, double v) {
    auto& sh = mine();
    std::lock_guard lock(sh.mu);
    auto& s = find(sh, labels);
    for (std::size_t i = 0; i < buckets_.size(); ++i)
        if (v <= buckets_[i]) ++s.bucket_counts[i];
    s.sum += v;
    ++s.count;
}

std::size_t registry::family::series() const {
    std::lock_guard lock(known_mu_);
    return known_.size();
}

void registry::family::write(std::string& out) const {
    static constexpr std::string_view type_names[] = {"counter", "gauge", "histogram"};
    out += "# HELP " + name_ + " " + help_ + "\n";
    out += "# TYPE " + name_ + " ";
    out += type_names[static_cast<int>(type_)];
    out += '\n';
    // The shards summed, one at a time under its own lock.
    series_map merged;
    for (std::size_t k = 0; k < shard_count; ++k) {
        const auto& sh = shards_[k];
        std::lock_guard lock(sh.mu);
        for (const auto& [labels, s] : sh.series) {
            auto [it, fresh] = merged.try_emplace(labels, s);
            if (fresh) continue;
            auto& m = it->second;
            m.value += s.value;
            for (std::size_t i = 0; i < m.bucket_counts.size(); ++i) m.bucket_counts[i] += s.bucket_counts[i];
            m.sum += s.sum;
            m.count += s.count;
        }
    }
    if (merged.empty() && labels_.empty() && type_ != type::histogram) {
        out += name_ + " 0\n";
        return;
    }
    for (const auto& [labels, s] : merged) {
        if (type_ != type::histogram) {
            out += name_;
            write_labels(out, labels_, labels);
            out += ' ' + number(s.value) + '\n';
            continue;
        }
        for (std::size_t i = 0; i < buckets_.size(); ++i) {
            out += name_ + "_bucket";
            write_labels(out, labels_, labels, "le", number(buckets_[i]));
            out += ' ' + std::to_string(s.bucket_counts[i]) + '\n';
        }
        out += name_ + "_bucket";
        write_labels(out, labels_, labels, "le", "+Inf");
        out += ' ' + std::to_string(s.count) + '\n';
        out += name_ + "_sum";
        write_labels(out, labels_, labels);
        out += ' ' + number(s.sum) + '\n';
        out += name_ + "_count";
        write_labels(out, labels_, labels);
        out += ' ' + std::to_string(s.count) + '\n';
    }
}

registry::family& registry::counter(std::string name, std::string help, std::vector<std::string> labels,
                                    std::size_t max_series) {
    families_.push_back(std::make_unique<family>(std::move(name), std::move(help), type::counter, std::move(labels),
                                                 std::vector<double>{}, max_series));
    return *families_.back();
}

registry::family& registry::gauge(std::string name, std::string help, std::vector<std::string> labels,
                                  std::size_t max_series) {
    families_.push_back(std::make_unique<family>(std::move(name), std::move(help), type::gauge, std::move(labels),
                                                 std::vector<double>{}, max_series));
    return *families_.back();
}

registry::family& registry::histogram(std::string name, std::string help, std::vector<std::string> labels,
                                      std::vector<double> buckets, std::size_t max_series) {
    std::sort(buckets.begin(), buckets.end());
    families_.push_back(std::make_unique<family>(std::move(name), std::move(help), type::histogram, std::move(labels),
                                                 std::move(buckets), max_series));
    return *families_.back();
}

std::string registry::exposition() const {
    std::string out;
    for (const auto& f : families_) f->write(out);
    return out;
}

// ---------------------------------------------------------------------------------------------
// call_metrics

bool is_refused_action(const mcp::call_record& r) {
    if (!r.evidence_verdict.empty() && r.evidence_verdict.rfind("EVIDENCE_", 0) == 0) return true;
    return r.what == mcp::call_record::kind::tool_call && r.status == "error" && !r.action_class.empty() &&
           r.action_class != "read_only";
}

call_metrics::call_metrics(metrics_options opts)
    : opts_(std::move(opts)),
      calls_(reg_.counter("candor_tool_calls_total", "Tool calls answered, by tool, envelope status and client name.",
                          {"tool", "status", "client"})),
      duration_(reg_.histogram("candor_tool_call_duration_seconds",
                               "Time from the arrival of a tools/call to its answer.", {"tool"}, duration_buckets)),
      result_bytes_(reg_.histogram("candor_result_bytes",
                                   "Bytes of each tool call's answer as written (both copies of the envelope), by "
                                   "tool: how close results come to their byte budget.",
                                   {"tool"}, result_bytes_buckets)),
      outcomes_(reg_.counter("candor_tool_call_outcomes_total",
                             "Tool calls answered, by tool and outcome: complete, paged (incomplete only because more "
                             "pages follow), incomplete (a real gap), error, content, content_error.",
                             {"tool", "outcome"})),
      partial_(reg_.counter("candor_partial_results_total",
                            "Reasons of incomplete results, by tool and reason code, paging included.",
                            {"tool", "reason"})),
      gaps_(reg_.counter("candor_result_gaps_total",
                         "Reasons of incomplete results that are real gaps (every reason but MORE_PAGES_AVAILABLE), "
                         "by tool and reason code.",
                         {"tool", "reason"})),
      warnings_(reg_.counter("candor_result_warnings_total", "Warnings on results, by tool and warning code.",
                             {"tool", "warning"})),
      issues_(reg_.counter("candor_argument_issues_total",
                           "Argument issues (layers intake, contract, business) in error envelopes, by tool, issue "
                           "code, layer and client name.",
                           {"tool", "code", "layer", "client"})),
      external_issues_(reg_.counter("candor_external_issues_total",
                                    "Issues of external checks and sources in error envelopes, by tool, issue code "
                                    "and client name.",
                                    {"tool", "code", "client"})),
      gate_refusals_(reg_.counter("candor_gate_refusals_total",
                                  "Calls stopped at an evidence gate or an approval step, by tool, gate (evidence, "
                                  "approval) and issue code.",
                                  {"tool", "gate", "code"})),
      server_errors_(reg_.counter("candor_server_errors_total",
                                  "The server's own failures (INTERNAL_ERROR, DEADLINE_EXCEEDED, "
                                  "TOO_MANY_CALLS_IN_FLIGHT), by tool and code.",
                                  {"tool", "code"})),
      repairs_(reg_.counter("candor_repair_attempts_total",
                            "Calls that follow a refusal with repairable issues only (repair attempts).", {"tool"})),
      repair_successes_(
          reg_.counter("candor_repair_successes_total", "Repair attempts that were not refused again.", {"tool"})),
      refused_actions_(reg_.counter("candor_refused_actions_total",
                                    "Actions refused: write tools answered with an error, or evidence gates that "
                                    "refused, by tool and first code.",
                                    {"tool", "code"})),
      protocol_refusals_(reg_.counter("candor_protocol_refusals_total",
                                      "Messages refused with a JSON-RPC error, by method and error code.",
                                      {"method", "code"})),
      limits_(reg_.counter("candor_limits_hit_total", "Limits that stopped or cut a call, by code.", {"code"})),
      bytes_in_(reg_.counter("candor_received_bytes_total", "Bytes of the messages answered, by tool.", {"tool"})),
      bytes_out_(reg_.counter("candor_sent_bytes_total", "Bytes of the answers sent, by tool.", {"tool"})),
      in_flight_(reg_.gauge("candor_calls_in_flight", "Tool calls running now.")),
      sessions_(reg_.gauge("candor_sessions", "Initialized client sessions open now.")),
      idle_sessions_(reg_.gauge("candor_sessions_idle",
                                "Open sessions that have made no request since initialize for the idle threshold "
                                "(60 s unless set) or longer: clients that opened a session and left it.")),
      journal_dropped_(
          reg_.counter("candor_journal_dropped_total", "Journal lines dropped because the writer's queue was full.")),
      log_dropped_(reg_.counter("candor_log_dropped_total",
                                "Lines of the server's log dropped because the writer's queue was full.")),
      build_info_(reg_.gauge("candor_build_info",
                             "Always 1: the Candor version and the server's name and version as labels.",
                             {"version", "server", "server_version"})),
      cpu_seconds_(
          process_reg_.counter("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.")),
      resident_bytes_(process_reg_.gauge("process_resident_memory_bytes", "Resident memory size in bytes.")),
      virtual_bytes_(process_reg_.gauge("process_virtual_memory_bytes", "Virtual memory size in bytes.")),
      open_fds_(process_reg_.gauge("process_open_fds", "Number of open file descriptors.")),
      max_fds_(process_reg_.gauge("process_max_fds", "Maximum number of open file descriptors.")),
      start_time_(
          process_reg_.gauge("process_start_time_seconds", "Start time of the process since unix epoch in seconds.")) {
    const auto or_dash = [](const std::string& s) { return s.empty() ? std::string_view("-") : std::string_view(s); };
    build_info_.set({candor::version(), or_dash(opts_.server_name), or_dash(opts_.server_version)}, 1);
}

// The gauges are read from their atomics when scraped: setting them here could interleave.
void call_metrics::on_call_started() { in_flight_count_.add(1); }
void call_metrics::on_call_finished() { in_flight_count_.add(-1); }
void call_metrics::on_session_event(const mcp::session_event& e) {
    using kind = mcp::session_event::kind;
    if (e.what == kind::opened) ++session_count_;
    if (e.what == kind::closed) --session_count_;
    std::lock_guard lock(unused_mu_);
    if (e.what == kind::opened) unused_sessions_[e.key] = std::chrono::steady_clock::now();
    else unused_sessions_.erase(e.key);
}

void call_metrics::set_journal_drops(std::uint64_t n) { journal_dropped_.set({}, static_cast<double>(n)); }
void call_metrics::set_log_drops(std::uint64_t n) { log_dropped_.set({}, static_cast<double>(n)); }

void call_metrics::on_record(const mcp::call_record& r) {
    const std::string_view tool = r.tool.empty() ? std::string_view("-") : std::string_view(r.tool);
    // A call that became a task has two records, one when the task is made (status "task") and
    // one at its end (the end's copy of the first). Its exchange — the request, the reply that
    // named the task, the limits met on the way — counts at the first; the call, its outcome and
    // its duration at the end: a task is one call.
    const bool task_made = !r.task_id.empty() && r.status == "task";
    const bool task_ended = !r.task_id.empty() && !task_made;
    if (!task_ended) {
        bytes_in_.add({tool}, static_cast<double>(r.bytes_in));
        bytes_out_.add({tool}, static_cast<double>(r.bytes_out));
        for (const auto& l : r.limits) limits_.add({l.code});
    }
    if (r.what == mcp::call_record::kind::protocol_refusal) {
        protocol_refusals_.add({r.method, std::to_string(r.rpc_error.value_or(0))});
        return;
    }
    if (task_made) return;
    const std::string_view client = r.client_name.empty() ? std::string_view("-") : std::string_view(r.client_name);
    calls_.add({tool, r.status, client});
    duration_.observe({tool}, std::chrono::duration<double>(r.duration).count());
    // A task's result goes out in the answer to tasks/get, which no record measures.
    if (!task_ended) result_bytes_.observe({tool}, static_cast<double>(r.bytes_out));
    outcomes_.add({tool, to_string(outcome_of(r))});
    for (const auto& c : r.reason_codes) {
        partial_.add({tool, c});
        if (!is_paging_reason(c)) gaps_.add({tool, c});
    }
    for (const auto& c : r.warning_codes) warnings_.add({tool, c});
    for (const auto& i : r.issues) {
        const auto layer = to_string(i.where);
        switch (const auto group = group_of(i.code, layer)) {
            case issue_group::argument: issues_.add({tool, i.code, layer, client}); break;
            case issue_group::external: external_issues_.add({tool, i.code, client}); break;
            case issue_group::evidence:
            case issue_group::approval: gate_refusals_.add({tool, to_string(group), i.code}); break;
            case issue_group::server: server_errors_.add({tool, i.code}); break;
        }
    }
    if (r.repair_attempt > 0) {
        repairs_.add({tool});
        if (r.status != "error") repair_successes_.add({tool});
    }
    if (is_refused_action(r))
        refused_actions_.add(
            {tool, r.issues.empty() ? std::string_view("-") : std::string_view(r.issues.front().code)});
}

std::string call_metrics::exposition() const {
    // The shards are read one after the other: a call that started on one thread and ended on
    // another between two of the reads would count -1; the gauge says 0 then.
    in_flight_.set({}, static_cast<double>(std::max<std::int64_t>(in_flight_count_.sum(), 0)));
    sessions_.set({}, static_cast<double>(session_count_.load()));
    {
        const auto now = std::chrono::steady_clock::now();
        std::lock_guard lock(unused_mu_);
        const auto idle = std::count_if(unused_sessions_.begin(), unused_sessions_.end(),
                                        [&](const auto& s) { return now - s.second >= opts_.session_idle_after; });
        idle_sessions_.set({}, static_cast<double>(idle));
    }
    auto out = reg_.exposition();
    if (!opts_.process_metrics) return out;
    if (auto p = read_process_stats()) {
        cpu_seconds_.set({}, p->cpu_seconds);
        resident_bytes_.set({}, static_cast<double>(p->resident_bytes));
        virtual_bytes_.set({}, static_cast<double>(p->virtual_bytes));
        open_fds_.set({}, static_cast<double>(p->open_fds));
        max_fds_.set({}, static_cast<double>(p->max_fds));
        start_time_.set({}, p->start_time_seconds);
        out += process_reg_.exposition();
    }
    return out;
}

}  // namespace candor::ops
