// SPDX-License-Identifier: BSL-1.0
#include <candor/validation/plan_token.hpp>

#include <candor/json/intake.hpp>

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>

namespace candor::validation {

namespace {

bool write_canonical(const boost::json::value& v, const json::document* doc, std::string_view exclude,
                     std::size_t depth, std::size_t max_depth, std::string& out) {
    switch (v.kind()) {
        case boost::json::kind::object: {
            if (depth >= max_depth) return false;
            const auto& o = v.get_object();
            std::vector<const boost::json::key_value_pair*> members;
            members.reserve(o.size());
            for (const auto& kv : o)
                if (depth != 0 || exclude.empty() || kv.key() != exclude) members.push_back(&kv);
            std::sort(members.begin(), members.end(), [](const auto* a, const auto* b) { return a->key() < b->key(); });
            out += '{';
            bool first = true;
            for (const auto* kv : members) {
                if (!first) out += ',';
                first = false;
                out += boost::json::serialize(boost::json::string_view(kv->key()));
                out += ':';
                if (!write_canonical(kv->value(), doc, exclude, depth + 1, max_depth, out)) return false;
            }
            out += '}';
            return true;
        }
        case boost::json::kind::array: {
            if (depth >= max_depth) return false;
            out += '[';
            bool first = true;
            for (const auto& item : v.get_array()) {
                if (!first) out += ',';
                first = false;
                if (!write_canonical(item, doc, exclude, depth + 1, max_depth, out)) return false;
            }
            out += ']';
            return true;
        }
        case boost::json::kind::int64:
        case boost::json::kind::uint64:
        case boost::json::kind::double_: {
            if (doc != nullptr) {
                if (auto text = doc->number_text(v)) {
                    out += *text;
                    return true;
                }
            }
            out += boost::json::serialize(v);
            return true;
        }
        default: out += boost::json::serialize(v); return true;
    }
}

}  // namespace

std::string canonical_arguments(const boost::json::value& arguments, const json::document* doc,
                                std::string_view exclude, std::size_t max_depth) {
    std::string out;
    if (!write_canonical(arguments, doc, exclude, 0, max_depth, out)) return {};
    return out;
}

std::string arguments_fingerprint(std::string_view canonical) {
    return seal::fingerprint("candor.plan.arguments", canonical);
}

std::string targets_fingerprint(std::vector<std::string> ids) {
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    std::string joined;
    for (const auto& id : ids) {
        joined += std::to_string(id.size());  // length-prefixed: no separator can be forged
        joined += ':';
        joined += id;
    }
    return seal::fingerprint("candor.plan.targets", joined);
}

std::string seal_plan_token(const seal::key_ring& keys, const plan_claims& claims) {
    const auto expiry = std::chrono::duration_cast<std::chrono::seconds>(claims.expiry.time_since_epoch()).count();
    boost::json::object payload{{"t", claims.tool},
                                {"p", claims.principal},
                                {"a", claims.arguments},
                                {"g", claims.targets},
                                {"e", expiry},
                                // A fresh nonce: two plans for the same call are distinct tokens.
                                {"n", claims.nonce.empty() ? seal::random_hex(16) : claims.nonce}};
    return keys.seal(plan_token_purpose, boost::json::serialize(payload));
}

boost::system::result<plan_claims, seal::seal_error> open_plan_token(const seal::key_ring& keys,
                                                                     std::string_view token) {
    if (token.size() > 4096) return seal::seal_error::malformed;
    auto payload = keys.open(plan_token_purpose, token);
    if (!payload) return payload.error();
    auto doc = json::parse(*payload, json::limits{4096, 2, 16});
    if (!doc || !doc->root().is_object()) return seal::seal_error::malformed;
    const auto& o = doc->root().get_object();
    plan_claims c;
    auto text = [&](std::string_view k, std::string& into) {
        const auto* v = o.if_contains(k);
        if (v == nullptr || !v->is_string()) return false;
        into = std::string(v->get_string());
        return true;
    };
    if (!text("t", c.tool) || !text("p", c.principal) || !text("a", c.arguments) || !text("g", c.targets) ||
        !text("n", c.nonce))
        return seal::seal_error::malformed;
    // The sealer always writes a nonce, and the ledger keeps a plan's use by it: a token
    // without one is none this code wrote.
    if (c.nonce.empty()) return seal::seal_error::malformed;
    const auto* e = o.if_contains("e");
    if (e == nullptr || !e->is_int64()) return seal::seal_error::malformed;
    // In seconds: any that fits in milliseconds within the payload bound (else malformed).
    const auto seconds = e->get_int64();
    const auto when =
        seconds < 0 || seconds > seal::max_payload_epoch_ms / 1000 ? std::nullopt : seal::payload_time(seconds * 1000);
    if (!when) return seal::seal_error::malformed;
    c.expiry = *when;
    return c;
}

}  // namespace candor::validation
