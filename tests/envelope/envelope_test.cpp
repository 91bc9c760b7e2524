// SPDX-License-Identifier: BSL-1.0
#include <candor/envelope/envelope.hpp>

#include <candor/json/write.hpp>

#include <gtest/gtest.h>

#include <boost/json/monotonic_resource.hpp>
#include <boost/json/parse.hpp>

#include <cmath>
#include <vector>

namespace ce = candor::envelope;

namespace {

ce::reason limit_reason() {
    return {std::string(ce::reason_codes::result_limit_reached), "more notes matched than limit",
            boost::json::object{{"limit", 5}}};
}

// Field lookups that fail as test failures, not as dereferences.
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
        auto e = ce::partial(
            boost::json::array{boost::json::object{{"id", "T-1"}, {"n", 1}}, boost::json::object{{"id", "T-2"}}},
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

// ---------------------------------------------------------------------------------------------
// write_sealed: the response path writes the envelope without sealing it into an object first;
// it must produce exactly the bytes of the sealed object, and fail exactly where it would.

namespace {

std::vector<ce::envelope> wire_samples() {
    std::vector<ce::envelope> out;
    out.push_back(ce::complete(boost::json::array{1, "two", nullptr, 3.5, boost::json::object{{"k", true}}}));
    out.push_back(ce::complete(boost::json::object{}));
    out.push_back(ce::complete("scalar \"data\"\n\u00e9"));

    auto p = ce::partial(boost::json::array{}, limit_reason());
    p.add_reason({"SOURCE_UNAVAILABLE",
                  "shard 2 timed out",
                  {{"source", "shard-2"}, {"nested", boost::json::array{1, {2, 3}}}}});
    p.add_warning({"LIVE_VIEW", "live \"view\"", {}});
    p.add_warning({"STALE_INDEX", "index lags", {{"lag_ms", 1500}, {"exact", false}}});
    p.covering({"tickets", "principal:alice", "v42"});
    p.extensions["page"] = boost::json::object{{"returned", 0}, {"snapshot", nullptr}};
    p.extensions["é-key \"quoted\""] = -7;
    out.push_back(p);

    for (auto c :
         {ce::continuation::next_cursor("c.ur\"sor"), ce::continuation::retry_after(30),
          ce::continuation::retry_with_deadline(2500), ce::continuation::narrow_query("ask for one department"),
          ce::continuation::restart("snapshot gone")}) {
        auto e = ce::partial(boost::json::array{1}, limit_reason());
        e.continue_with(c);
        out.push_back(e);
    }

    auto w = ce::complete(nullptr);
    w.data.reset();
    w.data_written = candor::json::written::adopt(R"([{"id":"T-000003"},{"id":"T-000027"}])");
    out.push_back(w);

    auto both = ce::complete(boost::json::array{"tree"});
    both.data_written = candor::json::written::adopt(R"(["text"])");  // the text wins, as in seal()
    out.push_back(both);

    auto i = sample_issue();
    i.keyword = "type";
    i.details = {{"code", "X"}, {"repairable", 1}, {"layer", "no"}, {"keyword", "k"}, {"limit", 10}, {"hint", "h"}};
    auto j = sample_issue();
    j.details = {{"keyword", 3}, {"path", "/x"}};  // no keyword of its own: a detail "keyword" stays
    j.repairable = false;
    j.where = candor::layer::external;
    auto f = ce::failure({i, j});
    f.extensions["attempt"] = 2;
    out.push_back(f);
    return out;
}

std::string sealed_text(const ce::envelope& e, std::size_t max_depth = 512) {
    std::string text = "prefix:";
    auto done = candor::json::write(ce::seal(e, "tool_x").value(), text, max_depth);
    return done ? text : "error:" + std::string(candor::json::to_string(done.error()));
}

std::string direct_text(const ce::envelope& e, std::size_t max_depth = 512) {
    std::string text = "prefix:";
    auto done = ce::write_sealed(e, "tool_x", text, max_depth);
    if (done) return text;
    // A failed write leaves the output as it was.
    return text == "prefix:" ? "error:" + std::string(candor::json::to_string(done.error())) : "error: output changed";
}

}  // namespace

TEST(EnvelopeWire, WritesTheBytesOfTheSealedObject) {
    for (const auto& e : wire_samples()) {
        ASSERT_TRUE(ce::check(e));
        EXPECT_EQ(direct_text(e), sealed_text(e));
    }
}

TEST(EnvelopeWire, FailsWhereTheSealedObjectFailsAndLeavesTheOutput) {
    auto bad_utf8 = ce::complete(boost::json::array{"ok", std::string_view("\xff\xfe", 2)});
    auto bad_key = ce::complete(boost::json::array{});
    bad_key.extensions[std::string_view("\xc3", 1)] = 1;
    auto non_finite = ce::partial(boost::json::array{}, {"RESULT_LIMIT_REACHED", "m", {{"ratio", std::nan("")}}});
    auto bad_message = ce::failure({sample_issue()});
    bad_message.errors[0].message = std::string("\xe2\x82", 2);
    auto bad_scope = ce::complete(1);
    bad_scope.scope.snapshot = std::string("\x80", 1);
    for (const auto& e : {bad_utf8, bad_key, non_finite, bad_message, bad_scope}) {
        ASSERT_TRUE(ce::check(e));
        EXPECT_EQ(direct_text(e), sealed_text(e));
        EXPECT_EQ(direct_text(e).rfind("error:", 0), 0u) << direct_text(e);
    }
}

TEST(EnvelopeWire, DepthCeilingBitesAtTheSameLevel) {
    // Data nested four deep, a reason's details two deep inside the head: every ceiling from 0
    // up gives the same answer as the tree writer.
    auto e = ce::partial(boost::json::array{boost::json::array{boost::json::array{1}}},
                         {"RESULT_LIMIT_REACHED", "m", {{"shape", boost::json::object{{"a", boost::json::array{}}}}}});
    e.extensions["ext"] = boost::json::object{{"deep", boost::json::object{{"er", boost::json::array{}}}}};
    for (std::size_t depth = 0; depth <= 8; ++depth) EXPECT_EQ(direct_text(e, depth), sealed_text(e, depth)) << depth;
}
