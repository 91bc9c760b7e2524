// SPDX-License-Identifier: BSL-1.0
#include "session_policy.hpp"

namespace candor::transport::detail {

void session_admission::consider(const session_facts& s) {
    ++total_;
    const bool own = s.owner == owner_;
    if (own) ++owned_;
    if (s.busy) return;
    if (s.expired) expired_.offer(s);
    if (!s.used) unused_.offer(s);
    if (own) own_.offer(s);
}

session_admission::decision session_admission::decide() const {
    decision d;
    if (owned_ >= limits_.max_per_principal) {
        if (own_.id.empty()) {
            d.refused = http_policy::refusal{503, "TOO_MANY_SESSIONS",
                                             "this principal holds " + std::to_string(owned_) +
                                                 " sessions, its share, and each is busy; try again later"};
        } else {
            d.evict = own_.id;
        }
        return d;
    }
    if (total_ < limits_.max_sessions) return d;
    for (const auto* candidate : {&expired_, &unused_, &own_}) {
        if (!candidate->id.empty()) {
            d.evict = candidate->id;
            return d;
        }
    }
    d.refused = http_policy::refusal{503, "TOO_MANY_SESSIONS", "the server has too many live sessions"};
    return d;
}

}  // namespace candor::transport::detail
