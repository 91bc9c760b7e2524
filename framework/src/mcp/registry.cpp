// SPDX-License-Identifier: BSL-1.0
// The tool registry: names, listing order, list cursors and `tools/list` entries.
#include "connection_impl.hpp"

#include <candor/envelope/schema.hpp>

#include <array>

namespace candor::mcp {

bool is_valid_tool_name(std::string_view name) noexcept {
    if (name.empty() || name.size() > 128) return false;
    for (char c : name) {
        const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
                        c == '.' || c == '-';
        if (!ok) return false;
    }
    return true;
}

std::string_view to_string(action_class a) noexcept {
    switch (a) {
        case action_class::read_only: return "read_only";
        case action_class::reversible_write: return "reversible_write";
        case action_class::irreversible_write: return "irreversible_write";
    }
    return "read_only";
}

std::string_view to_string(task_support t) noexcept {
    switch (t) {
        case task_support::none: return "none";
        case task_support::optional: return "optional";
        case task_support::required: return "required";
    }
    return "none";
}

namespace detail {

namespace {

std::string cursor_prefix(std::string_view list) {
    std::string p = "candor.";
    p += list;
    p += ".1:";
    return p;
}
constexpr std::string_view b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string base64url(std::string_view in) {
    std::string out;
    std::uint32_t acc = 0;
    int bits = 0;
    for (unsigned char c : in) {
        acc = (acc << 8) | c;
        bits += 8;
        while (bits >= 6) {
            bits -= 6;
            out += b64[(acc >> bits) & 0x3f];
        }
    }
    if (bits > 0) out += b64[(acc << (6 - bits)) & 0x3f];
    return out;
}

std::optional<std::string> unbase64url(std::string_view in) {
    std::string out;
    std::uint32_t acc = 0;
    int bits = 0;
    for (char c : in) {
        const auto pos = b64.find(c);
        if (pos == std::string_view::npos) return std::nullopt;
        acc = (acc << 6) | static_cast<std::uint32_t>(pos);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out += static_cast<char>((acc >> bits) & 0xff);
        }
    }
    // Leftover bits must be zero padding, or the text was not produced by base64url().
    if (bits >= 6 || (acc & ((1u << bits) - 1)) != 0) return std::nullopt;
    return out;
}

}  // namespace

// List cursors are keysets (the list's name and the last key of the page): entries added or
// removed between pages are never skipped or repeated.
std::string seal_cursor(std::string_view list, std::string_view last_key) {
    std::string plain = cursor_prefix(list);
    plain += last_key;
    return base64url(plain);
}

std::optional<std::string> open_cursor(std::string_view list, std::string_view cursor) {
    if (cursor.empty() || cursor.size() > 2800) return std::nullopt;
    auto plain = unbase64url(cursor);
    const auto prefix = cursor_prefix(list);
    if (!plain || plain->compare(0, prefix.size(), prefix) != 0) return std::nullopt;
    return plain->substr(prefix.size());
}

std::string seal_list_cursor(std::string_view last_name) { return seal_cursor("tools", last_name); }

std::optional<std::string> open_list_cursor(std::string_view cursor) {
    if (cursor.size() > 512) return std::nullopt;
    auto name = open_cursor("tools", cursor);
    if (!name || !is_valid_tool_name(*name)) return std::nullopt;
    return name;
}

jsonrpc::error_object deadline_error(std::string_view what, std::chrono::milliseconds limit) {
    return jsonrpc::error_object::make(
        jsonrpc::error_code::request_timeout,
        std::string(what) + " did not finish within its deadline of " + std::to_string(limit.count()) +
            " ms and was stopped; try again later",
        boost::json::object{{"code", envelope::error_codes::deadline_exceeded}, {"limit_ms", limit.count()}});
}

std::string what_of(std::exception_ptr ep) {
    try {
        std::rethrow_exception(ep);
    } catch (const std::exception& e) {
        return e.what();
    } catch (...) {
    }
    return "unknown exception";
}

std::vector<std::shared_ptr<connection_impl>> server_core::live_connections() const {
    std::vector<std::shared_ptr<connection_impl>> out;
    std::lock_guard lock(mu);
    for (const auto& w : connections)
        if (auto c = w.lock()) out.push_back(std::move(c));
    return out;
}

void server_core::notify_list_changed(std::string_view method) const {
    for (auto& c : live_connections()) c->notify_list_changed(method);
    share({notice::kind::list_changed, std::string(method), {}});
}

const std::shared_ptr<const registry_snapshot>& registry_cache::now() {
    if (snap_ && snap_->generation == core_->generation.load(std::memory_order_acquire)) return snap_;
    auto fresh = std::make_shared<registry_snapshot>();
    fresh->core = core_;
    {
        std::lock_guard lock(core_->mu);
        fresh->generation = core_->generation.load(std::memory_order_relaxed);
        fresh->tools = core_->tools;
        fresh->tool_headers = core_->tool_headers;
        fresh->observers = core_->opts.observers;
    }
    snap_ = std::move(fresh);
    return snap_;
}

std::shared_ptr<tool_handler> server_core::find(std::string_view name) const {
    std::lock_guard lock(mu);
    auto it = tools.find(name);
    return it == tools.end() ? nullptr : it->second;
}

std::optional<server_core::page> server_core::list(const std::optional<std::string>& cursor) const {
    std::optional<std::string> after;
    if (cursor) {
        after = open_list_cursor(*cursor);
        if (!after) return std::nullopt;
    }
    page p;
    const std::size_t size = opts.tools_page_size == 0 ? 1 : opts.tools_page_size;
    std::lock_guard lock(mu);
    auto it = after ? tools.upper_bound(*after) : tools.begin();
    for (; it != tools.end() && p.tools.size() < size; ++it) p.tools.push_back(it->second);
    if (it != tools.end()) p.next_cursor = seal_list_cursor(p.tools.back()->info().name);
    return p;
}

boost::json::object describe(const tool_handler& tool, const protocol_rules& rules) {
    const auto& info = tool.info();
    boost::json::object o;
    o["name"] = info.name;
    if (rules.titles && !info.title.empty()) o["title"] = info.title;
    o["description"] = info.description;
    o["inputSchema"] = info.input_schema;
    if (rules.structured_content && tool.returns_envelope())
        o["outputSchema"] = envelope::output_schema(info.data_schema);
    boost::json::object ann;
    if (!rules.titles && !info.title.empty()) ann["title"] = info.title;
    ann["readOnlyHint"] = info.action == action_class::read_only;
    ann["destructiveHint"] = info.action == action_class::irreversible_write;
    ann["idempotentHint"] = info.action == action_class::read_only;
    o["annotations"] = std::move(ann);
    if (!info.scopes.empty()) {
        boost::json::array scopes;
        for (const auto& s : info.scopes) scopes.emplace_back(s);
        o["_meta"] = boost::json::object{{"candor/requiredScopes", std::move(scopes)}};
    }
    return o;
}

}  // namespace detail
}  // namespace candor::mcp
