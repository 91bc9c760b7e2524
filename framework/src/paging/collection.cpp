// SPDX-License-Identifier: BSL-1.0
// The collection tool's face: its schema with the paging arguments, its options checked, and a
// tools/call taken apart into the page it asks for (serve.cpp serves it).
#include <candor/paging/collection.hpp>

#include "page.hpp"

#include <candor/evidence/token.hpp>

#include <boost/json/monotonic_resource.hpp>

#include <algorithm>
#include <cstddef>
#include <stdexcept>

namespace candor::paging {

namespace ce = candor::envelope;

namespace detail {

std::vector<std::string> item_fields(const collection_options& o) {
    std::vector<std::string> out;
    const auto* schema = o.item_schema.if_object();
    const auto* props = schema ? schema->if_contains("properties") : nullptr;
    if (const auto* p = props ? props->if_object() : nullptr)
        for (const auto& kv : *p) out.emplace_back(kv.key());
    return out;
}

}  // namespace detail

namespace {

mcp::tool_info with_paging_arguments(mcp::tool_info info, const collection_options& o) {
    // A collection only reads: a data source has no way to write.
    info.action = mcp::action_class::read_only;
    auto& props = info.input_schema["properties"];
    if (!props.is_object()) props = boost::json::object{};
    auto& p = props.get_object();
    p[arguments::page_size] =
        boost::json::object{{"type", "integer"},
                            {"minimum", 1},
                            {"maximum", o.max_page_size},
                            {"default", o.default_page_size},
                            {"description", "Items per page (default " + std::to_string(o.default_page_size) + ")."}};
    p[arguments::cursor] = boost::json::object{
        {"type", "string"},
        {"minLength", 1},
        {"description", "continuation.cursor of the previous page, unchanged; omit to start a walk."}};
    if (o.accept_deadline)
        p[arguments::deadline_ms] =
            boost::json::object{{"type", "integer"},
                                {"minimum", 1},
                                {"maximum", o.max_deadline_ms},
                                {"description", "Answer within this many milliseconds, with what was found by then."}};
    if (!o.orders.empty()) {
        boost::json::array names;
        std::string list;
        for (const auto& n : o.orders) {
            names.emplace_back(n.name);
            list += (list.empty() ? "" : "; ") + n.name + " (" + n.order.to_string() + ")";
        }
        p[arguments::order_by] = boost::json::object{
            {"type", "string"},
            {"enum", std::move(names)},
            {"description", "The order to walk in (a '-' field descends; null first ascending, last descending): " +
                                list + ". A cursor keeps the order its walk began with."}};
    }
    // Asking for less (the partial-response pattern): the item's fields, by name.
    if (const auto names = detail::item_fields(o); !names.empty()) {
        std::string list;
        for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
        p[arguments::fields] = boost::json::object{
            {"type", "array"},
            {"items", boost::json::object{{"type", "string"}}},
            {"minItems", 1},
            {"maxItems", names.size()},
            {"uniqueItems", true},
            {"description", "Return only these item fields (the key fields always come too): " + list + "."}};
    }
    // Boolean schemas in object form: some clients (the TypeScript SDK's zod) accept only
    // object schemas inside `outputSchema`.
    boost::json::value items = o.item_schema;
    if (items.is_bool())
        items = items.get_bool() ? boost::json::value(boost::json::object{})
                                 : boost::json::value(boost::json::object{{"not", boost::json::object{}}});
    info.data_schema = boost::json::object{{"type", "array"}, {"items", std::move(items)}};
    return info;
}

collection_options checked(collection_options o) {
    if (!o.keys) throw std::invalid_argument("collection_tool needs a key ring");
    if (o.default_page_size < 1 || o.max_page_size < o.default_page_size)
        throw std::invalid_argument("collection_tool: 1 <= default_page_size <= max_page_size");
    if (!o.wall_clock) o.wall_clock = [] { return std::chrono::system_clock::now(); };
    if (!o.steady_clock) o.steady_clock = [] { return std::chrono::steady_clock::now(); };
    return o;
}

// Where a tools/call page keeps its small JSON — the query taken out of the arguments, the
// `page` extension and the envelope's extensions object — in one allocation with its resource
// (Boost.JSON allocates every key and table: about ten allocations a page otherwise). Larger
// than the buffer, it goes on from the heap.
class page_arena final : public boost::json::memory_resource {
public:
    page_arena() = default;
    page_arena(const page_arena&) = delete;
    page_arena& operator=(const page_arena&) = delete;

private:
    alignas(std::max_align_t) unsigned char buffer_[640];
    boost::json::monotonic_resource rest_{buffer_, sizeof buffer_};

    void* do_allocate(std::size_t n, std::size_t align) override { return rest_.allocate(n, align); }
    void do_deallocate(void*, std::size_t, std::size_t) override {}
    bool do_is_equal(const boost::json::memory_resource& other) const noexcept override { return this == &other; }
};

}  // namespace

bool collection_tool::purge_due(wall_time now) {
    const std::int64_t now_ms = seal::to_epoch_ms(now);
    std::int64_t last = last_purge_ms_.load(std::memory_order_relaxed);
    const std::int64_t interval_ms = std::chrono::milliseconds(opts_.evidence_purge_interval).count();
    if (now_ms - last < interval_ms) return false;
    // One page of all those running at this moment does the purge.
    return last_purge_ms_.compare_exchange_strong(last, now_ms, std::memory_order_relaxed);
}

std::string visibility_of(const mcp::principal& p) {
    return p.id.empty() ? std::string("anonymous") : "principal:" + p.id;
}

collection_tool::collection_tool(mcp::tool_info info, ordering order, std::shared_ptr<data_source> source,
                                 collection_options opts)
    : json_tool(with_paging_arguments(std::move(info), opts)),
      order_(std::move(order)),
      order_text_(order_.to_string()),
      source_(std::move(source)),
      opts_(checked(std::move(opts))) {
    if (order_.fields.empty()) throw std::invalid_argument("collection_tool needs an ordering");
    if (!source_) throw std::invalid_argument("collection_tool needs a data source");
    for (const auto& n : opts_.orders) {
        if (n.name.empty() || n.order.fields.empty())
            throw std::invalid_argument("collection_tool: an ordering needs a name and fields");
        if (n.order.fields.back() != order_.fields.back())
            throw std::invalid_argument("collection_tool: ordering '" + n.name + "' must end with the unique field '" +
                                        order_.fields.back() + "'");
        orders_text_.push_back(n.order.to_string());
    }
}

boost::asio::awaitable<ce::envelope> collection_tool::call(const boost::json::object& args, mcp::call_context& ctx) {
    // The page's JSON is built where its query is (serve uses the query's storage). Initialized,
    // not assigned: a JSON container assigned from another storage keeps its own.
    page_request r{.query = boost::json::object(args.size(), boost::json::make_shared_resource<page_arena>())};
    r.caller = ctx.caller();
    r.deadline = ctx.deadline() - opts_.deadline_margin;
    for (const auto& kv : args) {
        if (kv.key() == arguments::cursor && kv.value().is_string()) r.cursor = std::string(kv.value().get_string());
        else if (kv.key() == arguments::page_size && kv.value().is_number())
            r.page_size = kv.value().to_number<std::size_t>();
        else if (kv.key() == arguments::fields && kv.value().is_array()) {
            r.fields.emplace();
            for (const auto& f : kv.value().get_array())
                if (f.is_string()) r.fields->emplace_back(f.get_string());
        } else if (kv.key() == arguments::deadline_ms && opts_.accept_deadline && kv.value().is_number())
            r.deadline =
                std::min(r.deadline, steady_now() + std::chrono::milliseconds(kv.value().to_number<std::int64_t>()));
        else r.query.emplace(kv.key(), boost::json::value(kv.value(), r.query.storage()));
    }
    r.written = true;  // the page goes to the caller as it is
    r.budget = ctx.budget();
    // Not a coroutine of its own: the page's coroutine returns the envelope (one frame a call).
    return serve_as<ce::envelope>(std::move(r));
}

std::optional<std::string> collection_tool::seal_stopped_walk(const cursor_claims& state,
                                                              std::vector<std::string> reasons) const {
    if (!opts_.evidence || source_->snapshots() != snapshot_mode::pinned) return std::nullopt;
    evidence::snapshot_claims t;
    t.resource = info().name;
    t.query = state.query;
    t.principal = state.principal;
    t.snapshot = state.snapshot;
    t.walk = state.walk;
    t.complete = false;
    t.reasons = std::move(reasons);
    t.expiry = wall_now() + opts_.token_ttl;
    return evidence::seal_snapshot_token(*opts_.keys, t);
}

boost::asio::awaitable<page> collection_tool::serve(page_request req) { return serve_as<page>(std::move(req)); }

}  // namespace candor::paging
