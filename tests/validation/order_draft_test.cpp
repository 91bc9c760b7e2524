// SPDX-License-Identifier: BSL-1.0
#include <candor_examples/order_draft.hpp>

#include "support.hpp"

#include <candor/json/intake.hpp>
#include <candor/offload/worker.hpp>
#include <candor/sqlite/sql_database.hpp>
#include <candor/state/sql_repair_counts.hpp>
#include <candor/validation/metrics.hpp>
#include <candor/validation/plan_token.hpp>
#include <candor/validation/repair_budget.hpp>

#include <boost/json/parse.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

namespace {

namespace od = candor_examples::order_draft;
namespace cv = candor::validation;
using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;
using validation_test::answer;
using validation_test::at;
using validation_test::harness;
using validation_test::item;
using validation_test::text;

od::decimal dec(std::string_view s) { return od::decimal::parse(s).value(); }

// 3 × 10.00 + 2 × 2.50 = 35.00; discount 5.00; total 30.00.
constexpr std::string_view valid_order = R"({
  "customer_id": "C-1", "currency": "USD", "delivery_date": "2026-12-05",
  "discount": 5.00, "total": 30.00,
  "lines": [{"sku": "SKU-1001", "quantity": 3, "unit_price": 10.00},
            {"sku": "SKU-1002", "quantity": 2, "unit_price": 2.50}]})";

// `base` with the value at `pointer` replaced by the JSON text `json_value`; every other number
// keeps its exact text (so 10.00 stays 10.00, as a model would send it).
std::string with(std::string_view base, std::string_view pointer, std::string_view json_value) {
    auto doc = candor::json::parse(base).value();
    (void)doc.number_text(doc.root().at("total"));  // index the number texts before the tree changes
    boost::system::error_code ec;
    auto* target = doc.mutable_root().find_pointer(pointer, ec);
    EXPECT_NE(target, nullptr) << pointer;
    if (target == nullptr) return std::string(base);
    constexpr std::string_view marker = "@@replaced@@";
    *target = marker;
    auto out = cv::canonical_arguments(doc.root(), &doc);
    const auto quoted = '"' + std::string(marker) + '"';
    out.replace(out.find(quoted), quoted.size(), json_value);
    return out;
}

struct order_fixture : ::testing::Test {
    std::shared_ptr<od::memory_backend> backend = std::make_shared<od::memory_backend>();
    std::shared_ptr<cv::metrics> metrics = std::make_shared<cv::metrics>();
    std::chrono::steady_clock::time_point now{std::chrono::hours(1)};
    std::shared_ptr<cv::repair_budget> repairs;
    harness h;

    order_fixture() {
        backend->set_price("SKU-1001", od::currency_code::USD, dec("10.00"));
        backend->set_price("SKU-1002", od::currency_code::USD, dec("2.50"));
        backend->set_price("SKU-1003", od::currency_code::USD, dec("7.00"));
        backend->set_price("SKU-2000", od::currency_code::USD, dec("100.00"));
        backend->set_price("SKU-1001", od::currency_code::EUR, dec("9.00"));
        backend->grant("alice", "C-1");
        backend->grant("carol", "C-1");
        cv::repair_budget_options ro;
        ro.clock = [this] { return now; };
        repairs = std::make_shared<cv::repair_budget>(ro);
    }

    od::order_tool_options options() {
        od::order_tool_options o;
        o.catalog = backend;
        o.access = backend;
        o.drafts = backend;
        o.today = [] { return std::string("2026-11-29"); };
        o.validation.metrics = metrics;
        o.validation.repairs = repairs;
        return o;
    }
    void mount(od::order_tool_options o) { h.server().add_tool(od::make_create_order_draft(std::move(o))).value(); }
    void mount() { mount(options()); }
    answer call(candor::mcp::memory_client& c, std::string_view args) {
        return harness::call(c, "create_order_draft", args);
    }
};

TEST_F(order_fixture, ValidOrderStoresOneVerifiedDraft) {
    mount();
    auto& alice = h.client("alice");
    auto a = call(alice, valid_order);
    EXPECT_EQ(a.status(), "complete") << boost::json::serialize(a.env);
    EXPECT_EQ(text(at(a.data(), "draft_id")), "D-1");
    EXPECT_EQ(at(a.data(), "verified"), true);
    EXPECT_EQ(text(at(a.data(), "total")), "30.00");
    ASSERT_EQ(backend->drafts().size(), 1u);
    EXPECT_FALSE(backend->drafts()[0].unverified);
    EXPECT_TRUE(a.warning_codes().empty());
}

TEST_F(order_fixture, ContractRefusesWrongShapesBeforeAnyOtherLayer) {
    mount();
    auto& alice = h.client("alice");
    const std::pair<std::string, std::string> cases[] = {
        {with(valid_order, "/currency", R"("GBP")"), "ENUM_MISMATCH"},
        {with(valid_order, "/lines/0/quantity", "101"), "OUT_OF_RANGE"},
        {with(valid_order, "/lines/0/quantity", "0"), "OUT_OF_RANGE"},
        {with(valid_order, "/lines/0/unit_price", "0"), "OUT_OF_RANGE"},
        {with(valid_order, "/lines/0/unit_price", "1.234"), "TOO_MANY_DIGITS"},
        {with(valid_order, "/lines/0/unit_price", "1234567890123"), "TOO_MANY_DIGITS"},
        {with(valid_order, "/lines/0/sku", R"("")"), "TOO_SHORT"},
        {with(valid_order, "/lines/0/sku", '"' + std::string(65, 'A') + '"'), "TOO_LONG"},
        {with(valid_order, "/lines", "[]"), "TOO_SHORT"},
        {with(valid_order, "/discount", "-1"), "OUT_OF_RANGE"},
        {with(valid_order, "/total", "-0.01"), "OUT_OF_RANGE"},
        {with(valid_order, "/delivery_date", R"("2026-02-30")"), "FORMAT_MISMATCH"},
        {with(valid_order, "/delivery_date", R"("tomorrow")"), "FORMAT_MISMATCH"},
        {with(valid_order, "/customer_id", "7"), "TYPE_MISMATCH"},
    };
    for (const auto& [args, code] : cases) {
        auto a = call(alice, args);
        EXPECT_EQ(a.status(), "error") << args;
        ASSERT_FALSE(a.errors().empty()) << args;
        EXPECT_EQ(text(at(a.errors()[0], "code")), code) << args;
        EXPECT_EQ(text(at(a.errors()[0], "layer")), "contract") << args;
        repairs->record_success(cv::repair_budget::key("create_order_draft", "", "alice"));
    }
    auto extra = boost::json::parse(valid_order);
    extra.as_object()["coupon"] = "FREE";
    EXPECT_THAT(call(alice, boost::json::serialize(extra)).codes(), ElementsAre("UNKNOWN_FIELD"));
    auto line_extra = boost::json::parse(valid_order);
    line_extra.at_pointer("/lines/0").as_object()["note"] = "x";
    repairs->record_success(cv::repair_budget::key("create_order_draft", "", "alice"));
    EXPECT_THAT(call(alice, boost::json::serialize(line_extra)).codes(), ElementsAre("UNKNOWN_FIELD"));
    EXPECT_TRUE(backend->drafts().empty());
}

TEST_F(order_fixture, DiscountExceedingSubtotalIsNotRepairable) {
    mount();
    auto a = call(h.client("alice"), with(with(valid_order, "/discount", "50"), "/total", "0"));
    ASSERT_THAT(a.codes(), ElementsAre("DISCOUNT_EXCEEDS_SUBTOTAL"));
    auto e = a.error("DISCOUNT_EXCEEDS_SUBTOTAL");
    EXPECT_EQ(at(e, "repairable"), false);
    EXPECT_EQ(text(at(e, "layer")), "business");
    EXPECT_EQ(text(at(e, "path")), "/discount");
    EXPECT_EQ(text(at(e, "subtotal")), "35.00");
    EXPECT_TRUE(backend->drafts().empty());
}

TEST_F(order_fixture, TotalMismatchStatesTheExpectedTotal) {
    mount();
    auto a = call(h.client("alice"), with(valid_order, "/total", "31.00"));
    ASSERT_THAT(a.codes(), ElementsAre("TOTAL_MISMATCH"));
    auto e = a.error("TOTAL_MISMATCH");
    EXPECT_EQ(at(e, "repairable"), true);
    EXPECT_EQ(text(at(e, "path")), "/total");
    EXPECT_EQ(text(at(e, "expected")), "30.00");
    EXPECT_NE(text(at(e, "message")).find("30.00"), std::string::npos);
    EXPECT_TRUE(backend->drafts().empty());
}

TEST_F(order_fixture, TotalComparesNumericallyNotTextually) {
    mount();
    auto a = call(h.client("alice"), with(valid_order, "/total", "30"));
    EXPECT_EQ(a.status(), "complete") << boost::json::serialize(a.env);
}

TEST_F(order_fixture, DeliveryDateInThePastIsRepairable) {
    mount();
    auto a = call(h.client("alice"), with(valid_order, "/delivery_date", R"("2026-11-28")"));
    ASSERT_THAT(a.codes(), ElementsAre("DELIVERY_DATE_IN_PAST"));
    EXPECT_EQ(at(a.error("DELIVERY_DATE_IN_PAST"), "repairable"), true);
    EXPECT_EQ(text(at(a.error("DELIVERY_DATE_IN_PAST"), "today")), "2026-11-29");
    // Today itself is fine.
    auto b = call(h.client("carol"), with(valid_order, "/delivery_date", R"("2026-11-29")"));
    EXPECT_EQ(b.status(), "complete");
}

TEST_F(order_fixture, AllBusinessIssuesComeInOneAnswer) {
    mount();
    auto a = call(h.client("alice"), with(with(valid_order, "/total", "1"), "/delivery_date", R"("2020-01-01")"));
    EXPECT_THAT(a.codes(), UnorderedElementsAre("TOTAL_MISMATCH", "DELIVERY_DATE_IN_PAST"));
    auto b = call(h.client("carol"),
                  with(with(with(valid_order, "/discount", "99"), "/total", "0"), "/delivery_date", R"("2020-01-01")"));
    EXPECT_THAT(b.codes(), UnorderedElementsAre("DISCOUNT_EXCEEDS_SUBTOTAL", "DELIVERY_DATE_IN_PAST"));
    EXPECT_TRUE(backend->drafts().empty());
}

TEST_F(order_fixture, ContractIssuesHideLaterLayers) {
    mount();
    // A wrong total (business) and an unknown field (contract): only the contract speaks.
    auto v = boost::json::parse(with(valid_order, "/total", "1"));
    v.as_object()["coupon"] = "FREE";
    auto a = call(h.client("alice"), boost::json::serialize(v));
    EXPECT_THAT(a.codes(), ElementsAre("UNKNOWN_FIELD"));
}

TEST_F(order_fixture, BusinessIssuesStopBeforeExternalChecks) {
    mount();
    backend->mode = od::memory_backend::catalog_mode::failing;  // would be SOURCE_UNAVAILABLE
    // An unknown SKU, a permission problem and a wrong total: only the business layer answers.
    auto a = call(h.client("bob"), with(with(valid_order, "/lines/0/sku", R"("NOPE")"), "/total", "1"));
    EXPECT_THAT(a.codes(), ElementsAre("TOTAL_MISMATCH"));
}

TEST_F(order_fixture, UnknownSkuCarriesCandidates) {
    mount();
    auto a = call(h.client("alice"), with(valid_order, "/lines/0/sku", R"("SKU-100")"));
    ASSERT_THAT(a.codes(), ElementsAre("UNKNOWN_SKU"));
    auto e = a.error("UNKNOWN_SKU");
    EXPECT_EQ(at(e, "repairable"), true);
    EXPECT_EQ(text(at(e, "layer")), "external");
    EXPECT_EQ(text(at(e, "path")), "/lines/0/sku");
    auto candidates = at(e, "candidates");
    ASSERT_TRUE(candidates.is_array());
    EXPECT_GE(candidates.get_array().size(), 3u);
    EXPECT_LE(candidates.get_array().size(), 5u);
    EXPECT_EQ(text(item(candidates, 0)), "SKU-1001");
    EXPECT_NE(text(at(e, "message")).find("did you mean"), std::string::npos) << text(at(e, "message"));
    EXPECT_TRUE(backend->drafts().empty());
}

TEST_F(order_fixture, CandidatesAreCapped) {
    auto o = options();
    o.max_candidates = 2;
    mount(std::move(o));
    auto a = call(h.client("alice"), with(valid_order, "/lines/1/sku", R"("SKU-1")"));
    EXPECT_EQ(at(a.error("UNKNOWN_SKU"), "candidates").get_array().size(), 2u);
    EXPECT_EQ(text(at(a.error("UNKNOWN_SKU"), "path")), "/lines/1/sku");
}

TEST_F(order_fixture, StalePriceIsSubstitutedAndSaid) {
    mount();
    // 3 × 9.00 + 2 × 2.50 = 32.00 − 5.00 = 27.00: consistent, but the catalog says 10.00.
    auto a = call(h.client("alice"), with(with(valid_order, "/lines/0/unit_price", "9.00"), "/total", "27.00"));
    ASSERT_EQ(a.status(), "complete") << boost::json::serialize(a.env);
    auto price = a.warning("VALUE_NORMALIZED", 0);
    EXPECT_EQ(text(at(price, "path")), "/lines/0/unit_price");
    EXPECT_EQ(text(at(price, "old")), "9.00");
    EXPECT_EQ(text(at(price, "new")), "10.00");
    auto total = a.warning("VALUE_NORMALIZED", 1);
    EXPECT_EQ(text(at(total, "path")), "/total");
    EXPECT_EQ(text(at(total, "old")), "27.00");
    EXPECT_EQ(text(at(total, "new")), "30.00");
    ASSERT_EQ(backend->drafts().size(), 1u);
    EXPECT_EQ(backend->drafts()[0].order.lines[0].unit_price, dec("10.00"));
    EXPECT_EQ(backend->drafts()[0].order.total, dec("30.00"));
    EXPECT_EQ(text(at(a.data(), "total")), "30.00");
    EXPECT_EQ(metrics->of("create_order_draft", "test-model").fixed_by_backend, 2u);
}

TEST_F(order_fixture, StalePriceIsRefusedWhenTheBackendMayNotSubstitute) {
    auto o = options();
    o.stale_prices = od::stale_price_policy::refuse;
    mount(std::move(o));
    auto a = call(h.client("alice"), with(with(valid_order, "/lines/0/unit_price", "9.00"), "/total", "27.00"));
    ASSERT_THAT(a.codes(), ElementsAre("STALE_PRICE"));
    auto e = a.error("STALE_PRICE");
    EXPECT_EQ(at(e, "repairable"), false);
    EXPECT_EQ(text(at(e, "path")), "/lines/0/unit_price");
    EXPECT_EQ(text(at(e, "catalog_price")), "10.00");
    EXPECT_TRUE(backend->drafts().empty());
}

TEST_F(order_fixture, StalePriceThatBreaksTheDiscountIsRefused) {
    mount();
    // 1 × 1.00, discount 1.00, total 0.00; the catalog price 0.50 would make the total negative.
    backend->set_price("SKU-0050", od::currency_code::USD, dec("0.50"));
    auto a = call(h.client("alice"), R"({"customer_id": "C-1", "currency": "USD", "delivery_date": "2026-12-05",
        "discount": 1.00, "total": 0.00, "lines": [{"sku": "SKU-0050", "quantity": 1, "unit_price": 1.00}]})");
    EXPECT_THAT(a.codes(), ElementsAre("STALE_PRICE"));
    EXPECT_TRUE(backend->drafts().empty());
}

TEST_F(order_fixture, PricesAreLookedUpInTheOrdersCurrency) {
    mount();
    auto a = call(h.client("alice"), R"({"customer_id": "C-1", "currency": "EUR", "delivery_date": "2026-12-05",
        "discount": 0, "total": 9.00, "lines": [{"sku": "SKU-1001", "quantity": 1, "unit_price": 9.00}]})");
    EXPECT_EQ(a.status(), "complete") << boost::json::serialize(a.env);
    auto b = call(h.client("carol"), R"({"customer_id": "C-1", "currency": "RUB", "delivery_date": "2026-12-05",
        "discount": 0, "total": 9.00, "lines": [{"sku": "SKU-1001", "quantity": 1, "unit_price": 9.00}]})");
    EXPECT_THAT(b.codes(), ElementsAre("UNKNOWN_SKU"));
}

TEST_F(order_fixture, PermissionDeniedIsNotRepairableAndRevealsNothing) {
    mount();
    auto a = call(h.client("bob"), valid_order);
    ASSERT_THAT(a.codes(), ElementsAre("PERMISSION_DENIED"));
    auto e = a.error("PERMISSION_DENIED");
    EXPECT_EQ(at(e, "repairable"), false);
    EXPECT_EQ(text(at(e, "layer")), "external");
    EXPECT_EQ(text(at(e, "path")), "/customer_id");
    const auto wire = boost::json::serialize(a.env);
    EXPECT_EQ(wire.find("alice"), std::string::npos);
    EXPECT_EQ(wire.find("carol"), std::string::npos);
    EXPECT_TRUE(backend->drafts().empty());
}

TEST_F(order_fixture, AllExternalIssuesComeInOneAnswer) {
    mount();
    auto a = call(h.client("bob"), with(with(valid_order, "/lines/0/sku", R"("SKU-999")"), "/lines/1/sku", R"("X")"));
    EXPECT_THAT(a.codes(), UnorderedElementsAre("PERMISSION_DENIED", "UNKNOWN_SKU", "UNKNOWN_SKU"));
    EXPECT_TRUE(backend->drafts().empty());
}

TEST_F(order_fixture, FailingCatalogIsSourceUnavailableNeverAPass) {
    mount();
    backend->mode = od::memory_backend::catalog_mode::failing;
    auto a = call(h.client("alice"), valid_order);
    ASSERT_THAT(a.codes(), ElementsAre("SOURCE_UNAVAILABLE"));
    auto e = a.error("SOURCE_UNAVAILABLE");
    EXPECT_EQ(at(e, "repairable"), false);
    EXPECT_EQ(text(at(e, "source")), "catalog");
    EXPECT_EQ(text(at(e, "cause")), "failure");
    EXPECT_TRUE(backend->drafts().empty());
}

TEST_F(order_fixture, AFailingDraftStoreStoresNothingAndSaysSo) {
    mount();
    backend->drafts_failing = true;
    auto a = call(h.client("alice"), valid_order);
    ASSERT_THAT(a.codes(), ElementsAre("SOURCE_UNAVAILABLE"));
    EXPECT_EQ(a.status(), "error");
    EXPECT_EQ(text(at(a.error("SOURCE_UNAVAILABLE"), "source")), "drafts");
    EXPECT_TRUE(backend->drafts().empty());
    backend->drafts_failing = false;
    EXPECT_EQ(call(h.client("alice"), valid_order).status(), "complete");
    EXPECT_EQ(backend->drafts().size(), 1u);
}

TEST_F(order_fixture, SlowCatalogMissesItsDeadline) {
    auto o = options();
    o.catalog_deadline = std::chrono::milliseconds(20);
    mount(std::move(o));
    backend->mode = od::memory_backend::catalog_mode::hanging;
    auto a = call(h.client("alice"), valid_order);
    ASSERT_THAT(a.codes(), ElementsAre("SOURCE_UNAVAILABLE"));
    EXPECT_EQ(text(at(a.error("SOURCE_UNAVAILABLE"), "cause")), "deadline");
    EXPECT_TRUE(backend->drafts().empty());
    auto c = metrics->of("create_order_draft", "test-model");
    EXPECT_EQ(c.external_checks, 2u);
    EXPECT_EQ(c.external_unavailable, 1u);
    EXPECT_GE(c.external_latency_us_max, 20'000u);
}

TEST_F(order_fixture, ReversibleWriteMayStoreAnUnverifiedDraft) {
    auto o = options();
    o.validation.allow_unverified_draft = true;
    mount(std::move(o));
    backend->mode = od::memory_backend::catalog_mode::failing;
    auto a = call(h.client("alice"), valid_order);
    EXPECT_EQ(a.status(), "partial") << boost::json::serialize(a.env);
    EXPECT_EQ(at(a.env, "complete"), false);
    EXPECT_THAT(a.reason_codes(), ElementsAre("SOURCE_UNAVAILABLE"));
    EXPECT_THAT(a.warning_codes(), ElementsAre("UNVERIFIED_DRAFT"));
    EXPECT_EQ(at(a.data(), "verified"), false);
    ASSERT_EQ(backend->drafts().size(), 1u);
    EXPECT_TRUE(backend->drafts()[0].unverified);
    EXPECT_EQ(metrics->of("create_order_draft", "test-model").unverified_drafts, 1u);
}

TEST_F(order_fixture, UnverifiedDraftNeedsEveryOtherCheckToPass) {
    auto o = options();
    o.validation.allow_unverified_draft = true;
    mount(std::move(o));
    backend->mode = od::memory_backend::catalog_mode::failing;
    auto a = call(h.client("bob"), valid_order);
    EXPECT_THAT(a.codes(), UnorderedElementsAre("PERMISSION_DENIED", "SOURCE_UNAVAILABLE"));
    EXPECT_TRUE(backend->drafts().empty());
}

TEST_F(order_fixture, IrreversibleWriteNeverRunsUnverified) {
    auto o = options();
    o.name = "place_order";
    o.action = candor::mcp::action_class::irreversible_write;
    o.validation.allow_unverified_draft = true;  // applies to reversible writes only
    mount(std::move(o));
    backend->mode = od::memory_backend::catalog_mode::failing;
    auto a = harness::call(h.client("alice"), "place_order", valid_order);
    EXPECT_THAT(a.codes(), ElementsAre("SOURCE_UNAVAILABLE"));
    EXPECT_TRUE(backend->drafts().empty());
}

TEST_F(order_fixture, RepairBudgetStopsTheSecondFailedRepair) {
    mount();
    auto& alice = h.client("alice");
    auto first = call(alice, with(valid_order, "/total", "31"));
    ASSERT_THAT(first.codes(), ElementsAre("TOTAL_MISMATCH"));
    EXPECT_EQ(at(first.error("TOTAL_MISMATCH"), "repairs_remaining"), 1);
    EXPECT_EQ(at(first.error("TOTAL_MISMATCH"), "repairable"), true);

    auto second = call(alice, with(valid_order, "/total", "32"));
    ASSERT_THAT(second.codes(), ElementsAre("REPAIR_LIMIT_EXCEEDED", "TOTAL_MISMATCH"));
    auto limit = second.error("REPAIR_LIMIT_EXCEEDED");
    EXPECT_EQ(at(limit, "repairable"), false);
    EXPECT_EQ(at(limit, "repairs_remaining"), 0);
    EXPECT_EQ(at(limit, "max_repairs"), 1);
    EXPECT_EQ(at(second.error("TOTAL_MISMATCH"), "repairable"), false);

    auto third = call(alice, with(valid_order, "/delivery_date", R"("2000-01-01")"));
    EXPECT_THAT(third.codes(), ElementsAre("REPAIR_LIMIT_EXCEEDED", "DELIVERY_DATE_IN_PAST"));

    // A call that passes clears the count.
    EXPECT_EQ(call(alice, valid_order).status(), "complete");
    auto again = call(alice, with(valid_order, "/total", "31"));
    EXPECT_THAT(again.codes(), ElementsAre("TOTAL_MISMATCH"));
    EXPECT_EQ(at(again.error("TOTAL_MISMATCH"), "repairs_remaining"), 1);
    EXPECT_EQ(backend->drafts().size(), 1u);
}

TEST_F(order_fixture, RepairBudgetCountsEveryLayer) {
    mount();
    auto& alice = h.client("alice");
    EXPECT_THAT(call(alice, with(valid_order, "/currency", R"("GBP")")).codes(), ElementsAre("ENUM_MISMATCH"));
    EXPECT_THAT(call(alice, with(valid_order, "/lines/0/sku", R"("NOPE")")).codes(),
                ElementsAre("REPAIR_LIMIT_EXCEEDED", "UNKNOWN_SKU"));
}

TEST_F(order_fixture, RepairBudgetIsPerCallerAndPerSession) {
    mount();
    auto& alice = h.client("alice");
    auto& carol = h.client("carol");
    call(alice, with(valid_order, "/total", "31"));
    // Carol has her own budget.
    EXPECT_THAT(call(carol, with(valid_order, "/total", "31")).codes(), ElementsAre("TOTAL_MISMATCH"));
    // Alice's second session has its own budget; alice without a session shares the
    // principal's.
    auto& alice_s2 = h.client("alice", false, "session-2");
    EXPECT_THAT(call(alice_s2, with(valid_order, "/total", "31")).codes(), ElementsAre("TOTAL_MISMATCH"));
    auto& alice_again = h.client("alice");
    EXPECT_THAT(call(alice_again, with(valid_order, "/total", "31")).codes(),
                ElementsAre("REPAIR_LIMIT_EXCEEDED", "TOTAL_MISMATCH"));
}

TEST_F(order_fixture, RepairBudgetForgetsAfterTheWindow) {
    mount();
    auto& alice = h.client("alice");
    call(alice, with(valid_order, "/total", "31"));
    now += std::chrono::minutes(11);
    EXPECT_THAT(call(alice, with(valid_order, "/total", "31")).codes(), ElementsAre("TOTAL_MISMATCH"));
}

TEST_F(order_fixture, OutagesDoNotUseRepairAttempts) {
    mount();
    backend->mode = od::memory_backend::catalog_mode::failing;
    auto& alice = h.client("alice");
    EXPECT_THAT(call(alice, valid_order).codes(), ElementsAre("SOURCE_UNAVAILABLE"));
    EXPECT_THAT(call(alice, valid_order).codes(), ElementsAre("SOURCE_UNAVAILABLE"));
    backend->mode = od::memory_backend::catalog_mode::up;
    EXPECT_THAT(call(alice, with(valid_order, "/total", "31")).codes(), ElementsAre("TOTAL_MISMATCH"));
}

TEST_F(order_fixture, MaxRepairsIsConfigurable) {
    cv::repair_budget_options ro;
    ro.max_repairs = 2;
    repairs = std::make_shared<cv::repair_budget>(ro);
    mount();
    auto& alice = h.client("alice");
    EXPECT_EQ(at(call(alice, with(valid_order, "/total", "31")).error("TOTAL_MISMATCH"), "repairs_remaining"), 2);
    EXPECT_EQ(at(call(alice, with(valid_order, "/total", "31")).error("TOTAL_MISMATCH"), "repairs_remaining"), 1);
    EXPECT_THAT(call(alice, with(valid_order, "/total", "31")).codes(),
                ElementsAre("REPAIR_LIMIT_EXCEEDED", "TOTAL_MISMATCH"));
}

// Two replicas (two servers, each with its own budget) that share their counts in one database:
// a caller who fails on one and then on the other has used up its repairs.
TEST_F(order_fixture, RepairCountsSharedByTwoReplicasAddUp) {
    auto db = candor::sqlite::open_sql_database(":memory:").value();
    cv::repair_budget_options shared;
    shared.shared = candor::state::sql_repair_counts::open(db, std::make_shared<candor::offload::worker>()).value();
    auto first = options();
    first.validation.repairs = std::make_shared<cv::repair_budget>(shared);
    auto second = options();
    second.validation.repairs = std::make_shared<cv::repair_budget>(shared);
    mount(std::move(first));
    harness other;
    other.server().add_tool(od::make_create_order_draft(std::move(second))).value();
    const auto wrong_total = with(valid_order, "/total", "31");
    auto& on_first = h.client("alice");
    auto& on_second = other.client("alice");
    EXPECT_EQ(at(call(on_first, wrong_total).error("TOTAL_MISMATCH"), "repairs_remaining"), 1);
    EXPECT_THAT(harness::call(on_second, "create_order_draft", wrong_total).codes(),
                ElementsAre("REPAIR_LIMIT_EXCEEDED", "TOTAL_MISMATCH"));
    // A call that passes on one replica clears the caller's count on both.
    EXPECT_EQ(call(on_first, valid_order).status(), "complete");
    EXPECT_EQ(
        at(harness::call(on_second, "create_order_draft", wrong_total).error("TOTAL_MISMATCH"), "repairs_remaining"),
        1);
}

TEST_F(order_fixture, NoSideEffectOnAnyFailingPath) {
    mount();
    const std::string failing[] = {
        with(valid_order, "/currency", R"("GBP")"),
        with(valid_order, "/total", "31"),
        with(with(valid_order, "/discount", "50"), "/total", "0"),
        with(valid_order, "/delivery_date", R"("2001-01-01")"),
        with(valid_order, "/lines/0/sku", R"("NOPE")"),
    };
    for (const auto& args : failing) {
        auto& c = h.client("alice", false, "s-" + std::to_string(&args - failing));
        EXPECT_EQ(call(c, args).status(), "error") << args;
    }
    EXPECT_EQ(call(h.client("bob"), valid_order).status(), "error");
    backend->mode = od::memory_backend::catalog_mode::failing;
    EXPECT_EQ(call(h.client("carol"), valid_order).status(), "error");
    EXPECT_TRUE(backend->drafts().empty());
    EXPECT_EQ(metrics->of("create_order_draft", "test-model").stopped_before_write, 7u);
}

TEST_F(order_fixture, MetricsCountFirstPassesRepairsAndIssues) {
    mount();
    auto& alice = h.client("alice");
    call(alice, valid_order);                                  // first pass, valid
    call(alice, with(valid_order, "/total", "31"));            // first pass, invalid
    call(alice, valid_order);                                  // repair, succeeds
    call(alice, with(valid_order, "/lines/0/sku", R"("X")"));  // first pass, invalid
    call(alice, with(valid_order, "/total", "31"));            // repair, fails: limit
    auto c = metrics->of("create_order_draft", "test-model");
    EXPECT_EQ(c.calls, 5u);
    EXPECT_EQ(c.first_pass_calls, 3u);
    EXPECT_EQ(c.first_pass_valid, 1u);
    EXPECT_EQ(c.failed_attempts, 3u);
    EXPECT_EQ(c.repair_attempts, 2u);
    EXPECT_EQ(c.repair_successes, 1u);
    EXPECT_EQ(c.repair_limit_hits, 1u);
    EXPECT_EQ(c.issues_by_code["TOTAL_MISMATCH"], 2u);
    EXPECT_EQ(c.issues_by_code["UNKNOWN_SKU"], 1u);
    EXPECT_EQ(c.issues_by_code["REPAIR_LIMIT_EXCEEDED"], 1u);
    EXPECT_EQ(c.issues_by_layer["business"], 3u);
    EXPECT_EQ(c.issues_by_layer["external"], 1u);
    EXPECT_EQ(c.stopped_before_write, 3u);
    EXPECT_DOUBLE_EQ(c.first_pass_validity_rate(), 1.0 / 3.0);
    EXPECT_DOUBLE_EQ(c.repair_rate(), 2.0 / 3.0);
    EXPECT_DOUBLE_EQ(c.repair_success_rate(), 0.5);
    EXPECT_EQ(metrics->snapshot().size(), 1u);
    EXPECT_EQ(metrics->snapshot()[0].client, "test-model");
}

TEST_F(order_fixture, ToolsListAdvertisesTheSeedShape) {
    mount();
    auto r = h.client("alice").request("tools/list");
    auto tool = item(at(at(r, "result"), "tools"), 0);
    auto schema = at(tool, "inputSchema");
    EXPECT_EQ(at(schema, "additionalProperties"), false);
    auto props = at(schema, "properties");
    EXPECT_EQ(at(at(props, "currency"), "enum"), boost::json::parse(R"(["RUB","USD","EUR"])"));
    EXPECT_EQ(text(at(at(props, "delivery_date"), "format")), "date");
    EXPECT_EQ(at(at(props, "lines"), "minItems"), 1);
    EXPECT_EQ(at(at(props, "lines"), "maxItems"), 50);
    EXPECT_EQ(at(props, "plan_token"), "<missing>");  // a reversible write needs no approval
    EXPECT_EQ(at(at(tool, "annotations"), "destructiveHint"), false);
}

TEST(OrderDraftInvariants, SubtotalIsExact) {
    od::order_args a;
    a.lines.push_back({"A", 3, dec("0.10")});
    a.lines.push_back({"B", 1, dec("0.20")});
    EXPECT_EQ(od::subtotal(a).value(), dec("0.5"));
    a.total = dec("0.50");
    a.delivery_date = "2000-01-01";
    EXPECT_TRUE(od::business_issues(a, "2000-01-01").empty());
    a.delivery_date = "1999-12-31";
    EXPECT_EQ(od::business_issues(a, "2000-01-01").size(), 1u);
}

}  // namespace
