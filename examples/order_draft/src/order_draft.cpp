// SPDX-License-Identifier: BSL-1.0
#include <candor_examples/order_draft.hpp>

#include <candor/contract/output_schema.hpp>
#include <candor/envelope/codes.hpp>

#include <boost/describe/enum_to_string.hpp>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value_from.hpp>

#include <algorithm>
#include <charconv>
#include <ctime>
#include <stdexcept>

namespace candor_examples::order_draft {

namespace cv = candor::validation;

/// What a created draft answers (the tool's data schema is generated from it).
struct draft_created {
    std::string draft_id;
    bool verified = false;
    std::string total;
    std::string currency;
    std::size_t lines = 0;
};
BOOST_DESCRIBE_STRUCT(draft_created, (), (draft_id, verified, total, currency, lines))
using candor::issue;
using candor::issue_list;

void describe_contract(candor::contract::spec<order_line>& s) {
    s.field(&order_line::sku).description("Catalog SKU").length(1, 64);
    s.field(&order_line::quantity).description("Units").range(1, 100);
    s.field(&order_line::unit_price)
        .description("Price per unit in the order's currency")
        .exclusive_minimum("0")
        .max_digits(12)
        .decimal_places(2);
}

void describe_contract(candor::contract::spec<order_args>& s) {
    s.field(&order_args::customer_id).description("The customer the order is for").length(1, 64);
    s.field(&order_args::currency).description("RUB, USD or EUR");
    s.field(&order_args::delivery_date).description("Delivery date, YYYY-MM-DD, not in the past").format("date");
    s.field(&order_args::discount)
        .description("Discount on the whole order, ≤ the subtotal")
        .minimum("0")
        .max_digits(12)
        .decimal_places(2);
    s.field(&order_args::total)
        .description("Subtotal (Σ quantity × unit_price) minus discount")
        .minimum("0")
        .max_digits(12)
        .decimal_places(2);
    s.field(&order_args::lines).description("What to order").items(1, 50);
}

std::optional<decimal> subtotal(const order_args& a) {
    decimal sum;
    for (const auto& line : a.lines) {
        auto amount = line.unit_price.multiply(line.quantity);
        if (!amount) return std::nullopt;
        auto next = sum.add(*amount);
        if (!next) return std::nullopt;
        sum = *next;
    }
    return sum;
}

namespace {

issue make_issue(std::string_view code, std::string path, std::string message, bool repairable,
                 boost::json::object details = {}) {
    issue i;
    i.code = std::string(code);
    i.path = std::move(path);
    i.message = std::move(message);
    i.repairable = repairable;
    i.details = std::move(details);
    return i;
}

std::string line_path(std::size_t i, std::string_view field) {
    return "/lines/" + std::to_string(i) + "/" + std::string(field);
}

}  // namespace

issue_list business_issues(const order_args& a, std::string_view today) {
    issue_list out;
    const auto sub = subtotal(a);
    if (sub) {
        if (a.discount > *sub) {
            out.push_back(make_issue(codes::discount_exceeds_subtotal, "/discount",
                                     "The discount " + a.discount.to_string() + " exceeds the subtotal " +
                                         sub->to_string() + "; a discount cannot be larger than what is ordered.",
                                     false, {{"subtotal", sub->to_string()}}));
        } else if (auto expected = sub->subtract(a.discount); expected && *expected != a.total) {
            out.push_back(make_issue(codes::total_mismatch, "/total",
                                     "The total must be " + expected->to_string() + " (subtotal " + sub->to_string() +
                                         " minus discount " + a.discount.to_string() + "), not " + a.total.to_string() +
                                         ".",
                                     true, {{"expected", expected->to_string()}}));
        }
    }
    // Both texts are valid ISO dates (the contract asserts `format: date`), so their order is
    // the calendar's.
    if (std::string_view(a.delivery_date) < today) {
        out.push_back(make_issue(codes::delivery_date_in_past, "/delivery_date",
                                 "The delivery date " + a.delivery_date + " is in the past (today is " +
                                     std::string(today) + "); use today or a later date.",
                                 true, {{"today", std::string(today)}}));
    }
    return out;
}

std::string utc_today() {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char buf[16];
    std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
    return buf;
}

namespace {

boost::asio::awaitable<cv::check_result<order_args>> check_access(const order_tool_options& opts_, const order_args& a,
                                                                  candor::mcp::call_context& ctx) {
    cv::check_result<order_args> r;
    const bool allowed = co_await opts_.access->may_order(ctx.caller().id, a.customer_id);
    if (!allowed)
        r.issues.push_back(make_issue(codes::permission_denied, "/customer_id",
                                      "You may not create orders for this customer.", false));
    co_return r;
}

boost::asio::awaitable<cv::check_result<order_args>> check_catalog(const order_tool_options& opts_,
                                                                   const order_args& a) {
    cv::check_result<order_args> r;
    bool repriced = false;
    order_args corrected = a;
    for (std::size_t i = 0; i < a.lines.size(); ++i) {
        const auto& line = a.lines[i];
        auto price = co_await opts_.catalog->price(line.sku, a.currency);
        if (!price) {
            auto near = co_await opts_.catalog->similar(line.sku, opts_.max_candidates);
            boost::json::array candidates;
            for (auto& s : near) candidates.emplace_back(s);
            // The message first: the arguments below are evaluated in no fixed order.
            std::string message = "The catalog has no SKU '" + line.sku + "'" +
                                  (candidates.empty() ? std::string(".") : "; did you mean one of the candidates?");
            r.issues.push_back(make_issue(codes::unknown_sku, line_path(i, "sku"), std::move(message), true,
                                          {{"candidates", std::move(candidates)}}));
            continue;
        }
        if (*price == line.unit_price) continue;
        if (opts_.stale_prices == stale_price_policy::refuse) {
            r.issues.push_back(make_issue(codes::stale_price, line_path(i, "unit_price"),
                                          "The unit price " + line.unit_price.to_string() +
                                              " is not the current catalog price " + price->to_string() + ".",
                                          false, {{"catalog_price", price->to_string()}}));
            continue;
        }
        corrected.lines[i].unit_price = *price;
        repriced = true;
        const decimal p = *price;
        r.normalize(line_path(i, "unit_price"), boost::json::value(line.unit_price.to_string()),
                    boost::json::value(p.to_string()), "The unit price was replaced by the current catalog price.",
                    [i, p](order_args& args) { args.lines[i].unit_price = p; });
    }
    if (repriced && r.issues.empty()) {
        const auto sub = subtotal(corrected);
        auto total = sub ? sub->subtract(a.discount)
                         : boost::system::result<decimal, candor::contract::decimal_error>(
                               candor::contract::decimal_error::overflow);
        if (!total || total->is_negative()) {
            // The catalog prices leave nothing to discount: the backend cannot fix this alone.
            r.corrections.clear();
            r.issues.push_back(make_issue(codes::stale_price, "/lines",
                                          "The unit prices are not the current catalog prices, and at the catalog "
                                          "prices the discount exceeds the subtotal.",
                                          false));
        } else if (*total != a.total) {
            const decimal t = *total;
            r.normalize("/total", boost::json::value(a.total.to_string()), boost::json::value(t.to_string()),
                        "The total was recomputed with the current catalog prices.",
                        [t](order_args& args) { args.total = t; });
        }
    }
    co_return r;
}

cv::action_plan plan(const order_args& args, const cv::verdict&) {
    cv::action_plan p;
    p.summary = "Create an order for customer " + args.customer_id + " with " + std::to_string(args.lines.size()) +
                " line(s), total " + args.total.to_string() + " " +
                std::string(boost::describe::enum_to_string(args.currency, "?"));
    p.targets.push_back(args.customer_id);
    return p;
}

boost::asio::awaitable<candor::envelope::envelope> create(const order_tool_options& opts_, order_args args,
                                                          const cv::verdict& v) {
    auto id = co_await opts_.drafts->store(args, v.unverified());
    if (!id) {
        auto i = make_issue(candor::envelope::validation_codes::source_unavailable, "",
                            "The draft store failed; nothing was stored. Try again later.", false,
                            {{"source", "drafts"}, {"cause", "failure"}});
        i.where = candor::layer::external;
        co_return candor::envelope::failure({std::move(i)});
    }
    co_return candor::envelope::complete(
        boost::json::value_from(draft_created{.draft_id = std::move(*id),
                                              .verified = !v.unverified(),
                                              .total = args.total.to_string(),
                                              .currency = boost::describe::enum_to_string(args.currency, "?"),
                                              .lines = args.lines.size()}));
}

}  // namespace

std::shared_ptr<candor::mcp::tool_handler> make_create_order_draft(order_tool_options o) {
    if (!o.catalog || !o.access || !o.drafts)
        throw std::invalid_argument("create_order_draft: catalog, access and drafts are required");
    if (!o.today) o.today = utc_today;
    // Shared by the tool and its layers, for the server's lifetime.
    auto opts = std::make_shared<const order_tool_options>(std::move(o));
    auto info = candor::mcp::tool_info(opts->name,
                                       "Creates an order draft for a customer. Lines are checked against the "
                                       "catalog (SKU and current price); the total must equal the sum of the "
                                       "lines minus the discount; the delivery date must not be in the past.")
                    .with_title("Create order draft")
                    .with_action(opts->action)
                    .with_contract_version("order_draft/1")
                    .with_data_schema(candor::contract::output_schema_of<draft_created>());
    return cv::make_tool(
        std::move(info),
        [opts](order_args a, const cv::verdict& v,
               candor::mcp::call_context&) -> boost::asio::awaitable<candor::envelope::envelope> {
            co_return co_await create(*opts, std::move(a), v);
        },
        opts->validation,
        cv::invariant<order_args>{[opts](const order_args& a) { return business_issues(a, opts->today()); }},
        cv::external_check<order_args>{
            "customer_access", opts->access_deadline,
            [opts](const order_args& a, candor::mcp::call_context& ctx) { return check_access(*opts, a, ctx); }},
        cv::external_check<order_args>{
            "catalog", opts->catalog_deadline,
            [opts](const order_args& a, candor::mcp::call_context&) { return check_catalog(*opts, a); }},
        cv::approval<order_args>{.plan = plan, .when = cv::approval_policy::irreversible});
}

namespace {

// The number in "SKU-3", "sku 003", "3": the digits at the end, if any.
std::optional<int> trailing_number(std::string_view s) {
    std::size_t start = s.size();
    while (start > 0 && s[start - 1] >= '0' && s[start - 1] <= '9') --start;
    if (start == s.size() || s.size() - start > 6) return std::nullopt;
    int n = 0;
    std::from_chars(s.data() + start, s.data() + s.size(), n);
    return n;
}

}  // namespace

std::vector<std::string> closest_skus(std::string_view sku, std::vector<std::string> catalog, std::size_t limit) {
    const auto wanted = trailing_number(sku);
    std::vector<std::pair<std::size_t, std::string>> scored;
    for (auto& candidate : catalog) {
        std::size_t common = 0;
        while (common < sku.size() && common < candidate.size() && sku[common] == candidate[common]) ++common;
        const bool same_number = wanted && trailing_number(candidate) == wanted;
        const std::size_t score = (same_number ? 1000 : 0) + common;
        if (score > 0) scored.emplace_back(score, std::move(candidate));
    }
    std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<std::string> out;
    for (std::size_t i = 0; i < scored.size() && i < limit; ++i) out.push_back(std::move(scored[i].second));
    return out;
}

void throw_exception_from_error(const store_error& e, const boost::source_location& loc) {
    boost::throw_exception(std::runtime_error("draft store: " + e.message), loc);
}

}  // namespace candor_examples::order_draft
