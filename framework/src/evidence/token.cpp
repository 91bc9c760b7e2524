// SPDX-License-Identifier: BSL-1.0
#include <candor/evidence/token.hpp>

#include <candor/json/intake.hpp>
#include <candor/json/write.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

namespace candor::evidence {

namespace {

const boost::json::string* string_at(const boost::json::object& o, std::string_view k) {
    const auto* v = o.if_contains(k);
    return v ? v->if_string() : nullptr;
}

}  // namespace

std::string principal_fingerprint(std::string_view principal_id) {
    // A connection's calls come from one caller: each thread keeps the last answer.
    struct last {
        std::string id;
        std::string fingerprint;
        bool set = false;
    };
    thread_local last l;
    if (!l.set || l.id != principal_id) {
        l.fingerprint = seal::fingerprint("principal", principal_id);
        l.id = principal_id;
        l.set = true;
    }
    return l.fingerprint;
}

std::string seen_as(std::string_view id, std::string_view item_text) {
    std::string out(id);
    out.push_back('\x1F');
    out += seal::fingerprint("item", item_text);
    return out;
}

std::string seal_snapshot_token(const seal::key_ring& keys, const snapshot_claims& c) {
    boost::json::array reasons;
    for (const auto& r : c.reasons) reasons.emplace_back(r);
    boost::json::object o{
        {"r", c.resource}, {"q", c.query},    {"p", c.principal},        {"s", c.snapshot},
        {"w", c.walk},     {"c", c.complete}, {"n", std::move(reasons)}, {"x", seal::to_epoch_ms(c.expiry)}};
    return keys.seal(snapshot_token_purpose, json::to_string(o).value());
}

boost::system::result<snapshot_claims, seal::seal_error> open_snapshot_token(const seal::key_ring& keys,
                                                                             std::string_view token) {
    auto payload = keys.open(snapshot_token_purpose, token);
    if (!payload) return payload.error();
    // Authentic, so written by us; still parsed strictly and shape-checked, because a key
    // shared with an older version could have sealed another shape.
    auto doc = json::parse(*payload, json::limits{4096, 4, 256});
    if (!doc || !doc->root().is_object()) return seal::seal_error::malformed;
    const auto& o = doc->root().get_object();
    snapshot_claims c;
    const boost::json::string* fields[] = {string_at(o, "r"), string_at(o, "q"), string_at(o, "p"), string_at(o, "s"),
                                           string_at(o, "w")};
    for (const auto* f : fields)
        if (!f) return seal::seal_error::malformed;
    c.resource = *fields[0];
    c.query = *fields[1];
    c.principal = *fields[2];
    c.snapshot = *fields[3];
    c.walk = *fields[4];
    const auto* complete = o.if_contains("c");
    const auto* reasons = o.if_contains("n");
    const auto* expiry = o.if_contains("x");
    if (!complete || !complete->is_bool() || !reasons || !reasons->is_array() || !expiry || !expiry->is_int64())
        return seal::seal_error::malformed;
    c.complete = complete->get_bool();
    for (const auto& r : reasons->get_array()) {
        if (!r.is_string()) return seal::seal_error::malformed;
        c.reasons.emplace_back(r.get_string());
    }
    const auto when = seal::payload_time(expiry->get_int64());
    if (!when) return seal::seal_error::malformed;
    c.expiry = *when;
    return c;
}

}  // namespace candor::evidence
