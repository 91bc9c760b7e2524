// SPDX-License-Identifier: BSL-1.0
#include "commands/inspect.hpp"

#include <candor/json/intake.hpp>
#include <candor/json/write.hpp>
#include <candor/ops/journal.hpp>
#include <candor/ops/outcome.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace candor::cli {

namespace {

namespace bj = boost::json;
namespace jf = candor::ops::journal_field;

constexpr std::string_view help = R"HELP(usage: candor inspect JOURNAL [--since TIME] [--tool NAME] [--json]

Summarizes a call journal (written by a server run with --journal PATH; '-' reads stdin):
calls per tool (complete, paged, incomplete, error), the reasons of real gaps (paging
apart), argument issues by client, external/gate/server issues, repair rate and repair
success rate, refused actions and why, refused protocol messages.

A result that is incomplete only because more pages follow (MORE_PAGES_AVAILABLE) is
"paged" and counts as complete in complete%; any other reason is a real gap.

  --since TIME   only lines at or after TIME (RFC 3339 UTC or a prefix of it, as written in
                 the journal: 2026-11-29, 2026-11-29T16:30, 2026-11-29T16:30:05.120Z)
  --tool NAME    only calls of tool NAME
  --json         one JSON object instead of tables

The journal is read line by line: memory stays bounded whatever its size (each table keeps
at most 1000 keys; the rest are counted under "(other)"). Lines that are not journal records
are counted as skipped.
)HELP";

constexpr std::size_t max_keys = 1000;
constexpr std::size_t max_line = 1u << 20;
constexpr std::size_t top_rows = 15;

// A count per key that never holds more than `max_keys` keys.
class bounded_counts {
public:
    void add(const std::string& key, std::uint64_t n = 1) {
        auto it = counts_.find(key);
        if (it == counts_.end()) {
            if (counts_.size() + 1 >= max_keys) it = counts_.try_emplace("(other)", 0).first;
            else it = counts_.emplace(key, 0).first;
        }
        it->second += n;
    }
    std::vector<std::pair<std::string, std::uint64_t>> top(std::size_t n) const {
        std::vector<std::pair<std::string, std::uint64_t>> v(counts_.begin(), counts_.end());
        std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
        if (v.size() > n) v.resize(n);
        return v;
    }
    std::size_t size() const { return counts_.size(); }

private:
    std::map<std::string, std::uint64_t> counts_;
};

struct tool_stats {
    std::uint64_t calls = 0, complete = 0, paged = 0, incomplete = 0, error = 0, other = 0;
    double duration_ms = 0, max_ms = 0;
};

struct summary {
    std::uint64_t lines = 0, records = 0, skipped = 0, tool_calls = 0, protocol_refusals = 0;
    std::uint64_t repairable_refusals = 0, repair_attempts = 0, repair_successes = 0;
    std::string first, last;
    std::map<std::string, tool_stats> tools;  // bounded by hand (max_keys)
    // `reasons`: of real gaps only; `other_issues`: "group\tcode" of issues outside the argument layers.
    bounded_counts reasons, warnings, issues_by_client, other_issues, refused_actions, protocol, limits;
};

std::string_view str(const bj::object& o, std::string_view key) {
    const auto* v = o.if_contains(key);
    return v && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

double num(const bj::object& o, std::string_view key) {
    const auto* v = o.if_contains(key);
    if (!v) return 0;
    if (v->is_double()) return v->get_double();
    if (v->is_int64()) return static_cast<double>(v->get_int64());
    if (v->is_uint64()) return static_cast<double>(v->get_uint64());
    return 0;
}

const bj::array* arr(const bj::object& o, std::string_view key) {
    const auto* v = o.if_contains(key);
    return v && v->is_array() ? &v->get_array() : nullptr;
}

void take(summary& s, const bj::object& r) {
    ++s.records;
    const auto time = str(r, jf::time);
    if (s.first.empty() || time < s.first) s.first = std::string(time);
    if (time > s.last) s.last = std::string(time);
    const auto kind = str(r, jf::kind);
    if (const auto* limits = arr(r, jf::limits))
        for (const auto& l : *limits)
            if (l.is_object()) s.limits.add(std::string(str(l.get_object(), jf::code)));
    if (kind == jf::kind_protocol_refusal) {
        ++s.protocol_refusals;
        const auto* code = r.if_contains(jf::rpc_error);
        s.protocol.add(std::string(str(r, jf::method)) + " " +
                       (code && code->is_int64() ? std::to_string(code->get_int64()) : "?"));
        return;
    }
    ++s.tool_calls;
    std::string tool(str(r, jf::tool));
    if (!s.tools.count(tool) && s.tools.size() + 1 >= max_keys) tool = "(other)";
    auto& t = s.tools[tool];
    const auto status = str(r, jf::status);
    ++t.calls;
    // Computed from the status and the reasons, not read from `outcome`: journals written
    // before that field existed are summarized alike.
    bool gap = false;
    std::size_t reasons = 0;
    if (const auto* a = arr(r, jf::reasons))
        for (const auto& c : *a) {
            if (!c.is_string()) continue;
            ++reasons;
            if (ops::is_paging_reason(c.get_string())) continue;
            gap = true;
            s.reasons.add(std::string(c.get_string()));
        }
    if (status == "complete") ++t.complete;
    else if (status == "partial") ++(gap || reasons == 0 ? t.incomplete : t.paged);
    else if (status == "error") ++t.error;
    else ++t.other;
    const double ms = num(r, jf::duration_ms);
    t.duration_ms += ms;
    t.max_ms = std::max(t.max_ms, ms);
    if (const auto* a = arr(r, jf::warnings))
        for (const auto& c : *a)
            if (c.is_string()) s.warnings.add(std::string(c.get_string()));
    const std::string client = str(r, jf::client_name).empty() ? "-" : std::string(str(r, jf::client_name));
    bool all_repairable = status == "error";
    std::string first_code;
    std::size_t issues = 0;
    if (const auto* a = arr(r, jf::issues)) {
        for (const auto& i : *a) {
            if (!i.is_object()) continue;
            const auto& io = i.get_object();
            const auto code = str(io, jf::code);
            if (first_code.empty()) first_code = std::string(code);
            ++issues;
            const auto group = ops::group_of(code, str(io, jf::layer));
            if (group == ops::issue_group::argument) s.issues_by_client.add(client + "\t" + std::string(code));
            else s.other_issues.add(std::string(ops::to_string(group)) + "\t" + std::string(code));
            const auto* rep = io.if_contains(jf::repairable);
            if (!rep || !rep->is_bool() || !rep->get_bool()) all_repairable = false;
        }
    }
    if (all_repairable && issues > 0) ++s.repairable_refusals;
    if (num(r, jf::repair_attempt) > 0) {
        ++s.repair_attempts;
        if (status != "error") ++s.repair_successes;
    }
    const auto action = str(r, jf::action_class);
    const auto evidence = str(r, jf::evidence_verdict);
    const bool refused =
        evidence.substr(0, 9) == "EVIDENCE_" || (status == "error" && !action.empty() && action != "read_only");
    if (refused) s.refused_actions.add(tool + "\t" + (first_code.empty() ? "-" : first_code));
}

double ratio(std::uint64_t a, std::uint64_t b) { return b ? static_cast<double>(a) / static_cast<double>(b) : 0.0; }

// Results (errors apart) without a real gap: a page that other pages follow is whole.
std::uint64_t gap_free(const tool_stats& t) { return t.complete + t.paged; }
std::uint64_t results(const tool_stats& t) { return t.complete + t.paged + t.incomplete; }

std::string percent(std::uint64_t a, std::uint64_t b) {
    if (!b) return "-";
    char buf[16];
    std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * ratio(a, b));
    return buf;
}

void print_table(const std::string& title, const std::vector<std::string>& head,
                 const std::vector<std::vector<std::string>>& rows) {
    std::cout << "\n" << title << "\n";
    if (rows.empty()) {
        std::cout << "  (none)\n";
        return;
    }
    std::vector<std::size_t> w(head.size());
    for (std::size_t c = 0; c < head.size(); ++c) w[c] = head[c].size();
    for (const auto& r : rows)
        for (std::size_t c = 0; c < r.size() && c < w.size(); ++c) w[c] = std::max(w[c], r[c].size());
    auto line = [&](const std::vector<std::string>& cells) {
        std::cout << " ";
        for (std::size_t c = 0; c < cells.size(); ++c) {
            std::cout << " " << cells[c];
            if (c + 1 < cells.size()) std::cout << std::string(w[c] - cells[c].size(), ' ');
        }
        std::cout << "\n";
    };
    line(head);
    for (const auto& r : rows) line(r);
}

std::pair<std::string, std::string> split_tab(const std::string& k) {
    const auto t = k.find('\t');
    if (t == std::string::npos) return {k, k};  // "(other)" stands for both columns
    return {k.substr(0, t), k.substr(t + 1)};
}

bj::array pairs_json(const bounded_counts& c, std::string_view a, std::string_view b) {
    bj::array out;
    for (const auto& [k, n] : c.top(top_rows)) {
        auto [x, y] = split_tab(k);
        bj::object o{{a, x}};
        if (!b.empty()) o[b] = y;
        o["count"] = n;
        out.push_back(std::move(o));
    }
    return out;
}

void print_json(const summary& s) {
    bj::object o;
    o["lines"] = s.lines;
    o["records"] = s.records;
    o["skipped"] = s.skipped;
    o["first"] = s.first;
    o["last"] = s.last;
    o["tool_calls"] = s.tool_calls;
    o["protocol_refusals"] = s.protocol_refusals;
    bj::array tools;
    for (const auto& [name, t] : s.tools)
        tools.push_back(bj::object{{"tool", name},
                                   {"calls", t.calls},
                                   {"complete", t.complete},
                                   {"paged", t.paged},
                                   {"incomplete", t.incomplete},
                                   {"partial", t.paged + t.incomplete},
                                   {"error", t.error},
                                   {"complete_rate", ratio(gap_free(t), results(t))},
                                   {"other", t.other},
                                   {"mean_ms", t.calls ? t.duration_ms / static_cast<double>(t.calls) : 0.0},
                                   {"max_ms", t.max_ms}});
    o["tools"] = std::move(tools);
    o["reasons"] = pairs_json(s.reasons, "code", "");
    o["warnings"] = pairs_json(s.warnings, "code", "");
    o["issues_by_client"] = pairs_json(s.issues_by_client, "client", "code");
    o["other_issues"] = pairs_json(s.other_issues, "group", "code");
    o["repair"] = bj::object{{"repairable_refusals", s.repairable_refusals},
                             {"attempts", s.repair_attempts},
                             {"successes", s.repair_successes},
                             {"repair_rate", ratio(s.repair_attempts, s.repairable_refusals)},
                             {"success_rate", ratio(s.repair_successes, s.repair_attempts)}};
    o["refused_actions"] = pairs_json(s.refused_actions, "tool", "code");
    o["protocol"] = pairs_json(s.protocol, "refusal", "");
    o["limits"] = pairs_json(s.limits, "code", "");
    std::cout << json::to_string(o).value() << "\n";
}

void print_tables(const summary& s) {
    std::cout << s.records << " records (" << s.tool_calls << " tool calls, " << s.protocol_refusals
              << " refused messages)";
    if (!s.first.empty()) std::cout << " from " << s.first << " to " << s.last;
    if (s.skipped) std::cout << "; " << s.skipped << " lines skipped";
    std::cout << "\n";
    std::vector<std::vector<std::string>> rows;
    for (const auto& [name, t] : s.tools) {
        char mean[32];
        std::snprintf(mean, sizeof mean, "%.2f", t.calls ? t.duration_ms / static_cast<double>(t.calls) : 0.0);
        rows.push_back({name, std::to_string(t.calls), std::to_string(t.complete), std::to_string(t.paged),
                        std::to_string(t.incomplete), std::to_string(t.error), percent(gap_free(t), results(t)), mean});
    }
    print_table("Calls per tool (complete% = results without a real gap; paged results count as complete)",
                {"tool", "calls", "complete", "paged", "incomplete", "error", "complete%", "mean ms"}, rows);
    rows.clear();
    for (const auto& [k, n] : s.reasons.top(top_rows)) rows.push_back({k, std::to_string(n)});
    print_table("Top reason codes of real gaps (MORE_PAGES_AVAILABLE apart)", {"reason", "count"}, rows);
    rows.clear();
    for (const auto& [k, n] : s.issues_by_client.top(top_rows)) {
        auto [client, code] = split_tab(k);
        rows.push_back({client, code, std::to_string(n)});
    }
    print_table("Top argument issue codes by client (intake, contract, business)", {"client", "code", "count"}, rows);
    rows.clear();
    for (const auto& [k, n] : s.other_issues.top(top_rows)) {
        auto [group, code] = split_tab(k);
        rows.push_back({group, code, std::to_string(n)});
    }
    print_table("External checks, gates and server failures", {"group", "code", "count"}, rows);
    print_table("Repairs", {"repairable refusals", "repair attempts", "repair rate", "successes", "success rate"},
                {{std::to_string(s.repairable_refusals), std::to_string(s.repair_attempts),
                  percent(s.repair_attempts, s.repairable_refusals), std::to_string(s.repair_successes),
                  percent(s.repair_successes, s.repair_attempts)}});
    rows.clear();
    for (const auto& [k, n] : s.refused_actions.top(top_rows)) {
        auto [tool, code] = split_tab(k);
        rows.push_back({tool, code, std::to_string(n)});
    }
    print_table("Refused actions and why", {"tool", "code", "count"}, rows);
    rows.clear();
    for (const auto& [k, n] : s.protocol.top(top_rows)) rows.push_back({k, std::to_string(n)});
    print_table("Refused protocol messages", {"method code", "count"}, rows);
    rows.clear();
    for (const auto& [k, n] : s.limits.top(top_rows)) rows.push_back({k, std::to_string(n)});
    print_table("Limits hit", {"code", "count"}, rows);
}

}  // namespace

int run_inspect(int argc, char** argv) {
    std::string path, since, tool;
    bool as_json = false;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--help" || arg == "-h") {
            std::cout << help;
            return 0;
        }
        if (arg == "--json") {
            as_json = true;
        } else if (arg == "--since" || arg == "--tool") {
            if (i + 1 >= argc) {
                std::cerr << "candor inspect: " << arg << " needs a value\n";
                return 2;
            }
            (arg == "--since" ? since : tool) = argv[++i];
        } else if (arg.size() > 1 && arg.front() == '-') {
            std::cerr << "candor inspect: unknown option '" << arg << "'\n" << help;
            return 2;
        } else if (path.empty()) {
            path = std::string(arg);
        } else {
            std::cerr << "candor inspect: one journal at a time\n";
            return 2;
        }
    }
    if (path.empty()) {
        std::cerr << help;
        return 2;
    }
    std::FILE* f = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
    if (!f) {
        std::cerr << "candor inspect: cannot read '" << path << "'\n";
        return 1;
    }
    summary s;
    json::limits lim;
    lim.max_bytes = max_line;
    lim.max_depth = 8;
    lim.max_nodes = 100'000;
    std::string line;
    bool overlong = false;
    char buf[64 * 1024];
    auto finish_line = [&] {
        if (line.empty() && !overlong) return;
        ++s.lines;
        if (overlong) {
            ++s.skipped;
        } else if (auto doc = json::parse(line, lim); !doc || !doc->root().is_object()) {
            ++s.skipped;
        } else {
            const auto& r = doc->root().get_object();
            const bool in_time = since.empty() || str(r, jf::time) >= std::string_view(since);
            const bool in_tool = tool.empty() || str(r, jf::tool) == tool;
            if (in_time && in_tool) take(s, r);
        }
        line.clear();
        overlong = false;
    };
    // Stream: only the current line is held (and never more than max_line bytes of it).
    while (std::size_t n = std::fread(buf, 1, sizeof buf, f)) {
        std::string_view chunk(buf, n);
        while (!chunk.empty()) {
            const auto nl = chunk.find('\n');
            const auto part = chunk.substr(0, nl);
            if (!overlong) {
                if (line.size() + part.size() > max_line) {
                    overlong = true;
                    line.clear();
                } else {
                    line.append(part);
                }
            }
            if (nl == std::string_view::npos) break;
            finish_line();
            chunk.remove_prefix(nl + 1);
        }
    }
    finish_line();
    const bool failed = std::ferror(f) != 0;
    if (f != stdin) std::fclose(f);
    if (failed) {
        std::cerr << "candor inspect: read error on '" << path << "'\n";
        return 1;
    }
    if (as_json) print_json(s);
    else print_tables(s);
    return 0;
}

}  // namespace candor::cli
