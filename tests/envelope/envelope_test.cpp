#include <candor/envelope/envelope.hpp>

#include <candor/json/write.hpp>

#include <gtest/gtest.h>

#include <boost/json/monotonic_resource.hpp>
#include <boost/json/parse.hpp>

namespace ce = candor::envelope;

namespace {

ce::reason limit_reason() {
    return {std::string(ce::reason_codes::result_limit_reached), "more notes matched than limit",
            boost::json::object{{"limit", 5}}};
}

// Field lookups that fail as test failures, not as dereferences (and keep GCC's
// -Wnull-dereference quiet about boost::json::object::at inlined into assertions).
boost::json::value field(const boost::json::value& v, std::string_view key) {
    if (const auto* o = v.if_object())
        if (const auto* f = o->if_contains(key)) return *f;
    return "<missing>";
}

candor::issue sample_issue() {
    candor::issue i;
    i.code = "TYPE_MISMATCH";
    i.path = "/limit";
    i.message = "expected an integer";
    i.where = candor::layer::contract;
    return i;
}

}  // namespace

TEST(Envelope, CompleteResultSealsWithEveryFieldInOrder) {
    auto sealed = ce::seal(ce::complete(boost::json::array{1, 2}), "search_notes");
    ASSERT_TRUE(sealed);
    EXPECT_EQ(candor::json::to_string(*sealed).value(),
              R"({"status":"complete","complete":true,"incomplete_reasons":[],"continuation":null,)"
              R"("scope":{"resource":"search_notes","visibility":"caller","snapshot":"none"},)"
              R"("warnings":[],"data":[1,2]})");
}

TEST(Envelope, PartialResultMergesReasonDetails) {
    auto e = ce::partial(boost::json::array{}, limit_reason());
    auto sealed = ce::seal(e, "t");
    ASSERT_TRUE(sealed);
    const boost::json::value env = *sealed;
    const auto r = field(env, "incomplete_reasons").as_array().at(0);
    EXPECT_EQ(field(r, "code"), "RESULT_LIMIT_REACHED");
    EXPECT_EQ(field(r, "limit"), 5);
    EXPECT_EQ(field(env, "status"), "partial");
    EXPECT_EQ(field(env, "complete"), false);
}

TEST(Envelope, FourStatesStayDistinguishable) {
    const auto full = boost::json::array{1};
    const auto empty = boost::json::array{};
    auto a = ce::seal(ce::complete(full)).value();
    auto b = ce::seal(ce::complete(empty)).value();
    auto c = ce::seal(ce::partial(full, limit_reason())).value();
    auto d = ce::seal(ce::partial(empty, limit_reason())).value();
    EXPECT_NE(a, b);
    EXPECT_NE(a, c);
    EXPECT_NE(b, d);
    EXPECT_NE(c, d);
    EXPECT_EQ(field(b, "complete"), true);
    EXPECT_EQ(field(d, "complete"), false);
    EXPECT_EQ(field(d, "data"), boost::json::array{});
}

TEST(Envelope, RefusesEmptyListWithoutVerdict) {
    ce::envelope e;
    e.data = boost::json::array{};
    EXPECT_EQ(ce::check(e).error(), ce::breach::verdict_missing);
}

TEST(Envelope, RefusesCompleteWithReasons) {
    auto e = ce::complete(boost::json::array{});
    e.add_reason(limit_reason());
    EXPECT_EQ(ce::check(e).error(), ce::breach::complete_with_reasons);
}

TEST(Envelope, RefusesIncompleteWithoutReasons) {
    auto e = ce::partial(boost::json::array{}, limit_reason());
    e.incomplete_reasons.clear();
    EXPECT_EQ(ce::check(e).error(), ce::breach::incomplete_without_reasons);
}

TEST(Envelope, RefusesStatusCompleteOnIncompleteResult) {
    auto e = ce::partial(boost::json::array{}, limit_reason());
    e.status = ce::outcome::complete;
    EXPECT_EQ(ce::check(e).error(), ce::breach::status_contradicts_verdict);
    auto f = ce::complete(boost::json::array{});
    f.complete = false;
    EXPECT_EQ(ce::check(f).error(), ce::breach::status_contradicts_verdict);
}

TEST(Envelope, RefusesErrorWithoutErrors) {
    EXPECT_EQ(ce::check(ce::failure({})).error(), ce::breach::error_without_errors);
}

TEST(Envelope, RefusesDataOnError) {
    auto e = ce::failure({sample_issue()});
    e.data = 1;
    EXPECT_EQ(ce::check(e).error(), ce::breach::data_on_error);
}

TEST(Envelope, RefusesErrorsOnSuccess) {
    auto e = ce::complete(1);
    e.errors.push_back(sample_issue());
    EXPECT_EQ(ce::check(e).error(), ce::breach::errors_without_error);
}

TEST(Envelope, RefusesSuccessWithoutData) {
    auto e = ce::complete(1);
    e.data.reset();
    EXPECT_EQ(ce::check(e).error(), ce::breach::data_missing);
}

TEST(Envelope, RefusesContinuationOnCompleteResult) {
    auto e = ce::complete(1);
    e.continue_with(ce::continuation::next_cursor("abc"));
    EXPECT_EQ(ce::check(e).error(), ce::breach::continuation_on_complete);
}

TEST(Envelope, RefusesCursorContinuationWithoutCursor) {
    auto e = ce::partial(1, limit_reason());
    e.continue_with(ce::continuation::next_cursor(""));
    EXPECT_EQ(ce::check(e).error(), ce::breach::invalid_continuation);
    e.continue_with(ce::continuation::retry_after(0));
    EXPECT_EQ(ce::check(e).error(), ce::breach::invalid_continuation);
}

TEST(Envelope, RefusesCodesThatAreNotUpperSnake) {
    auto e = ce::partial(1, {"result-limit", "x", {}});
    EXPECT_EQ(ce::check(e).error(), ce::breach::invalid_code);
    auto w = ce::complete(1);
    w.add_warning({"", "x", {}});
    EXPECT_EQ(ce::check(w).error(), ce::breach::invalid_code);
}

TEST(Envelope, RefusesDetailsThatOverwriteCodeOrMessage) {
    auto e = ce::partial(1, {"RATE_LIMITED", "x", boost::json::object{{"code", "OK"}}});
    EXPECT_EQ(ce::check(e).error(), ce::breach::reserved_key);
}

TEST(Envelope, RefusesExtensionsThatOverwriteFields) {
    auto e = ce::complete(1);
    e.extensions["page"] = boost::json::object{{"returned", 1}};
    EXPECT_TRUE(ce::check(e));
    e.extensions["complete"] = true;
    EXPECT_EQ(ce::check(e).error(), ce::breach::reserved_key);
}

TEST(Envelope, ErrorEnvelopeCarriesLayerAndNoData) {
    const boost::json::value sealed = ce::seal(ce::failure({sample_issue()}), "t").value();
    EXPECT_EQ(field(sealed, "status"), "error");
    EXPECT_EQ(field(sealed, "complete"), false);
    EXPECT_EQ(field(sealed, "data"), "<missing>");
    const auto err = field(sealed, "errors").as_array().at(0);
    EXPECT_EQ(field(err, "layer"), "contract");
    EXPECT_EQ(field(err, "path"), "/limit");
    EXPECT_EQ(field(err, "repairable"), true);
}

TEST(Envelope, IssueDetailsNeverOverwriteRoutingFields) {
    auto i = sample_issue();
    i.details["code"] = "FAKE";
    i.details["limit"] = 3;
    const boost::json::value o = ce::to_json(i);
    EXPECT_EQ(field(o, "code"), "TYPE_MISMATCH");
    EXPECT_EQ(field(o, "limit"), 3);
}

TEST(Envelope, ContinuationKindsSerializeTheirOwnField) {
    auto e = ce::partial(1, limit_reason());
    e.continue_with(ce::continuation::retry_with_deadline(250));
    const boost::json::value sealed = ce::seal(e).value();
    EXPECT_EQ(field(sealed, "continuation"),
              (boost::json::object{{"kind", "retry_with_deadline"}, {"minimum_ms", 250}}));
}

TEST(Envelope, InternalErrorEnvelopeHasNoInternals) {
    const boost::json::value o = ce::internal_error_envelope("t");
    const auto err = field(o, "errors").as_array().at(0);
    EXPECT_EQ(field(err, "code"), "INTERNAL_ERROR");
    EXPECT_EQ(field(err, "repairable"), false);
    EXPECT_EQ(err.as_object().size(), 5u);
}

TEST(Envelope, MovingSealWritesWhatCopyingSealWrites) {
    auto make = [] {
        auto e = ce::partial(boost::json::array{boost::json::object{{"id", "T-1"}, {"n", 1}}, boost::json::object{{"id", "T-2"}}},
                             limit_reason());
        e.continue_with(ce::continuation::next_cursor("abc"));
        e.extensions["page"] = boost::json::object{{"returned", 2}};
        e.add_warning({"LIVE_VIEW", "live", {}});
        return e;
    };
    const auto copy_source = make();
    auto copied = ce::seal(copy_source, "t");
    auto moved = ce::seal(make(), "t");
    ASSERT_TRUE(copied);
    ASSERT_TRUE(moved);
    EXPECT_EQ(candor::json::to_string(*moved).value(), candor::json::to_string(*copied).value());
}

TEST(Envelope, MovingSealLeavesTheEnvelopeOnABreach) {
    auto e = ce::complete(boost::json::array{1, 2});
    e.extensions["complete"] = true;  // reserved: a breach
    auto sealed = ce::seal(std::move(e), "t");
    ASSERT_FALSE(sealed);
    EXPECT_EQ(sealed.error(), ce::breach::reserved_key);
    ASSERT_TRUE(e.data);  // NOLINT(bugprone-use-after-move): a breach moves nothing
    EXPECT_EQ(*e.data, (boost::json::array{1, 2}));
}

TEST(Envelope, MovingSealCopiesDataOutOfAnotherArena) {
    boost::json::object sealed;
    {
        boost::json::monotonic_resource arena;
        boost::json::storage_ptr sp(&arena);
        boost::json::array items(sp);
        items.emplace_back(boost::json::object({{"id", "a long enough string to be allocated"}}, sp));
        auto e = ce::complete(boost::json::value(std::move(items), sp));
        sealed = ce::seal(std::move(e), "t").value();
    }  // the arena is gone; the sealed result must not point into it (ASan checks this)
    EXPECT_EQ(sealed.at("data").at(0).at("id"), "a long enough string to be allocated");
}

TEST(Envelope, WrittenDataCountsAsDataForEveryRuleAndSealsAsItsValue) {
    ce::envelope e = ce::complete(boost::json::value(nullptr));
    e.data.reset();
    e.data_written = candor::json::written::adopt(R"([{"id":"a"}])");
    ASSERT_TRUE(ce::check(e));
    EXPECT_EQ(ce::data_value(e), boost::json::parse(R"([{"id":"a"}])"));
    auto sealed = ce::seal(e, "t").value();
    EXPECT_EQ(sealed.at("data"), boost::json::parse(R"([{"id":"a"}])"));
    auto moved = ce::seal(std::move(e), "t").value();
    EXPECT_EQ(moved, sealed);

    auto err = ce::failure({sample_issue()});
    err.data_written = candor::json::written::adopt("[]");
    EXPECT_EQ(ce::check(err).error(), ce::breach::data_on_error);
    EXPECT_FALSE(ce::data_value(ce::failure({sample_issue()})));
}
