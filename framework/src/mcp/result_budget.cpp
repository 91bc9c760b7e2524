// SPDX-License-Identifier: BSL-1.0
// A tool result that does not fit its byte budget is never cut as JSON: its largest strings are
// cut at a UTF-8 boundary, each said in a FIELD_TRUNCATED warning, and the result is marked
// incomplete (RESULT_SIZE_LIMIT); when nothing left can be cut, the answer is RESULT_TOO_LARGE.
// (A collection does better on its own: it ends the page at the last whole item that fits.)

#include "server_core.hpp"

#include <candor/envelope/codes.hpp>
#include <candor/json/pointer.hpp>

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <utility>
#include <vector>

namespace candor::mcp::detail {

namespace {

// Strings shorter than this are left whole: cutting them saves little and loses the value.
constexpr std::size_t shortest_cut = 16;

// The longest string in `data` that may still be cut, and its JSON Pointer (from `data`).
// Explicit stack: the data is the tool's, of any depth the writer accepted.
std::pair<boost::json::string*, std::string> longest_string(boost::json::value& data) {
    struct frame {
        boost::json::value* v;
        std::string path;
    };
    std::vector<frame> stack{{&data, ""}};
    boost::json::string* best = nullptr;
    std::string best_path;
    while (!stack.empty()) {
        auto [v, path] = std::move(stack.back());
        stack.pop_back();
        if (auto* s = v->if_string()) {
            if (s->size() >= shortest_cut && (!best || s->size() > best->size())) {
                best = s;
                best_path = std::move(path);
            }
        } else if (auto* o = v->if_object()) {
            for (auto& kv : *o) stack.push_back({&kv.value(), json::child_pointer(path, kv.key())});
        } else if (auto* a = v->if_array()) {
            for (std::size_t i = 0; i < a->size(); ++i) {
                std::string p = path;
                json::append_index(p, i);
                stack.push_back({&(*a)[i], std::move(p)});
            }
        }
    }
    return {best, std::move(best_path)};
}

// `n` bytes of `s` or fewer, ending on a character boundary.
std::size_t utf8_prefix(std::string_view s, std::size_t n) {
    n = std::min(n, s.size());
    while (n > 0 && n < s.size() && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
    return n;
}

}  // namespace

envelope::envelope result_too_large(std::size_t bytes, std::size_t limit) {
    issue i;
    i.code = std::string(envelope::error_codes::result_too_large);
    // Short: it must fit the smallest budget (1,024 bytes) itself.
    i.message = "the result (" + std::to_string(bytes) + " bytes) exceeds this call's " + std::to_string(limit) +
                "-byte budget and cannot be cut; ask for less";
    i.repairable = true;
    i.where = layer::external;
    i.details["bytes"] = bytes;
    i.details["limit"] = limit;
    return envelope::failure({std::move(i)});
}

envelope::envelope fit_to_budget(const envelope::envelope& e, const result_budget& budget, std::string_view tool,
                                 const std::string& rest) {
    auto measure = [&](const envelope::envelope& x) -> std::optional<std::size_t> {
        std::string text;
        if (!envelope::write_sealed(x, tool, text, json::depth_ceiling)) return std::nullopt;
        return budget.size_of(text.size(), json::string_size(text));
    };
    const auto first = measure(e);
    if (!first) return envelope::internal_error();
    if (*first <= budget.limit) return e;
    if (*e.status == envelope::outcome::error) return result_too_large(*first, budget.limit);

    envelope::envelope out = e;
    auto data = envelope::data_value(out);
    out.data_written.reset();
    out.data = data ? std::move(*data) : boost::json::value(nullptr);
    // Per cut string: where, how long it was, how much of it is left.
    struct cut {
        std::string path;
        std::size_t bytes;
        std::size_t kept;
    };
    std::vector<cut> cuts;
    std::size_t size = *first;
    // Each round cuts the longest string by what is over (a byte of it is sent twice when the
    // envelope is: escaped in the text block and as structuredContent), so a few rounds do.
    for (int round = 0; round < 256 && size > budget.limit; ++round) {
        // Not a structured binding: a lambda below refers to the path (clang refuses those).
        auto longest = longest_string(*out.data);
        auto* s = longest.first;
        const std::string& path = longest.second;
        if (!s) break;
        const std::size_t over = size - budget.limit;
        const std::size_t per_byte = budget.structured ? 2 : 1;
        const std::size_t drop = std::max<std::size_t>(over / per_byte + 8, s->size() / 8);
        const std::size_t keep = utf8_prefix(*s, s->size() > drop ? s->size() - drop : 0);
        auto found = std::find_if(cuts.begin(), cuts.end(), [&](const cut& c) { return c.path == path; });
        if (found == cuts.end()) cuts.push_back({path, s->size(), keep});
        else found->kept = keep;
        s->resize(keep);
        // The warnings and the reason are part of what is measured.
        out.warnings = e.warnings;
        for (const auto& c : cuts) {
            boost::json::object details{{"path", "/data" + c.path}, {"bytes", c.bytes}, {"kept", c.kept}};
            if (!rest.empty()) details["rest"] = rest;
            out.add_warning({std::string(envelope::warning_codes::field_truncated),
                             "cut to fit the byte budget: the first " + std::to_string(c.kept) + " of " +
                                 std::to_string(c.bytes) + " bytes",
                             std::move(details)});
        }
        out.incomplete_reasons = e.incomplete_reasons;
        auto page_cut =
            std::find_if(out.incomplete_reasons.begin(), out.incomplete_reasons.end(),
                         [](const envelope::reason& r) { return r.code == envelope::reason_codes::result_size_limit; });
        if (page_cut != out.incomplete_reasons.end())  // a page ended early already: one reason
            page_cut->details["fields"] = cuts.size();
        else
            out.add_reason({std::string(envelope::reason_codes::result_size_limit),
                            "strings were cut to fit the byte budget (FIELD_TRUNCATED)",
                            {{"limit", budget.limit}, {"fields", cuts.size()}}});
        out.status = envelope::outcome::partial;
        out.complete = false;
        const auto now = measure(out);
        if (!now) return envelope::internal_error();
        size = *now;
    }
    if (size > budget.limit) return result_too_large(*first, budget.limit);
    return out;
}

}  // namespace candor::mcp::detail

namespace candor::mcp::detail {

std::string summarize(const envelope::envelope& e, std::size_t room) {
    std::string out = "status: " + std::string(envelope::to_string(*e.status));
    out += e.complete.value_or(false) ? " (complete: the whole requested scope)" : " (complete: false)";
    auto details = [](const boost::json::object& d) {
        std::string s;
        for (const auto& kv : d) {
            if (!kv.value().is_number() && !kv.value().is_string()) continue;
            s += (s.empty() ? " (" : ", ") + std::string(kv.key()) + " " +
                 (kv.value().is_string() ? std::string(kv.value().get_string()) : boost::json::serialize(kv.value()));
        }
        return s.empty() ? s : s + ")";
    };
    constexpr std::size_t listed = 8;  // per kind; the envelope has them all
    if (!e.incomplete_reasons.empty()) {
        out += "\nincomplete:";
        for (std::size_t i = 0; i < e.incomplete_reasons.size() && i < listed; ++i)
            out += " " + e.incomplete_reasons[i].code + details(e.incomplete_reasons[i].details) + ";";
    }
    if (e.continuation) {
        out += "\ncontinue: " + std::string(envelope::to_string(e.continuation->what));
        if (!e.continuation->text.empty()) out += " " + e.continuation->text;
        if (envelope::has_amount(e.continuation->what)) out += " " + std::to_string(e.continuation->amount);
    }
    if (!e.warnings.empty()) {
        out += "\nwarnings:";
        for (std::size_t i = 0; i < e.warnings.size() && i < listed; ++i)
            out += " " + e.warnings[i].code + details(e.warnings[i].details) + ";";
    }
    for (std::size_t i = 0; i < e.errors.size() && i < listed; ++i) {
        const auto& x = e.errors[i];
        out += "\nerror: " + x.code + (x.path.empty() ? "" : " at " + x.path) + ": " + x.message;
    }
    std::optional<std::string> data;
    if (e.data_written) data = std::string(e.data_written->text());
    else if (e.data)
        if (auto t = json::to_string(*e.data)) data = std::move(*t);
    if (data) {
        if (const auto* a = e.data ? e.data->if_array() : nullptr)
            out += "\ndata: " + std::to_string(a->size()) + " items";
        out += "\ndata (JSON):\n";
        // The data only whole, and only while the text block stays within its room.
        if (json::string_size(out) + json::string_size(*data) - 2 <= room) out += *data;
        else out += "(not in this text: too large for the result's byte budget; see structuredContent)";
    }
    // The lines alone may pass a very small room: cut at a character boundary.
    while (json::string_size(out) > room && !out.empty()) {
        std::size_t n = out.size() - std::min<std::size_t>(out.size(), json::string_size(out) - room);
        while (n > 0 && (static_cast<unsigned char>(out[n]) & 0xC0) == 0x80) --n;
        out.resize(n);
    }
    return out;
}

}  // namespace candor::mcp::detail
