// SPDX-License-Identifier: BSL-1.0
// GCC 12 reports -Wmismatched-new-delete on coroutine frames (Asio's frame allocator pairs its
// own operator new and delete): a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
#include <candor/evidence/gate.hpp>

#include <candor/envelope/codes.hpp>
#include <candor/json/document.hpp>

#include <stdexcept>

namespace candor::evidence {

namespace ce = candor::envelope;

namespace {

issue refusal(std::string_view code, std::string path, std::string message) {
    return make_issue(layer::external, code, std::move(path), std::move(message), false);
}

}  // namespace

boost::json::object gate_arguments(const evidence_requirement& req) {
    boost::json::object p;
    p["ids"] = boost::json::object{
        {"type", "array"},
        {"items", {{"type", "string"}, {"minLength", 1}}},
        {"minItems", 1},
        {"maxItems", req.max_ids},
        {"uniqueItems", true},
        {"description", "Ids to act on; each must come from the inventory named by snapshot_token."}};
    p["snapshot_token"] = boost::json::object{
        {"type", "string"},
        {"minLength", 1},
        {"description", "snapshot_token of the envelope that ended a complete walk of '" + req.resource + "'."}};
    return p;
}

boost::asio::awaitable<boost::system::result<verified_evidence, issue_list>> verify(const evidence_requirement& req,
                                                                                    const std::string* token,
                                                                                    const std::vector<std::string>& ids,
                                                                                    std::string principal_id) {
    using verdict = boost::system::result<verified_evidence, issue_list>;
    auto refuse = [](issue i) { return verdict(issue_list{std::move(i)}); };
    if (!token)
        co_return refuse(refusal(codes::evidence_missing, "/snapshot_token",
                                 "this action needs evidence: walk '" + req.resource +
                                     "' to its end and pass the snapshot_token of its last page"));
    auto opened = open_snapshot_token(*req.keys, *token);
    if (opened.has_error())
        co_return refuse(refusal(codes::evidence_invalid, "/snapshot_token",
                                 "the snapshot_token is not one this server issued (malformed or altered); walk '" +
                                     req.resource + "' again"));
    const snapshot_claims claims = std::move(opened).value();
    const auto now = req.wall_clock ? req.wall_clock() : std::chrono::system_clock::now();
    if (claims.expiry <= now)
        co_return refuse(refusal(codes::evidence_expired, "/snapshot_token",
                                 "the snapshot_token expired; walk '" + req.resource + "' again for fresh evidence"));
    if (claims.resource != req.resource || claims.principal != principal_fingerprint(principal_id)) {
        auto i = refusal(codes::evidence_scope_mismatch, "/snapshot_token",
                         claims.resource != req.resource ? "the snapshot_token comes from '" + claims.resource +
                                                               "', not from '" + req.resource + "'"
                                                         : "the snapshot_token was issued to another principal");
        i.details["expected_resource"] = req.resource;
        co_return refuse(std::move(i));
    }
    if (!claims.complete) {
        auto i = refusal(codes::evidence_incomplete, "/snapshot_token",
                         "the inventory behind this snapshot_token was not complete, so it cannot justify a "
                         "destructive change; show its reasons to a person or obtain a complete inventory");
        boost::json::array reasons;
        for (const auto& r : claims.reasons) reasons.emplace_back(r);
        i.details["reasons"] = std::move(reasons);
        co_return refuse(std::move(i));
    }
    auto lookup = [store = req.store, walk = claims.walk, ids, now] { return store->uncovered(walk, ids, now); };
    auto looked_up = co_await call_store(*req.store, std::move(lookup));
    if (!looked_up)
        co_return refuse(refusal(envelope::validation_codes::source_unavailable, "/snapshot_token",
                                 "the evidence store failed; nothing was done. Try again later"));
    auto& missing = *looked_up;
    if (!missing)
        co_return refuse(refusal(codes::evidence_expired, "/snapshot_token",
                                 "the evidence behind this snapshot_token is gone; walk '" + req.resource + "' again"));
    if (!missing->empty()) {
        auto i = refusal(codes::evidence_not_covered, "/ids",
                         std::to_string(missing->size()) +
                             " of the ids were not delivered by the inventory "
                             "behind snapshot_token; act only on ids the walk returned");
        boost::json::array list;
        for (const auto& m : *missing) list.emplace_back(m);
        i.details["ids"] = std::move(list);
        co_return refuse(std::move(i));
    }
    verdict ok = verified_evidence{claims, ids};
    co_return ok;
}

boost::asio::awaitable<ce::envelope> act_on_each(const std::vector<std::string>& ids, object_action act) {
    boost::json::array done;
    boost::json::array skipped;
    for (const auto& id : ids) {
        auto r = co_await act(id);
        if (r) {
            done.emplace_back(id);
        } else {
            skipped.push_back(
                boost::json::object{{"id", id}, {"code", r.error().code}, {"message", r.error().message}});
        }
    }
    const bool any_skipped = !skipped.empty();
    auto e = ce::complete(boost::json::object{{"done", std::move(done)}, {"skipped", std::move(skipped)}});
    if (any_skipped)
        e.add_warning({std::string(codes::objects_skipped),
                       "some objects no longer qualified at execution and were left unchanged; see data.skipped",
                       {}});
    co_return e;
}

}  // namespace candor::evidence
