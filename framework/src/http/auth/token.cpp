// SPDX-License-Identifier: BSL-1.0
#include <candor/http/auth/token.hpp>

#include <candor/http/auth/base64url.hpp>
#include <candor/json/intake.hpp>

#include <boost/json/value.hpp>

#include <boost/throw_exception.hpp>

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

namespace candor::auth {

namespace {

using clock = std::chrono::system_clock;

char lower(char c) noexcept { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool iequals(std::string_view a, std::string_view b) noexcept {
    return a.size() == b.size() &&
           std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return lower(x) == lower(y); });
}

// RFC 8707 resource URIs: the scheme and host compare case-insensitively, the rest exactly.
bool same_resource(std::string_view a, std::string_view b) noexcept {
    if (a == b) return true;
    const auto authority_end = [](std::string_view s) {
        const auto sep = s.find("://");
        if (sep == std::string_view::npos) return std::string_view::npos;
        const auto end = s.find_first_of("/?#", sep + 3);
        return end == std::string_view::npos ? s.size() : end;
    };
    const auto ea = authority_end(a), eb = authority_end(b);
    if (ea == std::string_view::npos || ea != eb) return false;
    return iequals(a.substr(0, ea), b.substr(0, eb)) && a.substr(ea) == b.substr(eb);
}

// A base64url part holding a JSON object, through the strict intake.
std::optional<json::document> decode_object(std::string_view part, const token_limits& lim) {
    const auto bytes = base64url_decode(part);
    if (!bytes) return std::nullopt;
    auto doc = json::parse(*bytes, json::limits{lim.max_bytes, lim.max_depth, lim.max_nodes});
    if (!doc || !doc->root().is_object()) return std::nullopt;
    return std::move(*doc);
}

// A NumericDate (seconds since the epoch, RFC 7519 §2), bounded so that it converts safely.
std::optional<clock::time_point> numeric_date(const boost::json::value& v) {
    double seconds = 0;
    if (v.is_int64()) seconds = static_cast<double>(v.get_int64());
    else if (v.is_uint64()) seconds = static_cast<double>(v.get_uint64());
    else if (v.is_double()) seconds = v.get_double();
    else return std::nullopt;
    constexpr double bound = 1e11;  // year 5138: later dates are not dates a token would carry
    if (!std::isfinite(seconds) || seconds < -bound || seconds > bound) return std::nullopt;
    return clock::time_point(std::chrono::duration_cast<clock::duration>(
        std::chrono::seconds(static_cast<std::int64_t>(std::floor(seconds)))));
}

const boost::json::value* claim_at(const boost::json::object& claims, std::string_view path) {
    const boost::json::object* o = &claims;
    while (true) {
        const auto dot = path.find('.');
        const auto* v = o->if_contains(path.substr(0, dot));
        if (!v || dot == std::string_view::npos) return v;
        o = v->if_object();
        if (!o) return nullptr;
        path.remove_prefix(dot + 1);
    }
}

// An array of strings or a space-separated string into `out`; false for anything else or for
// more than `max` entries.
bool string_list(const boost::json::value& v, std::size_t max, std::vector<std::string>& out) {
    if (const auto* s = v.if_string()) {
        out = split_scopes(*s);
    } else if (const auto* a = v.if_array()) {
        for (const auto& e : *a) {
            if (!e.is_string()) return false;
            out.emplace_back(e.get_string());
        }
    } else {
        return false;
    }
    return out.size() <= max;
}

bool optional_string(const boost::json::object& claims, std::string_view name, std::string& out) {
    const auto* v = claims.if_contains(name);
    if (!v) return true;
    if (!v->is_string()) return false;
    out = std::string(v->get_string());
    return true;
}

}  // namespace

std::vector<std::string> split_scopes(std::string_view list) {
    std::vector<std::string> out;
    while (!list.empty()) {
        const auto sp = list.find(' ');
        if (sp != 0) out.emplace_back(list.substr(0, sp));
        if (sp == std::string_view::npos) break;
        list.remove_prefix(sp + 1);
    }
    return out;
}

void throw_exception_from_error(token_error e, const boost::source_location& loc) {
    boost::throw_exception(std::runtime_error(std::string(to_string(e))), loc);
}

std::string_view to_string(token_error e) noexcept {
    switch (e) {
        case token_error::too_large: return "TOKEN_TOO_LARGE";
        case token_error::malformed: return "TOKEN_MALFORMED";
        case token_error::algorithm_unsupported: return "TOKEN_ALGORITHM_UNSUPPORTED";
        case token_error::type_unsupported: return "TOKEN_TYPE_UNSUPPORTED";
        case token_error::key_unknown: return "TOKEN_KEY_UNKNOWN";
        case token_error::signature_invalid: return "TOKEN_SIGNATURE_INVALID";
        case token_error::issuer_mismatch: return "TOKEN_ISSUER_MISMATCH";
        case token_error::audience_mismatch: return "TOKEN_AUDIENCE_MISMATCH";
        case token_error::expired: return "TOKEN_EXPIRED";
        case token_error::not_yet_valid: return "TOKEN_NOT_YET_VALID";
        case token_error::claims_invalid: return "TOKEN_CLAIMS_INVALID";
    }
    return "TOKEN_MALFORMED";
}

std::string_view describe(token_error e) noexcept {
    switch (e) {
        case token_error::too_large: return "the access token is larger than this server accepts";
        case token_error::malformed: return "the access token is not a well-formed JWT";
        case token_error::algorithm_unsupported: return "the access token's signing algorithm is not accepted";
        case token_error::type_unsupported:
            return "the token is not an access token (typ) or needs unsupported extensions (crit)";
        case token_error::key_unknown: return "the access token was signed with a key the issuer does not publish";
        case token_error::signature_invalid: return "the access token's signature does not verify";
        case token_error::issuer_mismatch: return "the access token is not from this server's authorization server";
        case token_error::audience_mismatch: return "the access token was issued for another resource";
        case token_error::expired: return "the access token has expired";
        case token_error::not_yet_valid: return "the access token is not valid yet";
        case token_error::claims_invalid:
            return "the access token lacks a required claim or has a claim of the wrong type";
    }
    return "the access token is not valid";
}

boost::system::result<mcp::principal, token_error> validate_token(std::string_view token, const key_set& keys,
                                                                  const token_policy& policy, clock::time_point now) {
    const auto& lim = policy.limits;
    if (token.size() > lim.max_bytes) return token_error::too_large;
    const auto dot1 = token.find('.');
    const auto dot2 = dot1 == std::string_view::npos ? dot1 : token.find('.', dot1 + 1);
    // An empty signature is left to the header's algorithm: an unsecured JWS (`alg: none`) has
    // one, and is refused as the algorithm it is; for any other algorithm it does not verify.
    if (dot2 == std::string_view::npos || token.find('.', dot2 + 1) != std::string_view::npos || dot1 == 0 ||
        dot2 == dot1 + 1)
        return token_error::malformed;

    // The JOSE header decides which key and algorithm check the signature.
    const auto header_doc = decode_object(token.substr(0, dot1), lim);
    if (!header_doc) return token_error::malformed;
    const auto* header = &header_doc->root().get_object();
    const auto* alg_name = header->if_contains("alg");
    if (!alg_name || !alg_name->is_string()) return token_error::malformed;
    const auto alg = parse_algorithm(alg_name->get_string());
    if (!alg || std::find(policy.algorithms.begin(), policy.algorithms.end(), *alg) == policy.algorithms.end())
        return token_error::algorithm_unsupported;
    if (header->contains("crit")) return token_error::type_unsupported;
    if (const auto* typ = header->if_contains("typ")) {
        if (!typ->is_string()) return token_error::malformed;
        const std::string_view t = typ->get_string();
        const bool at_jwt = iequals(t, "at+jwt") || iequals(t, "application/at+jwt");
        const bool jwt = iequals(t, "jwt") || iequals(t, "application/jwt");
        if (!at_jwt && (policy.require_at_jwt_type || !jwt)) return token_error::type_unsupported;
    } else if (policy.require_at_jwt_type) {
        return token_error::type_unsupported;
    }
    std::optional<std::string_view> kid;
    if (const auto* k = header->if_contains("kid")) {
        if (!k->is_string()) return token_error::malformed;
        kid = k->get_string();
    }
    const auto signature = base64url_decode(token.substr(dot2 + 1));
    if (!signature) return token_error::malformed;
    switch (keys.verify(kid, *alg, token.substr(0, dot2), *signature)) {
        case verify_outcome::valid: break;
        case verify_outcome::no_key: return token_error::key_unknown;
        case verify_outcome::invalid: return token_error::signature_invalid;
    }

    // Signed by the issuer's key: now the claims.
    const auto claims_doc = decode_object(token.substr(dot1 + 1, dot2 - dot1 - 1), lim);
    if (!claims_doc) return token_error::malformed;
    const auto* claims = &claims_doc->root().get_object();
    const auto* iss = claims->if_contains("iss");
    if (!iss || !iss->is_string() || iss->get_string() != policy.issuer) return token_error::issuer_mismatch;
    const auto* aud = claims->if_contains("aud");
    bool for_us = false;
    if (aud && aud->is_string()) for_us = same_resource(aud->get_string(), policy.audience);
    else if (aud && aud->is_array())
        for (const auto& a : aud->get_array())
            for_us = for_us || (a.is_string() && same_resource(a.get_string(), policy.audience));
    if (!for_us) return token_error::audience_mismatch;

    const auto* exp_claim = claims->if_contains("exp");
    const auto exp = exp_claim ? numeric_date(*exp_claim) : std::nullopt;
    if (!exp) return token_error::claims_invalid;
    if (now > *exp + policy.leeway) return token_error::expired;
    for (const auto* name : {"nbf", "iat"}) {
        const auto* v = claims->if_contains(name);
        if (!v) continue;
        const auto at = numeric_date(*v);
        if (!at) return token_error::claims_invalid;
        if (*at > now + policy.leeway) return token_error::not_yet_valid;
    }

    auto cred = std::make_shared<mcp::credential>();
    cred->issuer = policy.issuer;
    cred->expires_at = *exp;
    if (!optional_string(*claims, "sub", cred->subject)) return token_error::claims_invalid;
    if (!optional_string(*claims, "client_id", cred->client_id)) return token_error::claims_invalid;
    if (cred->client_id.empty() && !optional_string(*claims, "azp", cred->client_id))
        return token_error::claims_invalid;
    mcp::principal who;
    const auto* id = claim_at(*claims, policy.principal_claim);
    if (!id || !id->is_string() || id->get_string().empty()) return token_error::claims_invalid;
    who.id = std::string(id->get_string());

    // RFC 9068 `scope` (a string); Entra ID and Okta say `scp` (a string or an array).
    const auto* scope = claims->if_contains("scope");
    if (!scope) scope = claims->if_contains("scp");
    if (scope && !string_list(*scope, lim.max_scopes, cred->scopes)) return token_error::claims_invalid;
    if (!policy.scope_implies.empty()) {
        const std::size_t granted = cred->scopes.size();
        for (std::size_t i = 0; i < granted; ++i) {
            const auto it = policy.scope_implies.find(cred->scopes[i]);
            if (it == policy.scope_implies.end()) continue;
            for (const auto& narrower : it->second)
                if (!cred->has_scope(narrower)) cred->scopes.push_back(narrower);
        }
    }
    if (!policy.groups_claim.empty()) {
        if (const auto* groups = claim_at(*claims, policy.groups_claim);
            groups && !string_list(*groups, lim.max_groups, cred->groups))
            return token_error::claims_invalid;
    }
    who.credential = std::move(cred);
    return who;
}

}  // namespace candor::auth
