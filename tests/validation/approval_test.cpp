// SPDX-License-Identifier: BSL-1.0
#include <candor/validation/approval.hpp>

#include "support.hpp"

#include <candor/evidence/store.hpp>
#include <candor/validation/approval_gate.hpp>
#include <candor/validation/layers.hpp>

#include <boost/describe/class.hpp>
#include <boost/json/parse.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace notes {

struct archive_args {
    std::vector<std::string> ids;
    std::string reason;
};
BOOST_DESCRIBE_STRUCT(archive_args, (), (ids, reason))

inline void describe_contract(candor::contract::spec<archive_args>& s) {
    s.field(&archive_args::ids).items(1, 20).length(1, 32);
    s.field(&archive_args::reason).length(1, 200);
}

// An action's own argument beside the evidence layer's.
struct purge_reason {
    std::string reason;
};
BOOST_DESCRIBE_STRUCT(purge_reason, (), (reason))

}  // namespace notes

namespace {

namespace cv = candor::validation;
using notes::archive_args;
using notes::purge_reason;
using ::testing::ElementsAre;
using validation_test::answer;
using validation_test::at;
using validation_test::harness;
using validation_test::text;

// Everything archive_notes did to the world.
struct world {
    std::set<std::string> notes{"n1", "n2", "n3", "n4"};
    std::vector<std::string> archived;
    int external_checks = 0;
};

// An approver scripted by the test: records what it was asked and answers as told.
struct scripted_approver : cv::approver {
    bool can_ask = true;
    cv::approval_decision answer;
    std::vector<cv::approval_request> asked;
    bool available(const candor::mcp::call_context&) const override { return can_ask; }
    boost::asio::awaitable<cv::approval_decision> ask(const cv::approval_request& r,
                                                      candor::mcp::call_context&) override {
        asked.push_back(r);
        co_return answer;
    }
};

// Archives notes for good: a business rule (no id twice), an external check (the notes exist),
// and approval, with narrowing.
void add_archive_notes(candor::mcp::server& srv, std::shared_ptr<world> w, cv::validation_options o,
                       cv::approval_options approvals, std::string name = "archive_notes") {
    cv::add_tool(
        srv,
        candor::mcp::tool_info(std::move(name), "Archives notes for good.")
            .with_action(candor::mcp::action_class::irreversible_write),
        [w](archive_args a, const cv::verdict& v,
            candor::mcp::call_context&) -> boost::asio::awaitable<candor::envelope::envelope> {
            boost::json::array done;
            for (auto& id : a.ids) {
                w->archived.push_back(id);
                done.emplace_back(id);
            }
            co_return candor::envelope::complete(
                boost::json::object{{"archived", std::move(done)}, {"approved", v.approved}});
        },
        std::move(o), cv::invariant<archive_args>{[](const archive_args& a) {
            candor::issue_list out;
            std::set<std::string> seen;
            for (std::size_t i = 0; i < a.ids.size(); ++i)
                if (!seen.insert(a.ids[i]).second)
                    out.push_back({"DUPLICATE_ID",
                                   "/ids/" + std::to_string(i),
                                   "listed twice",
                                   true,
                                   candor::layer::business,
                                   {},
                                   {}});
            return out;
        }},
        cv::external_check<archive_args>{"notes", std::chrono::milliseconds(500),
                                         [w](const archive_args& a, candor::mcp::call_context&)
                                             -> boost::asio::awaitable<cv::check_result<archive_args>> {
                                             ++w->external_checks;
                                             cv::check_result<archive_args> r;
                                             for (std::size_t i = 0; i < a.ids.size(); ++i)
                                                 if (!w->notes.contains(a.ids[i]))
                                                     r.issues.push_back({"NOTE_NOT_FOUND",
                                                                         "/ids/" + std::to_string(i),
                                                                         "no such note",
                                                                         true,
                                                                         candor::layer::contract,
                                                                         {},
                                                                         {}});
                                             co_return r;
                                         }},
        cv::approval<archive_args>{.plan =
                                       [](const archive_args& a, const cv::verdict&) {
                                           cv::action_plan p;
                                           p.summary = "Archive " + std::to_string(a.ids.size()) + " note(s)";
                                           p.targets = a.ids;
                                           return p;
                                       },
                                   .narrow =
                                       [](archive_args& a, const std::vector<std::string>& ids) {
                                           a.ids = ids;
                                           return true;
                                       },
                                   .options = std::move(approvals)})
        .value();
}

struct approval_fixture : ::testing::Test {
    std::shared_ptr<world> w = std::make_shared<world>();
    std::shared_ptr<scripted_approver> approver = std::make_shared<scripted_approver>();
    std::shared_ptr<const candor::seal::key_ring> keys = std::make_shared<const candor::seal::key_ring>(
        candor::seal::key_ring::from_keys({{"k1", std::string(32, 'k')}}).value());
    std::chrono::system_clock::time_point wall = std::chrono::system_clock::now();
    harness h;

    cv::validation_options options() {
        cv::validation_options o;
        o.metrics = std::make_shared<cv::metrics>();
        return o;
    }
    cv::approval_options approvals(bool with_approver) {
        cv::approval_options o;
        o.plan_keys = keys;
        o.plan_ttl = std::chrono::seconds(60);
        o.wall_clock = [this] { return wall; };
        if (with_approver) o.approver = approver;
        return o;
    }
    void mount(bool with_approver, std::string name = "archive_notes") {
        add_archive_notes(h.server(), w, options(), approvals(with_approver), std::move(name));
    }
    static std::string with_token(std::string_view args, const std::string& token) {
        auto v = boost::json::parse(args);
        v.as_object()["plan_token"] = token;
        return boost::json::serialize(v);
    }
    static std::string token_of(const answer& a) { return text(at(a.error("PLAN_TOKEN_REQUIRED"), "plan_token")); }
};

constexpr std::string_view two_notes = R"({"ids": ["n1", "n2"], "reason": "done"})";

TEST_F(approval_fixture, WithoutElicitationTheFirstCallReturnsAPlanAndDoesNothing) {
    mount(false);
    auto a = harness::call(h.client("alice"), "archive_notes", two_notes);
    ASSERT_THAT(a.codes(), ElementsAre("PLAN_TOKEN_REQUIRED"));
    auto e = a.error("PLAN_TOKEN_REQUIRED");
    EXPECT_EQ(at(e, "repairable"), true);
    auto plan = at(e, "plan");
    EXPECT_EQ(text(at(plan, "action")), "Archive 2 note(s)");
    EXPECT_EQ(at(plan, "targets"), boost::json::parse(R"(["n1","n2"])"));
    EXPECT_EQ(at(plan, "count"), 2);
    EXPECT_EQ(at(at(plan, "evidence"), "complete"), true);
    EXPECT_FALSE(token_of(a).empty());
    EXPECT_EQ(at(e, "expires_in_s"), 60);
    EXPECT_TRUE(w->archived.empty());
}

TEST_F(approval_fixture, ThePlanTokenExecutesExactlyThatPlan) {
    mount(false);
    auto& alice = h.client("alice");
    auto token = token_of(harness::call(alice, "archive_notes", two_notes));
    auto a = harness::call(alice, "archive_notes", with_token(two_notes, token));
    EXPECT_EQ(a.status(), "complete") << boost::json::serialize(a.env);
    EXPECT_EQ(at(a.data(), "approved"), true);
    EXPECT_THAT(w->archived, ElementsAre("n1", "n2"));
}

TEST_F(approval_fixture, APlanTokenRunsItsActionOnce) {
    mount(false);
    auto& alice = h.client("alice");
    auto token = token_of(harness::call(alice, "archive_notes", two_notes));
    EXPECT_EQ(harness::call(alice, "archive_notes", with_token(two_notes, token)).status(), "complete");
    w->archived.clear();
    EXPECT_THAT(harness::call(alice, "archive_notes", with_token(two_notes, token)).codes(),
                ElementsAre("PLAN_TOKEN_USED"));
    EXPECT_TRUE(w->archived.empty());
    // A new plan for the same call is a new approval.
    auto again = token_of(harness::call(alice, "archive_notes", two_notes));
    EXPECT_NE(again, token);
    EXPECT_EQ(harness::call(alice, "archive_notes", with_token(two_notes, again)).status(), "complete");
}

TEST_F(approval_fixture, KeyOrderDoesNotChangeTheArguments) {
    mount(false);
    auto& alice = h.client("alice");
    auto token = token_of(harness::call(alice, "archive_notes", two_notes));
    auto a = harness::call(alice, "archive_notes",
                           R"({"plan_token": ")" + token + R"(", "reason": "done", "ids": ["n1", "n2"]})");
    EXPECT_EQ(a.status(), "complete") << boost::json::serialize(a.env);
}

TEST_F(approval_fixture, APlanTokenCannotBeReusedForOtherTargets) {
    mount(false);
    auto& alice = h.client("alice");
    auto token = token_of(harness::call(alice, "archive_notes", two_notes));
    for (std::string_view other :
         {R"({"ids": ["n1", "n3"], "reason": "done"})", R"({"ids": ["n1", "n2", "n3"], "reason": "done"})",
          R"({"ids": ["n1"], "reason": "done"})"}) {
        auto a = harness::call(alice, "archive_notes", with_token(other, token));
        ASSERT_THAT(a.codes(), ElementsAre("PLAN_TOKEN_MISMATCH")) << other;
        EXPECT_EQ(text(at(a.error("PLAN_TOKEN_MISMATCH"), "mismatch")), "targets");
        EXPECT_EQ(at(a.error("PLAN_TOKEN_MISMATCH"), "repairable"), false);
    }
    EXPECT_TRUE(w->archived.empty());
}

TEST_F(approval_fixture, APlanTokenCannotBeReusedForOtherArguments) {
    mount(false);
    auto& alice = h.client("alice");
    auto token = token_of(harness::call(alice, "archive_notes", two_notes));
    auto a = harness::call(alice, "archive_notes", with_token(R"({"ids": ["n2", "n1"], "reason": "other"})", token));
    ASSERT_THAT(a.codes(), ElementsAre("PLAN_TOKEN_MISMATCH"));
    EXPECT_EQ(text(at(a.error("PLAN_TOKEN_MISMATCH"), "mismatch")), "arguments");
    EXPECT_TRUE(w->archived.empty());
}

TEST_F(approval_fixture, APlanTokenBelongsToItsCallerAndTool) {
    mount(false);
    mount(false, "archive_notes_too");
    auto token = token_of(harness::call(h.client("alice"), "archive_notes", two_notes));
    auto bob = harness::call(h.client("bob"), "archive_notes", with_token(two_notes, token));
    ASSERT_THAT(bob.codes(), ElementsAre("PLAN_TOKEN_MISMATCH"));
    EXPECT_EQ(text(at(bob.error("PLAN_TOKEN_MISMATCH"), "mismatch")), "caller");
    auto other = harness::call(h.client("alice"), "archive_notes_too", with_token(two_notes, token));
    ASSERT_THAT(other.codes(), ElementsAre("PLAN_TOKEN_MISMATCH"));
    EXPECT_EQ(text(at(other.error("PLAN_TOKEN_MISMATCH"), "mismatch")), "tool");
    EXPECT_TRUE(w->archived.empty());
}

TEST_F(approval_fixture, TamperedOrMistypedTokensAreInvalid) {
    mount(false);
    auto& alice = h.client("alice");
    auto token = token_of(harness::call(alice, "archive_notes", two_notes));
    auto flipped = token;
    flipped[flipped.size() / 2] = flipped[flipped.size() / 2] == 'A' ? 'B' : 'A';
    EXPECT_THAT(harness::call(alice, "archive_notes", with_token(two_notes, flipped)).codes(),
                ElementsAre("PLAN_TOKEN_INVALID"));
    EXPECT_THAT(harness::call(alice, "archive_notes", with_token(two_notes, "")).codes(),
                ElementsAre("PLAN_TOKEN_INVALID"));
    // A token that is not a string is refused by the schema tools/list advertises for it (as the
    // approval gate of a plain tool refuses it), before any plan is looked at.
    auto v = boost::json::parse(two_notes);
    v.as_object()["plan_token"] = 42;
    auto mistyped = harness::call(alice, "archive_notes", boost::json::serialize(v));
    EXPECT_THAT(mistyped.codes(), ElementsAre("TYPE_MISMATCH"));
    EXPECT_EQ(text(at(mistyped.error("TYPE_MISMATCH"), "path")), "/plan_token");
    EXPECT_TRUE(w->archived.empty());
}

TEST_F(approval_fixture, ExpiredTokensAreRefused) {
    mount(false);
    auto& alice = h.client("alice");
    auto token = token_of(harness::call(alice, "archive_notes", two_notes));
    wall += std::chrono::seconds(61);
    EXPECT_THAT(harness::call(alice, "archive_notes", with_token(two_notes, token)).codes(),
                ElementsAre("PLAN_TOKEN_EXPIRED"));
    EXPECT_TRUE(w->archived.empty());
}

TEST_F(approval_fixture, ValidationRunsBeforeAnyPlanIsOffered) {
    mount(false);
    auto a = harness::call(h.client("alice"), "archive_notes", R"({"ids": ["n1", "n9"], "reason": "done"})");
    ASSERT_THAT(a.codes(), ElementsAre("NOTE_NOT_FOUND"));
    EXPECT_EQ(text(at(a.error("NOTE_NOT_FOUND"), "layer")), "external");
    auto b = harness::call(h.client("bob"), "archive_notes", R"({"ids": ["n1", "n1"], "reason": "done"})");
    EXPECT_THAT(b.codes(), ElementsAre("DUPLICATE_ID"));
    EXPECT_EQ(w->external_checks, 1);  // the business issue stopped bob's call before the check
    EXPECT_TRUE(w->archived.empty());
}

TEST_F(approval_fixture, AValidTokenDoesNotBypassValidation) {
    mount(false);
    auto& alice = h.client("alice");
    auto token = token_of(harness::call(alice, "archive_notes", two_notes));
    w->notes.erase("n2");  // gone between the plan and its execution
    EXPECT_THAT(harness::call(alice, "archive_notes", with_token(two_notes, token)).codes(),
                ElementsAre("NOTE_NOT_FOUND"));
    EXPECT_TRUE(w->archived.empty());
}

TEST_F(approval_fixture, ToolsListOffersThePlanTokenArgument) {
    mount(false);
    auto r = h.client("alice").request("tools/list");
    auto tool = validation_test::item(at(at(r, "result"), "tools"), 0);
    EXPECT_EQ(text(at(at(at(at(tool, "inputSchema"), "properties"), "plan_token"), "type")), "string");
    EXPECT_EQ(at(at(tool, "annotations"), "destructiveHint"), true);
}

TEST_F(approval_fixture, ApproverSeesThePlanAndProceedExecutes) {
    mount(true);
    approver->answer.what = cv::approval_decision::choice::proceed;
    auto a = harness::call(h.client("alice"), "archive_notes", two_notes);
    EXPECT_EQ(a.status(), "complete") << boost::json::serialize(a.env);
    ASSERT_EQ(approver->asked.size(), 1u);
    EXPECT_EQ(approver->asked[0].tool, "archive_notes");
    EXPECT_THAT(approver->asked[0].plan.targets, ElementsAre("n1", "n2"));
    // No evidence layer: the plan says that nothing vouches for the targets.
    EXPECT_FALSE(approver->asked[0].plan.evidence.declared);
    EXPECT_THAT(w->archived, ElementsAre("n1", "n2"));
}

TEST_F(approval_fixture, DeclineExecutesNothing) {
    mount(true);
    approver->answer.what = cv::approval_decision::choice::declined;
    auto a = harness::call(h.client("alice"), "archive_notes", two_notes);
    ASSERT_THAT(a.codes(), ElementsAre("ACTION_DECLINED"));
    EXPECT_EQ(at(a.error("ACTION_DECLINED"), "repairable"), false);
    EXPECT_TRUE(w->archived.empty());
}

TEST_F(approval_fixture, CancelExecutesNothing) {
    mount(true);
    approver->answer.what = cv::approval_decision::choice::cancelled;
    EXPECT_THAT(harness::call(h.client("alice"), "archive_notes", two_notes).codes(), ElementsAre("ACTION_CANCELLED"));
    EXPECT_TRUE(w->archived.empty());
}

TEST_F(approval_fixture, NoUsableAnswerExecutesNothing) {
    mount(true);
    approver->answer = {cv::approval_decision::choice::unavailable, {}, "elicitation failed: timeout"};
    auto a = harness::call(h.client("alice"), "archive_notes", two_notes);
    ASSERT_THAT(a.codes(), ElementsAre("ACTION_NOT_APPROVED"));
    EXPECT_NE(text(at(a.error("ACTION_NOT_APPROVED"), "message")).find("timeout"), std::string::npos);
    EXPECT_TRUE(w->archived.empty());
}

TEST_F(approval_fixture, NarrowActsOnTheChosenIdsOnly) {
    mount(true);
    approver->answer = {cv::approval_decision::choice::narrow, {"n2"}, {}};
    auto a = harness::call(h.client("alice"), "archive_notes", two_notes);
    EXPECT_EQ(a.status(), "complete") << boost::json::serialize(a.env);
    EXPECT_THAT(w->archived, ElementsAre("n2"));
}

// The evidence layer runs before the approval, and the plan the user sees says what vouches for
// its targets.
TEST_F(approval_fixture, EvidenceRunsBeforeTheApprovalAndTheUserSeesIt) {
    auto store = candor::evidence::make_memory_store();
    cv::add_tool(
        h.server(),
        candor::mcp::tool_info("purge_listed", "Purges listed notes.")
            .with_action(candor::mcp::action_class::irreversible_write),
        [this](purge_reason, const cv::verdict& v, candor::mcp::call_context&) {
            for (const auto& id : v.targets) w->archived.push_back(id);
            return candor::envelope::complete(boost::json::object{});
        },
        candor::evidence::evidence_requirement{.resource = "notes", .keys = keys, .store = store},
        cv::approval<purge_reason>{.options = approvals(true)})
        .value();
    approver->answer.what = cv::approval_decision::choice::proceed;
    auto purge = [&](bool complete) {
        candor::evidence::snapshot_claims claims;
        claims.resource = "notes";
        claims.walk = complete ? "w-complete" : "w-stopped";
        claims.principal = candor::evidence::principal_fingerprint("alice");
        claims.complete = complete;
        if (!complete) claims.reasons = {"MORE_PAGES_AVAILABLE"};
        claims.expiry = std::chrono::system_clock::now() + std::chrono::minutes(5);
        const std::string delivered[] = {"n1", "n2"};
        store->record(claims.walk, delivered, claims.expiry);
        store->close(claims.walk, claims.expiry);
        const auto token = candor::evidence::seal_snapshot_token(*keys, claims);
        auto args = boost::json::object{{"reason", "done"}, {"ids", {"n2"}}, {"snapshot_token", token}};
        return harness::call(h.client("alice"), "purge_listed", boost::json::serialize(args));
    };
    // A walk that stopped early justifies nothing, and the user is not asked.
    EXPECT_THAT(purge(false).codes(), ElementsAre("EVIDENCE_INCOMPLETE"));
    EXPECT_TRUE(approver->asked.empty());
    EXPECT_TRUE(w->archived.empty());
    // A complete one: the user sees the targets and that a complete inventory vouches for them.
    auto a = purge(true);
    EXPECT_EQ(a.status(), "complete") << boost::json::serialize(a.env);
    ASSERT_EQ(approver->asked.size(), 1u);
    EXPECT_THAT(approver->asked[0].plan.targets, ElementsAre("n2"));
    EXPECT_TRUE(approver->asked[0].plan.evidence.declared);
    EXPECT_TRUE(approver->asked[0].plan.evidence.complete);
    EXPECT_THAT(w->archived, ElementsAre("n2"));
}

TEST_F(approval_fixture, UnavailableApproverFallsBackToThePlan) {
    approver->can_ask = false;
    mount(true);
    EXPECT_THAT(harness::call(h.client("alice"), "archive_notes", two_notes).codes(),
                ElementsAre("PLAN_TOKEN_REQUIRED"));
    EXPECT_TRUE(approver->asked.empty());
}

// Through the default approver and a client that declared elicitation. Until the transport
// routes replies to server requests, `elicit` answers `not_supported` at once; once it does,
// the client sees `elicitation/create` and declines. Nothing happens either way.
TEST_F(approval_fixture, ElicitingClientThatDeclinesGetsNothingDone) {
    cv::approval_options o = approvals(false);
    o.approver = std::make_shared<cv::elicitation_approver>(std::chrono::milliseconds(2000));
    add_archive_notes(h.server(), w, options(), std::move(o));
    auto& c = h.client("alice", true);
    const auto id = c.next_id();
    c.send(boost::json::serialize(
        boost::json::object{{"jsonrpc", "2.0"},
                            {"id", id},
                            {"method", "tools/call"},
                            {"params", {{"name", "archive_notes"}, {"arguments", boost::json::parse(two_notes)}}}}));
    boost::json::value question;
    c.run_until([&] {
        for (const auto& m : c.received()) {
            if (at(m, "id") == id) return true;
            if (text(at(m, "method")) == "elicitation/create") {
                question = m;
                return true;
            }
        }
        return false;
    });
    // The client declared elicitation, so the question must come before any answer.
    ASSERT_TRUE(question.is_object()) << "the call was answered without asking";
    EXPECT_TRUE(w->archived.empty());  // nothing done while the question is open
    const auto message = text(at(at(question, "params"), "message"));
    EXPECT_NE(message.find("n1, n2"), std::string::npos) << message;
    c.send(boost::json::serialize(
        boost::json::object{{"jsonrpc", "2.0"}, {"id", at(question, "id")}, {"result", {{"action", "decline"}}}}));
    c.run_until([&] { return !c.response_to(id).is_null(); });
    answer a{at(at(c.response_to(id), "result"), "structuredContent")};
    EXPECT_THAT(a.codes(), ElementsAre("ACTION_DECLINED"));
    EXPECT_TRUE(w->archived.empty());
}

// A read-only lookup whose only source is down: partial, never a silent complete.
TEST_F(approval_fixture, ReadOnlyToolsAnswerPartialWhenASourceIsDown) {
    bool ran = false;
    bool unverified = false;
    cv::add_tool(
        h.server(),
        candor::mcp::tool_info("lookup_notes", "Looks notes up.").with_action(candor::mcp::action_class::read_only),
        [&](archive_args a, const cv::verdict& v, candor::mcp::call_context&) {
            ran = true;
            unverified = v.unverified();
            return candor::envelope::complete(boost::json::object{{"found", a.ids.size()}});
        },
        options(),
        cv::external_check<archive_args>{"index", std::chrono::milliseconds(100),
                                         [](const archive_args&, candor::mcp::call_context&)
                                             -> boost::asio::awaitable<cv::check_result<archive_args>> {
                                             throw std::runtime_error("index down");
                                             co_return cv::check_result<archive_args>{};
                                         }})
        .value();
    auto a = harness::call(h.client("alice"), "lookup_notes", two_notes);
    EXPECT_EQ(a.status(), "partial") << boost::json::serialize(a.env);
    EXPECT_THAT(a.reason_codes(), ElementsAre("SOURCE_UNAVAILABLE"));
    EXPECT_TRUE(a.warning_codes().empty());
    EXPECT_TRUE(ran);
    EXPECT_TRUE(unverified);
    auto r = h.client("bob").request("tools/list");
    EXPECT_EQ(at(at(validation_test::item(at(at(r, "result"), "tools"), 0), "inputSchema"), "properties")
                  .as_object()
                  .contains("plan_token"),
              false);
}

TEST(ElicitationApprover, ReadsEveryAnswer) {
    using choice = cv::approval_decision::choice;
    cv::action_plan plan;
    plan.targets = {"a", "b", "c"};
    auto read = [&](candor::mcp::elicitation_action act, std::string_view content) {
        candor::mcp::elicitation_result r;
        r.action = act;
        if (!content.empty()) r.content = boost::json::parse(content).as_object();
        return cv::elicitation_approver::interpret(r, plan);
    };
    using act = candor::mcp::elicitation_action;
    EXPECT_EQ(read(act::decline, "").what, choice::declined);
    EXPECT_EQ(read(act::cancel, "").what, choice::cancelled);
    EXPECT_EQ(read(act::accept, R"({"decision":"proceed"})").what, choice::proceed);
    EXPECT_EQ(read(act::accept, R"({"decision":"cancel"})").what, choice::cancelled);
    EXPECT_EQ(read(act::accept, R"({})").what, choice::unavailable);
    EXPECT_EQ(read(act::accept, R"({"decision":"yes"})").what, choice::unavailable);
    auto narrowed = read(act::accept, R"({"decision":"narrow","ids":" c , a,,c"})");
    EXPECT_EQ(narrowed.what, choice::narrow);
    EXPECT_THAT(narrowed.ids, ElementsAre("c", "a"));
    EXPECT_EQ(read(act::accept, R"({"decision":"narrow","ids":"a,z"})").what, choice::unavailable);
    EXPECT_EQ(read(act::accept, R"({"decision":"narrow","ids":" , "})").what, choice::unavailable);
    EXPECT_EQ(read(act::accept, R"({"decision":"narrow"})").what, choice::unavailable);
}

TEST(ElicitationApprover, MessageShowsActionScopeAndEvidence) {
    cv::approval_request r;
    r.tool = "archive_notes";
    r.plan.summary = "Archive 2 notes";
    r.plan.targets = {"n1", "n2"};
    r.plan.evidence = {true, false, {"MORE_PAGES_AVAILABLE"}};
    const auto m = cv::elicitation_approver::message(r);
    EXPECT_NE(m.find("Archive 2 notes"), std::string::npos);
    EXPECT_NE(m.find("Targets (2): n1, n2"), std::string::npos);
    EXPECT_NE(m.find("INCOMPLETE (MORE_PAGES_AVAILABLE)"), std::string::npos);
    const auto schema = cv::elicitation_approver::requested_schema();
    EXPECT_EQ(at(at(at(schema, "properties"), "decision"), "enum"),
              boost::json::parse(R"(["proceed","narrow","cancel"])"));
}

// The gate on its own, in a tool without layers:
// a plain JSON tool that purges the ids it is given once approved.
class purge_notes final : public candor::mcp::json_tool {
public:
    purge_notes(std::shared_ptr<world> w, std::shared_ptr<const cv::approval_gate> gate)
        : json_tool(declaration()), world_(std::move(w)), gate_(std::move(gate)) {}

    static candor::mcp::tool_info declaration() {
        boost::json::object schema{
            {"type", "object"},
            {"properties", {{"ids", {{"type", "array"}, {"items", {{"type", "string"}}}, {"minItems", 1}}}}},
            {"required", {"ids"}},
            {"additionalProperties", false}};
        cv::approval_gate::declare_token(schema);
        return candor::mcp::tool_info("purge_notes", "Purges notes.")
            .with_input_schema(std::move(schema))
            .with_action(candor::mcp::action_class::irreversible_write);
    }

    boost::asio::awaitable<candor::envelope::envelope> call(const boost::json::object& args,
                                                            candor::mcp::call_context& ctx) override {
        cv::action_plan plan;
        plan.summary = "Purge notes";
        for (const auto& id : args.at("ids").as_array()) plan.targets.emplace_back(id.as_string());
        auto approval = co_await gate_->approve(ctx, plan, args);
        if (!approval.approved()) co_return candor::envelope::failure(std::move(approval.refusal));
        const auto& ids =
            approval.decision.what == cv::approval_decision::choice::narrow ? approval.decision.ids : plan.targets;
        for (const auto& id : ids) world_->archived.push_back(id);
        co_return candor::envelope::complete(boost::json::object{{"purged", ids.size()}});
    }

private:
    std::shared_ptr<world> world_;
    std::shared_ptr<const cv::approval_gate> gate_;
};

TEST_F(approval_fixture, TheGateAloneRunsTheTwoStepFlowForAPlainTool) {
    auto gate = std::make_shared<const cv::approval_gate>(
        "purge_notes", cv::approval_options{.plan_keys = keys, .wall_clock = [this] { return wall; }});
    h.server().add_tool(std::make_shared<purge_notes>(w, gate)).value();
    auto& alice = h.client("alice");
    constexpr std::string_view args = R"({"ids": ["n1", "n2"]})";

    auto plan = harness::call(alice, "purge_notes", args);
    ASSERT_THAT(plan.codes(), ElementsAre("PLAN_TOKEN_REQUIRED"));
    EXPECT_EQ(at(at(plan.error("PLAN_TOKEN_REQUIRED"), "plan"), "targets"), boost::json::parse(R"(["n1","n2"])"));
    EXPECT_TRUE(w->archived.empty());
    const auto token = token_of(plan);

    // A token this server did not seal is invalid; another caller's use is a mismatch.
    EXPECT_THAT(harness::call(alice, "purge_notes", R"({"ids": ["n1", "n2"], "plan_token": "AQx"})").codes(),
                ElementsAre("PLAN_TOKEN_INVALID"));
    EXPECT_THAT(harness::call(h.client("bob"), "purge_notes", with_token(args, token)).codes(),
                ElementsAre("PLAN_TOKEN_MISMATCH"));
    EXPECT_TRUE(w->archived.empty());

    auto done = harness::call(alice, "purge_notes", with_token(args, token));
    EXPECT_EQ(done.status(), "complete") << boost::json::serialize(done.env);
    EXPECT_THAT(w->archived, ElementsAre("n1", "n2"));
    EXPECT_THAT(harness::call(alice, "purge_notes", with_token(args, token)).codes(), ElementsAre("PLAN_TOKEN_USED"));
    wall += std::chrono::minutes(11);
    auto late = token_of(harness::call(alice, "purge_notes", args));
    wall += std::chrono::minutes(11);
    EXPECT_THAT(harness::call(alice, "purge_notes", with_token(args, late)).codes(), ElementsAre("PLAN_TOKEN_EXPIRED"));
}

TEST_F(approval_fixture, TheGateAloneAsksWhenItCanAndNarrows) {
    auto gate = std::make_shared<const cv::approval_gate>(
        "purge_notes", cv::approval_options{.approver = approver, .plan_keys = keys});
    h.server().add_tool(std::make_shared<purge_notes>(w, gate)).value();
    auto& alice = h.client("alice");
    approver->answer = {cv::approval_decision::choice::declined, {}, {}};
    EXPECT_THAT(harness::call(alice, "purge_notes", R"({"ids": ["n1", "n2"]})").codes(),
                ElementsAre("ACTION_DECLINED"));
    EXPECT_TRUE(w->archived.empty());
    approver->answer = {cv::approval_decision::choice::narrow, {"n2"}, {}};
    EXPECT_EQ(harness::call(alice, "purge_notes", R"({"ids": ["n1", "n2"]})").status(), "complete");
    EXPECT_THAT(w->archived, ElementsAre("n2"));
    ASSERT_EQ(approver->asked.size(), 2u);
    EXPECT_EQ(approver->asked[0].tool, "purge_notes");
    EXPECT_THAT(approver->asked[0].plan.targets, ElementsAre("n1", "n2"));
}

}  // namespace

namespace {

// A layer that cannot work is refused when the tool is made, never at the first call.
TEST(Layers, AMalformedLayerIsRefusedWhenTheToolIsMade) {
    const auto info = candor::mcp::tool_info("purge", "Purges.");
    const auto plain = [](const archive_args&, candor::mcp::call_context&) {
        return candor::envelope::complete(boost::json::object{});
    };
    // The use recorded with the writes needs a function that can call verdict::commit.
    EXPECT_THROW(cv::make_tool(info, plain, cv::approval<archive_args>{.use = cv::plan_use_timing::with_action}),
                 std::invalid_argument);
    EXPECT_THROW(cv::make_tool(info, plain, cv::approval<archive_args>{}, cv::approval<archive_args>{}),
                 std::invalid_argument);
    EXPECT_THROW(cv::make_tool(info, plain, candor::evidence::evidence_requirement{.resource = "notes"}),
                 std::invalid_argument);
    EXPECT_NO_THROW(cv::make_tool(info, plain, cv::approval<archive_args>{}));
}

// A callable on the arguments is an invariant, and the offline check runs it with the contract.
TEST(Layers, APlainCallableIsAnInvariantAndTheOfflineCheckRunsIt) {
    auto tool = cv::make_tool(
        candor::mcp::tool_info("archive", "Archives.").with_action(candor::mcp::action_class::reversible_write),
        [](const archive_args&) { return candor::envelope::complete(boost::json::object{}); },
        [](const archive_args& a) {
            candor::issue_list out;
            if (a.ids.size() > 1)
                out.push_back(candor::make_issue(candor::layer::contract, "ONE_AT_A_TIME", "/ids", "one id", true));
            return out;
        });
    const auto issues = tool->check_arguments(boost::json::parse(R"({"ids": ["a", "b"], "reason": "done"})"), nullptr);
    ASSERT_EQ(issues.size(), 1u);
    EXPECT_EQ(issues[0].code, "ONE_AT_A_TIME");
    EXPECT_EQ(issues[0].where, candor::layer::business);
    EXPECT_TRUE(tool->check_arguments(boost::json::parse(R"({"ids": ["a"], "reason": "done"})"), nullptr).empty());
}

}  // namespace
